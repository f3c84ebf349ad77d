/* lua_runaway.c - a thread that stops the process when a sandboxed call
 * outlives its time budget by far.
 *
 * The instruction hook (lua_sandbox.c) stops ordinary loops. Some work never
 * reaches it: Lua runs finalizers and the whole of a C function (a string
 * pattern that backtracks for minutes over a long text) with hooks off, and
 * a worker stuck there keeps heart-beating from its I/O thread, so nothing
 * else would notice. The watch is outside the Lua state and cannot be
 * escaped from inside it: when a call is still running `grace` after its
 * budget ran out, the process says why on stderr and exits. A rank's
 * coordinator then reports the rank's exit and this line. */
#include "lua/lua_runaway.h"
#include "mgpu/clock.h"
#include "mgpu/env.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv;
static lua_runaway *armed;
static pid_t thread_pid; /* the process whose watch thread runs (a fork has none) */

/* MGPU_RUNAWAY_GRACE_S (seconds, 0 < g <= 600) sets the grace outright: a
 * test hook, so that tests/hostile/sandbox_budget.sh's stuck scripts are
 * stopped a second after their budget rather than ten (they were a minute
 * of CPU spinning in each CI pass). Read once: the watch is re-armed after
 * every engine call. */
static double grace_hook_s;
static pthread_once_t grace_hook_once = PTHREAD_ONCE_INIT;
static void read_grace_hook(void) { grace_hook_s = mgpu_env_seconds("MGPU_RUNAWAY_GRACE_S", 600); }

double lua_runaway_grace_s(double budget_s)
{
    pthread_once(&grace_hook_once, read_grace_hook);
    if (grace_hook_s > 0) return grace_hook_s;
    return budget_s > 10.0 ? budget_s : 10.0;
}

static void stop_process(const lua_runaway *w, int interrupted)
{
    char msg[400];
    int n = interrupted
                ? snprintf(msg, sizeof msg,
                           "mgpulab: interrupted, but the script is stuck where it cannot be stopped (a string "
                           "function working on a long text); stopping this process\n")
                : snprintf(msg, sizeof msg,
                           "mgpulab: the script exceeded its time budget of %g s and is stuck where it cannot be "
                           "interrupted (a __gc finalizer, or a string function working on a long text); stopping "
                           "this process\n",
                           w->budget_s);
    if (n > 0) {
        ssize_t wr = write(2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
        (void)wr;
    }
    _exit(interrupted ? 130 : 124);
}

/* How often the watch looks at an interrupt flag (a signal handler sets it
 * and cannot signal the condition). */
#define INTERRUPT_POLL_NS 100000000ull

static void *watch(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    for (;;) {
        uint64_t first = 0, now = mgpu_now_ns();
        for (lua_runaway *w = armed; w; w = w->next) {
            if (w->stop_at_ns <= now) stop_process(w, 0); /* never returns */
            if (!first || w->stop_at_ns < first) first = w->stop_at_ns;
            struct timespec c;
            if (w->by_cpu && clock_gettime(w->cpu_clock, &c) == 0) {
                uint64_t cpu = (uint64_t)c.tv_sec * 1000000000ull + (uint64_t)c.tv_nsec;
                if (cpu >= w->cpu_stop_ns) stop_process(w, 0);
                /* one thread spends at most a second of CPU per second:
                 * look again when its budget could be spent at the earliest
                 * (not sooner than 10 ms: no spinning on a thread that waits) */
                uint64_t left = w->cpu_stop_ns - cpu, look = now + (left > 10000000ull ? left : 10000000ull);
                if (look < first) first = look;
            }
            if (!w->interrupt || !(w->interrupt_stop_s > 0)) continue;
            if (*w->interrupt && !w->interrupt_seen_ns) w->interrupt_seen_ns = now;
            if (w->interrupt_seen_ns && now - w->interrupt_seen_ns >= (uint64_t)(w->interrupt_stop_s * 1e9))
                stop_process(w, 1);
            uint64_t poll = w->interrupt_seen_ns ? w->interrupt_seen_ns + (uint64_t)(w->interrupt_stop_s * 1e9)
                                                 : now + INTERRUPT_POLL_NS;
            if (poll < first) first = poll;
        }
        if (!first) {
            pthread_cond_wait(&cv, &mu);
            continue;
        }
        /* mgpu_now_ns is CLOCK_MONOTONIC, as is the condition's clock */
        struct timespec ts = {.tv_sec = (time_t)(first / 1000000000ull), .tv_nsec = (long)(first % 1000000000ull)};
        pthread_cond_timedwait(&cv, &mu, &ts);
    }
    return NULL;
}

/* Under mu: the watch thread of this process, started once (again in a
 * forked child, which inherits the list but not the thread). */
static void lock_mu(void) { pthread_mutex_lock(&mu); }
static void unlock_mu(void) { pthread_mutex_unlock(&mu); }
static void at_fork_once(void) { pthread_atfork(lock_mu, unlock_mu, unlock_mu); }

static void ensure_thread(void)
{
    pid_t me = getpid();
    if (thread_pid == me) return;
    armed = NULL;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    /* The default stack: a small one made pthread_create fail (EINVAL) once
     * OpenBLAS's static TLS came into the process, leaving no watch at all. */
    pthread_t t;
    if (pthread_create(&t, &at, watch, NULL) == 0) thread_pid = me;
    pthread_attr_destroy(&at);
}

static void unlink_locked(lua_runaway *w)
{
    for (lua_runaway **p = &armed; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            break;
        }
    w->listed = 0;
    w->next = NULL;
}

static void arm(lua_runaway *w, uint64_t stop_at_ns, int by_cpu, clockid_t cpu_clock, uint64_t cpu_stop_ns,
                double budget_s)
{
    /* a fork while the watch holds the lock must not leave the child's copy
     * locked for ever */
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, at_fork_once);
    pthread_mutex_lock(&mu);
    ensure_thread();
    if (w->listed) unlink_locked(w);
    w->stop_at_ns = stop_at_ns;
    w->by_cpu = by_cpu;
    w->cpu_clock = cpu_clock;
    w->cpu_stop_ns = cpu_stop_ns;
    w->budget_s = budget_s;
    w->next = armed;
    armed = w;
    w->listed = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}

void lua_runaway_arm(lua_runaway *w, uint64_t stop_at_ns, double budget_s)
{
    arm(w, stop_at_ns, 0, CLOCK_MONOTONIC, 0, budget_s);
}

void lua_runaway_arm_cpu(lua_runaway *w, uint64_t cpu_stop_ns, uint64_t wall_stop_ns, double budget_s)
{
    clockid_t c;
    /* no CPU clock for this thread: the wall-clock backstop alone */
    if (pthread_getcpuclockid(pthread_self(), &c) != 0) {
        arm(w, wall_stop_ns, 0, CLOCK_MONOTONIC, 0, budget_s);
        return;
    }
    arm(w, wall_stop_ns, 1, c, cpu_stop_ns, budget_s);
}

void lua_runaway_set_interrupt(lua_runaway *w, volatile int *flag, double stop_s)
{
    pthread_mutex_lock(&mu);
    w->interrupt = flag;
    w->interrupt_stop_s = stop_s;
    w->interrupt_seen_ns = 0;
    pthread_mutex_unlock(&mu);
}

void lua_runaway_disarm(lua_runaway *w)
{
    if (!w->listed) return; /* only this sandbox's own thread arms it */
    pthread_mutex_lock(&mu);
    unlink_locked(w);
    w->stop_at_ns = 0;
    pthread_mutex_unlock(&mu);
}
