// The host state: capped allocator, instruction/deadline hook, protected calls with a
// traceback message handler, the raise trampoline and host objects.
// clock_gettime and CLOCK_MONOTONIC are POSIX.
#define _POSIX_C_SOURCE 200809L

#include "clua_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// Deadlines are tens of milliseconds and more: the coarse clock (a few ms of resolution, a
// fraction of the precise clock's cost, read at every call and every 64th allocation) is
// precise enough where the system has it.
int64_t clua_now_ns(void) {
    struct timespec ts;
#ifdef CLOCK_MONOTONIC_COARSE
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
#else
    clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// MARK: Allocator

static void trip(clua_Host *H, int limit);
static void limit_hook(lua_State *L, lua_Debug *ar);
static void remember_big_string(clua_Host *H, void *block, size_t size);
static void forget_big_string(clua_Host *H, void *block);
static int message_handler(lua_State *L);

// MARK: Big strings

// Why: a VM instruction that converts a string to a number (`s + 0`, `tonumber(s)`,
// `math.floor(s)`) or compares two strings scans them in C, so 1,000 instructions between
// two hook calls could be 1,000 scans of a 28 MiB string (seconds). While big strings are
// alive, the hook fires every CLUA_WORK_PER_INTERVAL / size instructions instead, which
// bounds the string work between two checks of the limits.
static int interval_for(clua_Host *H) {
    size_t largest = H->big_overflow ? H->big_largest_seen : 0;
    for (int k = 0; k < H->big_count; k++) {
        if (H->big[k].size > largest) largest = H->big[k].size;
    }
    if (largest < CLUA_BIG_STRING) return CLUA_HOOK_INTERVAL;
    size_t interval = CLUA_WORK_PER_INTERVAL / largest;
    if (interval < 1) return 1;
    return interval > CLUA_HOOK_INTERVAL ? CLUA_HOOK_INTERVAL : (int)interval;
}

static void apply_interval(clua_Host *H) {
    int interval = interval_for(H);
    if (interval == H->interval) return;
    H->interval = interval;
    if (H->tripped) return;  // every hook already fires on each instruction
    // lua_sethook only stores fields (§4.7: it may be called at any point, even here).
    if (H->current != NULL) lua_sethook(H->current, limit_hook, LUA_MASKCOUNT, interval);
    if (H->main != NULL && H->main != H->current) lua_sethook(H->main, limit_hook, LUA_MASKCOUNT, interval);
}

static void remember_big_string(clua_Host *H, void *block, size_t size) {
    if (size > H->big_largest_seen) H->big_largest_seen = size;
    if (H->big_count < CLUA_BIG_SLOTS) {
        H->big[H->big_count].block = block;
        H->big[H->big_count].size = size;
        H->big_count++;
    } else {
        H->big_overflow = 1;
    }
    apply_interval(H);
}

static void forget_big_string(clua_Host *H, void *block) {
    for (int k = 0; k < H->big_count; k++) {
        if (H->big[k].block == block) {
            H->big[k] = H->big[H->big_count - 1];
            H->big_count--;
            apply_interval(H);
            return;
        }
    }
}

// Why: the memory cap is enforced by the allocator. Lua turns a NULL from a
// growing allocation into a memory error (after an emergency collection). The cap applies
// only while Lua code runs, so `m` functions called from Swift frames never raise.
// The allocator is also where library functions written in C do their work (string.rep,
// table.concat, string.format, load…), which the instruction hook never sees: every grown
// byte is charged to the budget (CLUA_BYTES_PER_INSTRUCTION) and the clock is read on every
// large and every 64th small allocation. A limit that trips here arms the hook (the next
// instruction raises it with its position); a growing allocation made while a limit is
// tripped fails, so C code that keeps allocating is stopped too.
static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    clua_Host *H = (clua_Host *)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        if (old >= CLUA_BIG_STRING) forget_big_string(H, ptr);
        free(ptr);
        H->used -= old;
        return NULL;
    }
    if (nsize > old && H->enforce) {
        size_t cap = H->cap + (H->tripped ? CLUA_MESSAGE_RESERVE : 0);
        if (H->cap > 0 && H->used - old + nsize > cap) return NULL;
        if (H->depth > 0 && H->tripped) {
            // After a trip, only the error's own allocations (its message, the stack growth
            // of unwinding, the traceback): a reserve, not a way around the limit.
            if (H->trip_bytes + (nsize - old) > CLUA_MESSAGE_RESERVE) return NULL;
            H->trip_bytes += nsize - old;
        } else if (H->depth > 0) {
            size_t grown = nsize - old;
            H->executed += (int64_t)(grown / CLUA_BYTES_PER_INSTRUCTION);
            if (H->executed > H->budget) {
                trip(H, CLUA_LIMIT_BUDGET);
            } else if (H->deadline != 0
                       && (grown >= CLUA_LARGE_ALLOCATION || (++H->allocations & 63) == 0)
                       && clua_now_ns() > H->deadline) {
                trip(H, CLUA_LIMIT_DEADLINE);
            }
        }
    }
    void *block = realloc(ptr, nsize);
    if (block == NULL) return NULL;
    H->used = H->used - old + nsize;
    if (H->used > H->peak) H->peak = H->used;
    // A new string object (ptr NULL: osize is the object's type, manual §4.6 lua_Alloc).
    if (ptr == NULL && osize == LUA_TSTRING && nsize >= CLUA_BIG_STRING) remember_big_string(H, block, nsize);
    return block;
}

