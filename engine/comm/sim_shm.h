/* sim_shm.h - the sim communicator's shared segment (private to engine/comm):
 * per-rank doorbells and exchange blobs, a chunked mailbox per ordered pair of
 * ranks, and the transfer engine the algorithms are written in. */
#ifndef MGPU_SIM_SHM_H
#define MGPU_SIM_SHM_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "mgpu/comm.h"

#define SIM_MAX_RANKS MGPU_SIM_MAX_RANKS
#define SIM_BLOB 256          /* bytes each rank posts per exchange */
#define SIM_SLOTS 4           /* chunks in flight per mailbox */
#define SIM_NAME_LEN 64

/* A deadline, abort flags and a label for messages ("all_reduce #7 on 'world'"). */
typedef struct sim_ctx {
    struct sim_seg *seg;
    int me;
    uint64_t deadline_ns;     /* CLOCK_MONOTONIC */
    double timeout_s;
    volatile int *local_abort; /* the communicator's aborted flags (either set = stop) */
    volatile int *impl_abort;
    char what[96];
} sim_ctx;

typedef struct sim_seg {
    void *base;
    size_t bytes;
    int n;
    size_t slot_bytes;
    struct sim_hdr *hdr;
    struct sim_rank *ranks;
    struct sim_chan *chans;
    unsigned char *data;
    uint64_t xseq;            /* this rank's exchange count */
    /* The collective area: per rank two staging slots (by barrier parity)
     * of coll_bytes each, and one shared result buffer of coll_bytes. */
    unsigned char *coll;
    size_t coll_bytes;
    size_t populated;         /* bytes of each slot this process has pre-faulted */
    uint64_t nbar;            /* barriers this rank has passed */
    int barrier_spins;        /* yields before a barrier sleeps: 0 when ranks outnumber CPUs */
    int cleanup;              /* the creator's mgpu_cleanup slot for its name until unlinked; -1 */
    char name[SIM_NAME_LEN];  /* the creator's: unlinked at close if a failure skipped it */
} sim_seg;

/* Create (rank `me` of n) under a fresh random name, or open one by name. */
mgpu_result sim_seg_create(int n, sim_seg *s, char name[SIM_NAME_LEN]);
mgpu_result sim_seg_open(const char *name, int n, sim_seg *s);
/* The creator removes the name once every rank has opened it. */
void sim_seg_unlink(sim_seg *s, const char *name);
void sim_seg_close(sim_seg *s);
/* Set the segment's aborted flag (by rank `who`) and wake every rank. */
void sim_seg_abort(sim_seg *s, int who);
void sim_seg_wake_all(sim_seg *s);
/* The rank that aborted the segment, -1 while healthy. */
int sim_seg_aborted(const sim_seg *s);
void sim_seg_set_pid(sim_seg *s, int rank, pid_t pid);
/* How a rank left the communicator, for a peer that finds its process gone
 * while it waits: finished its script (the world, destroyed by the runtime
 * after the job succeeded) or destroyed it (a split one). A rank that
 * never said so died. */
typedef enum sim_left { SIM_LEFT_NOT = 0, SIM_LEFT_FINISHED, SIM_LEFT_DESTROYED } sim_left;
void sim_seg_leave(sim_seg *s, int rank, sim_left how);

/* A barrier over all the segment's ranks: one shared counter, a futex wait
 * on it (woken by the last arrival), bounded by the context's timeout,
 * abort flags and dead-rank checks (the message names missing ranks). */
mgpu_result sim_barrier(sim_ctx *x);
/* Staging slot of `rank` to fill before the next barrier / to read after
 * the last one. A slot written before barrier b is read between b and b+1;
 * slots alternate by barrier parity, so a rank may refill before b+1 while
 * slower ranks still read. */
unsigned char *sim_slot_next(sim_seg *s, int rank);
unsigned char *sim_slot_cur(sim_seg *s, int rank);
/* Shared result buffer (coll_bytes): written between two barriers, read
 * after the second, rewritten only after a third. */
unsigned char *sim_result(sim_seg *s);
/* Fault in the first `bytes` of every slot and the result buffer in one go
 * (MADV_POPULATE_WRITE) instead of page by page; a no-op when done. */
void sim_seg_prepare(sim_seg *s, size_t bytes);

/* All-gather SIM_BLOB-sized blobs through the segment (collective over the
 * segment's ranks); all receives n * SIM_BLOB bytes. Timeouts name the ranks
 * that did not arrive. */
mgpu_result sim_exchange(sim_ctx *x, const void *mine, void *all);
/* Block until the deadline passes or an abort arrives; always fails. Used
 * when ranks entered different collectives: NCCL would hang until its
 * watchdog fires, and so does the sim, with `why` in the message. */
mgpu_result sim_stall(sim_ctx *x, const char *why);

/*--- Transfers --------------------------------------------------------*/

enum { SIM_SEND = 0, SIM_RECV, SIM_RECV_REDUCE };

typedef struct sim_xfer {
    int kind, peer;
    const unsigned char *src;  /* SEND */
    unsigned char *dst;        /* RECV, RECV_REDUCE (dst = own op chunk) */
    const unsigned char *own;  /* RECV_REDUCE; may equal dst */
    size_t bytes, done;
    const size_t *avail;       /* SEND: send only what another xfer has received */
    mgpu_dtype dtype;
    mgpu_redop redop;
    double model_ns;           /* SEND: stamped on the message; RECV: the sender's stamp */
} sim_xfer;

/* Drive the transfers to completion together (so cyclic exchanges cannot
 * deadlock), waiting on the doorbell when none can move. Zero-byte
 * transfers are no-ops. */
mgpu_result sim_run(sim_ctx *x, sim_xfer *xf, int n);

/*--- Reductions (sim_reduce.c) ------------------------------------------*/

/* dst[i] = a[i] op b[i] over count elements (avg reduces as sum); f16 and
 * bf16 are computed in f32 and rounded, as NCCL does per step. dst may
 * alias a or b. */
void sim_reduce(void *dst, const void *a, const void *b, size_t count, mgpu_dtype t, mgpu_redop op);
/* avg's final step: divide by n (i32 truncates). */
void sim_divide(void *buf, size_t count, mgpu_dtype t, int n);

#endif
