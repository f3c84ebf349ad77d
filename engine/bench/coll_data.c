/* coll_data.c - the benchmark's input data and its exact expected results
 * (the data note in collbench.h), per element and per span: the spans walk
 * the a(i) table without a division per element, because the sim backend
 * generates and checks every element of every rank on the host. */
#include "mgpu/collbench.h"
#include <string.h>

/* The largest integer every partial result may reach and stay exact:
 * significand bits of the type (bf16 8, f16 11, f32 24); i32 keeps a margin. */
static int64_t exact_limit(mgpu_dtype t)
{
    switch (t) {
    case MGPU_BF16: return 256;
    case MGPU_F16: return 2048;
    case MGPU_F32: return 1 << 24;
    default: return 1 << 30;
    }
}

void mgpu_cb_data_init(mgpu_cb_data *d, mgpu_dtype t, int op, int nranks, int root, uint64_t seed)
{
    memset(d, 0, sizeof *d);
    d->dtype = t;
    d->op = op;
    d->nranks = nranks > 0 ? nranks : 1;
    d->root = root;
    d->seed = mgpu_cb_hash(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull);
    /* |a| + |c| summed over the ranks stays within the exact range */
    int64_t per = exact_limit(t) / (2 * (int64_t)(op >= 0 ? d->nranks : 1));
    if (per > 1000000) per = 1000000;
    d->arange = d->crange = per > 0 ? per : 1;
    for (uint64_t i = 0; i < MGPU_CB_PERIOD; i++)
        d->atab[i] = (int32_t)mgpu_cb_pick(mgpu_cb_hash((i + 1) * 0x9E3779B97F4A7C15ull ^ d->seed), d->arange);
    d->cmin = INT64_MAX;
    d->cmax = INT64_MIN;
    d->csign = 1;
    for (int r = 0; r < d->nranks; r++) {
        int64_t c = mgpu_cb_c(d, r);
        d->csum += c;
        if (c < d->cmin) d->cmin = c;
        if (c > d->cmax) d->cmax = c;
        d->csign *= mgpu_cb_sign(mgpu_cb_hash(((uint64_t)r + 7) * 0xC2B2AE3D27D4EB4Full ^ d->seed));
    }
}

double mgpu_cb_reduced(const mgpu_cb_data *d, uint64_t i)
{
    int64_t n = d->nranks, a = mgpu_cb_a(d, i);
    switch (d->op) {
    case MGPU_SUM: return (double)(n * a + d->csum);
    case MGPU_MAX: return (double)(a + d->cmax);
    case MGPU_MIN: return (double)(a + d->cmin);
    case MGPU_AVG:
        /* integers: NCCL sums then divides (C truncation); floats: the
         * exact mean, compared with a tolerance (coll_bench.c) */
        if (d->dtype == MGPU_I32) return (double)((n * a + d->csum) / n);
        return (double)(n * a + d->csum) / (double)n;
    case MGPU_PROD: {
        int s = mgpu_cb_sign(mgpu_cb_hash(i * 0x9E3779B97F4A7C15ull + d->seed));
        return (double)((n & 1 ? s : 1) * d->csign * 2);
    }
    default: return 0;
    }
}

/* Calls fn(out offset, table pointer, run length) over [first, first+n),
 * one contiguous run of the a(i) table at a time. */
#define FOR_TABLE_RUNS(d, first, n, body)                                  \
    do {                                                                   \
        size_t k_ = (size_t)((first) % MGPU_CB_PERIOD);                    \
        for (size_t j0 = 0; j0 < (n);) {                                   \
            size_t run = MGPU_CB_PERIOD - k_;                              \
            if (run > (n) - j0) run = (n) - j0;                            \
            const int32_t *a = (d)->atab + k_;                             \
            body;                                                          \
            j0 += run;                                                     \
            k_ = 0;                                                        \
        }                                                                  \
    } while (0)

void mgpu_cb_input_span(const mgpu_cb_data *d, int rank, uint64_t first, size_t n, double *out)
{
    if (d->op == MGPU_PROD) {
        for (size_t j = 0; j < n; j++) out[j] = mgpu_cb_input(d, rank, first + j);
        return;
    }
    double c = (double)mgpu_cb_c(d, rank);
    FOR_TABLE_RUNS(d, first, n, for (size_t q = 0; q < run; q++) out[j0 + q] = a[q] + c);
}

void mgpu_cb_reduced_span(const mgpu_cb_data *d, uint64_t first, size_t n, double *out)
{
    double nr = d->nranks, csum = (double)d->csum;
    switch (d->op) {
    case MGPU_SUM: FOR_TABLE_RUNS(d, first, n, for (size_t q = 0; q < run; q++) out[j0 + q] = nr * a[q] + csum); break;
    case MGPU_MAX: FOR_TABLE_RUNS(d, first, n, for (size_t q = 0; q < run; q++) out[j0 + q] = a[q] + (double)d->cmax); break;
    case MGPU_MIN: FOR_TABLE_RUNS(d, first, n, for (size_t q = 0; q < run; q++) out[j0 + q] = a[q] + (double)d->cmin); break;
    default: /* avg (integer truncation) and prod: the per-element definition */
        for (size_t j = 0; j < n; j++) out[j] = mgpu_cb_reduced(d, first + j);
    }
}

void mgpu_cb_input_store(const mgpu_cb_data *d, int rank, uint64_t first, size_t n, void *out)
{
    if (d->op == MGPU_PROD) {
        for (size_t j = 0; j < n; j++) mgpu_fill_store(out, d->dtype, j, (float)mgpu_cb_input(d, rank, first + j));
        return;
    }
    int32_t c = (int32_t)mgpu_cb_c(d, rank);
    switch (d->dtype) {
    case MGPU_F32: FOR_TABLE_RUNS(d, first, n, for (size_t q = 0; q < run; q++) ((float *)out)[j0 + q] = (float)(a[q] + c)); break;
    case MGPU_I32: FOR_TABLE_RUNS(d, first, n, for (size_t q = 0; q < run; q++) ((int32_t *)out)[j0 + q] = a[q] + c); break;
    default: FOR_TABLE_RUNS(d, first, n, for (size_t q = 0; q < run; q++) mgpu_fill_store(out, d->dtype, j0 + q, (float)(a[q] + c)));
    }
}
