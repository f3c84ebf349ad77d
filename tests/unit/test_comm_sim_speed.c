/* test_comm_sim_speed.c - how fast the sim communicator moves real data:
 * 8 ranks (processes), an 8 B all_reduce (the per-call overhead), one
 * 256 MiB f32 all_reduce, and an nccl-tests style sweep 8 B..256 MiB
 * (factor 2, one execution per size), ring and tree. Results are checked
 * exactly; the wall times are PRINTED, not asserted (machines are noisy):
 * re-measure with `ctest -R sim_speed -V`. The bar (SPEC §7): the 8-rank
 * sweep in < 2 s on 2 cores. Under ASan (MGPU_TEST_ASAN=1, the sanitized
 * ctest) the large size is 32 MiB: the same rounds, checked the same way,
 * without 8 x 512 MiB of sanitized memory. */
#include "comm_fork.c"
#include "comm_sim_child.h"
#include "mgpu/clock.h"
#include "tap.h"

#define NRANKS 8
static size_t BIG = (size_t)256 << 20; /* bytes; main() sets it before the ranks fork */

typedef struct speed {
    double small_us;          /* mean wall time of one 8 B all_reduce */
    double big_s;             /* one 256 MiB all_reduce */
    double sweep_s;           /* 8 B..256 MiB, one execution each */
    double big_tree_s;        /* 256 MiB, NCCL_ALGO=tree */
} speed;

/* Small integers: sums over 8 ranks are exact in f32. Periodic in i (7),
 * so filling and checking 64 Mi elements stay cheap next to the call. */
static float v(int rank, size_t i) { return (float)((int)((i * 3 + (size_t)rank * 5) % 7) - 3); }

static void fill(float *p, size_t count, int rank)
{
    float pat[7];
    for (int k = 0; k < 7; k++) pat[k] = v(rank, (size_t)k);
    for (size_t i = 0, k = 0; i < count; i++, k = k == 6 ? 0 : k + 1) p[i] = pat[k];
}

static double barrier_then_now(simc *e)
{
    simc_coll(&e->c, MGPU_COLL_BARRIER, NULL, 0, NULL, 0, 0, MGPU_F32, MGPU_SUM, -1);
    return (double)mgpu_now_ns();
}

/* Every element of an all_reduce sum of v() over n ranks; returns mismatches. */
static int check_sum(const float *r, size_t count, int n, const char *what, int rank)
{
    float pat[7] = {0};
    for (int k = 0; k < 7; k++)
        for (int q = 0; q < n; q++) pat[k] += v(q, (size_t)k);
    for (size_t i = 0, k = 0; i < count; i++, k = k == 6 ? 0 : k + 1) {
        float want = pat[k];
        if (r[i] != want) {
            fprintf(stderr, "rank %d: %s: element %zu is %g, expected %g\n", rank, what, i, r[i], want);
            return 1;
        }
    }
    return 0;
}

static int timed(simc *e, mgpu_buffer *sb, mgpu_buffer *rb, size_t count, double *secs, int rank)
{
    double t0 = barrier_then_now(e);
    mgpu_result r = simc_coll(&e->c, MGPU_COLL_ALL_REDUCE, sb, 0, rb, 0, count, MGPU_F32, MGPU_SUM, -1);
    *secs = ((double)mgpu_now_ns() - t0) / 1e9;
    if (r != MGPU_OK) fprintf(stderr, "rank %d: all_reduce of %zu floats: %s\n", rank, count, mgpu_error_message());
    return r != MGPU_OK;
}

static int child(int rank, int size, const mgpu_bootstrap *bs, void *arg)
{
    speed *out = arg; /* MAP_SHARED: rank 0 writes the figures */
    simc e;
    if (simc_open(&e, bs, "dgx-h100", 60.0)) return 1;
    mgpu_buffer *sb = NULL, *rb = NULL;
    if (mgpu_mem_alloc(e.be, MGPU_MEM_DEVICE, e.c.device, BIG, &sb) != MGPU_OK ||
        mgpu_mem_alloc(e.be, MGPU_MEM_DEVICE, e.c.device, BIG, &rb) != MGPU_OK) {
        fprintf(stderr, "rank %d: alloc: %s\n", rank, mgpu_error_message());
        return 2;
    }
    float *s = sb->ptr, *r = rb->ptr;
    size_t big = BIG / 4;
    fill(s, big, rank);
    memset(r, 0, BIG); /* fault the pages in before any timing */
    int fails = 0;
    double dt;

    /* Small: the per-call overhead (mean of 200). */
    int reps = 200;
    double t0 = barrier_then_now(&e);
    for (int k = 0; k < reps; k++)
        fails += simc_coll(&e.c, MGPU_COLL_ALL_REDUCE, sb, 0, rb, 0, 2, MGPU_F32, MGPU_SUM, -1) != MGPU_OK;
    double small_us = ((double)mgpu_now_ns() - t0) / 1e3 / reps;
    fails += check_sum(r, 2, size, "8 B", rank);

    /* Big. */
    fails += timed(&e, sb, rb, big, &dt, rank);
    fails += check_sum(r, big, size, "the large size", rank);
    double big_s = dt;

    /* Sweep 8 B..256 MiB, one execution per size. */
    double sweep = 0;
    for (size_t bytes = 8; bytes <= BIG; bytes *= 2) {
        fails += timed(&e, sb, rb, bytes / 4, &dt, rank);
        sweep += dt;
        fails += check_sum(r, bytes / 4 < 4096 ? bytes / 4 : 4096, size, "sweep", rank);
    }

    /* Tree, forced. */
    double tree_s = 0;
    simc tree;
    setenv("NCCL_ALGO", "tree", 1);
    int bad = simc_open(&tree, bs, "dgx-h100", 60.0);
    unsetenv("NCCL_ALGO");
    if (bad) {
        fails++;
    } else {
        memset(r, 0, BIG);
        fails += timed(&tree, sb, rb, big, &tree_s, rank);
        fails += check_sum(r, big, size, "the large size, tree", rank);
        simc_close(&tree);
    }
    if (rank == 0) *out = (speed){small_us, big_s, sweep, tree_s};
    mgpu_mem_free(rb);
    mgpu_mem_free(sb);
    simc_close(&e);
    return fails > 100 ? 100 : fails;
}

int main(void)
{
    speed *sp = mmap(NULL, sizeof *sp, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(sp != MAP_FAILED);
    if (sp == MAP_FAILED) return tap_done();
    memset(sp, 0, sizeof *sp);
    const char *asan = getenv("MGPU_TEST_ASAN");
    if (asan && strcmp(asan, "1") == 0) BIG = (size_t)32 << 20;
    int mib = (int)(BIG >> 20);
    int codes[COMM_FORK_MAX_RANKS];
    uint64_t t0 = mgpu_now_ns();
    int bad = comm_fork_run(NRANKS, 280.0, child, sp, codes);
    printf("# %d ranks: %d failed, %.2f s in all\n", NRANKS, bad, (mgpu_now_ns() - t0) / 1e9);
    CHECKF(bad == 0, "%d children failed (rank 0 exit %d)", bad, codes[0]);
    printf("# all_reduce 8 B f32:            %8.1f us per call (mean of 200)\n", sp->small_us);
    printf("# all_reduce %d MiB f32:        %8.3f s\n", mib, sp->big_s);
    printf("# all_reduce %d MiB f32 (tree): %8.3f s\n", mib, sp->big_tree_s);
    printf("# sweep 8 B..%d MiB x2:         %8.3f s (one execution per size)\n", mib, sp->sweep_s);
    munmap(sp, sizeof *sp);
    return tap_done();
}
