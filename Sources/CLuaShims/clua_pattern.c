// Lua's string patterns (manual §6.4.1) with a step budget: string.find, match, gmatch and
// gsub for scripts, written for Luna from the manual's description. Lua's own matcher
// backtracks in C, where the instruction hook never runs, so one call could run for seconds
// (`string.find(("("):rep(256), ".-.-.-%b()")`, 6.4 s). This one counts its steps and charges
// them to the budget every CLUA_PATTERN_CHUNK steps, which also checks the deadline: a
// pattern call stops at the limits like any other code, whatever its subject or shape.
#include "clua_internal.h"

#include <ctype.h>
#include <string.h>

/// Steps between two charges to the meter.
#define CLUA_PATTERN_CHUNK 4096
/// Steps charged as one instruction (a step is one character test or one backtrack).
#define CLUA_PATTERN_STEPS_PER_INSTRUCTION 8
/// Captures a pattern may hold (as Lua's LUA_MAXCAPTURES).
#define CLUA_PATTERN_CAPTURES 32
/// Nesting of the matcher's recursion (one level per pattern item tried).
#define CLUA_PATTERN_DEPTH 200

#define ESCAPE '%'
#define SPECIALS "^$*+?.([%-"
#define CAPTURE_OPEN (-1)
#define CAPTURE_POSITION (-2)

typedef struct Matcher {
    const char *subject;
    const char *subject_end;
    const char *pattern_end;
    lua_State *L;
    int depth;
    int level;  // captures opened so far
    unsigned steps;
    struct {
        const char *start;
        ptrdiff_t length;  // CAPTURE_OPEN while open, CAPTURE_POSITION for `()`
    } capture[CLUA_PATTERN_CAPTURES];
} Matcher;

static const char *match_here(Matcher *m, const char *s, const char *p);

// Counts one step; every CLUA_PATTERN_CHUNK steps the work is charged (may raise).
static inline void step(Matcher *m) {
    if (++m->steps >= CLUA_PATTERN_CHUNK) {
        m->steps = 0;
        clua_meter(m->L, CLUA_PATTERN_CHUNK / CLUA_PATTERN_STEPS_PER_INSTRUCTION);
    }
}

// The end of the single-character class that starts at p.
static const char *class_end(Matcher *m, const char *p) {
    char c = *p++;
    if (c == ESCAPE) {
        if (p >= m->pattern_end) luaL_error(m->L, "malformed pattern (ends with '%%')");
        return p + 1;
    }
    if (c == '[') {
        if (p < m->pattern_end && *p == '^') p++;
        // The first character of a set is a member even when it is ']'.
        do {
            if (p >= m->pattern_end) luaL_error(m->L, "malformed pattern (missing ']')");
            char d = *p++;
            if (d == ESCAPE && p < m->pattern_end) p++;
        } while (*p != ']');
        return p + 1;
    }
    return p;
}

// Whether c belongs to the class letter cl (%a, %d, …; upper case: the complement).
static int in_class(int c, int cl) {
    int yes;
    switch (tolower(cl)) {
    case 'a': yes = isalpha(c); break;
    case 'c': yes = iscntrl(c); break;
    case 'd': yes = isdigit(c); break;
    case 'g': yes = isgraph(c); break;
    case 'l': yes = islower(c); break;
    case 'p': yes = ispunct(c); break;
    case 's': yes = isspace(c); break;
    case 'u': yes = isupper(c); break;
    case 'w': yes = isalnum(c); break;
    case 'x': yes = isxdigit(c); break;
    default: return cl == c;  // %. %% …: the character itself
    }
    if (isupper(cl)) yes = !yes;
    return yes != 0;
}

// Whether c is in the set [p … end) where p is at '[' and end at the closing ']'.
static int in_set(int c, const char *p, const char *end) {
    int negated = 0;
    p++;
    if (*p == '^') {
        negated = 1;
        p++;
    }
    for (; p < end; p++) {
        if (*p == ESCAPE) {
            p++;
            if (in_class(c, (unsigned char)*p)) return !negated;
        } else if (p + 2 < end && p[1] == '-') {
            if ((unsigned char)p[0] <= c && c <= (unsigned char)p[2]) return !negated;
            p += 2;
        } else if ((unsigned char)*p == c) {
            return !negated;
        }
    }
    return negated;
}

// Whether the subject character at s matches the class [p, ep).
static int single(Matcher *m, const char *s, const char *p, const char *ep) {
    step(m);
    if (s >= m->subject_end) return 0;
    int c = (unsigned char)*s;
    switch (*p) {
    case '.': return 1;
    case ESCAPE: return in_class(c, (unsigned char)p[1]);
    case '[': return in_set(c, p, ep - 1);
    default: return (unsigned char)*p == c;
    }
}

