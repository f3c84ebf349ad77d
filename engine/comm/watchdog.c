/* watchdog.c - one background thread per process that watches every
 * launched collective: done -> its flight entry is completed; not done
 * within the comm's timeout -> the entry fails, the comm gets
 * MGPU_ERR_TIMEOUT with a sentence naming the collective, and the backend is
 * aborted so nothing stays blocked (ncclCommAbort). The thread sleeps on a
 * condition variable while nothing is pending, so an idle process costs no
 * CPU.
 *
 * The hot path (issue 9 part 6): a rank can queue a collective every few
 * hundred nanoseconds, and recording a completion event per call (what
 * torch's ProcessGroupNCCL does) costs more than NCCL's own enqueue; so
 * does any per-call structure the watchdog must walk. Work is watched per
 * lane, one (communicator, stream) pair. A caller finds its lane without a
 * lock, tags the flight entry with it, and after the launch bumps two of
 * the lane's counters: that is all. At each poll this thread gives a lane
 * with uncovered work one fence, an event recorded on its stream, which
 * covers every call launched before it (each call was counted after its
 * launch returned, and a stream runs in order); when the fence is done, so
 * are they, and the flight recorder completes the lane's entries up to the
 * fence's slot. Deadlines come from the flight entries' own enqueue times.
 * A lane has at most one fence outstanding, so a hung collective costs one
 * event, not one per poll.
 *
 * Lanes are never freed while their comm lives (a caller reads them without
 * a lock); the lane holds a reference on its stream, since the caller may
 * destroy it meanwhile, and gives it up once the lane is idle and the
 * owner's reference is gone: the lane is vacant then and the next new
 * stream of the comm takes it. Nobody can be calling on a stream whose
 * only reference is the lane's, so no caller is using a lane as it empties. */
#include "comm/comm_core.h"
#include "mgpu/clock.h"
#include "comm/flight.h"
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define POLL_NS (5 * 1000 * 1000)

struct mgpu_wd_lane {
    mgpu_comm *c;
    _Atomic(mgpu_stream *) s;     /* retained; NULL: vacant */
    /* Written by callers after each launch: last_slot first, then tickets. */
    _Atomic uint64_t last_slot;  /* 1 + the flight slot of the newest call launched */
    _Atomic uint64_t tickets;    /* calls launched on the lane */
    /* This thread's, under wd_lock (done is read by the pending counts). */
    _Atomic uint64_t done;       /* calls known complete (or failed) */
    mgpu_event *fence;           /* outstanding, or NULL */
    uint64_t fenced, fenced_slot; /* what it covers: tickets, and 1 + the last slot */
    double fence_s;              /* when it was recorded */
    mgpu_wd_lane *next_of_comm;  /* c's lanes (callers walk these without a lock) */
    mgpu_wd_lane *next;          /* every lane (this thread walks these) */
};

static pthread_mutex_t wd_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wd_cond = PTHREAD_COND_INITIALIZER;
static mgpu_wd_lane *wd_lanes;
static int wd_started, wd_atfork;
static _Atomic int wd_awake; /* 0: the thread waits on wd_cond; a caller must wake it */

static double now_s(void) { return (double)mgpu_now_ns() / 1e9; }

/* A forked child has no watchdog thread, and its parent's calls are not
 * its to wait for (tests and launchers fork ranks): they count as settled,
 * so destroying a comm it inherited does not wait on them. Its parent's
 * fences are not its either: dropped, not pooled. */
static void wd_after_fork_child(void)
{
    pthread_mutex_init(&wd_lock, NULL);
    pthread_cond_init(&wd_cond, NULL);
    for (mgpu_wd_lane *l = wd_lanes; l; l = l->next) {
        atomic_store(&l->done, atomic_load(&l->tickets));
        l->fenced = atomic_load(&l->done);
        l->fence = NULL;
    }
    wd_started = 0;
    atomic_store(&wd_awake, 0);
}

static uint64_t lane_pending(const mgpu_wd_lane *l) { return atomic_load(&l->tickets) - atomic_load(&l->done); }

static void *wd_main(void *arg);

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

/*--- The caller's side --------------------------------------------------------*/

static mgpu_wd_lane *comm_lanes(const mgpu_comm *c)
{
    return __atomic_load_n(&mgpu_core(c)->wd_lanes, __ATOMIC_ACQUIRE);
}

/* The lane of (c, s) when it exists: no lock (the common case). */
static mgpu_wd_lane *find_lane(const mgpu_comm *c, const mgpu_stream *s)
{
    for (mgpu_wd_lane *l = comm_lanes(c); l; l = l->next_of_comm)
        if (atomic_load_explicit(&l->s, memory_order_acquire) == s) return l;
    return NULL;
}

