/* comm.h - communicators and collectives over two backends (NCCL, sim),
 * with the watchdog, flight recorder and fingerprint check above both.
 *
 * A communicator joins `size` ranks (one per process). It is created from a
 * bootstrap - an out-of-band all-gather the caller provides (the worker
 * runtime relays through the coordinator; tests use a local one) - which
 * carries NCCL's unique id or the sim's shared-memory name. The backend is
 * chosen from the device backend: NCCL over cuda, the sim communicator over
 * sim (engine/comm/comm_backend.h). Collectives are enqueued on a device
 * stream (NULL = the communicator's own stream) like NCCL's. */
#ifndef MGPU_COMM_H
#define MGPU_COMM_H
#include <stddef.h>
#include <stdint.h>
#include "mgpu/dev.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mgpu_comm mgpu_comm;

typedef enum mgpu_redop { MGPU_SUM = 0, MGPU_PROD, MGPU_MAX, MGPU_MIN, MGPU_AVG, MGPU_REDOP_COUNT } mgpu_redop;

typedef enum mgpu_coll {
    MGPU_COLL_ALL_REDUCE = 0,
    MGPU_COLL_ALL_GATHER,
    MGPU_COLL_REDUCE_SCATTER,
    MGPU_COLL_BROADCAST,
    MGPU_COLL_REDUCE,
    MGPU_COLL_ALLTOALL,
    MGPU_COLL_SEND,
    MGPU_COLL_RECV,
    MGPU_COLL_BARRIER,     /* an all-reduce of one element, as torch does */
    MGPU_COLL_COUNT
} mgpu_coll;

const char *mgpu_coll_name(mgpu_coll c);   /* "all_reduce", "all_gather", ... */
int mgpu_coll_parse(const char *name);      /* -1 if unknown; accepts nccl-tests names too */
const char *mgpu_redop_name(mgpu_redop op); /* "sum", "prod", "max", "min", "avg" */
int mgpu_redop_parse(const char *name);

/* The out-of-band exchange a communicator is built with: every rank calls
 * allgather with `len` bytes; `all` receives size*len bytes in rank order.
 * Must be called by all ranks in the same order (it is collective). */
typedef struct mgpu_bootstrap {
    void *ctx;
    int rank, size;
    mgpu_result (*allgather)(void *ctx, const void *mine, void *all, size_t len);
} mgpu_bootstrap;

typedef struct mgpu_comm_config {
    int device;               /* this rank's device ordinal */
    int blocking;             /* 1 = blocking init/calls (NCCL default); 0 = ncclCommInitRankConfig blocking=0 */
    double timeout_s;         /* watchdog: per-collective timeout, 0 = default 60 s (MGPU_COMM_TIMEOUT) */
    int fingerprint;          /* compare op/count/dtype/root across ranks before each collective
                                 (TORCH_DISTRIBUTED_DEBUG=DETAIL); also on with MGPU_FINGERPRINT=1 */
    int flight_entries;       /* flight recorder ring size, 0 = default 256 */
    const char *name;         /* shown in messages and dumps, e.g. "world", "tp0" */
} mgpu_comm_config;

mgpu_result mgpu_comm_init(mgpu_backend *be, const mgpu_bootstrap *bs, const mgpu_comm_config *cfg,
                           mgpu_comm **out);
/* ncclCommSplit: ranks with the same color form a new communicator, ordered
 * by key then parent rank. color < 0 (MGPU_SPLIT_NOCOLOR) returns *out = NULL. */
#define MGPU_SPLIT_NOCOLOR (-1)
/* The most ranks one sim communicator holds (its shared segment's table):
 * the coordinator refuses more before any worker starts. */
#define MGPU_SIM_MAX_RANKS 512
mgpu_result mgpu_comm_split(mgpu_comm *parent, int color, int key, const char *name, mgpu_comm **out);
/* Orderly destroy (waits for queued work). */
mgpu_result mgpu_comm_destroy(mgpu_comm *c);
/* Abort: ncclCommAbort; pending and future operations fail; frees. Safe to
 * call from the watchdog thread while another thread is blocked in a call. */
