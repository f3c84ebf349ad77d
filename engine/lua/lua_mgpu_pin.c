/* lua_mgpu_pin.c - pins: what keeps the tensors, streams and communicators
 * a binding holds alive while Lua code runs in its middle (an options
 * table's __index, a finalizer that any allocation may start, the body of
 * mgpu.group), so that code cannot free memory the binding, or a grouped
 * call the backend runs later, still uses (lua_mgpu_internal.h).
 *
 * A call's frame is a userdata marked to-be-closed on the binding's stack:
 * Lua closes it when the binding returns and when it raises, and collects
 * it (closing it then) when a coroutine that raised is never closed. The
 * frame keeps the values it pinned reachable (its user values), so no pin
 * outlives its object; a stream pin is a reference of its own. */
#include "lua/lua_mgpu_internal.h"
#include "mgpu/comm.h"
#include <stdlib.h>
#include <string.h>

/* A binding pins at most this many things (batchnorm: eight tensors and a
 * stream). */
#define FRAME_PINS 10
#define GROUP_KEEP_KEY "mgpu.group_keep" /* the open group's pinned values, kept reachable */

struct lm_frame {
    int n, closed;
    int slot;                       /* its index on the binding's stack */
    lm_pin pin[FRAME_PINS];
    int ncopies;
    lm_tensor copy[FRAME_PINS];     /* what lm_pin_tensor hands out */
};

/*--- Releasing -------------------------------------------------------------*/

void lm_tensor_release(lm_tensor *t)
{
    if (t->parent) { /* a view owns nothing */
        memset(&t->t, 0, sizeof t->t);
        return;
    }
    if (!t->t.buf) return;
    if (t->pins > 0) {
        t->held = t->t.buf; /* the last unpin frees it */
        memset(&t->t, 0, sizeof t->t);
        return;
    }
    mgpu_tensor_free(&t->t);
}

void lm_comm_release(lm_comm *c)
{
    mgpu_comm *cc = c->c;
    c->c = NULL;
    if (!cc || !c->owned) return;
    if (c->pins > 0) {
        c->held = cc;
        return;
    }
    /* from the collector (or a to-be-closed variable) a failure can only be
     * dropped: the communicator is freed either way; :destroy() reports it */
    (void)mgpu_comm_destroy(cc);
}

static void unpin(lm_pin *p)
{
    if (p->kind == 't') {
        lm_tensor *t = p->obj;
        if (--t->pins == 0 && t->held) {
            mgpu_buffer *b = t->held;
            t->held = NULL;
            mgpu_mem_free(b);
        }
    } else if (p->kind == 's') {
        mgpu_stream_destroy(p->obj); /* the pin's reference */
    } else if (p->kind == 'c') {
        lm_comm *c = p->obj;
        if (--c->pins == 0 && c->held) {
            mgpu_comm *cc = c->held;
            c->held = NULL;
            (void)mgpu_comm_destroy(cc);
        }
    }
}

static void take(lm_pin *p)
{
    if (p->kind == 't') ((lm_tensor *)p->obj)->pins++;
    else if (p->kind == 's') mgpu_stream_retain(p->obj);
    else if (p->kind == 'c') ((lm_comm *)p->obj)->pins++;
}

/* __close and __gc: once. */
static int frame_close(lua_State *L)
{
    lm_frame *f = luaL_checkudata(L, 1, LM_FRAME);
    if (f->closed) return 0;
    f->closed = 1;
    while (f->n > 0) unpin(&f->pin[--f->n]);
    return 0;
}

void lm_open_frame(lua_State *L)
{
    luaL_newmetatable(L, LM_FRAME);
    lua_pushcfunction(L, frame_close);
    lua_setfield(L, -2, "__close");
    lua_pushcfunction(L, frame_close);
    lua_setfield(L, -2, "__gc");
    lua_pushstring(L, LM_FRAME);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
}

/*--- Pinning ---------------------------------------------------------------*/

