/* watchdog.c - one background thread per process that watches every
 * launched collective's completion event: done -> the flight entry is
 * completed; not done within the comm's timeout -> the entry fails, the comm
 * gets MGPU_ERR_TIMEOUT with a sentence naming the collective, and the
 * backend is aborted so nothing stays blocked (ncclCommAbort). The thread
 * sleeps on a condition variable while nothing is pending, so an idle
 * process costs no CPU.
 *
 * The hot path (issue 9 part 6): a rank can queue a collective every
 * microsecond, thousands per poll. Tracking one only appends (the thread is
 * woken only when the list was empty: otherwise it is polling anyway), and
 * a poll queries one event per stream at most beyond those that completed:
 * events of one stream complete in order, so once one is not done the later
 * ones on its stream are not either - they still meet their deadlines. Each
 * query takes the driver's lock the launching thread needs. */
#include "comm/comm_core.h"
#include "mgpu/clock.h"
#include "comm/flight.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define POLL_NS (5 * 1000 * 1000)

typedef struct wd_entry {
    mgpu_comm *c;
    const mgpu_stream *s;
    uint64_t slot, seq;
    mgpu_coll op;
    mgpu_event *ev;
    double deadline;
    struct wd_entry *next;
} wd_entry;

static pthread_mutex_t wd_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wd_cond = PTHREAD_COND_INITIALIZER;
static wd_entry *wd_head;
static wd_entry **wd_tail = &wd_head; /* the last next-field, for O(1) appends */
static int wd_started, wd_count, wd_atfork;

static double now_s(void) { return (double)mgpu_now_ns() / 1e9; }

/* A forked child has no watchdog thread and must not touch its parent's
 * entries (tests and launchers fork ranks). */
static void wd_after_fork_child(void)
{
    pthread_mutex_init(&wd_lock, NULL);
    pthread_cond_init(&wd_cond, NULL);
    wd_head = NULL;
    wd_tail = &wd_head;
    wd_count = 0;
    wd_started = 0;
}

static void unlink_entry(wd_entry **pp)
{
    wd_entry *e = *pp;
    *pp = e->next;
    if (!e->next) wd_tail = pp;
    wd_count--;
    mgpu_comm_core_event_put(e->c, e->ev);
    free(e);
}

/* Fail every entry of c still pending (they cannot complete after an abort). */
static void fail_all_of(mgpu_comm *c)
{
    for (wd_entry **pp = &wd_head; *pp;) {
        if ((*pp)->c == c) {
            mgpu_flight_set_state(c->flight, (*pp)->slot, MGPU_FLIGHT_FAILED);
            unlink_entry(pp);
        } else {
            pp = &(*pp)->next;
        }
    }
}

/* Streams seen with an event not done yet in this poll. More streams than
 * the array holds are simply queried every time. */
#define WD_BLOCKED_MAX 32
typedef struct {
    const mgpu_stream *s[WD_BLOCKED_MAX];
    int n;
} wd_blocked;

static int blocked_has(const wd_blocked *b, const mgpu_stream *s)
{
    for (int i = 0; i < b->n; i++)
        if (b->s[i] == s) return 1;
    return 0;
}

