internal import CLua
internal import CLuaShims

/// The arguments of a host function called from Lua, with checks that fail the way Lua's
/// own library functions do.
///
/// ```swift
/// vm.register("stack") { args in
///     let options = try args.table(1)   // bad argument #1 to 'stack' (table expected, got nil)
///     return [.table(options)]
/// }
/// ```
public struct LuaArguments {
    /// The VM the function runs in; calls made through it run on the calling thread.
    public let vm: LuaVM
    let L: OpaquePointer
    /// The name the function was registered under (used in messages).
    public let functionName: String
    /// How many arguments were passed.
    public let count: Int

    /// The argument at `index` (1-based); `.nil` past the end.
    public subscript(index: Int) -> LuaValue {
        guard index >= 1, index <= count else { return .nil }
        return vm.value(at: Int32(index), on: L)
    }

    /// Where the calling Lua code is (`books.lua`, line 12), if it is Lua code with line
    /// information (lua_getstack, §4.7, [-0, +0, -]; lua_getinfo "Sl", [-0, +0, m]).
    public var callerLocation: LuaError.Location? { location(level: 1) }

    /// Where the Lua code `level` calls up is (1: the caller of this host function).
    public func location(level: Int) -> LuaError.Location? {
        var record = lua_Debug()
        guard level >= 1, lua_getstack(L, Int32(level), &record) != 0, lua_getinfo(L, "Sl", &record) != 0,
            record.currentline > 0
        else {
            return nil
        }
        let source = withUnsafeBytes(of: &record.short_src) { raw in vm.sourceName(raw.prefix { $0 != 0 }) }
        return LuaError.Location(file: source, line: Int(record.currentline))
    }

    /// Whether the argument at `index` is a table (no reference taken).
    public func isTable(_ index: Int) -> Bool {
        index >= 1 && index <= count && lua_type(L, Int32(index)) == LUA_TTABLE
    }

    /// Calls `body` with every key and value of the table argument at `index`, in `next` order
    /// (raw), read in place, 64 entries a call (the first without a protected call, since
    /// nothing in it can raise; the others protected): strings, numbers and booleans by value
    /// and a userdata of `objects` as its Swift object, with no registry reference and no
    /// array of entries; other values (tables, functions) as ``LuaValue``s that hold a
    /// reference. A builder's table is read this way (docs/performance.md). `body` may read
    /// other tables, but must not change this one.
    ///
    /// - Throws: ``LuaArgumentError`` when the argument is not a table; ``LuaError`` when a
    ///   limit stops the read or `body` changed the table so that the read cannot go on
    ///   ("invalid key to 'next'"); what `body` throws.
    public func forEachField(
        _ index: Int, objects: LuaClass?, _ body: (_ key: LuaValue, _ value: LuaField) throws -> Void
    ) throws {
        guard isTable(index) else { throw typeError(index, expected: "table") }
        try vm.forEachField(at: Int32(index), on: L, objects: objects, body)
    }

    /// The Lua type name of the argument (`no value` past the end).
    public func typeName(_ index: Int) -> String {
        index > count ? "no value" : vm.typeName(at: Int32(index), on: L)
    }

    /// An argument error in Lua's words: `bad argument #2 to 'stack' (table expected, got nil)`.
    public func argumentError(_ index: Int, _ detail: String) -> LuaArgumentError {
        LuaArgumentError(message: "bad argument #\(index) to '\(functionName)' (\(detail))")
    }

    /// A type error: `table expected, got nil`.
    public func typeError(_ index: Int, expected: String) -> LuaArgumentError {
        argumentError(index, "\(expected) expected, got \(typeName(index))")
    }

    public func string(_ index: Int) throws -> String {
        if case .string(let s) = self[index] { return s }
        throw typeError(index, expected: "string")
    }

    public func integer(_ index: Int) throws -> Int64 {
        let value = self[index]
        if let i = value.integerValue { return i }
        if case .number = value { throw argumentError(index, "number has no integer representation") }
        throw typeError(index, expected: "number")
    }

    public func number(_ index: Int) throws -> Double {
        if let d = self[index].numberValue { return d }
        throw typeError(index, expected: "number")
    }

    public func boolean(_ index: Int) throws -> Bool {
        if case .boolean(let b) = self[index] { return b }
        throw typeError(index, expected: "boolean")
    }

    public func table(_ index: Int) throws -> LuaReference {
        if case .table(let t) = self[index] { return t }
        throw typeError(index, expected: "table")
    }

    public func function(_ index: Int) throws -> LuaReference {
        if case .function(let f) = self[index] { return f }
        throw typeError(index, expected: "function")
    }
}

