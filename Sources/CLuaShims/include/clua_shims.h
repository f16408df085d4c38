// CLuaShims: the only code in Luna that may raise a Lua error (longjmp).
//
// Lua raises errors with longjmp; a longjmp across a Swift frame is undefined behaviour.
// So Swift calls directly only the Lua API functions marked `-` or `m` in the Lua 5.4
// manual §4.6, and everything marked `e` or `v` runs here, under lua_pcall, returning a
// status. Swift functions exposed to Lua never raise: they return a sentinel with the error
// value pushed, and the C trampoline raises after the Swift frame has returned.
//
// Memory errors (`m`) cannot happen while Swift code runs: the capped allocator enforces
// its cap only while Lua code runs (inside clua_pcall, outside host functions), so an `m`
// function called from Swift never fails under the cap.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

// MARK: - Macros Swift cannot import (each is a macro in lua.h).

/// Why: `LUA_REGISTRYINDEX` is a macro expression Swift does not import.
static inline int clua_registryindex(void) { return LUA_REGISTRYINDEX; }

/// Why: `lua_upvalueindex` is a macro.
static inline int clua_upvalueindex(int i) { return lua_upvalueindex(i); }

/// Why: `lua_pop` is a macro over lua_settop. lua_settop is marked `e` in 5.4 only because
/// it closes to-be-closed slots of the running C function (§4.6 lua_settop); Luna never
/// calls lua_toclose, so no slot is ever to-be-closed and the raise cannot happen.
static inline void clua_pop(lua_State *L, int n) { lua_settop(L, -(n)-1); }

/// Why: lua_settop itself, with the same argument as clua_pop for why it cannot raise here.
static inline void clua_settop(lua_State *L, int idx) { lua_settop(L, idx); }

/// Why: `lua_newtable` is a macro (lua_createtable, `m`).
static inline void clua_newtable(lua_State *L) { lua_createtable(L, 0, 0); }

/// Why: `lua_tostring` is a macro (lua_tolstring, `m`).
static inline const char *clua_tostring(lua_State *L, int idx) {
    return lua_tolstring(L, idx, NULL);
}

/// Why: `lua_insert` is a macro (lua_rotate, `-`).
static inline void clua_insert(lua_State *L, int idx) { lua_rotate(L, idx, 1); }

/// Why: `lua_remove` is a macro (lua_rotate + lua_settop; see clua_pop).
static inline void clua_remove(lua_State *L, int idx) {
    lua_rotate(L, idx, -1);
    lua_settop(L, -2);
}

/// Why: `lua_pushglobaltable` is a macro (lua_rawgeti on the registry, `-`).
static inline void clua_pushglobaltable(lua_State *L) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
}

/// Why: `lua_tonumber` / `lua_tointeger` are macros over the `x` variants (`-`).
static inline lua_Number clua_tonumber(lua_State *L, int idx) { return lua_tonumberx(L, idx, NULL); }

/// Why: lua_gc is variadic, which Swift cannot call. A full collection (§4.6 lua_gc,
/// [-0, +0, -]); finalizers of host objects only release Swift objects.
static inline void clua_collect(lua_State *L) { (void)lua_gc(L, LUA_GCCOLLECT); }

// MARK: - The host state: allocator, limits, trampolines.

/// Returned by a host function (Swift) instead of a result count: raise the value on top.
#define CLUA_RAISE (-1)
/// Returned by a host function: raise the string on top, prefixed with the caller's position.
#define CLUA_RAISE_WHERE (-2)

/// Which limit stopped the last protected call, if any.
enum {
    CLUA_LIMIT_NONE = 0,
    CLUA_LIMIT_BUDGET = 1,
    CLUA_LIMIT_DEADLINE = 2,
    CLUA_LIMIT_MEMORY = 3,
    CLUA_LIMIT_NESTING = 4,
};

/// A Swift function exposed to Lua. `box` is the light userdata given to
/// clua_pushhostfunction. Returns the number of results pushed, or CLUA_RAISE /
/// CLUA_RAISE_WHERE with the error value pushed. Must never raise.
typedef int (*clua_HostFunction)(lua_State *L, void *box);

/// Releases a Swift object held by a Lua userdata (called from that userdata's __gc).
typedef void (*clua_Release)(void *object);

/// Creates a lua_State with the capped allocator, the instruction hook installed on the main
/// thread (before any coroutine exists, so every coroutine inherits it) and a panic handler.
/// Returns NULL when the state cannot be created.
lua_State *clua_open(size_t memory_cap, clua_HostFunction dispatch, clua_Release release);

/// Closes the state (running pending finalizers) and frees the host state.
void clua_close(lua_State *L);

/// Bytes currently allocated by this state (main thread and all coroutines).
size_t clua_memory_used(lua_State *L);
/// The memory cap in bytes (0: none).
size_t clua_memory_cap(lua_State *L);

/// Most bytes in use since the last clua_reset_memory_peak (for tests of the cap).
size_t clua_memory_peak(lua_State *L);
void clua_reset_memory_peak(lua_State *L);

/// Test support: runs `chunk` in a fresh, unsandboxed state with Lua's own standard library
/// and returns its string result (or "error: …"), malloc'd; the caller frees it.
char *clua_reference_eval(const char *chunk);

/// Instructions between two calls of the limit hook now (1,000, fewer while big strings live).
int clua_hook_interval(lua_State *L);
/// Instructions executed by the current or last outermost protected call (granularity: the
/// hook interval).
int64_t clua_instructions_used(lua_State *L);
/// How many protected calls are under way (0 when no Lua code runs).
int clua_call_depth(lua_State *L);
/// Slots at the bottom of the main thread's stack that belong to the host (the message
/// handler of outermost calls).
#define CLUA_RESERVED_SLOTS 1
/// lua_gettop without the host's reserved slots (when no Lua code runs on the main thread).
int clua_gettop(lua_State *L);

