internal import CLua
internal import CLuaShims

// Tables. The raw operations run no metamethod (the rule: route tables are decoded with raw
// access); the others run them under the call limits through the protected wrappers.
extension LuaVM {
    /// The globals table.
    public var globals: LuaValue {
        guard !isClosed else { return .nil }
        clua_pushglobaltable(current)
        return pop(current)
    }

    /// A new empty table.
    public func newTable(arrayCapacity: Int = 0, fieldCapacity: Int = 0) -> LuaValue {
        guard !isClosed else { return .nil }
        lua_createtable(current, Int32(clamping: arrayCapacity), Int32(clamping: fieldCapacity))
        return pop(current)
    }

    /// A new table with the given fields, built on the stack in one go (one registry
    /// reference instead of one per field). Values that are tables are nested by value:
    /// `.table` fields are references to existing tables.
    ///
    /// ```swift
    /// let ctx = vm.makeTable(["path": "books/42", "params": vm.makeTable(["id": "42"])])
    /// ```
    public func makeTable(_ fields: KeyValuePairs<String, LuaValue>) -> LuaValue {
        makeTable(fields.map { ($0.key, $0.value) })
    }

    /// A new table with the given fields (see ``makeTable(_:)-(KeyValuePairs)``).
    public func makeTable(_ fields: [(String, LuaValue)]) -> LuaValue {
        makeTable(fieldCapacity: fields.count) { table in
            for (key, value) in fields { table.set(LuaKey(key), value) }
        }
    }

    /// Pushes `table`, which must be a table, and returns the thread; restores nothing.
    private func pushTable(_ table: LuaValue, function: String) throws -> OpaquePointer {
        let L = try liveThread()
        guard case .table = table else {
            throw LuaError(kind: .runtime, message: "\(function): table expected, got \(table.typeName)")
        }
        try push(table, on: L)
        return L
    }

    /// `rawget(table, key)` (lua_rawget, §4.6, [-1, +1, -]).
    public func rawGet(_ table: LuaValue, key: LuaValue) throws -> LuaValue {
        let L = try liveThread()
        let top = lua_gettop(L)
        defer { clua_settop(L, top) }
        _ = try pushTable(table, function: "rawget")
        try push(key, on: L)
        lua_rawget(L, -2)
        return value(at: -1, on: L)
    }

    /// `rawget(table, index)` (lua_rawgeti, §4.6, [-0, +1, -]).
    public func rawGet(_ table: LuaValue, index: Int) throws -> LuaValue {
        let L = try liveThread()
        let top = lua_gettop(L)
        defer { clua_settop(L, top) }
        _ = try pushTable(table, function: "rawget")
        lua_rawgeti(L, -1, lua_Integer(index))
        return value(at: -1, on: L)
    }

    /// `rawset(table, key, value)` (lua_rawset, §4.6, [-2, +0, m]). A nil or NaN key is an error.
    public func rawSet(_ table: LuaValue, key: LuaValue, value newValue: LuaValue) throws {
        let L = try liveThread()
        if key.isNil { throw LuaError(kind: .runtime, message: "rawset: index is nil") }
        if case .number(let d) = key, d.isNaN {
            throw LuaError(kind: .runtime, message: "rawset: index is NaN")
        }
        let top = lua_gettop(L)
        defer { clua_settop(L, top) }
        _ = try pushTable(table, function: "rawset")
        try push(key, on: L)
        try push(newValue, on: L)
        lua_rawset(L, -3)
    }

    /// `rawlen(table)` (lua_rawlen, §4.6, [-0, +0, -]): the border of the array part.
    public func rawLength(_ table: LuaValue) throws -> Int {
        let L = try liveThread()
        let top = lua_gettop(L)
        defer { clua_settop(L, top) }
        _ = try pushTable(table, function: "rawlen")
        return Int(lua_rawlen(L, -1))
    }

    /// Every key and value of the table, in `next` order (raw: no `__pairs`, no `__index`).
    public func entries(_ table: LuaValue) throws -> [(key: LuaValue, value: LuaValue)] {
        let L = try liveThread()
        let top = lua_gettop(L)
        defer { clua_settop(L, top) }
        _ = try pushTable(table, function: "next")
        var result: [(key: LuaValue, value: LuaValue)] = []
        lua_pushnil(L)
        // In batches: one protected call reads up to 64 entries (a builder's table is one).
        while true {
            var pairs: Int32 = 0
            var more: Int32 = 0
            let status = clua_entries_p(L, top + 1, 64, &pairs, &more)
            guard status == LUA_OK else {
                throw LuaError.pop(status: status, limit: 0, from: L, memoryCap: options.memoryLimit)
            }
            let first = top + 2
            result.reserveCapacity(result.count + Int(pairs))
            for pair in 0..<pairs {
                result.append((value(at: first + 2 * pair, on: L), value(at: first + 2 * pair + 1, on: L)))
            }
            guard more != 0 else { break }
            lua_rotate(L, first, 1)  // the key to continue from, below the pairs
            clua_settop(L, first)
        }
        return result
    }

    /// `table[key]` with metamethods, under the call limits.
    public func get(_ table: LuaValue, key: LuaValue) throws -> LuaValue {
        let L = try liveThread()
        let top = lua_gettop(L)
        defer { clua_settop(L, top) }
        try push(table, on: L)
        try push(key, on: L)
        let status = clua_gettable_p(L, top + 1)
        guard status == LUA_OK else {
            throw LuaError.pop(status: status, limit: 0, from: L, memoryCap: options.memoryLimit)
        }
        return value(at: -1, on: L)
    }

    /// `table[key] = value` with metamethods, under the call limits.
    public func set(_ table: LuaValue, key: LuaValue, value newValue: LuaValue) throws {
        let L = try liveThread()
        let top = lua_gettop(L)
        defer { clua_settop(L, top) }
        try push(table, on: L)
        try push(key, on: L)
        try push(newValue, on: L)
        let status = clua_settable_p(L, top + 1)
        guard status == LUA_OK else {
            throw LuaError.pop(status: status, limit: 0, from: L, memoryCap: options.memoryLimit)
        }
    }

    /// `#value` with metamethods, under the call limits.
    public func length(_ value: LuaValue) throws -> LuaValue {
        let L = try liveThread()
        let top = lua_gettop(L)
        defer { clua_settop(L, top) }
        try push(value, on: L)
        let status = clua_len_p(L, top + 1)
        guard status == LUA_OK else {
            throw LuaError.pop(status: status, limit: 0, from: L, memoryCap: options.memoryLimit)
        }
        return self.value(at: -1, on: L)
    }

    /// `tostring(value)`: runs `__tostring` (under the call limits) and `__name`.
    public func toString(_ value: LuaValue) throws -> String {
        switch value {
        case .string(let s): return s
        case .nil, .boolean, .integer: return value.description
        default: break
        }
        let L = try liveThread()
        let top = lua_gettop(L)
        defer { clua_settop(L, top) }
        try push(value, on: L)
        let status = clua_tolstring_p(L, top + 1)
        guard status == LUA_OK else {
            throw LuaError.pop(status: status, limit: 0, from: L, memoryCap: options.memoryLimit)
        }
        return string(at: -1, on: L)
    }
}