static void poll_once(void)
{
    double now = now_s();
    wd_blocked blocked = {.n = 0};
    for (wd_entry **pp = &wd_head; *pp;) {
        wd_entry *e = *pp;
        mgpu_comm *c = e->c;
        mgpu_comm_core *k = mgpu_core(c);
        if (k->backend_aborted) {
            fail_all_of(c);
            pp = &wd_head; /* the list changed under pp */
            blocked.n = 0;
            continue;
        }
        int done = 0;
        mgpu_result r = MGPU_OK;
        if (!blocked_has(&blocked, e->s)) {
            r = mgpu_event_query(e->ev, &done);
            if (r == MGPU_OK && !done && blocked.n < WD_BLOCKED_MAX) blocked.s[blocked.n++] = e->s;
        }
        if (r == MGPU_OK && done) {
            mgpu_flight_set_state(c->flight, e->slot, MGPU_FLIGHT_COMPLETED);
            unlink_entry(pp);
            continue;
        }
        if (r != MGPU_OK || now > e->deadline) {
            char msg[512];
            if (r != MGPU_OK)
                snprintf(msg, sizeof msg, "%s #%llu on comm %s failed on the device: %s", mgpu_coll_name(e->op),
                         (unsigned long long)e->seq, c->name, mgpu_error_message());
            else
                mgpu_comm_timeout_sentence(c, e->op, e->seq, msg, sizeof msg);
            mgpu_comm_core_set_error(c, r != MGPU_OK ? r : MGPU_ERR_TIMEOUT, msg);
            fail_all_of(c);
            /* After the entries: a blocked caller that wakes up finds them failed. */
            mgpu_comm_core_abort_backend(c);
            pp = &wd_head;
            blocked.n = 0; /* the list changed: query afresh */
            continue;
        }
        pp = &e->next;
    }
}

static void *wd_main(void *arg)
{
    (void)arg;
    struct timespec nap = {0, POLL_NS};
    pthread_mutex_lock(&wd_lock);
    for (;;) {
        while (!wd_head) pthread_cond_wait(&wd_cond, &wd_lock);
        poll_once();
        pthread_mutex_unlock(&wd_lock);
        nanosleep(&nap, NULL);
        pthread_mutex_lock(&wd_lock);
    }
    return NULL;
}

mgpu_result mgpu_watchdog_track(mgpu_comm *c, const mgpu_stream *s, uint64_t slot, mgpu_coll op, uint64_t seq,
                                mgpu_event *ev)
{
    wd_entry *e = calloc(1, sizeof *e);
    if (!e) {
        mgpu_comm_core_event_put(c, ev);
        return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory watching %s #%llu", mgpu_coll_name(op),
                         (unsigned long long)seq);
    }
    *e = (wd_entry){c, s, slot, seq, op, ev, now_s() + mgpu_core(c)->timeout_s, NULL};
    pthread_mutex_lock(&wd_lock);
    if (!wd_started) {
        if (!wd_atfork) {
            pthread_atfork(NULL, NULL, wd_after_fork_child);
            wd_atfork = 1;
        }
        pthread_t t;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        int rc = pthread_create(&t, &at, wd_main, NULL);
        pthread_attr_destroy(&at);
        if (rc != 0) {
            pthread_mutex_unlock(&wd_lock);
            mgpu_comm_core_event_put(c, ev);
            free(e);
            return mgpu_fail(MGPU_ERR_INTERNAL, "could not start the communicator watchdog thread (error %d)", rc);
        }
        wd_started = 1;
    }
    /* Append: entries are polled in launch order. */
    *wd_tail = e;
    wd_tail = &e->next;
    if (wd_count++ == 0) pthread_cond_signal(&wd_cond); /* it waits only on an empty list */
    pthread_mutex_unlock(&wd_lock);
    return MGPU_OK;
}

void mgpu_watchdog_forget(mgpu_comm *c)
{
    pthread_mutex_lock(&wd_lock);
    for (wd_entry **pp = &wd_head; *pp;) {
        if ((*pp)->c == c) unlink_entry(pp);
        else pp = &(*pp)->next;
    }
    pthread_mutex_unlock(&wd_lock);
}

int mgpu_watchdog_pending_for(const mgpu_comm *c)
{
    pthread_mutex_lock(&wd_lock);
    int n = 0;
    for (wd_entry *e = wd_head; e; e = e->next) n += e->c == c;
    pthread_mutex_unlock(&wd_lock);
    return n;
}

int mgpu_watchdog_pending(void)
{
    pthread_mutex_lock(&wd_lock);
    int n = wd_count;
    pthread_mutex_unlock(&wd_lock);
    return n;
}
