/* sim_comm.h - the sim communicator's private state and the calls between
 * its files, top down: comm_sim.c (the ops table, where a call goes),
 * comm_sim_p2p.c (send/recv, group calls), comm_sim_init.c (init, split),
 * comm_sim_coll.c (one collective), comm_sim_call.c (entering and leaving
 * a call). A file calls only those below it. */
#ifndef MGPU_SIM_COMM_H
#define MGPU_SIM_COMM_H
#include <stdatomic.h>
#include "comm/comm_backend.h"
#include "mgpu/collmodel.h"
#include "sim_shm.h"

typedef struct sim_comm {
    sim_seg seg;
    _Atomic int busy;           /* calls in progress (abort waits for them) */
    volatile int aborted;
    double timeout_s;
    uint64_t coll_seq;          /* collectives entered, from 1 */
    const mgpu_topo *topo;      /* the backend's machine */
    int *gpu_of_rank;           /* global GPU index of every rank */
    mgpu_coll_tuning tuning;    /* NCCL_ALGO / NCCL_PROTO */
    mgpu_coll_prediction last;  /* the model's answer for the last collective */
    int world;                  /* made by init (not split): the crash fault counts its calls */
    double straggler;           /* this process's share of every call takes this many times the model */
    int log_info;               /* NCCL_DEBUG=INFO: print NCCL-format lines (sim_nccl_log.c) */
#define SIM_LOG_KEYS 64
    uint64_t logged[SIM_LOG_KEYS]; /* (collective, size, choice) already printed */
    int nlogged;
    struct mgpu_buffer *nvls_mem; /* NCCL's NVLS buffers on this rank's GPU (counted, not backed) */
} sim_comm;

mgpu_result sim_comm_init(mgpu_comm *c, const mgpu_bootstrap *bs);
mgpu_result sim_comm_split(mgpu_comm *parent, int color, int key, mgpu_comm *child, int *member);
void sim_comm_free(sim_comm *sc);

/* The bandwidth pane's modelled load of a collective this rank just ran
 * (started at t0), and of one send or receive (sim_telemetry.c). */
void sim_publish_collective(mgpu_comm *c, sim_comm *sc, const mgpu_coll_prediction *p, uint64_t t0);
void sim_publish_p2p(sim_comm *sc, int gpu, int peer_gpu, int send, double bps, double secs);

/* A wait context for `what` with the communicator's timeout and abort flags
 * (comm_sim_call.c). A call holds sc->busy between enter and leave. */
void sim_comm_ctx(mgpu_comm *c, sim_comm *sc, const char *what, sim_ctx *x);
mgpu_result sim_comm_enter(mgpu_comm *c, sim_comm **out);
void sim_comm_leave(sim_comm *sc);
/* One collective (comm_sim_coll.c; the caller has entered). */
mgpu_result sim_comm_collective(mgpu_comm *c, sim_comm *sc, const mgpu_coll_args *a, mgpu_stream *s);
/* Run a queued collective (group_end): enter, run, leave. */
mgpu_result sim_comm_collective_now(mgpu_comm *c, const mgpu_coll_args *a, mgpu_stream *s);

/* send or recv alone (the caller has entered). */
mgpu_result sim_p2p_run(mgpu_comm *c, sim_comm *sc, const mgpu_coll_args *a, mgpu_stream *s, int single);

/* NCCL_DEBUG=INFO lines in NCCL's format, marked SIMULATED (sim_nccl_log.c):
 * the comm's rings, trees and transports after init/split; the algorithm
 * and protocol of a collective size, once per size. */
int sim_log_wanted(void);
void sim_log_comm(mgpu_comm *c, sim_comm *sc);
void sim_log_collective(mgpu_comm *c, sim_comm *sc, mgpu_coll op, size_t bytes, const mgpu_coll_prediction *p);

/* The crash fault (sim_fault_crash.c): may not return. */
void sim_fault_crash_point(const mgpu_comm *c, const sim_comm *sc);

mgpu_result sim_group_start(void);
mgpu_result sim_group_end(void);
int sim_group_depth(void);
mgpu_result sim_group_queue(mgpu_comm *c, const mgpu_coll_args *a, mgpu_stream *s);

#endif
