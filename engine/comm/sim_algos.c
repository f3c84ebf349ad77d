/* sim_algos.c - the sim collectives' data movement over the segment's
 * staging slots. The model (collmodel.h) times NCCL's algorithm (ring,
 * tree, chains, pairwise); the data takes the cheapest correct path on the
 * host: every rank copies its input once into its own slot, one barrier,
 * then each rank reads what it needs straight from the others' slots
 * (docs/sim-collectives.md, "Data movement"). A ring would make 2(n-1)
 * lock-step hand-offs of 8 processes on a few cores; this makes one or two
 * barriers per round of up to coll_bytes per rank. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "sim_algos.h"

/* Reductions run over blocks this size, so the partial stays in L1/L2
 * while the n slots stream past it. */
#define REDUCE_BLOCK (16u << 10)
/* Up to this many bytes an all_reduce/reduce is reduced whole by every rank
 * that needs it (no second barrier): cheaper than a barrier on few cores. */
#define SMALL_REDUCE (32u << 10)

/* Segment j of count elements split over n: the first count % n get one more. */
static void seg_of(size_t count, int n, int j, size_t *off, size_t *len)
{
    size_t b = count / (size_t)n, r = count % (size_t)n, uj = (size_t)j;
    *off = uj * b + (uj < r ? uj : r);
    *len = b + (uj < r ? 1 : 0);
}

static void copy_if(void *dst, const void *src, size_t bytes)
{
    if (dst != src && bytes) memmove(dst, src, bytes);
}

/* Copies from this size on probe which pages of the process's buffer were
 * never touched (one mincore call per PROBE_PAGES pages). */
#define SPARSE_MIN ((size_t)64 << 10)
#define PROBE_PAGES 4096

static int all_zero(const unsigned char *p, size_t n) { return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0); }

/* Which pages of mem[off, off + *chunk) are resident (vec[i] & 1), for a
 * chunk of at most PROBE_PAGES pages from page-aligned mem + off; a probe
 * that fails says resident (then the page is simply read or written). */
static void probe(const unsigned char *mem, size_t off, size_t len, size_t page, size_t *chunk, unsigned char *vec)
{
    *chunk = len - off < PROBE_PAGES * page ? len - off : PROBE_PAGES * page;
    if (mincore((void *)(mem + off), *chunk, vec) != 0) memset(vec, 1, (*chunk + page - 1) / page);
}

/* A page never touched reads as zeros, but on this kernel with huge pages
 * a read faults in and clears 2 MiB, as a write does. A large benchmark
 * whose check samples its output gives input only to those spans, so the
 * rest of its buffers is never touched: the data movement below reads no
 * such page (it takes its zeros as such) and writes none with zeros (they
 * are there), so a first run does not have the kernel clear gigabytes it
 * never looks at (issue 9 part 7). Every byte is still computed and
 * compared; a page that already holds the bytes is not rewritten either,
 * so a repeated out-of-place call does not rewrite its output. */

/* slot[0, len) = src[0, len), src being a process's buffer. */
static void load_in(unsigned char *slot, const unsigned char *src, size_t len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), head = (page - (uintptr_t)src % page) % page;
    if (len < SPARSE_MIN || head >= len) {
        memcpy(slot, src, len);
        return;
    }
    memcpy(slot, src, head);
    unsigned char vec[PROBE_PAGES];
    for (size_t off = head, chunk; off < len; off += chunk) {
        probe(src, off, len, page, &chunk, vec);
        for (size_t o = 0; o < chunk; o += page) {
            size_t n = chunk - o < page ? chunk - o : page;
            if (vec[o / page] & 1) memcpy(slot + off + o, src + off + o, n);
            else memset(slot + off + o, 0, n);
        }
    }
}

