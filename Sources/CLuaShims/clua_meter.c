// Metered library functions: the standard functions that loop in C, where the instruction
// hook never runs, replaced or wrapped so that their work is charged to the budget and the
// deadline is checked while they run (the rule: runaway code of any kind stops at its limit).
// Written for Luna from the Lua 5.4 manual's description of each function.
#include "clua_internal.h"

#include <ctype.h>
#include <limits.h>
#include <string.h>

/// Bytes a string function processes between two meter checks.
#define CHUNK_BYTES (1u << 20)
/// Table elements a table function touches between two meter checks.
#define CHUNK_ELEMENTS 4096
/// Longest string string.rep makes (as the original: an int-sized length).
#define REP_MAX ((size_t)INT_MAX)

static void meter_bytes(lua_State *L, size_t bytes) {
    clua_meter(L, (int64_t)(bytes / CLUA_BYTES_PER_INSTRUCTION) + 1);
}

// MARK: Strings

// Converts a relative string position (negative counts from the end) to a 1-based one
// clamped at 0, as the manual's §6.4 describes for string.sub.
size_t clua_start_position(lua_Integer pos, size_t len) {
    if (pos > 0) return (size_t)pos;
    if (pos == 0) return 1;
    if (pos < -(lua_Integer)len) return 1;
    return len + (size_t)pos + 1;
}

// string.rep (s, n [, sep]): n copies of s separated by sep.
static int metered_rep(lua_State *L) {
    size_t len, lsep;
    const char *s = luaL_checklstring(L, 1, &len);
    lua_Integer n = luaL_checkinteger(L, 2);
    const char *sep = luaL_optlstring(L, 3, "", &lsep);
    if (n <= 0 || len + lsep == 0) {
        lua_pushliteral(L, "");
        return 1;
    }
    if (len + lsep > REP_MAX / (size_t)n) return luaL_error(L, "resulting string too large");
    size_t total = (size_t)n * len + (size_t)(n - 1) * lsep;
    meter_bytes(L, 0);
    luaL_Buffer b;
    char *out = luaL_buffinitsize(L, &b, total);
    size_t since = 0;
    for (lua_Integer i = 0; i < n; i++) {
        memcpy(out, s, len);
        out += len;
        if (i + 1 < n && lsep > 0) {
            memcpy(out, sep, lsep);
            out += lsep;
        }
        since += len + lsep;
        if (since >= CHUNK_BYTES) {
            meter_bytes(L, since);
            since = 0;
        }
    }
    luaL_pushresultsize(&b, total);
    return 1;
}

// string.upper, string.lower and string.reverse: one byte in, one byte out.
static int map_bytes(lua_State *L, int mode) {
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    luaL_Buffer b;
    char *out = luaL_buffinitsize(L, &b, len);
    for (size_t done = 0; done < len;) {
        size_t end = len - done > CHUNK_BYTES ? done + CHUNK_BYTES : len;
        for (size_t i = done; i < end; i++) {
            unsigned char c = (unsigned char)s[i];
            if (mode == 0) out[i] = (char)toupper(c);
            else if (mode == 1) out[i] = (char)tolower(c);
            else out[len - 1 - i] = (char)c;
        }
        meter_bytes(L, end - done);
        done = end;
    }
    luaL_pushresultsize(&b, len);
    return 1;
}
static int metered_upper(lua_State *L) { return map_bytes(L, 0); }
static int metered_lower(lua_State *L) { return map_bytes(L, 1); }
static int metered_reverse(lua_State *L) { return map_bytes(L, 2); }

// The plain search of string.find (init already checked to be at most ls + 1): a first-byte
// scan with memchr, then a comparison, metered per CHUNK_BYTES of candidate positions and
// compared bytes.
int clua_plain_find(lua_State *L, const char *s, size_t ls, const char *p, size_t lp, size_t init) {
    if (lp == 0) {
        lua_pushinteger(L, (lua_Integer)init);
        lua_pushinteger(L, (lua_Integer)init - 1);
        return 2;
    }
    size_t work = 0;
    const char *at = s + init - 1;
    const char *end = s + ls;
    while ((size_t)(end - at) >= lp) {
        const char *hit = memchr(at, p[0], (size_t)(end - at) - lp + 1);
        if (hit == NULL) break;
        work += (size_t)(hit - at) + lp;
        if (memcmp(hit + 1, p + 1, lp - 1) == 0) {
            lua_pushinteger(L, (lua_Integer)(hit - s) + 1);
            lua_pushinteger(L, (lua_Integer)(hit - s) + (lua_Integer)lp);
            return 2;
        }
        at = hit + 1;
        if (work >= CHUNK_BYTES) {
            meter_bytes(L, work);
            work = 0;
        }
    }
    meter_bytes(L, work);
    luaL_pushfail(L);
    return 1;
}

