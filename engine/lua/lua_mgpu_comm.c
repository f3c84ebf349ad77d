/* lua_mgpu_comm.c - communicators of the rank API: mgpu.comm(), split,
 * every collective and send/recv with an optional stream, barrier, group
 * calls, and the flight recorder's entries. Counts come from the tensors,
 * so a script names buffers, not sizes: NCCL's count is the send tensor's
 * for all_reduce/all_gather/broadcast/reduce, the receive tensor's for
 * reduce_scatter, and send:count()/size for alltoall. */
#include "lua/lua_mgpu_internal.h"
#include "mgpu/race.h"
#include <stdio.h>
#include <string.h>

#define WORLD_KEY "mgpu.world"

static void name_comm_stream(lua_State *L, mgpu_comm *c);

static lm_comm *check_comm(lua_State *L, int idx)
{
    lm_comm *c = luaL_checkudata(L, idx, LM_COMM);
    if (!c->c) luaL_error(L, "this communicator was destroyed");
    return c;
}

static void push_comm(lua_State *L, mgpu_comm *c, int owned)
{
    lm_comm *u = lua_newuserdatauv(L, sizeof *u, 0);
    memset(u, 0, sizeof *u);
    u->c = c;
    u->owned = owned;
    luaL_setmetatable(L, LM_COMM);
}

/* mgpu.comm() -> the world communicator (the same object every call) */
static int l_comm_world(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, WORLD_KEY) != LUA_TNIL) return 1;
    lua_pop(L, 1);
    lm_ctx *ctx = lm_ctx_get(L);
    if (!ctx->host.world_comm) return luaL_error(L, "mgpu.comm: this host runs no communicators");
    mgpu_comm *c = NULL;
    if (ctx->host.world_comm(ctx->host.ctx, &c) != MGPU_OK) return mgpu_lua_raise_engine(L, "mgpu.comm");
    push_comm(L, c, 0);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, WORLD_KEY);
    return 1;
}

/* __gc, __close: now, or when the calls and the group using it let go */
static int l_comm_gc(lua_State *L)
{
    lm_comm_release(luaL_checkudata(L, 1, LM_COMM));
    return 0;
}

static int l_comm_destroy(lua_State *L)
{
    lm_comm *c = check_comm(L, 1);
    if (!c->owned) return luaL_error(L, "comm:destroy: the world communicator belongs to the runtime");
    if (c->pins > 0)
        return luaL_error(L, "comm:destroy: communicator %s is in use by a call or an mgpu.group that has not "
                             "ended (a group's calls run at its end); destroy it after mgpu.group returns",
                          mgpu_comm_name(c->c));
    mgpu_comm *cc = c->c;
    c->c = NULL;
    if (mgpu_comm_destroy(cc) != MGPU_OK) return mgpu_lua_raise_engine(L, "comm:destroy");
    return 0;
}

static int l_comm_rank(lua_State *L)
{
    lua_pushinteger(L, mgpu_comm_rank(check_comm(L, 1)->c));
    return 1;
}

static int l_comm_size(lua_State *L)
{
    lua_pushinteger(L, mgpu_comm_size(check_comm(L, 1)->c));
    return 1;
}

static int l_comm_name(lua_State *L)
{
    lua_pushstring(L, mgpu_comm_name(check_comm(L, 1)->c));
    return 1;
}

static int l_comm_backend(lua_State *L)
{
    lua_pushstring(L, mgpu_comm_backend_name(check_comm(L, 1)->c));
    return 1;
}

/* comm:stream() -> the communicator's own stream */
static int l_comm_stream(lua_State *L)
{
    lua_settop(L, 1);
    lm_comm *c = lm_pin_comm(L, lm_frame_open(L), 1); /* the new value's allocation may run a finalizer */
    name_comm_stream(L, c->c);
    char label[64];
    const char *n = mgpu_comm_name(c->c);
    if (!n || strcmp(n, "world") == 0) snprintf(label, sizeof label, "the comm stream");
    else snprintf(label, sizeof label, "the comm stream of %.40s", n);
    mgpu_race_label_stream(mgpu_comm_stream(c->c), label);
    lm_push_borrowed_stream(L, mgpu_comm_stream(c->c), "comm", 1);
    return 1; /* the frame (below) closes as the call returns */
}

