/* evq.c - mutex-protected event list plus a self-pipe for poll(2). */
#include "evq.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct shell_evq {
    pthread_mutex_t lock;
    shell_event *head, *tail;
    int pipe_rd, pipe_wr;
    int signalled; /* a byte sits in the pipe: one wake-up per batch is enough */
};

mgpu_result evq_open(shell_evq **out)
{
    shell_evq *q = calloc(1, sizeof *q);
    if (!q) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory for the event queue");
    int p[2];
    if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) {
        free(q);
        return mgpu_fail(MGPU_ERR_IO, "cannot create the shell's wake-up pipe: %s", strerror(errno));
    }
    q->pipe_rd = p[0];
    q->pipe_wr = p[1];
    pthread_mutex_init(&q->lock, NULL);
    *out = q;
    return MGPU_OK;
}

void evq_event_free(shell_event *ev)
{
    while (ev) {
        shell_event *next = ev->next;
        free(ev->text);
        free(ev->kind);
        json_decref(ev->doc);
        if (ev->verdict) {
            mgpu_lab_verdict_clear(ev->verdict);
            free(ev->verdict);
        }
        free(ev);
        ev = next;
    }
}

void evq_close(shell_evq *q)
{
    if (!q) return;
    evq_event_free(q->head);
    close(q->pipe_rd);
    close(q->pipe_wr);
    pthread_mutex_destroy(&q->lock);
    free(q);
}

int evq_fd(const shell_evq *q) { return q->pipe_rd; }

shell_event *evq_new(shell_ev_type type)
{
    shell_event *ev = calloc(1, sizeof *ev);
    if (ev) ev->type = type;
    return ev;
}

void evq_push(shell_evq *q, shell_event *ev)
{
    if (!ev) return;
    ev->next = NULL;
    pthread_mutex_lock(&q->lock);
    if (q->tail) q->tail->next = ev;
    else q->head = ev;
    q->tail = ev;
    int wake = !q->signalled;
    q->signalled = 1;
    pthread_mutex_unlock(&q->lock);
    if (wake) {
        /* A full pipe already wakes the reader, so EAGAIN is harmless. */
        ssize_t r = write(q->pipe_wr, "x", 1);
        (void)r;
    }
}

shell_event *evq_take(shell_evq *q)
{
    char buf[64];
    while (read(q->pipe_rd, buf, sizeof buf) > 0) {}
    pthread_mutex_lock(&q->lock);
    shell_event *all = q->head;
    q->head = q->tail = NULL;
    q->signalled = 0;
    pthread_mutex_unlock(&q->lock);
    return all;
}
