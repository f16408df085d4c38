// The system's Lua 5.4, found through pkg-config `lua5.4` (Debian/Ubuntu: liblua5.4-dev;
// macOS: Homebrew's keg-only lua@5.4, whose keg SwiftPM searches). pkg-config also gives the
// library to link (-llua5.4 on Debian; Homebrew names its library its own way). Only
// CLuaShims and LuaHost import this module.
#pragma once
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

// Lua 5.5 changed the C API Luna uses (lua_newstate takes a third argument, among others) and
// Lua 5.3 lacks what it needs: say what to install instead of failing somewhere below.
#if !defined(LUA_VERSION_NUM) || LUA_VERSION_NUM != 504
#error "Luna needs Lua 5.4, and the lua.h found is another version. macOS: brew install lua@5.4 (Homebrew's 'lua' is 5.5). Debian/Ubuntu: apt-get install liblua5.4-dev."
#endif