// %bxy: a balanced run from x to its matching y.
static const char *match_balance(Matcher *m, const char *s, const char *p) {
    if (p + 1 >= m->pattern_end) luaL_error(m->L, "malformed pattern (missing arguments to '%%b')");
    if (s >= m->subject_end || *s != *p) return NULL;
    char open = p[0], close = p[1];
    int depth = 1;
    while (++s < m->subject_end) {
        step(m);
        if (*s == close) {
            if (--depth == 0) return s + 1;
        } else if (*s == open) {
            depth++;
        }
    }
    return NULL;
}

// Greedy: the longest run first, then shorter ones.
static const char *match_greedy(Matcher *m, const char *s, const char *p, const char *ep) {
    ptrdiff_t count = 0;
    while (single(m, s + count, p, ep)) count++;
    for (; count >= 0; count--) {
        const char *end = match_here(m, s + count, ep + 1);
        if (end) return end;
    }
    return NULL;
}

// Lazy (`-`): the shortest run first.
static const char *match_lazy(Matcher *m, const char *s, const char *p, const char *ep) {
    for (;;) {
        const char *end = match_here(m, s, ep + 1);
        if (end) return end;
        if (!single(m, s, p, ep)) return NULL;
        s++;
    }
}

static int open_capture_index(Matcher *m) {
    for (int k = m->level - 1; k >= 0; k--) {
        if (m->capture[k].length == CAPTURE_OPEN) return k;
    }
    return luaL_error(m->L, "invalid pattern capture");
}

static const char *start_capture(Matcher *m, const char *s, const char *p, ptrdiff_t what) {
    if (m->level >= CLUA_PATTERN_CAPTURES) luaL_error(m->L, "too many captures");
    m->capture[m->level].start = s;
    m->capture[m->level].length = what;
    m->level++;
    const char *end = match_here(m, s, p);
    if (end == NULL) m->level--;
    return end;
}

static const char *end_capture(Matcher *m, const char *s, const char *p) {
    int k = open_capture_index(m);
    m->capture[k].length = s - m->capture[k].start;
    const char *end = match_here(m, s, p);
    if (end == NULL) m->capture[k].length = CAPTURE_OPEN;
    return end;
}

static const char *match_backreference(Matcher *m, const char *s, int which) {
    int k = which - '1';
    if (k < 0 || k >= m->level || m->capture[k].length == CAPTURE_OPEN) {
        luaL_error(m->L, "invalid capture index %%%d", k + 1);
    }
    // A position capture has no text: a reference to it never matches (as in Lua).
    if (m->capture[k].length == CAPTURE_POSITION) return NULL;
    size_t length = (size_t)m->capture[k].length;
    for (size_t i = 0; i < length; i += 64) step(m);
    if ((size_t)(m->subject_end - s) >= length && memcmp(m->capture[k].start, s, length) == 0) return s + length;
    return NULL;
}

// Matches the pattern from p at subject position s; the end of the match or NULL.
static const char *match_here(Matcher *m, const char *s, const char *p) {
    if (++m->depth > CLUA_PATTERN_DEPTH) luaL_error(m->L, "pattern too complex");
    const char *result = NULL;
    while (1) {
        step(m);
        if (p >= m->pattern_end) {
            result = s;
            break;
        }
        if (*p == '(') {
            result = p + 1 < m->pattern_end && p[1] == ')' ? start_capture(m, s, p + 2, CAPTURE_POSITION)
                                                           : start_capture(m, s, p + 1, CAPTURE_OPEN);
            break;
        }
        if (*p == ')') {
            result = end_capture(m, s, p + 1);
            break;
        }
        if (*p == '$' && p + 1 == m->pattern_end) {
            result = s == m->subject_end ? s : NULL;
            break;
        }
        if (*p == ESCAPE && p + 1 < m->pattern_end && p[1] == 'b') {
            s = match_balance(m, s, p + 2);
            if (s == NULL) break;
            p += 4;
            continue;
        }
        if (*p == ESCAPE && p + 1 < m->pattern_end && p[1] == 'f') {
            p += 2;
            if (p >= m->pattern_end || *p != '[') luaL_error(m->L, "missing '[' after '%%f' in pattern");
            const char *ep = class_end(m, p);
            int before = s == m->subject ? 0 : (unsigned char)s[-1];
            int at = s < m->subject_end ? (unsigned char)*s : 0;
            if (in_set(before, p, ep - 1) || !in_set(at, p, ep - 1)) break;
            p = ep;
            continue;
        }
        if (*p == ESCAPE && p + 1 < m->pattern_end && isdigit((unsigned char)p[1])) {
            s = match_backreference(m, s, (unsigned char)p[1]);
            if (s == NULL) break;
            p += 2;
            continue;
        }
        const char *ep = class_end(m, p);
        char q = ep < m->pattern_end ? *ep : '\0';
        if (q == '?') {
            if (single(m, s, p, ep)) {
                const char *end = match_here(m, s + 1, ep + 1);
                if (end) {
                    result = end;
                    break;
                }
            }
            p = ep + 1;
            continue;
        }
        if (q == '+') {
            result = single(m, s, p, ep) ? match_greedy(m, s + 1, p, ep) : NULL;
            break;
        }
        if (q == '*') {
            result = match_greedy(m, s, p, ep);
            break;
        }
        if (q == '-') {
            result = match_lazy(m, s, p, ep);
            break;
        }
        if (!single(m, s, p, ep)) break;
        s++;
        p = ep;
    }
    m->depth--;
    return result;
}

