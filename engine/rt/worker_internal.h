/* worker_internal.h - the worker context (worker.c) behind mgpu_worker. */
#ifndef MGPU_RT_WORKER_INTERNAL_H
#define MGPU_RT_WORKER_INTERNAL_H
#include <pthread.h>
#include <stdint.h>
#include <jansson.h>
#include "mgpu/rt.h"

struct mgpu_worker {
    mgpu_rank_env env;
    int fd;                        /* the coordinator connection */
    int device;
    double timeout_s;
    mgpu_backend *be;
    mgpu_comm *world;
    mgpu_bootstrap bs;
    pthread_mutex_t send_lock;     /* one frame at a time on fd */
    pthread_mutex_t lock;          /* guards the fields below */
    pthread_cond_t cond;
    uint64_t ag_seq;               /* last all-gather this rank started */
    json_t *ag_reply;              /* the coordinator's reply, taken by the waiter */
    volatile int aborted;
    volatile int flight_sent;   /* the final flight dump went up (before the world was destroyed) */
    uint64_t abort_ns;
    char abort_reason[512];
    pthread_t io;
    int stop_pipe[2];              /* wakes the I/O thread to stop */
};

#endif
