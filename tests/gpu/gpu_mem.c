/* gpu_mem.c - the caching allocator on a real GPU (run on the GPU machine:
 * tests/gpu/run): the same statistics as the sim for the same allocations,
 * PyTorch's out-of-memory sentence from a real cudaMalloc failure,
 * expandable segments through the CUDA virtual memory API (data written
 * and read back across page mappings, pages unmapped and mapped again), the
 * fragmentation of lab 9 on real memory (a 12 MiB request fails with 50 MiB
 * free in 5 MiB holes; expandable segments make it succeed), and IPC of a
 * cached block. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mgpu/dev.h"
#include "mgpu/mem.h"
#include "tap.h"

#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)

static mgpu_backend *open_be(mgpu_backend_kind kind, const char *conf)
{
    mgpu_backend_config cfg = {kind, kind == MGPU_BACKEND_SIM ? "dgx-h200" : NULL, NULL, conf};
    mgpu_backend *be = NULL;
    mgpu_result r = mgpu_backend_open(&cfg, &be);
    CHECKF(r == MGPU_OK, "open %s (%s): %s", kind == MGPU_BACKEND_SIM ? "sim" : "cuda", conf ? conf : "-",
           mgpu_error_message());
    return r == MGPU_OK ? be : NULL;
}

/* The same allocations on two backends; returns the stats after them. */
static void workload(mgpu_backend *be, mgpu_memory_stats *st)
{
    mgpu_stream *s = NULL;
    mgpu_buffer *b[12] = {0};
    static const size_t sz[12] = {100, 512, 513, 4096, 1 << 20, (1 << 20) + 1, 3 << 20, 9 << 20,
                                  10 << 20, 33 << 20, 7, 200 << 20};
    memset(st, 0, sizeof *st);
    if (mgpu_stream_create(be, 0, 0, &s) != MGPU_OK) return;
    for (int i = 0; i < 12; i++) CHECK_OK(mgpu_mem_alloc_stream(s, sz[i], &b[i]));
    for (int i = 0; i < 12; i += 3) {
        mgpu_mem_free(b[i]);
        b[i] = NULL;
    }
    CHECK_OK(mgpu_memory_stats_get(be, 0, st));
    for (int i = 0; i < 12; i++) mgpu_mem_free(b[i]);
    mgpu_stream_destroy(s);
}

static void test_stats_parity(void)
{
    mgpu_backend *cu = open_be(MGPU_BACKEND_CUDA, "backend:native"), *sim = open_be(MGPU_BACKEND_SIM, "backend:native");
    if (!cu || !sim) return;
    mgpu_memory_stats a, b;
    workload(cu, &a);
    workload(sim, &b);
    printf("# stats cuda/sim: allocated %lld/%lld reserved %lld/%lld segments %lld/%lld inactive_split %lld/%lld "
           "(%lld/%lld B) largest free %llu/%llu\n",
           (long long)a.allocated_bytes.current, (long long)b.allocated_bytes.current,
           (long long)a.reserved_bytes.current, (long long)b.reserved_bytes.current, (long long)a.segment.current,
           (long long)b.segment.current, (long long)a.inactive_split.current, (long long)b.inactive_split.current,
           (long long)a.inactive_split_bytes.current, (long long)b.inactive_split_bytes.current,
           (unsigned long long)a.largest_free_block, (unsigned long long)b.largest_free_block);
    CHECK(a.allocated_bytes.current == b.allocated_bytes.current && a.allocated_bytes.current > 0);
    CHECK(a.requested_bytes.current == b.requested_bytes.current);
    CHECK(a.reserved_bytes.current == b.reserved_bytes.current);
    CHECK(a.segment.current == b.segment.current);
    CHECK(a.inactive_split.current == b.inactive_split.current);
    CHECK(a.inactive_split_bytes.current == b.inactive_split_bytes.current);
    CHECK(a.largest_free_block == b.largest_free_block);
    CHECK(a.allocated_bytes.peak == b.allocated_bytes.peak);
    mgpu_backend_close(cu);
    mgpu_backend_close(sim);
}

