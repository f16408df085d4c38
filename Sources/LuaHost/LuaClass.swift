internal import CLua
internal import CLuaShims

/// A kind of Swift object that Lua scripts can hold as userdata, with its `__index`,
/// `__newindex` and `__tostring` behaviour written in Swift.
///
/// ```swift
/// let viewClass = vm.registerClass(LuaClassDefinition(
///     name: "view",
///     index: { object, key in (object as? View)?.attribute(key) ?? .nil },
///     newIndex: { object, key, value in try (object as? View)?.set(key, value) },
///     toString: { object in "view \((object as? View)?.id ?? "?")" }))
/// try vm.rawSet(vm.globals, key: "v", value: vm.wrap(view, as: viewClass))
/// ```
///
/// The userdata keeps its object alive until Lua collects it. Scripts cannot see or change
/// the metatable (`getmetatable(v)` is `false`).
public struct LuaClassDefinition {
    public var name: String
    /// `object[key]`; returning `.nil` means absent.
    public var index: ((AnyObject, LuaValue) throws -> LuaValue)?
    /// `object[key] = value`; throw to refuse.
    public var newIndex: ((AnyObject, LuaValue, LuaValue) throws -> Void)?
    /// `tostring(object)`.
    public var toString: ((AnyObject) -> String)?

    public init(
        name: String,
        index: ((AnyObject, LuaValue) throws -> LuaValue)? = nil,
        newIndex: ((AnyObject, LuaValue, LuaValue) throws -> Void)? = nil,
        toString: ((AnyObject) -> String)? = nil
    ) {
        self.name = name
        self.index = index
        self.newIndex = newIndex
        self.toString = toString
    }
}

/// A registered ``LuaClassDefinition`` in one VM.
public final class LuaClass {
    public let name: String
    let ref: Int32

    init(name: String, ref: Int32) {
        self.name = name
        self.ref = ref
    }
}

extension LuaVM {
    /// Registers a class of host objects; its metatable lives as long as the VM.
    public func registerClass(_ definition: LuaClassDefinition) -> LuaClass {
        let L = current
        clua_newclass(L, definition.name)
        let metatable = Int32(lua_gettop(L))
        func setMethod(_ key: String, _ body: @escaping LuaHostFunction) {
            let function = function(named: key, body)
            _ = try? push(.string(key), on: L)
            _ = try? push(function, on: L)
            lua_rawset(L, metatable)
        }
        let index = definition.index
        let newIndex = definition.newIndex
        let toString = definition.toString
        let name = definition.name
        var registered: LuaClass?
        if let index {
            setMethod("__index") { args in
                guard let cls = registered, let object = args.vm.object(in: args, at: 1, of: cls)
                else { throw args.typeError(1, expected: name) }
                return [try index(object, args[2])]
            }
        }
        if let newIndex {
            setMethod("__newindex") { args in
                guard let cls = registered, let object = args.vm.object(in: args, at: 1, of: cls)
                else { throw args.typeError(1, expected: name) }
                try newIndex(object, args[2], args[3])
                return []
            }
        }
        setMethod("__tostring") { args in
            guard let cls = registered, let object = args.vm.object(in: args, at: 1, of: cls)
            else { return [.string(name)] }
            return [.string(toString?(object) ?? "\(name): \(ObjectIdentifier(object))")]
        }
        let classRef = luaL_ref(L, clua_registryindex())  // pops the metatable
        let cls = LuaClass(name: definition.name, ref: classRef)
        registered = cls
        classes.append(cls)
        return cls
    }

    /// A userdata holding `object` (retained until Lua collects the userdata).
    public func wrap(_ object: AnyObject, as cls: LuaClass) -> LuaValue {
        guard !isClosed else { return .nil }
        let pointer = Unmanaged.passRetained(object).toOpaque()
        clua_pushobject(current, pointer, cls.ref)
        return pop(current)
    }

    /// The Swift object inside a userdata of class `cls`, or nil.
    public func object(in value: LuaValue, of cls: LuaClass) -> AnyObject? {
        guard case .userdata = value, let L = try? liveThread() else { return nil }
        let top = lua_gettop(L)
        defer { clua_settop(L, top) }
        guard (try? push(value, on: L)) != nil else { return nil }
        guard let pointer = clua_toobject(L, -1, cls.ref) else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue()
    }

    func object(in args: LuaArguments, at index: Int32, of cls: LuaClass) -> AnyObject? {
        guard let pointer = clua_toobject(args.L, index, cls.ref) else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue()
    }
}