// Why: an error outside any protected call would end the process. Luna never calls an
// `e`/`v` function outside clua_pcall and the allocator never fails outside Lua code, so
// this only reports a bug in Luna itself.
static int panic(lua_State *L) {
    const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?";
    fprintf(stderr, "luna: internal error: unprotected Lua error: %s\n", msg);
    abort();
}

// MARK: Hook

static void raise_limit(lua_State *L, clua_Host *H) {
    lua_Debug ar;
    const char *what = H->tripped == CLUA_LIMIT_BUDGET
        ? "instruction budget exceeded"
        : "deadline exceeded";
    // The message allocates from the reserve (see capped_alloc); the cap stays on.
    // The innermost Lua frame's position (a library function raising it has none).
    int level = 0;
    while (level < 8 && lua_getstack(L, level, &ar) && lua_getinfo(L, "Sl", &ar)
           && ar.currentline <= 0) {
        level++;
    }
    if (level < 8 && lua_getstack(L, level, &ar) && ar.currentline > 0) {
        lua_pushfstring(L, "%s:%d: %s", ar.short_src, ar.currentline, what);
    } else {
        lua_pushstring(L, what);
    }
    lua_error(L);
}

void clua_raise_if_tripped(lua_State *L) {
    clua_Host *H = clua_host(L);
    if (!H->tripped || H->depth == 0) return;
    if (lua_gethookcount(L) != 1) lua_sethook(L, limit_hook, LUA_MASKCOUNT, 1);
    raise_limit(L, H);
}

lua_State *clua_enter_thread(lua_State *L) {
    clua_Host *H = clua_host(L);
    lua_State *previous = H->current;
    H->current = L;
    int count = H->tripped && H->depth > 0 ? 1 : H->interval;
    if (lua_gethookcount(L) != count) lua_sethook(L, limit_hook, LUA_MASKCOUNT, count);
    return previous;
}

// Arms the limit: from now on the hook fires on every instruction of the main thread and of
// the running one, and raises; every other thread raises when it is next resumed (the
// coroutine guards of clua_sandbox.c), and no thread can be created. Safe anywhere, even inside the allocator:
// lua_sethook only stores fields (§4.7 lua_sethook may be called at any point).
static void trip(clua_Host *H, int limit) {
    H->tripped = limit;
    if (H->main != NULL && lua_gethookcount(H->main) != 1) {
        lua_sethook(H->main, limit_hook, LUA_MASKCOUNT, 1);
    }
    if (H->current != NULL && lua_gethookcount(H->current) != 1) {
        lua_sethook(H->current, limit_hook, LUA_MASKCOUNT, 1);
    }
}

// Why: the instruction budget and the wall-clock deadline of every load and call. Count hooks are
// inherited by coroutines created after the hook is set. Once a limit trips, the hook is
// set to fire on every instruction of the thread it runs on (and of the main thread), so a
// script's own pcall cannot swallow the error: every instruction after it raises again.
// Charges `instructions` and reads the clock; returns the limit that tripped, if any.
static int charge(clua_Host *H, int64_t instructions) {
    H->executed += instructions;
    if (H->executed > H->budget) return CLUA_LIMIT_BUDGET;
    if (H->deadline != 0 && clua_now_ns() > H->deadline) return CLUA_LIMIT_DEADLINE;
    return CLUA_LIMIT_NONE;
}