// utf8.len (s [, i [, j [, lax]]]): the original, called over chunks that end before a byte
// that starts a character, so each chunk counts exactly the characters starting in it.
static int metered_utf8_len(lua_State *L) {
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    lua_Integer i = luaL_optinteger(L, 2, 1);
    lua_Integer j = luaL_optinteger(L, 3, -1);
    int lax = lua_toboolean(L, 4);
    size_t from = i >= 0 ? (size_t)i : (i < -(lua_Integer)len ? 0 : len + (size_t)i + 1);
    size_t to = j >= 0 ? (size_t)j : (j < -(lua_Integer)len ? 0 : len + (size_t)j + 1);
    if (to - from < CHUNK_BYTES || from < 1 || to > len || from > to) {
        // Small, or out of range (the original raises its own error).
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_insert(L, 1);
        lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
        return lua_gettop(L);
    }
    lua_Integer count = 0;
    size_t at = from;
    while (at <= to) {
        size_t stop = to - at >= CHUNK_BYTES ? at + CHUNK_BYTES : to;
        while (stop < to && (((unsigned char)s[stop]) & 0xC0) == 0x80) stop++;  // s[stop] is byte stop+1
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_pushvalue(L, 1);
        lua_pushinteger(L, (lua_Integer)at);
        lua_pushinteger(L, (lua_Integer)stop);
        lua_pushboolean(L, lax);
        lua_call(L, 4, 2);
        if (lua_isnil(L, -2) || lua_type(L, -2) == LUA_TBOOLEAN) return 2;  // fail, position
        count += lua_tointeger(L, -2);
        lua_pop(L, 2);
        meter_bytes(L, stop - at + 1);
        at = stop + 1;
    }
    lua_pushinteger(L, count);
    return 1;
}

// MARK: Tables

// table.move (a1, f, e, t [, a2]): the original, over chunks of CHUNK_ELEMENTS, in the same
// direction the original would copy (backwards when the ranges overlap upwards).
static int metered_move(lua_State *L) {
    lua_Integer f = luaL_checkinteger(L, 2);
    lua_Integer e = luaL_checkinteger(L, 3);
    lua_Integer t = luaL_checkinteger(L, 4);
    int dest = lua_isnoneornil(L, 5) ? 1 : 5;
    if (e < f || e - f < CHUNK_ELEMENTS) {
        lua_settop(L, 5);
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_insert(L, 1);
        lua_call(L, 5, 1);
        return 1;
    }
    luaL_argcheck(L, f > 0 || e < LUA_MAXINTEGER + f, 3, "too many elements to move");
    luaL_argcheck(L, t <= LUA_MAXINTEGER - (e - f) + 1 || 0, 4, "destination wrap around");
    int backwards = !(t > e || t <= f || (dest != 1 && !lua_compare(L, 1, dest, LUA_OPEQ)));
    lua_Integer n = e - f + 1;
    for (lua_Integer done = 0; done < n;) {
        lua_Integer size = n - done > CHUNK_ELEMENTS ? CHUNK_ELEMENTS : n - done;
        lua_Integer first = backwards ? e - done - size + 1 : f + done;
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_pushvalue(L, 1);
        lua_pushinteger(L, first);
        lua_pushinteger(L, first + size - 1);
        lua_pushinteger(L, t + (first - f));
        lua_pushvalue(L, dest);
        lua_call(L, 5, 0);
        clua_meter(L, size);
        done += size;
    }
    lua_pushvalue(L, dest);
    return 1;
}

static int metered_move(lua_State *L);

