/* sim_algos.c - NCCL's collective algorithms executed with real data over
 * the sim segment's mailboxes: ring (reduce-scatter + all-gather), binary
 * tree, pipelined chains for broadcast and reduce, pairwise alltoall. */
#include <stdlib.h>
#include <string.h>
#include "sim_algos.h"

static int mod(int a, int n) { return ((a % n) + n) % n; }

/* Segment j of count elements split over n: the first count % n get one more. */
static void seg_of(size_t count, int n, int j, size_t *off, size_t *len)
{
    size_t b = count / (size_t)n, r = count % (size_t)n, uj = (size_t)j;
    *off = uj * b + (uj < r ? uj : r);
    *len = b + (uj < r ? 1 : 0);
}

static sim_xfer xsend(int peer, const void *src, size_t bytes)
{
    sim_xfer f = {.kind = SIM_SEND, .peer = peer, .src = src, .bytes = bytes};
    return f;
}

static sim_xfer xrecv(int peer, void *dst, size_t bytes)
{
    sim_xfer f = {.kind = SIM_RECV, .peer = peer, .dst = dst, .bytes = bytes};
    return f;
}

static sim_xfer xreduce(int peer, void *dst, const void *own, size_t bytes, mgpu_dtype t, mgpu_redop op)
{
    sim_xfer f = {.kind = SIM_RECV_REDUCE, .peer = peer, .dst = dst, .own = own, .bytes = bytes, .dtype = t, .redop = op};
    return f;
}

static void copy_if(void *dst, const void *src, size_t bytes)
{
    if (dst != src && bytes) memmove(dst, src, bytes);
}

static void *scratch(sim_ctx *x, size_t bytes, mgpu_result *r)
{
    void *p = malloc(bytes ? bytes : 1);
    *r = p ? MGPU_OK : mgpu_fail(MGPU_ERR_NOMEM, "%s: out of host memory for a %zu-byte staging buffer", x->what, bytes);
    return p;
}

/*--- all_reduce --------------------------------------------------------*/

static mgpu_result ring_all_reduce(sim_ctx *x, const sim_call *c)
{
    int n = c->n, r = c->rank, next = mod(r + 1, n), prev = mod(r - 1, n);
    size_t es = mgpu_dtype_size(c->dtype);
    const unsigned char *send = c->send;
    unsigned char *recv = c->recv;
    /* Reduce-scatter: at step s send the partial of segment r-s-1 and fold
     * the neighbour's partial of segment r-s-2 into ours; after n-1 steps
     * segment r is complete here. */
    for (int s = 0; s < n - 1; s++) {
        size_t so, sl, ro, rl;
        seg_of(c->count, n, mod(r - s - 1, n), &so, &sl);
        seg_of(c->count, n, mod(r - s - 2, n), &ro, &rl);
        sim_xfer f[2] = {xsend(next, (s == 0 ? send : recv) + so * es, sl * es),
                         xreduce(prev, recv + ro * es, send + ro * es, rl * es, c->dtype, c->redop)};
        MGPU_CHECK(sim_run(x, f, 2));
    }
    size_t mo, ml;
    seg_of(c->count, n, r, &mo, &ml);
    if (c->redop == MGPU_AVG) sim_divide(recv + mo * es, ml, c->dtype, n);
    /* All-gather: pass the finished segments around the ring. */
    for (int s = 0; s < n - 1; s++) {
        size_t so, sl, ro, rl;
        seg_of(c->count, n, mod(r - s, n), &so, &sl);
        seg_of(c->count, n, mod(r - s - 1, n), &ro, &rl);
        sim_xfer f[2] = {xsend(next, recv + so * es, sl * es), xrecv(prev, recv + ro * es, rl * es)};
        MGPU_CHECK(sim_run(x, f, 2));
    }
    return MGPU_OK;
}

/* Binary tree rooted at rank 0: reduce up (children fold into the parent),
 * then broadcast down. NCCL runs two such trees on half the data each
 * (double binary tree); one tree gives the same result. */
