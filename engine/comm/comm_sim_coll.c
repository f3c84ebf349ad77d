/* comm_sim_coll.c - one collective on the sim communicator: every rank
 * posts its arrival (its call and stream time), a call the ranks disagree on
 * stalls as NCCL would, the data moves by NCCL's algorithms (sim_algos.c)
 * and every stream ends at the last arrival plus the model's time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "comm/comm_args.h"
#include "comm/comm_backend.h"
#include "mgpu/clock.h"
#include "mgpu/collmodel.h"
#include "sim_algos.h"
#include "sim_comm.h"

typedef struct arrival {
    int32_t op, dtype, redop, root;
    uint64_t count;
    uint64_t seq;
    double t_ns;
    int32_t phantom;  /* shape-only buffers: time, no data */
} arrival;

/* Fields that must agree for the ranks to be in the same collective. */
static int same_call(const arrival *a, const arrival *b)
{
    return a->op == b->op && a->count == b->count && a->dtype == b->dtype && a->redop == b->redop &&
           a->root == b->root;
}

static void describe(const arrival *a, char *buf, size_t len)
{
    snprintf(buf, len, "%s #%llu with %llu %s", mgpu_coll_name((mgpu_coll)a->op), (unsigned long long)a->seq,
             (unsigned long long)a->count, mgpu_dtype_name((mgpu_dtype)a->dtype));
}

static mgpu_result stream_times(mgpu_stream *s, double *ns)
{
    MGPU_CHECK(mgpu_stream_model_time(s, ns));
    return MGPU_OK;
}

/* One collective: arrival (all ranks post their stream time and call),
 * the data movement, then every stream ends at max(arrival) + model; the
 * straggler fault's rank takes MGPU_STRAGGLER_FACTOR x the model for its
 * part (its GPU runs its kernels that much slower), in place or not, and
 * its peers meet the delay when they wait for it at the next call. */
