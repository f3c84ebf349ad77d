/* collbench.h - the collective benchmark (`mgpulab bench COLL`) with
 * nccl-tests' semantics, flags and output.
 *
 * One small descriptor per collective (engine/bench/coll_<name>.c, as
 * nccl-tests' src/<name>.cu): the element counts for a size, the bus-
 * bandwidth factor, the exact expected output and the call. One shared core
 * (coll_bench.c) walks the sizes, times the iterations with events on the
 * communicator's stream and checks every element against the exact
 * expected result; coll_options.c sets and checks the flags' values and
 * formats nccl-tests' rows. The worker job (coll_job.c) runs the sweep on
 * every rank; the coordinator prints. The job's params, rows and result
 * document are engine/jobs/coll_doc.c's (mgpu/coll_doc.h).
 *
 * Data: rank r's input element i is a(i) + c(r) (small integers, so every
 * partial sum of every reduction order is exact in every dtype; a(i) repeats
 * with a prime period, so it is a table lookup - the sim checks 8 ranks x
 * 256 MiB on two cores - while any misplacement by a power-of-two offset,
 * the shape of a chunking bug, still lands on a different value), or for
 * prod s(i)*t(r)*(2 if r == i mod n else 1) (products stay +-1, +-2). So the
 * exact reduction of element i over all ranks is O(1) to compute from
 * per-rank totals, and a rank checks its own output alone. */
#ifndef MGPU_COLLBENCH_H
#define MGPU_COLLBENCH_H
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "mgpu/comm.h"
#include "mgpu/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

/*--- Per-collective descriptors -----------------------------------------*/

/* Element counts for one size, as nccl-tests' *GetCollByteCount: what the
 * send and receive buffers hold, the count passed to the call, and where an
 * in-place call's input/output starts (times the rank). */
typedef struct mgpu_cb_counts {
    size_t send, recv, param;
    size_t send_inplace_off, recv_inplace_off;
} mgpu_cb_counts;

/* a(i)'s period in elements: a prime, so no power-of-two shift maps an
 * element onto one with the same a (16 KiB of table: stays in L1/L2). */
#define MGPU_CB_PERIOD 4093

/* What every rank's input is made of (see the data note above). */
typedef struct mgpu_cb_data {
    mgpu_dtype dtype;
    int op;                    /* mgpu_redop, or -1 for collectives that do not reduce */
    int nranks, root;
    uint64_t seed;
    int64_t arange, crange;    /* a(i) in [-arange, arange], c(r) in [-crange, crange] */
    int64_t csum, cmin, cmax;  /* over ranks of c(r) */
    int csign;                 /* prod: product over ranks of t(r) */
    int32_t atab[MGPU_CB_PERIOD]; /* a(i) = atab[i mod period] */
} mgpu_cb_data;

typedef struct mgpu_collbench_coll {
    const char *name;          /* "all_reduce" (nccl-tests' binary is all_reduce_perf) */
    mgpu_coll coll;            /* also its busbw factor: mgpu_coll_busbw_factor (collmodel.h), the model's */
    int reduces;               /* takes -o; other collectives print redop "none" */
    int rooted;                /* takes -r and prints it; others print root -1 */
    int inplace_checked;       /* 0: nccl-tests does not check in-place sendrecv (N/A) */
    int periodic;              /* a rank's expected values repeat with MGPU_CB_PERIOD (not for prod) */
    void (*counts)(size_t count, int nranks, mgpu_cb_counts *out);
    /* Expected values of recv elements [first, first+n) on `rank` into out.
     * Returns 0 when this rank's output is undefined (reduce off the root). */
    int (*expected)(const mgpu_cb_data *d, int rank, const mgpu_cb_counts *k, size_t first, size_t n,
                    double *out);
    mgpu_result (*run)(mgpu_comm *c, const mgpu_buffer *send, size_t send_off, mgpu_buffer *recv,
                       size_t recv_off, size_t param, mgpu_dtype t, mgpu_redop op, int root, mgpu_stream *s);
} mgpu_collbench_coll;

extern const mgpu_collbench_coll mgpu_cb_all_reduce, mgpu_cb_all_gather, mgpu_cb_reduce_scatter,
    mgpu_cb_broadcast, mgpu_cb_reduce, mgpu_cb_alltoall, mgpu_cb_sendrecv;