static void test_oom_sentence(void)
{
    mgpu_backend *be = open_be(MGPU_BACKEND_CUDA, "backend:native");
    if (!be) return;
    mgpu_buffer *small = NULL, *x = NULL;
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 0, 3 * MiB, &small));
    mgpu_result r = mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 0, 1024 * GiB, &x);
    printf("# OOM: %s\n", mgpu_error_message());
    CHECK(r == MGPU_ERR_DEVICE_OOM && x == NULL);
    const char *m = mgpu_error_message();
    CHECK(strstr(m, "out of memory on GPU 0. Tried to allocate 1024.00 GiB (1099511627776 bytes)") != NULL);
    CHECK(strstr(m, "GPU 0 has a total capacity of ") != NULL);
    CHECK(strstr(m, "Of the allocated memory 3.00 MiB is allocated by mgpulab, and 17.00 MiB is reserved by mgpulab "
                    "but unallocated; the largest free block is 17.00 MiB") != NULL);
    mgpu_memory_stats st;
    CHECK_OK(mgpu_memory_stats_get(be, 0, &st));
    CHECK(st.num_ooms == 1);
    mgpu_mem_free(small);
    mgpu_backend_close(be);
}

/* Fill `count` f32 by index on `s`, read back through pinned memory, and
 * check every element. */
static int verify(mgpu_backend *be, mgpu_stream *s, mgpu_buffer *b, size_t count, double base)
{
    mgpu_fill_spec fs = {MGPU_FILL_INDEX, 0, base};
    mgpu_buffer *h = NULL;
    if (mgpu_fill(s, b, 0, count, MGPU_F32, &fs) != MGPU_OK ||
        mgpu_mem_alloc(be, MGPU_MEM_PINNED, -1, count * 4, &h) != MGPU_OK ||
        mgpu_copy(s, h, 0, b, 0, count * 4, MGPU_COPY_CE) != MGPU_OK || mgpu_stream_synchronize(s) != MGPU_OK) {
        printf("# verify: %s\n", mgpu_error_message());
        mgpu_mem_free(h);
        return 0;
    }
    const float *f = h->ptr;
    int good = 1;
    for (size_t i = 0; i < count && good; i++)
        if (f[i] != mgpu_fill_value(MGPU_F32, MGPU_FILL_INDEX, 0, base, i)) {
            printf("# verify: element %zu is %g, wanted %g\n", i, f[i],
                   mgpu_fill_value(MGPU_F32, MGPU_FILL_INDEX, 0, base, i));
            good = 0;
        }
    mgpu_mem_free(h);
    return good;
}

