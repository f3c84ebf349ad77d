/* validate_load_job.c - the worker job "validate_load" (`mgpulab validate
 * --sustained`): every rank keeps its GPU busy for a while with what a
 * training job does - HBM copies, PCIe both ways, an all_reduce - and
 * reports, window by window, the rate of each and the all_reduce results
 * that came back wrong, so drift (clocks falling as the GPU heats) and
 * errors over time show.
 *
 * Time is the device's, between events: on a GPU that is the wall clock,
 * on the sim the model's clock (so a test can ask for 3 s of load and
 * finish in a few seconds of host time).
 *
 * Every rank must make the same number of all_reduce calls: one calibration
 * round is timed, the ranks agree on the slowest (an all_reduce with MAX),
 * and each window runs the same count of rounds everywhere.
 *
 * params: {duration_s, windows, copy_bytes, pcie_bytes, coll_bytes}
 * Every rank sends one "rank" message: {rank, dev, host, rounds_per_window,
 * windows: [{t_s, hbm_gbs, h2d_gbs, d2h_gbs, busbw_gbs, wrong}], wrong} -
 * GB/s = 1e9 B/s, a copy counted once, all_reduce busbw as nccl-tests'. */
#include "mgpu/rt.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WINDOWS 120
#define CHECK_ELEMS 1024

typedef struct load_bufs {
    mgpu_buffer *a, *b, *dev_pcie, *host_pcie, *send, *recv, *check;
    mgpu_event *ev[5];
} load_bufs;

static void free_bufs(load_bufs *b)
{
    for (int i = 0; i < 5; i++) mgpu_event_destroy(b->ev[i]);
    mgpu_mem_free(b->a);
    mgpu_mem_free(b->b);
    mgpu_mem_free(b->dev_pcie);
    mgpu_mem_free(b->host_pcie);
    mgpu_mem_free(b->send);
    mgpu_mem_free(b->recv);
    mgpu_mem_free(b->check);
}

static double num_param(json_t *p, const char *k, double dflt, double lo, double hi, int *bad)
{
    json_t *v = json_object_get(p, k);
    if (!v || json_is_null(v)) return dflt;
    double x = json_number_value(v);
    if (!json_is_number(v) || !(x >= lo && x <= hi)) *bad = 1;
    return x;
}

typedef struct round_t {
    double hbm_ms, h2d_ms, d2h_ms, ar_ms;
    long wrong;
} round_t;

/* One round: a local copy, H2D, D2H, an all_reduce of ones (each element
 * must come back as the rank count), its first elements read back. */
static mgpu_result one_round(mgpu_comm *c, mgpu_stream *s, load_bufs *b, uint64_t copy, uint64_t pcie, size_t count,
                             round_t *out)
{
    MGPU_CHECK(mgpu_event_record(b->ev[0], s));
    MGPU_CHECK(mgpu_copy(s, b->b, 0, b->a, 0, copy, MGPU_COPY_CE));
    MGPU_CHECK(mgpu_event_record(b->ev[1], s));
    MGPU_CHECK(mgpu_copy(s, b->dev_pcie, 0, b->host_pcie, 0, pcie, MGPU_COPY_CE));
    MGPU_CHECK(mgpu_event_record(b->ev[2], s));
    MGPU_CHECK(mgpu_copy(s, b->host_pcie, 0, b->dev_pcie, 0, pcie, MGPU_COPY_CE));
    MGPU_CHECK(mgpu_event_record(b->ev[3], s));
    MGPU_CHECK(mgpu_all_reduce(c, b->send, 0, b->recv, 0, count, MGPU_F32, MGPU_SUM, s));
    MGPU_CHECK(mgpu_event_record(b->ev[4], s));
    size_t k = count < CHECK_ELEMS ? count : CHECK_ELEMS;
    MGPU_CHECK(mgpu_copy(s, b->check, 0, b->recv, 0, k * 4, MGPU_COPY_CE));
    MGPU_CHECK(mgpu_stream_synchronize(s));
    double *ms[] = {&out->hbm_ms, &out->h2d_ms, &out->d2h_ms, &out->ar_ms};
    for (int i = 0; i < 4; i++) MGPU_CHECK(mgpu_event_elapsed_ms(b->ev[i], b->ev[i + 1], ms[i]));
    const float *v = b->check->ptr;
    float want = (float)mgpu_comm_size(c);
    out->wrong = 0;
    for (size_t i = 0; i < k; i++) out->wrong += v[i] != want;
    return MGPU_OK;
}

