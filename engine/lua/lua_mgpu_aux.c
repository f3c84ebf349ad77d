/* lua_mgpu_aux.c - the helpers the files of the rank API share (the
 * per-state context, classes, stream arguments, timeline spans around an
 * operation); they call into no file of the API (lua_mgpu.c is the opener). */
#include "lua/lua_mgpu_internal.h"
#include "mgpu/clock.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

lm_ctx *lm_ctx_get(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, LM_CTX_KEY);
    lm_ctx *c = lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (!c) luaL_error(L, "the mgpu rank API is not open in this state");
    return c;
}

/* The context without raising (finalizers run while the state closes,
 * perhaps after the context's own). */
lm_ctx *lm_ctx_peek(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, LM_CTX_KEY);
    lm_ctx *c = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return c;
}

/*--- Timeline spans ----------------------------------------------------------*/

#define FLUSH_EVERY_NS 100000000ull /* the timeline pane fills in while a script runs */

const char *lm_size_label(size_t bytes, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 4) v /= 1024.0, u++;
    snprintf(buf, len, v == (double)(long long)v ? "%.0f %s" : "%.1f %s", v, unit[u]);
    return buf;
}

int lm_span_begin(lua_State *L, mgpu_stream *s, mgpu_span_kind kind, const char *name)
{
    lm_ctx *c = lm_ctx_peek(L);
    int token = 0;
    if (c && c->spans) mgpu_spans_begin(c->spans, s, kind, name, &token);
    return token;
}

void lm_span_end(lua_State *L, int token, mgpu_result r)
{
    lm_ctx *c = lm_ctx_peek(L);
    if (!c || !c->spans) return;
    if (r != MGPU_OK) {
        /* no flush here: the caller is about to raise with the engine's
         * message, which a flush could replace */
        mgpu_spans_cancel(c->spans, token);
        return;
    }
    mgpu_spans_end(c->spans, token);
    /* send what finished now and then, and before the pending cap drops
     * spans (on sim every span finishes when it is queued); not on every
     * call near the cap, where a busy GPU would make each call scan them */
    uint64_t now = mgpu_now_ns(), since = now - c->last_flush_ns;
    if (since >= FLUSH_EVERY_NS ||
        (since >= FLUSH_EVERY_NS / 100 && mgpu_spans_pending(c->spans) >= MGPU_SPANS_MAX_PENDING / 2)) {
        c->last_flush_ns = now;
        /* a timing problem must not fail the learner's operation: the
         * span is lost and counted, the work goes on */
        if (mgpu_spans_flush(c->spans, c->span_cb, c->span_cb_ctx) != MGPU_OK) mgpu_error_clear();
    }
}

void lm_span_name_stream(lua_State *L, mgpu_stream *s, const char *name)
{
    lm_ctx *c = lm_ctx_peek(L);
    if (c && c->spans && mgpu_spans_name_stream(c->spans, s, name) != MGPU_OK) mgpu_error_clear();
}

void lm_new_class(lua_State *L, const char *name, const luaL_Reg *methods, const luaL_Reg *meta)
{
    luaL_newmetatable(L, name);
    luaL_setfuncs(L, meta, 0);
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    lua_setfield(L, -2, "__index");
    lua_pushstring(L, name); /* getmetatable() gives the name; setmetatable is refused */
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
}

int lm_is_stream(lua_State *L, int idx) { return luaL_testudata(L, idx, LM_STREAM) != NULL; }

int lm_is_tensor(lua_State *L, int idx) { return luaL_testudata(L, idx, LM_TENSOR) != NULL; }

/* 0: live; 1: freed; 2: a view whose tensor was freed (lua_mgpu_internal.h) */
int lm_tensor_freed(const lm_tensor *t)
{
    if (!t->t.buf) return 1;
    for (const lm_tensor *p = t->parent; p; p = p->parent)
        if (!p->t.buf) return 2;
    return 0;
}

