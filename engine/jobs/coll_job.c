/* coll_job.c - the worker job "bench": every rank runs the collective
 * sweep on its device with the world communicator; rank 0 reports.
 *
 * Messages to the coordinator (rank 0 only, so they arrive in order):
 *   "devices"  {backend, simulated, machine, ranks, iters, warmup, lines[]}
 *              - once, before any row; lines are nccl-tests' "#  Rank ..." lines
 *   "result"   one per size row (mgpu_collbench_row_json, mgpu/coll_doc.h)
 *   "summary"  {rows, avg_bus_bw, wrong_checks}
 * Other ranks send "progress" {row} per row, so a long sweep never looks
 * like a silent (hung) rank to the runtime. */
#include "mgpu/coll_doc.h"
#include "mgpu/rt.h"
#include "mgpu/topo.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEV_LINE 256

/* Params the coordinator sends (mgpu/coll_doc.h), and the test hook. */
static mgpu_result read_params(json_t *p, mgpu_collbench_options *o, const mgpu_collbench_coll **coll)
{
    MGPU_CHECK(mgpu_collbench_params_read(p, o, coll));
    const char *t = getenv("MGPU_BENCH_TAMPER"); /* test hook, see collbench.h */
    if (t && *t) o->tamper_rank = atoi(t);
    return MGPU_OK;
}

/* The sim's times are modelled and deterministic: a warm-up changes
 * nothing and one timed call costs the same as the mean of twenty, while
 * every call moves real data. Unset -n/-w get these values on sim; the
 * header prints what was used. */
static void sim_defaults(mgpu_collbench_options *o)
{
    if (!o->set_iters) o->iters = 1;
    if (!o->set_warmup) o->warmup = 0;
}

/* nccl-tests' device line, gathered to rank 0 through the bootstrap. */
static mgpu_result send_devices(mgpu_worker *wk, const mgpu_collbench_options *o)
{
    mgpu_backend *be = mgpu_worker_backend(wk);
    int n = mgpu_worker_size(wk), rank = mgpu_worker_rank(wk), dev = mgpu_worker_device(wk);
    mgpu_device_info info;
    memset(&info, 0, sizeof info);
    MGPU_CHECK(mgpu_device_info_get(be, dev, &info));
    char mine[DEV_LINE];
    snprintf(mine, sizeof mine, "#  Rank %2d Group  0 Pid %6d on %10s device %2d [%s] %s", rank, (int)getpid(), info.host,
             dev, info.pci_bus_id, info.name);
    char *all = calloc((size_t)n, DEV_LINE);
    if (!all) return mgpu_fail(MGPU_ERR_NOMEM, "bench: no memory for %d device lines", n);
    const mgpu_bootstrap *bs = mgpu_worker_bootstrap(wk);
    mgpu_result res = bs->allgather(bs->ctx, mine, all, DEV_LINE);
    if (res != MGPU_OK || rank != 0) {
        free(all);
        return res;
    }
    json_t *lines = json_array();
    for (int r = 0; r < n; r++) {
        all[(size_t)r * DEV_LINE + DEV_LINE - 1] = '\0';
        json_array_append_new(lines, json_string(all + (size_t)r * DEV_LINE));
    }
    free(all);
    const mgpu_topo *t = mgpu_backend_topo(be);
    json_t *body = json_pack("{s:s, s:b, s:s?, s:i, s:i, s:i, s:o}", "backend", mgpu_backend_name(be), "simulated",
                             mgpu_backend_simulated(be), "machine", t ? mgpu_topo_machine_name(t) : NULL, "ranks", n,
                             "iters", o->iters, "warmup", o->warmup, "lines", lines);
    res = mgpu_worker_send(wk, "devices", body);
    json_decref(body);
    return res;
}

typedef struct job_ctx {
    mgpu_worker *wk;
    int rank;
    long rows;
    double bw_sum;
    long bw_count;
    long wrong_checks;
} job_ctx;

static mgpu_result emit(void *p, const mgpu_collbench_row *r)
{
    job_ctx *j = p;
    j->rows++;
    if (j->rank != 0) {
        json_t *b = json_pack("{s:i}", "row", (int)j->rows);
        mgpu_result res = mgpu_worker_send(j->wk, "progress", b);
        json_decref(b);
        return res;
    }
    j->bw_sum += r->oop.busbw + r->ip.busbw;
    j->bw_count += 2;
    j->wrong_checks += (r->oop.wrong > 0) + (r->ip.wrong > 0);
    json_t *b = mgpu_collbench_row_json(r);
    mgpu_result res = mgpu_worker_send(j->wk, "result", b);
    json_decref(b);
    return res;
}

static mgpu_result run(mgpu_worker *wk, json_t *params)
{
    mgpu_collbench_options o;
    const mgpu_collbench_coll *coll = NULL;
    MGPU_CHECK(read_params(params, &o, &coll));
    mgpu_backend *be = mgpu_worker_backend(wk);
    if (mgpu_backend_simulated(be)) sim_defaults(&o);
    if (coll->rooted && o.root >= mgpu_worker_size(wk))
        return mgpu_fail(MGPU_ERR_INVALID, "-r %d: the root must be a rank, 0..%d", o.root, mgpu_worker_size(wk) - 1);
    MGPU_CHECK(send_devices(wk, &o));
    mgpu_comm *c = NULL;
    MGPU_CHECK(mgpu_worker_world(wk, &c));
    job_ctx j = {.wk = wk, .rank = mgpu_worker_rank(wk)};
    MGPU_CHECK(mgpu_collbench_sweep(be, c, coll, &o, emit, &j));
    if (j.rank != 0) return MGPU_OK;
    json_t *b = json_pack("{s:i, s:f, s:i}", "rows", (int)j.rows, "avg_bus_bw", j.bw_count ? j.bw_sum / j.bw_count : 0.0,
                          "wrong_checks", (int)j.wrong_checks);
    mgpu_result res = mgpu_worker_send(wk, "summary", b);
    json_decref(b);
    return res;
}

const mgpu_job_handler mgpu_job_bench = {.type = "bench", .run = run};
