/* lua_mgpu.c - the `mgpu` table of the rank API: this rank's identity,
 * streams, events, copies, device sync, timing, log lines and results
 * (tensors are in lua_mgpu_tensor.c, communicators in lua_mgpu_comm.c,
 * peer access, pointer attributes and IPC in lua_mgpu_ipc.c), and opening
 * it. The helpers every file shares are in lua_mgpu_aux.c, as Lua keeps
 * lauxlib.c apart from linit.c. */
#include "lua/lua_mgpu_internal.h"
#include "mgpu/clock.h"
#include "mgpu/comm.h"
#include "mgpu/race.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* mgpu.span(name, fn [, stream]) -> fn's results: the learner's own region
 * on the stream (default: the default stream), from the work queued before
 * fn to the work fn queued there; shown as a kernel span. */
static int l_span(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_settop(L, 3);
    lm_frame *f = lm_frame_open(L); /* at 4: fn may destroy the stream */
    mgpu_stream *s = lm_pin_stream(L, f, 3);
    int token = lm_span_begin(L, s, MGPU_SPAN_KERNEL, name);
    lua_pushvalue(L, 2);
    int st = lua_pcall(L, 0, LUA_MULTRET, 0);
    /* on an error the span still ends: what fn queued before it will run */
    lm_span_end(L, token, MGPU_OK);
    if (st != LUA_OK) return lua_error(L);
    return lua_gettop(L) - 4;
}

/* An optional boolean/number/string field of an options table at idx. */
static int opt_bool_field(lua_State *L, int idx, const char *k, int dflt)
{
    if (!lua_istable(L, idx)) return dflt;
    lua_getfield(L, idx, k);
    int v = lua_isnil(L, -1) ? dflt : lua_toboolean(L, -1);
    lua_pop(L, 1);
    return v;
}

static lua_Integer opt_int_field(lua_State *L, int idx, const char *k, lua_Integer dflt)
{
    if (!lua_istable(L, idx)) return dflt;
    lua_getfield(L, idx, k);
    lua_Integer v = dflt;
    if (!lua_isnil(L, -1)) {
        int ok = 0;
        v = lua_tointegerx(L, -1, &ok);
        if (!ok) luaL_error(L, "option '%s' must be an integer, got %s", k, luaL_typename(L, -1));
    }
    lua_pop(L, 1);
    return v;
}

/*--- Streams ---------------------------------------------------------------*/

/* mgpu.stream([{device=, legacy_default=, name=}]) - name: what race
 * reports call it ("the produce stream"), else "stream N (made at x.lua:4)" */
static int l_stream_new(lua_State *L)
{
    lm_ctx *c = lm_ctx_get(L);
    if (!lua_isnoneornil(L, 1)) luaL_checktype(L, 1, LUA_TTABLE);
    static const char *const known[] = {"device", "legacy_default", "name", NULL};
    lm_check_options(L, 1, "mgpu.stream", known);
    int dev = lm_opt_int_field(L, 1, "device", "mgpu.stream", c->host.device, 0, LM_INT_HI);
    int legacy = opt_bool_field(L, 1, "legacy_default", 0);
    char label[48] = "";
    if (lua_istable(L, 1)) {
        lua_getfield(L, 1, "name");
        if (!lua_isnil(L, -1))
            snprintf(label, sizeof label, "the %.30s stream", lm_check_name(L, lua_gettop(L), "mgpu.stream", "name="));
        lua_pop(L, 1);
    }
    lm_stream *u = lua_newuserdatauv(L, sizeof *u, 1);
    memset(u, 0, sizeof *u);
    luaL_setmetatable(L, LM_STREAM);
    if (mgpu_stream_create(c->host.be, dev, legacy, &u->s) != MGPU_OK) return mgpu_lua_raise_engine(L, "mgpu.stream");
    u->owned = 1;
    u->label = legacy ? "legacy default" : "user";
    if (label[0]) mgpu_race_label_stream(u->s, label);
    return 1;
}

