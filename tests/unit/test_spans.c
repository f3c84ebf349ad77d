/* test_spans.c - the timeline recorder on the sim backend: kinds, streams
 * and ordering across an event wait, empty flushes, the pending cap and
 * event reuse, a second device's base, and the rank API's spans (fill,
 * copy, wait, collectives in a group, mgpu.span) through mgpu_lua_enable_spans. */
#include "lua/lua_mgpu_internal.h"
#include "mgpu/chrome_trace.h"
#include "mgpu/spans.h"
#include "mgpu/tensor.h"
#include "tap.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXS 64

typedef struct got {
    int n;
    mgpu_span s[MAXS];
    char name[MAXS][48], stream[MAXS][24];
} got;

static void collect(void *ctx, const mgpu_span *s)
{
    got *g = ctx;
    if (g->n == MAXS) return;
    g->s[g->n] = *s;
    snprintf(g->name[g->n], sizeof g->name[0], "%s", s->name);
    snprintf(g->stream[g->n], sizeof g->stream[0], "%s", s->stream_name);
    g->s[g->n].name = g->name[g->n];
    g->s[g->n].stream_name = g->stream[g->n];
    g->n++;
}

static mgpu_backend *be;

/* fill on s1, event, default waits, copy on default: the copy starts after
 * the fill ended, and the wait span covers the default stream's stall. */
static void test_wait_ordering(void)
{
    mgpu_stream *s0 = NULL, *s1 = NULL;
    mgpu_event *ev = NULL;
    mgpu_tensor a = {0}, b = {0};
    mgpu_spans *rec = NULL;
    CHECK_OK(mgpu_stream_create(be, 0, 0, &s0));
    CHECK_OK(mgpu_stream_create(be, 0, 0, &s1));
    CHECK_OK(mgpu_event_create(be, 0, MGPU_EVENT_TIMING, &ev));
    CHECK_OK(mgpu_tensor_alloc(be, MGPU_MEM_DEVICE, 0, MGPU_F32, 1 << 20, &a));
    CHECK_OK(mgpu_tensor_alloc(be, MGPU_MEM_DEVICE, 0, MGPU_F32, 1 << 20, &b));
    CHECK_OK(mgpu_spans_create(be, s0, "default", 0, &rec));
    if (!rec || !a.buf || !b.buf) return;

    got g = {0};
    double copy_end = 0;
    CHECK_OK(mgpu_spans_flush(rec, collect, &g)); /* nothing recorded: fine */
    CHECK_OK(mgpu_spans_drain(rec, collect, &g));
    CHECK(g.n == 0 && mgpu_spans_pending(rec) == 0);

    int t;
    mgpu_fill_spec spec = {.kind = MGPU_FILL_RANDOM, .seed = 1};
    mgpu_spans_begin(rec, s1, MGPU_SPAN_KERNEL, "fill", &t);
    CHECK(t != 0);
    CHECK_OK(mgpu_tensor_fill(s1, &a, &spec));
    mgpu_spans_end(rec, t);
    CHECK_OK(mgpu_event_record(ev, s1));
    mgpu_spans_begin(rec, s0, MGPU_SPAN_WAIT, "wait event", &t);
    CHECK_OK(mgpu_stream_wait_event(s0, ev));
    mgpu_spans_end(rec, t);
    mgpu_spans_begin(rec, s0, MGPU_SPAN_COPY, "copy ce D2D 4 MiB", &t);
    CHECK_OK(mgpu_copy(s0, b.buf, 0, a.buf, 0, mgpu_tensor_bytes(&a), MGPU_COPY_CE));
    mgpu_spans_end(rec, t);
    /* begun, never ended: stays pending, never reported */
    int open_tok;
    mgpu_spans_begin(rec, s0, MGPU_SPAN_KERNEL, "open", &open_tok);
    CHECK(mgpu_spans_pending(rec) == 4);
    CHECK_OK(mgpu_spans_drain(rec, collect, &g));
    CHECKF(g.n == 3, "%d spans", g.n);
    CHECK(mgpu_spans_pending(rec) == 1);
    if (g.n == 3) {
        mgpu_span *f = &g.s[0], *w = &g.s[1], *c = &g.s[2];
        CHECK(f->kind == MGPU_SPAN_KERNEL && strcmp(f->name, "fill") == 0);
        CHECK(w->kind == MGPU_SPAN_WAIT && c->kind == MGPU_SPAN_COPY);
        CHECKF(f->stream == 1 && strcmp(f->stream_name, "s1") == 0, "fill on %d %s", f->stream, f->stream_name);
        CHECK(c->stream == 0 && strcmp(c->stream_name, "default") == 0 && w->stream == 0);
        CHECKF(f->start_us >= 0 && f->end_us > f->start_us, "fill %.3f..%.3f", f->start_us, f->end_us);
        CHECKF(c->start_us >= f->end_us, "copy starts %.3f before the fill ends %.3f", c->start_us, f->end_us);
        CHECKF(w->end_us >= f->end_us - 1e-6 && w->end_us <= c->start_us + 1e-6, "wait %.3f..%.3f",
               w->start_us, w->end_us);
        CHECK(c->end_us > c->start_us);
        copy_end = c->end_us;
        CHECK(strcmp(mgpu_span_kind_name(c->kind), "copy") == 0);
        CHECK(strcmp(mgpu_span_kind_name(w->kind), "wait") == 0);
    }
    mgpu_spans_cancel(rec, open_tok);
    CHECK(mgpu_spans_pending(rec) == 0 && mgpu_spans_dropped(rec) == 0);

    /* a stream named by the caller, and a stream on another device (its
     * own base, offset onto the zero: its work follows the host's time) */
    mgpu_stream *d1 = NULL;
    CHECK_OK(mgpu_spans_name_stream(rec, s1, "comm"));
    CHECK_OK(mgpu_stream_synchronize(s0));
    CHECK_OK(mgpu_stream_create(be, 1, 0, &d1));
    g.n = 0;
    mgpu_spans_begin(rec, s1, MGPU_SPAN_COLLECTIVE, "all_reduce", &t);
    mgpu_spans_end(rec, t);
    mgpu_spans_begin(rec, d1, MGPU_SPAN_KERNEL, "fill", &t);
    mgpu_tensor c1 = {0};
    CHECK_OK(mgpu_tensor_alloc(be, MGPU_MEM_DEVICE, 1, MGPU_F32, 1 << 16, &c1));
    if (c1.buf) CHECK_OK(mgpu_tensor_fill(d1, &c1, &spec));
    mgpu_spans_end(rec, t);
    CHECK_OK(mgpu_spans_drain(rec, collect, &g));
    CHECK(g.n == 2);
    if (g.n == 2) {
        CHECK(strcmp(g.s[0].stream_name, "comm") == 0 && g.s[0].stream == 1);
        CHECKF(strcmp(g.s[1].stream_name, "s2@gpu1") == 0, "%s", g.s[1].stream_name);
        /* the host waited for the copy before making d1, so d1 starts later */
        CHECKF(g.s[1].start_us >= copy_end - 1e-6 && g.s[1].end_us > g.s[1].start_us, "device 1 span %.3f..%.3f",
               g.s[1].start_us, g.s[1].end_us);
    }
    mgpu_tensor_free(&c1);
    mgpu_spans_forget_stream(rec, d1);
    mgpu_stream_destroy(d1);
    mgpu_spans_destroy(rec);
    mgpu_tensor_free(&a);
    mgpu_tensor_free(&b);
    mgpu_event_destroy(ev);
    mgpu_stream_destroy(s1);
    mgpu_stream_destroy(s0);
}