lm_frame *lm_frame_open(lua_State *L)
{
    lm_frame *f = lua_newuserdatauv(L, sizeof *f, FRAME_PINS);
    f->n = f->closed = f->ncopies = 0;
    f->slot = lua_gettop(L);
    luaL_setmetatable(L, LM_FRAME);
    lua_toclose(L, f->slot);
    return f;
}

/* Record p (already taken) and keep the value at idx reachable while it is. */
static void add(lua_State *L, lm_frame *f, lm_pin p, int idx)
{
    f->pin[f->n++] = p;
    if (idx) {
        lua_pushvalue(L, idx);
        lua_setiuservalue(L, f->slot, f->n);
    }
}

static void room(lua_State *L, lm_frame *f)
{
    if (f->n == FRAME_PINS) luaL_error(L, "internal error: a call pins more than %d values", FRAME_PINS);
}

lm_tensor *lm_pin_tensor(lua_State *L, lm_frame *f, int idx)
{
    idx = lua_absindex(L, idx);
    lm_tensor *t = lm_check_tensor(L, idx);
    room(L, f);
    lm_tensor *owner = t;
    while (owner->parent) owner = owner->parent;
    lm_pin p = {'t', owner};
    take(&p);
    add(L, f, p, idx); /* a view keeps its owner reachable (user value 1) */
    lm_tensor *copy = &f->copy[f->ncopies++];
    *copy = *t;
    copy->parent = NULL;
    copy->pins = 0;
    copy->held = NULL;
    return copy;
}

mgpu_stream *lm_pin_stream(lua_State *L, lm_frame *f, int idx)
{
    mgpu_stream *s;
    if (idx == 0 || lua_isnoneornil(L, idx)) {
        s = lm_ctx_get(L)->stream;
    } else {
        lm_stream *u = luaL_checkudata(L, idx, LM_STREAM);
        if (!u->s) luaL_error(L, "this stream was destroyed");
        s = u->s;
    }
    room(L, f);
    lm_pin p = {'s', s};
    take(&p);
    add(L, f, p, 0); /* its own reference keeps the stream */
    return s;
}

lm_comm *lm_pin_comm(lua_State *L, lm_frame *f, int idx)
{
    idx = lua_absindex(L, idx);
    lm_comm *c = luaL_checkudata(L, idx, LM_COMM);
    if (!c->c) luaL_error(L, "this communicator was destroyed");
    room(L, f);
    lm_pin p = {'c', c};
    take(&p);
    add(L, f, p, idx);
    return c;
}

/*--- Groups ----------------------------------------------------------------*/

void lm_group_hold(lua_State *L, lm_frame *f)
{
    lm_ctx *c = lm_ctx_get(L);
    if (c->group_depth <= 0) return;
    if (c->group_npins + f->n > c->group_cap) {
        int cap = c->group_cap ? 2 * c->group_cap : 32;
        while (cap < c->group_npins + f->n) cap *= 2;
        lm_pin *p = realloc(c->group_pins, sizeof *p * (size_t)cap);
        if (!p) luaL_error(L, "out of host memory holding a grouped call's tensors");
        c->group_pins = p;
        c->group_cap = cap;
    }
    /* the values stay reachable in a registry table until the group ends */
    if (lua_getfield(L, LUA_REGISTRYINDEX, GROUP_KEEP_KEY) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, GROUP_KEEP_KEY);
    }
    for (int i = 0; i < f->n; i++) {
        if (f->pin[i].kind != 's') {
            lua_getiuservalue(L, f->slot, i + 1);
            lua_pushboolean(L, 1);
            lua_rawset(L, -3);
        }
    }
    lua_pop(L, 1);
    /* taken only once nothing above can raise */
    for (int i = 0; i < f->n; i++) {
        take(&f->pin[i]);
        c->group_pins[c->group_npins++] = f->pin[i];
    }
}

void lm_group_release(lua_State *L, lm_ctx *c)
{
    while (c->group_npins > 0) unpin(&c->group_pins[--c->group_npins]);
    if (L) {
        lua_pushnil(L);
        lua_setfield(L, LUA_REGISTRYINDEX, GROUP_KEEP_KEY);
    }
}