static lm_stream *check_stream(lua_State *L, int idx)
{
    lm_stream *s = luaL_checkudata(L, idx, LM_STREAM);
    if (!s->s) luaL_error(L, "this stream was destroyed");
    return s;
}

/* destroy, __gc, __close: this value lets its reference go (a call or a
 * group still using the stream keeps its own) */
static int l_stream_gc(lua_State *L)
{
    lm_stream *s = luaL_checkudata(L, 1, LM_STREAM);
    lm_ctx *c = lm_ctx_peek(L);
    if (s->s && s->owned && c && c->spans) mgpu_spans_forget_stream(c->spans, s->s);
    mgpu_stream *gone = s->s;
    s->s = NULL;
    if (gone) mgpu_stream_destroy(gone);
    return 0;
}

/* The stream method's stream, pinned for the call. */
static mgpu_stream *pin_self(lua_State *L)
{
    check_stream(L, 1);
    return lm_pin_stream(L, lm_frame_open(L), 1);
}

static int l_stream_synchronize(lua_State *L)
{
    lua_settop(L, 1);
    mgpu_stream *s = pin_self(L);
    if (mgpu_stream_synchronize(s) != MGPU_OK) return mgpu_lua_raise_engine(L, "stream:synchronize");
    mgpu_race_note_host_sync(mgpu_stream_backend(s), "stream:synchronize", s);
    return 0;
}

static int l_stream_query(lua_State *L)
{
    int done = 0;
    lua_settop(L, 1);
    if (mgpu_stream_query(pin_self(L), &done) != MGPU_OK) return mgpu_lua_raise_engine(L, "stream:query");
    lua_pushboolean(L, done);
    return 1;
}

static lm_event *check_event(lua_State *L, int idx);

/* stream:wait(event): work queued on the stream after this waits for it. */
static int l_stream_wait(lua_State *L)
{
    lua_settop(L, 2);
    mgpu_stream *s = pin_self(L);
    lm_event *e = check_event(L, 2); /* after the frame's allocation: nothing runs in between */
    int token = lm_span_begin(L, s, MGPU_SPAN_WAIT, "wait event");
    mgpu_result r = mgpu_stream_wait_event(s, e->e);
    lm_span_end(L, token, r);
    if (r != MGPU_OK) return mgpu_lua_raise_engine(L, "stream:wait");
    return 0;
}

static int l_stream_device(lua_State *L)
{
    lua_pushinteger(L, mgpu_stream_device(check_stream(L, 1)->s));
    return 1;
}

static int l_stream_tostring(lua_State *L)
{
    lm_stream *s = luaL_checkudata(L, 1, LM_STREAM);
    if (!s->s) lua_pushstring(L, "stream (destroyed)");
    else lua_pushfstring(L, "stream (%s, device %d)", s->label, mgpu_stream_device(s->s));
    return 1;
}

/*--- Events ----------------------------------------------------------------*/

static lm_event *check_event(lua_State *L, int idx)
{
    lm_event *e = luaL_checkudata(L, idx, LM_EVENT);
    if (!e->e) luaL_error(L, "this event was destroyed");
    return e;
}

/* mgpu.event([{timing=true, blocking=false, device=}]) */
static int l_event_new(lua_State *L)
{
    lm_ctx *c = lm_ctx_get(L);
    if (!lua_isnoneornil(L, 1)) luaL_checktype(L, 1, LUA_TTABLE);
    static const char *const known[] = {"timing", "blocking", "device", NULL};
    lm_check_options(L, 1, "mgpu.event", known);
    int timing = opt_bool_field(L, 1, "timing", 1);
    int blocking = opt_bool_field(L, 1, "blocking", 0);
    int dev = lm_opt_int_field(L, 1, "device", "mgpu.event", c->host.device, 0, LM_INT_HI);
    lm_event *e = lua_newuserdatauv(L, sizeof *e, 0);
    memset(e, 0, sizeof *e);
    luaL_setmetatable(L, LM_EVENT);
    unsigned flags = (timing ? MGPU_EVENT_TIMING : 0u) | (blocking ? MGPU_EVENT_BLOCKING_SYNC : 0u);
    if (mgpu_event_create(c->host.be, dev, flags, &e->e) != MGPU_OK) return mgpu_lua_raise_engine(L, "mgpu.event");
    e->timing = timing;
    return 1;
}

