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
/// Traceback caps: at most 20 frames and 4 KiB of traceback text.
#define CLUA_TRACEBACK_FRAMES 20
#define CLUA_TRACEBACK_BYTES 4096

/// Bytes a state may still grow by once a limit has tripped, for the error itself (its
/// message, unwinding, the traceback), past the cap too: nothing else grows after a trip.
#define CLUA_MESSAGE_RESERVE (64 * 1024)
/// Strings at least this large are tracked: every VM instruction that converts or compares a
/// string costs time in its length, which the instruction count cannot see.
#define CLUA_BIG_STRING (64 * 1024)
/// How many big strings are tracked one by one (past that, the largest ever seen counts).
#define CLUA_BIG_SLOTS 1024
/// Bytes of string work allowed between two hook calls: with a big string alive, the hook
/// interval shrinks to this divided by its size (one instruction at 16 MiB and above).
#define CLUA_WORK_PER_INTERVAL (16u * 1024 * 1024)
/// coroutine.close (--unsafe) may nest this deep (deeper, Lua 5.4.4 overflows the C stack).
#define CLUA_MAX_CLOSE_DEPTH 100

typedef struct clua_BigString {
    void *block;
    size_t size;
} clua_BigString;

typedef struct clua_Host {
    // Allocator.
    size_t used;
    size_t cap;
    int enforce;  // the cap applies only while Lua code runs (see clua_shims.h)
    size_t trip_bytes;  // grown since a limit tripped (at most CLUA_MESSAGE_RESERVE)
    size_t peak;  // most bytes in use since clua_reset_peak (tests)
    // Big strings alive, and the hook interval they call for.
    clua_BigString big[CLUA_BIG_SLOTS];
    int big_count;
    int big_overflow;
    size_t big_largest_seen;
    int interval;
    int close_depth;
    /// The thread running Lua code (set by clua_pcall, the coroutine guards and the hook).
    lua_State *current;
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

/// Raises the tripped limit's error in `L` (after arming the hook on every instruction of
/// `L`), if a limit has tripped; returns otherwise. Only for C functions called from Lua.
void clua_raise_if_tripped(lua_State *L);

/// Makes `L` the running thread: its hook gets the current interval (or fires on every
/// instruction once a limit has tripped). Returns the thread that was running.
lua_State *clua_enter_thread(lua_State *L);

/// CLOCK_MONOTONIC in nanoseconds.
int64_t clua_now_ns(void);

/// Charges work that a library function does in C to the instruction budget and checks the
/// deadline; raises the limit's error (with the Lua caller's position) when one has tripped.
/// Only for C functions called from Lua: it may longjmp.
void clua_meter(lua_State *L, int64_t instructions);

/// Installs the metered replacements of the library functions that loop in C
/// (clua_meter.c) into the table on top of the stack's globals.
void clua_meter_libraries(lua_State *L, int globals);

/// A 1-based string position from a relative one (negative counts from the end), clamped at
/// 1, as the manual's §6.4 describes for string.sub and string.find.
size_t clua_start_position(lua_Integer pos, size_t len);

/// The metered plain search of string.find (`init` 1-based, at most `ls` + 1); pushes the
/// results and returns their count; may raise.
int clua_plain_find(lua_State *L, const char *s, size_t ls, const char *p, size_t lp, size_t init);


/// Replaces string.find, match, gmatch and gsub in the table at `idx` with Luna's own
/// pattern matcher, which charges its steps to the budget (clua_pattern.c).
void clua_install_patterns(lua_State *L, int idx);

/// Pushes a reader function that feeds the string at `idx` to load in metered pieces.
void clua_push_chunk_reader(lua_State *L, int idx);

/// Runs `fn` with `nargs` arguments already pushed above it, as clua_pcall does with the
/// default limits.
int clua_pcall_default(lua_State *L, int nargs, int nresults);
