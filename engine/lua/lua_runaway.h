/* lua_runaway.h - the sandbox's last resort against a script that the
 * instruction hook cannot stop (see lua_runaway.c). */
#ifndef MGPU_LUA_RUNAWAY_H
#define MGPU_LUA_RUNAWAY_H
#include <stdint.h>
#include <time.h>

typedef struct lua_runaway {
    uint64_t stop_at_ns;      /* 0 = not armed */
    int by_cpu;               /* also stop at cpu_stop_ns of cpu_clock (lua_runaway_arm_cpu) */
    clockid_t cpu_clock;      /* the armed thread's CPU clock */
    uint64_t cpu_stop_ns;
    double budget_s;          /* for the message */
    volatile int *interrupt;  /* Ctrl-C flag, or NULL (lua_runaway_set_interrupt) */
    double interrupt_stop_s;  /* stop this long after the flag is seen set; 0: never */
    uint64_t interrupt_seen_ns;
    struct lua_runaway *next; /* in the armed list */
    int listed;
} lua_runaway;

/* How long after its budget ran out a call may take to unwind before the
 * process is stopped: the hook needs a moment to be reached, and a blocked
 * engine call (a collective) is given the communicator's watchdog's chance
 * to report first. */
double lua_runaway_grace_s(double budget_s);

/* Arm (or re-arm) w: at stop_at_ns (mgpu_now_ns clock) the process prints
 * why and exits with status 124, unless w is disarmed first. */
void lua_runaway_arm(lua_runaway *w, uint64_t stop_at_ns, double budget_s);
/* The same for a budget in CPU time: the process is stopped once the
 * calling thread's CPU clock (CLOCK_THREAD_CPUTIME_ID) reaches cpu_stop_ns,
 * or the wall clock wall_stop_ns (a backstop for a call that hangs without
 * spending CPU). A busy machine delays the first, never brings it early. */
void lua_runaway_arm_cpu(lua_runaway *w, uint64_t cpu_stop_ns, uint64_t wall_stop_ns, double budget_s);
void lua_runaway_disarm(lua_runaway *w);
/* While w is armed, also stop the process (status 130) stop_s seconds
 * after *flag is seen non-zero: a Ctrl-C the hook could not act on. */
void lua_runaway_set_interrupt(lua_runaway *w, volatile int *flag, double stop_s);

#endif
