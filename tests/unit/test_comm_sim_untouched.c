/* test_comm_sim_untouched.c - the sim's data movement neither reads nor
 * writes the pages of a rank's buffers that were never touched, where they
 * hold zeros and would receive zeros (a large benchmark whose check samples
 * its output: issue 9 part 7), and still delivers every byte: 4 ranks,
 * 16 MiB fresh buffers, input written in one place only. Residency is read
 * with mincore before any check reads the buffers. */
#include <sys/mman.h>
#include <unistd.h>
#include "comm_fork.c"
#include "comm_sim_child.h"
#include "tap.h"

#define NRANKS 4
#define BYTES ((size_t)16 << 20)
#define HEAD ((size_t)2 << 20) /* input written here, and at the end for the second call */

static float in(int rank, size_t i) { return (float)((i * 7 + (size_t)rank * 3) % 11); }

/* Resident pages of [p + from, p + to): -1 when mincore fails. */
static long resident(const void *p, size_t from, size_t to)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), first = from / page * page;
    size_t n = (to - first + page - 1) / page;
    unsigned char *vec = malloc(n);
    if (!vec || mincore((char *)p + first, to - first, vec) != 0) {
        free(vec);
        return -1;
    }
    long r = 0;
    for (size_t i = 0; i < n; i++) r += vec[i] & 1;
    free(vec);
    return r;
}

static int bad_sum(const float *r, size_t first, size_t n, int size, const char *what, int rank)
{
    for (size_t i = first; i < first + n; i++) {
        float want = 0;
        for (int q = 0; q < size; q++) want += in(q, i);
        if (r[i] != want) {
            fprintf(stderr, "rank %d: %s: element %zu is %g, expected %g\n", rank, what, i, r[i], want);
            return 1;
        }
    }
    return 0;
}

static int bad_zero(const float *r, size_t first, size_t n, const char *what, int rank)
{
    for (size_t i = first; i < first + n; i++)
        if (r[i] != 0) {
            fprintf(stderr, "rank %d: %s: element %zu is %g, expected 0\n", rank, what, i, r[i]);
            return 1;
        }
    return 0;
}

static int child(int rank, int size, const mgpu_bootstrap *bs, void *arg)
{
    (void)arg;
    simc e;
    if (simc_open(&e, bs, "dgx-h100", 60.0)) return 1;
    mgpu_buffer *sb = NULL, *rb = NULL;
    if (mgpu_mem_alloc(e.be, MGPU_MEM_DEVICE, e.c.device, BYTES, &sb) != MGPU_OK ||
        mgpu_mem_alloc(e.be, MGPU_MEM_DEVICE, e.c.device, BYTES, &rb) != MGPU_OK) {
        fprintf(stderr, "rank %d: alloc: %s\n", rank, mgpu_error_message());
        return 2;
    }
    float *s = sb->ptr, *r = rb->ptr;
    size_t count = BYTES / 4, head = HEAD / 4;
    for (size_t i = 0; i < head; i++) s[i] = in(rank, i);
    int fails = 0;
    fails += simc_coll(&e.c, MGPU_COLL_ALL_REDUCE, sb, 0, rb, 0, count, MGPU_F32, MGPU_SUM, -1) != MGPU_OK;
    /* Nothing past the input was read (send) or written (receive). */
    long rs = resident(s, 2 * HEAD, BYTES), rr = resident(r, 2 * HEAD, BYTES);
    if (rs != 0 || rr != 0) {
        fprintf(stderr, "rank %d: %ld send and %ld receive pages past the input are resident, expected none\n", rank,
                rs, rr);
        fails++;
    }
    fails += bad_sum(r, 0, head, size, "the written part", rank);
    fails += bad_zero(r, head, count - head, "the untouched part", rank);

    /* Input at the end too: pages of the output never touched get it. */
    for (size_t i = count - head; i < count; i++) s[i] = in(rank, i);
    fails += simc_coll(&e.c, MGPU_COLL_ALL_REDUCE, sb, 0, rb, 0, count, MGPU_F32, MGPU_SUM, -1) != MGPU_OK;
    fails += bad_sum(r, 0, head, size, "the head, again", rank);
    fails += bad_sum(r, count - head, head, size, "the tail", rank);
    fails += bad_zero(r, head, count - 2 * head, "the middle", rank);

    /* In place over untouched memory: zeros stay zeros, input is reduced. */
    mgpu_buffer *ib = NULL;
    if (mgpu_mem_alloc(e.be, MGPU_MEM_DEVICE, e.c.device, BYTES, &ib) != MGPU_OK) return 3;
    float *p = ib->ptr;
    for (size_t i = 0; i < head; i++) p[i] = in(rank, i);
    fails += simc_coll(&e.c, MGPU_COLL_ALL_REDUCE, ib, 0, ib, 0, count, MGPU_F32, MGPU_SUM, -1) != MGPU_OK;
    long ri = resident(p, 2 * HEAD, BYTES);
    if (ri != 0) {
        fprintf(stderr, "rank %d: in place, %ld pages past the input are resident, expected none\n", rank, ri);
        fails++;
    }
    fails += bad_sum(p, 0, head, size, "in place", rank);

    /* all_gather: each rank's block lands whole, untouched blocks stay so. */
    mgpu_buffer *gb = NULL;
    if (mgpu_mem_alloc(e.be, MGPU_MEM_DEVICE, e.c.device, BYTES * NRANKS, &gb) != MGPU_OK) return 4;
    fails += simc_coll(&e.c, MGPU_COLL_ALL_GATHER, sb, 0, gb, 0, count, MGPU_F32, MGPU_SUM, -1) != MGPU_OK;
    const float *g = gb->ptr;
    for (int q = 0; q < size && fails == 0; q++) {
        const float *blk = g + (size_t)q * count;
        for (size_t i = 0; i < count && fails == 0; i++) {
            float want = i < head || i >= count - head ? in(q, i) : 0;
            if (blk[i] != want) {
                fprintf(stderr, "rank %d: all_gather block %d element %zu is %g, expected %g\n", rank, q, i, blk[i],
                        want);
                fails++;
            }
        }
    }
    mgpu_mem_free(gb);
    mgpu_mem_free(ib);
    mgpu_mem_free(rb);
    mgpu_mem_free(sb);
    simc_close(&e);
    return fails > 100 ? 100 : fails;
}

int main(void)
{
    int codes[COMM_FORK_MAX_RANKS];
    int bad = comm_fork_run(NRANKS, 280.0, child, NULL, codes);
    CHECKF(bad == 0, "%d children failed (rank 0 exit %d)", bad, codes[0]);
    return tap_done();
}