// Moves t[from..to] by `by` places with the metered move (table.insert/remove).
// Upvalue 1 of the caller: the original table.move.
static void shift(lua_State *L, lua_Integer from, lua_Integer to, lua_Integer by) {
    if (to < from) return;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushcclosure(L, metered_move, 1);
    lua_pushvalue(L, 1);
    lua_pushinteger(L, from);
    lua_pushinteger(L, to);
    lua_pushinteger(L, from + by);
    lua_call(L, 4, 0);
}

// table.insert ([list,] [pos,] value). Upvalue 1: the original table.move.
static int metered_insert(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer size = luaL_len(L, 1);
    lua_Integer pos;
    int value;
    switch (lua_gettop(L)) {
    case 2:
        pos = size + 1;
        value = 2;
        break;
    case 3:
        pos = luaL_checkinteger(L, 2);
        luaL_argcheck(L, (lua_Unsigned)pos - 1u < (lua_Unsigned)size + 1u, 2,
                      "position out of bounds");
        shift(L, pos, size, 1);
        value = 3;
        break;
    default:
        return luaL_error(L, "wrong number of arguments to 'insert'");
    }
    lua_pushvalue(L, value);
    lua_seti(L, 1, pos);
    return 0;
}

// table.remove (list [, pos]). Upvalue 1: the original table.move.
static int metered_remove(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer size = luaL_len(L, 1);
    lua_Integer pos = luaL_optinteger(L, 2, size);
    if (pos != size) {
        luaL_argcheck(L, (lua_Unsigned)pos - 1u <= (lua_Unsigned)size, 2,
                      "position out of bounds");
    }
    lua_geti(L, 1, pos);
    int result = lua_gettop(L);
    if (pos < size) {
        shift(L, pos + 1, size, -1);
        pos = size;
    }
    lua_pushnil(L);
    lua_seti(L, 1, pos);
    lua_settop(L, result);
    return 1;
}

// The comparator table.sort gets: the script's (upvalue 1), or `<` when it gave none; every
// CHUNK_ELEMENTS comparisons are charged and the deadline checked.
static int metered_less(lua_State *L) {
    clua_Host *H = clua_host(L);
    if ((++H->allocations & (CHUNK_ELEMENTS - 1)) == 0) clua_meter(L, CHUNK_ELEMENTS);
    if (lua_isnil(L, lua_upvalueindex(1))) {
        lua_pushboolean(L, lua_compare(L, 1, 2, LUA_OPLT));
        return 1;
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, 2, 1);
    return 1;
}

// table.sort (list [, comp]). Upvalue 1: the original sort.
static int metered_sort(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_settop(L, 2);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, metered_less, 1);
    lua_call(L, 2, 0);
    return 0;
}

// table.concat (list [, sep [, i [, j]]]).
static int metered_concat(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    size_t lsep;
    const char *sep = luaL_optlstring(L, 2, "", &lsep);
    lua_Integer i = luaL_optinteger(L, 3, 1);
    lua_Integer last = lua_isnoneornil(L, 4) ? luaL_len(L, 1) : luaL_checkinteger(L, 4);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (lua_Integer k = i, done = 0; k <= last; k++) {
        lua_geti(L, 1, k);
        if (!lua_isstring(L, -1)) {
            return luaL_error(L, "invalid value (at index %I) in table for 'concat'",
                              (LUAI_UACINT)k);
        }
        luaL_addvalue(&b);
        if (k < last) luaL_addlstring(&b, sep, lsep);
        if (++done == CHUNK_ELEMENTS) {
            clua_meter(L, CHUNK_ELEMENTS);
            done = 0;
        }
        if (k == LUA_MAXINTEGER) break;
    }
    luaL_pushresult(&b);
    return 1;
}

// table.unpack (list [, i [, j]]).
static int metered_unpack(lua_State *L) {
    lua_Integer i = luaL_optinteger(L, 2, 1);
    lua_Integer e = lua_isnoneornil(L, 3) ? luaL_len(L, 1) : luaL_checkinteger(L, 3);
    if (i > e) return 0;
    lua_Unsigned n = (lua_Unsigned)e - (lua_Unsigned)i;
    if (n >= (unsigned int)INT_MAX || !lua_checkstack(L, (int)(++n))) {
        return luaL_error(L, "too many results to unpack");
    }
    for (lua_Unsigned k = 0; k < n; k++) {
        lua_geti(L, 1, i + (lua_Integer)k);
        if ((k + 1) % CHUNK_ELEMENTS == 0) clua_meter(L, CHUNK_ELEMENTS);
    }
    return (int)n;
}

