/* fingerprint.c - the opt-in collective fingerprint check (PyTorch's
 * TORCH_DISTRIBUTED_DEBUG=DETAIL): before each collective every rank
 * all-gathers 64 bytes {seq, op, count, dtype, redop, root} over the same
 * communicator, through the backend itself, and a mismatch is refused with
 * one sentence before the real collective is launched, so nothing hangs. */
#include "comm/comm_args.h"
#include "mgpu/clock.h"
#include "comm/comm_core.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FP_MAGIC 0x4d474650u /* "MGFP": tells a fingerprint from zeroed memory */

static void put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }
static uint32_t get32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t get64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

void mgpu_fingerprint_encode(const mgpu_fingerprint *fp, unsigned char out[MGPU_FP_BYTES])
{
    memset(out, 0, MGPU_FP_BYTES);
    put32(out + 0, FP_MAGIC);
    put32(out + 4, (uint32_t)fp->op);
    put64(out + 8, fp->seq);
    put64(out + 16, fp->count);
    put32(out + 24, (uint32_t)fp->dtype);
    put32(out + 28, (uint32_t)fp->redop);
    put32(out + 32, (uint32_t)fp->root);
    put64(out + 40, fp->comm_id);
}

int mgpu_fingerprint_decode(const unsigned char in[MGPU_FP_BYTES], mgpu_fingerprint *fp)
{
    memset(fp, 0, sizeof *fp);
    if (get32(in) != FP_MAGIC) return 0;
    fp->op = (int32_t)get32(in + 4);
    fp->seq = get64(in + 8);
    fp->count = get64(in + 16);
    fp->dtype = (int32_t)get32(in + 24);
    fp->redop = (int32_t)get32(in + 28);
    fp->root = (int32_t)get32(in + 32);
    fp->comm_id = get64(in + 40);
    return 1;
}

static int fp_equal(const mgpu_fingerprint *a, const mgpu_fingerprint *b)
{
    return a->seq == b->seq && a->op == b->op && a->count == b->count && a->dtype == b->dtype &&
           a->redop == b->redop && a->root == b->root && a->comm_id == b->comm_id;
}

/* "broadcast(524288 f32, root 0)", "all_reduce(1048576 f32, sum)". */
static void describe(const mgpu_fingerprint *f, char *buf, size_t len)
{
    mgpu_coll op = (mgpu_coll)f->op;
    int n = snprintf(buf, len, "%s(%llu %s", mgpu_coll_name(op), (unsigned long long)f->count,
                     mgpu_dtype_name((mgpu_dtype)f->dtype));
    if (n < 0 || (size_t)n >= len) return;
    if (mgpu_coll_has_redop(op)) n += snprintf(buf + n, len - (size_t)n, ", %s", mgpu_redop_name((mgpu_redop)f->redop));
    if ((size_t)n < len && mgpu_coll_has_root(op)) n += snprintf(buf + n, len - (size_t)n, ", root %d", f->root);
    if ((size_t)n < len) snprintf(buf + n, len - (size_t)n, ")");
}

int mgpu_fingerprint_compare(const mgpu_fingerprint *all, int n, const char *comm_name, char *msg, size_t len)
{
    if (len) msg[0] = '\0';
    /* The reference is the most common fingerprint (lowest rank on ties), so
     * the sentence names the odd rank out; every rank computes the same. */
    int ref = 0, best = 0;
    for (int i = 0; i < n; i++) {
        int votes = 0;
        for (int j = 0; j < n; j++) votes += fp_equal(&all[i], &all[j]);
        if (votes > best) {
            best = votes;
            ref = i;
        }
    }
    for (int i = 0; i < n; i++) {
        if (fp_equal(&all[i], &all[ref])) continue;
        char mine[128], theirs[128];
        describe(&all[i], mine, sizeof mine);
        describe(&all[ref], theirs, sizeof theirs);
        const char *why = "";
        if (all[i].comm_id != all[ref].comm_id) why = " (on a different communicator)";
        if (all[i].seq != all[ref].seq) {
            snprintf(msg, len,
                     "collective fingerprint mismatch at #%llu on comm %s: rank %d called %s as its #%llu but rank %d "
                     "called %s (rank %d skipped or added a collective)%s",
                     (unsigned long long)all[ref].seq, comm_name, i, mine, (unsigned long long)all[i].seq, ref,
                     theirs, i, why);
        } else {
            snprintf(msg, len, "collective fingerprint mismatch at #%llu on comm %s: rank %d called %s but rank %d called %s%s",
                     (unsigned long long)all[ref].seq, comm_name, i, mine, ref, theirs, why);
        }
        return 1;
    }
    return 0;
}

