/* copybench.h - the copy benchmark with nvbandwidth's method and names.
 *
 * A testcase is a small descriptor (copybench cases table, copy_cases.c):
 * which pattern of buffers, CE or SM, which GPU issues the copy, how many
 * GPUs it needs. One shared core (copy_bench.c) turns a descriptor into
 * "dispatches" - sets of copies that run at the same time, each on its own
 * stream, each held by a stream gate while its copies are queued, timed with
 * events - and returns matrices in GB/s (1e9 B/s) or ns, as nvbandwidth
 * prints them. The results are plain data so a rank worker can run the
 * benchmark and the coordinator print it. */
#ifndef MGPU_COPYBENCH_H
#define MGPU_COPYBENCH_H
#include <stddef.h>
#include <stdint.h>
#include "mgpu/dev.h"

#ifdef __cplusplus
extern "C" {
#endif

/*--- Testcase descriptors ---------------------------------------------*/

typedef enum mgpu_copy_pattern {
    MGPU_PAT_HOST_DEVICE = 0,  /* host <-> each GPU alone: 1 x n */
    MGPU_PAT_HOST_DEVICE_BIDIR,/* measured direction plus the opposite one at once: 1 x n */
    MGPU_PAT_ALL_HOST,         /* each GPU measured while all others copy the same way */
    MGPU_PAT_ALL_HOST_BIDIR,   /* ... while all GPUs also copy the opposite way */
    MGPU_PAT_D2D,              /* each ordered peer pair alone: n x n */
    MGPU_PAT_D2D_BIDIR,        /* each peer pair in both directions at once: 3 matrices */
    MGPU_PAT_ALL_TO_ONE,       /* all peers to/from one GPU, total bandwidth: 1 x n */
    MGPU_PAT_ONE_TO_ALL,       /* one GPU to/from all peers, total bandwidth: 1 x n */
    MGPU_PAT_LOCAL,            /* device buffer to device buffer on one GPU: 1 x n */
    MGPU_PAT_LATENCY_HOST,     /* pointer chase through pinned host memory: 1 x n, ns */
    MGPU_PAT_LATENCY_D2D       /* pointer chase through a peer's memory: n x n, ns */
} mgpu_copy_pattern;

/* Which GPU's stream runs a device-to-device copy: the one that receives the
 * data (reads remote memory) or the one that sends it (writes remote memory). */
typedef enum mgpu_copy_issuer { MGPU_ISSUE_READER = 0, MGPU_ISSUE_WRITER } mgpu_copy_issuer;

typedef struct mgpu_copy_case {
    const char *name;          /* nvbandwidth's key, e.g. "host_to_device_memcpy_ce" */
    const char *desc;          /* one or two lines for --list */
    const char *title;         /* matrix title, e.g. "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)" */
    mgpu_copy_pattern pattern;
    mgpu_copy_engine engine;   /* CE or SM */
    int to_device;             /* host patterns: 1 = the measured copy goes host -> GPU;
                                  all_to_one / one_to_all: 1 = data flows into the "one" GPU */
    mgpu_copy_issuer issuer;   /* device-to-device patterns */
    int min_gpus;              /* fewer GPUs: waived */
    int needs_peer;            /* needs at least one pair with peer access, else waived */
} mgpu_copy_case;

/* The table, in nvbandwidth's order. */
const mgpu_copy_case *mgpu_copy_cases(int *count);
/* Exact name, or an index ("0", "12") as nvbandwidth accepts; NULL if none. */
const mgpu_copy_case *mgpu_copy_case_find(const char *name_or_index);
/* Append (without duplicates, in table order) every testcase whose name
 * starts with `prefix` (an exact name or index selects just that one) to
 * sel[] (capacity cap, *n updated). Fails with MGPU_ERR_INVALID naming the
 * prefix when nothing matches. */
mgpu_result mgpu_copy_case_select(const char *prefix, const mgpu_copy_case **sel, int cap, int *n);

/*--- Options ----------------------------------------------------------*/

/* nvbandwidth's defaults: --bufferSize 512 MiB, --loopCount 16, --testSamples 3, median. */
#define MGPU_COPY_DEFAULT_BUFFER (512ull << 20)
#define MGPU_COPY_DEFAULT_LOOPS 16
#define MGPU_COPY_DEFAULT_SAMPLES 3
/* Latency testcases chase pointers through a fixed 2 MiB ring, 1M loads. */
#define MGPU_COPY_LATENCY_BYTES (2u << 20)
#define MGPU_COPY_LATENCY_ACCESSES 1000000u
/* Copies run before the start event inside the gate, as nvbandwidth warms up. */
#define MGPU_COPY_WARMUP 4

/* Test hook: called after each sample's copies finished and before the
 * destination is verified; a test uses it to damage a destination and see
 * verification fail. Returns MGPU_OK to go on. */
typedef mgpu_result (*mgpu_copy_tamper_fn)(void *ctx, mgpu_stream *s, mgpu_buffer *dst, size_t bytes);

typedef struct mgpu_copy_options {
    uint64_t buffer_bytes;     /* per copy; a multiple of 16 */
    uint64_t loop_count;       /* copies per sample between the events */
    unsigned samples;          /* timed samples; median (or mean) reported */
    int use_mean;
    int skip_verify;           /* nvbandwidth's --skipVerification */
    double gate_timeout_ms;    /* 0 = default (60 s): a lost gate never hangs the GPU */
    mgpu_copy_tamper_fn tamper;
    void *tamper_ctx;
} mgpu_copy_options;

void mgpu_copy_options_default(mgpu_copy_options *o);
/* Check ranges (buffer 16 B .. 2^40, multiple of 16; loops 1..1e6; samples 1..1000). */
mgpu_result mgpu_copy_options_check(const mgpu_copy_options *o);

/*--- Results ----------------------------------------------------------*/

#define MGPU_COPY_MAX_MATRICES 3
#define MGPU_COPY_MAX_NOTES 16

typedef struct mgpu_copy_matrix {
    char key[96];              /* for the SUM line: name, or name_read1 / _read2 / _total */
    char title[128];
    int rows, cols;
    double *value;             /* rows*cols, row-major */
    unsigned char *have;       /* 1 = measured, 0 = N/A */
    double sum;                /* sum of the measured cells (nvbandwidth's SUM) */
} mgpu_copy_matrix;

typedef enum mgpu_copy_status { MGPU_COPY_PASSED = 0, MGPU_COPY_WAIVED, MGPU_COPY_ERROR } mgpu_copy_status;

typedef struct mgpu_copy_result {
    const mgpu_copy_case *tc;
    mgpu_copy_status status;
    char reason[512];          /* waived: why; error: the engine's message */
    mgpu_result code;          /* error: its code (e.g. MGPU_ERR_DEVICE_OOM) */
    const char *unit;          /* "GB/s" or "ns" */
    uint64_t bytes;            /* bytes per copy actually used */
    int nmat;
    mgpu_copy_matrix mat[MGPU_COPY_MAX_MATRICES];
    int nnotes;                /* why cells are N/A, one line each */
    char notes[MGPU_COPY_MAX_NOTES][200];
    /* device_local_copy: each copy reads and writes its bytes; this is the
     * SUM counting both (2 x SUM), the convention HBM figures use. */
    double local_rw_sum;
} mgpu_copy_result;

/* Run one testcase. Waived and failed testcases are results, not errors:
 * the function returns MGPU_OK with out->status saying what happened, so a
 * caller goes on with the next testcase (as nvbandwidth does). It returns an
 * error only for bad arguments. Free with mgpu_copy_result_free. */
mgpu_result mgpu_copy_run(mgpu_backend *be, const mgpu_copy_case *tc, const mgpu_copy_options *o,
                          mgpu_copy_result *out);
void mgpu_copy_result_free(mgpu_copy_result *r);

/* Median (even count: mean of the middle two) or mean of n samples; sorts v. */
double mgpu_copy_statistic(double *v, unsigned n, int use_mean);

#ifdef __cplusplus
}
#endif
#endif
