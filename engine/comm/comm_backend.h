/* comm_backend.h - the seam between comm.c (argument checks, watchdog,
 * flight recorder, fingerprint check) and the communicator backends
 * (comm_nccl.c over the cuda device backend, comm_sim.c over sim).
 *
 * comm.c validates arguments (ranges against buffer sizes, roots and peers,
 * dtype/op), records the operation in the flight recorder, runs the
 * fingerprint check when enabled, then calls ops->collective. Backends
 * enqueue on the given stream and return; they never print. */
#ifndef MGPU_COMM_BACKEND_H
#define MGPU_COMM_BACKEND_H
#include "mgpu/comm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mgpu_coll_args {
    mgpu_coll op;
    const mgpu_buffer *send;
    size_t send_off;           /* bytes */
    mgpu_buffer *recv;
    size_t recv_off;           /* bytes */
    size_t count;              /* elements, as NCCL counts them for this op */
    mgpu_dtype dtype;
    mgpu_redop redop;
    int root;                  /* root (broadcast, reduce) or peer (send, recv); -1 otherwise */
    int multicast;             /* broadcast through a CUDA multicast object (sim only) */
} mgpu_coll_args;

struct mgpu_flight;            /* flight.c */
struct mgpu_watchdog;          /* watchdog.c */

struct mgpu_comm {
    const struct mgpu_comm_ops *ops;
    mgpu_backend *be;
    int rank, size, device;
    char name[32];
    uint64_t id;               /* equal on all ranks of this communicator (from the bootstrap) */
    mgpu_comm_config cfg;
    mgpu_stream *stream;       /* the communicator's own stream (comm.c creates it) */
    struct mgpu_flight *flight;
    struct mgpu_watchdog *watchdog;
    uint64_t next_seq;         /* flight recorder sequence, from 1 */
    unsigned split_count;      /* how many splits this comm has made (names sub-groups) */
    volatile int aborted;
    void *impl;                /* the backend's */
    void *core;                /* comm.c's own state (async error, registry, fingerprint buffers) */
};

struct mgpu_comm_ops {
    const char *name;          /* "nccl", "sim" */
    const char *dev_backend;   /* the device backend it pairs with: "cuda", "sim" */
    /* c->be, rank, size, device, name, cfg, stream are set; fill c->impl and c->id. */
    mgpu_result (*init)(mgpu_comm *c, const mgpu_bootstrap *bs);
    /* Collective over the parent. child->be, device, name, cfg set by comm.c;
     * the backend sets child->rank, size, id, impl. color < 0: not a member
     * (must still take part in the parent's exchange); sets *member = 0. */
    mgpu_result (*split)(mgpu_comm *parent, int color, int key, mgpu_comm *child, int *member);
    mgpu_result (*destroy)(mgpu_comm *c);
    void (*abort)(mgpu_comm *c);                 /* frees impl; safe from another thread */
    mgpu_result (*async_error)(mgpu_comm *c);
    mgpu_result (*collective)(mgpu_comm *c, const mgpu_coll_args *a, mgpu_stream *s);
    /* Group calls (nesting handled by comm.c: called at depth 0 -> 1 and 1 -> 0). */
    mgpu_result (*group_start)(void);
    mgpu_result (*group_end)(void);
};

/* The backends' ops tables: only comm_registry.c (and the unit tests of a
 * backend's seam) name them. */
extern const struct mgpu_comm_ops mgpu_comm_nccl_ops;
extern const struct mgpu_comm_ops mgpu_comm_sim_ops;

/* Every communicator backend of this build, NULL-ended (comm_registry.c). */
extern const struct mgpu_comm_ops *const mgpu_comm_backends[];
/* The one that pairs with device backend `dev_backend` ("cuda", "sim"), or NULL. */
const struct mgpu_comm_ops *mgpu_comm_backend_for(const char *dev_backend);

#ifdef __cplusplus
}
#endif
#endif