static void test_expandable_vmm(void)
{
    mgpu_backend *be = open_be(MGPU_BACKEND_CUDA, "backend:native,expandable_segments:True");
    if (!be) return;
    mgpu_stream *s = NULL;
    CHECK_OK(mgpu_stream_create(be, 0, 0, &s));
    mgpu_buffer *b[8] = {0};
    for (int i = 0; i < 8; i++) CHECK_OK(mgpu_mem_alloc_stream(s, 5 * MiB + 1000, &b[i]));
    mgpu_memory_stats st;
    CHECK_OK(mgpu_memory_stats_get(be, 0, &st));
    printf("# expandable: 8 x 5 MiB -> reserved %lld, segments %lld, device maps %lld\n",
           (long long)st.reserved_bytes.current, (long long)st.segment.current, (long long)st.num_device_alloc);
    CHECK(st.segment.current == 1);                               /* one mapped range */
    CHECK(st.reserved_bytes.current < (int64_t)(8 * 5 * MiB + 4 * MiB)); /* pages, not 20 MiB segments */
    for (int i = 0; i < 8; i++) CHECK(b[i] && verify(be, s, b[i], (5 * MiB + 1000) / 4, i * 1000.0));
    for (int i = 0; i < 8; i += 2) {
        mgpu_mem_free(b[i]);
        b[i] = NULL;
    }
    int64_t before = st.reserved_bytes.current;
    CHECK_OK(mgpu_memory_empty_cache(be, 0));
    CHECK_OK(mgpu_memory_stats_get(be, 0, &st));
    printf("# expandable: after freeing half and empty_cache: reserved %lld (was %lld), unmaps %lld\n",
           (long long)st.reserved_bytes.current, (long long)before, (long long)st.num_device_free);
    CHECK(st.reserved_bytes.current < before && st.num_device_free > 0);
    /* the live blocks kept their data across the unmapping of their neighbours */
    for (int i = 1; i < 8; i += 2) CHECK(verify(be, s, b[i], (5 * MiB + 1000) / 4, i * 1000.0));
    mgpu_buffer *big = NULL;
    CHECK_OK(mgpu_mem_alloc_stream(s, 64 * MiB, &big)); /* maps again */
    CHECK(big && verify(be, s, big, 64 * MiB / 4, 7.0));
    mgpu_ipc_handle h;
    CHECK(big && mgpu_ipc_export(big, &h) == MGPU_ERR_UNSUPPORTED);
    mgpu_mem_free(big);
    for (int i = 0; i < 8; i++) mgpu_mem_free(b[i]);
    mgpu_stream_destroy(s);
    mgpu_backend_close(be);
}

/* Lab 9 on the real GPU: a plain filler leaves ~108 MiB; twenty 5 MiB
 * tensors take five 20 MiB segments; every other one is freed. */
static void fragmentation(const char *conf, int want_ok)
{
    mgpu_backend *be = open_be(MGPU_BACKEND_CUDA, conf);
    if (!be) return;
    uint64_t fr = 0, tot = 0;
    CHECK_OK(mgpu_device_mem_info(be, 0, &fr, &tot));
    mgpu_buffer *filler = NULL;
    size_t fill = ((size_t)fr - 108 * MiB) / (2 * MiB) * (2 * MiB);
    CHECK_OK(mgpu_mem_alloc_uncached(be, MGPU_MEM_DEVICE, 0, fill, &filler));
    mgpu_stream *s = NULL;
    CHECK_OK(mgpu_stream_create(be, 0, 0, &s));
    mgpu_buffer *t[20] = {0};
    int n = 0;
    while (n < 20 && mgpu_mem_alloc_stream(s, 5 * MiB, &t[n]) == MGPU_OK) n++;
    CHECKF(n == 20, "%s: only %d of 20 tensors fit: %s", conf, n, mgpu_error_message());
    for (int i = 0; i < n; i += 2) {
        mgpu_mem_free(t[i]);
        t[i] = NULL;
    }
    mgpu_buffer *big = NULL;
    mgpu_result r = mgpu_mem_alloc_stream(s, 12 * MiB, &big);
    printf("# fragmentation (%s): 12 MiB -> %s %s\n", conf, mgpu_result_name(r), r ? mgpu_error_message() : "");
    if (want_ok) {
        CHECK(r == MGPU_OK && verify(be, s, big, 12 * MiB / 4, 3.0));
    } else {
        CHECK(r == MGPU_ERR_DEVICE_OOM);
        CHECK(strstr(mgpu_error_message(), "50.00 MiB is reserved by mgpulab but unallocated") != NULL);
        CHECK(strstr(mgpu_error_message(), "the largest free block is 5.00 MiB") != NULL);
    }
    mgpu_mem_free(big);
    for (int i = 0; i < n; i++) mgpu_mem_free(t[i]);
    mgpu_mem_free(filler);
    mgpu_stream_destroy(s);
    mgpu_backend_close(be);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_stats_parity();
    test_oom_sentence();
    test_expandable_vmm();
    fragmentation("backend:native", 0);
    fragmentation("backend:native,expandable_segments:True", 1);
    return tap_done();
}
