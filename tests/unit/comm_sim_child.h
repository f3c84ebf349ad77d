/* comm_sim_child.h - what a sim-communicator test child needs: the sim
 * backend, a stream, and a communicator made straight from
 * mgpu_comm_sim_ops (so these tests hold the backend to its seam alone). */
#ifndef MGPU_COMM_SIM_CHILD_H
#define MGPU_COMM_SIM_CHILD_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "comm/comm_backend.h"
#include "mgpu/dev.h"

typedef struct simc {
    mgpu_backend *be;
    mgpu_stream *s;
    mgpu_comm c;
} simc;

__attribute__((unused)) static int simc_open(simc *e, const mgpu_bootstrap *bs, const char *machine, double timeout_s)
{
    memset(e, 0, sizeof *e);
    mgpu_backend_config cfg = {MGPU_BACKEND_SIM, machine, NULL};
    int ndev = 0;
    if (mgpu_backend_open(&cfg, &e->be) != MGPU_OK || mgpu_device_count(e->be, &ndev) != MGPU_OK || ndev < 1) {
        fprintf(stderr, "rank %d: sim backend: %s\n", bs->rank, mgpu_error_message());
        return 1;
    }
    int dev = bs->rank % ndev; /* ranks beyond the host's GPUs share devices */
    if (mgpu_stream_create(e->be, dev, 0, &e->s) != MGPU_OK) return 1;
    e->c.ops = &mgpu_comm_sim_ops;
    e->c.be = e->be;
    e->c.rank = bs->rank;
    e->c.size = bs->size;
    e->c.device = dev;
    snprintf(e->c.name, sizeof e->c.name, "world");
    e->c.cfg.device = dev;
    e->c.cfg.timeout_s = timeout_s;
    e->c.stream = e->s;
    if (mgpu_comm_sim_ops.init(&e->c, bs) != MGPU_OK) {
        fprintf(stderr, "rank %d: init: %s\n", bs->rank, mgpu_error_message());
        return 1;
    }
    return 0;
}

__attribute__((unused)) static void simc_close(simc *e)
{
    if (e->c.impl) mgpu_comm_sim_ops.destroy(&e->c);
    if (e->s) mgpu_stream_destroy(e->s);
    if (e->be) mgpu_backend_close(e->be);
}

__attribute__((unused)) static mgpu_result simc_coll(mgpu_comm *c, mgpu_coll op, mgpu_buffer *send, size_t soff, mgpu_buffer *recv,
                             size_t roff, size_t count, mgpu_dtype t, mgpu_redop redop, int root)
{
    mgpu_coll_args a = {op, send, soff, recv, roff, count, t, redop, root};
    return mgpu_comm_sim_ops.collective(c, &a, NULL);
}

#endif
