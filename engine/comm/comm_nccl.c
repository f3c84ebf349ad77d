/* comm_nccl.c - the NCCL communicator backend (pairs with the cuda device
 * backend). NCCL is loaded at first use (nccl_dl.c); rank 0 makes the
 * unique id and the bootstrap all-gather spreads it. Blocking and
 * non-blocking communicators (config.blocking=0: every call may answer
 * ncclInProgress and is then polled with ncclCommGetAsyncError, never
 * longer than the comm's timeout). */
#include "comm/comm_args.h"
#include "mgpu/clock.h"
#include "comm/nccl_dl.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct nccl_impl {
    const mgpu_nccl_api *api;
    ncclComm_t nc;
    int blocking;
    double timeout_s;
    mgpu_buffer *staging;  /* in-place alltoall's copy of the send blocks, grown on demand */
} nccl_impl;

static void free_staging(nccl_impl *m)
{
    mgpu_mem_free(m->staging);
    m->staging = NULL;
}

/* Grouped sends and receives on one buffer race (a block may be received
 * over before it was sent: wrong data from 8 MiB on, seen with 2 ranks), so
 * an in-place alltoall first copies the send blocks aside, in stream order. */
static mgpu_result stage_send(mgpu_comm *c, nccl_impl *m, const mgpu_coll_args *a, mgpu_stream *s, size_t bytes,
                              const void **sb)
{
    if (!m->staging || m->staging->bytes < bytes) {
        free_staging(m);
        MGPU_CHECK(mgpu_mem_alloc(c->be, MGPU_MEM_DEVICE, c->device, bytes, &m->staging));
    }
    MGPU_CHECK(mgpu_copy(s, m->staging, 0, a->send, a->send_off, bytes, MGPU_COPY_CE));
    *sb = m->staging->ptr;
    return MGPU_OK;
}

/* Non-blocking comms used inside the current group: ncclGroupEnd may answer
 * ncclInProgress, and each of them must then be polled until ready. */
static _Thread_local nccl_impl *group_comms[64];
static _Thread_local int n_group_comms, group_open;

static nccl_impl *impl_of(const mgpu_comm *c) { return (nccl_impl *)c->impl; }

static uint64_t fnv1a(const void *p, size_t n, uint64_t h)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static double now_s(void) { return (double)mgpu_now_ns() / 1e9; }

/* Poll a non-blocking comm until its pending operation is done. */
static mgpu_result wait_ready(nccl_impl *m, const char *what, const char *name)
{
    double deadline = now_s() + m->timeout_s;
    struct timespec nap = {0, 100 * 1000};
    for (;;) {
        ncclResult_t st = ncclSuccess;
        ncclResult_t r = m->api->CommGetAsyncError(m->nc, &st);
        if (r != ncclSuccess) return mgpu_nccl_fail(m->api, m->nc, r, what);
        if (st == ncclSuccess) return MGPU_OK;
        if (st != ncclInProgress) return mgpu_nccl_fail(m->api, m->nc, st, what);
        if (now_s() > deadline)
            return mgpu_fail(MGPU_ERR_TIMEOUT, "%s on comm %s was still in progress after %g s (NCCL non-blocking)",
                             what, name, m->timeout_s);
        nanosleep(&nap, NULL);
    }
}

/* A call's result: success, or (non-blocking) in progress -> wait. */
static mgpu_result settle(nccl_impl *m, ncclResult_t r, const char *what, const char *name)
{
    if (r == ncclSuccess) return MGPU_OK;
    if (r == ncclInProgress && !m->blocking) {
        if (group_open) return MGPU_OK; /* polled at group end */
        return wait_ready(m, what, name);
    }
    return mgpu_nccl_fail(m->api, m->nc, r, what);
}

static nccl_impl *impl_new(const mgpu_nccl_api *api, const mgpu_comm *c)
{
    nccl_impl *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->api = api;
    m->blocking = c->cfg.blocking != 0;
    m->timeout_s = mgpu_comm_resolve_timeout(&c->cfg);
    return m;
}