static int l_event_gc(lua_State *L)
{
    lm_event *e = luaL_checkudata(L, 1, LM_EVENT);
    if (e->e) mgpu_event_destroy(e->e);
    e->e = NULL;
    return 0;
}

/* event:record([stream]) */
static int l_event_record(lua_State *L)
{
    lua_settop(L, 2);
    mgpu_stream *s = lm_pin_stream(L, lm_frame_open(L), 2);
    lm_event *e = check_event(L, 1); /* after the frame's allocation: nothing runs in between */
    if (mgpu_event_record(e->e, s) != MGPU_OK) return mgpu_lua_raise_engine(L, "event:record");
    e->recorded = 1;
    return 0;
}

/* event:wait([stream]): the stream (default: the default stream) waits. */
static int l_event_wait(lua_State *L)
{
    lua_settop(L, 2);
    mgpu_stream *s = lm_pin_stream(L, lm_frame_open(L), 2);
    lm_event *e = check_event(L, 1);
    int token = lm_span_begin(L, s, MGPU_SPAN_WAIT, "wait event");
    mgpu_result r = mgpu_stream_wait_event(s, e->e);
    lm_span_end(L, token, r);
    if (r != MGPU_OK) return mgpu_lua_raise_engine(L, "event:wait");
    return 0;
}

static int l_event_synchronize(lua_State *L)
{
    if (mgpu_event_synchronize(check_event(L, 1)->e) != MGPU_OK) return mgpu_lua_raise_engine(L, "event:synchronize");
    mgpu_race_note_host_sync(lm_ctx_get(L)->host.be, "event:synchronize", NULL);
    return 0;
}

static int l_event_query(lua_State *L)
{
    int done = 0;
    if (mgpu_event_query(check_event(L, 1)->e, &done) != MGPU_OK) return mgpu_lua_raise_engine(L, "event:query");
    lua_pushboolean(L, done);
    return 1;
}

/* start:elapsed(stop) -> milliseconds from start to stop */
static int l_event_elapsed(lua_State *L)
{
    lm_event *a = check_event(L, 1), *b = check_event(L, 2);
    if (!a->timing || !b->timing)
        return luaL_error(L, "event:elapsed needs two timing events (mgpu.event{timing=true})");
    if (!a->recorded || !b->recorded) return luaL_error(L, "event:elapsed: record both events first");
    double ms = 0;
    if (mgpu_event_elapsed_ms(a->e, b->e, &ms) != MGPU_OK) return mgpu_lua_raise_engine(L, "event:elapsed");
    lua_pushnumber(L, ms);
    return 1;
}

static int l_event_tostring(lua_State *L)
{
    lm_event *e = luaL_checkudata(L, 1, LM_EVENT);
    lua_pushfstring(L, "event (%s%s)", e->e ? (e->timing ? "timing" : "no timing") : "destroyed",
                    e->recorded ? ", recorded" : "");
    return 1;
}

void lm_open_event(lua_State *L)
{
    static const luaL_Reg smethods[] = {
        {"synchronize", l_stream_synchronize}, {"query", l_stream_query}, {"wait", l_stream_wait},
        {"device", l_stream_device},           {"destroy", l_stream_gc},  {NULL, NULL},
    };
    static const luaL_Reg smeta[] = {
        {"__gc", l_stream_gc}, {"__close", l_stream_gc}, {"__tostring", l_stream_tostring}, {NULL, NULL},
    };
    lm_new_class(L, LM_STREAM, smethods, smeta);
    static const luaL_Reg emethods[] = {
        {"record", l_event_record}, {"wait", l_event_wait},       {"synchronize", l_event_synchronize},
        {"query", l_event_query},   {"elapsed", l_event_elapsed}, {"destroy", l_event_gc},
        {NULL, NULL},
    };
    static const luaL_Reg emeta[] = {
        {"__gc", l_event_gc}, {"__close", l_event_gc}, {"__tostring", l_event_tostring}, {NULL, NULL},
    };
    lm_new_class(L, LM_EVENT, emethods, emeta);
}