void mgpu_comm_abort(mgpu_comm *c);

int mgpu_comm_rank(const mgpu_comm *c);
int mgpu_comm_size(const mgpu_comm *c);
int mgpu_comm_device(const mgpu_comm *c);
const char *mgpu_comm_name(const mgpu_comm *c);
const char *mgpu_comm_backend_name(const mgpu_comm *c); /* "nccl" or "sim" */
mgpu_stream *mgpu_comm_stream(mgpu_comm *c);            /* the communicator's own stream */
/* NCCL's ncclCommGetAsyncError, or the watchdog's verdict: MGPU_OK while healthy. */
mgpu_result mgpu_comm_async_error(mgpu_comm *c);

/* Wait until the watchdog has settled every queued collective (done, or
 * failed at its timeout), then return the first error of any live
 * communicator (the watchdog's timeout, an abort, NCCL's async error), or
 * MGPU_OK when all are healthy. The worker calls it when a job ends and
 * scripts' synchronize calls it, so a collective that failed
 * asynchronously never passes for a success. */
mgpu_result mgpu_comm_check_all(void);

/*--- Collectives: count is in elements, as in NCCL. s may be NULL. ---*/

mgpu_result mgpu_all_reduce(mgpu_comm *c, const mgpu_buffer *send, size_t send_off, mgpu_buffer *recv,
                            size_t recv_off, size_t count, mgpu_dtype t, mgpu_redop op, mgpu_stream *s);
/* recv holds size*count elements; send holds count. */
mgpu_result mgpu_all_gather(mgpu_comm *c, const mgpu_buffer *send, size_t send_off, mgpu_buffer *recv,
                            size_t recv_off, size_t count, mgpu_dtype t, mgpu_stream *s);
/* send holds size*count elements; recv holds count. */
mgpu_result mgpu_reduce_scatter(mgpu_comm *c, const mgpu_buffer *send, size_t send_off, mgpu_buffer *recv,
                                size_t recv_off, size_t count, mgpu_dtype t, mgpu_redop op, mgpu_stream *s);
mgpu_result mgpu_broadcast(mgpu_comm *c, const mgpu_buffer *send, size_t send_off, mgpu_buffer *recv,
                           size_t recv_off, size_t count, mgpu_dtype t, int root, mgpu_stream *s);
/* The note's "CUDA 12.3+ multicast": a broadcast through a multicast object
 * on the node's NVSwitches (cuMulticastCreate + multimem stores), not NCCL:
 * the root writes its buffer once and the switch copies it to every GPU.
 * The sim only: mgpulab never creates multicast objects on a real GPU (they
 * need NVSwitch and the fabric manager, and a bad one can take a node's GPUs
 * out of service); the NCCL backend refuses with MGPU_ERR_UNSUPPORTED, as
 * the sim does where the ranks are not one GPU each on one node's NVSwitches
 * (Hopper or later). The flight recorder shows it as a broadcast. */
mgpu_result mgpu_broadcast_multicast(mgpu_comm *c, const mgpu_buffer *send, size_t send_off, mgpu_buffer *recv,
                                     size_t recv_off, size_t count, mgpu_dtype t, int root, mgpu_stream *s);
mgpu_result mgpu_reduce(mgpu_comm *c, const mgpu_buffer *send, size_t send_off, mgpu_buffer *recv,
                        size_t recv_off, size_t count, mgpu_dtype t, mgpu_redop op, int root, mgpu_stream *s);
/* send and recv hold size*count elements; block j of send goes to rank j. */
mgpu_result mgpu_alltoall(mgpu_comm *c, const mgpu_buffer *send, size_t send_off, mgpu_buffer *recv,
                          size_t recv_off, size_t count, mgpu_dtype t, mgpu_stream *s);
