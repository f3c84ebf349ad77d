/* test_collbench_sim.c - the bench's timing and checking core on the sim
 * backend with one in-process rank: every collective, dtype and op gives
 * 0 wrong values; time, algbw and busbw follow from the modelled time; a
 * damaged output element is counted; a bad root is refused. (Several ranks
 * need worker processes: tests/cli/bench.sh runs those.) */
#include "mgpu/collbench.h"
#include "mgpu/collmodel.h"
#include "tap.h"
#include <math.h>
#include <string.h>

static mgpu_result one_rank_allgather(void *ctx, const void *mine, void *all, size_t len)
{
    (void)ctx;
    memcpy(all, mine, len);
    return MGPU_OK;
}

typedef struct rows {
    int n;
    mgpu_collbench_row last;
    int64_t wrong;
    int unchecked;
    int bad_bw;
} rows;

static mgpu_result collect(void *ctx, const mgpu_collbench_row *r)
{
    rows *x = ctx;
    x->n++;
    x->last = *r;
    const mgpu_collbench_half *h[2] = {&r->oop, &r->ip};
    for (int k = 0; k < 2; k++) {
        if (h[k]->wrong < 0) x->unchecked++;
        else x->wrong += h[k]->wrong;
        double alg = h[k]->time_us > 0 ? r->bytes / 1e3 / h[k]->time_us : 0;
        if (fabs(alg - h[k]->algbw) > 1e-9 * (1 + alg) || !(h[k]->time_us >= 0)) x->bad_bw++;
    }
    return MGPU_OK;
}

int main(void)
{
    mgpu_backend_config bc = {.kind = MGPU_BACKEND_SIM, .machine = "dgx-h100"};
    mgpu_backend *be = NULL;
    CHECK_OK(mgpu_backend_open(&bc, &be));
    if (!be) return tap_done();
    mgpu_bootstrap bs = {.rank = 0, .size = 1, .allgather = one_rank_allgather};
    mgpu_comm_config cfg = {.device = 0, .blocking = 1, .name = "world"};
    mgpu_comm *c = NULL;
    CHECK_OK(mgpu_comm_init(be, &bs, &cfg, &c));
    if (!c) {
        mgpu_backend_close(be);
        return tap_done();
    }
    const mgpu_collbench_coll *const *colls = mgpu_collbench_colls();
    for (int i = 0; colls[i]; i++) {
        mgpu_collbench_options o;
        mgpu_collbench_options_default(&o);
        o.min_bytes = 0; /* count 0 included */
        o.max_bytes = 1 << 20;
        o.step_bytes = 300007; /* odd sizes */
        o.iters = 2;
        o.warmup = 1;
        o.nops = MGPU_REDOP_COUNT;
        o.ndtypes = MGPU_DTYPE_COUNT;
        for (int k = 0; k < MGPU_REDOP_COUNT; k++) o.ops[k] = (mgpu_redop)k;
        for (int k = 0; k < MGPU_DTYPE_COUNT; k++) o.dtypes[k] = (mgpu_dtype)k;
        rows x = {0};
        CHECK_OK(mgpu_collbench_sweep(be, c, colls[i], &o, collect, &x));
        int combos = colls[i]->reduces ? MGPU_REDOP_COUNT * MGPU_DTYPE_COUNT : MGPU_DTYPE_COUNT;
        CHECKF(x.n == 4 * combos, "%s: %d rows", colls[i]->name, x.n);
        CHECKF(x.wrong == 0, "%s: %lld wrong", colls[i]->name, (long long)x.wrong);
        CHECKF(x.unchecked == (colls[i]->inplace_checked ? 0 : x.n), "%s: %d unchecked", colls[i]->name, x.unchecked);
        CHECK(x.bad_bw == 0);
        CHECKF(x.last.oop.time_us > 0 && x.last.bytes > 0, "%s: time %g", colls[i]->name, x.last.oop.time_us);
        /* one rank: nothing crosses a link, factor 0 for the ring collectives */
        CHECK(fabs(x.last.oop.busbw - x.last.oop.algbw * mgpu_coll_busbw_factor(colls[i]->coll, 1)) < 1e-9);
    }
    /* a damaged element is counted, once per checked half */
    mgpu_collbench_options o;
    mgpu_collbench_options_default(&o);
    o.min_bytes = o.max_bytes = 4096;
    o.iters = 1;
    o.warmup = 0;
    o.tamper_rank = 0;
    rows x = {0};
    CHECK_OK(mgpu_collbench_sweep(be, c, &mgpu_cb_all_reduce, &o, collect, &x));
    CHECKF(x.n == 1 && x.last.oop.wrong == 2 && x.last.ip.wrong == 2, "tampered (first and last element): %lld %lld",
           (long long)x.last.oop.wrong, (long long)x.last.ip.wrong);
    /* the modelled time does not depend on how many calls are averaged */
    o.tamper_rank = -1;
    o.min_bytes = o.max_bytes = 64 << 20;
    rows one = {0}, many = {0};
    CHECK_OK(mgpu_collbench_sweep(be, c, &mgpu_cb_broadcast, &o, collect, &one));
    o.iters = 5;
    o.warmup = 2;
    CHECK_OK(mgpu_collbench_sweep(be, c, &mgpu_cb_broadcast, &o, collect, &many));
    CHECKF(fabs(one.last.oop.time_us - many.last.oop.time_us) <= 0.01 * many.last.oop.time_us, "1 call %g us, 5 calls %g us",
           one.last.oop.time_us, many.last.oop.time_us);
    o.root = 1;
    CHECK(mgpu_collbench_sweep(be, c, &mgpu_cb_broadcast, &o, collect, &many) == MGPU_ERR_INVALID);
    CHECK(strstr(mgpu_error_message(), "root") != NULL);
    CHECK_OK(mgpu_comm_destroy(c));
    mgpu_backend_close(be);
    return tap_done();
}
