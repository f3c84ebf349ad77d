/* sim_fault_crash.c - the `crash[:RANK]` fault made real in the sim
 * communicator (minimal; issue 16 owns rank faults and may move this):
 * rank RANK of the world communicator dies by SIGKILL as it enters its
 * Nth collective (N = MGPU_FAULT_CRASH_AT, default 1), the way a node
 * that loses power takes its ranks with it. The runtime then fails the
 * run naming the rank and its signal; the peers' waits end (the dead-rank
 * probe, docs/sim-collectives.md). Split communicators never crash: the
 * fault counts the world's collectives only. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include "mgpu/topo.h"
#include "sim_comm.h"

void sim_fault_crash_point(const mgpu_comm *c, const sim_comm *sc)
{
    if (!sc->world || !mgpu_topo_has_fault(sc->topo, "crash")) return;
    if (c->rank != mgpu_topo_fault_arg(sc->topo, "crash")) return;
    const char *e = getenv("MGPU_FAULT_CRASH_AT");
    long at = e && *e ? strtol(e, NULL, 10) : 1;
    if (at < 1) at = 1;
    if ((long)sc->coll_seq < at) return;
    fprintf(stderr, "mgpulab: fault crash:%d: rank %d dies (SIGKILL) entering collective #%llu\n", c->rank, c->rank,
            (unsigned long long)sc->coll_seq);
    fflush(NULL);
    raise(SIGKILL);
}
