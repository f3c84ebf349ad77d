/* sim_internal.h - the sim backend's state, shared by dev_sim.c (devices,
 * streams, events, copies), sim_memory.c and sim_ipc.c (allocations: every
 * device buffer is its own mapping, movable into shared memory when it is
 * exported) and sim_peer.c (peer access). */
#ifndef MGPU_SIM_INTERNAL_H
#define MGPU_SIM_INTERNAL_H
#include "dev/backend.h"
#include "dev/sim/sim_model.h"
#include <pthread.h>

/* Every buffer is real host memory aligned like cudaMalloc's. */
#define SIM_ALIGN 256u
#define SIM_HUGE_ALIGN ((size_t)2 << 20) /* transparent huge page size on x86-64 */
/* Buffers this large get huge pages: from 2 MiB, so the caching allocator's
 * small-pool segments (2 MiB, mem/caching.h) are one huge page each. At
 * 4 MiB they faulted in 512 pages of 4 KiB, at ~15 us a fault in this VM:
 * lab 4 on dgx-h100 took 486k faults and 45 s of CPU, now 85k and 35 s. */
#define SIM_HUGE_MIN ((size_t)2 << 20)

typedef struct sim_state {
    /* One lock for the whole backend: rank workers are processes, so this
     * only has to keep a multi-threaded caller correct, not fast. */
    pthread_mutex_t lock;
    int host;                /* which host of the topology these devices are */
    int ndev;
    sim_model model;

    uint64_t *mem_total;     /* per device, from the GPU model */
    uint64_t *mem_used;      /* per device, live device allocations */
    double *legacy_clock;    /* per device: the one legacy default stream */
    double *horizon;         /* per device: end of the latest work on it */
    unsigned char *peer_on;  /* ndev*ndev: [dev*ndev+peer] = dev may map peer */
    double *busy;            /* per resource: busy until (virtual ns) */
    int nres;
    double host_ns;          /* the host thread's virtual time */
    double slowdown;         /* 1, or MGPU_STRAGGLER_FACTOR in the straggler rank's process */
    struct sim_contention *contend; /* per device: collectives' recent SM and HBM loads */

    mgpu_buffer **bufs;      /* registry of live allocations */
    int nbufs, cap_bufs;
} sim_state;

static inline sim_state *sim_of(mgpu_backend *be) { return (sim_state *)be->impl; }

/* dev_sim.c: run a priced operation on s (lock held); returns its end. */
double sim_run_priced(sim_state *st, mgpu_stream *s, const sim_cost *c, double bytes);
/* The same for a compute kernel priced as floor + max(t_flops, t_bytes):
 * where it overlaps a collective on its GPU, the SMs the collective holds
 * and the HBM bandwidth it moves slow it down. */
double sim_run_compute(sim_state *st, mgpu_stream *s, const sim_cost *c, double floor_ns, double t_flops,
                       double t_bytes);

/* sim_nn.c: the training ops. */
extern const struct mgpu_nn_ops mgpu_sim_nn_ops;

/* sim_memory.c; called with the lock held. */
mgpu_result sim_mem_alloc_locked(sim_state *st, mgpu_buffer *buf);
void sim_mem_free_locked(sim_state *st, mgpu_buffer *buf);
void sim_pointer_attributes_locked(sim_state *st, const void *ptr, mgpu_ptr_attr *out);
void sim_registry_free(sim_state *st);

#endif
