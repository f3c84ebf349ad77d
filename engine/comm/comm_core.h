/* comm_core.h - what the files above the backends share (comm.c,
 * comm_coll.c, watchdog.c, fingerprint.c): the state kept per communicator
 * (c->core) with its functions in comm_core.c, and the watchdog's and the
 * fingerprint check's entry points. Backends do not include it
 * (what they share with the core, the timeout, is in comm_args.h). */
#ifndef MGPU_COMM_CORE_H
#define MGPU_COMM_CORE_H
#include "comm/comm_backend.h"
#include <pthread.h>

typedef struct mgpu_comm_core {
    pthread_mutex_t lock;        /* async error, abort flag, event pool */
    mgpu_comm *comm;
    struct mgpu_comm_core *next; /* the registry of live communicators */
    mgpu_result async_err;       /* the watchdog's or a backend's verdict, MGPU_OK while healthy */
    char async_msg[512];
    int backend_aborted;         /* ops->abort has run: impl is gone */
    int fingerprint;             /* cfg.fingerprint or MGPU_FINGERPRINT=1 */
    double timeout_s;            /* resolved per-collective timeout */
    uint64_t p2p_seq;            /* send/recv have their own sequence: they do not involve every rank */
    mgpu_buffer *fp_dev;         /* fingerprint exchange: (size+1) x 64 bytes on the comm's device */
    mgpu_buffer *fp_host;        /* pinned staging for it (cuda only) */
    mgpu_event **pool;           /* completion events ready for reuse */
    int npool, cappool;
    struct mgpu_wd_lane *wd_lanes; /* the watchdog's lanes of this comm (watchdog.c) */
} mgpu_comm_core;

static inline mgpu_comm_core *mgpu_core(const mgpu_comm *c) { return (mgpu_comm_core *)c->core; }

/*--- comm_core.c ---*/
/* Record the first asynchronous failure (later ones keep the first). */
void mgpu_comm_core_set_error(mgpu_comm *c, mgpu_result r, const char *msg);
/* MGPU_OK, or the verdict that makes c unusable (the watchdog's or a
 * backend's error, or an abort), worded for a caller of `api`. */
mgpu_result mgpu_comm_core_check_usable(mgpu_comm *c, const char *api);
/* Call ops->abort once (idempotent, any thread). */
void mgpu_comm_core_abort_backend(mgpu_comm *c);
/* The sentence a collective that did not finish in time gets, the same on
 * both paths (watchdog on cuda, the backend's own wait on sim). */
void mgpu_comm_timeout_sentence(const mgpu_comm *c, mgpu_coll op, uint64_t seq, char *buf, size_t len);

/* Completion events, pooled per comm (creating one per collective costs
 * microseconds a small collective cannot afford). */
mgpu_result mgpu_comm_core_event_get(mgpu_comm *c, mgpu_event **out);
void mgpu_comm_core_event_put(mgpu_comm *c, mgpu_event *e);

/*--- watchdog.c ---*/
/* A lane: one (communicator, stream) pair the watchdog watches. */
typedef struct mgpu_wd_lane mgpu_wd_lane;
/* The lane of (c, s), made on first use (it retains s). Found without a
 * lock once it exists. Ask for it before the flight entry is added: the
 * entry is tagged with it (mgpu_flight_add_on). */
mgpu_result mgpu_watchdog_lane(mgpu_comm *c, mgpu_stream *s, mgpu_wd_lane **out);
/* The collective of flight slot `slot` was launched on the lane's stream:
 * call it after the launch returned. The watchdog completes the entry when
 * the stream's work up to it is done (it records the events, on its own
 * thread, one per poll and lane), or after the comm's timeout fails it,
 * sets the comm's async error to MGPU_ERR_TIMEOUT and aborts the backend.
 * No lock, no allocation, no clock read. */
void mgpu_watchdog_launched(mgpu_wd_lane *l, uint64_t slot);
/* Forget c's lanes (before it is freed); returns their events to c's pool. */
void mgpu_watchdog_forget(mgpu_comm *c);
/* How many launched collectives the watchdog is watching (tests). */
int mgpu_watchdog_pending(void);
/* How many of them belong to c (destroy waits for these to settle). */
int mgpu_watchdog_pending_for(const mgpu_comm *c);

/*--- fingerprint.c ---*/
#define MGPU_FP_BYTES 64

typedef struct mgpu_fingerprint {
    uint64_t seq;
    uint64_t count;
    uint64_t comm_id;
    int32_t op, dtype, redop, root;
} mgpu_fingerprint;

void mgpu_fingerprint_encode(const mgpu_fingerprint *fp, unsigned char out[MGPU_FP_BYTES]);
/* 0 when the bytes are not a fingerprint (wrong magic). */
int mgpu_fingerprint_decode(const unsigned char in[MGPU_FP_BYTES], mgpu_fingerprint *fp);
/* Compare `n` ranks' fingerprints; 0 when all agree, else 1 with the sentence. */
int mgpu_fingerprint_compare(const mgpu_fingerprint *all, int n, const char *comm_name, char *msg, size_t len);
/* Before a collective: all-gather this rank's fingerprint over c through the
 * backend and refuse (MGPU_ERR_INVALID) when the ranks disagree. */
mgpu_result mgpu_fingerprint_check(mgpu_comm *c, const mgpu_coll_args *a, uint64_t seq, mgpu_stream *s);
/* The comm's small device scratch: 64 bytes at *off of *buf (the barrier's
 * one-element all-reduce runs there). Allocated on first use. */
mgpu_result mgpu_comm_core_scratch(mgpu_comm *c, mgpu_buffer **buf, size_t *off);
void mgpu_fingerprint_release(mgpu_comm *c);

#endif
