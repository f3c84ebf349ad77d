/* coll_broadcast.c - the broadcast descriptor (nccl-tests' broadcast_perf). */
#include "mgpu/collbench.h"

static void counts(size_t count, int nranks, mgpu_cb_counts *k)
{
    (void)nranks;
    *k = (mgpu_cb_counts){.send = count, .recv = count, .param = count};
}

/* Every rank, the root included, ends with the root's input. */
static int expected(const mgpu_cb_data *d, int rank, const mgpu_cb_counts *k, size_t first, size_t n,
                    double *out)
{
    (void)rank; (void)k;
    mgpu_cb_input_span(d, d->root, first, n, out);
    return 1;
}

static mgpu_result run(mgpu_comm *c, const mgpu_buffer *send, size_t send_off, mgpu_buffer *recv,
                       size_t recv_off, size_t param, mgpu_dtype t, mgpu_redop op, int root, mgpu_stream *s)
{
    (void)op;
    return mgpu_broadcast(c, send, send_off, recv, recv_off, param, t, root, s);
}

const mgpu_collbench_coll mgpu_cb_broadcast = {
    .name = "broadcast", .coll = MGPU_COLL_BROADCAST, .reduces = 0, .rooted = 1, .inplace_checked = 1, .periodic = 1,
    .counts = counts, .expected = expected, .run = run,
};
