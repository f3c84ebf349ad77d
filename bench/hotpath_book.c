/* hotpath_book.c - issue 9 part 6 on a machine without a GPU: what the
 * caller's bookkeeping of one collective costs (the flight recorder entry
 * and the watchdog's tracking, as comm_coll.c does them for the cuda
 * backend), with the watchdog thread running beside it and fencing on a
 * real stream of the sim backend. On one rank in place NCCL's own call costs
 * 0.2-0.4 us on an H200 host (nccl-tests); this is the part mgpulab adds.
 * usage: bench_hotpath_book [calls] [rounds]   prints ns per call per round
 * and their median. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "comm/comm_core.h"
#include "comm/flight.h"
#include "mgpu/clock.h"

static mgpu_result solo(void *ctx, const void *mine, void *all, size_t len)
{
    (void)ctx;
    memcpy(all, mine, len);
    return MGPU_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    long calls = argc > 1 ? atol(argv[1]) : 2000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 7;
    if (calls <= 0 || rounds <= 0 || rounds > 100) {
        fprintf(stderr, "usage: %s [calls > 0] [rounds 1-100]\n", argv[0]);
        return 2;
    }
    mgpu_backend_config bc = {MGPU_BACKEND_SIM, NULL, NULL};
    mgpu_backend *be = NULL;
    mgpu_bootstrap bs = {NULL, 0, 1, solo};
    mgpu_comm_config cfg = {0, 1, 60.0, 0, 0, "hot"};
    mgpu_comm *c = NULL;
    if (mgpu_backend_open(&bc, &be) != MGPU_OK || mgpu_comm_init(be, &bs, &cfg, &c) != MGPU_OK) {
        fprintf(stderr, "bench_hotpath_book: %s\n", mgpu_error_message());
        return 1;
    }
    double ns[100];
    uint64_t seq = 0;
    for (int r = 0; r < rounds; r++) {
        uint64_t t0 = mgpu_now_ns();
        for (long i = 0; i < calls; i++) {
            /* what run_coll does around the launch on a non-simulated comm */
            mgpu_flight_entry e;
            memset(&e, 0, sizeof e);
            e.seq = ++seq;
            e.op = MGPU_COLL_ALL_REDUCE;
            e.count = 1024;
            e.dtype = MGPU_F32;
            e.state = MGPU_FLIGHT_STARTED;
            mgpu_wd_lane *lane = NULL;
            if (mgpu_watchdog_lane(c, c->stream, &lane) != MGPU_OK) {
                fprintf(stderr, "bench_hotpath_book: %s\n", mgpu_error_message());
                return 1;
            }
            uint64_t slot = mgpu_flight_add_on(c->flight, &e, lane);
            mgpu_watchdog_launched(lane, slot);
        }
        ns[r] = (double)(mgpu_now_ns() - t0) / (double)calls;
        printf("round %d: %.1f ns per call\n", r + 1, ns[r]);
        struct timespec nap = {0, 1000 * 1000};
        while (mgpu_watchdog_pending() > 0) nanosleep(&nap, NULL);
    }
    qsort(ns, (size_t)rounds, sizeof ns[0], cmp_double);
    printf("median %.1f ns per call (%ld calls x %d rounds)\n", ns[rounds / 2], calls, rounds);
    mgpu_comm_destroy(c);
    mgpu_backend_close(be);
    return 0;
}
