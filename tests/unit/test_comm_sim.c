/* test_comm_sim.c - every sim collective against a host reference, for 1, 2,
 * 3, 4, 7 and 8 ranks (processes), counts 0, 1, 1001 and large, every dtype
 * and op, in place and out of place, ring and tree; modelled time equal on
 * every rank after each collective. */
#include <math.h>
#include "comm_fork.c"
#include "comm_sim_child.h"
#include "mgpu/clock.h"
#include "tap.h"

/* Small integers (-2..2): exact in every dtype, so sums, products and
 * maxima over 8 ranks are exact and results compare bit for bit. */
static float val(int rank, size_t i, int salt) { return (float)((int)((rank * 7 + i * 3 + (size_t)salt) % 5) - 2); }

static const char *coll_s(mgpu_coll op)
{
    static const char *const n[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall"};
    return (unsigned)op < 6 ? n[op] : "?";
}
static const char *dtype_s(mgpu_dtype t) { return t == MGPU_F32 ? "f32" : t == MGPU_F16 ? "f16" : t == MGPU_BF16 ? "bf16" : "i32"; }
static const char *redop_s(mgpu_redop o)
{
    static const char *const n[] = {"sum", "prod", "max", "min", "avg"};
    return (unsigned)o < 5 ? n[o] : "?";
}

static void put(void *base, mgpu_dtype t, size_t i, float v) { mgpu_fill_store(base, t, i, v); }

/* The value `v` as stored in dtype t and read back. */
static float as_dtype(mgpu_dtype t, float v)
{
    uint32_t tmp;
    mgpu_fill_store(&tmp, t, 0, v);
    return mgpu_elem_f32(&tmp, t, 0);
}

static float reduce_ref(int n, size_t i, int salt, mgpu_dtype t, mgpu_redop op)
{
    double acc = val(0, i, salt);
    for (int r = 1; r < n; r++) {
        double v = val(r, i, salt);
        if (op == MGPU_PROD) acc *= v;
        else if (op == MGPU_MAX) acc = v > acc ? v : acc;
        else if (op == MGPU_MIN) acc = v < acc ? v : acc;
        else acc += v;
    }
    if (op == MGPU_AVG) {
        if (t == MGPU_I32) return (float)((int32_t)acc / n);
        return as_dtype(t, (float)acc / (float)n);
    }
    return as_dtype(t, (float)acc);
}

typedef struct ctx {
    simc e;
    int rank, n, fails;
} ctx;

static void fail(ctx *x, const char *what, size_t i, float got, float want)
{
    if (x->fails++ < 10)
        fprintf(stderr, "rank %d/%d: %s: element %zu is %g, expected %g\n", x->rank, x->n, what, i, got, want);
}

static mgpu_buffer *alloc(ctx *x, size_t bytes)
{
    mgpu_buffer *b = NULL;
    if (mgpu_mem_alloc(x->e.be, MGPU_MEM_DEVICE, x->e.c.device, bytes ? bytes : 4, &b) != MGPU_OK) {
        fprintf(stderr, "rank %d: alloc %zu: %s\n", x->rank, bytes, mgpu_error_message());
        return NULL;
    }
    memset(b->ptr, 0x7f, bytes ? bytes : 4); /* a poison no result matches */
    return b;
}

/* One case of one collective. */
static void run_case(ctx *x, mgpu_comm *c, mgpu_coll op, size_t count, mgpu_dtype t, mgpu_redop redop, int inplace)
{
    int n = c->size, r = c->rank;
    size_t es = mgpu_dtype_size(t);
    int salt = (int)(count % 7) + (int)t + 3 * (int)redop + (int)op;
    int root = (int)((count + (size_t)t) % (size_t)n);
    size_t in_elems = count, out_elems = count;
    if (op == MGPU_COLL_ALL_GATHER) out_elems = count * (size_t)n;
    if (op == MGPU_COLL_REDUCE_SCATTER) in_elems = count * (size_t)n;
    if (op == MGPU_COLL_ALLTOALL) in_elems = out_elems = count * (size_t)n;
    size_t big = (in_elems > out_elems ? in_elems : out_elems) * es;
    mgpu_buffer *sb = alloc(x, big), *rb = inplace ? sb : alloc(x, out_elems * es);
    if (!sb || !rb) {
        x->fails++;
        return;
    }
    size_t soff = 0, roff = 0;
    if (inplace && op == MGPU_COLL_ALL_GATHER) soff = (size_t)r * count * es;
    if (inplace && op == MGPU_COLL_REDUCE_SCATTER) roff = (size_t)r * count * es;
    unsigned char *sp = (unsigned char *)sb->ptr + soff;
    for (size_t i = 0; i < in_elems; i++) put(sp, t, i, val(r, i, salt)); /* alltoall: block j goes to rank j */
    if (op == MGPU_COLL_BROADCAST && r != root && !inplace)
        for (size_t i = 0; i < in_elems; i++) put(sp, t, i, 99.0f); /* non-roots' input must not matter */
    char what[128];
    snprintf(what, sizeof what, "%s count %zu %s %s%s root %d", coll_s(op), count, dtype_s(t),
             op == MGPU_COLL_ALL_REDUCE || op == MGPU_COLL_REDUCE || op == MGPU_COLL_REDUCE_SCATTER
                 ? redop_s(redop) : "-",
             inplace ? " in-place" : "", root);
    double t0 = 0, t1 = 0;
    mgpu_stream_model_time(x->e.s, &t0);
    mgpu_result res = simc_coll(c, op, sb, soff, rb, roff, count, t, redop, root);
    if (res != MGPU_OK) {
        fprintf(stderr, "rank %d: %s failed: %s\n", r, what, mgpu_error_message());
        x->fails++;
        goto out;
    }
    mgpu_stream_model_time(x->e.s, &t1);
    if (count > 0 && n > 1 && !(t1 > t0)) {
        fprintf(stderr, "rank %d: %s: modelled time did not advance (%g -> %g)\n", r, what, t0, t1);
        x->fails++;
    }
    const unsigned char *rp = (const unsigned char *)rb->ptr + roff;
    for (size_t i = 0; i < out_elems; i++) {
        float want;
        switch (op) {
        case MGPU_COLL_ALL_REDUCE: want = reduce_ref(n, i, salt, t, redop); break;
        case MGPU_COLL_REDUCE:
            if (r != root) goto out; /* only the root's output is defined */
            want = reduce_ref(n, i, salt, t, redop);
            break;
        case MGPU_COLL_REDUCE_SCATTER: want = reduce_ref(n, (size_t)r * count + i, salt, t, redop); break;
        case MGPU_COLL_ALL_GATHER: want = as_dtype(t, val((int)(i / count), i % count, salt)); break;
        case MGPU_COLL_BROADCAST: want = as_dtype(t, val(root, i, salt)); break;
        default: /* alltoall: block j came from rank j, its block r */
            want = as_dtype(t, val((int)(i / count), (size_t)r * count + i % count, salt));
            break;
        }
        float got = mgpu_elem_f32(rp, t, i);
        if (got != want) {
            fail(x, what, i, got, want);
            break;
        }
    }
out:
    if (rb != sb) mgpu_mem_free(rb);
    mgpu_mem_free(sb);
}

static int reduces(mgpu_coll op)
{
    return op == MGPU_COLL_ALL_REDUCE || op == MGPU_COLL_REDUCE || op == MGPU_COLL_REDUCE_SCATTER;
}

/* Every rank must end a collective at the same modelled time. */
static void check_same_time(ctx *x, const mgpu_bootstrap *bs, const char *after)
{
    double mine = 0, all[COMM_FORK_MAX_RANKS];
    mgpu_stream_model_time(x->e.s, &mine);
    if (bs->allgather(bs->ctx, &mine, all, sizeof mine) != MGPU_OK) {
        fprintf(stderr, "rank %d: bootstrap: %s\n", x->rank, mgpu_error_message());
        x->fails++;
        return;
    }
    for (int i = 0; i < bs->size; i++)
        if (all[i] != mine) {
            fprintf(stderr, "rank %d: after %s modelled time %.1f ns, rank %d has %.1f ns\n", x->rank, after, mine, i,
                    all[i]);
            x->fails++;
            return;
        }
}

static void matrix(ctx *x, mgpu_comm *c, const mgpu_coll *ops, int nops)
{
    static const size_t counts[] = {0, 1, 1001};
    for (int k = 0; k < nops; k++)
        for (int t = 0; t < MGPU_DTYPE_COUNT; t++)
            for (int o = 0; o < (reduces(ops[k]) ? MGPU_REDOP_COUNT : 1); o++)
                for (int ci = 0; ci < 3; ci++)
                    for (int ip = 0; ip < 2; ip++)
                        run_case(x, c, ops[k], counts[ci], (mgpu_dtype)t, (mgpu_redop)o, ip);
}

static int child(int rank, int size, const mgpu_bootstrap *bs, void *arg)
{
    (void)arg;
    ctx x = {.rank = rank, .n = size};
    if (simc_open(&x.e, bs, "dgx-h100", 20.0)) return 1;
    static const mgpu_coll all_ops[] = {MGPU_COLL_ALL_REDUCE, MGPU_COLL_ALL_GATHER, MGPU_COLL_REDUCE_SCATTER,
                                        MGPU_COLL_BROADCAST, MGPU_COLL_REDUCE, MGPU_COLL_ALLTOALL};
    matrix(&x, &x.e.c, all_ops, 6);
    check_same_time(&x, bs, "the small matrix");

    /* Large counts: a few combinations (many chunks through every mailbox). */
    size_t L = (size_t)1 << 20, Lr = L / (size_t)size;
    run_case(&x, &x.e.c, MGPU_COLL_ALL_REDUCE, L + 3, MGPU_F32, MGPU_SUM, 0);
    run_case(&x, &x.e.c, MGPU_COLL_ALL_REDUCE, L, MGPU_BF16, MGPU_AVG, 1);
    run_case(&x, &x.e.c, MGPU_COLL_ALL_REDUCE, L, MGPU_I32, MGPU_PROD, 0);
    run_case(&x, &x.e.c, MGPU_COLL_REDUCE_SCATTER, Lr, MGPU_F16, MGPU_MAX, 1);
    run_case(&x, &x.e.c, MGPU_COLL_ALL_GATHER, Lr + 1, MGPU_F32, MGPU_SUM, 0);
    run_case(&x, &x.e.c, MGPU_COLL_BROADCAST, L, MGPU_I32, MGPU_SUM, 0);
    run_case(&x, &x.e.c, MGPU_COLL_REDUCE, L, MGPU_F32, MGPU_MIN, 1);
    run_case(&x, &x.e.c, MGPU_COLL_ALLTOALL, Lr, MGPU_F32, MGPU_SUM, 1);
    check_same_time(&x, bs, "the large cases");

    /* The tree all_reduce, forced as NCCL_ALGO=tree would. */
    simc tree;
    setenv("NCCL_ALGO", "tree", 1);
    int bad = simc_open(&tree, bs, "dgx-h100", 20.0);
    unsetenv("NCCL_ALGO");
    if (bad) {
        x.fails++;
    } else {
        mgpu_stream *keep = x.e.s;
        x.e.s = tree.s;
        static const mgpu_coll ar[] = {MGPU_COLL_ALL_REDUCE};
        matrix(&x, &tree.c, ar, 1);
        run_case(&x, &tree.c, MGPU_COLL_ALL_REDUCE, L + 5, MGPU_F32, MGPU_SUM, 0);
        check_same_time(&x, bs, "the tree all_reduces");
        x.e.s = keep;
        simc_close(&tree);
    }
    /* barrier */
    if (simc_coll(&x.e.c, MGPU_COLL_BARRIER, NULL, 0, NULL, 0, 0, MGPU_F32, MGPU_SUM, -1) != MGPU_OK) {
        fprintf(stderr, "rank %d: barrier: %s\n", rank, mgpu_error_message());
        x.fails++;
    }
    check_same_time(&x, bs, "the barrier");
    simc_close(&x.e);
    return x.fails > 100 ? 100 : x.fails;
}

int main(void)
{
    static const int sizes[] = {1, 2, 3, 4, 7, 8};
    for (int i = 0; i < 6; i++) {
        int codes[COMM_FORK_MAX_RANKS];
        uint64_t t0 = mgpu_now_ns();
        int bad = comm_fork_run(sizes[i], 120.0, child, NULL, codes);
        printf("# %d ranks: %d failed, %.2f s\n", sizes[i], bad, (mgpu_now_ns() - t0) / 1e9);
        for (int r = 0; r < sizes[i] && bad; r++) printf("#   rank %d exit %d\n", r, codes[r]);
        CHECKF(bad == 0, "%d ranks: %d children failed (rank 0 exit %d)", sizes[i], bad, codes[0]);
    }
    return tap_done();
}
