/* copy_bench.c - the copy benchmark's shared core: nvbandwidth's measuring
 * method (gated streams, events, loopCount copies per sample, median of
 * samples, data verification) and the patterns that turn a testcase
 * descriptor (copy_cases.c) into sets of concurrent copies and matrices. */
#include "mgpu/copybench.h"
#include "mgpu/topo.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*--- Options and statistics -------------------------------------------*/

void mgpu_copy_options_default(mgpu_copy_options *o)
{
    memset(o, 0, sizeof *o);
    o->buffer_bytes = MGPU_COPY_DEFAULT_BUFFER;
    o->loop_count = MGPU_COPY_DEFAULT_LOOPS;
    o->samples = MGPU_COPY_DEFAULT_SAMPLES;
}

mgpu_result mgpu_copy_options_check(const mgpu_copy_options *o)
{
    if (o->buffer_bytes < 16 || o->buffer_bytes % 16)
        return mgpu_fail(MGPU_ERR_INVALID,
                         "buffer size %llu bytes must be a positive multiple of 16 bytes (copy kernels "
                         "move 16-byte vectors)", (unsigned long long)o->buffer_bytes);
    if (o->buffer_bytes > (1ull << 40))
        return mgpu_fail(MGPU_ERR_INVALID, "buffer size %llu bytes is above 1 TiB; no GPU has that much memory",
                         (unsigned long long)o->buffer_bytes);
    if (o->loop_count < 1 || o->loop_count > 1000000)
        return mgpu_fail(MGPU_ERR_INVALID, "loop count %llu is out of range (1..1000000)",
                         (unsigned long long)o->loop_count);
    if (o->samples < 1 || o->samples > 1000)
        return mgpu_fail(MGPU_ERR_INVALID, "sample count %u is out of range (1..1000)", o->samples);
    return MGPU_OK;
}