/*--- Copies, sync, time ----------------------------------------------------*/

/* mgpu.copy(dst, src [, {engine="ce"|"sm", stream=, count=, dst_offset=, src_offset=}])
 * Offsets and count are in elements; both tensors must have the same dtype. */
static int l_copy(lua_State *L)
{
    if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
    lua_settop(L, 3);
    static const char *const known[] = {"engine", "stream", "count", "dst_offset", "src_offset", NULL};
    lm_check_options(L, 3, "mgpu.copy", known);
    /* every option before any pointer: an __index may run the script */
    mgpu_copy_engine how = MGPU_COPY_CE;
    lua_Integer doff = opt_int_field(L, 3, "dst_offset", 0), soff = opt_int_field(L, 3, "src_offset", 0), n = 0;
    int count_given = 0;
    if (lua_istable(L, 3)) {
        lua_getfield(L, 3, "engine");
        const char *e = lua_isnil(L, -1) ? "ce" : luaL_checkstring(L, -1);
        if (strcmp(e, "sm") == 0) how = MGPU_COPY_SM;
        else if (strcmp(e, "ce") != 0) return luaL_error(L, "mgpu.copy: engine '%s' is not 'ce' or 'sm'", e);
        lua_pop(L, 1);
        lua_getfield(L, 3, "count");
        count_given = !lua_isnil(L, -1);
        lua_pop(L, 1);
        if (count_given) n = opt_int_field(L, 3, "count", 0);
        lua_getfield(L, 3, "stream"); /* at 4 */
    } else {
        lua_pushnil(L);
    }
    lm_frame *f = lm_frame_open(L);
    lm_tensor *dst = lm_pin_tensor(L, f, 1), *src = lm_pin_tensor(L, f, 2);
    mgpu_stream *s = lm_pin_stream(L, f, 4);
    if (dst->t.dtype != src->t.dtype)
        return luaL_error(L, "mgpu.copy moves elements of one type: dst is %s, src is %s",
                          mgpu_dtype_name(dst->t.dtype), mgpu_dtype_name(src->t.dtype));
    if (!count_given && dst->t.count != src->t.count)
        return luaL_error(L, "mgpu.copy: dst has %I elements, src %I; pass count= to copy part of one",
                          (lua_Integer)dst->t.count, (lua_Integer)src->t.count);
    if (!count_given) n = (lua_Integer)src->t.count;
    if (doff < 0 || soff < 0 || n < 0 || (size_t)soff + (size_t)n > src->t.count ||
        (size_t)doff + (size_t)n > dst->t.count)
        return luaL_error(L, "mgpu.copy: %I elements from offset %I of %I and to offset %I of %I do not fit", n,
                          soff, (lua_Integer)src->t.count, doff, (lua_Integer)dst->t.count);
    size_t esz = mgpu_dtype_size(src->t.dtype);
    int token = 0;
    if (lm_ctx_get(L)->spans) {
        char name[48], size[24];
        int sd = src->t.buf->kind == MGPU_MEM_DEVICE, dd = dst->t.buf->kind == MGPU_MEM_DEVICE;
        const char *dir = sd && dd && src->t.buf->device != dst->t.buf->device ? "P2P"
                          : sd ? (dd ? "D2D" : "D2H")
                               : (dd ? "H2D" : "H2H");
        snprintf(name, sizeof name, "copy %s %s %s", mgpu_copy_engine_name(how), dir,
                 lm_size_label((size_t)n * esz, size, sizeof size));
        token = lm_span_begin(L, s, MGPU_SPAN_COPY, name);
    }
    mgpu_result r = mgpu_copy(s, dst->t.buf, dst->t.offset + (size_t)doff * esz, src->t.buf,
                              src->t.offset + (size_t)soff * esz, (size_t)n * esz, how);
    lm_span_end(L, token, r);
    if (r != MGPU_OK) return mgpu_lua_raise_engine(L, "mgpu.copy");
    return 0;
}

