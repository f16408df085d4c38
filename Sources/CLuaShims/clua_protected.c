// Protected wrappers for the `e`/`v` API functions LuaHost needs. Each pushes a small C
// function and its operands and runs it through clua_pcall (limits and traceback included),
// because each may run a metamethod (Lua code) or raise.
#include "clua_internal.h"

// The C bodies run inside lua_pcall; operands arrive as arguments.

static int getfield_body(lua_State *L) {  // (t, k) -> t[k]
    lua_gettable(L, 1);
    return 1;
}

static int settable_body(lua_State *L) {  // (t, k, v)
    lua_settable(L, 1);
    return 0;
}

// Describes the value at `idx` (absolute) in `slot`; returns 1 when it must be pushed.
static int describe_slot(lua_State *L, int idx, int class_ref, clua_Slot *slot) {
    slot->type = lua_type(L, idx);
    slot->pushed = 0;
    switch (slot->type) {
    case LUA_TNIL: return 0;
    case LUA_TBOOLEAN: slot->boolean = lua_toboolean(L, idx); return 0;
    case LUA_TNUMBER:
        slot->is_integer = lua_isinteger(L, idx);
        if (slot->is_integer) slot->integer = lua_tointegerx(L, idx, NULL);
        else slot->number = lua_tonumberx(L, idx, NULL);
        return 0;
    case LUA_TSTRING: slot->string = lua_tolstring(L, idx, &slot->length); return 0;
    case LUA_TLIGHTUSERDATA: slot->pointer = lua_touserdata(L, idx); return 0;
    case LUA_TUSERDATA:
        slot->pointer = class_ref == LUA_NOREF ? NULL : clua_toobject(L, idx, class_ref);
        return slot->pointer == NULL;
    default: return 1;
    }
}

// Reads up to `batch->capacity` entries of the table at `t` (absolute) after the key on top,
// which stays on top while the loop runs; a value to keep is moved below it (…, kept, k).
// Leaves the kept values, then — when the table may go on — the last key; returns how many.
// Needs room for 2 * capacity + 4 values on the stack.
static int fields_loop(lua_State *L, int t, clua_FieldBatch *batch) {
    int pushed = 0;
    batch->count = 0;
    batch->more = 0;
    while (batch->count < batch->capacity) {
        if (!lua_next(L, t)) return pushed;  // pops the key; pushes k, v or nothing
        clua_Field *field = &batch->fields[batch->count++];
        int top = lua_gettop(L);
        if (describe_slot(L, top - 1, batch->class_ref, &field->key)) {
            lua_pushvalue(L, top - 1);
            lua_rotate(L, top - 1, 1);  // …, k', k, v
            field->key.pushed = ++pushed;
            top++;
        }
        if (describe_slot(L, top, batch->class_ref, &field->value)) {
            lua_rotate(L, top - 1, 1);  // …, v, k
            field->value.pushed = ++pushed;
        } else {
            lua_pop(L, 1);
        }
    }
    batch->more = 1;  // the last key is on top: it is the last result
    return pushed + 1;
}

// (t, k, batch) -> what fields_loop leaves.
static int fields_body(lua_State *L) {
    clua_FieldBatch *batch = (clua_FieldBatch *)lua_touserdata(L, 3);
    lua_settop(L, 2);
    luaL_checkstack(L, 2 * batch->capacity + 4, "table too large to read");
    return fields_loop(L, 1, batch);
}

int clua_fields_first(lua_State *L, int idx, clua_FieldBatch *batch) {
    idx = lua_absindex(L, idx);
    // Nothing here can raise, so no protected call is needed (it was most of the cost of
    // reading a small table): the key on top is nil, and lua_next from nil, or from a key it
    // returned itself with the table untouched in between, never raises ("invalid key to
    // 'next'" needs a key the table does not have); lua_checkstack reports a stack it cannot
    // grow instead of raising; describing a slot only reads values (lua_tolstring on a string
    // converts nothing); pushing copies and rotating allocate nothing once the room is there.
    // Anything else — not a table, no room — is left to clua_fields_p.
    if (lua_type(L, idx) != LUA_TTABLE || lua_type(L, -1) != LUA_TNIL
        || !lua_checkstack(L, 2 * batch->capacity + 4)) {
        return 0;
    }
    fields_loop(L, idx, batch);
    return 1;
}

static int len_body(lua_State *L) {  // (t) -> #t
    lua_len(L, 1);
    return 1;
}

static int tolstring_body(lua_State *L) {  // (v) -> tostring(v)
    luaL_tolstring(L, 1, NULL);
    return 1;
}

int clua_getfield_p(lua_State *L, int idx, const char *k) {
    idx = lua_absindex(L, idx);
    lua_pushcfunction(L, getfield_body);
    lua_pushvalue(L, idx);
    lua_pushstring(L, k);
    return clua_pcall_default(L, 2, 1);
}

int clua_setfield_p(lua_State *L, int idx, const char *k) {
    idx = lua_absindex(L, idx);
    lua_pushcfunction(L, settable_body);
    lua_pushvalue(L, idx);
    lua_pushstring(L, k);
    lua_rotate(L, -4, -1);  // value above the key: (body, t, k, v)
    return clua_pcall_default(L, 3, 0);
}

int clua_gettable_p(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    lua_pushcfunction(L, getfield_body);
    lua_pushvalue(L, idx);
    lua_rotate(L, -3, -1);  // (body, t, k)
    return clua_pcall_default(L, 2, 1);
}

int clua_settable_p(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    lua_pushcfunction(L, settable_body);
    lua_pushvalue(L, idx);
    lua_rotate(L, -4, 2);  // (k, v, body, t) -> (body, t, k, v)
    return clua_pcall_default(L, 3, 0);
}

int clua_fields_p(lua_State *L, int idx, clua_FieldBatch *batch) {
    idx = lua_absindex(L, idx);
    lua_pushcfunction(L, fields_body);
    lua_pushvalue(L, idx);
    lua_rotate(L, -3, -1);  // (body, t, k)
    lua_pushlightuserdata(L, batch);
    return clua_pcall_default(L, 3, LUA_MULTRET);
}

int clua_len_p(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    lua_pushcfunction(L, len_body);
    lua_pushvalue(L, idx);
    return clua_pcall_default(L, 1, 1);
}

int clua_tolstring_p(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    lua_pushcfunction(L, tolstring_body);
    lua_pushvalue(L, idx);
    return clua_pcall_default(L, 1, 1);
}
