/* spmd_job.c - the worker job "spmd": run a learner's Lua script on this
 * rank in the sandbox with the rank API (lua_mgpu.h).
 *
 * params (written and read by spmd_doc.c, mgpu/spmd_doc.h):
 *         {"script": source text, "chunkname": "@FILE.lua", "args": [strings],
 *          "time_limit_s": seconds (default: twice the run's timeout, so
 *                          that a hung collective is ended and reported by
 *                          the watchdog, not cut short by the script's budget),
 *          "time_limit_cpu": true: time_limit_s counts the rank's CPU time, not
 *                            wall time (a lab's runs: a busy machine must not
 *                            stop a healthy script; lua_sandbox.h),
 *          "mem_limit": bytes of Lua memory (default 256 MiB); when given, also
 *                       the most host memory the rank's buffers may hold
 *                       (on the sim every real tensor is host memory),
 *          "spans": true to record timeline spans (default off: events cost time),
 *          "race": false to turn the stream-ordering race detector off (default
 *                  on: mgpu/race.h; on the sim a racing read sees NaN)}
 * Sends "log" {text} for print()/mgpu.log(), "result" rows for
 * mgpu.result{...} and for each table the script returns ({"value": v} for
 * other returned values), and on a Lua error "spmd_error" {message,
 * traceback, code} before failing the job with the error's message. With
 * spans, "span" {rank, stream, stream_id, name, kind, start_us, end_us}
 * for each finished span (every ~100 ms while the script runs, the rest
 * after it; protocol.h). With the race detector, "race" {kind, stale, shown,
 * tensor, first, last, now, then, text} for each distinct race when first
 * seen, and at the end (also after an error) "race_summary" {races, distinct,
 * host_syncs, waits, accesses, forgotten, reports: [{text, count}], syncs:
 * [{what, stream, site, count}]}. */
