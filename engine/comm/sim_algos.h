/* sim_algos.h - one collective call as the sim algorithms see it (private
 * to engine/comm): host pointers, this rank's place, the chosen algorithm. */
#ifndef MGPU_SIM_ALGOS_H
#define MGPU_SIM_ALGOS_H
#include "mgpu/collmodel.h"
#include "sim_shm.h"

typedef struct sim_call {
    mgpu_coll op;
    int rank, n;
    const unsigned char *send;
    unsigned char *recv;
    size_t count;           /* elements, as NCCL counts them for op */
    mgpu_dtype dtype;
    mgpu_redop redop;
    int root;
    mgpu_coll_algo algo;    /* ring or tree (all_reduce) */
} sim_call;

/* Before the arrival exchange: when the whole call fits one round, copy
 * this rank's input into its slot for the exchange's barrier (returns 1),
 * so the exchange doubles as the data barrier. Every rank decides alike
 * from (op, count, dtype, n); if the ranks disagree they stall anyway. */
int sim_algo_prestage(sim_seg *s, const sim_call *c);
/* Run one collective with real data (`staged`: what sim_algo_prestage
 * returned). All ranks must call it with matching arguments (checked at
 * arrival by comm_sim.c). c->algo is the model's choice: it sets the time,
 * not the host data path. */
mgpu_result sim_algo_run(sim_ctx *x, const sim_call *c, int staged);

#endif
