/* evq.h - the queue that carries what a running step reports from the work
 * thread to the UI thread: every event owns copies of its data (the work
 * thread's pointers die with the callback), a mutex guards the list and a
 * self-pipe wakes the UI thread's poll(2). */
#ifndef MGPU_SHELL_EVQ_H
#define MGPU_SHELL_EVQ_H
#include <jansson.h>
#include "mgpu/err.h"
#include "mgpu/lab.h"

typedef enum shell_ev_type {
    EV_LOG,       /* rank, text */
    EV_PROGRESS,  /* fraction, text */
    EV_RESULT,    /* kind, doc */
    EV_SPAN,      /* doc */
    EV_STEP_DONE, /* verdict (or rc + text when the call itself failed) */
    EV_TOPO_DONE, /* the start-up topology query ended: rc, text (error) */
} shell_ev_type;

typedef struct shell_event {
    shell_ev_type type;
    int rank;
    double fraction;
    char *text;
    char *kind;
    json_t *doc;
    int lab, step;
    int simulated;     /* EV_TOPO_DONE: the machine that answered is simulated */
    mgpu_result rc;
    mgpu_lab_verdict *verdict; /* EV_STEP_DONE when rc == MGPU_OK */
    struct shell_event *next;
} shell_event;

typedef struct shell_evq shell_evq;

mgpu_result evq_open(shell_evq **out);
void evq_close(shell_evq *q);
/* The fd to poll for POLLIN: readable when events are waiting. */
int evq_fd(const shell_evq *q);
/* Take ownership of `ev` (allocated with calloc) and wake the UI thread.
 * Any thread. */
void evq_push(shell_evq *q, shell_event *ev);
/* Every waiting event, oldest first (NULL when none); empties the pipe. */
shell_event *evq_take(shell_evq *q);
void evq_event_free(shell_event *ev);

/* Constructors for the work thread's callbacks (copy what they are given;
 * NULL only when out of memory, and then the event is dropped). */
shell_event *evq_new(shell_ev_type type);

#endif