/* dst[0, len) = src[0, len), dst being a process's buffer. */
static void store_out(unsigned char *dst, const unsigned char *src, size_t len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), head = (page - (uintptr_t)dst % page) % page;
    if (dst == src || len < SPARSE_MIN || head >= len) {
        copy_if(dst, src, len);
        return;
    }
    copy_if(dst, src, head);
    unsigned char vec[PROBE_PAGES];
    for (size_t off = head, chunk; off < len; off += chunk) {
        probe(dst, off, len, page, &chunk, vec);
        size_t run = 0; /* pages to store, one memmove each run */
        for (size_t o = 0; o < chunk; o += page) {
            size_t n = chunk - o < page ? chunk - o : page;
            const unsigned char *from = src + off + o;
            if ((vec[o / page] & 1) ? memcmp(dst + off + o, from, n) == 0 : all_zero(from, n)) {
                copy_if(dst + off + o - run, from - run, run);
                run = 0;
            } else {
                run += n;
            }
        }
        copy_if(dst + off + chunk - run, src + off + chunk - run, run);
    }
}

/* dst[0..cnt) = slot_0 op slot_1 op ... op slot_{n-1}, at byte `off` of the
 * current slots, folded in rank order (so every rank that computes an
 * element gets the same bits; f16/bf16 round after each step, as NCCL). */
static void reduce_slots(sim_seg *s, int n, size_t off, size_t cnt, mgpu_dtype t, mgpu_redop op, unsigned char *dst)
{
    size_t es = mgpu_dtype_size(t), blk = REDUCE_BLOCK / es;
    if (n == 1) {
        copy_if(dst, sim_slot_cur(s, 0) + off, cnt * es);
        return;
    }
    for (size_t b = 0; b < cnt; b += blk) {
        size_t m = cnt - b < blk ? cnt - b : blk, o = off + b * es;
        unsigned char *d = dst + b * es;
        sim_reduce(d, sim_slot_cur(s, 0) + o, sim_slot_cur(s, 1) + o, m, t, op);
        for (int j = 2; j < n; j++) sim_reduce(d, d, sim_slot_cur(s, j) + o, m, t, op);
    }
}

/* The slot layout of one round, per op. Single-round calls may stage their
 * input before the arrival exchange (sim_algo_prestage), saving a barrier. */
typedef struct plan {
    size_t round;   /* bytes of each rank's input (or of each block) per round */
    size_t total;   /* bytes of each rank's input (or of each block) in all */
    int blocks;     /* n for reduce_scatter/alltoall (slot = n sub-blocks), else 1 */
} plan;

static plan plan_of(const sim_seg *s, const sim_call *c)
{
    size_t es = mgpu_dtype_size(c->dtype), cap = s->coll_bytes;
    plan p = {0, c->count * es, 1};
    if (c->op == MGPU_COLL_REDUCE_SCATTER || c->op == MGPU_COLL_ALLTOALL) {
        p.blocks = c->n;
        cap = s->coll_bytes / (size_t)c->n;
    }
    cap = cap / es * es;
    p.round = p.total < cap ? p.total : cap;
    return p;
}

/* Copy this rank's part of round [off, off+len) into its next slot. */
static void stage(sim_seg *s, const sim_call *c, const plan *p, size_t off, size_t len)
{
    unsigned char *slot = sim_slot_next(s, c->rank);
    if (p->blocks > 1) {
        for (int j = 0; j < p->blocks; j++) load_in(slot + (size_t)j * len, c->send + (size_t)j * p->total + off, len);
        return;
    }
    if (c->op == MGPU_COLL_BROADCAST && c->rank != c->root) return; /* only the root's input matters */
    load_in(slot, c->send + off, len);
}

int sim_algo_prestage(sim_seg *s, const sim_call *c)
{
    if (c->count == 0 || c->op == MGPU_COLL_BARRIER || c->op >= MGPU_COLL_SEND) return 0;
    plan p = plan_of(s, c);
    if (p.round != p.total) return 0;
    sim_seg_prepare(s, p.round * (size_t)p.blocks);
    stage(s, c, &p, 0, p.total);
    return 1;
}