/* The cap: past max pending, spans are dropped and counted; a flush gives
 * the events back and recording goes on with the same events. A span whose
 * stream is destroyed before it ends is dropped, and its token stays its. */
static void test_cap(void)
{
    mgpu_stream *s0 = NULL, *s1 = NULL;
    mgpu_spans *rec = NULL;
    CHECK_OK(mgpu_stream_create(be, 0, 0, &s0));
    CHECK_OK(mgpu_spans_create(be, s0, "default", 4, &rec));
    if (!rec) return;
    int tok[6];
    for (int i = 0; i < 6; i++) {
        mgpu_spans_begin(rec, s0, MGPU_SPAN_KERNEL, "k", &tok[i]);
        mgpu_spans_end(rec, tok[i]);
    }
    CHECK(tok[3] != 0 && tok[4] == 0 && tok[5] == 0);
    CHECK(mgpu_spans_pending(rec) == 4 && mgpu_spans_dropped(rec) == 2);
    got g = {0};
    CHECK_OK(mgpu_spans_flush(rec, collect, &g));
    CHECK(g.n == 4 && mgpu_spans_pending(rec) == 0);
    for (int i = 1; i < g.n; i++) CHECK(g.s[i].start_us >= g.s[i - 1].end_us);
    for (int i = 0; i < 4; i++) {
        mgpu_spans_begin(rec, s0, MGPU_SPAN_KERNEL, "again", &tok[i]);
        CHECK(tok[i] != 0);
        mgpu_spans_end(rec, tok[i]);
    }
    CHECK(mgpu_spans_dropped(rec) == 2);
    g.n = 0;
    CHECK_OK(mgpu_spans_flush(rec, collect, &g));
    CHECK(g.n == 4 && strcmp(g.s[0].name, "again") == 0);

    CHECK_OK(mgpu_stream_create(be, 0, 0, &s1));
    int t, t2;
    mgpu_spans_begin(rec, s1, MGPU_SPAN_KERNEL, "orphan", &t);
    mgpu_spans_forget_stream(rec, s1);
    mgpu_stream_destroy(s1);
    mgpu_spans_begin(rec, s0, MGPU_SPAN_KERNEL, "other", &t2);
    CHECK(t2 != t);
    mgpu_spans_end(rec, t); /* nothing to end on: dropped */
    mgpu_spans_end(rec, t2);
    g.n = 0;
    CHECK_OK(mgpu_spans_flush(rec, collect, &g));
    CHECK(g.n == 1 && strcmp(g.s[0].name, "other") == 0 && mgpu_spans_dropped(rec) == 3);
    mgpu_spans_destroy(rec);
    mgpu_stream_destroy(s0);
}

