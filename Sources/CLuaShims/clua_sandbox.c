// The sandbox (README, "The Lua sandbox"): which standard libraries a script gets, and the guards that close
// the holes the instruction hook cannot reach in Lua 5.4.4.
#include "clua_internal.h"

#include <string.h>


// Why: `load` may only compile text chunks: a binary chunk can crash the VM.
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
// Upvalue 1: the original setmetatable. Lua marks an object for finalization only
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

// Why (--unsafe): crafted bytecode can crash the VM, so files load as text only, as strings
// do. Same results as loadfile (chunk, or fail and message) and dofile.
static int text_loadfile(lua_State *L) {
    const char *name = luaL_optstring(L, 1, NULL);
    int env = !lua_isnone(L, 3);
    if (luaL_loadfilex(L, name, "t") != LUA_OK) {
        luaL_pushfail(L);
        lua_insert(L, -2);
        return 2;
    }
    if (env) {
        lua_pushvalue(L, 3);
        if (!lua_setupvalue(L, -2, 1)) lua_pop(L, 1);
    }
    return 1;
}

static int text_dofile(lua_State *L) {
    const char *name = luaL_optstring(L, 1, NULL);
    lua_settop(L, 1);
    if (luaL_loadfilex(L, name, "t") != LUA_OK) return lua_error(L);
    lua_call(L, 0, LUA_MULTRET);
    return lua_gettop(L) - 1;
}

// MARK: Coroutines

// Why: a limit trips for the whole state, but the hook that raises it is per thread: a
// coroutine that catches the error could otherwise go on (or create fresh coroutines, each
// with a fresh hook count) and multiply the work past any deadline (a tree of coroutines
// ran 13 s for a 100 ms callback). So no coroutine is created, resumed or closed once a
// limit has tripped, and a thread that gets control back from one raises at once; the
// running thread is tracked so the hook interval and the trip reach it.
// Upvalue 1 of each guard: the original function.
static int guarded_create(lua_State *L) {
    clua_raise_if_tripped(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

// Runs the original function (upvalue 1) over the arguments with `co` as the running thread,
// then gives the thread back to L; returns the pcall's status. Raises only when a limit had
// already tripped.
static int call_in(lua_State *L, lua_State *co) {
    clua_raise_if_tripped(L);
    if (co != NULL) clua_enter_thread(co);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    int status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
    clua_enter_thread(L);
    return status;
}

// The results of call_in, or its error raised again; a limit that tripped meanwhile raises
// here first. `add_where`: a string error gets the Lua caller's position (as coroutine.wrap's
// own function adds it; the caller is one level above this guard).
static int finish(lua_State *L, int status, int add_where) {
    clua_raise_if_tripped(L);
    if (status == LUA_OK) return lua_gettop(L);
    if (add_where && lua_type(L, -1) == LUA_TSTRING) {
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

static int guarded_resume(lua_State *L) {
    lua_State *co = lua_tothread(L, 1);
    luaL_argexpected(L, co != NULL, 1, "coroutine");
    return finish(L, call_in(L, co), 0);
}

// Upvalue 1: the function coroutine.wrap made; upvalue 2: its coroutine.
static int wrapped_call(lua_State *L) {
    return finish(L, call_in(L, lua_tothread(L, lua_upvalueindex(2))), 1);
}

static int guarded_wrap(lua_State *L) {
    clua_raise_if_tripped(L);
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_settop(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, 1, 1);
    if (lua_getupvalue(L, -1, 1) == NULL) lua_pushnil(L);
    lua_pushcclosure(L, wrapped_call, 2);
    return 1;
}

// --unsafe only (the sandbox has no coroutine.close): nested closes deeper than about
// 20,000 overflow the C stack in Lua 5.4.4, so they are bounded.
static int guarded_close(lua_State *L) {
    clua_Host *H = clua_host(L);
    lua_State *co = lua_tothread(L, 1);
    luaL_argexpected(L, co != NULL, 1, "coroutine");
    clua_raise_if_tripped(L);
    if (H->close_depth >= CLUA_MAX_CLOSE_DEPTH) {
        return luaL_error(L, "coroutine.close: nested more than %d deep", CLUA_MAX_CLOSE_DEPTH);
    }
    H->close_depth++;
    int status = call_in(L, co);
    H->close_depth--;
    return finish(L, status, 0);
}

static void guard_field(lua_State *L, int table, const char *name, lua_CFunction guard) {
    if (lua_getfield(L, table, name) == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    lua_pushcclosure(L, guard, 1);
    lua_setfield(L, table, name);
}

static void guard_coroutines(lua_State *L, int globals, int close) {
    lua_getfield(L, globals, LUA_COLIBNAME);
    int co = lua_gettop(L);
    guard_field(L, co, "create", guarded_create);
    guard_field(L, co, "resume", guarded_resume);
    guard_field(L, co, "wrap", guarded_wrap);
    if (close) guard_field(L, co, "close", guarded_close);
    lua_pop(L, 1);
}

// Why (--unsafe): the hook is how the limits are kept; a script that replaced it with
// debug.sethook would run unlimited. The rest of the debug library stays.
static int refused_sethook(lua_State *L) {
    return luaL_error(L, "debug.sethook is not available: Luna's limits use the hook (--unsafe keeps them)");
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

// What keeps the limits in both profiles: library functions that loop in C charge their work,
// the pattern functions count their steps, xpcall's handler runs hooked, no __gc, text-only
// load, guarded coroutines (and a bounded coroutine.close where there is one).
static void guard_libraries(lua_State *L, int g, int unsafe) {
    clua_meter_libraries(L, g);
    lua_pushcfunction(L, guarded_xpcall);
    lua_setfield(L, g, "xpcall");
    wrap_global(L, g, "setmetatable", guarded_setmetatable);
    wrap_global(L, g, "load", text_load);
    lua_getfield(L, g, LUA_STRLIBNAME);
    clua_install_patterns(L, lua_gettop(L));
    lua_pop(L, 1);
    guard_coroutines(L, g, unsafe);
}

static int open_libraries_body(lua_State *L) {
    int unsafe = lua_toboolean(L, 1);
    if (unsafe) {
        // The full standard library, with the limits kept: metered C loops, the pattern
        // matcher with a step budget, guarded coroutines, no __gc (finalizers run with hooks
        // off), no debug.sethook, text-only load, loadfile and dofile.
        luaL_openlibs(L);
        lua_pushglobaltable(L);
        int g = lua_gettop(L);
        guard_libraries(L, g, 1);
        lua_pushcfunction(L, text_loadfile);
        lua_setfield(L, g, "loadfile");
        lua_pushcfunction(L, text_dofile);
        lua_setfield(L, g, "dofile");
        lua_getfield(L, g, LUA_DBLIBNAME);
        int d = lua_gettop(L);
        lua_pushcfunction(L, refused_sethook);
        lua_setfield(L, d, "sethook");
        guard_field(L, d, "setmetatable", guarded_setmetatable);
        lua_pop(L, 2);
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

    // base: no file access, no GC control; string: no dump; coroutine: no close (nested
    // closes crash 5.4.4). The guards both profiles share come after.
    remove_field(L, g, "dofile");
    remove_field(L, g, "loadfile");
    remove_field(L, g, "collectgarbage");
    lua_getfield(L, g, LUA_STRLIBNAME);
    remove_field(L, lua_gettop(L), "dump");
    lua_pop(L, 1);
    lua_getfield(L, g, LUA_COLIBNAME);
    remove_field(L, lua_gettop(L), "close");
    lua_pop(L, 1);
    guard_libraries(L, g, 0);

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
