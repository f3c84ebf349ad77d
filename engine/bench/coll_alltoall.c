/* coll_alltoall.c - the alltoall descriptor (nccl-tests' alltoall_perf). */
#include "mgpu/collbench.h"

/* Send and receive n blocks of count/n elements (rounded down); block j of
 * rank r's input goes to rank j. The call's count is one block. */
static void counts(size_t count, int nranks, mgpu_cb_counts *k)
{
    size_t per = count / (size_t)nranks;
    *k = (mgpu_cb_counts){.send = per * (size_t)nranks, .recv = per * (size_t)nranks, .param = per};
}

/* Block q of rank r's output is block r of rank q's input. */
static int expected(const mgpu_cb_data *d, int rank, const mgpu_cb_counts *k, size_t first, size_t n,
                    double *out)
{
    for (size_t j = first; j < first + n;) { /* block by block */
        size_t q = j / k->param, e = j % k->param, m = k->param - e < first + n - j ? k->param - e : first + n - j;
        mgpu_cb_input_span(d, (int)q, (size_t)rank * k->param + e, m, out + (j - first));
        j += m;
    }
    return 1;
}

static mgpu_result run(mgpu_comm *c, const mgpu_buffer *send, size_t send_off, mgpu_buffer *recv,
                       size_t recv_off, size_t param, mgpu_dtype t, mgpu_redop op, int root, mgpu_stream *s)
{
    (void)op; (void)root;
    return mgpu_alltoall(c, send, send_off, recv, recv_off, param, t, s);
}

const mgpu_collbench_coll mgpu_cb_alltoall = {
    .name = "alltoall", .coll = MGPU_COLL_ALLTOALL, .reduces = 0, .rooted = 0, .inplace_checked = 1,
    .counts = counts, .expected = expected, .run = run,
};
