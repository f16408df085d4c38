// Private to CLuaShims: the host state kept beside each lua_State.
#pragma once
#include "clua_shims.h"

/// Instructions between two hook calls while no limit has tripped.
#define CLUA_HOOK_INTERVAL 1000
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

/// Runs `fn` with `nargs` arguments already pushed above it, as clua_pcall does with the
/// default limits.
int clua_pcall_default(lua_State *L, int nargs, int nresults);