/* mgpu.synchronize([device]): wait for all work on the device. */
static int l_synchronize(lua_State *L)
{
    lm_ctx *c = lm_ctx_get(L);
    int dev = lm_opt_int(L, 1, "mgpu.synchronize", "device", c->host.device, 0, LM_INT_HI);
    if (mgpu_device_synchronize(c->host.be, dev) != MGPU_OK) return mgpu_lua_raise_engine(L, "mgpu.synchronize");
    /* A collective the watchdog aborted lets the device drain "successfully":
     * its verdict is on the communicator, so ask before saying all is well. */
    if (mgpu_comm_check_all() != MGPU_OK) return mgpu_lua_raise_engine(L, "mgpu.synchronize");
    mgpu_race_note_host_sync(c->host.be, "mgpu.synchronize", NULL);
    return 0;
}

static int l_time(lua_State *L)
{
    lua_pushnumber(L, (lua_Number)mgpu_now_ns() / 1e9);
    return 1;
}

static int l_default_stream(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "mgpu.default_stream");
    return 1;
}

/*--- Log lines and results --------------------------------------------------*/

/* mgpu.log(...) and print(...): tab-joined tostring of the arguments. */
static int l_log(lua_State *L)
{
    lm_ctx *c = lm_ctx_get(L);
    size_t len;
    const char *s = mgpu_lua_join_args(L, &len);
    if (c->host.log) c->host.log(c->host.ctx, s, len);
    else printf("%.*s\n", (int)len, s);
    return 0;
}

/* mgpu.result{...}: one result row to the coordinator. */
static int l_result(lua_State *L)
{
    lm_ctx *c = lm_ctx_get(L);
    luaL_checktype(L, 1, LUA_TTABLE);
    json_t *row = NULL;
    if (mgpu_lua_to_json(L, 1, &row) != MGPU_OK) return mgpu_lua_raise_engine(L, "mgpu.result");
    if (!json_is_object(row)) {
        json_t *wrap = json_pack("{s:o}", "value", row);
        row = wrap;
    }
    mgpu_result r = c->host.result ? c->host.result(c->host.ctx, row) : MGPU_OK;
    json_decref(row);
    if (r != MGPU_OK) return mgpu_lua_raise_engine(L, "mgpu.result");
    return 0;
}

/*--- Opening ----------------------------------------------------------------*/

static int l_ctx_gc(lua_State *L)
{
    lm_ctx *c = lua_touserdata(L, 1);
    mgpu_race_set_site_fn(c->host.be, NULL, NULL); /* this state is going away */
    mgpu_spans_destroy(c->spans); /* its zero was recorded on c->stream */
    c->spans = NULL;
    if (c->stage) mgpu_mem_free(c->stage);
    if (c->stream) mgpu_stream_destroy(c->stream);
    c->stage = NULL;
    c->stream = NULL;
    lm_group_release(NULL, c); /* none unless the state closes inside a group */
    free(c->group_pins);
    c->group_pins = NULL;
    return 0;
}

typedef struct open_args {
    const mgpu_lua_rank_host *host;
    const char *const *args;
    int nargs;
} open_args;

