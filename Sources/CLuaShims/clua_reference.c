// Test support: Lua's own standard library, unsandboxed, in a state of its own, so tests can
// check Luna's replacements (the step-counting pattern matcher) against the originals.
#include "clua_internal.h"

#include <stdlib.h>
#include <string.h>

char *clua_reference_eval(const char *chunk) {
    lua_State *L = luaL_newstate();
    if (L == NULL) return NULL;
    luaL_openlibs(L);
    char *result = NULL;
    if (luaL_loadstring(L, chunk) == LUA_OK && lua_pcall(L, 0, 1, 0) == LUA_OK) {
        size_t len = 0;
        const char *text = lua_tolstring(L, -1, &len);
        if (text != NULL) {
            result = malloc(len + 1);
            if (result != NULL) memcpy(result, text, len + 1);
        }
    } else {
        const char *message = lua_tostring(L, -1);
        size_t len = message ? strlen(message) : 0;
        result = malloc(len + 8);
        if (result != NULL) {
            memcpy(result, "error: ", 7);
            memcpy(result + 7, message ? message : "", len + 1);
        }
    }
    lua_close(L);
    return result;
}