static mgpu_result nccl_init(mgpu_comm *c, const mgpu_bootstrap *bs)
{
    const mgpu_nccl_api *api = NULL;
    MGPU_CHECK(mgpu_nccl_load(&api));
    MGPU_CHECK(mgpu_nccl_set_device(c->device));
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    if (c->rank == 0) {
        ncclResult_t r = api->GetUniqueId(&id);
        if (r != ncclSuccess) return mgpu_nccl_fail(api, NULL, r, "ncclGetUniqueId");
    }
    unsigned char *all = malloc((size_t)c->size * sizeof id);
    if (!all) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory exchanging the NCCL unique id");
    mgpu_result br = bs->allgather(bs->ctx, &id, all, sizeof id);
    if (br != MGPU_OK) {
        free(all);
        mgpu_error_breadcrumb(__FILE__, __LINE__, __func__);
        return br;
    }
    memcpy(&id, all, sizeof id); /* rank 0's */
    free(all);
    c->id = fnv1a(&id, sizeof id, 0xcbf29ce484222325ull);

    nccl_impl *m = impl_new(api, c);
    if (!m) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory creating an NCCL communicator");
    ncclConfig_t cfg;
    mgpu_nccl_config_init(api, &cfg);
    cfg.blocking = m->blocking;
    cfg.commName = c->name;
    ncclResult_t r = api->CommInitRankConfig(&m->nc, c->size, id, c->rank, &cfg);
    mgpu_result res = MGPU_OK;
    if (r == ncclInProgress && !m->blocking) res = wait_ready(m, "ncclCommInitRankConfig", c->name);
    else if (r != ncclSuccess) res = mgpu_nccl_fail(api, m->nc, r, "ncclCommInitRankConfig");
    if (res != MGPU_OK) {
        if (m->nc) api->CommAbort(m->nc);
        free(m);
        return res;
    }
    c->impl = m;
    return MGPU_OK;
}

static mgpu_result nccl_split(mgpu_comm *parent, int color, int key, mgpu_comm *child, int *member)
{
    nccl_impl *p = impl_of(parent);
    nccl_impl *m = impl_new(p->api, child);
    if (!m) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory splitting an NCCL communicator");
    ncclConfig_t cfg;
    mgpu_nccl_config_init(p->api, &cfg);
    cfg.blocking = m->blocking;
    cfg.commName = child->name;
    ncclResult_t r = p->api->CommSplit(p->nc, color < 0 ? -1 : color, key, &m->nc, &cfg);
    mgpu_result res = MGPU_OK;
    if (r == ncclInProgress && !m->blocking) {
        /* The parent carries the split's progress until the child exists. */
        res = wait_ready(m->nc ? m : p, "ncclCommSplit", parent->name);
    } else if (r != ncclSuccess) {
        res = mgpu_nccl_fail(p->api, p->nc, r, "ncclCommSplit");
    }
    if (res == MGPU_OK && m->nc && !m->blocking) res = wait_ready(m, "ncclCommSplit", child->name);
    if (res != MGPU_OK || !m->nc) {
        if (m->nc) p->api->CommAbort(m->nc);
        free(m);
        *member = 0;
        return res;
    }
    int rank = 0, size = 0;
    if ((r = p->api->CommUserRank(m->nc, &rank)) != ncclSuccess ||
        (r = p->api->CommCount(m->nc, &size)) != ncclSuccess) {
        res = mgpu_nccl_fail(p->api, m->nc, r, "reading the split communicator's rank and size");
        p->api->CommAbort(m->nc);
        free(m);
        return res;
    }
    child->rank = rank;
    child->size = size;
    /* Equal on every member: the parent's identity, which split, which color. */
    uint64_t h = fnv1a(&parent->id, sizeof parent->id, 0xcbf29ce484222325ull);
    h = fnv1a(&parent->split_count, sizeof parent->split_count, h);
    child->id = fnv1a(&color, sizeof color, h);
    child->impl = m;
    *member = 1;
    return MGPU_OK;
}

