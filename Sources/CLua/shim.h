// The system's Lua 5.4 (Debian: liblua5.4-dev, found through pkg-config `lua5.4`;
// Homebrew: `lua`). Only CLuaShims and LuaHost import this module.
#pragma once
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