/*--- Through the rank API ----------------------------------------------------*/

static json_t *spans_json;

static void to_json(void *ctx, const mgpu_span *s)
{
    (void)ctx;
    json_array_append_new(spans_json, json_pack("{s:i, s:s, s:i, s:s, s:s, s:f, s:f}", "rank", 0, "stream",
                                                s->stream_name, "stream_id", s->stream, "name", s->name, "kind",
                                                mgpu_span_kind_name(s->kind), "start_us", s->start_us, "end_us",
                                                s->end_us));
}

static json_t *find(const char *name)
{
    size_t i;
    json_t *e;
    json_array_foreach(spans_json, i, e) if (strcmp(json_string_value(json_object_get(e, "name")), name) == 0) return e;
    return NULL;
}

static int is(json_t *e, const char *kind, const char *stream)
{
    return e && strcmp(json_string_value(json_object_get(e, "kind")), kind) == 0 &&
           strcmp(json_string_value(json_object_get(e, "stream")), stream) == 0;
}

static double num(json_t *e, const char *k) { return json_number_value(json_object_get(e, k)); }

static void test_rank_api(void)
{
    mgpu_lua_config lc = {.time_limit_s = 20};
    mgpu_lua *sb = NULL;
    CHECK_OK(mgpu_lua_open(&lc, &sb));
    mgpu_lua_rank_host host = {.be = be, .rank = 0, .world = 1, .local_rank = 0, .device = 0};
    CHECK_OK(mgpu_lua_open_rank_api(sb, &host, NULL, 0));
    if (!sb) return;
    /* off by default: nothing recorded, mgpu.span still runs fn */
    const char *off = "local t = mgpu.tensor(256):fill(1)\n"
                      "assert(select(2, mgpu.span('r', function() return 1, 2 end)) == 2)";
    CHECK_OK(mgpu_lua_run(sb, off, strlen(off), "@off.lua", 0));
    long dropped = -1;
    CHECK_OK(mgpu_lua_flush_spans(sb, 1, &dropped));
    CHECK(json_array_size(spans_json) == 0 && dropped == 0);

    CHECK_OK(mgpu_lua_enable_spans(sb, to_json, NULL));
    const char *code =
        "local s = mgpu.stream()\n"
        "local a, b = mgpu.tensor(1 << 20), mgpu.tensor(1 << 20)\n"
        "local h = mgpu.tensor(1 << 20, 'f32', 'pinned')\n"
        "a:fill{seed = 1, stream = s}\n"
        "local e = mgpu.event(); e:record(s)\n"
        "e:wait()\n"
        "mgpu.copy(b, a)\n"
        "mgpu.copy(h, b, {stream = s})\n"
        "local x, y = mgpu.span('mine', function() b:fill(2); return 7, 8 end)\n"
        "assert(x == 7 and y == 8)\n"
        "assert(not pcall(mgpu.span, 'boom', function() error('inside') end))\n"
        "s:wait(e)\n"
        "mgpu.synchronize()";
    mgpu_result r = mgpu_lua_run(sb, code, strlen(code), "@spans.lua", 0);
    CHECKF(r == MGPU_OK, "%s", mgpu_lua_error_message(sb));
    CHECK_OK(mgpu_lua_flush_spans(sb, 1, &dropped));
    CHECK(dropped == 0);
    json_t *fill = find("fill 4 MiB"), *copy = find("copy ce D2D 4 MiB"), *d2h = find("copy ce D2H 4 MiB");
    json_t *mine = find("mine"), *boom = find("boom");
    CHECKF(json_array_size(spans_json) == 8, "%zu spans", json_array_size(spans_json));
    CHECK(is(fill, "kernel", "s1") && is(copy, "copy", "default") && is(d2h, "copy", "s1"));
    CHECK(is(mine, "kernel", "default") && is(boom, "kernel", "default"));
    CHECK(fill && copy && num(copy, "start_us") >= num(fill, "end_us"));
    CHECK(mine && copy && num(mine, "start_us") >= num(copy, "end_us") && num(mine, "end_us") > num(mine, "start_us"));
    size_t i, waits = 0;
    json_t *e;
    json_array_foreach(spans_json, i, e) waits += is(e, "wait", "default") || is(e, "wait", "s1");
    CHECK(waits == 2);
    mgpu_lua_close(sb);
}