#include "mgpu/lua_mgpu.h"
#include "mgpu/race.h"
#include "mgpu/rt.h"
#include "mgpu/spmd_doc.h"
#include "mgpu/spans.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A printed line as it travels to the coordinator: UTF-8 (JSON needs it),
 * without NUL (the coordinator's parser refused the whole message and the
 * run failed) or other control bytes (ANSI/OSC escapes from a script would
 * reach the learner's terminal raw): each becomes '?'; tabs stay. A line
 * over LOG_LINE_MAX is cut and says how much was cut (a 20 MB line was
 * dropped without a word, being over the protocol's frame limit). */
#define LOG_LINE_MAX ((size_t)64 << 10)

static json_t *text_json(const char *s, size_t n)
{
    size_t keep = n > LOG_LINE_MAX ? LOG_LINE_MAX : n;
    char *copy = malloc(keep + 64);
    if (!copy) return NULL;
    for (size_t i = 0; i < keep; i++) {
        unsigned char b = (unsigned char)s[i];
        copy[i] = (b < 0x20 && b != '\t') || b == 0x7f ? '?' : s[i];
    }
    size_t len = keep;
    if (keep < n) len += (size_t)snprintf(copy + keep, 64, " ... (%zu more bytes cut)", n - keep);
    json_t *j = json_stringn(copy, len);
    if (!j) { /* not UTF-8 (or cut inside a character): ASCII only */
        for (size_t i = 0; i < len; i++)
            if ((unsigned char)copy[i] >= 0x80) copy[i] = '?';
        j = json_stringn(copy, len);
    }
    free(copy);
    return j;
}

static void send_log(void *ctx, const char *text, size_t len)
{
    json_t *body = json_object();
    json_object_set_new(body, "text", text_json(text, len));
    mgpu_worker_send(ctx, "log", body); /* a lost log line must not fail the script */
    json_decref(body);
}

static mgpu_result send_result(void *ctx, json_t *row)
{
    MGPU_CHECK(mgpu_worker_send(ctx, "result", row));
    return MGPU_OK;
}

/* One finished span to the coordinator. A lost span must not fail the
 * script, like a lost log line. */
static void send_span(void *ctx, const mgpu_span *s)
{
    mgpu_worker *w = ctx;
    json_t *body = json_pack("{s:i, s:s, s:i, s:s, s:s, s:f, s:f}", "rank", mgpu_worker_rank(w), "stream",
                             s->stream_name, "stream_id", s->stream, "name", s->name, "kind",
                             mgpu_span_kind_name(s->kind), "start_us", s->start_us, "end_us", s->end_us);
    if (body) mgpu_worker_send(w, "span", body);
    json_decref(body);
}

/* The spans not sent yet: after a clean run wait for them; after a failure
 * take only what finished (waiting on a stream stuck behind an aborted
 * collective could hang). Says how many were lost, if any. */
static void flush_spans(mgpu_worker *w, mgpu_lua *sb, int ok)
{
    long dropped = 0;
    if (mgpu_lua_flush_spans(sb, ok, &dropped) != MGPU_OK)
        mgpu_worker_log(w, "timeline: some spans were lost: %s", mgpu_error_message());
    if (dropped > 0)
        mgpu_worker_log(w, "timeline: %ld span%s dropped (more than %d waiting, or an event failed)", dropped,
                        dropped == 1 ? "" : "s", MGPU_SPANS_MAX_PENDING);
}

/*--- The race detector's reports ------------------------------------------------*/

static json_t *side_json(const mgpu_race_side *s)
{
    return json_pack("{s:s, s:s, s:s}", "op", s->op, "stream", s->stream, "site", s->site);
}

/* A new race, at once: the log pane shows it while the script runs. */
static void send_race(void *ctx, const mgpu_race_report *r)
{
    json_t *body = json_pack("{s:s, s:b, s:b, s:s, s:I, s:I, s:o, s:o, s:s}", "kind", r->kind, "stale", r->stale,
                             "shown", r->shown, "tensor", r->tensor, "first", (json_int_t)r->first, "last",
                             (json_int_t)r->last, "now", side_json(&r->now), "then", side_json(&r->then), "text",
                             r->text);
    if (body) mgpu_worker_send(ctx, "race", body); /* a lost report must not fail the script */
    json_decref(body);
}

/* What the detector saw in the whole run: counts, each race with how often,
 * and the script's own host synchronizes (lab 3 wants device-side order). */
static void send_race_summary(mgpu_worker *w, mgpu_backend *be)
{
    if (!mgpu_race_flags(be)) return;
    mgpu_race_stats st;
    mgpu_race_stats_get(be, &st);
    int nrep = 0, nsync = 0;
    const mgpu_race_report *rep = mgpu_race_reports(be, &nrep);
    const mgpu_race_sync *sy = mgpu_race_syncs(be, &nsync);
    json_t *reports = json_array(), *syncs = json_array();
    for (int i = 0; i < nrep; i++)
        json_array_append_new(reports, json_pack("{s:s, s:s, s:I}", "kind", rep[i].kind, "text", rep[i].text, "count",
                                                 (json_int_t)rep[i].count));
    for (int i = 0; i < nsync; i++)
        json_array_append_new(syncs, json_pack("{s:s, s:s, s:s, s:I}", "what", sy[i].what, "stream", sy[i].stream,
                                               "site", sy[i].site, "count", (json_int_t)sy[i].count));
    json_t *body = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o}", "races", (json_int_t)st.races, "distinct",
                             (json_int_t)st.distinct, "host_syncs", (json_int_t)st.host_syncs, "waits",
                             (json_int_t)st.waits, "accesses", (json_int_t)st.accesses, "forgotten",
                             (json_int_t)st.forgotten, "reports", reports, "syncs", syncs);
    if (body) mgpu_worker_send(w, "race_summary", body);
    json_decref(body);
}

static mgpu_result world(void *ctx, mgpu_comm **out)
{
    MGPU_CHECK(mgpu_worker_world(ctx, out));
    return MGPU_OK;
}

/* The values the chunk returned (stack 1..n) as result rows. */
static mgpu_result send_returns(mgpu_worker *w, lua_State *L)
{
    int n = lua_gettop(L);
    for (int i = 1; i <= n; i++) {
        if (lua_isnil(L, i)) continue;
        json_t *v = NULL;
        MGPU_CHECK(mgpu_lua_to_json(L, i, &v));
        if (!json_is_object(v)) v = json_pack("{s:o}", "value", v);
        mgpu_result r = mgpu_worker_send(w, "result", v);
        json_decref(v);
        MGPU_CHECK(r);
    }
    return MGPU_OK;
}

