/* watchdog.c - one background thread per process that watches every
 * launched collective: done -> the flight entry is completed; not done
 * within the comm's timeout -> the entry fails, the comm gets
 * MGPU_ERR_TIMEOUT with a sentence naming the collective, and the backend is
 * aborted so nothing stays blocked (ncclCommAbort). The thread sleeps on a
 * condition variable while nothing is pending, so an idle process costs no
 * CPU.
 *
 * The hot path (issue 9 part 6): a rank can queue a collective every few
 * hundred nanoseconds, and recording a completion event per call (what
 * torch's ProcessGroupNCCL does) costs more than NCCL's own enqueue. So the
 * caller only appends an entry; the watchdog records the events. Work is
 * watched per lane, one (communicator, stream) pair: at each poll a lane
 * whose entries are not covered yet gets one fence, an event recorded on
 * its stream from this thread, which covers every entry appended before it
 * (each was launched before it was appended, and a stream runs in order).
 * When the fence is done, so are they. A lane has at most one fence
 * outstanding, so a hung collective costs one event, not one per poll; an
 * entry is completed within two polls of its work. The lane holds a
 * reference on its stream, since the caller may destroy it meanwhile. */
#include "comm/comm_core.h"
#include "mgpu/clock.h"
#include "comm/flight.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define POLL_NS (5 * 1000 * 1000)

typedef struct wd_lane {
    mgpu_comm *c;
    mgpu_stream *s;      /* retained while the lane exists */
    mgpu_event *fence;   /* outstanding, or NULL */
    uint64_t fenced;     /* entries with ticket <= fenced are covered by fence */
    uint64_t tickets;    /* the last ticket handed out */
    int entries;
    struct wd_lane *next;
} wd_lane;

typedef struct wd_entry {
    wd_lane *lane;
    uint64_t ticket, slot, seq;
    mgpu_coll op;
    double deadline;
    struct wd_entry *next;
} wd_entry;

static pthread_mutex_t wd_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wd_cond = PTHREAD_COND_INITIALIZER;
static wd_entry *wd_head;
static wd_entry **wd_tail = &wd_head; /* the last next-field, for O(1) appends */
static wd_entry *wd_spare;            /* freed entries, reused: no malloc per call */
static int wd_nspare;
#define WD_SPARE_MAX 4096
static wd_lane *wd_lanes, *wd_last_lane;
static int wd_started, wd_count, wd_atfork;

static double now_s(void) { return (double)mgpu_now_ns() / 1e9; }

/* A forked child has no watchdog thread and must not touch its parent's
 * entries (tests and launchers fork ranks). */
static void wd_after_fork_child(void)
{
    pthread_mutex_init(&wd_lock, NULL);
    pthread_cond_init(&wd_cond, NULL);
    wd_head = wd_spare = NULL;
    wd_nspare = 0;
    wd_tail = &wd_head;
    wd_lanes = wd_last_lane = NULL;
    wd_count = 0;
    wd_started = 0;
}

static wd_lane *lane_of(mgpu_comm *c, mgpu_stream *s)
{
    if (wd_last_lane && wd_last_lane->c == c && wd_last_lane->s == s) return wd_last_lane;
    for (wd_lane *l = wd_lanes; l; l = l->next)
        if (l->c == c && l->s == s) return wd_last_lane = l;
    wd_lane *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    l->c = c;
    l->s = s;
    mgpu_stream_retain(s);
    l->next = wd_lanes;
    wd_lanes = l;
    return wd_last_lane = l;
}

/* Drop a lane with no entries left. */
static void lane_drop_if_idle(wd_lane *l)
{
    if (l->entries > 0) return;
    for (wd_lane **pp = &wd_lanes; *pp; pp = &(*pp)->next)
        if (*pp == l) {
            *pp = l->next;
            break;
        }
    if (wd_last_lane == l) wd_last_lane = NULL;
    if (l->fence) mgpu_comm_core_event_put(l->c, l->fence);
    mgpu_stream_destroy(l->s); /* our reference */
    free(l);
}

static void unlink_entry(wd_entry **pp)
{
    wd_entry *e = *pp;
    *pp = e->next;
    if (!e->next) wd_tail = pp;
    wd_count--;
    e->lane->entries--;
    if (wd_nspare >= WD_SPARE_MAX) {
        free(e);
        return;
    }
    e->next = wd_spare;
    wd_spare = e;
    wd_nspare++;
}

/* Fail every entry of c still pending (they cannot complete after an abort),
 * and drop its lanes. */
static void fail_all_of(mgpu_comm *c, int mark_failed)
{
    for (wd_entry **pp = &wd_head; *pp;) {
        wd_entry *e = *pp;
        if (e->lane->c == c) {
            if (mark_failed) mgpu_flight_set_state(c->flight, e->slot, MGPU_FLIGHT_FAILED);
            unlink_entry(pp);
        } else {
            pp = &e->next;
        }
    }
    for (wd_lane *l = wd_lanes, *next; l; l = next) {
        next = l->next;
        if (l->c == c) lane_drop_if_idle(l);
    }
}