lm_tensor *lm_check_tensor(lua_State *L, int idx)
{
    lm_tensor *t = luaL_checkudata(L, idx, LM_TENSOR);
    int f = lm_tensor_freed(t);
    if (f == 1) luaL_error(L, "this tensor was freed");
    if (f == 2) luaL_error(L, "this view's tensor was freed (a view shares its tensor's memory)");
    return t;
}

void lm_push_borrowed_stream(lua_State *L, mgpu_stream *s, const char *label, int owner_idx)
{
    if (owner_idx) owner_idx = lua_absindex(L, owner_idx);
    lm_stream *u = lua_newuserdatauv(L, sizeof *u, 1);
    u->s = NULL;
    u->owned = 0;
    u->label = label;
    luaL_setmetatable(L, LM_STREAM);
    mgpu_stream_retain(s); /* set once nothing above can raise: __gc lets it go */
    u->s = s;
    if (owner_idx) {
        lua_pushvalue(L, owner_idx);
        lua_setiuservalue(L, -2, 1);
    }
}

/* The file's name without its folders: a learner knows "reducer.lua:41",
 * not the workspace path it was copied to. A line in the shipped library
 * (chunks "@lib/...", mgpu.import) is a helper's - nn.empty's is the same
 * for every tensor - so the line that called into it is named instead,
 * once: "train.lua:118", not "init.lua:25". */
int lm_race_site(void *ctx, const void **key, int *line, char *buf, size_t len)
{
    lua_State *L = ctx;
    lua_Debug ar;
    const char *lib_src = NULL; /* the library file being skipped, if any */
    for (int level = 1; level < 16 && lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Sl", &ar) || ar.currentline < 0) continue;
        const char *src = ar.source ? ar.source : "";
        if (!lib_src && strncmp(src, "@lib/", 5) == 0) { /* the library's own line: its caller's, if any */
            lib_src = src;
            *key = src;
            *line = ar.currentline;
            if (buf) snprintf(buf, len, "%s:%d", strrchr(src, '/') + 1, ar.currentline);
            continue;
        }
        if (lib_src && strcmp(src, lib_src) == 0) continue; /* still inside that file */
        *key = src; /* a chunk's source string lives as long as its functions */
        *line = ar.currentline;
        if (buf) {
            const char *name = ar.short_src;
            if (src[0] == '@') {
                const char *slash = strrchr(src, '/');
                name = slash ? slash + 1 : src + 1;
            }
            snprintf(buf, len, "%s:%d", name, ar.currentline);
        }
        return 1;
    }
    return lib_src != NULL;
}

/*--- Option tables --------------------------------------------------------------*/

/* A misspelt option key (seeed=) would be ignored and mean its default:
 * every key of the table at idx must be one of `known` (NULL-terminated). */
void lm_check_options(lua_State *L, int idx, const char *fn, const char *const *known)
{
    if (!lua_istable(L, idx)) return;
    idx = lua_absindex(L, idx);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1); /* the value; the key stays for lua_next */
        if (lua_type(L, -1) != LUA_TSTRING) {
            luaL_error(L, "%s: the options table has a %s key; options are named: %s=...", fn, luaL_typename(L, -1),
                       known[0] ? known[0] : "?");
        }
        const char *k = lua_tostring(L, -1);
        int ok = 0;
        for (const char *const *p = known; *p && !ok; p++) ok = strcmp(*p, k) == 0;
        if (!ok) {
            luaL_Buffer b;
            luaL_buffinit(L, &b);
            for (const char *const *p = known; *p; p++) {
                if (p != known) luaL_addstring(&b, ", ");
                luaL_addstring(&b, *p);
            }
            luaL_pushresult(&b);
            luaL_error(L, "%s: unknown option '%s' (the options: %s)", fn, k, lua_tostring(L, -1));
        }
    }
}

/* The number option `key` of the options table at idx, dflt when absent. A
 * string there read "bad argument #-2 to 'fill'" (the stack slot of a
 * field): the option is named instead. With `finite`, nan and inf are
 * refused too, as is a number past a float's range (an op's scalars are
 * floats): an eps of 0/0 makes every value NaN with no word. */