static int open_protected(lua_State *L)
{
    const open_args *a = lua_touserdata(L, 1);
    lm_ctx *c = lua_newuserdatauv(L, sizeof *c, 0);
    memset(c, 0, sizeof *c);
    c->host = *a->host;
    lua_newtable(L);
    lua_pushcfunction(L, l_ctx_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, LM_CTX_KEY);
    if (mgpu_stream_create(c->host.be, c->host.device, 0, &c->stream) != MGPU_OK)
        return mgpu_lua_raise_engine(L, "rank API: default stream");
    if (mgpu_mem_alloc(c->host.be, MGPU_MEM_PINNED, -1, 64, &c->stage) != MGPU_OK)
        return mgpu_lua_raise_engine(L, "rank API: staging buffer");

    mgpu_race_set_site_fn(c->host.be, lm_race_site, L);
    mgpu_race_label_stream(c->stream, "the default stream");
    lm_open_frame(L);
    lm_open_event(L);
    lm_push_borrowed_stream(L, c->stream, "default", 0);
    lua_setfield(L, LUA_REGISTRYINDEX, "mgpu.default_stream");

    static const luaL_Reg fns[] = {
        {"stream", l_stream_new},   {"event", l_event_new},   {"copy", l_copy},
        {"synchronize", l_synchronize}, {"time", l_time},     {"log", l_log},
        {"result", l_result},       {"default_stream", l_default_stream}, {"span", l_span},
        {NULL, NULL},
    };
    luaL_newlib(L, fns);
    lua_pushinteger(L, c->host.rank);
    lua_setfield(L, -2, "rank");
    lua_pushinteger(L, c->host.world);
    lua_setfield(L, -2, "world");
    lua_pushinteger(L, c->host.local_rank);
    lua_setfield(L, -2, "local_rank");
    lua_pushinteger(L, c->host.device);
    lua_setfield(L, -2, "device");
    lua_pushstring(L, mgpu_backend_name(c->host.be));
    lua_setfield(L, -2, "backend");
    lua_pushboolean(L, mgpu_backend_simulated(c->host.be));
    lua_setfield(L, -2, "simulated");
    int ndev = 0;
    mgpu_device_count(c->host.be, &ndev);
    lua_pushinteger(L, ndev);
    lua_setfield(L, -2, "device_count");
    lua_createtable(L, a->nargs, 0);
    for (int i = 0; i < a->nargs; i++) {
        lua_pushstring(L, a->args[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "args");
    lua_setglobal(L, "mgpu");
    lm_open_tensor(L);
    lm_open_ipc(L);
    lm_open_mem(L);
    lm_open_nn(L);
    lm_open_lib(L);
    lm_open_whatif(L);
    lua_pushcfunction(L, l_log);
    lua_setglobal(L, "print");
    return 0;
}

mgpu_result mgpu_lua_open_rank_api(mgpu_lua *sb, const mgpu_lua_rank_host *host, const char *const *args,
                                   int nargs)
{
    if (!sb || !host || !host->be) return mgpu_fail(MGPU_ERR_INVALID, "rank API: no sandbox or backend");
    lua_State *L = mgpu_lua_state(sb);
    open_args a = {host, args, nargs};
    lua_pushcfunction(L, open_protected);
    lua_pushlightuserdata(L, &a);
    MGPU_CHECK(mgpu_lua_pcall(sb, 1, 0));
    return MGPU_OK;
}

mgpu_result mgpu_lua_enable_spans(mgpu_lua *sb, mgpu_span_cb cb, void *ctx)
{
    lm_ctx *c = sb ? lm_ctx_peek(mgpu_lua_state(sb)) : NULL;
    if (!c) return mgpu_fail(MGPU_ERR_INVALID, "spans: open the rank API first");
    if (c->spans) return MGPU_OK;
    MGPU_CHECK(mgpu_spans_create(c->host.be, c->stream, "default", 0, &c->spans));
    c->span_cb = cb;
    c->span_cb_ctx = ctx;
    c->last_flush_ns = mgpu_now_ns();
    return MGPU_OK;
}

mgpu_result mgpu_lua_flush_spans(mgpu_lua *sb, int wait, long *dropped)
{
    lm_ctx *c = sb ? lm_ctx_peek(mgpu_lua_state(sb)) : NULL;
    if (dropped) *dropped = c ? mgpu_spans_dropped(c->spans) : 0;
    if (!c || !c->spans) return MGPU_OK;
    mgpu_result r = wait ? mgpu_spans_drain(c->spans, c->span_cb, c->span_cb_ctx)
                         : mgpu_spans_flush(c->spans, c->span_cb, c->span_cb_ctx);
    if (dropped) *dropped = mgpu_spans_dropped(c->spans);
    MGPU_CHECK(r);
    return MGPU_OK;
}