static mgpu_result run_load(mgpu_worker *w, load_bufs *b, double duration_s, int windows, uint64_t copy,
                            uint64_t pcie, uint64_t coll, json_t **out)
{
    mgpu_backend *be = mgpu_worker_backend(w);
    int dev = mgpu_worker_device(w);
    mgpu_comm *c;
    MGPU_CHECK(mgpu_worker_world(w, &c));
    mgpu_stream *s = mgpu_comm_stream(c);
    int n = mgpu_comm_size(c);
    size_t count = coll / 4;
    MGPU_CHECK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, dev, copy, &b->a));
    MGPU_CHECK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, dev, copy, &b->b));
    MGPU_CHECK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, dev, pcie, &b->dev_pcie));
    MGPU_CHECK(mgpu_mem_alloc(be, MGPU_MEM_PINNED, dev, pcie, &b->host_pcie));
    MGPU_CHECK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, dev, count * 4, &b->send));
    MGPU_CHECK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, dev, count * 4, &b->recv));
    MGPU_CHECK(mgpu_mem_alloc(be, MGPU_MEM_PINNED, dev, CHECK_ELEMS * 4, &b->check));
    for (int i = 0; i < 5; i++) MGPU_CHECK(mgpu_event_create(be, dev, MGPU_EVENT_TIMING, &b->ev[i]));
    mgpu_fill_spec zero = {MGPU_FILL_CONST, 0, 0.0}, one = {MGPU_FILL_CONST, 0, 1.0};
    MGPU_CHECK(mgpu_fill(s, b->a, 0, copy / 4, MGPU_F32, &zero));
    MGPU_CHECK(mgpu_fill(s, b->send, 0, count, MGPU_F32, &one));
    memset(b->host_pcie->ptr, 0, pcie);

    /* calibrate: the slowest rank's round sets every rank's count */
    round_t r;
    MGPU_CHECK(one_round(c, s, b, copy, pcie, count, &r)); /* warm-up: connections */
    MGPU_CHECK(one_round(c, s, b, copy, pcie, count, &r));
    float *slowest = b->check->ptr;
    mgpu_fill_spec mine = {MGPU_FILL_CONST, 0, r.hbm_ms + r.h2d_ms + r.d2h_ms + r.ar_ms};
    MGPU_CHECK(mgpu_fill(s, b->recv, 0, 1, MGPU_F32, &mine));
    MGPU_CHECK(mgpu_all_reduce(c, b->recv, 0, b->recv, 0, 1, MGPU_F32, MGPU_MAX, s));
    MGPU_CHECK(mgpu_copy(s, b->check, 0, b->recv, 0, 4, MGPU_COPY_CE));
    MGPU_CHECK(mgpu_stream_synchronize(s));
    double round_ms = slowest[0] > 0 ? slowest[0] : 1e-3;
    long rounds = (long)ceil(duration_s * 1000.0 / windows / round_ms);
    if (rounds < 1) rounds = 1;
    if (rounds > 1000000) rounds = 1000000;

    json_t *wins = json_array();
    long wrong_total = 0;
    double t = 0, bf = 2.0 * (n - 1) / (n > 0 ? n : 1);
    for (int wi = 0; wi < windows; wi++) {
        double hbm = 0, h2d = 0, d2h = 0, ar = 0;
        long wrong = 0;
        for (long k = 0; k < rounds; k++) {
            mgpu_result res = one_round(c, s, b, copy, pcie, count, &r);
            if (res != MGPU_OK) {
                json_decref(wins);
                return res;
            }
            hbm += r.hbm_ms, h2d += r.h2d_ms, d2h += r.d2h_ms, ar += r.ar_ms, wrong += r.wrong;
        }
        t += (hbm + h2d + d2h + ar) / 1000.0;
        wrong_total += wrong;
        json_array_append_new(wins, json_pack("{s:f, s:f, s:f, s:f, s:f, s:I}", "t_s", t, "hbm_gbs",
                                              hbm > 0 ? (double)copy * rounds / (hbm * 1e6) : 0.0, "h2d_gbs",
                                              h2d > 0 ? (double)pcie * rounds / (h2d * 1e6) : 0.0, "d2h_gbs",
                                              d2h > 0 ? (double)pcie * rounds / (d2h * 1e6) : 0.0, "busbw_gbs",
                                              ar > 0 ? bf * (double)count * 4 * rounds / (ar * 1e6) : 0.0, "wrong",
                                              (json_int_t)wrong));
    }
    mgpu_device_info info;
    MGPU_CHECK(mgpu_device_info_get(be, dev, &info));
    *out = json_pack("{s:i, s:i, s:s, s:I, s:o, s:I}", "rank", mgpu_worker_rank(w), "dev", dev, "host", info.host,
                     "rounds_per_window", (json_int_t)rounds, "windows", wins, "wrong", (json_int_t)wrong_total);
    return MGPU_OK;
}

static mgpu_result run(mgpu_worker *w, json_t *params)
{
    if (params && !json_is_object(params) && !json_is_null(params))
        return mgpu_fail(MGPU_ERR_INVALID, "validate_load job: params must be an object");
    int bad = 0;
    double duration = num_param(params, "duration_s", 60, 1e-3, 7 * 86400.0, &bad);
    int windows = (int)num_param(params, "windows", 10, 1, MAX_WINDOWS, &bad);
    uint64_t copy = (uint64_t)num_param(params, "copy_bytes", 256 << 20, 1024, 16.0 * (1ull << 30), &bad) & ~15ull;
    uint64_t pcie = (uint64_t)num_param(params, "pcie_bytes", 64 << 20, 1024, 4.0 * (1ull << 30), &bad) & ~15ull;
    uint64_t coll = (uint64_t)num_param(params, "coll_bytes", 64 << 20, 4 * CHECK_ELEMS, 8.0 * (1ull << 30), &bad) & ~3ull;
    if (bad)
        return mgpu_fail(MGPU_ERR_INVALID, "validate_load job: duration_s (up to a week), windows (1..%d) and the "
                         "byte counts must be numbers in range", MAX_WINDOWS);
    load_bufs b;
    memset(&b, 0, sizeof b);
    json_t *doc = NULL;
    mgpu_result r = run_load(w, &b, duration, windows, copy, pcie, coll, &doc);
    free_bufs(&b);
    MGPU_CHECK(r);
    r = mgpu_worker_send(w, "rank", doc);
    json_decref(doc);
    return r;
}

const mgpu_job_handler mgpu_job_validate_load = {.type = "validate_load", .run = run};