/* comm:split(color, key [, name]) -> comm, or nil for color nil / < 0 */
static int l_comm_split(lua_State *L)
{
    int color = lm_opt_int(L, 2, "comm:split", "color", MGPU_SPLIT_NOCOLOR, LM_INT_LO, LM_INT_HI);
    if (color < 0) color = MGPU_SPLIT_NOCOLOR;
    int has_key = !lua_isnoneornil(L, 3);
    int key = has_key ? lm_check_int(L, 3, "comm:split", "key", LM_INT_LO, LM_INT_HI) : 0;
    const char *name = lua_isnoneornil(L, 4) ? NULL : lm_check_name(L, 4, "comm:split", "the name");
    lua_settop(L, 4);
    lm_comm *p = lm_pin_comm(L, lm_frame_open(L), 1);
    if (!has_key) key = mgpu_comm_rank(p->c);
    mgpu_comm *child = NULL;
    if (mgpu_comm_split(p->c, color, key, name, &child) != MGPU_OK) return mgpu_lua_raise_engine(L, "comm:split");
    if (!child) {
        lua_pushnil(L);
        return 1;
    }
    push_comm(L, child, 1);
    return 1;
}

/* comm:async_error() -> nil while healthy, else the message */
static int l_comm_async_error(lua_State *L)
{
    if (mgpu_comm_async_error(check_comm(L, 1)->c) == MGPU_OK) lua_pushnil(L);
    else lua_pushstring(L, mgpu_error_message());
    return 1;
}

