/* comm_sim.c - the sim communicator (mgpu_comm_sim_ops): ranks are processes
 * sharing one POSIX shm segment; collectives run NCCL's algorithms on real
 * data and advance each rank's stream to the modelled end (collmodel.h).
 * Here: the ops table, a call's checks and where it goes (queued in a group,
 * a send or receive, a collective), destroy and abort. The collective itself
 * is comm_sim_coll.c; entering and leaving a call, comm_sim_call.c; init and
 * split, comm_sim_init.c; sends, receives and groups, comm_sim_p2p.c. */
#include <unistd.h>
#include "comm/comm_args.h"
#include "comm/comm_backend.h"
#include "mgpu/collmodel.h"
#include "sim_comm.h"

/* Buffers must hold aligned elements: the reduction loops read them as
 * arrays of the element type. */
static mgpu_result check_align(const mgpu_coll_args *a)
{
    size_t es = mgpu_dtype_size(a->dtype);
    const mgpu_buffer *b[2] = {a->send, a->recv};
    size_t off[2] = {a->send_off, a->recv_off};
    for (int i = 0; i < 2; i++)
        if (b[i] && (((uintptr_t)b[i]->ptr + off[i]) % es) != 0)
            return mgpu_fail(MGPU_ERR_INVALID, "%s: the %s buffer at offset %zu is not aligned to its %zu-byte %s "
                             "elements", mgpu_coll_name(a->op), i ? "receive" : "send", off[i], es, mgpu_dtype_name(a->dtype));
    return MGPU_OK;
}

static mgpu_result sim_collective(mgpu_comm *c, const mgpu_coll_args *a, mgpu_stream *s)
{
    if (!a) return mgpu_fail(MGPU_ERR_INVALID, "sim collective: no arguments");
    if (!s) s = c->stream;
    if (!s) return mgpu_fail(MGPU_ERR_INVALID, "%s on '%s': no stream", mgpu_coll_name(a->op), c->name);
    if ((unsigned)a->dtype >= MGPU_DTYPE_COUNT || (unsigned)a->redop >= MGPU_REDOP_COUNT)
        return mgpu_fail(MGPU_ERR_INVALID, "%s: unknown dtype %d or reduction %d", mgpu_coll_name(a->op), (int)a->dtype,
                         (int)a->redop);
    MGPU_CHECK(check_align(a));
    if (sim_group_depth() > 0) {
        MGPU_CHECK(sim_group_queue(c, a, s));
        return MGPU_OK;
    }
    sim_comm *sc;
    MGPU_CHECK(sim_comm_enter(c, &sc));
    mgpu_result r;
    if (a->op == MGPU_COLL_SEND || a->op == MGPU_COLL_RECV)
        r = sim_p2p_run(c, sc, a, s, 1);
    else
        r = sim_comm_collective(c, sc, a, s);
    sim_comm_leave(sc);
    MGPU_CHECK(r);
    return MGPU_OK;
}

/*--- Lifetime -----------------------------------------------------------*/

static mgpu_result sim_destroy(mgpu_comm *c)
{
    sim_comm *sc = c->impl;
    if (!sc) return MGPU_OK;
    /* the world is destroyed by the runtime only once the job succeeded */
    if (!c->aborted && !sc->aborted) sim_seg_leave(&sc->seg, c->rank, sc->world ? SIM_LEFT_FINISHED : SIM_LEFT_DESTROYED);
    sim_comm_free(sc);
    c->impl = NULL;
    return MGPU_OK;
}

static void sim_abort(mgpu_comm *c)
{
    sim_comm *sc = c->impl;
    if (!sc) return;
    c->aborted = 1;
    sc->aborted = 1;
    sim_seg_abort(&sc->seg, c->rank); /* peers' waits end too, as the runtime would abort them */
    /* Wait (bounded) for a call blocked in another thread to see the flag:
     * sim_seg_abort woke its wait. */
    for (int i = 0; i < 2000 && atomic_load(&sc->busy) > 0; i++) usleep(1000);
    if (atomic_load(&sc->busy) > 0) return; /* still inside: leak rather than free under its feet */
    c->impl = NULL;
    sim_comm_free(sc);
}

static mgpu_result sim_async_error(mgpu_comm *c)
{
    sim_comm *sc = c->impl;
    if (c->aborted || !sc) return mgpu_fail(MGPU_ERR_TIMEOUT, "communicator '%s' was aborted", c->name);
    int who = sim_seg_aborted(&sc->seg);
    if (who >= 0)
        return mgpu_fail(MGPU_ERR_TIMEOUT, "communicator '%s': rank %d aborted it", c->name, who);
    return MGPU_OK;
}

const struct mgpu_comm_ops mgpu_comm_sim_ops = {
    .name = "sim",
    .dev_backend = "sim",
    .init = sim_comm_init,
    .split = sim_comm_split,
    .destroy = sim_destroy,
    .abort = sim_abort,
    .async_error = sim_async_error,
    .collective = sim_collective,
    .group_start = sim_group_start,
    .group_end = sim_group_end,
};
