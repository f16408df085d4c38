internal import CLua
internal import CLuaShims

// Moving values between Swift and a Lua stack. Only `-` and `m` API functions: the
// allocator never fails while Swift runs (see clua_shims.h).
extension LuaVM {
    /// Pushes a value (lua_push*, §4.6, [-0, +1, m]; lua_rawgeti, [-0, +1, -]).
    func push(_ value: borrowing LuaValue, on L: OpaquePointer) throws {
        switch value {
        case .nil: lua_pushnil(L)
        case .boolean(let b): lua_pushboolean(L, b ? 1 : 0)
        case .integer(let i): lua_pushinteger(L, lua_Integer(i))
        case .number(let d): lua_pushnumber(L, d)
        case .string(let s):
            // Bound with `let`: a `var` binding would copy the whole value, payload retained.
            pushString(s, on: L)
        case .lightUserdata(let p): lua_pushlightuserdata(L, p)
        case .table(let r), .function(let r), .userdata(let r), .thread(let r):
            // The registry index is read inside the switch and pushed after it: a C call
            // inside made the compiler hold a copy of the whole value across it.
            let ref = try r.registryIndex(in: token, isClosed: isClosed)
            lua_rawgeti(L, clua_registryindex(), lua_Integer(ref))
        }
    }

    /// Pushes a string's bytes (lua_pushlstring, §4.6, [-0, +1, m]), read in place when the
    /// string is contiguous UTF-8 (native strings are).
    @inline(__always)
    func pushString(_ string: String, on L: OpaquePointer) {
        if string.utf8.withContiguousStorageIfAvailable({ bytes in
            bytes.withMemoryRebound(to: CChar.self) { _ = lua_pushlstring(L, $0.baseAddress, $0.count) }
        }) == nil {
            var contiguous = string
            contiguous.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { _ = lua_pushlstring(L, $0.baseAddress, $0.count) }
            }
        }
    }

    /// Reads the value at `index` without changing the stack.
    func value(at index: Int32, on L: OpaquePointer) -> LuaValue {
        switch lua_type(L, index) {
        case LUA_TNIL, LUA_TNONE: return .nil
        case LUA_TBOOLEAN: return .boolean(lua_toboolean(L, index) != 0)
        case LUA_TNUMBER:
            if lua_isinteger(L, index) != 0 { return .integer(Int64(lua_tointegerx(L, index, nil))) }
            return .number(lua_tonumberx(L, index, nil))
        case LUA_TSTRING: return .string(string(at: index, on: L))
        case LUA_TLIGHTUSERDATA: return .lightUserdata(lua_touserdata(L, index))
        case let type:
            lua_pushvalue(L, index)
            let ref = luaL_ref(L, clua_registryindex())  // §5.1 luaL_ref [-1, +0, m]
            let reference = LuaReference(owner: token, ref: ref)
            switch type {
            case LUA_TTABLE: return .table(reference)
            case LUA_TFUNCTION: return .function(reference)
            case LUA_TTHREAD: return .thread(reference)
            default: return .userdata(reference)
            }
        }
    }

    /// Pops the top value.
    func pop(_ L: OpaquePointer) -> LuaValue {
        let result = value(at: -1, on: L)
        clua_pop(L, 1)
        return result
    }

    /// The string at `index`, which must be a string (lua_tolstring does not convert it).
    func string(at index: Int32, on L: OpaquePointer) -> String {
        var length = 0
        guard let bytes = lua_tolstring(L, index, &length) else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
    }

    /// The Lua type name of the value at `index` (`no value` for none).
    func typeName(at index: Int32, on L: OpaquePointer) -> String {
        let type = lua_type(L, index)
        if type == LUA_TNONE { return "no value" }
        return String(cString: lua_typename(L, type))
    }
}