static mgpu_result report_lua_error(mgpu_worker *w, mgpu_lua *sb, mgpu_result code)
{
    const char *msg = mgpu_lua_error_message(sb), *tb = mgpu_lua_error_traceback(sb);
    json_t *body = json_pack("{s:s, s:s, s:s}", "message", msg, "traceback", tb, "code", mgpu_result_name(code));
    if (body) mgpu_worker_send(w, "spmd_error", body);
    json_decref(body);
    return mgpu_fail(code, "%s", msg); /* the coordinator says which rank */
}

static mgpu_result run(mgpu_worker *w, json_t *params)
{
    mgpu_spmd_params p;
    MGPU_CHECK(mgpu_spmd_params_read(params, &p));
    size_t nargs = json_array_size(p.args);
    const char **args = calloc(nargs + 1, sizeof *args);
    if (!args) return mgpu_fail(MGPU_ERR_NOMEM, "spmd job: no memory for the arguments");
    for (size_t i = 0; i < nargs; i++) args[i] = json_string_value(json_array_get(p.args, i));
    mgpu_lua_config cfg = {
        .time_limit_s = p.time_limit_s > 0 ? p.time_limit_s : 2 * mgpu_worker_timeout_s(w),
        .cpu_time = p.time_limit_cpu,
        .mem_limit = (size_t)p.mem_limit,
        .print = send_log,
        .print_ctx = w,
    };
    mgpu_lua_rank_host host = {
        .be = mgpu_worker_backend(w),
        .rank = mgpu_worker_rank(w),
        .world = mgpu_worker_size(w),
        .local_rank = mgpu_worker_local_rank(w),
        .device = mgpu_worker_device(w),
        .ctx = w,
        .world_comm = world,
        .log = send_log,
        .result = send_result,
    };
    int spans = p.spans;
    /* on before the rank API opens: its default stream gets its name */
    if (!p.race_off) {
        mgpu_race_enable(host.be, MGPU_RACE_ON | MGPU_RACE_SHOW);
        mgpu_race_set_report_fn(host.be, send_race, w);
    }
    /* --mem-limit 1M let two ranks hold 3 GiB of sim tensors each */
    if (cfg.mem_limit) mgpu_backend_limit_host_memory(host.be, cfg.mem_limit, "--mem-limit");
    mgpu_lua *sb = NULL;
    mgpu_result r = MGPU_OK;
    MGPU_CHECKGOTO(mgpu_lua_open(&cfg, &sb), r, out);
    MGPU_CHECKGOTO(mgpu_lua_open_rank_api(sb, &host, args, (int)nargs), r, out);
    MGPU_CHECKGOTO(mgpu_lua_open_comm_api(sb), r, out);
    if (spans) MGPU_CHECKGOTO(mgpu_lua_enable_spans(sb, send_span, w), r, out);
    /* a misspelt name in the script is an error, not a silent nil (seed = rnk) */
    MGPU_CHECKGOTO(mgpu_lua_strict_globals(sb, p.script, p.len, p.chunkname), r, out);
    r = mgpu_lua_load(sb, p.script, p.len, p.chunkname);
    if (r == MGPU_OK) r = mgpu_lua_pcall(sb, 0, LUA_MULTRET);
    if (spans) flush_spans(w, sb, r == MGPU_OK); /* before the error: the spans show where it stood */
    send_race_summary(w, host.be);
    if (r != MGPU_OK) {
        r = report_lua_error(w, sb, r);
        goto out;
    }
    MGPU_CHECKGOTO(send_returns(w, mgpu_lua_state(sb)), r, out);
out:;
    /* closing collects the script's tensors, streams and split
     * communicators while the backend is still open; it may touch the
     * engine's error message, so the job's verdict is kept aside */
    char *why = r != MGPU_OK ? strdup(mgpu_error_message()) : NULL;
    mgpu_lua_close(sb);
    mgpu_race_enable(host.be, 0); /* the worker's next job starts without it */
    mgpu_backend_limit_host_memory(host.be, 0, NULL); /* the worker's next job has its own */
    free(args);
    if (r != MGPU_OK) mgpu_fail(r, "%s", why ? why : "the spmd job failed");
    free(why);
    return r;
}

const mgpu_job_handler mgpu_job_spmd = {.type = "spmd", .run = run};