/* all_reduce (to_all) and reduce (root only). */
static mgpu_result reduce_rounds(sim_ctx *x, const sim_call *c, const plan *p, int staged, int to_all)
{
    sim_seg *s = x->seg;
    int n = c->n, r = c->rank;
    size_t es = mgpu_dtype_size(c->dtype);
    int mine = to_all || r == c->root;
    for (size_t off = 0; off < p->total; off += p->round) {
        size_t len = p->total - off < p->round ? p->total - off : p->round, cnt = len / es;
        if (!staged) { /* else the arrival exchange was this round's barrier */
            stage(s, c, p, off, len);
            MGPU_CHECK(sim_barrier(x));
        }
        staged = 0;
        if (len <= SMALL_REDUCE) {
            /* Small: whoever needs the result folds all n slots itself. */
            if (mine) {
                reduce_slots(s, n, 0, cnt, c->dtype, c->redop, c->recv + off);
                if (c->redop == MGPU_AVG) sim_divide(c->recv + off, cnt, c->dtype, n);
            }
            continue;
        }
        /* Rank r folds slice r into the shared result; after the second
         * barrier everyone who needs it copies the whole round out. */
        size_t so, sl;
        seg_of(cnt, n, r, &so, &sl);
        unsigned char *res = sim_result(s);
        reduce_slots(s, n, so * es, sl, c->dtype, c->redop, res + so * es);
        if (c->redop == MGPU_AVG) sim_divide(res + so * es, sl, c->dtype, n);
        MGPU_CHECK(sim_barrier(x));
        if (mine) store_out(c->recv + off, res, len);
    }
    return MGPU_OK;
}

/* all_gather, broadcast, reduce_scatter, alltoall: one barrier per round. */
static mgpu_result copy_rounds(sim_ctx *x, const sim_call *c, const plan *p, int staged)
{
    sim_seg *s = x->seg;
    int n = c->n, r = c->rank;
    size_t es = mgpu_dtype_size(c->dtype);
    for (size_t off = 0; off < p->total; off += p->round) {
        size_t len = p->total - off < p->round ? p->total - off : p->round;
        if (!staged) { /* else the arrival exchange was this round's barrier */
            stage(s, c, p, off, len);
            MGPU_CHECK(sim_barrier(x));
        }
        staged = 0;
        switch (c->op) {
        case MGPU_COLL_ALL_GATHER:
            for (int j = 0; j < n; j++) store_out(c->recv + (size_t)j * p->total + off, sim_slot_cur(s, j), len);
            break;
        case MGPU_COLL_BROADCAST: store_out(c->recv + off, sim_slot_cur(s, c->root), len); break;
        case MGPU_COLL_REDUCE_SCATTER:
            reduce_slots(s, n, (size_t)r * len, len / es, c->dtype, c->redop, c->recv + off);
            if (c->redop == MGPU_AVG) sim_divide(c->recv + off, len / es, c->dtype, n);
            break;
        default: /* alltoall: block r of every rank's slot; in place is safe (our input is staged) */
            for (int j = 0; j < n; j++)
                store_out(c->recv + (size_t)j * p->total + off, sim_slot_cur(s, j) + (size_t)r * len, len);
            break;
        }
    }
    return MGPU_OK;
}

mgpu_result sim_algo_run(sim_ctx *x, const sim_call *c, int staged)
{
    if (c->count == 0) return MGPU_OK; /* every rank checked the same count at arrival */
    if (c->op == MGPU_COLL_BARRIER) return MGPU_OK; /* the arrival exchange is the barrier */
    plan p = plan_of(x->seg, c);
    sim_seg_prepare(x->seg, p.round * (size_t)p.blocks);
    switch (c->op) {
    case MGPU_COLL_ALL_REDUCE:
        if (c->n == 1) {
            store_out(c->recv, c->send, p.total);
            return MGPU_OK;
        }
        return reduce_rounds(x, c, &p, staged, 1);
    case MGPU_COLL_REDUCE: return reduce_rounds(x, c, &p, staged, 0);
    case MGPU_COLL_ALL_GATHER:
    case MGPU_COLL_BROADCAST:
    case MGPU_COLL_REDUCE_SCATTER:
    case MGPU_COLL_ALLTOALL: return copy_rounds(x, c, &p, staged);
    default: return mgpu_fail(MGPU_ERR_INTERNAL, "%s: not a collective the sim algorithms run", x->what);
    }
}
