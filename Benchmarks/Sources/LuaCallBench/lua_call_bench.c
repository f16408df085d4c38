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

// Builds the ctx table a presenter callback gets (the fields LuaHost's side sets).
static void push_ctx(lua_State *L, int flags, int device) {
    lua_createtable(L, 0, 9);
    lua_pushstring(L, "bench/42"); lua_setfield(L, -2, "path");
    lua_createtable(L, 0, 1);
    lua_pushstring(L, "42"); lua_setfield(L, -2, "id");
    lua_setfield(L, -2, "params");
    lua_createtable(L, 0, 0); lua_setfield(L, -2, "query");
    lua_pushstring(L, "bench/:id"); lua_setfield(L, -2, "route");
    lua_pushstring(L, "bench"); lua_setfield(L, -2, "name");
    lua_pushstring(L, "bench/:id"); lua_setfield(L, -2, "id");
    lua_pushvalue(L, flags); lua_setfield(L, -2, "flags");
    lua_pushvalue(L, device); lua_setfield(L, -2, "device");
}

int64_t lua_call_bench_from_c(const char *source, int iterations) {
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
        push_ctx(L, flags, device);
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