static mgpu_result nccl_destroy(mgpu_comm *c)
{
    nccl_impl *m = impl_of(c);
    if (!m) return MGPU_OK;
    /* Finalize flushes queued work (and may be in progress when non-blocking). */
    ncclResult_t r = m->api->CommFinalize(m->nc);
    mgpu_result res = MGPU_OK;
    if (r == ncclInProgress && !m->blocking) res = wait_ready(m, "ncclCommFinalize", c->name);
    else if (r != ncclSuccess) res = mgpu_nccl_fail(m->api, m->nc, r, "ncclCommFinalize");
    if (res != MGPU_OK) {
        m->api->CommAbort(m->nc);
    } else if ((r = m->api->CommDestroy(m->nc)) != ncclSuccess) {
        res = mgpu_nccl_fail(m->api, NULL, r, "ncclCommDestroy");
    }
    free_staging(m);
    free(m);
    c->impl = NULL;
    return res;
}

static void nccl_abort(mgpu_comm *c)
{
    nccl_impl *m = impl_of(c);
    if (!m) return;
    c->impl = NULL;
    m->api->CommAbort(m->nc);
    free_staging(m);
    free(m);
}

static mgpu_result nccl_async_error(mgpu_comm *c)
{
    nccl_impl *m = impl_of(c);
    if (!m) return mgpu_fail(MGPU_ERR_INVALID, "communicator %s was aborted", c->name);
    ncclResult_t st = ncclSuccess;
    ncclResult_t r = m->api->CommGetAsyncError(m->nc, &st);
    if (r != ncclSuccess) return mgpu_nccl_fail(m->api, m->nc, r, "ncclCommGetAsyncError");
    if (st != ncclSuccess && st != ncclInProgress) return mgpu_nccl_fail(m->api, m->nc, st, "communicator error");
    return MGPU_OK;
}

static ncclDataType_t nccl_type(mgpu_dtype t)
{
    switch (t) {
    case MGPU_F16: return ncclFloat16;
    case MGPU_BF16: return ncclBfloat16;
    case MGPU_I32: return ncclInt32;
    default: return ncclFloat32;
    }
}

static ncclRedOp_t nccl_op(mgpu_redop op)
{
    static const ncclRedOp_t map[MGPU_REDOP_COUNT] = {ncclSum, ncclProd, ncclMax, ncclMin, ncclAvg};
    return (unsigned)op < MGPU_REDOP_COUNT ? map[op] : ncclSum;
}

static const char *ptr_of(const mgpu_buffer *b, size_t off) { return b ? (const char *)b->ptr + off : NULL; }

