/* copy_bench.c - the copy benchmark's patterns: they turn a testcase
 * descriptor (copy_cases.c) into sets of concurrent copies, measured with
 * nvbandwidth's method (copy_dispatch.c), and into matrices. Options and the
 * sample statistic are below both, in copy_options.c. */
#include "mgpu/copybench.h"
#include "bench/copy_dispatch.h"
#include "mgpu/topo.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
        copy_dispatch_add(&dp, hs, hd, d, b);
        if (tc->pattern == MGPU_PAT_HOST_DEVICE_BIDIR || tc->pattern == MGPU_PAT_ALL_HOST_BIDIR)
            copy_dispatch_add(&dp, hd, hs, d, ib);
        if (tc->pattern == MGPU_PAT_ALL_HOST || tc->pattern == MGPU_PAT_ALL_HOST_BIDIR)
            for (int e = 0; e < ndev; e++) {
                if (e == d) continue;
                int es = tc->to_device ? -1 : e, ed = tc->to_device ? e : -1;
                copy_dispatch_add(&dp, es, ed, e, ib);
                if (tc->pattern == MGPU_PAT_ALL_HOST_BIDIR) copy_dispatch_add(&dp, ed, es, e, ib);
            }
        double v = 0;
        MGPU_CHECK(copy_measure(be, &dp, o, tc->engine, REPORT_FIRST, &v));
        mat_set(m, 0, d, v);
    }
    return MGPU_OK;
}

static mgpu_result run_local(mgpu_backend *be, const mgpu_copy_case *tc, const mgpu_copy_options *o, int ndev,
                             mgpu_copy_result *res)
{
    for (int d = 0; d < ndev; d++) {
        dispatch dp = {0};
        copy_dispatch_add(&dp, d, d, d, o->buffer_bytes);
        double v = 0;
        MGPU_CHECK(copy_measure(be, &dp, o, tc->engine, REPORT_FIRST, &v));
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
                copy_dispatch_add(&dp, c, r, issuer_of(tc, c, r), o->buffer_bytes);
                copy_dispatch_add(&dp, r, c, issuer_of(tc, r, c), o->buffer_bytes);
            } else if (tc->issuer == MGPU_ISSUE_READER) {
                copy_dispatch_add(&dp, c, r, r, o->buffer_bytes);
            } else {
                copy_dispatch_add(&dp, r, c, r, o->buffer_bytes);
            }
            peer_set ps = {0};
            double v[2] = {0, 0};
            mgpu_result rr = peers_on(be, &ps, r, c);
            if (rr == MGPU_OK) rr = copy_measure(be, &dp, o, tc->engine, bidir ? REPORT_EACH : REPORT_FIRST, v);
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
            copy_dispatch_add(&dp, src, dst, issuer_of(tc, src, dst), o->buffer_bytes);
            rr = peers_on(be, &ps, one, e);
        }
        double v = 0;
        if (rr == MGPU_OK && dp.n > 0) rr = copy_measure(be, &dp, o, tc->engine, REPORT_TOTAL, &v);
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