/* comm:flight([max]) -> {{seq=, op=, count=, dtype=, state=, peer=, where=}, ...} oldest first */
static int l_comm_flight(lua_State *L)
{
    lua_Integer max = luaL_optinteger(L, 2, 16);
    if (max < 1 || max > 4096) return luaL_error(L, "comm:flight: max must be 1..4096");
    lua_settop(L, 2);
    lm_comm *c = lm_pin_comm(L, lm_frame_open(L), 1);
    mgpu_flight_entry *e = lua_newuserdatauv(L, sizeof *e * (size_t)max, 0); /* collected with the call */
    int n = mgpu_comm_flight_entries(c->c, e, (int)max);
    static const char *const states[] = {"enqueued", "started", "completed", "failed"};
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_createtable(L, 0, 6);
        lua_pushinteger(L, (lua_Integer)e[i].seq);
        lua_setfield(L, -2, "seq");
        lua_pushstring(L, mgpu_coll_name(e[i].op));
        lua_setfield(L, -2, "op");
        lua_pushinteger(L, (lua_Integer)e[i].count);
        lua_setfield(L, -2, "count");
        lua_pushstring(L, mgpu_dtype_name(e[i].dtype));
        lua_setfield(L, -2, "dtype");
        lua_pushstring(L, (unsigned)e[i].state < 4 ? states[e[i].state] : "?");
        lua_setfield(L, -2, "state");
        if (e[i].root_or_peer >= 0) {
            lua_pushinteger(L, e[i].root_or_peer);
            lua_setfield(L, -2, "peer");
        }
        if (e[i].where[0]) {
            lua_pushstring(L, e[i].where);
            lua_setfield(L, -2, "where");
        }
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/*--- Collectives -------------------------------------------------------------*/

/* The arguments after the tensors, in any order: an op name, a root/peer
 * integer, a stream; nils are skipped. Read before any pointer is taken. */
typedef struct coll_opts {
    mgpu_redop op;
    int have_root, root;
    int stream_idx;       /* 0: the default stream */
} coll_opts;

static void parse_opts(lua_State *L, int first, int last, const char *fn, coll_opts *o)
{
    o->op = MGPU_SUM;
    o->have_root = 0;
    o->root = -1;
    o->stream_idx = 0;
    for (int i = first; i <= last; i++) {
        int t = lua_type(L, i);
        if (t == LUA_TNIL) continue;
        if (t == LUA_TSTRING) {
            int op = mgpu_redop_parse(lua_tostring(L, i));
            if (op < 0)
                luaL_error(L, "%s: '%s' is not a reduction (sum, prod, max, min, avg)", fn, lua_tostring(L, i));
            o->op = (mgpu_redop)op;
        } else if (t == LUA_TNUMBER) {
            if (!lua_isinteger(L, i)) luaL_error(L, "%s: a root or peer rank must be an integer", fn);
            o->have_root = 1;
            o->root = lm_int_in(L, lua_tointeger(L, i), fn, "rank", 0, LM_INT_HI);
        } else if (lm_is_stream(L, i)) {
            o->stream_idx = i;
        } else {
            luaL_error(L, "%s: argument #%d: expected an op name, a rank or a stream, got %s", fn, i - 1,
                       luaL_typename(L, i));
        }
    }
}

/* One collective's or send/recv's call: its communicator, tensors and
 * stream, pinned by its frame (and by the open group, if any, until it
 * ends: the backend runs a grouped call then). */
typedef struct coll_call {
    lm_frame *f;
    lm_comm *c;
    lm_tensor *send, *recv;
    coll_opts o;
    mgpu_stream *stream;
    char where[64];       /* the script's line, for the flight recorder */
} coll_call;

/* comm:OP(send [, recv] [, options...]): recv is at 3 when it is a tensor
 * (else in place); `p2p` calls have one tensor. */
static void coll_call_open(lua_State *L, const char *fn, int p2p, coll_call *k)
{
    int has_recv = !p2p && lm_is_tensor(L, 3);
    int top = lua_gettop(L);
    parse_opts(L, has_recv ? 4 : 3, top, fn, &k->o);
    /* the script's line: "train.lua:31: " less the colon */
    luaL_where(L, 1);
    size_t wl = 0;
    const char *w = lua_tolstring(L, -1, &wl);
    snprintf(k->where, sizeof k->where, "%.*s", (int)(wl >= 2 ? wl - 2 : 0), w ? w : "");
    lua_settop(L, top);
    k->f = lm_frame_open(L);
    k->c = lm_pin_comm(L, k->f, 1);
    k->send = lm_pin_tensor(L, k->f, 2);
    k->recv = has_recv ? lm_pin_tensor(L, k->f, 3) : k->send;
    k->stream = lm_pin_stream(L, k->f, k->o.stream_idx);
    if (has_recv && k->recv->t.dtype != k->send->t.dtype)
        luaL_error(L, "%s: send is %s, recv is %s; both must have the same dtype", fn,
                   mgpu_dtype_name(k->send->t.dtype), mgpu_dtype_name(k->recv->t.dtype));
}

/* comm:barrier([options...]): no tensor. */
static void barrier_call_open(lua_State *L, coll_call *k)
{
    int top = lua_gettop(L);
    parse_opts(L, 2, top, "comm:barrier", &k->o);
    luaL_where(L, 1);
    size_t wl = 0;
    const char *w = lua_tolstring(L, -1, &wl);
    snprintf(k->where, sizeof k->where, "%.*s", (int)(wl >= 2 ? wl - 2 : 0), w ? w : "");
    lua_settop(L, top);
    k->f = lm_frame_open(L);
    k->c = lm_pin_comm(L, k->f, 1);
    k->send = k->recv = NULL;
    k->stream = lm_pin_stream(L, k->f, k->o.stream_idx);
}

/*--- Timeline spans of collectives --------------------------------------------*/

#define NO_SIZE ((size_t)-1)

static void name_comm_stream(lua_State *L, mgpu_comm *c)
{
    char name[24];
    const char *n = mgpu_comm_name(c);
    if (!n || strcmp(n, "world") == 0) snprintf(name, sizeof name, "comm");
    else snprintf(name, sizeof name, "comm %s", n);
    lm_span_name_stream(L, mgpu_comm_stream(c), name);
}

/* Inside mgpu.group the calls only queue: NCCL launches them all at the
 * group's end. So a group gets one span per stream it touched, begun at
 * its first call there and ended after the group (l_group). */
static void group_add(lua_State *L, lm_ctx *ctx, mgpu_stream *s, const char *op)
{
    int known = 0;
    for (int i = 0; i < ctx->group_n; i++) known |= ctx->group[i].s == s;
    if (!known && ctx->group_n < LM_GROUP_STREAMS) {
        ctx->group[ctx->group_n].s = s;
        ctx->group[ctx->group_n++].token = lm_span_begin(L, s, MGPU_SPAN_COLLECTIVE, "group");
    }
    size_t used = strlen(ctx->group_ops);
    if (!strstr(ctx->group_ops, op) && used + strlen(op) + 2 < sizeof ctx->group_ops)
        snprintf(ctx->group_ops + used, sizeof ctx->group_ops - used, "%s%s", used ? "+" : "", op);
}

static void group_close(lua_State *L, lm_ctx *ctx, mgpu_result r)
{
    char name[48];
    snprintf(name, sizeof name, "group %s", ctx->group_ops);
    for (int i = 0; i < ctx->group_n; i++) {
        if (ctx->spans) mgpu_spans_rename(ctx->spans, ctx->group[i].token, name);
        lm_span_end(L, ctx->group[i].token, r);
    }
    ctx->group_n = 0;
    ctx->group_ops[0] = '\0';
}

/* The span of one collective or send/recv on its stream ("all_reduce 4
 * MiB"); inside a group, what the call pins is held to the group's end. */
static int coll_begin(lua_State *L, coll_call *k, const char *op, size_t bytes)
{
    mgpu_comm *c = k->c->c;
    mgpu_stream *s = k->stream;
    lm_group_hold(L, k->f);
    mgpu_comm_set_callsite(k->where);
    lm_ctx *ctx = lm_ctx_get(L);
    if (!ctx->spans) return 0;
    if (s == mgpu_comm_stream(c)) name_comm_stream(L, c);
    if (ctx->group_depth > 0) {
        group_add(L, ctx, s, op);
        return 0;
    }
    char name[48], size[24];
    if (bytes == NO_SIZE) snprintf(name, sizeof name, "%s", op);
    else snprintf(name, sizeof name, "%s %s", op, lm_size_label(bytes, size, sizeof size));
    return lm_span_begin(L, s, MGPU_SPAN_COLLECTIVE, name);
}

static int finish(lua_State *L, int token, mgpu_result r, const char *fn)
{
    lm_span_end(L, token, r);
    if (r != MGPU_OK) return mgpu_lua_raise_engine(L, fn);
    return 0;
}

#define T(x) (x)->t.buf, (x)->t.offset

static int l_all_reduce(lua_State *L)
{
    coll_call k;
    coll_call_open(L, "comm:all_reduce", 0, &k);
    lm_tensor *s = k.send, *r = k.recv;
    if (r->t.count != s->t.count)
        return luaL_error(L, "comm:all_reduce: send has %I elements, recv %I; they must match",
                          (lua_Integer)s->t.count, (lua_Integer)r->t.count);
    int tok = coll_begin(L, &k, "all_reduce", mgpu_tensor_bytes(&s->t));
    return finish(L, tok, mgpu_all_reduce(k.c->c, T(s), T(r), s->t.count, s->t.dtype, k.o.op, k.stream),
                  "comm:all_reduce");
}

static int l_all_gather(lua_State *L)
{
    coll_call k;
    coll_call_open(L, "comm:all_gather", 0, &k);
    lm_tensor *s = k.send, *r = k.recv;
    size_t n = (size_t)mgpu_comm_size(k.c->c);
    if (r->t.count != s->t.count * n)
        return luaL_error(L, "comm:all_gather: recv needs size x send = %I elements, has %I",
                          (lua_Integer)(s->t.count * n), (lua_Integer)r->t.count);
    int tok = coll_begin(L, &k, "all_gather", mgpu_tensor_bytes(&r->t));
    return finish(L, tok, mgpu_all_gather(k.c->c, T(s), T(r), s->t.count, s->t.dtype, k.stream), "comm:all_gather");
}

static int l_reduce_scatter(lua_State *L)
{
    coll_call k;
    coll_call_open(L, "comm:reduce_scatter", 0, &k);
    lm_tensor *s = k.send, *r = k.recv;
    size_t n = (size_t)mgpu_comm_size(k.c->c);
    if (s->t.count != r->t.count * n)
        return luaL_error(L, "comm:reduce_scatter: send needs size x recv = %I elements, has %I",
                          (lua_Integer)(r->t.count * n), (lua_Integer)s->t.count);
    int tok = coll_begin(L, &k, "reduce_scatter", mgpu_tensor_bytes(&s->t));
    return finish(L, tok, mgpu_reduce_scatter(k.c->c, T(s), T(r), r->t.count, s->t.dtype, k.o.op, k.stream),
                  "comm:reduce_scatter");
}

static int l_broadcast(lua_State *L)
{
    coll_call k;
    coll_call_open(L, "comm:broadcast", 0, &k);
    lm_tensor *s = k.send, *r = k.recv;
    if (!k.o.have_root) return luaL_error(L, "comm:broadcast(send, recv, root [, stream]) needs a root rank");
    if (r->t.count != s->t.count)
        return luaL_error(L, "comm:broadcast: send has %I elements, recv %I; they must match",
                          (lua_Integer)s->t.count, (lua_Integer)r->t.count);
    int tok = coll_begin(L, &k, "broadcast", mgpu_tensor_bytes(&s->t));
    return finish(L, tok, mgpu_broadcast(k.c->c, T(s), T(r), s->t.count, s->t.dtype, k.o.root, k.stream),
                  "comm:broadcast");
}

/* comm:multicast(send [, recv], root [, stream]): a broadcast through a
 * CUDA multicast object on the NVSwitches (mgpu_broadcast_multicast; the
 * sim only, the NCCL backend refuses). */
static int l_multicast(lua_State *L)
{
    coll_call k;
    coll_call_open(L, "comm:multicast", 0, &k);
    lm_tensor *s = k.send, *r = k.recv;
    if (!k.o.have_root) return luaL_error(L, "comm:multicast(send, recv, root [, stream]) needs a root rank");
    if (r->t.count != s->t.count)
        return luaL_error(L, "comm:multicast: send has %I elements, recv %I; they must match",
                          (lua_Integer)s->t.count, (lua_Integer)r->t.count);
    int tok = coll_begin(L, &k, "multicast", mgpu_tensor_bytes(&s->t));
    return finish(L, tok, mgpu_broadcast_multicast(k.c->c, T(s), T(r), s->t.count, s->t.dtype, k.o.root, k.stream),
                  "comm:multicast");
}

static int l_reduce(lua_State *L)
{
    coll_call k;
    coll_call_open(L, "comm:reduce", 0, &k);
    lm_tensor *s = k.send, *r = k.recv;
    if (!k.o.have_root) return luaL_error(L, "comm:reduce(send, recv, op, root [, stream]) needs a root rank");
    if (r->t.count != s->t.count)
        return luaL_error(L, "comm:reduce: send has %I elements, recv %I; they must match", (lua_Integer)s->t.count,
                          (lua_Integer)r->t.count);
    int tok = coll_begin(L, &k, "reduce", mgpu_tensor_bytes(&s->t));
    return finish(L, tok, mgpu_reduce(k.c->c, T(s), T(r), s->t.count, s->t.dtype, k.o.op, k.o.root, k.stream),
                  "comm:reduce");
}

static int l_alltoall(lua_State *L)
{
    coll_call k;
    coll_call_open(L, "comm:alltoall", 0, &k);
    lm_tensor *s = k.send, *r = k.recv;
    size_t n = (size_t)mgpu_comm_size(k.c->c);
    if (s->t.count % n || r->t.count != s->t.count)
        return luaL_error(L, "comm:alltoall: send and recv need the same count, a multiple of the size %d "
                             "(send %I, recv %I)", (int)n, (lua_Integer)s->t.count, (lua_Integer)r->t.count);
    int tok = coll_begin(L, &k, "alltoall", mgpu_tensor_bytes(&s->t));
    return finish(L, tok, mgpu_alltoall(k.c->c, T(s), T(r), s->t.count / n, s->t.dtype, k.stream), "comm:alltoall");
}

/* comm:send(t, peer [, stream]) and comm:recv(t, peer [, stream]) */
static int p2p(lua_State *L, int is_send)
{
    const char *fn = is_send ? "comm:send" : "comm:recv";
    coll_call k;
    coll_call_open(L, fn, 1, &k);
    lm_tensor *t = k.send;
    if (!k.o.have_root) return luaL_error(L, "%s(t, peer [, stream]) needs the peer's rank", fn);
    int tok = coll_begin(L, &k, is_send ? "send" : "recv", mgpu_tensor_bytes(&t->t));
    if (is_send) return finish(L, tok, mgpu_send(k.c->c, T(t), t->t.count, t->t.dtype, k.o.root, k.stream), fn);
    return finish(L, tok, mgpu_recv(k.c->c, T(t), t->t.count, t->t.dtype, k.o.root, k.stream), fn);
}

static int l_send(lua_State *L) { return p2p(L, 1); }
static int l_recv(lua_State *L) { return p2p(L, 0); }

static int l_barrier(lua_State *L)
{
    coll_call k;
    barrier_call_open(L, &k);
    int tok = coll_begin(L, &k, "barrier", NO_SIZE);
    return finish(L, tok, mgpu_barrier(k.c->c, k.stream), "comm:barrier");
}

/* mgpu.group(fn, ...): fn's collectives and send/recv form one group
 * (ncclGroupStart/End); the group is closed even when fn raises. */
static int l_group(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lm_ctx *ctx = lm_ctx_get(L);
    if (mgpu_group_start() != MGPU_OK) return mgpu_lua_raise_engine(L, "mgpu.group");
    ctx->group_depth++;
    int st = lua_pcall(L, lua_gettop(L) - 1, 0, 0);
    mgpu_result r = mgpu_group_end();
    /* nested groups are one NCCL group: the outermost ends the spans, and
     * its calls have run: what they pinned may go (the engine's message
     * kept, as freeing may touch it) */
    if (--ctx->group_depth == 0) {
        char why[512] = "";
        if (r != MGPU_OK) snprintf(why, sizeof why, "%s", mgpu_error_message());
        lm_group_release(L, ctx);
        if (r != MGPU_OK) mgpu_fail(r, "%s", why);
        group_close(L, ctx, st == LUA_OK ? r : MGPU_ERR_INVALID);
    }
    if (st != LUA_OK) return lua_error(L); /* the function's error first: it is the cause */
    if (r != MGPU_OK) return mgpu_lua_raise_engine(L, "mgpu.group");
    return 0;
}

static int l_comm_tostring(lua_State *L)
{
    lm_comm *c = luaL_checkudata(L, 1, LM_COMM);
    if (!c->c) lua_pushstring(L, "comm (destroyed)");
    else
        lua_pushfstring(L, "comm %s (rank %d of %d, %s)", mgpu_comm_name(c->c), mgpu_comm_rank(c->c),
                        mgpu_comm_size(c->c), mgpu_comm_backend_name(c->c));
    return 1;
}

static int open_protected(lua_State *L)
{
    lm_ctx_get(L); /* raises when the rank API is missing */
    static const luaL_Reg methods[] = {
        {"rank", l_comm_rank},
        {"size", l_comm_size},
        {"name", l_comm_name},
        {"backend", l_comm_backend},
        {"stream", l_comm_stream},
        {"split", l_comm_split},
        {"async_error", l_comm_async_error},
        {"flight", l_comm_flight},
        {"destroy", l_comm_destroy},
        {"all_reduce", l_all_reduce},
        {"all_gather", l_all_gather},
        {"reduce_scatter", l_reduce_scatter},
        {"broadcast", l_broadcast},
        {"multicast", l_multicast},
        {"reduce", l_reduce},
        {"alltoall", l_alltoall},
        {"send", l_send},
        {"recv", l_recv},
        {"barrier", l_barrier},
        {NULL, NULL},
    };
    static const luaL_Reg meta[] = {
        {"__gc", l_comm_gc}, {"__close", l_comm_gc}, {"__tostring", l_comm_tostring}, {NULL, NULL},
    };
    lm_new_class(L, LM_COMM, methods, meta);
    lua_getglobal(L, "mgpu");
    lua_pushcfunction(L, l_comm_world);
    lua_setfield(L, -2, "comm");
    lua_pushcfunction(L, l_group);
    lua_setfield(L, -2, "group");
    lua_pop(L, 1);
    return 0;
}

mgpu_result mgpu_lua_open_comm_api(mgpu_lua *sb)
{
    lua_State *L = mgpu_lua_state(sb);
    lua_pushcfunction(L, open_protected);
    MGPU_CHECK(mgpu_lua_pcall(sb, 0, 0));
    return MGPU_OK;
}
