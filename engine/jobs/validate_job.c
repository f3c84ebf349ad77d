/* validate_job.c - the worker job "validate_ranks": every rank measures
 * itself, so `mgpulab validate` can name a rank that holds the others back
 * from measured per-rank times (not from any fault list).
 *
 * Each rank, on the world communicator's stream, `iters` times: a unit of
 * device work (a local copy of work_bytes) between events e0 and e1, then an
 * all_reduce of coll_bytes between e1 and e2. A rank that is slow (a
 * throttled GPU, a busy host, the sim's straggler fault) shows a longer work
 * time and a shorter collective time - it arrives last, so it waits least -
 * while its peers' collective times grow by what they waited for it. Then
 * `iters` pinned host-to-device copies time the rank's PCIe link.
 *
 * With per_host > 0 and more ranks than that (several nodes), each rank then
 * sends net_bytes to the rank with its local index on the next node and
 * receives from the one on the previous node, all pairs at once (every
 * NIC busy in both directions, as in a ring's inter-node hop): the
 * inter-node bandwidth of each NIC pair.
 *
 * params: {work_bytes, coll_bytes, iters, per_host, net_bytes} (all optional)
 * Every rank sends one "rank" message:
 *   {rank, dev, host, work_us, coll_us, local_copy_gbs, h2d_gbs[, net_peer, net_us, net_gbs]}
 * (medians over the iterations; GB/s = 1e9 B/s, a local copy counted once). */
#include "mgpu/rt.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_WORK (64ull << 20)
#define DEFAULT_COLL (1ull << 20)
#define DEFAULT_ITERS 8
#define MAX_ITERS 200

typedef struct rank_bufs {
    mgpu_buffer *a, *b, *coll, *pinned, *net_out, *net_in;
    mgpu_event *ev[3 * MAX_ITERS + 2];
    int nev;
} rank_bufs;

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static mgpu_result read_size(json_t *p, const char *key, uint64_t dflt, uint64_t lo, uint64_t hi, uint64_t *out)
{
    json_t *v = json_object_get(p, key);
    *out = dflt;
    if (!v || json_is_null(v)) return MGPU_OK;
    if (!json_is_integer(v) || json_integer_value(v) < (json_int_t)lo || json_integer_value(v) > (json_int_t)hi)
        return mgpu_fail(MGPU_ERR_INVALID, "validate_ranks job: %s must be an integer in %llu..%llu", key,
                         (unsigned long long)lo, (unsigned long long)hi);
    *out = (uint64_t)json_integer_value(v);
    return MGPU_OK;
}

static void free_bufs(rank_bufs *b)
{
    for (int i = 0; i < b->nev; i++) mgpu_event_destroy(b->ev[i]);
    mgpu_mem_free(b->a);
    mgpu_mem_free(b->b);
    mgpu_mem_free(b->coll);
    mgpu_mem_free(b->pinned);
    mgpu_mem_free(b->net_out);
    mgpu_mem_free(b->net_in);
}

/* Rank r's data to the same local index on the next node, from the
 * previous node's, `iters` times; the median time of one exchange. */
static mgpu_result measure_net(mgpu_worker *w, rank_bufs *b, int per_host, uint64_t bytes, int iters, json_t *out)
{
    mgpu_backend *be = mgpu_worker_backend(w);
    int dev = mgpu_worker_device(w);
    mgpu_comm *c;
    MGPU_CHECK(mgpu_worker_world(w, &c));
    int me = mgpu_comm_rank(c), n = mgpu_comm_size(c);
    if (per_host <= 0 || n <= per_host) return MGPU_OK;
    int to = (me + per_host) % n, from = (me - per_host + n) % n;
    mgpu_stream *s = mgpu_comm_stream(c);
    size_t count = bytes / 4;
    MGPU_CHECK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, dev, count * 4, &b->net_out));
    MGPU_CHECK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, dev, count * 4, &b->net_in));
    mgpu_fill_spec one = {MGPU_FILL_CONST, 0, 1.0};
    MGPU_CHECK(mgpu_fill(s, b->net_out, 0, count, MGPU_F32, &one));
    double t[MAX_ITERS];
    for (int i = -1; i < iters; i++) { /* i = -1: connections set up, not timed */
        MGPU_CHECK(mgpu_event_record(b->ev[0], s));
        MGPU_CHECK(mgpu_group_start());
        MGPU_CHECK(mgpu_send(c, b->net_out, 0, count, MGPU_F32, to, s));
        MGPU_CHECK(mgpu_recv(c, b->net_in, 0, count, MGPU_F32, from, s));
        MGPU_CHECK(mgpu_group_end());
        MGPU_CHECK(mgpu_event_record(b->ev[1], s));
        MGPU_CHECK(mgpu_stream_synchronize(s));
        double ms;
        MGPU_CHECK(mgpu_event_elapsed_ms(b->ev[0], b->ev[1], &ms));
        if (i >= 0) t[i] = ms * 1000.0;
    }
    double us = median(t, iters);
    json_object_set_new(out, "net_peer", json_integer(to));
    json_object_set_new(out, "net_bytes", json_integer((json_int_t)(count * 4)));
    json_object_set_new(out, "net_us", json_real(us));
    json_object_set_new(out, "net_gbs", json_real(us > 0 ? (double)(count * 4) / (us * 1000.0) : 0.0));
    return MGPU_OK;
}

