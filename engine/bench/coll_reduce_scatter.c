/* coll_reduce_scatter.c - the reduce_scatter descriptor (nccl-tests' reduce_scatter_perf). */
#include "mgpu/collbench.h"

/* The size is the input: n blocks of count/n elements (rounded down); rank r
 * receives the reduction of block r. In place, the output is block r of the
 * input buffer. */
static void counts(size_t count, int nranks, mgpu_cb_counts *k)
{
    size_t per = count / (size_t)nranks;
    *k = (mgpu_cb_counts){.send = per * (size_t)nranks, .recv = per, .param = per,
                          .send_inplace_off = 0, .recv_inplace_off = per};
}

static int expected(const mgpu_cb_data *d, int rank, const mgpu_cb_counts *k, size_t first, size_t n,
                    double *out)
{
    size_t base = (size_t)rank * k->recv;
    mgpu_cb_reduced_span(d, base + first, n, out);
    return 1;
}

static mgpu_result run(mgpu_comm *c, const mgpu_buffer *send, size_t send_off, mgpu_buffer *recv,
                       size_t recv_off, size_t param, mgpu_dtype t, mgpu_redop op, int root, mgpu_stream *s)
{
    (void)root;
    return mgpu_reduce_scatter(c, send, send_off, recv, recv_off, param, t, op, s);
}

const mgpu_collbench_coll mgpu_cb_reduce_scatter = {
    .name = "reduce_scatter", .coll = MGPU_COLL_REDUCE_SCATTER, .reduces = 1, .rooted = 0,
    .inplace_checked = 1, .periodic = 1, .counts = counts, .expected = expected, .run = run,
};