lua_Number lm_opt_num_field(lua_State *L, int idx, const char *key, const char *fn, lua_Number dflt, int finite)
{
    if (!lua_istable(L, idx)) return dflt;
    lua_getfield(L, idx, key);
    lua_Number v = dflt;
    if (!lua_isnil(L, -1)) {
        int ok = 0;
        v = lua_tonumberx(L, -1, &ok);
        if (!ok) luaL_error(L, "%s: option '%s' must be a number, got %s", fn, key, luaL_typename(L, -1));
        if (finite && !(isfinite(v) && fabs(v) <= 3.4028234663852886e38))
            luaL_error(L, "%s: option '%s' must be a finite number, got %s", fn, key,
                       isnan(v) ? "nan" : isinf(v) ? (v > 0 ? "inf" : "-inf") : lua_pushfstring(L, "%f", v));
    }
    lua_pop(L, 1);
    return v;
}

/* A name a report prints (a tensor's, a stream's, a communicator's): race
 * reports and errors print it as it is, so an ESC sequence in it reached
 * the terminal raw. Control characters (C0, DEL, and C1 as UTF-8, U+0080
 * to U+009F: CSI is one) are refused here, where the name comes in. */
const char *lm_check_name(lua_State *L, int idx, const char *fn, const char *what)
{
    size_t len;
    const char *s = luaL_checklstring(L, idx, &len);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        int c1 = c == 0xC2 && i + 1 < len && (unsigned char)s[i + 1] >= 0x80 && (unsigned char)s[i + 1] <= 0x9F;
        if (c < 0x20 || c == 0x7F || c1) {
            char ch[16]; /* luaL_error has no %X */
            snprintf(ch, sizeof ch, "%s%02X", c1 ? "U+00" : "0x", c1 ? (unsigned char)s[i + 1] : c);
            luaL_error(L, "%s: %s holds a control character (%s at byte %d); a name is printed in reports, so it "
                          "must be plain text", fn, what, ch, (int)i + 1);
        }
    }
    return s;
}

/*--- Integers -------------------------------------------------------------------*/

/* A C int taken from a Lua integer (64 bits) is range-checked first: a cast
 * alone reads 2^32 + 1 as 1 and 2^40 as 0 - a stride, a device or a peer
 * the script never asked for, with no error. */
int lm_int_in(lua_State *L, lua_Integer v, const char *fn, const char *what, lua_Integer lo, lua_Integer hi)
{
    if (v < lo || v > hi) luaL_error(L, "%s: %s %I is out of range (%I..%I)", fn, what, v, lo, hi);
    return (int)v;
}

int lm_check_int(lua_State *L, int idx, const char *fn, const char *what, lua_Integer lo, lua_Integer hi)
{
    return lm_int_in(L, luaL_checkinteger(L, idx), fn, what, lo, hi);
}

int lm_opt_int(lua_State *L, int idx, const char *fn, const char *what, int dflt, lua_Integer lo, lua_Integer hi)
{
    return lua_isnoneornil(L, idx) ? dflt : lm_check_int(L, idx, fn, what, lo, hi);
}

int lm_opt_int_field(lua_State *L, int idx, const char *key, const char *fn, int dflt, lua_Integer lo, lua_Integer hi)
{
    if (!lua_istable(L, idx)) return dflt;
    lua_getfield(L, idx, key);
    int v = dflt;
    if (!lua_isnil(L, -1)) {
        int ok = 0;
        lua_Integer i = lua_tointegerx(L, -1, &ok);
        if (!ok)
            luaL_error(L, "%s: option '%s' must be an integer, got %s", fn, key,
                       lua_type(L, -1) == LUA_TNUMBER ? lua_pushfstring(L, "%f", lua_tonumber(L, -1))
                                                      : luaL_typename(L, -1));
        v = lm_int_in(L, i, fn, key, lo, hi);
    }
    lua_pop(L, 1);
    return v;
}
