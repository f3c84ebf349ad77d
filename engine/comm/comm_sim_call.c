/* comm_sim_call.c - a call on a sim communicator: entering and leaving it
 * (abort safety) and the wait context its exchanges use. Below every other
 * comm_sim file, which all make calls. */
#include <stdio.h>
#include <string.h>
#include "mgpu/clock.h"
#include "sim_comm.h"

/* A call holds impl->busy while it runs, so an abort from another thread
 * frees impl only after the blocked call has seen the flag and left. */
mgpu_result sim_comm_enter(mgpu_comm *c, sim_comm **out)
{
    sim_comm *sc = c->impl;
    if (!sc || c->aborted) return mgpu_fail(MGPU_ERR_INVALID, "communicator '%s' was aborted; create a new one", c->name);
    atomic_fetch_add(&sc->busy, 1);
    if (c->aborted || sc->aborted) {
        atomic_fetch_sub(&sc->busy, 1);
        return mgpu_fail(MGPU_ERR_INVALID, "communicator '%s' was aborted; create a new one", c->name);
    }
    *out = sc;
    return MGPU_OK;
}

void sim_comm_leave(sim_comm *sc) { atomic_fetch_sub(&sc->busy, 1); }

void sim_comm_ctx(mgpu_comm *c, sim_comm *sc, const char *what, sim_ctx *x)
{
    memset(x, 0, sizeof *x);
    x->seg = &sc->seg;
    x->me = c->rank;
    x->timeout_s = sc->timeout_s;
    x->deadline_ns = mgpu_now_ns() + (uint64_t)(sc->timeout_s * 1e9);
    x->local_abort = &c->aborted;
    x->impl_abort = &sc->aborted;
    snprintf(x->what, sizeof x->what, "%s on '%s'", what, c->name);
}
