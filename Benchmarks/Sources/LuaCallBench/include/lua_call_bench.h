// The C side of the call benchmark: the same Lua callback, with the same ctx table built
// each time, called straight from C on a plain lua_State (no hook, no Swift).
#pragma once
#include <stdint.h>

/// Compiles `source` (which returns a function) in a fresh state and calls that function
/// `iterations` times with a new ctx table each time. With `runtime_strings`, the ctx's
/// string values are pushed by content (lua_pushlstring), as a host holding them in memory
/// does; without, as literals (lua_pushstring, which finds a literal by its address).
/// Returns the elapsed nanoseconds, or -1 on a Lua error.
int64_t lua_call_bench_from_c(const char *source, int iterations, int runtime_strings);

/// Bytes the C heap holds now (glibc mallinfo2: in-use chunks plus mmapped blocks); Swift's
/// Glibc module does not export mallinfo2.
int64_t bench_heap_in_use(void);