double mgpu_copy_statistic(double *v, unsigned n, int use_mean)
{
    if (n == 0) return 0.0;
    if (use_mean) {
        double s = 0;
        for (unsigned i = 0; i < n; i++) s += v[i];
        return s / n;
    }
    for (unsigned i = 1; i < n; i++) /* insertion sort: n is a handful of samples */
        for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/*--- Results ----------------------------------------------------------*/

static mgpu_result mat_init(mgpu_copy_matrix *m, const char *key, const char *title, int rows, int cols)
{
    memset(m, 0, sizeof *m);
    snprintf(m->key, sizeof m->key, "%s", key);
    snprintf(m->title, sizeof m->title, "%s", title);
    m->rows = rows;
    m->cols = cols;
    m->value = calloc((size_t)rows * cols, sizeof *m->value);
    m->have = calloc((size_t)rows * cols, 1);
    if (!m->value || !m->have) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory for a result matrix");
    return MGPU_OK;
}

static void mat_set(mgpu_copy_matrix *m, int r, int c, double v)
{
    m->value[r * m->cols + c] = v;
    m->have[r * m->cols + c] = 1;
}

static void mat_sum(mgpu_copy_matrix *m)
{
    m->sum = 0;
    for (int i = 0; i < m->rows * m->cols; i++)
        if (m->have[i]) m->sum += m->value[i];
}

void mgpu_copy_result_free(mgpu_copy_result *r)
{
    if (!r) return;
    for (int i = 0; i < MGPU_COPY_MAX_MATRICES; i++) {
        free(r->mat[i].value);
        free(r->mat[i].have);
        r->mat[i].value = NULL;
        r->mat[i].have = NULL;
    }
    r->nmat = 0;
}

static void add_note(mgpu_copy_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(mgpu_copy_result *r, const char *fmt, ...)
{
    char line[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    for (int i = 0; i < r->nnotes; i++)
        if (strcmp(r->notes[i], line) == 0) return;
    if (r->nnotes < MGPU_COPY_MAX_NOTES - 1) {
        snprintf(r->notes[r->nnotes++], sizeof r->notes[0], "%s", line);
    } else if (r->nnotes == MGPU_COPY_MAX_NOTES - 1) {
        snprintf(r->notes[r->nnotes++], sizeof r->notes[0], "(more N/A cells for the same reasons)");
    }
}

/*--- One dispatch: concurrent copies, gated, timed, verified -----------*/

/* One copy of a dispatch. Host memory is pinned (nvbandwidth allocates with
 * cuMemHostAlloc); `issue_dev` is the GPU whose stream runs the copy. */
typedef struct copy_spec {
    int src_dev, dst_dev;  /* -1 = pinned host memory */
    int issue_dev;
    size_t bytes;
} copy_spec;

typedef enum { REPORT_FIRST, REPORT_EACH, REPORT_TOTAL } report_mode;

typedef struct dispatch {
    int n;
    copy_spec spec[64];
} dispatch;

static void dispatch_add(dispatch *d, int src_dev, int dst_dev, int issue_dev, size_t bytes)
{
    if (d->n >= (int)(sizeof d->spec / sizeof d->spec[0])) return; /* callers stay far below */
    d->spec[d->n++] = (copy_spec){src_dev, dst_dev, issue_dev, bytes};
}

/* The sim keeps every byte in host memory, and nobody wants the OOM killer
 * to end a benchmark: refuse a dispatch that needs more than the device
 * memory free, or (sim) more than half the free physical memory. */
static mgpu_result check_fits(mgpu_backend *be, const dispatch *d)
{
    int ndev = 0;
    MGPU_CHECK(mgpu_device_count(be, &ndev));
    unsigned long long host_total = 0;
    for (int dev = 0; dev < ndev; dev++) {
        unsigned long long need = 0;
        for (int i = 0; i < d->n; i++) {
            if (d->spec[i].src_dev == dev) need += d->spec[i].bytes;
            if (d->spec[i].dst_dev == dev) need += d->spec[i].bytes;
        }
        host_total += need;
        if (!need) continue;
        uint64_t free_b = 0, total_b = 0;
        MGPU_CHECK(mgpu_device_mem_info(be, dev, &free_b, &total_b));
        if (need > free_b)
            return mgpu_fail(MGPU_ERR_DEVICE_OOM,
                             "this testcase needs %.1f MiB on GPU %d but only %.1f MiB of its %.1f MiB are "
                             "free; use a smaller --bufferSize (-b, in MiB)",
                             need / 1048576.0, dev, free_b / 1048576.0, total_b / 1048576.0);
    }
    for (int i = 0; i < d->n; i++) {
        if (d->spec[i].src_dev < 0) host_total += d->spec[i].bytes;
        if (d->spec[i].dst_dev < 0) host_total += d->spec[i].bytes;
    }
    if (mgpu_backend_simulated(be)) {
        long pages = sysconf(_SC_AVPHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
        if (pages > 0 && psize > 0 && host_total > (unsigned long long)pages * (unsigned long long)psize / 2)
            return mgpu_fail(MGPU_ERR_NOMEM,
                             "the sim backend keeps every buffer in host memory: this testcase needs %.1f MiB "
                             "and this machine has %.1f MiB free (half of it may be used); use a smaller --bufferSize (-b, in MiB)",
                             host_total / 1048576.0, (double)pages * (double)psize / 1048576.0);
    }
    return MGPU_OK;
}

typedef struct run_state {
    int n;
    mgpu_buffer *src[64], *dst[64];
    mgpu_stream *stream[64];
    mgpu_event *start[64], *end[64], *warm[64], *total_end;
    mgpu_gate *gate[64];
    uint64_t want[64];
    double *samples;   /* (n + 1) * o->samples: per copy, then the total */
} run_state;

static void run_cleanup(run_state *st)
{
    /* Open any gate still held (error path) and drain the streams before
     * freeing buffers that queued copies may still use. */
    for (int i = 0; i < st->n; i++)
        if (st->gate[i]) {
            mgpu_gate_open(st->gate[i]);
            st->gate[i] = NULL;
        }
    for (int i = 0; i < st->n; i++)
        if (st->stream[i]) mgpu_stream_synchronize(st->stream[i]);
    mgpu_event_destroy(st->total_end);
    for (int i = 0; i < st->n; i++) {
        mgpu_event_destroy(st->start[i]);
        mgpu_event_destroy(st->end[i]);
        mgpu_event_destroy(st->warm[i]);
        mgpu_stream_destroy(st->stream[i]);
        mgpu_mem_free(st->src[i]);
        mgpu_mem_free(st->dst[i]);
    }
    free(st->samples);
}

static const char *where(int dev, char *buf, size_t len)
{
    if (dev < 0) snprintf(buf, len, "host");
    else snprintf(buf, len, "GPU %d", dev);
    return buf;
}

static mgpu_result alloc_side(mgpu_backend *be, int dev, size_t bytes, mgpu_buffer **out)
{
    return mgpu_mem_alloc(be, dev < 0 ? MGPU_MEM_PINNED : MGPU_MEM_DEVICE, dev < 0 ? -1 : dev, bytes, out);
}

/* One sample: hold every stream, queue warm-up copies, the start events,
 * loopCount copies and the end events, then open the gates, so the time
 * between the events holds copies only, not the host's enqueueing. */
static mgpu_result one_sample(run_state *st, const dispatch *d, const mgpu_copy_options *o,
                              mgpu_copy_engine how, report_mode mode, unsigned s)
{
    double gate_ms = o->gate_timeout_ms > 0 ? o->gate_timeout_ms : 60000.0;
    mgpu_fill_spec poison = {MGPU_FILL_RANDOM, 0xDEAD0000u + s, 0};
    for (int i = 0; i < st->n; i++) /* stale data from an earlier sample must not pass verification */
        MGPU_CHECK(mgpu_fill(st->stream[i], st->dst[i], 0, d->spec[i].bytes / 4, MGPU_I32, &poison));
    for (int i = 0; i < st->n; i++) {
        MGPU_CHECK(mgpu_gate_hold(st->stream[i], gate_ms, &st->gate[i]));
        for (int w = 0; w < MGPU_COPY_WARMUP; w++)
            MGPU_CHECK(mgpu_copy(st->stream[i], st->dst[i], 0, st->src[i], 0, d->spec[i].bytes, how));
    }
    /* The start waits until every stream is warm: otherwise, when copies
     * share a link, one stream's warm-up would be timed as another's copies
     * (nvbandwidth starts after stream 0's warm-up only). */
    for (int i = 1; i < st->n; i++) {
        MGPU_CHECK(mgpu_event_record(st->warm[i], st->stream[i]));
        MGPU_CHECK(mgpu_stream_wait_event(st->stream[0], st->warm[i]));
    }
    MGPU_CHECK(mgpu_event_record(st->start[0], st->stream[0]));
    for (int i = 1; i < st->n; i++) { /* every copy starts when the first does */
        MGPU_CHECK(mgpu_stream_wait_event(st->stream[i], st->start[0]));
        MGPU_CHECK(mgpu_event_record(st->start[i], st->stream[i]));
    }
    for (int i = 0; i < st->n; i++) {
        for (uint64_t l = 0; l < o->loop_count; l++)
            MGPU_CHECK(mgpu_copy(st->stream[i], st->dst[i], 0, st->src[i], 0, d->spec[i].bytes, how));
        MGPU_CHECK(mgpu_event_record(st->end[i], st->stream[i]));
        if (mode == REPORT_TOTAL && i > 0) MGPU_CHECK(mgpu_stream_wait_event(st->stream[0], st->end[i]));
    }
    if (mode == REPORT_TOTAL) MGPU_CHECK(mgpu_event_record(st->total_end, st->stream[0]));
    for (int i = 0; i < st->n; i++) {
        mgpu_gate *g = st->gate[i];
        st->gate[i] = NULL;
        MGPU_CHECK(mgpu_gate_open(g));
    }
    for (int i = 0; i < st->n; i++) MGPU_CHECK(mgpu_stream_synchronize(st->stream[i]));

    char a[16], b[16];
    for (int i = 0; i < st->n && !o->skip_verify; i++) {
        if (o->tamper) MGPU_CHECK(o->tamper(o->tamper_ctx, st->stream[i], st->dst[i], d->spec[i].bytes));
        uint64_t got = 0;
        MGPU_CHECK(mgpu_checksum(st->stream[i], st->dst[i], 0, d->spec[i].bytes / 4, MGPU_I32, &got));
        if (got != st->want[i])
            return mgpu_fail(MGPU_ERR_INTERNAL,
                             "data verification failed: after the %s copy %s -> %s (%zu bytes, sample %u) "
                             "the destination's checksum is %016llx, the source's %016llx; the copy "
                             "moved wrong data, so no bandwidth is reported",
                             mgpu_copy_engine_name(how), where(d->spec[i].src_dev, a, sizeof a),
                             where(d->spec[i].dst_dev, b, sizeof b), d->spec[i].bytes, s + 1,
                             (unsigned long long)got, (unsigned long long)st->want[i]);
    }

    unsigned ns = o->samples;
    for (int i = 0; i < st->n; i++) {
        double ms = 0;
        MGPU_CHECK(mgpu_event_elapsed_ms(st->start[i], st->end[i], &ms));
        if (!(ms > 0))
            return mgpu_fail(MGPU_ERR_INTERNAL, "the events around %llu copies measured %.6f ms; cannot "
                             "compute a bandwidth", (unsigned long long)o->loop_count, ms);
        st->samples[i * ns + s] = (double)d->spec[i].bytes * (double)o->loop_count / (ms * 1e-3) / 1e9;
    }
    if (mode == REPORT_TOTAL) {
        double ms = 0, bytes = 0;
        MGPU_CHECK(mgpu_event_elapsed_ms(st->start[0], st->total_end, &ms));
        for (int i = 0; i < st->n; i++) bytes += (double)d->spec[i].bytes;
        if (!(ms > 0))
            return mgpu_fail(MGPU_ERR_INTERNAL, "the events around the copies measured %.6f ms", ms);
        st->samples[st->n * ns + s] = bytes * (double)o->loop_count / (ms * 1e-3) / 1e9;
    }
    return MGPU_OK;
}

/* Measure a dispatch: out[0] is the first copy's bandwidth (REPORT_FIRST),
 * the total (REPORT_TOTAL), or out[i] each copy's (REPORT_EACH), in GB/s. */
static mgpu_result measure(mgpu_backend *be, const dispatch *d, const mgpu_copy_options *o,
                           mgpu_copy_engine how, report_mode mode, double *out)
{
    run_state st;
    memset(&st, 0, sizeof st);
    mgpu_result r = MGPU_OK;
    char saved[512] = "";
    MGPU_CHECK(check_fits(be, d));
    st.n = d->n;
    st.samples = calloc((size_t)(d->n + 1) * o->samples, sizeof *st.samples);
    if (!st.samples) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory");
    for (int i = 0; i < d->n; i++) {
        const copy_spec *c = &d->spec[i];
        MGPU_CHECKGOTO(alloc_side(be, c->src_dev, c->bytes, &st.src[i]), r, done);
        MGPU_CHECKGOTO(alloc_side(be, c->dst_dev, c->bytes, &st.dst[i]), r, done);
        MGPU_CHECKGOTO(mgpu_stream_create(be, c->issue_dev, 0, &st.stream[i]), r, done);
        MGPU_CHECKGOTO(mgpu_event_create(be, c->issue_dev, MGPU_EVENT_TIMING, &st.start[i]), r, done);
        MGPU_CHECKGOTO(mgpu_event_create(be, c->issue_dev, MGPU_EVENT_TIMING, &st.end[i]), r, done);
        MGPU_CHECKGOTO(mgpu_event_create(be, c->issue_dev, 0, &st.warm[i]), r, done);
        mgpu_fill_spec fill = {MGPU_FILL_RANDOM, 0xC0FFEEu + 7919u * (uint64_t)i, 0};
        MGPU_CHECKGOTO(mgpu_fill(st.stream[i], st.src[i], 0, c->bytes / 4, MGPU_I32, &fill), r, done);
        MGPU_CHECKGOTO(mgpu_checksum(st.stream[i], st.src[i], 0, c->bytes / 4, MGPU_I32, &st.want[i]), r, done);
    }
    MGPU_CHECKGOTO(mgpu_event_create(be, d->spec[0].issue_dev, MGPU_EVENT_TIMING, &st.total_end), r, done);
    for (unsigned s = 0; s < o->samples; s++) MGPU_CHECKGOTO(one_sample(&st, d, o, how, mode, s), r, done);

    unsigned ns = o->samples;
    if (mode == REPORT_TOTAL) out[0] = mgpu_copy_statistic(st.samples + (size_t)d->n * ns, ns, o->use_mean);
    else if (mode == REPORT_FIRST) out[0] = mgpu_copy_statistic(st.samples, ns, o->use_mean);
    else
        for (int i = 0; i < d->n; i++) out[i] = mgpu_copy_statistic(st.samples + (size_t)i * ns, ns, o->use_mean);
done:
    if (r != MGPU_OK) snprintf(saved, sizeof saved, "%s", mgpu_error_message());
    run_cleanup(&st);
    if (r != MGPU_OK) return mgpu_fail(r, "%s", saved); /* cleanup calls must not hide the cause */
    return MGPU_OK;
}

/*--- Peer access --------------------------------------------------------*/

/* 1 when a and b can map each other's memory; else adds an N/A note that
 * names the path between them. */
static mgpu_result peer_ok(mgpu_backend *be, int a, int b, mgpu_copy_result *res, int *ok)
{
    int ab = 0, ba = 0;
    MGPU_CHECK(mgpu_peer_can_access(be, a, b, &ab));
    MGPU_CHECK(mgpu_peer_can_access(be, b, a, &ba));
    *ok = ab && ba;
    if (!*ok && res) {
        const mgpu_topo *t = mgpu_backend_topo(be);
        int ga = t ? mgpu_topo_gpu_index(t, 0, a) : -1, gb = t ? mgpu_topo_gpu_index(t, 0, b) : -1;
        if (ga >= 0 && gb >= 0) {
            mgpu_topo_path p = mgpu_topo_gpu_path(t, ga, gb);
            add_note(res, "N/A GPU %d <-> GPU %d: no peer access between them (path %s%s)", a, b,
                     mgpu_path_type_name(p.type),
                     p.type == MGPU_PATH_SYS ? ", across CPU sockets" : "");
        } else {
            add_note(res, "N/A GPU %d <-> GPU %d: no peer access between them", a, b);
        }
    }
    return MGPU_OK;
}

typedef struct peer_set {
    int n;
    int a[128], b[128];
} peer_set;

/* Both backends name CUDA's cudaErrorPeerAccessAlreadyEnabled in the
 * message; dev.h has no "is it enabled?" query, so this is how we tell. */
static int already_enabled(void)
{
    const char *m = mgpu_error_message();
    return mgpu_error_code() == MGPU_ERR_PEER && (strstr(m, "AlreadyEnabled") || strstr(m, "already enabled"));
}

/* Enable both directions for the pair, as nvbandwidth does. A direction
 * someone else enabled is used as it is and left enabled; the ones enabled
 * here are remembered so peers_off undoes exactly those. */
static mgpu_result peers_on(mgpu_backend *be, peer_set *ps, int a, int b)
{
    int dirs[2][2] = {{a, b}, {b, a}};
    for (int k = 0; k < 2; k++) {
        if (ps->n >= 128) return mgpu_fail(MGPU_ERR_INTERNAL, "too many peer pairs in one dispatch");
        mgpu_result r = mgpu_peer_enable(be, dirs[k][0], dirs[k][1]);
        if (r != MGPU_OK && already_enabled()) {
            mgpu_error_clear();
            continue;
        }
        MGPU_CHECK(r);
        ps->a[ps->n] = dirs[k][0];
        ps->b[ps->n++] = dirs[k][1];
    }
    return MGPU_OK;
}

static void peers_off(mgpu_backend *be, peer_set *ps)
{
    char saved[512];
    snprintf(saved, sizeof saved, "%s", mgpu_error_message());
    mgpu_result code = mgpu_error_code();
    for (int i = ps->n - 1; i >= 0; i--) mgpu_peer_disable(be, ps->a[i], ps->b[i]);
    ps->n = 0;
    if (code != MGPU_OK) mgpu_fail(code, "%s", saved); /* keep the message that matters */
}

/*--- Patterns -----------------------------------------------------------*/

static int issuer_of(const mgpu_copy_case *tc, int src, int dst)
{
    return tc->issuer == MGPU_ISSUE_READER ? dst : src;
}

/* host <-> device patterns: one dispatch per GPU, the measured copy first. */
static mgpu_result run_host(mgpu_backend *be, const mgpu_copy_case *tc, const mgpu_copy_options *o, int ndev,
                            mgpu_copy_result *res)
{
    mgpu_copy_matrix *m = &res->mat[0];
    size_t b = o->buffer_bytes;
    /* CE interference copies are twice as large so they outlast the measured
     * one, as nvbandwidth does; the SM kinds use equal sizes. */
    size_t ib = tc->engine == MGPU_COPY_CE ? 2 * b : b;
    for (int d = 0; d < ndev; d++) {
        dispatch dp = {0};
        int hs = tc->to_device ? -1 : d, hd = tc->to_device ? d : -1;
        dispatch_add(&dp, hs, hd, d, b);
        if (tc->pattern == MGPU_PAT_HOST_DEVICE_BIDIR || tc->pattern == MGPU_PAT_ALL_HOST_BIDIR)
            dispatch_add(&dp, hd, hs, d, ib);
        if (tc->pattern == MGPU_PAT_ALL_HOST || tc->pattern == MGPU_PAT_ALL_HOST_BIDIR)
            for (int e = 0; e < ndev; e++) {
                if (e == d) continue;
                int es = tc->to_device ? -1 : e, ed = tc->to_device ? e : -1;
                dispatch_add(&dp, es, ed, e, ib);
                if (tc->pattern == MGPU_PAT_ALL_HOST_BIDIR) dispatch_add(&dp, ed, es, e, ib);
            }
        double v = 0;
        MGPU_CHECK(measure(be, &dp, o, tc->engine, REPORT_FIRST, &v));
        mat_set(m, 0, d, v);
    }
    return MGPU_OK;
}

static mgpu_result run_local(mgpu_backend *be, const mgpu_copy_case *tc, const mgpu_copy_options *o, int ndev,
                             mgpu_copy_result *res)
{
    for (int d = 0; d < ndev; d++) {
        dispatch dp = {0};
        dispatch_add(&dp, d, d, d, o->buffer_bytes);
        double v = 0;
        MGPU_CHECK(measure(be, &dp, o, tc->engine, REPORT_FIRST, &v));
        mat_set(&res->mat[0], 0, d, v);
    }
    return MGPU_OK;
}

/* Device-to-device, uni- and bidirectional: cell (row r, column c). Read
 * moves c -> r, write r -> c (nvbandwidth's convention); the bidirectional
 * form also runs the opposite copy at once and reports both and the sum. */
static mgpu_result run_d2d(mgpu_backend *be, const mgpu_copy_case *tc, const mgpu_copy_options *o, int ndev,
                           mgpu_copy_result *res)
{
    int bidir = tc->pattern == MGPU_PAT_D2D_BIDIR;
    for (int r = 0; r < ndev; r++)
        for (int c = 0; c < ndev; c++) {
            if (r == c) continue;
            int ok = 0;
            MGPU_CHECK(peer_ok(be, r, c, res, &ok));
            if (!ok) continue;
            dispatch dp = {0};
            if (bidir) {
                dispatch_add(&dp, c, r, issuer_of(tc, c, r), o->buffer_bytes);
                dispatch_add(&dp, r, c, issuer_of(tc, r, c), o->buffer_bytes);
            } else if (tc->issuer == MGPU_ISSUE_READER) {
                dispatch_add(&dp, c, r, r, o->buffer_bytes);
            } else {
                dispatch_add(&dp, r, c, r, o->buffer_bytes);
            }
            peer_set ps = {0};
            double v[2] = {0, 0};
            mgpu_result rr = peers_on(be, &ps, r, c);
            if (rr == MGPU_OK) rr = measure(be, &dp, o, tc->engine, bidir ? REPORT_EACH : REPORT_FIRST, v);
            peers_off(be, &ps);
            MGPU_CHECK(rr);
            mat_set(&res->mat[0], r, c, v[0]);
            if (bidir) {
                mat_set(&res->mat[1], r, c, v[1]);
                mat_set(&res->mat[2], r, c, v[0] + v[1]);
            }
        }
    return MGPU_OK;
}

/* all_to_one / one_to_all: for each GPU, one dispatch with a copy per
 * accessible peer, reported as total bytes over the time all took. */
static mgpu_result run_group(mgpu_backend *be, const mgpu_copy_case *tc, const mgpu_copy_options *o, int ndev,
                             mgpu_copy_result *res)
{
    for (int one = 0; one < ndev; one++) {
        dispatch dp = {0};
        peer_set ps = {0};
        mgpu_result rr = MGPU_OK;
        for (int e = 0; e < ndev && rr == MGPU_OK; e++) {
            if (e == one) continue;
            int ok = 0;
            rr = peer_ok(be, one, e, res, &ok);
            if (rr != MGPU_OK || !ok) continue;
            int src = tc->to_device ? e : one, dst = tc->to_device ? one : e;
            dispatch_add(&dp, src, dst, issuer_of(tc, src, dst), o->buffer_bytes);
            rr = peers_on(be, &ps, one, e);
        }
        double v = 0;
        if (rr == MGPU_OK && dp.n > 0) rr = measure(be, &dp, o, tc->engine, REPORT_TOTAL, &v);
        peers_off(be, &ps);
        MGPU_CHECK(rr);
        if (dp.n > 0) mat_set(&res->mat[0], 0, one, v);
    }
    return MGPU_OK;
}

static mgpu_result latency_on(mgpu_backend *be, int dev, mgpu_buffer *buf, double *ns)
{
    mgpu_stream *s = NULL;
    MGPU_CHECK(mgpu_stream_create(be, dev, 0, &s));
    mgpu_result r = mgpu_memory_latency(s, buf, MGPU_COPY_LATENCY_BYTES, MGPU_COPY_LATENCY_ACCESSES, ns);
    mgpu_stream_destroy(s);
    return r;
}

static mgpu_result run_latency(mgpu_backend *be, const mgpu_copy_case *tc, int ndev, mgpu_copy_result *res)
{
    mgpu_copy_matrix *m = &res->mat[0];
    for (int p = 0; p < ndev; p++) {
        mgpu_buffer *buf = NULL;
        if (tc->pattern == MGPU_PAT_LATENCY_HOST) {
            MGPU_CHECK(mgpu_mem_alloc(be, MGPU_MEM_PINNED, -1, MGPU_COPY_LATENCY_BYTES, &buf));
            double ns = 0;
            mgpu_result r = latency_on(be, p, buf, &ns);
            mgpu_mem_free(buf);
            MGPU_CHECK(r);
            mat_set(m, 0, p, ns);
            continue;
        }
        /* column p owns the memory, row s chases pointers through it */
        MGPU_CHECK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, p, MGPU_COPY_LATENCY_BYTES, &buf));
        mgpu_result r = MGPU_OK;
        for (int s = 0; s < ndev && r == MGPU_OK; s++) {
            if (s == p) continue;
            int ok = 0;
            r = peer_ok(be, s, p, res, &ok);
            if (r != MGPU_OK || !ok) continue;
            peer_set ps = {0};
            double ns = 0;
            r = peers_on(be, &ps, s, p);
            if (r == MGPU_OK) r = latency_on(be, s, buf, &ns);
            peers_off(be, &ps);
            if (r == MGPU_OK) mat_set(m, s, p, ns);
        }
        mgpu_mem_free(buf);
        MGPU_CHECK(r);
    }
    return MGPU_OK;
}

/*--- One testcase ---------------------------------------------------------*/

static int rows_of(const mgpu_copy_case *tc, int ndev)
{
    switch (tc->pattern) {
    case MGPU_PAT_D2D:
    case MGPU_PAT_D2D_BIDIR:
    case MGPU_PAT_LATENCY_D2D: return ndev;
    default: return 1;
    }
}

static mgpu_result waiver(mgpu_backend *be, const mgpu_copy_case *tc, int ndev, mgpu_copy_result *res, int *waived)
{
    *waived = 0;
    if (ndev < tc->min_gpus) {
        *waived = 1;
        snprintf(res->reason, sizeof res->reason, "needs %d GPUs, this machine has %d", tc->min_gpus, ndev);
        return MGPU_OK;
    }
    if (!tc->needs_peer) return MGPU_OK;
    for (int a = 0; a < ndev; a++)
        for (int b = 0; b < ndev; b++) {
            if (a == b) continue;
            int ok = 0;
            MGPU_CHECK(peer_ok(be, a, b, NULL, &ok));
            if (ok) return MGPU_OK;
        }
    *waived = 1;
    snprintf(res->reason, sizeof res->reason,
             "needs a pair of GPUs with peer access; none of the %d GPUs can access another "
             "(P2P disabled, or every path crosses CPU sockets)", ndev);
    return MGPU_OK;
}

static mgpu_result run_case(mgpu_backend *be, const mgpu_copy_case *tc, const mgpu_copy_options *o, int ndev,
                            mgpu_copy_result *res)
{
    int latency = tc->pattern == MGPU_PAT_LATENCY_HOST || tc->pattern == MGPU_PAT_LATENCY_D2D;
    res->unit = latency ? "ns" : "GB/s";
    res->bytes = latency ? MGPU_COPY_LATENCY_BYTES : o->buffer_bytes;
    int rows = rows_of(tc, ndev);
    if (tc->pattern == MGPU_PAT_D2D_BIDIR) {
        int rd = tc->issuer == MGPU_ISSUE_READER;
        const char *part[3] = {rd ? "Read1" : "Write1", rd ? "Read2" : "Write2", "Total"};
        const char *sfx[3] = {rd ? "_read1" : "_write1", rd ? "_read2" : "_write2", "_total"};
        for (int k = 0; k < 3; k++) {
            char key[96], title[128];
            snprintf(key, sizeof key, "%s%s", tc->name, sfx[k]);
            snprintf(title, sizeof title, "%s %s bandwidth (GB/s)", tc->title, part[k]);
            MGPU_CHECK(mat_init(&res->mat[k], key, title, rows, ndev));
            res->nmat = k + 1;
        }
    } else {
        MGPU_CHECK(mat_init(&res->mat[0], tc->name, tc->title, rows, ndev));
        res->nmat = 1;
    }
    switch (tc->pattern) {
    case MGPU_PAT_HOST_DEVICE:
    case MGPU_PAT_HOST_DEVICE_BIDIR:
    case MGPU_PAT_ALL_HOST:
    case MGPU_PAT_ALL_HOST_BIDIR: MGPU_CHECK(run_host(be, tc, o, ndev, res)); break;
    case MGPU_PAT_D2D:
    case MGPU_PAT_D2D_BIDIR: MGPU_CHECK(run_d2d(be, tc, o, ndev, res)); break;
    case MGPU_PAT_ALL_TO_ONE:
    case MGPU_PAT_ONE_TO_ALL: MGPU_CHECK(run_group(be, tc, o, ndev, res)); break;
    case MGPU_PAT_LOCAL: MGPU_CHECK(run_local(be, tc, o, ndev, res)); break;
    case MGPU_PAT_LATENCY_HOST:
    case MGPU_PAT_LATENCY_D2D: MGPU_CHECK(run_latency(be, tc, ndev, res)); break;
    }
    for (int k = 0; k < res->nmat; k++) mat_sum(&res->mat[k]);
    if (tc->pattern == MGPU_PAT_LOCAL) res->local_rw_sum = 2.0 * res->mat[0].sum;
    return MGPU_OK;
}

mgpu_result mgpu_copy_run(mgpu_backend *be, const mgpu_copy_case *tc, const mgpu_copy_options *o,
                          mgpu_copy_result *out)
{
    if (!be || !tc || !o || !out) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_copy_run: missing argument");
    memset(out, 0, sizeof *out);
    out->tc = tc;
    MGPU_CHECK(mgpu_copy_options_check(o));
    int ndev = 0, waived = 0;
    MGPU_CHECK(mgpu_device_count(be, &ndev));
    mgpu_result r = waiver(be, tc, ndev, out, &waived);
    if (r == MGPU_OK && waived) {
        out->status = MGPU_COPY_WAIVED;
        return MGPU_OK;
    }
    if (r == MGPU_OK) r = run_case(be, tc, o, ndev, out);
    if (r != MGPU_OK) {
        /* A failed testcase is a result: the caller reports it and goes on. */
        out->status = MGPU_COPY_ERROR;
        out->code = r;
        snprintf(out->reason, sizeof out->reason, "%s", mgpu_error_message());
        mgpu_error_clear();
    }
    return MGPU_OK;
}