static mgpu_result measure(mgpu_worker *w, rank_bufs *b, uint64_t work, uint64_t coll, int iters, json_t **out)
{
    mgpu_backend *be = mgpu_worker_backend(w);
    int dev = mgpu_worker_device(w);
    mgpu_comm *c;
    MGPU_CHECK(mgpu_worker_world(w, &c));
    mgpu_stream *s = mgpu_comm_stream(c);
    MGPU_CHECK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, dev, work, &b->a));
    MGPU_CHECK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, dev, work, &b->b));
    MGPU_CHECK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, dev, coll, &b->coll));
    MGPU_CHECK(mgpu_mem_alloc(be, MGPU_MEM_PINNED, dev, work, &b->pinned));
    for (int i = 0; i < 3 * iters + 2; i++) {
        MGPU_CHECK(mgpu_event_create(be, dev, MGPU_EVENT_TIMING, &b->ev[i]));
        b->nev++;
    }
    mgpu_fill_spec zero = {MGPU_FILL_CONST, 0, 0.0};
    MGPU_CHECK(mgpu_fill(s, b->a, 0, work / 4, MGPU_F32, &zero));
    MGPU_CHECK(mgpu_fill(s, b->coll, 0, coll / 4, MGPU_F32, &zero));
    memset(b->pinned->ptr, 0, work);
    /* warm-up: the first collective sets up connections */
    MGPU_CHECK(mgpu_copy(s, b->b, 0, b->a, 0, work, MGPU_COPY_CE));
    MGPU_CHECK(mgpu_all_reduce(c, b->coll, 0, b->coll, 0, coll / 4, MGPU_F32, MGPU_SUM, s));
    MGPU_CHECK(mgpu_stream_synchronize(s));

    for (int i = 0; i < iters; i++) {
        MGPU_CHECK(mgpu_event_record(b->ev[3 * i], s));
        MGPU_CHECK(mgpu_copy(s, b->b, 0, b->a, 0, work, MGPU_COPY_CE));
        MGPU_CHECK(mgpu_event_record(b->ev[3 * i + 1], s));
        MGPU_CHECK(mgpu_all_reduce(c, b->coll, 0, b->coll, 0, coll / 4, MGPU_F32, MGPU_SUM, s));
        MGPU_CHECK(mgpu_event_record(b->ev[3 * i + 2], s));
    }
    mgpu_event *h0 = b->ev[3 * iters], *h1 = b->ev[3 * iters + 1];
    MGPU_CHECK(mgpu_event_record(h0, s));
    for (int i = 0; i < iters; i++) MGPU_CHECK(mgpu_copy(s, b->a, 0, b->pinned, 0, work, MGPU_COPY_CE));
    MGPU_CHECK(mgpu_event_record(h1, s));
    MGPU_CHECK(mgpu_stream_synchronize(s));

    double wt[MAX_ITERS], ct[MAX_ITERS], ms;
    for (int i = 0; i < iters; i++) {
        MGPU_CHECK(mgpu_event_elapsed_ms(b->ev[3 * i], b->ev[3 * i + 1], &ms));
        wt[i] = ms * 1000.0;
        MGPU_CHECK(mgpu_event_elapsed_ms(b->ev[3 * i + 1], b->ev[3 * i + 2], &ms));
        ct[i] = ms * 1000.0;
    }
    MGPU_CHECK(mgpu_event_elapsed_ms(h0, h1, &ms));
    double work_us = median(wt, iters), coll_us = median(ct, iters);
    mgpu_device_info info; /* its host: on sim, the modelled host */
    MGPU_CHECK(mgpu_device_info_get(mgpu_worker_backend(w), dev, &info));
    *out = json_pack("{s:i, s:i, s:s, s:f, s:f, s:f, s:f}", "rank", mgpu_worker_rank(w), "dev", dev, "host", info.host,
                     "work_us", work_us, "coll_us", coll_us, "local_copy_gbs",
                     work_us > 0 ? (double)work / (work_us * 1000.0) : 0.0, "h2d_gbs",
                     ms > 0 ? (double)work * iters / (ms * 1e6) : 0.0);
    return MGPU_OK;
}

static mgpu_result run(mgpu_worker *w, json_t *params)
{
    if (params && !json_is_object(params) && !json_is_null(params))
        return mgpu_fail(MGPU_ERR_INVALID, "validate_ranks job: params must be an object");
    uint64_t work, coll, iters, per_host, net;
    MGPU_CHECK(read_size(params, "per_host", 0, 0, 4096, &per_host));
    MGPU_CHECK(read_size(params, "net_bytes", DEFAULT_COLL, 4, 1ull << 32, &net));
    MGPU_CHECK(read_size(params, "work_bytes", DEFAULT_WORK, 16, 1ull << 34, &work));
    MGPU_CHECK(read_size(params, "coll_bytes", DEFAULT_COLL, 4, 1ull << 32, &coll));
    MGPU_CHECK(read_size(params, "iters", DEFAULT_ITERS, 1, MAX_ITERS, &iters));
    work &= ~15ull;
    coll &= ~3ull;
    rank_bufs b;
    memset(&b, 0, sizeof b);
    json_t *doc = NULL;
    mgpu_result r = measure(w, &b, work, coll, (int)iters, &doc);
    if (r == MGPU_OK) r = measure_net(w, &b, (int)per_host, net & ~3ull, (int)iters, doc);
    free_bufs(&b);
    MGPU_CHECK(r);
    r = mgpu_worker_send(w, "rank", doc);
    json_decref(doc);
    MGPU_CHECK(r);
    return MGPU_OK;
}

const mgpu_job_handler mgpu_job_validate_ranks = {.type = "validate_ranks", .run = run};