/* The Chrome trace of a few spans, streamed to a file: X events with pid =
 * rank, tid = the stream id, metadata naming ranks and streams; bad spans
 * refused; spans past the cap dropped and said in otherData. */
static void test_chrome_trace(void)
{
    char path[] = "/tmp/mgpu-test-trace-XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0) close(fd);
    mgpu_chrome_trace *tr = NULL;
    CHECK_OK(mgpu_chrome_trace_open(path, 2, &tr));
    if (!tr) return;
    json_t *a = json_pack("{s:s, s:i, s:s, s:s, s:f, s:f}", "stream", "comm", "stream_id", 1, "name", "all_reduce 4 MiB",
                          "kind", "collective", "start_us", 10.0, "end_us", 35.5);
    json_t *bad = json_pack("{s:s, s:f, s:f}", "stream", "default", "start_us", 5.0, "end_us", 1.0);
    CHECK_OK(mgpu_chrome_trace_add(tr, 3, a));
    CHECK(mgpu_chrome_trace_add(tr, 0, bad) == MGPU_ERR_INVALID);
    CHECK(mgpu_chrome_trace_count(tr) == 1);
    CHECK_OK(mgpu_chrome_trace_add(tr, 3, a));
    CHECK_OK(mgpu_chrome_trace_add(tr, 3, a)); /* past the cap of 2: dropped */
    CHECK(mgpu_chrome_trace_count(tr) == 2 && mgpu_chrome_trace_dropped(tr) == 1);
    json_t *other = json_pack("{s:s}", "tool", "test");
    CHECK_OK(mgpu_chrome_trace_close(tr, other));
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    CHECKF(doc != NULL, "the trace is not JSON: %s", err.text);
    json_t *evs = json_object_get(doc, "traceEvents");
    int x = 0, pname = 0, tname = 0;
    size_t i;
    json_t *e;
    json_array_foreach(evs, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph")), *n = json_string_value(json_object_get(e, "name"));
        if (strcmp(ph, "X") == 0) {
            x++;
            CHECK(json_integer_value(json_object_get(e, "pid")) == 3 && json_integer_value(json_object_get(e, "tid")) == 1);
            CHECK(num(e, "ts") == 10.0 && num(e, "dur") == 25.5 && strcmp(n, "all_reduce 4 MiB") == 0);
            CHECK(pname == 1 && tname == 1); /* the lane is named before its events */
        } else if (strcmp(n, "process_name") == 0) {
            pname += strcmp(json_string_value(json_object_get(json_object_get(e, "args"), "name")), "rank 3") == 0;
        } else if (strcmp(n, "thread_name") == 0) {
            tname += strcmp(json_string_value(json_object_get(json_object_get(e, "args"), "name")), "comm") == 0;
        }
    }
    CHECK(x == 2 && pname == 1 && tname == 1);
    json_t *od = json_object_get(doc, "otherData");
    CHECK(json_integer_value(json_object_get(od, "dropped_spans")) == 1);
    CHECK(strcmp(json_string_value(json_object_get(od, "tool")), "test") == 0);
    json_decref(doc);
    unlink(path);
    CHECK(mgpu_chrome_trace_open("/nonexistent-dir/t.json", 0, &tr) == MGPU_ERR_IO && tr == NULL);
    CHECKF(strstr(mgpu_error_message(), "cannot write the trace to /nonexistent-dir/t.json") != NULL, "%s",
           mgpu_error_message());
    json_decref(other);
    json_decref(a);
    json_decref(bad);
}

int main(void)
{
    mgpu_backend_config cfg = {.kind = MGPU_BACKEND_SIM, .machine = "dgx-h100"};
    CHECK_OK(mgpu_backend_open(&cfg, &be));
    spans_json = json_array();
    if (be) {
        test_wait_ordering();
        test_cap();
        test_rank_api();
        test_chrome_trace();
    }
    json_decref(spans_json);
    mgpu_backend_close(be);
    return tap_done();
}
