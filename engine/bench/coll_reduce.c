/* coll_reduce.c - the reduce descriptor (nccl-tests' reduce_perf). */
#include "mgpu/collbench.h"

static void counts(size_t count, int nranks, mgpu_cb_counts *k)
{
    (void)nranks;
    *k = (mgpu_cb_counts){.send = count, .recv = count, .param = count};
}

/* Only the root's output is defined (NCCL leaves the others' alone). */
static int expected(const mgpu_cb_data *d, int rank, const mgpu_cb_counts *k, size_t first, size_t n,
                    double *out)
{
    (void)k;
    if (rank != d->root) return 0;
    mgpu_cb_reduced_span(d, first, n, out);
    return 1;
}

static mgpu_result run(mgpu_comm *c, const mgpu_buffer *send, size_t send_off, mgpu_buffer *recv,
                       size_t recv_off, size_t param, mgpu_dtype t, mgpu_redop op, int root, mgpu_stream *s)
{
    return mgpu_reduce(c, send, send_off, recv, recv_off, param, t, op, root, s);
}

const mgpu_collbench_coll mgpu_cb_reduce = {
    .name = "reduce", .coll = MGPU_COLL_REDUCE, .reduces = 1, .rooted = 1, .inplace_checked = 1, .periodic = 1,
    .counts = counts, .expected = expected, .run = run,
};
