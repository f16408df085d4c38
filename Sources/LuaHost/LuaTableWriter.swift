internal import CLua
internal import CLuaShims

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Fills a table that is being built on the Lua stack (see ``LuaVM/makeTable(fieldCapacity:_:)``).
///
/// Nested tables are built in place too, so a table of tables costs one registry reference
/// (the result) instead of one per table. Writes are raw (`lua_rawset`, never a function
/// that could run a metamethod and raise). The writer is noncopyable and only lives inside
/// the closure it is given to, so it cannot outlive the stack slot it writes to.
///
/// ```swift
/// let ctx = vm.makeTable(fieldCapacity: 3) { ctx in
///     ctx.set("path", "books/42")
///     ctx.set("params", strings: ["id": "42"])
///     ctx.set("flags", flags)          // an existing table, by reference
/// }
/// ```
public struct LuaTableWriter: ~Copyable {
    let vm: LuaVM
    let L: OpaquePointer

    /// `t[key] = value`.
    public mutating func set(_ key: LuaKey, _ value: String) {
        push(key)
        pushString(value)
        lua_rawset(L, -3)  // §4.6 lua_rawset [-2, +0, m]
    }

    /// `t[key] = value`; nothing for nil.
    public mutating func set(_ key: LuaKey, _ value: String?) {
        guard let value else { return }
        set(key, value)
    }

    /// `t[key] = value` for any value (a table, function or userdata by reference); nothing
    /// for nil or a reference that was released or belongs to another state.
    public mutating func set(_ key: LuaKey, _ value: LuaValue) {
        guard !value.isNil else { return }
        push(key)
        guard (try? vm.push(value, on: L)) != nil else {
            clua_pop(L, 1)
            return
        }
        lua_rawset(L, -3)
    }

    /// `t[key] = {…}`: a nested table of string fields.
    public mutating func set(_ key: LuaKey, strings: [String: String]) {
        set(key, fieldCapacity: strings.count) { table in
            guard !strings.isEmpty else { return }
            for (name, value) in strings {
                table.pushString(name)
                table.pushString(value)
                lua_rawset(table.L, -3)
            }
        }
    }

    /// `t[#t + 1] = value`: appends to the table's list part (scalars and strings; a
    /// reference of another state is skipped).
    public mutating func append(_ value: LuaValue) {
        guard lua_checkstack(L, 2) != 0, (try? vm.push(value, on: L)) != nil else { return }
        let count = lua_rawlen(L, -2)  // §4.6 lua_rawlen [-0, +0, -]
        lua_rawseti(L, -2, lua_Integer(count) + 1)  // §4.6 lua_rawseti [-1, +0, m]
    }

    /// `t[key] = {…}`: a nested table built in place by `build`.
    public mutating func set(_ key: LuaKey, fieldCapacity: Int = 0, _ build: (inout LuaTableWriter) -> Void) {
        guard lua_checkstack(L, 4) != 0 else { return }
        push(key)
        lua_createtable(L, 0, Int32(clamping: fieldCapacity))
        var nested = LuaTableWriter(vm: vm, L: L)
        build(&nested)
        lua_rawset(L, -3)
    }

    /// A literal key goes through `lua_pushstring`, whose cache (by address) finds the
    /// interned string without hashing it again — as C code's literal field names do.
    private func push(_ key: LuaKey) {
        if let name = key.cString {
            _ = lua_pushstring(L, name)  // §4.6 lua_pushstring [-0, +1, m]
            return
        }
        switch key.storage {
        case .literal(let literal):
            literal.withUTF8Buffer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    _ = lua_pushlstring(L, chars.baseAddress, chars.count)
                }
            }
        case .text(let text):
            pushString(text)
        }
    }

    private func pushString(_ string: String) { vm.pushString(string, on: L) }
}

extension LuaVM {
    /// A new table built in place by `build`, nested tables included: one registry reference
    /// for the whole thing (the cheapest way to hand Lua a structured value).
    ///
    /// Returns nil (`.nil`) on a closed state.
    public func makeTable(fieldCapacity: Int, _ build: (inout LuaTableWriter) -> Void) -> LuaValue {
        guard !isClosed, let L = pushTable(fieldCapacity: fieldCapacity, build) else { return .nil }
        return pop(L)
    }

    /// Calls `function` with `first` (when given) and then a table built in place by `build`,
    /// as a callback's `ctx` is passed: no registry entry to write and read back, no
    /// ``LuaValue`` for it. When `slot` is a live table reference of this state, the table is
    /// also stored in its registry entry before the call, so the caller can pass `slot` to a
    /// later call instead of building the same table again.
    ///
    /// Runs under `limits` (the VM's call limits when nil), like ``call(_:_:limits:)``.
    public func call(
        _ function: LuaValue, _ first: LuaValue?, buildingTable fieldCapacity: Int, keepingIn slot: LuaValue?,
        limits: LuaLimits? = nil, _ build: (inout LuaTableWriter) -> Void
    ) throws -> [LuaValue] {
        let count = first == nil ? 1 : 2
        let (L, top) = try beginCall(function, first, nil, argumentCount: count)
        lua_createtable(L, 0, Int32(clamping: fieldCapacity))  // §4.6 [-0, +1, m]
        var writer = LuaTableWriter(vm: self, L: L)
        build(&writer)
        // Whatever the writer did, the table is the last argument: function, first, table.
        clua_settop(L, top + 1 + Int32(count))
        if let slot, case .table = slot, let index = try? slot.reference?.registryIndex(in: token, isClosed: isClosed) {
            lua_pushvalue(L, -1)  // §4.6 [-0, +1, -]
            lua_rawseti(L, clua_registryindex(), lua_Integer(index))  // §4.6 [-1, +0, m]
        }
        return try finishCall(L, top: top, argumentCount: count, limits: limits)
    }

    /// Builds a table on the current thread's stack, leaving exactly it on top; nil when the
    /// stack cannot grow.
    private func pushTable(fieldCapacity: Int, _ build: (inout LuaTableWriter) -> Void) -> OpaquePointer? {
        let L = current
        guard lua_checkstack(L, 4) != 0 else { return nil }
        let top = lua_gettop(L)
        lua_createtable(L, 0, Int32(clamping: fieldCapacity))
        var writer = LuaTableWriter(vm: self, L: L)
        build(&writer)
        // Whatever a writer did, the new table is the slot right above the old top.
        clua_settop(L, top + 1)
        return L
    }
}

/// A field name for ``LuaTableWriter``: a string literal (`ctx.set("path", …)`), or any string
/// (`LuaKey(name)`). A literal goes to Lua as a C string, so it must not contain NUL
/// (checked in debug builds); use `LuaKey(_:)` for names that might.
public struct LuaKey: ExpressibleByStringLiteral {
    enum Storage {
        case literal(StaticString)
        case text(String)
    }

    let storage: Storage

    public init(stringLiteral value: StaticString) { storage = .literal(value) }

    /// The literal as a C string (NUL-terminated by definition), when it is one. A NUL
    /// inside would cut the name short; no field name of Luna's has one (a literal is the
    /// host's source, not input), and debug builds check.
    var cString: UnsafePointer<CChar>? {
        guard case .literal(let literal) = storage, literal.hasPointerRepresentation else { return nil }
        let count = literal.utf8CodeUnitCount
        let start = literal.utf8Start
        assert(memchr(start, 0, count) == nil, "a LuaKey literal must not contain NUL")
        return UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self)
    }

    public init(_ text: String) { storage = .text(text) }
}
