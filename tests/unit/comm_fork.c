/* comm_fork.c - the fork harness (comm_fork.h): children, a shared-memory
 * bootstrap all-gather, exit statuses with a deadline. */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "comm_fork.h"

typedef struct comm_fork_slot {
    _Atomic uint64_t seq;                         /* allgathers posted by this rank */
    _Atomic uint64_t len[2];                      /* by seq parity, as the data */
    unsigned char data[2][COMM_FORK_BLOB];        /* double-buffered by seq parity */
} comm_fork_slot;

typedef struct comm_fork_shared {
    int size;
    comm_fork_slot slot[COMM_FORK_MAX_RANKS];
} comm_fork_shared;

typedef struct comm_fork_ctx {
    comm_fork_shared *sh;
    int rank;
    uint64_t seq;
} comm_fork_ctx;

static double comm_fork_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A rank may be at most one allgather ahead of the slowest (it waits for all
 * in each), so two buffers per rank are enough. */
static mgpu_result comm_fork_allgather(void *vctx, const void *mine, void *all, size_t len)
{
    comm_fork_ctx *x = vctx;
    if (len > COMM_FORK_BLOB)
        return mgpu_fail(MGPU_ERR_INVALID, "comm_fork bootstrap: %zu bytes is more than the %d it carries", len,
                         COMM_FORK_BLOB);
    uint64_t k = ++x->seq;
    comm_fork_slot *me = &x->sh->slot[x->rank];
    memcpy(me->data[k & 1], mine, len);
    atomic_store(&me->len[k & 1], len);
    atomic_store(&me->seq, k);
    double deadline = comm_fork_now() + 30.0;
    for (int r = 0; r < x->sh->size; r++) {
        while (atomic_load(&x->sh->slot[r].seq) < k) {
            if (comm_fork_now() > deadline)
                return mgpu_fail(MGPU_ERR_TIMEOUT, "comm_fork bootstrap: rank %d did not arrive within 30 s", r);
            usleep(50);
        }
        if (atomic_load(&x->sh->slot[r].len[k & 1]) != len)
            return mgpu_fail(MGPU_ERR_INVALID, "comm_fork bootstrap: rank %d posted a different length", r);
        memcpy((char *)all + (size_t)r * len, x->sh->slot[r].data[k & 1], len);
    }
    return MGPU_OK;
}

int comm_fork_run(int nranks, double timeout_s, comm_fork_fn fn, void *arg, int *codes)
{
    if (nranks < 1 || nranks > COMM_FORK_MAX_RANKS) return -1;
    comm_fork_shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) return -1;
    memset(sh, 0, sizeof *sh);
    sh->size = nranks;
    pid_t pids[COMM_FORK_MAX_RANKS];
    int status[COMM_FORK_MAX_RANKS];
    fflush(stdout);
    fflush(stderr);
    for (int r = 0; r < nranks; r++) {
        pid_t p = fork();
        if (p < 0) {
            for (int i = 0; i < r; i++) kill(pids[i], SIGKILL);
            for (int i = 0; i < r; i++) waitpid(pids[i], NULL, 0);
            munmap(sh, sizeof *sh);
            return -1;
        }
        if (p == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the test */
            comm_fork_ctx x = {sh, r, 0};
            mgpu_bootstrap bs = {&x, r, nranks, comm_fork_allgather};
            int code = fn(r, nranks, &bs, arg);
            fflush(stdout);
            fflush(stderr);
            _exit(code & 0xff);
        }
        pids[r] = p;
        status[r] = COMM_FORK_TIMED_OUT;
    }
    int left = nranks;
    double deadline = comm_fork_now() + timeout_s;
    while (left > 0 && comm_fork_now() < deadline) {
        int progressed = 0;
        for (int r = 0; r < nranks; r++) {
            if (pids[r] <= 0) continue;
            int st;
            pid_t w = waitpid(pids[r], &st, WNOHANG);
            if (w == pids[r]) {
                status[r] = WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
                pids[r] = 0;
                left--;
                progressed = 1;
            }
        }
        if (!progressed) usleep(1000);
    }
    for (int r = 0; r < nranks; r++)
        if (pids[r] > 0) {
            kill(pids[r], SIGKILL);
            waitpid(pids[r], NULL, 0);
        }
    munmap(sh, sizeof *sh);
    int bad = 0;
    for (int r = 0; r < nranks; r++) {
        if (codes) codes[r] = status[r];
        if (status[r] != 0) bad++;
    }
    return bad;
}