/// Runs the function below `nargs` arguments on top of the stack under lua_pcall with the
/// traceback message handler. When this is the outermost call, the instruction budget and
/// the deadline (nanoseconds from now; 0: none) are reset; nested calls share the outer
/// ones. Returns the Lua status; on error the error message (a string, with traceback) is on
/// top and `*limit` says which limit, if any, stopped the call.
int clua_pcall(lua_State *L, int nargs, int nresults, int64_t budget, int64_t deadline_ns,
               int *limit);

/// The limits the protected wrappers below use when they are the outermost call (they run
/// metamethods, which are Lua code). Defaults: 10 million instructions, 100 ms.
void clua_set_default_limits(lua_State *L, int64_t budget, int64_t deadline_ns);

/// Loads a text chunk (binary chunks are refused). `chunkname` follows lua_load's
/// convention (`@file.lua`). Pushes the function or an error message. Returns the status.
int clua_load(lua_State *L, const char *text, size_t len, const char *chunkname);

/// Why: a precompiled chunk saves parsing a test file again for every case. Loads a binary
/// chunk that clua_dump made in this process (never one from outside: crafted bytecode can
/// crash the VM, which is why scripts' own `load` takes text only). Protected like clua_load.
int clua_load_binary(lua_State *L, const char *bytes, size_t len, const char *chunkname);

/// Why: lua_dump needs a C writer. Dumps the Lua function on top (kept on the stack) with
/// its debug information into a malloc'd buffer the caller frees; NULL if it is not a Lua
/// function (§4.6 lua_dump, [-0, +0, -]).
char *clua_dump(lua_State *L, size_t *len);

/// Opens the standard libraries: the sandbox (README, "The Lua sandbox") when `unsafe` is 0, or all of them.
/// Returns the status (error message on top on failure, nothing pushed on success).
int clua_open_libraries(lua_State *L, int unsafe);

/// Pushes a C closure that calls the host dispatcher with `box` (a Swift function box).
void clua_pushhostfunction(lua_State *L, void *box);

/// Creates a metatable for host objects: `__gc` releases the Swift object, `__metatable`
/// hides the table from scripts (so no script can add a `__gc` that would run with hooks
/// off), `__name` is `name`. Pushes it.
void clua_newclass(lua_State *L, const char *name);

/// Pushes a full userdata holding `object` (already retained by the caller) with the
/// metatable at registry reference `class_ref`.
void clua_pushobject(lua_State *L, void *object, int class_ref);

/// The object held by the userdata at `idx`, or NULL if it is not a host object (or was
/// already released).
void *clua_toobject(lua_State *L, int idx, int class_ref);

// MARK: - Protected wrappers for `e`/`v` API functions (status returned, error on top).

/// lua_getfield (§4.6, [-0, +1, e]): pushes t[k] with metamethods.
int clua_getfield_p(lua_State *L, int idx, const char *k);
/// lua_setfield (§4.6, [-1, +0, e]): t[k] = value on top, with metamethods; pops the value.
int clua_setfield_p(lua_State *L, int idx, const char *k);
/// lua_gettable (§4.6, [-1, +1, e]): replaces the key on top with t[key].
int clua_gettable_p(lua_State *L, int idx);
/// lua_settable (§4.6, [-2, +0, e]): t[key] = value (key below value on top); pops both.
int clua_settable_p(lua_State *L, int idx);
/// One key or value as `clua_fields_p` read it in place: scalars and strings by value (a
/// string's bytes stay valid while the table holds it), a userdata of the class asked for as
/// its Swift object, anything else pushed (`pushed`: its 1-based position among the values
/// the call left on the stack).
typedef struct clua_Slot {
    int type;
    int pushed;
    int is_integer;
    int boolean;
    const char *string;
    size_t length;
    lua_Integer integer;
    lua_Number number;
    void *pointer;
} clua_Slot;
typedef struct clua_Field {
    clua_Slot key;
    clua_Slot value;
} clua_Field;
/// A batch for `clua_fields_p`: `fields` has room for `capacity`; `class_ref` is the class
/// whose userdata are read as objects (LUA_NOREF: none); the call sets `count` and `more`.
typedef struct clua_FieldBatch {
    clua_Field *fields;
    int capacity;
    int class_ref;
    int count;
    int more;
} clua_FieldBatch;
/// lua_next (§4.6, [-1, +(2|0), v]) in batches, read in place: up to `capacity` entries of
/// the table at `idx` after the key on top (popped), in one protected call, described in
/// `batch->fields` without registry references. Pushes the values the slots could not hold
/// (tables, functions, threads, other userdata, in order), then — when `batch->more` — a copy
/// of the last key to continue from. On an error pushes the message.
int clua_fields_p(lua_State *L, int idx, clua_FieldBatch *batch);
/// `clua_fields_p` for the first batch (the key on top is nil) without a protected call: it
/// cannot raise there. Returns 0, changing nothing, when it cannot run unprotected (the value
/// at `idx` is not a table, the key is not nil, or the stack cannot grow); then use
/// `clua_fields_p`. Continuing batches need `clua_fields_p`: the table may have changed
/// between them.
int clua_fields_first(lua_State *L, int idx, clua_FieldBatch *batch);
/// lua_len (§4.6, [-0, +1, e]): pushes #t with metamethods.
int clua_len_p(lua_State *L, int idx);
/// luaL_tolstring (§5.1, [-0, +1, e]): pushes the value converted to a string (__tostring,
/// __name).
int clua_tolstring_p(lua_State *L, int idx);
/// luaL_ref (§5.1, [-1, +0, m]) needs no wrapper; listed here so the reader knows why none.
