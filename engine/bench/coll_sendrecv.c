/* coll_sendrecv.c - the sendrecv descriptor (nccl-tests' sendrecv_perf):
 * every rank sends to the next rank and receives from the previous one. */
#include "mgpu/collbench.h"

static void counts(size_t count, int nranks, mgpu_cb_counts *k)
{
    (void)nranks;
    *k = (mgpu_cb_counts){.send = count, .recv = count, .param = count};
}

static int expected(const mgpu_cb_data *d, int rank, const mgpu_cb_counts *k, size_t first, size_t n,
                    double *out)
{
    (void)k;
    int from = (rank - 1 + d->nranks) % d->nranks;
    mgpu_cb_input_span(d, from, first, n, out);
    return 1;
}

/* A send and a receive fused in one group, as NCCL needs to avoid a
 * deadlock on the ring. In place (one buffer for both) is timed but, as in
 * nccl-tests, not checked: the receive may overwrite data not yet sent. */
static mgpu_result run(mgpu_comm *c, const mgpu_buffer *send, size_t send_off, mgpu_buffer *recv,
                       size_t recv_off, size_t param, mgpu_dtype t, mgpu_redop op, int root, mgpu_stream *s)
{
    (void)op; (void)root;
    int n = mgpu_comm_size(c), r = mgpu_comm_rank(c);
    MGPU_CHECK(mgpu_group_start());
    mgpu_result res = mgpu_send(c, send, send_off, param, t, (r + 1) % n, s);
    if (res == MGPU_OK) res = mgpu_recv(c, recv, recv_off, param, t, (r - 1 + n) % n, s);
    mgpu_result end = mgpu_group_end();
    MGPU_CHECK(res);
    MGPU_CHECK(end);
    return MGPU_OK;
}

const mgpu_collbench_coll mgpu_cb_sendrecv = {
    .name = "sendrecv", .coll = MGPU_COLL_SEND, .reduces = 0, .rooted = 0, .inplace_checked = 0, .periodic = 1,
    .counts = counts, .expected = expected, .run = run,
};