/// A bad argument to a host function. Raised in Lua with the caller's position:
/// `books.lua:3: bad argument #1 to 'stack' (table expected, got nil)`.
public struct LuaArgumentError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}

/// A value ``LuaArguments/forEachField(_:objects:_:)`` read from a table: a host object of the class
/// asked for, or any other value.
public enum LuaField {
    case object(AnyObject)
    case value(LuaValue)

    /// The Lua type name (`userdata` for an object).
    public var typeName: String {
        switch self {
        case .object: "userdata"
        case .value(let value): value.typeName
        }
    }
}

/// A Swift function callable from Lua. Throwing raises a Lua error in the calling script:
/// ``LuaArgumentError`` and other errors get the caller's position; a ``LuaError`` from a
/// nested call is raised as it is.
public typealias LuaHostFunction = (LuaArguments) throws -> [LuaValue]

/// Keeps a host function alive for the VM's lifetime; its address is the trampoline's upvalue.
final class HostFunctionBox {
    unowned let vm: LuaVM
    let name: String
    /// What the function does with its results.
    enum Body {
        /// Results pushed as values.
        case values(LuaHostFunction)
        /// One object pushed as a userdata of the class, with no reference taken.
        case object((LuaArguments) throws -> AnyObject, LuaClass)
    }
    let body: Body

    init(vm: LuaVM, name: String, body: Body) {
        self.vm = vm
        self.name = name
        self.body = body
    }

    /// Runs the function for the trampoline. Never raises: errors become a sentinel with the
    /// message pushed, and C raises once this frame has returned.
    func invoke(_ L: OpaquePointer) -> Int32 {
        let previous = vm.current
        vm.current = L
        defer { vm.current = previous }
        let arguments = LuaArguments(vm: vm, L: L, functionName: name, count: Int(lua_gettop(L)))
        do {
            let function: LuaHostFunction
            switch body {
            case .values(let values): function = values
            case .object(let make, let cls):
                let object = try make(arguments)
                guard lua_checkstack(L, 2) != 0 else {
                    return raise("too many results from '\(name)'", where: true, on: L)
                }
                clua_pushobject(L, Unmanaged.passRetained(object).toOpaque(), cls.ref)
                return 1
            }
            let results = try function(arguments)
            guard lua_checkstack(L, Int32(results.count + 1)) != 0 else {
                return raise("too many results from '\(name)'", where: true, on: L)
            }
            for result in results { try vm.push(result, on: L) }
            return Int32(results.count)
        } catch let error as LuaError {
            // A nested call failed: pass its message on as it is (it has its position).
            return raise(error.message, where: false, on: L)
        } catch let error as LuaArgumentError {
            return raise(error.message, where: true, on: L)
        } catch {
            return raise("\(name): \(error)", where: true, on: L)
        }
    }

    private func raise(_ message: String, where: Bool, on L: OpaquePointer) -> Int32 {
        clua_settop(L, 0)
        _ = try? vm.push(.string(message), on: L)
        return `where` ? CLUA_RAISE_WHERE : CLUA_RAISE
    }
}

/// The dispatcher the C trampoline calls for every host function.
let dispatchHostFunction: clua_HostFunction = { L, box in
    guard let L, let box else { return CLUA_RAISE }
    return Unmanaged<HostFunctionBox>.fromOpaque(box).takeUnretainedValue().invoke(L)
}

/// Releases a Swift object held by a collected userdata.
let releaseHostObject: clua_Release = { object in
    guard let object else { return }
    Unmanaged<AnyObject>.fromOpaque(object).release()
}

extension LuaVM {
    /// Makes a Lua function that calls `body`.
    public func function(named name: String, _ body: @escaping LuaHostFunction) -> LuaValue {
        guard !isClosed else { return .nil }
        let box = HostFunctionBox(vm: self, name: name, body: .values(body))
        functionBoxes.append(box)
        clua_pushhostfunction(current, Unmanaged.passUnretained(box).toOpaque())
        return pop(current)
    }

    /// Makes a Lua function that returns what `body` makes as a userdata of `cls` (the object
    /// retained by Lua until collected), without the registry reference a ``LuaValue`` result
    /// takes.
    public func constructor(
        named name: String, class cls: LuaClass, _ body: @escaping (LuaArguments) throws -> AnyObject
    ) -> LuaValue {
        guard !isClosed else { return .nil }
        let box = HostFunctionBox(vm: self, name: name, body: .object(body, cls))
        functionBoxes.append(box)
        clua_pushhostfunction(current, Unmanaged.passUnretained(box).toOpaque())
        return pop(current)
    }

    /// Sets the global `name` to a host function.
    public func register(_ name: String, _ body: @escaping LuaHostFunction) {
        let function = function(named: name, body)
        try? rawSet(globals, key: .string(name), value: function)
    }
}
