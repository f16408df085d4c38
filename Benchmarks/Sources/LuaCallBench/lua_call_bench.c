#define _POSIX_C_SOURCE 200809L
#include "lua_call_bench.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <time.h>

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// A string a C router holds at run time: its bytes and length (pushed with lua_pushlstring,
// which interns by content; lua_pushstring of a literal finds it by address instead).
typedef struct {
    const char *bytes;
    size_t length;
} text;

static void push_text(lua_State *L, text t) { lua_pushlstring(L, t.bytes, t.length); }

// Builds the ctx table a presenter callback gets (the fields LuaHost's side sets). With
// `runtime`, the values (and the parameter's name) are pushed as a C host holding them in
// memory would, like Swift's strings; without, as string literals.
static void push_ctx(lua_State *L, int flags, int device, int runtime) {
    static const text path = {"bench/42", 8}, id = {"42", 2}, route = {"bench/:id", 9}, name = {"bench", 5},
                      key = {"id", 2};
    lua_createtable(L, 0, 9);
    if (runtime) push_text(L, path); else lua_pushstring(L, "bench/42");
    lua_setfield(L, -2, "path");
    lua_createtable(L, 0, 1);
    if (runtime) {
        push_text(L, key);
        push_text(L, id);
        lua_rawset(L, -3);
    } else {
        lua_pushstring(L, "42");
        lua_setfield(L, -2, "id");
    }
    lua_setfield(L, -2, "params");
    lua_createtable(L, 0, 0); lua_setfield(L, -2, "query");
    if (runtime) push_text(L, route); else lua_pushstring(L, "bench/:id");
    lua_setfield(L, -2, "route");
    if (runtime) push_text(L, name); else lua_pushstring(L, "bench");
    lua_setfield(L, -2, "name");
    if (runtime) push_text(L, route); else lua_pushstring(L, "bench/:id");
    lua_setfield(L, -2, "id");
    lua_pushvalue(L, flags); lua_setfield(L, -2, "flags");
    lua_pushvalue(L, device); lua_setfield(L, -2, "device");
}

int64_t lua_call_bench_from_c(const char *source, int iterations, int runtime_strings) {
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    if (luaL_loadstring(L, source) != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK) {
        lua_close(L);
        return -1;
    }
    int function = lua_gettop(L);
    lua_createtable(L, 0, 0);
    int flags = lua_gettop(L);
    lua_createtable(L, 0, 1);
    lua_pushstring(L, "phone"); lua_setfield(L, -2, "idiom");
    int device = lua_gettop(L);
    int64_t start = now_ns();
    for (int i = 0; i < iterations; i++) {
        lua_pushvalue(L, function);
        push_ctx(L, flags, device, runtime_strings);
        if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
            lua_close(L);
            return -1;
        }
    }
    int64_t elapsed = now_ns() - start;
    lua_close(L);
    return elapsed;
}

#include <malloc.h>

int64_t bench_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return (int64_t)(info.uordblks + info.hblkhd);
}
