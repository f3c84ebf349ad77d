/* coll_all_reduce.c - the all_reduce descriptor (nccl-tests' all_reduce_perf). */
#include "mgpu/collbench.h"

/* Every rank sends and receives `count` elements; in place is the same buffer. */
static void counts(size_t count, int nranks, mgpu_cb_counts *k)
{
    (void)nranks;
    *k = (mgpu_cb_counts){.send = count, .recv = count, .param = count};
}

static int expected(const mgpu_cb_data *d, int rank, const mgpu_cb_counts *k, size_t first, size_t n,
                    double *out)
{
    (void)rank; (void)k;
    mgpu_cb_reduced_span(d, first, n, out);
    return 1;
}

static mgpu_result run(mgpu_comm *c, const mgpu_buffer *send, size_t send_off, mgpu_buffer *recv,
                       size_t recv_off, size_t param, mgpu_dtype t, mgpu_redop op, int root, mgpu_stream *s)
{
    (void)root;
    return mgpu_all_reduce(c, send, send_off, recv, recv_off, param, t, op, s);
}

const mgpu_collbench_coll mgpu_cb_all_reduce = {
    .name = "all_reduce", .coll = MGPU_COLL_ALL_REDUCE, .reduces = 1, .rooted = 0, .inplace_checked = 1, .periodic = 1,
    .counts = counts, .expected = expected, .run = run,
};