static mgpu_result tree_all_reduce(sim_ctx *x, const sim_call *c)
{
    int n = c->n, r = c->rank;
    size_t bytes = c->count * mgpu_dtype_size(c->dtype);
    const unsigned char *own = c->send;
    int kids[2] = {2 * r + 1, 2 * r + 2};
    for (int i = 0; i < 2; i++) {
        if (kids[i] >= n) continue;
        sim_xfer f = xreduce(kids[i], c->recv, own, bytes, c->dtype, c->redop);
        MGPU_CHECK(sim_run(x, &f, 1));
        own = c->recv;
    }
    if (own != c->recv) copy_if(c->recv, c->send, bytes);
    if (r != 0) {
        sim_xfer up[2] = {xsend((r - 1) / 2, c->recv, bytes), xrecv((r - 1) / 2, c->recv, bytes)};
        MGPU_CHECK(sim_run(x, &up[0], 1));
        MGPU_CHECK(sim_run(x, &up[1], 1));
    } else if (c->redop == MGPU_AVG) {
        sim_divide(c->recv, c->count, c->dtype, n);
    }
    sim_xfer down[2];
    int nd = 0;
    for (int i = 0; i < 2; i++)
        if (kids[i] < n) down[nd++] = xsend(kids[i], c->recv, bytes);
    MGPU_CHECK(sim_run(x, down, nd));
    return MGPU_OK;
}

/*--- all_gather, reduce_scatter ----------------------------------------*/

static mgpu_result ring_all_gather(sim_ctx *x, const sim_call *c)
{
    int n = c->n, r = c->rank, next = mod(r + 1, n), prev = mod(r - 1, n);
    size_t blk = c->count * mgpu_dtype_size(c->dtype);
    unsigned char *recv = c->recv;
    copy_if(recv + (size_t)r * blk, c->send, blk);
    for (int s = 0; s < n - 1; s++) {
        sim_xfer f[2] = {xsend(next, recv + (size_t)mod(r - s, n) * blk, blk),
                         xrecv(prev, recv + (size_t)mod(r - s - 1, n) * blk, blk)};
        MGPU_CHECK(sim_run(x, f, 2));
    }
    return MGPU_OK;
}

static mgpu_result ring_reduce_scatter(sim_ctx *x, const sim_call *c)
{
    int n = c->n, r = c->rank, next = mod(r + 1, n), prev = mod(r - 1, n);
    size_t blk = c->count * mgpu_dtype_size(c->dtype);
    const unsigned char *send = c->send;
    if (n == 1) {
        copy_if(c->recv, send, blk);
        return MGPU_OK;
    }
    /* Partials ping-pong between two staging blocks (recv holds only our
     * block); the last step folds straight into recv. */
    mgpu_result res;
    unsigned char *tmp = scratch(x, 2 * blk, &res);
    MGPU_CHECK(res);
    for (int s = 0; s < n - 1 && res == MGPU_OK; s++) {
        const unsigned char *src = s == 0 ? send + (size_t)mod(r - s - 1, n) * blk : tmp + (size_t)((s - 1) & 1) * blk;
        unsigned char *dst = s == n - 2 ? c->recv : tmp + (size_t)(s & 1) * blk;
        sim_xfer f[2] = {xsend(next, src, blk),
                         xreduce(prev, dst, send + (size_t)mod(r - s - 2, n) * blk, blk, c->dtype, c->redop)};
        res = sim_run(x, f, 2);
    }
    free(tmp);
    MGPU_CHECK(res);
    if (c->redop == MGPU_AVG) sim_divide(c->recv, c->count, c->dtype, n);
    return MGPU_OK;
}

/*--- broadcast, reduce: pipelined chains -------------------------------*/

/* Chain root, root+1, ...: each rank forwards chunks as they arrive. */
static mgpu_result chain_broadcast(sim_ctx *x, const sim_call *c)
{
    int n = c->n, r = c->rank, pos = mod(r - c->root, n);
    size_t bytes = c->count * mgpu_dtype_size(c->dtype);
    int prev = mod(r - 1, n), next = mod(r + 1, n);
    if (pos == 0) {
        copy_if(c->recv, c->send, bytes);
        if (n == 1) return MGPU_OK;
        sim_xfer f = xsend(next, c->send, bytes);
        return sim_run(x, &f, 1);
    }
    sim_xfer f[2] = {xrecv(prev, c->recv, bytes), xsend(next, c->recv, bytes)};
    f[1].avail = &f[0].done;
    MGPU_CHECK(sim_run(x, f, pos == n - 1 ? 1 : 2));
    return MGPU_OK;
}