mgpu_result sim_comm_collective(mgpu_comm *c, sim_comm *sc, const mgpu_coll_args *a, mgpu_stream *s)
{
    char what[64];
    uint64_t t0 = mgpu_now_ns(), seq = ++sc->coll_seq;
    sim_fault_crash_point(c, sc);
    snprintf(what, sizeof what, "%s #%llu", mgpu_coll_name(a->op), (unsigned long long)seq);
    sim_ctx x;
    sim_comm_ctx(c, sc, what, &x);

    int uses_op = a->op == MGPU_COLL_ALL_REDUCE || a->op == MGPU_COLL_REDUCE || a->op == MGPU_COLL_REDUCE_SCATTER;
    int uses_root = a->op == MGPU_COLL_BROADCAST || a->op == MGPU_COLL_REDUCE;
    unsigned char mine[SIM_BLOB] = {0};
    int phantom = mgpu_coll_phantom(a);
    arrival me = {a->op, a->dtype, uses_op ? (int32_t)a->redop : -1, uses_root ? a->root : -1, a->count, seq, 0, phantom};
    MGPU_CHECK(stream_times(s, &me.t_ns));
    memcpy(mine, &me, sizeof me);
    unsigned char *all = malloc((size_t)c->size * SIM_BLOB);
    if (!all) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory in %s", what);
    sim_call call = {a->op,
                     c->rank,
                     c->size,
                     a->send ? (const unsigned char *)a->send->ptr + a->send_off : NULL,
                     a->recv ? (unsigned char *)a->recv->ptr + a->recv_off : NULL,
                     a->count,
                     a->dtype,
                     a->redop,
                     a->root,
                     MGPU_ALGO_RING};
    /* A call that fits one round puts its input in the segment first, so
     * the arrival exchange is also its data barrier. */
    int staged = phantom ? 0 : sim_algo_prestage(&sc->seg, &call);
    mgpu_result r = sim_exchange(&x, mine, all);
    if (r != MGPU_OK) {
        free(all);
        MGPU_CHECK(r);
    }
    double start = me.t_ns;
    int odd = -1, mixed = -1;
    for (int i = 0; i < c->size; i++) {
        arrival o;
        memcpy(&o, all + (size_t)i * SIM_BLOB, sizeof o);
        if (o.t_ns > start) start = o.t_ns;
        if (odd < 0 && !same_call(&o, &me)) odd = i;
        if (mixed < 0 && o.phantom != me.phantom) mixed = i;
    }
    if (odd < 0 && mixed >= 0) {
        /* Every rank saw every arrival: all of them fail here, none hangs. */
        free(all);
        return mgpu_fail(MGPU_ERR_INVALID,
                         "%s on '%s': rank %d passed %s buffers and rank %d %s ones; a collective is phantom "
                         "(shape-only) on every rank or on none",
                         what, c->name, c->rank, phantom ? "phantom" : "real", mixed, phantom ? "real" : "phantom");
    }
    if (odd >= 0) {
        /* NCCL would hang here (or corrupt data); the sim waits like it so
         * the watchdog and flight recorder see what they would see. */
        arrival o;
        memcpy(&o, all + (size_t)odd * SIM_BLOB, sizeof o);
        free(all);
        char mine_s[96], other_s[96], why[400];
        describe(&me, mine_s, sizeof mine_s);
        describe(&o, other_s, sizeof other_s);
        snprintf(why, sizeof why, "ranks disagree (this rank %d entered %s; rank %d entered %s): no progress", c->rank,
                 mine_s, odd, other_s);
        return sim_stall(&x, why);
    }
    free(all);

    size_t es = mgpu_dtype_size(a->dtype);
    size_t bytes = a->count * es; /* nccl-tests' size */
    if (a->op == MGPU_COLL_ALL_GATHER || a->op == MGPU_COLL_REDUCE_SCATTER || a->op == MGPU_COLL_ALLTOALL)
        bytes *= (size_t)c->size;
    mgpu_coll_prediction p;
    /* in place: this rank's output overwrites its own input (a no-op on one rank) */
    int in_place = a->send && a->send == a->recv && a->send_off == a->recv_off;
    /* NVLS reduces in the switch: sum of every type, min/max of all but
     * f32 (NCCL's ncclNvlsSupported); prod and avg stay off it */
    mgpu_coll_tuning tun = sc->tuning;
    if (a->multicast) {
        /* not NCCL: NCCL_NVLS_ENABLE and NCCL_ALGO do not apply, the hardware decides */
        tun.multicast = 1;
        tun.nvls = 0;
        tun.algo = tun.proto = -1;
        tun.algo_mask = tun.proto_mask = 0;
    }
    tun.nvls_no_op = !(a->redop == MGPU_SUM || ((a->redop == MGPU_MIN || a->redop == MGPU_MAX) && a->dtype != MGPU_F32));
    MGPU_CHECK(mgpu_coll_predict_call(sc->topo, a->op, bytes, c->size, sc->gpu_of_rank, &tun, in_place, &p));

    if (!a->multicast) sim_log_collective(c, sc, a->op, bytes, &p); /* NCCL logs its own calls only */
    call.algo = p.algo == MGPU_ALGO_TREE ? MGPU_ALGO_TREE : MGPU_ALGO_RING; /* collnet's data path is the ring's */
    if (!phantom) MGPU_CHECK(sim_algo_run(&x, &call, staged));
    double dur = p.time_us * 1000.0 * sc->straggler;
    MGPU_CHECK(mgpu_stream_model_advance(s, start + dur));
    /* its CTAs and memory traffic slow the compute that overlaps it */
    MGPU_CHECK(mgpu_stream_model_contend(s, start, start + dur, p.ctas, dur > 0 ? p.hbm_bytes / dur : 0));
    sc->last = p;
    sim_publish_collective(c, sc, &p, t0);
    return MGPU_OK;
}

mgpu_result sim_comm_collective_now(mgpu_comm *c, const mgpu_coll_args *a, mgpu_stream *s)
{
    sim_comm *sc;
    MGPU_CHECK(sim_comm_enter(c, &sc));
    mgpu_result r = sim_comm_collective(c, sc, a, s);
    sim_comm_leave(sc);
    MGPU_CHECK(r);
    return MGPU_OK;
}