static void start(Matcher *m, lua_State *L, const char *s, size_t ls, const char *p, size_t lp) {
    m->L = L;
    m->subject = s;
    m->subject_end = s + ls;
    m->pattern_end = p + lp;
    m->depth = 0;
    m->level = 0;
    m->steps = 0;
}

// Pushes capture k (or the whole match when there are none and k is 0).
static void push_capture(Matcher *m, int k, const char *s, const char *e) {
    if (k >= m->level) {
        if (k != 0) luaL_error(m->L, "invalid capture index %%%d", k + 1);
        lua_pushlstring(m->L, s, (size_t)(e - s));
        return;
    }
    ptrdiff_t length = m->capture[k].length;
    if (length == CAPTURE_OPEN) luaL_error(m->L, "unfinished capture");
    if (length == CAPTURE_POSITION) {
        lua_pushinteger(m->L, (lua_Integer)(m->capture[k].start - m->subject) + 1);
    } else {
        lua_pushlstring(m->L, m->capture[k].start, (size_t)length);
    }
}

static int push_captures(Matcher *m, const char *s, const char *e, int whole) {
    int n = (m->level == 0 && whole) ? 1 : m->level;
    luaL_checkstack(m->L, n, "too many captures");
    for (int k = 0; k < n; k++) push_capture(m, k, s, e);
    return n;
}

static int has_specials(const char *p, size_t lp) {
    for (size_t i = 0; i < lp; i++) {
        if (strchr(SPECIALS, p[i]) != NULL) return 1;
    }
    return 0;
}

// string.find and string.match.
static int find_or_match(lua_State *L, int find) {
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = clua_start_position(luaL_optinteger(L, 3, 1), ls);
    if (init > ls + 1) {
        luaL_pushfail(L);
        return 1;
    }
    if (find && (lua_toboolean(L, 4) || !has_specials(p, lp))) return clua_plain_find(L, s, ls, p, lp, init);
    Matcher m;
    const char *from = s + init - 1;
    int anchored = lp > 0 && *p == '^';
    if (anchored) {
        p++;
        lp--;
    }
    start(&m, L, s, ls, p, lp);
    do {
        m.level = 0;
        m.depth = 0;
        const char *end = match_here(&m, from, p);
        if (end != NULL) {
            if (find) {
                lua_pushinteger(L, (lua_Integer)(from - s) + 1);
                lua_pushinteger(L, (lua_Integer)(end - s));
                return push_captures(&m, NULL, NULL, 0) + 2;
            }
            return push_captures(&m, from, end, 1);
        }
    } while (from++ < m.subject_end && !anchored);
    luaL_pushfail(L);
    return 1;
}

static int pattern_find(lua_State *L) { return find_or_match(L, 1); }
static int pattern_match(lua_State *L) { return find_or_match(L, 0); }

// The state of a gmatch iterator, kept in a userdata beside the subject and pattern
// (upvalues, so the pointers stay valid).
typedef struct GmatchState {
    size_t position;  // offset of the next search
    ptrdiff_t last;  // end offset of the last match, -1 before the first
} GmatchState;

