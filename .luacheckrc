-- luacheck configuration for route scripts (examples/ and your own).
std = "lua54"
read_globals = { "endpoint", "stack", "junction", "fork", "switcher", "device", "flags" }
globals = {}
max_line_length = 120
-- Scripts in the sandbox have no io, debug, package or os beyond time/clock/date.
not_globals = { "io", "debug", "dofile", "loadfile", "collectgarbage" }

-- Test files: the test API.
files["**/*_test.lua"] = { read_globals = { "luna", "test", "expect", "expect_tree", "expect_plan" } }