mgpu_result mgpu_send(mgpu_comm *c, const mgpu_buffer *buf, size_t off, size_t count, mgpu_dtype t, int peer,
                      mgpu_stream *s);
mgpu_result mgpu_recv(mgpu_comm *c, mgpu_buffer *buf, size_t off, size_t count, mgpu_dtype t, int peer,
                      mgpu_stream *s);
mgpu_result mgpu_barrier(mgpu_comm *c, mgpu_stream *s);
/* ncclGroupStart/End: operations between them are fused (send/recv pairs,
 * alltoall made of sends and receives). Nesting allowed, as in NCCL. */
mgpu_result mgpu_group_start(void);
mgpu_result mgpu_group_end(void);

/*--- Flight recorder ---------------------------------------------------*/

typedef enum mgpu_flight_state { MGPU_FLIGHT_ENQUEUED = 0, MGPU_FLIGHT_STARTED, MGPU_FLIGHT_COMPLETED,
                                 MGPU_FLIGHT_FAILED } mgpu_flight_state;

typedef struct mgpu_flight_entry {
    uint64_t seq;           /* per communicator, from 1; the same collective has the same seq on every rank */
    mgpu_coll op;
    uint64_t count;         /* elements */
    mgpu_dtype dtype;
    mgpu_redop redop;
    int root_or_peer;       /* -1 when none */
    char comm[32];          /* communicator name */
    uint64_t comm_id;       /* hash of the communicator's identity, equal on all its ranks */
    int stream_device;
    mgpu_flight_state state;
    double t_enqueue_us, t_start_us, t_end_us; /* host clock since the recorder started, 0 = not yet */
    char where[64];         /* the caller's source line ("train.lua:31") when a script made the call, else "" */
} mgpu_flight_entry;

/* The source line the next collective of this thread is called from (a
 * script's "train.lua:31"): its flight entry keeps it, as PyTorch's flight
 * recorder keeps the Python stack, so a hang can be traced to a line. The
 * next collective takes it and clears it; NULL clears it. */
void mgpu_comm_set_callsite(const char *where);

/* Copy out this communicator's last entries, oldest first; returns how
 * many (at most max). */
int mgpu_comm_flight_entries(mgpu_comm *c, mgpu_flight_entry *out, int max);
/* JSON text of the recorder (rank, size, comm, entries); caller frees. */
char *mgpu_comm_flight_dump_json(mgpu_comm *c);

/* The analyser: given every rank's dump (JSON texts, index = rank, NULL for
 * a rank that sent none), write one sentence naming the mismatch, e.g.
 * "ranks 0-2 entered all_reduce #7 with 1048576 f32; rank 3 entered
 * broadcast #7 with 524288 f32", or "rank 3 never entered all_reduce #7 (its
 * last was #6)". Returns MGPU_OK and "" when no mismatch is found. */
mgpu_result mgpu_flight_analyse(const char *const *dumps, int nranks, char *sentence, size_t len);
/* The same, told why each rank without a dump sent none (absent_why[r],
 * words that follow "sent no flight record (", e.g. "killed by signal 9
 * (SIGKILL)"; NULL entries or array: nothing is known). */
mgpu_result mgpu_flight_analyse_why(const char *const *dumps, const char *const *absent_why, int nranks,
                                    char *sentence, size_t len);

/*--- Every live communicator of this process --------------------------*/

/* Abort every live communicator (the runtime calls it when the coordinator
 * says a peer failed): pending and future operations fail with
 * MGPU_ERR_TIMEOUT/MGPU_ERR_NCCL instead of hanging. The mgpu_comm objects
 * stay valid until their owner destroys them. Safe from any thread. */
void mgpu_comm_abort_all(void);
/* A JSON array of mgpu_comm_flight_dump_json() of every live communicator
 * (the analyser accepts it as one rank's dump); caller frees. */
char *mgpu_comm_flight_dump_all_json(void);

#ifdef __cplusplus
}
#endif
#endif
