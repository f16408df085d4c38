// The sandbox of SPEC §5: which standard libraries a script gets, and the guards that close
// the holes the instruction hook cannot reach in Lua 5.4.4.
#include "clua_internal.h"

#include <string.h>

/// Largest subject a non-plain pattern search may scan (SPEC §5).
#define CLUA_PATTERN_SUBJECT_MAX 256
/// Most repetition items (`*`, `+`, `-`, `?`) a non-plain pattern may hold (SPEC §5).
#define CLUA_PATTERN_REPETITIONS_MAX 3

// Why: `load` may only compile text chunks: a binary chunk can crash the VM (SPEC §5).
// Upvalue 1: the original load. The mode argument is forced to "t"; the env argument is
// passed on only when given (load distinguishes a missing env from a nil one).
//
// A string chunk is fed to the original load by a metered reader (the parser runs in C);
// its default chunk name stays the string itself, as load gives it.
static int text_load(lua_State *L) {
    int n = lua_gettop(L);
    if (n < 3) lua_settop(L, 3);
    if (lua_type(L, 1) == LUA_TSTRING) {
        if (lua_isnil(L, 2)) {
            lua_pushvalue(L, 1);
            lua_replace(L, 2);
        }
        clua_push_chunk_reader(L, 1);
        lua_replace(L, 1);
    }
    lua_pushstring(L, "t");
    lua_replace(L, 3);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n >= 4 ? 4 : 3, LUA_MULTRET);
    return lua_gettop(L);
}