/* Chain root+1, root+2, ..., root: each folds its input into the partial
 * passing by and forwards it chunk by chunk; the root finishes it. */
static mgpu_result chain_reduce(sim_ctx *x, const sim_call *c)
{
    int n = c->n, r = c->rank, pos = mod(r - c->root - 1, n);
    size_t bytes = c->count * mgpu_dtype_size(c->dtype);
    int prev = mod(r - 1, n), next = mod(r + 1, n);
    if (n == 1) {
        copy_if(c->recv, c->send, bytes);
        return MGPU_OK;
    }
    if (pos == 0) {
        sim_xfer f = xsend(next, c->send, bytes);
        return sim_run(x, &f, 1);
    }
    if (pos == n - 1) {
        sim_xfer f = xreduce(prev, c->recv, c->send, bytes, c->dtype, c->redop);
        MGPU_CHECK(sim_run(x, &f, 1));
        if (c->redop == MGPU_AVG) sim_divide(c->recv, c->count, c->dtype, n);
        return MGPU_OK;
    }
    mgpu_result res;
    unsigned char *tmp = scratch(x, bytes, &res); /* non-roots' recv is not theirs to write (NCCL) */
    MGPU_CHECK(res);
    sim_xfer f[2] = {xreduce(prev, tmp, c->send, bytes, c->dtype, c->redop), xsend(next, tmp, bytes)};
    f[1].avail = &f[0].done;
    res = sim_run(x, f, 2);
    free(tmp);
    MGPU_CHECK(res);
    return MGPU_OK;
}

/*--- alltoall ----------------------------------------------------------*/

static mgpu_result pairwise_alltoall(sim_ctx *x, const sim_call *c)
{
    int n = c->n, r = c->rank;
    size_t blk = c->count * mgpu_dtype_size(c->dtype), total = blk * (size_t)n;
    const unsigned char *send = c->send;
    unsigned char *copy = NULL;
    mgpu_result res = MGPU_OK;
    /* In place, a block would be overwritten before it is sent: stage the input. */
    if (send < c->recv + total && c->recv < send + total && total) {
        copy = scratch(x, total, &res);
        MGPU_CHECK(res);
        memcpy(copy, send, total);
        send = copy;
    }
    copy_if(c->recv + (size_t)r * blk, send + (size_t)r * blk, blk);
    sim_xfer *f = calloc((size_t)2 * n, sizeof *f);
    if (!f) {
        free(copy);
        return mgpu_fail(MGPU_ERR_NOMEM, "%s: out of host memory", x->what);
    }
    int nf = 0;
    for (int k = 1; k < n; k++) { /* peers in a rotating order, as NCCL schedules them */
        int to = mod(r + k, n), from = mod(r - k, n);
        f[nf++] = xsend(to, send + (size_t)to * blk, blk);
        f[nf++] = xrecv(from, c->recv + (size_t)from * blk, blk);
    }
    res = sim_run(x, f, nf);
    free(f);
    free(copy);
    MGPU_CHECK(res);
    return MGPU_OK;
}

mgpu_result sim_algo_run(sim_ctx *x, const sim_call *c)
{
    if (c->count == 0) return MGPU_OK; /* every rank checked the same count at arrival */
    switch (c->op) {
    case MGPU_COLL_ALL_REDUCE:
        if (c->n == 1) {
            copy_if(c->recv, c->send, c->count * mgpu_dtype_size(c->dtype));
            return MGPU_OK;
        }
        return c->algo == MGPU_ALGO_TREE ? tree_all_reduce(x, c) : ring_all_reduce(x, c);
    case MGPU_COLL_ALL_GATHER: return ring_all_gather(x, c);
    case MGPU_COLL_REDUCE_SCATTER: return ring_reduce_scatter(x, c);
    case MGPU_COLL_BROADCAST: return chain_broadcast(x, c);
    case MGPU_COLL_REDUCE: return chain_reduce(x, c);
    case MGPU_COLL_ALLTOALL: return pairwise_alltoall(x, c);
    case MGPU_COLL_BARRIER: return MGPU_OK; /* the arrival exchange is the barrier */
    default: return mgpu_fail(MGPU_ERR_INTERNAL, "%s: not a collective the sim algorithms run", x->what);
    }
}