static void limit_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    clua_Host *H = clua_host(L);
    H->current = L;
    int count = lua_gethookcount(L);
    if (!H->tripped) {
        if (count != H->interval) {
            lua_sethook(L, limit_hook, LUA_MASKCOUNT, H->interval);
        }
        H->tripped = charge(H, count);
        if (!H->tripped) return;
    }
    if (count != 1) lua_sethook(L, limit_hook, LUA_MASKCOUNT, 1);
    if (L != H->main && lua_gethookcount(H->main) != 1) {
        lua_sethook(H->main, limit_hook, LUA_MASKCOUNT, 1);
    }
    raise_limit(L, H);
}

void clua_meter(lua_State *L, int64_t instructions) {
    clua_Host *H = clua_host(L);
    if (H->depth == 0) return;
    if (!H->tripped) {
        int limit = charge(H, instructions);
        if (!limit) return;
        trip(H, limit);
    }
    raise_limit(L, H);
}

// MARK: State

lua_State *clua_open(size_t memory_cap, clua_HostFunction dispatch, clua_Release release) {
    clua_Host *H = (clua_Host *)calloc(1, sizeof(clua_Host));
    if (H == NULL) return NULL;
    H->cap = memory_cap;
    H->dispatch = dispatch;
    H->release = release;
    H->default_budget = 10000000;
    H->default_deadline_ns = 100000000;
    lua_State *L = lua_newstate(capped_alloc, H);
    if (L == NULL) {
        free(H);
        return NULL;
    }
    H->main = L;
    H->current = L;
    H->interval = CLUA_HOOK_INTERVAL;
    lua_atpanic(L, panic);
    lua_sethook(L, limit_hook, LUA_MASKCOUNT, CLUA_HOOK_INTERVAL);
    // The message handler lives in the main thread's first slot for the life of the state:
    // an outermost call names it there instead of inserting and removing a copy each time.
    // Nothing pops below it (every stack use is relative to the top it found), and
    // clua_gettop hides it.
    lua_pushcfunction(L, message_handler);
    return L;
}

void clua_close(lua_State *L) {
    clua_Host *H = clua_host(L);
    lua_close(L);
    free(H);
}

size_t clua_memory_used(lua_State *L) { return clua_host(L)->used; }
size_t clua_memory_peak(lua_State *L) { return clua_host(L)->peak; }
void clua_reset_memory_peak(lua_State *L) { clua_host(L)->peak = clua_host(L)->used; }
int clua_hook_interval(lua_State *L) { return clua_host(L)->interval; }
size_t clua_memory_cap(lua_State *L) { return clua_host(L)->cap; }
int64_t clua_instructions_used(lua_State *L) { return clua_host(L)->executed; }
int clua_call_depth(lua_State *L) { return clua_host(L)->depth; }

int clua_gettop(lua_State *L) {
    clua_Host *H = clua_host(L);
    int top = lua_gettop(L);
    return L == H->main && H->depth == 0 ? top - CLUA_RESERVED_SLOTS : top;
}

void clua_set_default_limits(lua_State *L, int64_t budget, int64_t deadline_ns) {
    clua_Host *H = clua_host(L);
    H->default_budget = budget;
    H->default_deadline_ns = deadline_ns;
}

// MARK: Protected calls

// Appends a traceback of at most CLUA_TRACEBACK_FRAMES frames to the buffer.
static void add_traceback(lua_State *L, luaL_Buffer *b) {
    lua_Debug ar;
    int level = 1;
    int shown = 0;
    luaL_addstring(b, "\nstack traceback:");
    while (lua_getstack(L, level++, &ar)) {
        if (shown == CLUA_TRACEBACK_FRAMES) {
            luaL_addstring(b, "\n\t...");
            break;
        }
        if (!lua_getinfo(L, "Sln", &ar)) break;
        char line[320];
        char where[200];
        if (ar.currentline > 0) {
            snprintf(where, sizeof where, "%s:%d:", ar.short_src, ar.currentline);
        } else {
            snprintf(where, sizeof where, "%s:", ar.short_src);
        }
        if (ar.name != NULL) {
            snprintf(line, sizeof line, "\n\t%s in function '%s'", where, ar.name);
        } else if (*ar.what == 'm') {
            snprintf(line, sizeof line, "\n\t%s in main chunk", where);
        } else if (*ar.what == 'C') {
            snprintf(line, sizeof line, "\n\t%s in ?", where);
        } else {
            snprintf(line, sizeof line, "\n\t%s in function <%s:%d>", where, ar.short_src, ar.linedefined);
        }
        luaL_addstring(b, line);
        shown++;
    }
}