/* The comm's verdict, entries failed, backend aborted. */
static void fail_comm(mgpu_comm *c, mgpu_result r, mgpu_coll op, uint64_t seq, const char *device_error)
{
    char msg[512];
    if (r != MGPU_OK)
        snprintf(msg, sizeof msg, "%s #%llu on comm %s failed on the device: %s", mgpu_coll_name(op),
                 (unsigned long long)seq, c->name, device_error);
    else
        mgpu_comm_timeout_sentence(c, op, seq, msg, sizeof msg);
    mgpu_comm_core_set_error(c, r != MGPU_OK ? r : MGPU_ERR_TIMEOUT, msg);
    fail_all_of(c, 1);
    /* After the entries: a blocked caller that wakes up finds them failed. */
    mgpu_comm_core_abort_backend(c);
}

/* The oldest entry of lane l (the one a failure is reported against). */
static wd_entry *oldest_of(const wd_lane *l)
{
    for (wd_entry *e = wd_head; e; e = e->next)
        if (e->lane == l) return e;
    return NULL;
}

/* Complete the entries a done fence covered. */
static void complete_covered(wd_lane *l)
{
    for (wd_entry **pp = &wd_head; *pp;) {
        wd_entry *e = *pp;
        if (e->lane == l && e->ticket <= l->fenced) {
            mgpu_flight_set_state(l->c->flight, e->slot, MGPU_FLIGHT_COMPLETED);
            unlink_entry(pp);
        } else {
            pp = &e->next;
        }
    }
}

/* Query a lane's fence, and fence what it does not cover yet. Returns
 * MGPU_OK, or the device's error (the lane's comm is then failed). */
static mgpu_result advance_lane(wd_lane *l)
{
    if (l->fence) {
        int done = 0;
        MGPU_CHECK(mgpu_event_query(l->fence, &done));
        if (!done) return MGPU_OK;
        complete_covered(l);
        mgpu_comm_core_event_put(l->c, l->fence);
        l->fence = NULL;
    }
    if (l->tickets > l->fenced) {
        mgpu_event *ev = NULL;
        MGPU_CHECK(mgpu_comm_core_event_get(l->c, &ev));
        mgpu_result r = mgpu_event_record(ev, l->s);
        if (r != MGPU_OK) {
            mgpu_comm_core_event_put(l->c, ev);
            return r;
        }
        l->fence = ev;
        l->fenced = l->tickets;
    }
    return MGPU_OK;
}

static void poll_once(void)
{
    /* Lanes first: fences done complete their entries, new work is fenced. */
    for (wd_lane *l = wd_lanes, *next; l; l = next) {
        next = l->next;
        mgpu_comm *c = l->c;
        if (mgpu_core(c)->backend_aborted) {
            fail_all_of(c, 1);
            next = wd_lanes; /* the list changed: start again */
            continue;
        }
        mgpu_result r = advance_lane(l);
        if (r != MGPU_OK) {
            wd_entry *e = oldest_of(l);
            fail_comm(c, r, e ? e->op : MGPU_COLL_ALL_REDUCE, e ? e->seq : 0, mgpu_error_message());
            next = wd_lanes;
            continue;
        }
        lane_drop_if_idle(l);
    }
    /* Then deadlines, oldest first. */
    double now = now_s();
    for (wd_entry *e = wd_head; e;) {
        if (now > e->deadline) {
            fail_comm(e->lane->c, MGPU_OK, e->op, e->seq, NULL);
            e = wd_head; /* the list changed */
            continue;
        }
        e = e->next;
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

static mgpu_result start_thread_locked(void)
{
    if (wd_started) return MGPU_OK;
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
    if (rc != 0) return mgpu_fail(MGPU_ERR_INTERNAL, "could not start the communicator watchdog thread (error %d)", rc);
    wd_started = 1;
    return MGPU_OK;
}

mgpu_result mgpu_watchdog_track(mgpu_comm *c, mgpu_stream *s, uint64_t slot, mgpu_coll op, uint64_t seq)
{
    double deadline = now_s() + mgpu_core(c)->timeout_s;
    pthread_mutex_lock(&wd_lock);
    mgpu_result r = start_thread_locked();
    wd_lane *l = r == MGPU_OK ? lane_of(c, s) : NULL;
    wd_entry *e = NULL;
    if (l) {
        e = wd_spare;
        if (e) wd_spare = e->next, wd_nspare--;
        else e = malloc(sizeof *e);
    }
    if (!e) {
        if (l) lane_drop_if_idle(l);
        pthread_mutex_unlock(&wd_lock);
        if (r != MGPU_OK) return r;
        return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory watching %s #%llu", mgpu_coll_name(op),
                         (unsigned long long)seq);
    }
    *e = (wd_entry){l, ++l->tickets, slot, seq, op, deadline, NULL};
    l->entries++;
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
    fail_all_of(c, 0);
    pthread_mutex_unlock(&wd_lock);
}

int mgpu_watchdog_pending_for(const mgpu_comm *c)
{
    pthread_mutex_lock(&wd_lock);
    int n = 0;
    for (wd_lane *l = wd_lanes; l; l = l->next) n += l->c == c ? l->entries : 0;
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