mgpu_result mgpu_comm_core_scratch(mgpu_comm *c, mgpu_buffer **buf, size_t *off)
{
    mgpu_comm_core *k = mgpu_core(c);
    size_t bytes = (size_t)(c->size + 2) * MGPU_FP_BYTES;
    if (!k->fp_dev) {
        MGPU_CHECK(mgpu_mem_alloc(c->be, MGPU_MEM_DEVICE, c->device, bytes, &k->fp_dev));
        if (!mgpu_backend_simulated(c->be)) {
            mgpu_result r = mgpu_mem_alloc(c->be, MGPU_MEM_PINNED, -1, bytes, &k->fp_host);
            if (r != MGPU_OK) {
                mgpu_mem_free(k->fp_dev);
                k->fp_dev = NULL;
                return r;
            }
        }
    }
    *buf = k->fp_dev;
    *off = bytes - MGPU_FP_BYTES;
    return MGPU_OK;
}

void mgpu_fingerprint_release(mgpu_comm *c)
{
    mgpu_comm_core *k = mgpu_core(c);
    if (k->fp_dev) mgpu_mem_free(k->fp_dev);
    if (k->fp_host) mgpu_mem_free(k->fp_host);
    k->fp_dev = k->fp_host = NULL;
}

/* Wait for the exchange with the comm's timeout, never forever. */
static mgpu_result wait_stream(mgpu_comm *c, mgpu_stream *s, uint64_t seq, mgpu_coll op)
{
    struct timespec nap = {0, 50 * 1000};
    uint64_t t0 = mgpu_now_ns();
    for (;;) {
        int done = 0;
        MGPU_CHECK(mgpu_stream_query(s, &done));
        if (done) return MGPU_OK;
        double el = (double)(mgpu_now_ns() - t0) / 1e9;
        if (el > mgpu_core(c)->timeout_s) {
            mgpu_comm_core_abort_backend(c);
            return mgpu_fail(MGPU_ERR_TIMEOUT, "the fingerprint exchange before %s #%llu never finished",
                             mgpu_coll_name(op), (unsigned long long)seq);
        }
        nanosleep(&nap, NULL);
    }
}

mgpu_result mgpu_fingerprint_check(mgpu_comm *c, const mgpu_coll_args *a, uint64_t seq, mgpu_stream *s)
{
    mgpu_comm_core *k = mgpu_core(c);
    mgpu_buffer *scratch = NULL;
    size_t off = 0;
    MGPU_CHECK(mgpu_comm_core_scratch(c, &scratch, &off));
    int sim = mgpu_backend_simulated(c->be);
    mgpu_fingerprint mine = {seq, a->count, c->id, (int32_t)a->op, (int32_t)a->dtype,
                             mgpu_coll_has_redop(a->op) ? (int32_t)a->redop : 0,
                             mgpu_coll_has_root(a->op) ? a->root : -1};
    size_t gathered = (size_t)c->size * MGPU_FP_BYTES;
    /* On sim, device memory is host memory and the exchange has run when
     * the backend returns: no staging copies, no virtual-time host sync. */
    unsigned char *host = sim ? (unsigned char *)k->fp_dev->ptr : (unsigned char *)k->fp_host->ptr;
    mgpu_fingerprint_encode(&mine, host);
    memset(host + MGPU_FP_BYTES, 0, gathered);
    if (!sim) {
        MGPU_CHECK(mgpu_copy(s, k->fp_dev, 0, k->fp_host, 0, MGPU_FP_BYTES + gathered, MGPU_COPY_CE));
    }
    mgpu_coll_args ga = {MGPU_COLL_ALL_GATHER, k->fp_dev, 0, k->fp_dev, MGPU_FP_BYTES,
                         MGPU_FP_BYTES / 4, MGPU_I32, MGPU_SUM, -1};
    MGPU_CHECK(c->ops->collective(c, &ga, s));
    if (!sim) {
        MGPU_CHECK(mgpu_copy(s, k->fp_host, MGPU_FP_BYTES, k->fp_dev, MGPU_FP_BYTES, gathered, MGPU_COPY_CE));
        MGPU_CHECK(wait_stream(c, s, seq, a->op));
    }
    mgpu_fingerprint *all = calloc((size_t)c->size, sizeof *all);
    if (!all) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory checking a collective fingerprint");
    for (int i = 0; i < c->size; i++) {
        if (!mgpu_fingerprint_decode(host + MGPU_FP_BYTES + (size_t)i * MGPU_FP_BYTES, &all[i])) {
            free(all);
            return mgpu_fail(MGPU_ERR_INVALID,
                             "collective fingerprint check at #%llu on comm %s: rank %d sent no fingerprint; turn the "
                             "check on for every rank (MGPU_FINGERPRINT=1) or for none",
                             (unsigned long long)seq, c->name, i);
        }
    }
    char msg[600];
    int bad = mgpu_fingerprint_compare(all, c->size, c->name, msg, sizeof msg);
    free(all);
    if (bad) return mgpu_fail(MGPU_ERR_INVALID, "%s", msg);
    return MGPU_OK;
}