mgpu_result mgpu_watchdog_lane(mgpu_comm *c, mgpu_stream *s, mgpu_wd_lane **out)
{
    *out = find_lane(c, s);
    if (*out) return MGPU_OK;
    pthread_mutex_lock(&wd_lock);
    mgpu_result r = start_thread_locked();
    mgpu_wd_lane *l = r == MGPU_OK ? find_lane(c, s) : NULL; /* another thread's, meanwhile */
    for (mgpu_wd_lane *v = comm_lanes(c); r == MGPU_OK && !l && v; v = v->next_of_comm)
        if (!atomic_load(&v->s)) l = v; /* a vacant one */
    if (r == MGPU_OK && !l) {
        l = calloc(1, sizeof *l);
        if (!l) {
            r = mgpu_fail(MGPU_ERR_NOMEM, "out of host memory watching communicator %s", c->name);
        } else {
            l->c = c;
            l->next = wd_lanes;
            wd_lanes = l;
            l->next_of_comm = comm_lanes(c);
            __atomic_store_n(&mgpu_core(c)->wd_lanes, l, __ATOMIC_RELEASE);
        }
    }
    if (l && atomic_load(&l->s) != s) {
        mgpu_stream_retain(s);
        atomic_store_explicit(&l->s, s, memory_order_release);
    }
    pthread_mutex_unlock(&wd_lock);
    *out = l;
    return r;
}

static void wake(void)
{
    pthread_mutex_lock(&wd_lock);
    (void)start_thread_locked(); /* started with the lane; again in a forked child */
    atomic_store(&wd_awake, 1);
    pthread_cond_signal(&wd_cond);
    pthread_mutex_unlock(&wd_lock);
}

void mgpu_watchdog_launched(mgpu_wd_lane *l, uint64_t slot)
{
    atomic_store_explicit(&l->last_slot, slot + 1, memory_order_release);
    /* seq_cst, as the thread's going to sleep is: either it sees this
     * ticket, or this sees it asleep and wakes it. */
    atomic_fetch_add(&l->tickets, 1);
    if (!atomic_load(&wd_awake)) wake();
}

/*--- The watchdog's side (under wd_lock) ----------------------------------------*/

/* Every call launched on l so far counts as done; its unfinished entries
 * get `state`; its fence goes back to the pool. */
static void settle_lane(mgpu_wd_lane *l, mgpu_flight_state state)
{
    mgpu_flight_finish_lane(l->c->flight, l, UINT64_MAX, state);
    atomic_store(&l->done, atomic_load(&l->tickets));
    l->fenced = atomic_load(&l->done);
    if (l->fence) mgpu_comm_core_event_put(l->c, l->fence);
    l->fence = NULL;
}

/* Fail every pending call of c (they cannot complete after an abort). */
static void fail_all_of(mgpu_comm *c)
{
    for (mgpu_wd_lane *l = comm_lanes(c); l; l = l->next_of_comm) settle_lane(l, MGPU_FLIGHT_FAILED);
}

/* The comm's verdict on lane l's oldest pending call, entries failed,
 * backend aborted. `device_error` NULL: it ran past the comm's timeout. */
static void fail_comm(mgpu_wd_lane *l, mgpu_result r, const char *device_error)
{
    mgpu_comm *c = l->c;
    mgpu_flight_entry e;
    char msg[512], what[96];
    /* The oldest unfinished call the flight recorder still keeps; it keeps
     * the last few hundred, and more may have been queued behind a hang. */
    int kept = mgpu_flight_oldest_unfinished(c->flight, l, &e);
    if (kept)
        snprintf(what, sizeof what, "%s #%llu", mgpu_coll_name(e.op), (unsigned long long)e.seq);
    else
        snprintf(what, sizeof what, "a collective older than the last %d the flight recorder keeps",
                 mgpu_flight_capacity(c->flight));
    if (device_error)
        snprintf(msg, sizeof msg, "%s on comm %s failed on the device: %s", what, c->name, device_error);
    else if (kept)
        mgpu_comm_timeout_sentence(c, e.op, e.seq, msg, sizeof msg);
    else
        snprintf(msg, sizeof msg, "%s on comm %s did not complete within %g s: a rank is missing or called a "
                                  "different collective", what, c->name, mgpu_core(c)->timeout_s);
    mgpu_comm_core_set_error(c, device_error ? r : MGPU_ERR_TIMEOUT, msg);
    fail_all_of(c);
    /* After the entries: a blocked caller that wakes up finds them failed. */
    mgpu_comm_core_abort_backend(c);
}

/* Query a lane's fence, complete what it covered, and fence what is not
 * covered yet. Returns MGPU_OK, or the device's error. */
