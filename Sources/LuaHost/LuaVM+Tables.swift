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
        try forEachField(at: top + 1, on: L, objects: nil) { key, value in
            guard case .value(let value) = value else { return }  // no class asked: never an object
            result.append((key, value))
        }
        return result
    }

    /// Calls `body` with every key and value of the table at stack index `index` of `L` (raw,
    /// `next` order), read in place 64 entries a protected call: strings, numbers and booleans
    /// by value, a userdata of `objects` as its Swift object, other values as ``LuaValue``s
    /// that hold a reference. String values point into the table's own strings while `body`
    /// runs: `body` must not change the table.
    func forEachField(
        at index: Int32, on L: OpaquePointer, objects: LuaClass?,
        _ body: (_ key: LuaValue, _ value: LuaField) throws -> Void
    ) throws {
        let index = lua_absindex(L, index)
        let top = lua_gettop(L)
        // The VM's batch, unless a read of this kind is already using it (a body reading
        // another table this way).
        let nested = fieldBatchInUse
        let buffer = nested ? UnsafeMutableBufferPointer<clua_Field>.allocate(capacity: 64) : fieldBatch
        fieldBatchInUse = true
        defer {
            clua_settop(L, top)
            if nested { buffer.deallocate() } else { fieldBatchInUse = false }
        }
        var batch = clua_FieldBatch()
        batch.fields = buffer.baseAddress
        batch.capacity = Int32(buffer.count)
        batch.class_ref = objects?.ref ?? LUA_NOREF
        lua_pushnil(L)
        var first = true
        while true {
            // The first batch reads without a protected call when it can (it cannot raise);
            // later ones are protected: the body may have run Lua that changed the table.
            let status = first && clua_fields_first(L, index, &batch) != 0 ? LUA_OK : clua_fields_p(L, index, &batch)
            first = false
            guard status == LUA_OK else {
                throw LuaError.pop(status: status, limit: 0, from: L, memoryCap: options.memoryLimit)
            }
            // The values the slots could not hold follow `top`: top + 1, …
            for field in buffer.prefix(Int(batch.count)) {
                let key = slot(field.key, top, on: L)
                if field.value.type == LUA_TUSERDATA, field.value.pushed == 0, let pointer = field.value.pointer {
                    try body(key, .object(Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue()))
                } else {
                    try body(key, .value(slot(field.value, top, on: L)))
                }
            }
            guard batch.more != 0 else { break }
            lua_rotate(L, top + 1, 1)  // the key to continue from, first
            clua_settop(L, top + 1)
        }
    }

    /// A slot's value: by value, or the pushed value at `base + pushed`.
    private func slot(_ slot: clua_Slot, _ base: Int32, on L: OpaquePointer) -> LuaValue {
        if slot.pushed > 0 { return value(at: base + slot.pushed, on: L) }
        switch slot.type {
        case LUA_TBOOLEAN: return .boolean(slot.boolean != 0)
        case LUA_TNUMBER: return slot.is_integer != 0 ? .integer(Int64(slot.integer)) : .number(slot.number)
        case LUA_TSTRING:
            return .string(
                String(decoding: UnsafeRawBufferPointer(start: slot.string, count: slot.length), as: UTF8.self))
        case LUA_TLIGHTUSERDATA: return .lightUserdata(slot.pointer)
        default: return .nil
        }
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
