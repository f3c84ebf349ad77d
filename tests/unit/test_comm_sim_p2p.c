/* test_comm_sim_p2p.c - sim send/recv (ordered ring, a grouped cyclic
 * exchange too large for the mailboxes) and split into two groups. */
#include "comm_fork.c"
#include "comm_sim_child.h"
#include "tap.h"

static int p2p_child(int rank, int n, const mgpu_bootstrap *bs, void *arg)
{
    (void)arg;
    simc e;
    if (simc_open(&e, bs, "dgx-h100", 10.0)) return 1;
    size_t count = (size_t)1 << 20; /* 4 MiB: many chunks, more than a mailbox holds */
    mgpu_buffer *sb = NULL, *rb = NULL;
    if (mgpu_mem_alloc(e.be, MGPU_MEM_DEVICE, e.c.device, count * 4, &sb) != MGPU_OK ||
        mgpu_mem_alloc(e.be, MGPU_MEM_DEVICE, e.c.device, count * 4, &rb) != MGPU_OK)
        return 2;
    int fails = 0, next = (rank + 1) % n, prev = (rank + n - 1) % n;
    int32_t *s = sb->ptr, *r = rb->ptr;
    for (size_t i = 0; i < count; i++) s[i] = (int32_t)(rank * 1000003 + i);
    /* Ordered: even ranks send first, odd ones receive first. */
    mgpu_coll_args snd = {MGPU_COLL_SEND, sb, 0, NULL, 0, count, MGPU_I32, MGPU_SUM, next};
    mgpu_coll_args rcv = {MGPU_COLL_RECV, NULL, 0, rb, 0, count, MGPU_I32, MGPU_SUM, prev};
    for (int k = 0; k < 2; k++) {
        const mgpu_coll_args *a = (rank % 2 == 0) == (k == 0) ? &snd : &rcv;
        if (n > 1 && mgpu_comm_sim_ops.collective(&e.c, a, NULL) != MGPU_OK) {
            fprintf(stderr, "rank %d: %s\n", rank, mgpu_error_message());
            fails++;
        }
    }
    for (size_t i = 0; n > 1 && i < count; i++)
        if (r[i] != (int32_t)(prev * 1000003 + i)) {
            fprintf(stderr, "rank %d: ordered ring element %zu wrong\n", rank, i);
            fails++;
            break;
        }
    /* Grouped: everyone sends first (would deadlock without the group). */
    memset(r, 0, count * 4);
    mgpu_comm_sim_ops.group_start();
    mgpu_comm_sim_ops.collective(&e.c, &snd, NULL);
    mgpu_comm_sim_ops.collective(&e.c, &rcv, NULL);
    if (mgpu_comm_sim_ops.group_end() != MGPU_OK) {
        fprintf(stderr, "rank %d: group: %s\n", rank, mgpu_error_message());
        fails++;
    }
    for (size_t i = 0; i < count; i++)
        if (r[i] != (int32_t)(prev * 1000003 + i)) {
            fprintf(stderr, "rank %d: grouped ring element %zu wrong\n", rank, i);
            fails++;
            break;
        }
    double t = 0;
    mgpu_stream_model_time(e.s, &t);
    if (!(t > 0)) fails++;

    /* Split: two colours by parity, keys reversing the order; rank 4 of 5 opts out. */
    int color = (n == 5 && rank == 4) ? MGPU_SPLIT_NOCOLOR : rank % 2;
    mgpu_comm child;
    memset(&child, 0, sizeof child);
    child.ops = &mgpu_comm_sim_ops;
    child.be = e.be;
    child.device = e.c.device;
    child.cfg = e.c.cfg;
    child.stream = e.s;
    snprintf(child.name, sizeof child.name, "half%d", color);
    int member = -1;
    if (mgpu_comm_sim_ops.split(&e.c, color, -rank, &child, &member) != MGPU_OK) {
        fprintf(stderr, "rank %d: split: %s\n", rank, mgpu_error_message());
        return 10;
    }
    if (color < 0) {
        if (member != 0) fails++;
    } else {
        int members = 0, higher = 0;
        for (int q = 0; q < n; q++)
            if (q % 2 == rank % 2 && !(n == 5 && q == 4)) {
                members++;
                if (q > rank) higher++;
            }
        if (member != 1 || child.size != members || child.rank != higher) {
            fprintf(stderr, "rank %d: split gave rank %d of %d, expected %d of %d\n", rank, child.rank, child.size,
                    higher, members);
            fails++;
        }
        for (size_t i = 0; i < 1001; i++) s[i] = rank + 1;
        mgpu_coll_args ar = {MGPU_COLL_ALL_REDUCE, sb, 0, rb, 0, 1001, MGPU_I32, MGPU_SUM, -1};
        if (mgpu_comm_sim_ops.collective(&child, &ar, NULL) != MGPU_OK) {
            fprintf(stderr, "rank %d: all_reduce on the split: %s\n", rank, mgpu_error_message());
            fails++;
        }
        int want = 0;
        for (int q = 0; q < n; q++)
            if (q % 2 == rank % 2 && !(n == 5 && q == 4)) want += q + 1;
        if (r[0] != want || r[1000] != want) {
            fprintf(stderr, "rank %d: split all_reduce gave %d, expected %d\n", rank, r[0], want);
            fails++;
        }
        mgpu_comm_sim_ops.destroy(&child);
    }
    mgpu_mem_free(sb);
    mgpu_mem_free(rb);
    simc_close(&e);
    return fails;
}

int main(void)
{
    static const int sizes[] = {2, 4, 5};
    for (int i = 0; i < 3; i++) {
        int codes[COMM_FORK_MAX_RANKS];
        int bad = comm_fork_run(sizes[i], 60.0, p2p_child, NULL, codes);
        CHECKF(bad == 0, "%d ranks: %d children failed (rank 0 exit %d)", sizes[i], bad, codes[0]);
    }
    return tap_done();
}