// MARK: load

// Reads a string chunk for load in pieces of CHUNK_BYTES, charging each: the parser works
// in C between two pieces. Upvalue 1: the string; upvalue 2: the next 0-based offset.
static int chunk_reader(lua_State *L) {
    size_t len;
    const char *s = lua_tolstring(L, lua_upvalueindex(1), &len);
    size_t at = (size_t)lua_tointeger(L, lua_upvalueindex(2));
    if (at >= len) return 0;
    size_t size = len - at > CHUNK_BYTES ? CHUNK_BYTES : len - at;
    meter_bytes(L, size * 4);  // parsing costs more than copying
    lua_pushinteger(L, (lua_Integer)(at + size));
    lua_replace(L, lua_upvalueindex(2));
    lua_pushlstring(L, s + at, size);
    return 1;
}

void clua_push_chunk_reader(lua_State *L, int idx) {
    lua_pushvalue(L, idx);
    lua_pushinteger(L, 0);
    lua_pushcclosure(L, chunk_reader, 2);
}

// MARK: Wrappers

// Why: string.byte, string.sub, string.format, string.pack, utf8.codepoint and the like do
// work proportional to their string arguments in one C call. Charging that work before the
// call bounds what repeated calls can do between two hook checks. Upvalue 1: the original.
static int premetered(lua_State *L) {
    int n = lua_gettop(L);
    size_t bytes = 0;
    for (int k = 1; k <= n; k++) {
        if (lua_type(L, k) == LUA_TSTRING) bytes += lua_rawlen(L, k);
    }
    meter_bytes(L, bytes + (size_t)n * CLUA_BYTES_PER_INSTRUCTION);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

static void set_function(lua_State *L, int table, const char *name, lua_CFunction f,
                         int with_original) {
    if (with_original) lua_getfield(L, table, name);
    lua_pushcclosure(L, f, with_original);
    lua_setfield(L, table, name);
}

static void replace_with_original_move(lua_State *L, int table, const char *name,
                                       lua_CFunction f, int move) {
    lua_pushvalue(L, move);
    lua_pushcclosure(L, f, 1);
    lua_setfield(L, table, name);
}

void clua_meter_libraries(lua_State *L, int globals) {
    lua_getfield(L, globals, LUA_STRLIBNAME);
    if (lua_type(L, -1) == LUA_TTABLE) {
        int s = lua_gettop(L);
        set_function(L, s, "rep", metered_rep, 0);
        set_function(L, s, "upper", metered_upper, 0);
        set_function(L, s, "lower", metered_lower, 0);
        set_function(L, s, "reverse", metered_reverse, 0);
        static const char *const wrapped[] = {"byte", "sub", "char", "format", "pack",
                                              "unpack", "packsize", NULL};
        for (const char *const *w = wrapped; *w; w++) set_function(L, s, *w, premetered, 1);
    }
    lua_pop(L, 1);

    lua_getfield(L, globals, LUA_TABLIBNAME);
    if (lua_type(L, -1) == LUA_TTABLE) {
        int t = lua_gettop(L);
        lua_getfield(L, t, "move");
        int move = lua_gettop(L);
        replace_with_original_move(L, t, "insert", metered_insert, move);
        replace_with_original_move(L, t, "remove", metered_remove, move);
        replace_with_original_move(L, t, "move", metered_move, move);
        lua_pop(L, 1);
        set_function(L, t, "sort", metered_sort, 1);
        set_function(L, t, "concat", metered_concat, 0);
        set_function(L, t, "unpack", metered_unpack, 0);
    }
    lua_pop(L, 1);

    lua_getfield(L, globals, LUA_UTF8LIBNAME);
    if (lua_type(L, -1) == LUA_TTABLE) {
        int u = lua_gettop(L);
        set_function(L, u, "len", metered_utf8_len, 1);
        static const char *const wrapped[] = {"char", "codepoint", "offset", NULL};
        for (const char *const *w = wrapped; *w; w++) set_function(L, u, *w, premetered, 1);
    }
    lua_pop(L, 1);

}