static int gmatch_next(lua_State *L) {
    size_t ls, lp;
    const char *s = lua_tolstring(L, lua_upvalueindex(1), &ls);
    const char *p = lua_tolstring(L, lua_upvalueindex(2), &lp);
    GmatchState *g = (GmatchState *)lua_touserdata(L, lua_upvalueindex(3));
    Matcher m;
    start(&m, L, s, ls, p, lp);
    for (const char *from = s + g->position; from <= m.subject_end; from++) {
        m.level = 0;
        m.depth = 0;
        const char *end = match_here(&m, from, p);
        // An empty match right where the last one ended is skipped (manual §6.4.1).
        if (end != NULL && end - s != g->last) {
            g->position = (size_t)(end - s);
            g->last = end - s;
            return push_captures(&m, from, end, 1);
        }
    }
    g->position = ls + 1;
    return 0;
}

static int pattern_gmatch(lua_State *L) {
    size_t ls;
    luaL_checklstring(L, 1, &ls);
    luaL_checkstring(L, 2);
    size_t init = clua_start_position(luaL_optinteger(L, 3, 1), ls);
    lua_settop(L, 2);
    GmatchState *g = (GmatchState *)lua_newuserdatauv(L, sizeof(GmatchState), 0);
    g->position = init > ls + 1 ? ls + 1 : init - 1;
    g->last = -1;
    lua_pushcclosure(L, gmatch_next, 3);
    return 1;
}

// Appends the replacement of one gsub match (string, table or function) to b.
static void add_replacement(Matcher *m, luaL_Buffer *b, const char *s, const char *e, int kind) {
    lua_State *L = m->L;
    if (kind == LUA_TSTRING || kind == LUA_TNUMBER) {
        size_t l;
        const char *r = lua_tolstring(L, 3, &l);
        for (size_t i = 0; i < l; i++) {
            if (r[i] != ESCAPE) {
                luaL_addchar(b, r[i]);
                continue;
            }
            i++;
            if (i < l && r[i] == ESCAPE) {
                luaL_addchar(b, ESCAPE);
            } else if (i < l && isdigit((unsigned char)r[i])) {
                if (r[i] == '0') {
                    luaL_addlstring(b, s, (size_t)(e - s));
                } else {
                    push_capture(m, r[i] - '1', s, e);
                    luaL_tolstring(L, -1, NULL);
                    lua_remove(L, -2);
                    luaL_addvalue(b);
                }
            } else {
                luaL_error(L, "invalid use of '%c' in replacement string", ESCAPE);
            }
        }
        return;
    }
    if (kind == LUA_TFUNCTION) {
        lua_pushvalue(L, 3);
        int n = push_captures(m, s, e, 1);
        lua_call(L, n, 1);
    } else {
        push_capture(m, 0, s, e);
        lua_gettable(L, 3);
    }
    if (!lua_toboolean(L, -1)) {
        lua_pop(L, 1);
        luaL_addlstring(b, s, (size_t)(e - s));
    } else if (!lua_isstring(L, -1)) {
        luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    } else {
        luaL_addvalue(b);
    }
}

static int pattern_gsub(lua_State *L) {
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    int kind = lua_type(L, 3);
    lua_Integer max = luaL_optinteger(L, 4, (lua_Integer)ls + 1);
    luaL_argexpected(L, kind == LUA_TNUMBER || kind == LUA_TSTRING || kind == LUA_TFUNCTION || kind == LUA_TTABLE,
                     3, "string/function/table");
    int anchored = lp > 0 && *p == '^';
    if (anchored) {
        p++;
        lp--;
    }
    Matcher m;
    start(&m, L, s, ls, p, lp);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    const char *from = s;
    const char *last = NULL;  // an empty match where the last one ended does not count
    lua_Integer count = 0;
    while (count < max) {
        m.level = 0;
        m.depth = 0;
        const char *end = match_here(&m, from, p);
        if (end != NULL && end != last) {
            count++;
            add_replacement(&m, &b, from, end, kind);
            from = last = end;
        } else if (from < m.subject_end) {
            luaL_addchar(&b, *from++);
        } else {
            break;
        }
        if (anchored) break;
    }
    luaL_addlstring(&b, from, (size_t)(m.subject_end - from));
    luaL_pushresult(&b);
    lua_pushinteger(L, count);
    return 2;
}

void clua_install_patterns(lua_State *L, int idx) {
    static const luaL_Reg functions[] = {
        {"find", pattern_find}, {"match", pattern_match}, {"gmatch", pattern_gmatch}, {"gsub", pattern_gsub},
        {NULL, NULL},
    };
    for (const luaL_Reg *f = functions; f->name; f++) {
        lua_pushcfunction(L, f->func);
        lua_setfield(L, idx, f->name);
    }
}
