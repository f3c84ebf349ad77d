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

/* Run one collective with real data. All ranks must call it with matching
 * arguments (checked at arrival by comm_sim.c). */
mgpu_result sim_algo_run(sim_ctx *x, const sim_call *c);

#endif
