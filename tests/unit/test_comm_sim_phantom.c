/* test_comm_sim_phantom.c - collectives and send/recv on phantom (shape-only)
 * buffers on the sim: they take the modelled time of their size, move
 * nothing, show in the flight recorder like any call, mix with real calls
 * on the same communicator, and fail clearly (on every rank, no hang) when
 * ranks disagree or a real buffer would receive phantom values. */
#include "comm_fork.c"
#include "mgpu/mem.h"
#include "tap.h"
#include <string.h>

#define RANKS 4
#define GiB ((size_t)1 << 30)

static int child(int rank, int size, const mgpu_bootstrap *bs, void *arg)
{
    (void)arg;
    mgpu_backend_config bc = {MGPU_BACKEND_SIM, "dgx-h100", NULL, NULL};
    mgpu_backend *be = NULL;
    if (mgpu_backend_open(&bc, &be) != MGPU_OK) return 10;
    mgpu_comm_config cfg = {rank, 1, 20.0, 0, 0, "world"};
    mgpu_comm *c = NULL;
    if (mgpu_comm_init(be, bs, &cfg, &c) != MGPU_OK) return 11;
    mgpu_stream *s = NULL;
    mgpu_buffer *grad = NULL, *shard = NULL, *real = NULL;
    /* 8 GiB of bf16 gradients per rank: far more than this machine could
     * hold for 4 ranks if it were real */
    size_t count = 4 * GiB;
    if (mgpu_stream_create(be, rank, 0, &s) != MGPU_OK ||
        mgpu_mem_alloc_phantom(be, rank, s, count * 2, 0, &grad) != MGPU_OK ||
        mgpu_mem_alloc_phantom(be, rank, s, count * 2 / (size_t)size, 0, &shard) != MGPU_OK ||
        mgpu_mem_alloc(be, MGPU_MEM_DEVICE, rank, 4096, &real) != MGPU_OK) {
        fprintf(stderr, "rank %d: %s\n", rank, mgpu_error_message());
        return 12;
    }
    int fails = 0;
    double t0 = 0, t1 = 0, t2 = 0;
    mgpu_stream_model_time(s, &t0);
    if (mgpu_reduce_scatter(c, grad, 0, shard, 0, count / (size_t)size, MGPU_BF16, MGPU_SUM, s) != MGPU_OK ||
        mgpu_all_gather(c, shard, 0, grad, 0, count / (size_t)size, MGPU_BF16, s) != MGPU_OK) {
        fprintf(stderr, "rank %d: phantom collectives: %s\n", rank, mgpu_error_message());
        fails++;
    }
    mgpu_stream_model_time(s, &t1);
    /* 8 GiB reduce-scattered and all-gathered over NVLink: tens of ms modelled */
    if (!(t1 - t0 > 5e6)) {
        fprintf(stderr, "rank %d: phantom collectives took %.0f ns of modelled time\n", rank, t1 - t0);
        fails++;
    }
    /* a real collective on the same communicator still moves real data */
    int32_t *v = real->ptr;
    for (int i = 0; i < 1024; i++) v[i] = rank + 1;
    if (mgpu_all_reduce(c, real, 0, real, 0, 1024, MGPU_I32, MGPU_SUM, s) != MGPU_OK ||
        v[0] != size * (size + 1) / 2 || v[1023] != v[0]) {
        fprintf(stderr, "rank %d: real all_reduce after phantom ones gave %d\n", rank, v[0]);
        fails++;
    }
    /* phantom send/recv around a ring: the size's modelled time */
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    mgpu_stream_model_time(s, &t1);
    mgpu_group_start();
    mgpu_send(c, shard, 0, 256u << 20, MGPU_BF16, next, s);
    mgpu_recv(c, shard, 0, 256u << 20, MGPU_BF16, prev, s);
    if (mgpu_group_end() != MGPU_OK) {
        fprintf(stderr, "rank %d: phantom send/recv: %s\n", rank, mgpu_error_message());
        fails++;
    }
    mgpu_stream_model_time(s, &t2);
    if (!(t2 - t1 > 1e5)) {
        fprintf(stderr, "rank %d: phantom send/recv took %.0f ns\n", rank, t2 - t1);
        fails++;
    }
    /* reading phantom values into a real buffer: refused on this rank */
    if (mgpu_all_reduce(c, grad, 0, real, 0, 16, MGPU_BF16, MGPU_SUM, s) != MGPU_ERR_INVALID ||
        !strstr(mgpu_error_message(), "phantom")) {
        fprintf(stderr, "rank %d: phantom into real was not refused\n", rank);
        fails++;
    }
    /* ranks disagreeing: rank 0 phantom, the others real -> all fail, none hangs */
    mgpu_buffer *mine = rank == 0 ? shard : real;
    mgpu_result r = mgpu_all_reduce(c, mine, 0, mine, 0, 16, MGPU_BF16, MGPU_SUM, s);
    if (r != MGPU_ERR_INVALID || !strstr(mgpu_error_message(), "phantom (shape-only) on every rank or on none")) {
        fprintf(stderr, "rank %d: a mixed phantom/real all_reduce gave %d: %s\n", rank, (int)r, mgpu_error_message());
        fails++;
    }
    mgpu_flight_entry e[16];
    int n = mgpu_comm_flight_entries(c, e, 16);
    if (n < 3 || e[0].op != MGPU_COLL_REDUCE_SCATTER || e[0].state != MGPU_FLIGHT_COMPLETED ||
        e[1].op != MGPU_COLL_ALL_GATHER || e[1].count != count / (size_t)size) {
        fprintf(stderr, "rank %d: flight recorder has %d entries, first op %d\n", rank, n, n ? (int)e[0].op : -1);
        fails++;
    }
    mgpu_memory_stats st;
    if (mgpu_memory_stats_get(be, rank, &st) != MGPU_OK || st.phantom_bytes.current < (int64_t)(count * 2)) fails++;
    mgpu_mem_free(grad);
    mgpu_mem_free(shard);
    mgpu_mem_free(real);
    mgpu_stream_destroy(s);
    mgpu_comm_destroy(c);
    mgpu_backend_close(be);
    return fails;
}

int main(void)
{
    int codes[COMM_FORK_MAX_RANKS];
    int bad = comm_fork_run(RANKS, 120.0, child, NULL, codes);
    CHECKF(bad == 0, "%d of %d ranks failed (rank 0 exit %d)", bad, RANKS, codes[0]);
    return tap_done();
}