static mgpu_result nccl_collective(mgpu_comm *c, const mgpu_coll_args *a, mgpu_stream *s)
{
    nccl_impl *m = impl_of(c);
    if (!m) return mgpu_fail(MGPU_ERR_INVALID, "communicator %s was aborted", c->name);
    if (a->multicast)
        return mgpu_fail(MGPU_ERR_UNSUPPORTED, "a multicast broadcast runs on the sim only: mgpulab does not create "
                         "CUDA multicast objects on real GPUs (they need NVSwitch and the fabric manager, and a bad one "
                         "can take the node's GPUs out of service); measure it on a model: --backend sim --machine "
                         "dgx-h100");
    const mgpu_nccl_api *api = m->api;
    void *st = mgpu_stream_native(s);
    const void *sb = ptr_of(a->send, a->send_off);
    void *rb = (void *)ptr_of(a->recv, a->recv_off);
    ncclDataType_t t = nccl_type(a->dtype);
    ncclRedOp_t op = nccl_op(a->redop);
    size_t es = mgpu_dtype_size(a->dtype);
    ncclResult_t r = ncclSuccess;
    const char *what = "";
    switch (a->op) {
    case MGPU_COLL_ALL_REDUCE: what = "ncclAllReduce"; r = api->AllReduce(sb, rb, a->count, t, op, m->nc, st); break;
    case MGPU_COLL_ALL_GATHER: what = "ncclAllGather"; r = api->AllGather(sb, rb, a->count, t, m->nc, st); break;
    case MGPU_COLL_REDUCE_SCATTER:
        what = "ncclReduceScatter";
        r = api->ReduceScatter(sb, rb, a->count, t, op, m->nc, st);
        break;
    case MGPU_COLL_BROADCAST:
        what = "ncclBroadcast"; /* sendbuff is read on the root only */
        r = api->Broadcast(sb ? sb : rb, rb, a->count, t, a->root, m->nc, st);
        break;
    case MGPU_COLL_REDUCE:
        what = "ncclReduce"; /* recvbuff is written on the root only */
        r = api->Reduce(sb, rb, a->count, t, op, a->root, m->nc, st);
        break;
    case MGPU_COLL_ALLTOALL: {
        /* As nccl-tests does: one group of a send and a receive per peer. */
        what = "alltoall (grouped ncclSend/ncclRecv)";
        size_t block = a->count * es;
        if (sb && rb && (const char *)sb < (const char *)rb + block * (size_t)c->size &&
            (const char *)rb < (const char *)sb + block * (size_t)c->size)
            MGPU_CHECK(stage_send(c, m, a, s, block * (size_t)c->size, &sb));
        r = api->GroupStart();
        for (int p = 0; p < c->size && r == ncclSuccess; p++) {
            r = api->Send((const char *)sb + (size_t)p * block, a->count, t, p, m->nc, st);
            if (r == ncclSuccess) r = api->Recv((char *)rb + (size_t)p * block, a->count, t, p, m->nc, st);
        }
        ncclResult_t e = api->GroupEnd();
        if (r == ncclSuccess || r == ncclInProgress) r = e;
        break;
    }
    case MGPU_COLL_SEND: what = "ncclSend"; r = api->Send(sb, a->count, t, a->root, m->nc, st); break;
    case MGPU_COLL_RECV: what = "ncclRecv"; r = api->Recv(rb, a->count, t, a->root, m->nc, st); break;
    default: return mgpu_fail(MGPU_ERR_INTERNAL, "NCCL backend: operation %d is not a collective", (int)a->op);
    }
    if (group_open && !m->blocking && n_group_comms < 64) {
        int seen = 0;
        for (int i = 0; i < n_group_comms; i++) seen |= group_comms[i] == m;
        if (!seen) group_comms[n_group_comms++] = m;
    }
    MGPU_CHECK(settle(m, r, what, c->name));
    return MGPU_OK;
}

static mgpu_result nccl_group_start(void)
{
    const mgpu_nccl_api *api = mgpu_nccl_loaded();
    if (!api) return MGPU_OK; /* no NCCL comm exists: nothing to group */
    ncclResult_t r = api->GroupStart();
    if (r != ncclSuccess) return mgpu_nccl_fail(api, NULL, r, "ncclGroupStart");
    group_open = 1;
    n_group_comms = 0;
    return MGPU_OK;
}

static mgpu_result nccl_group_end(void)
{
    const mgpu_nccl_api *api = mgpu_nccl_loaded();
    if (!api || !group_open) return MGPU_OK;
    group_open = 0;
    ncclResult_t r = api->GroupEnd();
    int n = n_group_comms;
    n_group_comms = 0;
    if (r == ncclInProgress) {
        for (int i = 0; i < n; i++) MGPU_CHECK(wait_ready(group_comms[i], "ncclGroupEnd", "(grouped)"));
        return MGPU_OK;
    }
    if (r != ncclSuccess) return mgpu_nccl_fail(api, NULL, r, "ncclGroupEnd");
    return MGPU_OK;
}

const struct mgpu_comm_ops mgpu_comm_nccl_ops = {
    .name = "nccl",
    .dev_backend = "cuda",
    .init = nccl_init,
    .split = nccl_split,
    .destroy = nccl_destroy,
    .abort = nccl_abort,
    .async_error = nccl_async_error,
    .collective = nccl_collective,
    .group_start = nccl_group_start,
    .group_end = nccl_group_end,
};
