// Private to CLuaShims: the host state kept beside each lua_State.
#pragma once
#include "clua_shims.h"

/// Instructions between two hook calls while no limit has tripped.
#define CLUA_HOOK_INTERVAL 1000
/// Bytes a library function may allocate (or process) per instruction charged to the budget.
#define CLUA_BYTES_PER_INSTRUCTION 64
/// Allocations at least this large read the clock at once; smaller ones every 64th time.
#define CLUA_LARGE_ALLOCATION 4096
/// Protected calls may nest this deep (host function → Lua → host function …).
#define CLUA_MAX_DEPTH 60
/// Traceback caps (SPEC §5).
#define CLUA_TRACEBACK_FRAMES 20
#define CLUA_TRACEBACK_BYTES 4096

typedef struct clua_Host {
    // Allocator.
    size_t used;
    size_t cap;
    int enforce;  // the cap applies only while Lua code runs (see clua_shims.h)
    // Limits of the outermost protected call.
    int64_t budget;
    int64_t executed;
    int64_t deadline;  // CLOCK_MONOTONIC nanoseconds; 0: none
    uint32_t allocations;  // small allocations since the last clock read
    int tripped;       // CLUA_LIMIT_*
    int depth;         // protected calls under way
    int64_t default_budget;
    int64_t default_deadline_ns;
    lua_State *main;
    clua_HostFunction dispatch;
    clua_Release release;
} clua_Host;

static inline clua_Host *clua_host(lua_State *L) {
    void *ud = NULL;
    (void)lua_getallocf(L, &ud);
    return (clua_Host *)ud;
}

/// CLOCK_MONOTONIC in nanoseconds.
int64_t clua_now_ns(void);

/// Charges work that a library function does in C to the instruction budget and checks the
/// deadline; raises the limit's error (with the Lua caller's position) when one has tripped.
/// Only for C functions called from Lua: it may longjmp.
void clua_meter(lua_State *L, int64_t instructions);

/// Installs the metered replacements of the library functions that loop in C
/// (clua_meter.c) into the table on top of the stack's globals.
void clua_meter_libraries(lua_State *L, int globals);

/// The metered plain search of string.find (arguments as string.find's); may raise.
int clua_plain_find(lua_State *L);

/// Refuses a plain-pattern match, gmatch or gsub whose worst case is too much work for one C
/// call, and charges the scan; may raise.
int clua_plain_pattern_check(lua_State *L, const char *name, size_t slen, size_t plen);

/// Pushes a reader function that feeds the string at `idx` to load in metered pieces.
void clua_push_chunk_reader(lua_State *L, int idx);

/// Runs `fn` with `nargs` arguments already pushed above it, as clua_pcall does with the
/// default limits.
int clua_pcall_default(lua_State *L, int nargs, int nresults);