// Why: the message handler of every host call: describes non-string error values
// without calling their __tostring, appends a capped traceback. It allocates without the
// memory cap (a few KiB), so a memory-starved script still gets its traceback.
static int message_handler(lua_State *L) {
    clua_Host *H = clua_host(L);
    int enforce = H->enforce;
    H->enforce = 0;
    luaL_Buffer b;
    int type = lua_type(L, 1);
    char what[96];
    const char *msg;
    size_t len;
    if (type == LUA_TSTRING) {
        msg = lua_tolstring(L, 1, &len);
    } else if (type == LUA_TNUMBER) {
        lua_pushvalue(L, 1);
        msg = lua_tolstring(L, -1, &len);  // converts the copy, not the error value
    } else {
        snprintf(what, sizeof what, "(error object is a %s value)", lua_typename(L, type));
        msg = what;
        len = strlen(what);
    }
    luaL_buffinit(L, &b);
    luaL_addlstring(&b, msg, len > CLUA_TRACEBACK_BYTES ? CLUA_TRACEBACK_BYTES : len);
    add_traceback(L, &b);
    luaL_pushresult(&b);
    size_t total;
    const char *all = lua_tolstring(L, -1, &total);
    if (total > CLUA_TRACEBACK_BYTES + len) {
        lua_pushlstring(L, all, CLUA_TRACEBACK_BYTES + len);
    }
    H->enforce = enforce;
    return 1;
}

int clua_pcall(lua_State *L, int nargs, int nresults, int64_t budget, int64_t deadline_ns,
               int *limit) {
    clua_Host *H = clua_host(L);
    *limit = CLUA_LIMIT_NONE;
    if (H->depth >= CLUA_MAX_DEPTH) {
        lua_settop(L, -(nargs + 1) - 1);
        lua_pushfstring(L, "C stack overflow (host calls nested more than %d deep)",
                        CLUA_MAX_DEPTH);
        *limit = CLUA_LIMIT_NESTING;
        return LUA_ERRRUN;
    }
    if (H->depth == 0) {
        H->budget = budget > 0 ? budget : INT64_MAX;
        H->executed = 0;
        H->deadline = deadline_ns > 0 ? clua_now_ns() + deadline_ns : 0;
        H->tripped = CLUA_LIMIT_NONE;
        H->trip_bytes = 0;
        H->close_depth = 0;
        if (lua_gethookcount(L) != H->interval) {
            lua_sethook(L, limit_hook, LUA_MASKCOUNT, H->interval);
        }
        if (L != H->main && lua_gethookcount(H->main) != H->interval) {
            lua_sethook(H->main, limit_hook, LUA_MASKCOUNT, H->interval);
        }
    }
    lua_State *previous = H->current;
    H->current = L;
    int base = lua_gettop(L) - nargs;  // the function's slot
    // The outermost call on the main thread finds the handler in the first slot (see
    // clua_open); a nested one (its indexes relative to a C function's frame) or one on
    // another thread gets a copy below its function, removed after.
    int reserved = L == H->main && H->depth == 0;
    if (!reserved) {
        lua_pushcfunction(L, message_handler);
        lua_insert(L, base);
    }
    int enforce = H->enforce;
    H->enforce = 1;
    H->depth++;
    int status = lua_pcall(L, nargs, nresults, reserved ? CLUA_RESERVED_SLOTS : base);
    H->depth--;
    H->enforce = enforce;
    H->current = previous;
    if (!reserved) {
        lua_rotate(L, base, -1);  // remove the handler
        lua_settop(L, -2);
    }
    if (status != LUA_OK) {
        if (H->tripped) {
            *limit = H->tripped;
            if (status == LUA_ERRMEM && *limit != CLUA_LIMIT_MEMORY) {
                // A growing allocation refused because a limit had tripped inside C code
                // that never returned to a hooked instruction: say which limit.
                int saved = H->enforce;
                H->enforce = 0;
                lua_settop(L, -2);
                lua_pushstring(L, *limit == CLUA_LIMIT_BUDGET
                    ? "instruction budget exceeded (in a library function)"
                    : "deadline exceeded (in a library function)");
                H->enforce = saved;
            }
        } else if (status == LUA_ERRMEM) {
            *limit = CLUA_LIMIT_MEMORY;
        }
    }
    if (H->depth == 0) {
        // Back in the host: the next outermost call starts afresh.
        if (H->tripped) H->tripped = CLUA_LIMIT_NONE;
        if (lua_gethookcount(H->main) != H->interval) {
            lua_sethook(H->main, limit_hook, LUA_MASKCOUNT, H->interval);
        }
    }
    return status;
}

int clua_pcall_default(lua_State *L, int nargs, int nresults) {
    clua_Host *H = clua_host(L);
    int limit;
    return clua_pcall(L, nargs, nresults, H->default_budget, H->default_deadline_ns, &limit);
}

