/* coll_all_gather.c - the all_gather descriptor (nccl-tests' all_gather_perf). */
#include "mgpu/collbench.h"

/* The size is the gathered output: each rank contributes count/n elements
 * (rounded down, as nccl-tests does); in place, rank r's input already sits
 * at block r of the output. */
static void counts(size_t count, int nranks, mgpu_cb_counts *k)
{
    size_t per = count / (size_t)nranks;
    *k = (mgpu_cb_counts){.send = per, .recv = per * (size_t)nranks, .param = per,
                          .send_inplace_off = per, .recv_inplace_off = 0};
}

static int expected(const mgpu_cb_data *d, int rank, const mgpu_cb_counts *k, size_t first, size_t n,
                    double *out)
{
    (void)rank;
    for (size_t j = first; j < first + n;) { /* block by block: rank q's input */
        size_t q = j / k->send, e = j % k->send, m = k->send - e < first + n - j ? k->send - e : first + n - j;
        mgpu_cb_input_span(d, (int)q, e, m, out + (j - first));
        j += m;
    }
    return 1;
}

static mgpu_result run(mgpu_comm *c, const mgpu_buffer *send, size_t send_off, mgpu_buffer *recv,
                       size_t recv_off, size_t param, mgpu_dtype t, mgpu_redop op, int root, mgpu_stream *s)
{
    (void)op; (void)root;
    return mgpu_all_gather(c, send, send_off, recv, recv_off, param, t, s);
}

const mgpu_collbench_coll mgpu_cb_all_gather = {
    .name = "all_gather", .coll = MGPU_COLL_ALL_GATHER, .reduces = 0, .rooted = 0, .inplace_checked = 1,
    .counts = counts, .expected = expected, .run = run,
};