/* "all_reduce", nccl-tests' "all_reduce_perf", "allreduce"; NULL if none. */
const mgpu_collbench_coll *mgpu_collbench_find(const char *name);
/* What is checked. nccl-tests checks every element, and so does the bench
 * on a GPU. On the sim every rank's buffers are host memory that the kernel
 * must first fault in and zero, and the host's few cores check every rank:
 * there a per-peer block (the call's count; a buffer holds one or n of
 * them) up to MGPU_CB_FULL_CHECK_BYTES is written and checked whole, and a
 * larger one in MGPU_CB_SAMPLE_BLOCKS evenly spaced spans of
 * MGPU_CB_SAMPLE_BYTES, the first and the last included. The collective
 * still moves every byte; the input is written only where it is checked
 * (elsewhere the send buffer reads as zeros), the sentinel goes only there,
 * and #wrong counts exactly the wrong elements among those checked. */
#define MGPU_CB_FULL_CHECK_BYTES ((size_t)16 << 20)
#define MGPU_CB_SAMPLE_BLOCKS 8
#define MGPU_CB_SAMPLE_BYTES ((size_t)2 << 20)
/* One comment line for the output (no newline) saying what was checked:
 * sampled = the sim's rule above, else every element. */
const char *mgpu_collbench_check_note(int sampled);

/* NULL-terminated list, in nccl-tests' order. */
const mgpu_collbench_coll *const *mgpu_collbench_colls(void);
/* Their names for a message: "all_reduce, all_gather, ... or sendrecv". */
const char *mgpu_collbench_names(char *buf, size_t len);

/*--- Data ----------------------------------------------------------------*/

/* Set up d for dtype/op/nranks/root/seed (op = -1 when the collective does
 * not reduce): ranges that keep every partial result exact, and the per-rank
 * totals. */
void mgpu_cb_data_init(mgpu_cb_data *d, mgpu_dtype t, int op, int nranks, int root, uint64_t seed);

static inline uint64_t mgpu_cb_hash(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}
/* A value in [-range, range] from a hash (multiply-shift, no division). */
static inline int64_t mgpu_cb_pick(uint64_t h, int64_t range)
{
    return (int64_t)(((h >> 32) * (uint64_t)(2 * range + 1)) >> 32) - range;
}
static inline int64_t mgpu_cb_a(const mgpu_cb_data *d, uint64_t i)
{
    return d->atab[i % MGPU_CB_PERIOD];
}
static inline int64_t mgpu_cb_c(const mgpu_cb_data *d, int rank)
{
    return mgpu_cb_pick(mgpu_cb_hash(((uint64_t)rank + 1) * 0xC2B2AE3D27D4EB4Full ^ ~d->seed), d->crange);
}
static inline int mgpu_cb_sign(uint64_t h) { return (h >> 40) & 1 ? -1 : 1; }

/* Rank `rank`'s input element i. */
static inline double mgpu_cb_input(const mgpu_cb_data *d, int rank, uint64_t i)
{
    if (d->op == MGPU_PROD) {
        int s = mgpu_cb_sign(mgpu_cb_hash(i * 0x9E3779B97F4A7C15ull + d->seed)) *
                mgpu_cb_sign(mgpu_cb_hash(((uint64_t)rank + 7) * 0xC2B2AE3D27D4EB4Full ^ d->seed));
        return (uint64_t)rank == i % (uint64_t)d->nranks ? 2.0 * s : (double)s;
    }
    return (double)(mgpu_cb_a(d, i) + mgpu_cb_c(d, rank));
}

/* The exact reduction of element i over all ranks (d->op must reduce). */
double mgpu_cb_reduced(const mgpu_cb_data *d, uint64_t i);
/* The same over spans [first, first+n): rank `rank`'s inputs, the exact
 * reductions, and rank `rank`'s inputs stored in d->dtype into out. */
void mgpu_cb_input_span(const mgpu_cb_data *d, int rank, uint64_t first, size_t n, double *out);
void mgpu_cb_reduced_span(const mgpu_cb_data *d, uint64_t first, size_t n, double *out);
void mgpu_cb_input_store(const mgpu_cb_data *d, int rank, uint64_t first, size_t n, void *out);

/*--- Options (nccl-tests' flags) ----------------------------------------*/

typedef struct mgpu_collbench_options {
    uint64_t min_bytes, max_bytes, step_bytes; /* -b -e -i */
    uint64_t step_factor;                      /* -f; 1 = add step_bytes */
    int iters, warmup;                         /* -n -w */
    int check;                                 /* -c */
    int root;                                  /* -r */
    int blocking;                              /* -z */
    int average;                               /* -a: 0 rank 0, 1 mean, 2 min, 3 max over ranks */
    int ndtypes;                               /* -d (all = every type) */
    mgpu_dtype dtypes[MGPU_DTYPE_COUNT];
    int nops;                                  /* -o (all = every op) */
    mgpu_redop ops[MGPU_REDOP_COUNT];
    int set_iters, set_warmup;                 /* given on the command line */
    int json, predict;                         /* presentation: --json, --predict */
    int tamper_rank;                           /* test hook: this rank damages one output element
                                                  before each check (-1 = off; MGPU_BENCH_TAMPER) */
} mgpu_collbench_options;

