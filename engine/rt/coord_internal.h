/* coord_internal.h - the coordinator's state, shared inside engine/rt by
 * coord.c (processes, the poll loop, the entry) and coord_conn.c (the ranks'
 * connections, their messages, and the first failure's abort). */
#ifndef MGPU_COORD_INTERNAL_H
#define MGPU_COORD_INTERNAL_H
#include <jansson.h>
#include <stdint.h>
#include "rt/capture.h"
#include "rt/coord_setup.h"
#include "rt/protocol.h"
#include "rt/rt_internal.h"

#define MAX_STRANGERS 64          /* unauthenticated connections at once beyond the ranks still to say hello */

typedef struct conn {
    int fd, rank;                 /* rank -1 until a good hello */
    mgpu_proto_reader rd;
    char *out;                    /* queued frames not yet written */
    size_t out_len, out_off;
    uint64_t since_ns;
    unsigned long frames;         /* messages dispatched (drain_rank's progress) */
} conn;

typedef struct rank_state {
    conn *c;                      /* NULL before hello and after close */
    int hello, done, closed;
    uint64_t last_ns, eof_ns;
    long long pid;
    uint64_t ag_seq;              /* last all-gather seq received */
    unsigned char *ag;
    size_t ag_len;
    char *flight;                 /* the rank's flight dump (JSON text) */
    /* what the rank was doing, for a missing flight record (absent_why) */
    int late;                     /* said hello after the run had failed: it got no job */
    int exited, exit_status;      /* reaped during the run, and how it ended */
    int exited_after_fail;
    int stopped;                  /* seen stopped (SIGSTOP, a debugger) */
} rank_state;

typedef struct coord {
    const mgpu_rt_config *cfg;
    mgpu_rt_report *rep;
    mgpu_rt_on_msg on_msg;
    void *ctx;
    int size, local;
    double timeout_s;
    char token[MGPU_PROTO_TOKEN_HEX + 1];
    rt_listener lis;
    conn *conns[MAX_STRANGERS + 8192];
    int nconns;
    int nhello;                   /* ranks that said hello */
    int npending;                 /* connections that have not said hello */
    size_t pending_bytes;         /* their read buffers' size, together */
    rank_state *ranks;
    rt_proc *procs;
    int nprocs;
    json_t *job;
    uint64_t t0, abort_deadline;
    int failed, hung_rank, ndone;
    uint64_t ag_seq;              /* the all-gather being collected */
    int ag_count;
    rt_pipe *pipes;               /* capture_output: every process's stdout and stderr */
    int npipes;
} coord;

/* The caller's on_msg with a message of `type` from rank (-1: the
 * coordinator's own); steals body. */
void coord_event(coord *c, int rank, const char *type, json_t *body);

/* Write what the socket takes of k's queued frames. */
void coord_conn_flush(conn *k);
/* Queue a message (steals the reference) and write what the socket takes. */
void coord_conn_queue(conn *k, json_t *msg);
/* Close connection i and forget it (the last one takes its slot). */
void coord_conn_close(coord *c, int i);
/* Close connection i, saying why in the log and as a "refused" event. */
void coord_refuse(coord *c, int i, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Close the connection not yet said hello that holds the most (coord_conn.c
 * says why that one); 0 when there is none. */
int coord_evict_stranger(coord *c, const char *why);
/* Room for every rank still to say hello plus MAX_STRANGERS others. */
int coord_pending_cap(const coord *c);
/* Read and dispatch what connection i has; returns 0 when it was closed. */
int coord_conn_read(coord *c, int i);

/* The run's first failure (later ones are ignored): the report says it, and
 * every rank but a hung one is told to abort. */
void coord_fail(coord *c, int rank, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
