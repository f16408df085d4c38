// libedit's readline compatibility interface (Debian: libedit-dev, pkg-config `libedit`),
// used by the REPL for line editing, history and completion. Only LunaConsole imports it.
#pragma once
#include <stdio.h>
#include <editline/readline.h>

// Accessors for libedit's global variables: Swift 6 refuses direct access to mutable C
// globals, and the REPL touches them from its one thread only.
static inline void luna_rl_configure(rl_completion_func_t *complete) {
    rl_catch_signals = 0;
    rl_readline_name = "luna";
    rl_attempted_completion_function = complete;
}
static inline const char *luna_rl_line(void) { return rl_line_buffer; }
static inline int luna_rl_point(void) { return rl_point; }
static inline void luna_rl_set_point(int point) { rl_point = point; }
static inline void luna_rl_completion_over(void) { rl_attempted_completion_over = 1; }
static inline int luna_rl_end(void) { return rl_end; }