static mgpu_result advance_lane(mgpu_wd_lane *l)
{
    if (l->fence) {
        int done = 0;
        MGPU_CHECK(mgpu_event_query(l->fence, &done));
        if (!done) return MGPU_OK;
        mgpu_flight_finish_lane(l->c->flight, l, l->fenced_slot - 1, MGPU_FLIGHT_COMPLETED);
        atomic_store(&l->done, l->fenced);
        mgpu_comm_core_event_put(l->c, l->fence);
        l->fence = NULL;
    }
    uint64_t tickets = atomic_load(&l->tickets);
    if (tickets > l->fenced) {
        uint64_t slot = atomic_load(&l->last_slot); /* >= that of the last ticket read */
        mgpu_event *ev = NULL;
        MGPU_CHECK(mgpu_comm_core_event_get(l->c, &ev));
        mgpu_result r = mgpu_event_record(ev, atomic_load(&l->s));
        if (r != MGPU_OK) {
            mgpu_comm_core_event_put(l->c, ev);
            return r;
        }
        l->fence = ev;
        l->fenced = tickets;
        l->fenced_slot = slot;
        l->fence_s = now_s();
    }
    return MGPU_OK;
}

/* Its oldest pending call has run past the comm's timeout. Its age comes
 * from its flight entry; when the ring no longer keeps it, from the fence
 * that covers it (recorded after it was launched: late, never early). */
static int past_deadline(mgpu_wd_lane *l, double now)
{
    mgpu_flight_entry e;
    double since;
    if (mgpu_flight_oldest_unfinished(l->c->flight, l, &e))
        since = (mgpu_flight_now_us(l->c->flight) - e.t_enqueue_us) / 1e6;
    else if (l->fence) since = now - l->fence_s;
    else return 0;
    return since > mgpu_core(l->c)->timeout_s;
}

static void poll_lane(mgpu_wd_lane *l, double now)
{
    mgpu_comm *c = l->c;
    if (mgpu_core(c)->backend_aborted) {
        fail_all_of(c);
        return;
    }
    if (lane_pending(l) > 0) {
        mgpu_result r = advance_lane(l);
        if (r != MGPU_OK) {
            char why[400];
            snprintf(why, sizeof why, "%s", mgpu_error_message());
            fail_comm(l, r, why);
            return;
        }
        if (lane_pending(l) > 0 && past_deadline(l, now)) {
            fail_comm(l, MGPU_OK, NULL);
            return;
        }
    }
    /* Idle, and the owner is gone: give the stream back. */
    mgpu_stream *s = atomic_load(&l->s);
    if (s && lane_pending(l) == 0 && !l->fence && mgpu_stream_last_ref(s)) {
        atomic_store(&l->s, NULL);
        mgpu_stream_destroy(s);
    }
}

static int any_pending(void)
{
    for (mgpu_wd_lane *l = wd_lanes; l; l = l->next)
        if (lane_pending(l) > 0) return 1;
    return 0;
}

static void *wd_main(void *arg)
{
    (void)arg;
    struct timespec nap = {0, POLL_NS};
    pthread_mutex_lock(&wd_lock);
    for (;;) {
        while (!atomic_load(&wd_awake)) pthread_cond_wait(&wd_cond, &wd_lock);
        double now = now_s();
        for (mgpu_wd_lane *l = wd_lanes; l; l = l->next) poll_lane(l, now);
        if (!any_pending()) {
            /* Going to sleep: said first, then looked again (launched()
             * counts first, then looks). */
            atomic_store(&wd_awake, 0);
            if (any_pending()) atomic_store(&wd_awake, 1);
            continue;
        }
        pthread_mutex_unlock(&wd_lock);
        nanosleep(&nap, NULL);
        pthread_mutex_lock(&wd_lock);
    }
    return NULL;
}

/*--- Counts and teardown ---------------------------------------------------------*/

void mgpu_watchdog_forget(mgpu_comm *c)
{
    pthread_mutex_lock(&wd_lock);
    for (mgpu_wd_lane **pp = &wd_lanes; *pp;) {
        mgpu_wd_lane *l = *pp;
        if (l->c != c) {
            pp = &l->next;
            continue;
        }
        *pp = l->next;
        if (l->fence) mgpu_comm_core_event_put(c, l->fence);
        mgpu_stream *s = atomic_load(&l->s);
        if (s) mgpu_stream_destroy(s); /* our reference */
        free(l);
    }
    __atomic_store_n(&mgpu_core(c)->wd_lanes, NULL, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&wd_lock);
}

int mgpu_watchdog_pending_for(const mgpu_comm *c)
{
    pthread_mutex_lock(&wd_lock);
    uint64_t n = 0;
    for (mgpu_wd_lane *l = comm_lanes(c); l; l = l->next_of_comm) n += lane_pending(l);
    pthread_mutex_unlock(&wd_lock);
    return n > INT32_MAX ? INT32_MAX : (int)n;
}

int mgpu_watchdog_pending(void)
{
    pthread_mutex_lock(&wd_lock);
    uint64_t n = 0;
    for (mgpu_wd_lane *l = wd_lanes; l; l = l->next) n += lane_pending(l);
    pthread_mutex_unlock(&wd_lock);
    return n > INT32_MAX ? INT32_MAX : (int)n;
}