int clua_load(lua_State *L, const char *text, size_t len, const char *chunkname) {
    clua_Host *H = clua_host(L);
    int enforce = H->enforce;
    H->enforce = 1;  // lua_load is protected: a memory error comes back as LUA_ERRMEM
    int status = luaL_loadbufferx(L, text, len, chunkname, "t");
    H->enforce = enforce;
    return status;
}

// MARK: Trampoline

// Why: the raise trampoline. The Swift dispatcher never raises; it returns a sentinel with
// the error value pushed, and this C frame raises after the Swift frames are gone. While
// Swift runs, the allocator does not enforce the cap (no memory error inside Swift).
static int host_trampoline(lua_State *L) {
    clua_Host *H = clua_host(L);
    void *box = lua_touserdata(L, lua_upvalueindex(1));
    int enforce = H->enforce;
    H->enforce = 0;
    int n = H->dispatch(L, box);
    H->enforce = enforce;
    if (n == CLUA_RAISE_WHERE) {
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
        return lua_error(L);
    }
    if (n == CLUA_RAISE) return lua_error(L);
    return n;
}

void clua_pushhostfunction(lua_State *L, void *box) {
    lua_pushlightuserdata(L, box);
    lua_pushcclosure(L, host_trampoline, 1);
}

// MARK: Host objects

typedef struct clua_Object {
    void *object;
} clua_Object;

// Why: releases the Swift object of a userdata when Lua collects it. It never raises and
// never runs Lua code (finalizers run with hooks off).
static int object_gc(lua_State *L) {
    clua_Object *o = (clua_Object *)lua_touserdata(L, 1);
    if (o != NULL && o->object != NULL) {
        void *object = o->object;
        o->object = NULL;
        clua_host(L)->release(object);
    }
    return 0;
}

void clua_newclass(lua_State *L, const char *name) {
    // Raw sets only (`m`): this runs from Swift frames, where the allocator cannot fail.
    lua_createtable(L, 0, 6);
    lua_pushstring(L, "__gc");
    lua_pushcfunction(L, object_gc);
    lua_rawset(L, -3);
    lua_pushstring(L, "__metatable");
    lua_pushboolean(L, 0);
    lua_rawset(L, -3);
    lua_pushstring(L, "__name");
    lua_pushstring(L, name);
    lua_rawset(L, -3);
}

void clua_pushobject(lua_State *L, void *object, int class_ref) {
    clua_Object *o = (clua_Object *)lua_newuserdatauv(L, sizeof(clua_Object), 0);
    o->object = object;
    lua_rawgeti(L, LUA_REGISTRYINDEX, class_ref);
    lua_setmetatable(L, -2);
}

void *clua_toobject(lua_State *L, int idx, int class_ref) {
    if (lua_type(L, idx) != LUA_TUSERDATA) return NULL;
    if (!lua_getmetatable(L, idx)) return NULL;
    lua_rawgeti(L, LUA_REGISTRYINDEX, class_ref);
    int same = lua_rawequal(L, -1, -2);
    lua_settop(L, -3);
    if (!same) return NULL;
    clua_Object *o = (clua_Object *)lua_touserdata(L, idx);
    return o->object;
}

int clua_load_binary(lua_State *L, const char *bytes, size_t len, const char *chunkname) {
    clua_Host *H = clua_host(L);
    int enforce = H->enforce;
    H->enforce = 1;
    int status = luaL_loadbufferx(L, bytes, len, chunkname, "b");
    H->enforce = enforce;
    return status;
}

typedef struct DumpBuffer {
    char *bytes;
    size_t len;
    size_t cap;
    int failed;
} DumpBuffer;

static int dump_writer(lua_State *L, const void *p, size_t sz, void *ud) {
    (void)L;
    DumpBuffer *b = (DumpBuffer *)ud;
    if (b->len + sz > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + sz) cap *= 2;
        char *grown = realloc(b->bytes, cap);
        if (grown == NULL) {
            b->failed = 1;
            return 1;
        }
        b->bytes = grown;
        b->cap = cap;
    }
    memcpy(b->bytes + b->len, p, sz);
    b->len += sz;
    return 0;
}

char *clua_dump(lua_State *L, size_t *len) {
    if (!lua_isfunction(L, -1) || lua_iscfunction(L, -1)) return NULL;
    DumpBuffer b = {NULL, 0, 0, 0};
    lua_dump(L, dump_writer, &b, 0);
    if (b.failed) {
        free(b.bytes);
        return NULL;
    }
    *len = b.len;
    return b.bytes;
}