/* Set one of nccl-tests' flags that take a value ('b', 'e', 'i', 'f', 'n',
 * 'w', 'c', 'o', 'd', 'r', 'z', 'a', 'G', 't', 'g', 'm') from its text, as
 * written after -X; fails with a message naming the flag as `as` says
 * (NULL: nccl-tests' "-X"; lab.bench's "opts.b") and saying what is
 * allowed. `mgpulab bench`'s option table (cli/cmd_bench.c) and lab.bench's
 * opts (engine/lab/lab_jobs.c) both set their values with it. */
mgpu_result mgpu_collbench_set(mgpu_collbench_options *o, char flag, const char *value, const char *as);

/* nccl-tests' defaults: -b 8 -e 32M -f 1 -i 1M -n 20 -w 5 -c 1 -o sum
 * -d float -r 0 -z 0 -a 1. */
void mgpu_collbench_options_default(mgpu_collbench_options *o);
/* The collective named `name` (as mgpu_collbench_find), or MGPU_ERR_INVALID
 * with "'NAME' is not a collective; use all_reduce, ...". */
mgpu_result mgpu_collbench_lookup(const char *name, const mgpu_collbench_coll **coll);
/* Ranges and consistency (-b <= -e, a sweep of at most 100000 sizes, ...):
 * the one check of a run's options, on the coordinator before it sends them
 * and on the worker that reads them (mgpu/coll_doc.h). */
mgpu_result mgpu_collbench_options_check(const mgpu_collbench_options *o, const mgpu_collbench_coll *coll);
/* nccl-tests' type names: "float", "half", "bfloat16", "int32". */
const char *mgpu_collbench_type_name(mgpu_dtype t);
/* Next size of the sweep after `size`, as nccl-tests steps. */
uint64_t mgpu_collbench_next_size(const mgpu_collbench_options *o, uint64_t size);

/*--- Rows -----------------------------------------------------------------*/

typedef struct mgpu_collbench_half {
    double time_us, algbw, busbw; /* GB/s = 1e9 bytes/s */
    int64_t wrong;                /* elements differing from the exact result; -1 = not checked (N/A) */
} mgpu_collbench_half;

typedef struct mgpu_collbench_row {
    uint64_t bytes;               /* max(send, recv) bytes, as nccl-tests prints */
    uint64_t count;               /* the count passed to the call */
    mgpu_dtype dtype;
    int op;                       /* mgpu_redop or -1 ("none") */
    int root;                     /* -1 for collectives without one */
    mgpu_collbench_half oop, ip;  /* out-of-place, in-place */
} mgpu_collbench_row;

/* algbw = bytes / time, busbw = algbw * factor; 0 when time is 0. */
void mgpu_collbench_bw(uint64_t bytes, double time_us, double factor, double *algbw, double *busbw);

/* nccl-tests' text: the column header (3 lines), one row, the footer. */
void mgpu_collbench_format_header(char *buf, size_t len);
void mgpu_collbench_format_row(const mgpu_collbench_row *r, char *buf, size_t len);
/* wrong_checks: halves whose check found wrong values (nccl-tests' "Out of
 * bounds values"); avg_busbw: the mean busbw over every half of every row. */
void mgpu_collbench_format_footer(int64_t wrong_checks, double avg_busbw, char *buf, size_t len);


/*--- The sweep (every rank) ----------------------------------------------*/

/* Called on every rank with each finished row; the times and #wrong are
 * already combined over ranks (-a for the time, the sum for #wrong), so
 * every rank holds the same row. An error stops the sweep. */
typedef mgpu_result (*mgpu_collbench_emit)(void *ctx, const mgpu_collbench_row *row);

/* Run the whole sweep (every -d type, every -o op, every size; out-of-place
 * then in-place) on this rank's device (of backend be) with communicator c, whose stream
 * carries the timing events: time = (end - start) / iters after the warm-up.
 * Collective: every rank of c calls it with the same options. */
mgpu_result mgpu_collbench_sweep(mgpu_backend *be, mgpu_comm *c, const mgpu_collbench_coll *coll,
                                 const mgpu_collbench_options *o, mgpu_collbench_emit emit, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
