/* gpu_mem_rate.c - a benchmark (no timing asserts): malloc/free pairs per
 * second through the caching allocator and through plain allocations, at
 * several sizes and in a training-like churn of many live tensors.
 *
 *   gpu_mem_rate [cuda|sim] [seconds per case]      (default: cuda, 0.3)
 *
 * On the GPU machine scripts/compare-alloc-torch.py runs it next to torch's
 * caching allocator (the same sizes, the same loop in C++). Here (sim) it
 * measures the allocator's own cost: the policy and its bookkeeping, with a
 * mapping per new segment standing in for cudaMalloc. The last line is JSON
 * for the comparison script. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mgpu/clock.h"
#include "mgpu/dev.h"
#include "mgpu/mem.h"

typedef struct row {
    const char *conf;
    const char *pattern;
    size_t bytes;
    double pairs_per_s, ns_per_pair;
} row;

static double seconds_per_case = 0.3;

/* Alloc then free the same size on one stream, as `x = torch.empty(n);
 * del x` in a loop. */
static int same_size(mgpu_stream *s, size_t bytes, row *out)
{
    mgpu_buffer *b = NULL;
    /* warm: the first allocation creates the segment */
    if (mgpu_mem_alloc_stream(s, bytes, &b) != MGPU_OK) return 0;
    mgpu_mem_free(b);
    uint64_t t0 = mgpu_now_ns(), n = 0, deadline = t0 + (uint64_t)(seconds_per_case * 1e9);
    for (;;) {
        for (int k = 0; k < 256; k++) {
            if (mgpu_mem_alloc_stream(s, bytes, &b) != MGPU_OK) return 0;
            mgpu_mem_free(b);
        }
        n += 256;
        if (mgpu_now_ns() >= deadline) break;
    }
    double secs = (double)(mgpu_now_ns() - t0) / 1e9;
    out->pairs_per_s = (double)n / secs;
    out->ns_per_pair = secs * 1e9 / (double)n;
    return 1;
}

/* 256 live tensors of sizes from 512 B to 64 MiB (log-uniform, seeded); each
 * step frees one at random and allocates a new one: the churn of a
 * training step's activations. */
static int churn(mgpu_stream *s, row *out)
{
    enum { LIVE = 256 };
    mgpu_buffer *live[LIVE] = {0};
    uint64_t x = 0x9e3779b97f4a7c15ull;
    size_t size_of[64];
    for (int i = 0; i < 64; i++) size_of[i] = (size_t)512 << (i * 17 / 64); /* 512 B .. 64 MiB */
    for (int i = 0; i < LIVE; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        if (mgpu_mem_alloc_stream(s, size_of[(x >> 33) % 64] + (x >> 20) % 512, &live[i]) != MGPU_OK) return 0;
    }
    uint64_t t0 = mgpu_now_ns(), n = 0, deadline = t0 + (uint64_t)(seconds_per_case * 1e9);
    int ok = 1;
    while (ok) {
        for (int k = 0; k < 256; k++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            int i = (int)((x >> 40) % LIVE);
            mgpu_mem_free(live[i]);
            live[i] = NULL;
            if (mgpu_mem_alloc_stream(s, size_of[(x >> 33) % 64] + (x >> 20) % 512, &live[i]) != MGPU_OK) {
                ok = 0;
                break;
            }
        }
        n += 256;
        if (mgpu_now_ns() >= deadline) break;
    }
    double secs = (double)(mgpu_now_ns() - t0) / 1e9;
    for (int i = 0; i < LIVE; i++) mgpu_mem_free(live[i]);
    out->pairs_per_s = (double)n / secs;
    out->ns_per_pair = secs * 1e9 / (double)n;
    return ok;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int sim = argc > 1 && strcmp(argv[1], "sim") == 0;
    if (argc > 2) seconds_per_case = atof(argv[2]);
    if (!(seconds_per_case > 0)) seconds_per_case = 0.3;
    static const char *const confs[] = {"backend:native", "backend:native,expandable_segments:True", "backend:plain"};
    static const size_t sizes[] = {512, 64 << 10, 1 << 20, 16 << 20, 256 << 20};
    row rows[32];
    int nrows = 0, failed = 0;
    printf("# malloc/free pairs per second on %s, %.2f s per case\n", sim ? "sim (dgx-h100)" : "cuda", seconds_per_case);
    printf("%-42s %-10s %12s %14s %12s\n", "MGPU_ALLOC_CONF", "pattern", "bytes", "pairs/s", "ns/pair");
    for (int c = 0; c < 3; c++) {
        mgpu_backend_config cfg = {sim ? MGPU_BACKEND_SIM : MGPU_BACKEND_CUDA, sim ? "dgx-h100" : NULL, NULL, confs[c]};
        mgpu_backend *be = NULL;
        mgpu_stream *s = NULL;
        if (mgpu_backend_open(&cfg, &be) != MGPU_OK || mgpu_stream_create(be, 0, 0, &s) != MGPU_OK) {
            fprintf(stderr, "gpu_mem_rate: %s\n", mgpu_error_message());
            return 1;
        }
        for (size_t i = 0; i <= sizeof sizes / sizeof *sizes; i++) {
            row *r = &rows[nrows];
            memset(r, 0, sizeof *r);
            r->conf = confs[c];
            int ok;
            if (i < sizeof sizes / sizeof *sizes) {
                r->pattern = "same-size";
                r->bytes = sizes[i];
                ok = same_size(s, sizes[i], r);
            } else {
                r->pattern = "churn";
                ok = churn(s, r);
            }
            if (!ok) {
                fprintf(stderr, "gpu_mem_rate: %s %s %zu: %s\n", r->conf, r->pattern, r->bytes, mgpu_error_message());
                failed++;
                continue;
            }
            printf("%-42s %-10s %12zu %14.0f %12.1f\n", r->conf, r->pattern, r->bytes, r->pairs_per_s, r->ns_per_pair);
            nrows++;
        }
        mgpu_stream_destroy(s);
        mgpu_backend_close(be);
    }
    printf("{\"backend\":\"%s\",\"rows\":[", sim ? "sim" : "cuda");
    for (int i = 0; i < nrows; i++)
        printf("%s{\"conf\":\"%s\",\"pattern\":\"%s\",\"bytes\":%zu,\"pairs_per_s\":%.0f}", i ? "," : "",
               rows[i].conf, rows[i].pattern, rows[i].bytes, rows[i].pairs_per_s);
    printf("]}\n");
    return failed ? 1 : 0;
}