// Why: a `__gc` metamethod runs with hooks off, so a looping finalizer would hang the host
// (SPEC §5). Upvalue 1: the original setmetatable. Lua marks an object for finalization only
// when its metatable has `__gc` at setmetatable time, so checking here is enough.
static int guarded_setmetatable(lua_State *L) {
    if (lua_type(L, 2) == LUA_TTABLE) {
        lua_pushstring(L, "__gc");
        int gc = lua_rawget(L, 2);
        lua_pop(L, 1);
        if (gc != LUA_TNIL) {
            return luaL_error(L, "setmetatable: __gc metamethods are not allowed in scripts");
        }
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

// Continuation of guarded_xpcall (also called directly when nothing yielded). Stack:
// f, handler, true, results… on success; f, handler, true, error on failure.
static int finish_xpcall(lua_State *L, int status, lua_KContext extra) {
    if (status == LUA_OK || status == LUA_YIELD) return lua_gettop(L) - (int)extra;
    if (clua_host(L)->tripped == CLUA_LIMIT_NONE) {
        lua_pushvalue(L, 2);
        lua_insert(L, -2);
        lua_pcall(L, 1, 1, 0);  // the handler's result, or its own error, is the message
    }
    lua_pushboolean(L, 0);
    lua_insert(L, -2);
    return 2;
}

// Why: when a limit trips, the hook raises while Lua has hooks switched off (luaD_hook clears
// allowhook; only the catching pcall restores it), and Lua calls an xpcall message handler
// right there, before unwinding: a looping handler would run unhooked forever. This xpcall
// runs the handler after unwinding, as an ordinary hooked call, and not at all once a limit
// has tripped. Scripts cannot inspect the stack (no debug library), so the handler sees
// the same error value. Yields inside the protected function work (lua_pcallk).
static int guarded_xpcall(lua_State *L) {
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushboolean(L, 1);
    lua_pushvalue(L, 1);
    lua_rotate(L, 3, 2);  // f, handler, true, f, args…
    int status = lua_pcallk(L, n - 2, LUA_MULTRET, 0, 2, finish_xpcall);
    return finish_xpcall(L, status, 2);
}

static int has_specials(const char *p, size_t len) {
    for (size_t i = 0; i < len; i++) {
        if (strchr("^$*+?.([%-", p[i]) != NULL) return 1;
    }
    return 0;
}

// Counts the quantifiers of a pattern (outside sets, not escaped), over-counting when in
// doubt: an over-count only refuses more.
static int repetitions(const char *p, size_t len) {
    int count = 0;
    for (size_t i = 0; i < len; i++) {
        char c = p[i];
        if (c == '%') {
            i++;
        } else if (c == '[') {
            i++;
            if (i < len && p[i] == '^') i++;
            if (i < len && p[i] == ']') i++;
            while (i < len && p[i] != ']') {
                if (p[i] == '%') i++;
                i++;
            }
        } else if (c == '*' || c == '+' || c == '-' || c == '?') {
            count++;
        }
    }
    return count;
}

// Why: string patterns run in C where the hook cannot stop them
// (string.find(string.rep('a',1000), '.-.-.-b') ran 210 s). Upvalue 1: the original function;
// upvalue 2: its name; upvalue 3: true for `find` (whose 4th argument asks for a plain search).
static int guarded_pattern(lua_State *L) {
    size_t slen, plen;
    const char *name = lua_tostring(L, lua_upvalueindex(2));
    luaL_checklstring(L, 1, &slen);
    const char *p = luaL_checklstring(L, 2, &plen);
    int find = lua_toboolean(L, lua_upvalueindex(3));
    int plain = (find && lua_toboolean(L, 4)) || !has_specials(p, plen);
    if (plain && find) return clua_plain_find(L);
    if (plain) {
        clua_plain_pattern_check(L, name, slen, plen);
    } else {
        if (slen > CLUA_PATTERN_SUBJECT_MAX) {
            return luaL_error(L,
                "string.%s: a pattern search over %d bytes is refused (the limit is %d bytes; "
                "plain searches have none)", name, (int)slen, CLUA_PATTERN_SUBJECT_MAX);
        }
        int reps = repetitions(p, plen);
        if (reps > CLUA_PATTERN_REPETITIONS_MAX) {
            return luaL_error(L,
                "string.%s: a pattern with %d repetition items is refused (the limit is %d)",
                name, reps, CLUA_PATTERN_REPETITIONS_MAX);
        }
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

static void guard_pattern_function(lua_State *L, int string_table, const char *name, int find) {
    lua_getfield(L, string_table, name);
    lua_pushstring(L, name);
    lua_pushboolean(L, find);
    lua_pushcclosure(L, guarded_pattern, 3);
    lua_setfield(L, string_table, name);
}

static void remove_field(lua_State *L, int table, const char *name) {
    lua_pushnil(L);
    lua_setfield(L, table, name);
}

static void wrap_global(lua_State *L, int globals, const char *name, lua_CFunction guard) {
    lua_getfield(L, globals, name);
    lua_pushcclosure(L, guard, 1);
    lua_setfield(L, globals, name);
}

static int open_libraries_body(lua_State *L) {
    int unsafe = lua_toboolean(L, 1);
    if (unsafe) {
        luaL_openlibs(L);
        lua_pushglobaltable(L);
        clua_meter_libraries(L, lua_gettop(L));
        lua_pushcfunction(L, guarded_xpcall);
        lua_setfield(L, -2, "xpcall");
        lua_pop(L, 1);
        return 0;
    }
    static const luaL_Reg libraries[] = {
        {LUA_GNAME, luaopen_base},         {LUA_STRLIBNAME, luaopen_string},
        {LUA_TABLIBNAME, luaopen_table},   {LUA_MATHLIBNAME, luaopen_math},
        {LUA_UTF8LIBNAME, luaopen_utf8},   {LUA_COLIBNAME, luaopen_coroutine},
        {LUA_OSLIBNAME, luaopen_os},       {NULL, NULL},
    };
    for (const luaL_Reg *lib = libraries; lib->func; lib++) {
        luaL_requiref(L, lib->name, lib->func, 1);
        lua_pop(L, 1);
    }
    lua_pushglobaltable(L);
    int g = lua_gettop(L);

    // base: no file access, no GC control, text-only load, no __gc.
    remove_field(L, g, "dofile");
    remove_field(L, g, "loadfile");
    remove_field(L, g, "collectgarbage");
    wrap_global(L, g, "load", text_load);
    wrap_global(L, g, "setmetatable", guarded_setmetatable);
    lua_pushcfunction(L, guarded_xpcall);
    lua_setfield(L, g, "xpcall");

    // Library functions that loop in C charge their work and check the deadline.
    clua_meter_libraries(L, g);

    // string: no dump; guarded pattern functions.
    lua_getfield(L, g, LUA_STRLIBNAME);
    int s = lua_gettop(L);
    remove_field(L, s, "dump");
    guard_pattern_function(L, s, "find", 1);
    guard_pattern_function(L, s, "match", 0);
    guard_pattern_function(L, s, "gmatch", 0);
    guard_pattern_function(L, s, "gsub", 0);
    lua_pop(L, 1);

    // coroutine: no close (nested closes crash 5.4.4).
    lua_getfield(L, g, LUA_COLIBNAME);
    remove_field(L, lua_gettop(L), "close");
    lua_pop(L, 1);

    // os: time, clock and date only. The trimmed table also replaces package.loaded.os.
    lua_getfield(L, g, LUA_OSLIBNAME);
    int os = lua_gettop(L);
    lua_createtable(L, 0, 3);
    int trimmed = lua_gettop(L);
    static const char *const kept[] = {"time", "clock", "date", NULL};
    for (const char *const *k = kept; *k; k++) {
        lua_getfield(L, os, *k);
        lua_setfield(L, trimmed, *k);
    }
    lua_pushvalue(L, trimmed);
    lua_setfield(L, g, LUA_OSLIBNAME);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_pushvalue(L, trimmed);
    lua_setfield(L, -2, LUA_OSLIBNAME);
    lua_pop(L, 3);

    lua_pop(L, 1);  // globals
    return 0;
}

int clua_open_libraries(lua_State *L, int unsafe) {
    lua_pushcfunction(L, open_libraries_body);
    lua_pushboolean(L, unsafe);
    return clua_pcall_default(L, 1, 0);
}
