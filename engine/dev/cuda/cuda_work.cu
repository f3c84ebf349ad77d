/* cuda_work.cu - the cuda backend's stream work: copies (copy engine and SM
 * kernel), fills, checksums and the pointer-chase latency measurement. */
#include <stdlib.h>
#include <string.h>
#include "dev/cuda/cuda_internal.h"
#include "dev/cuda/cuda_kernels.h"

static int sm_count_of(mgpu_stream *s)
{
    return cuda_be(s->be)->props[s->device].multiProcessorCount;
}

/*--- Copies -----------------------------------------------------------*/

mgpu_result cuda_copy(mgpu_stream *s, mgpu_buffer *dst, size_t dst_off, const mgpu_buffer *src,
                      size_t src_off, size_t bytes, mgpu_copy_engine how)
{
    int dev = s->device;
    CUDA_ON_DEVICE(dev);
    cudaStream_t st = cuda_stream_of(s);
    if (how == MGPU_COPY_CE) {
        char *d = (char *)dst->ptr + dst_off;
        const char *sp = (const char *)src->ptr + src_off;
        if (dst->kind == MGPU_MEM_DEVICE && src->kind == MGPU_MEM_DEVICE && dst->device != src->device) {
            /* Works with or without peer access: without it the driver
             * stages the copy through host memory. */
            CUDA_TRY(cudaMemcpyPeerAsync(d, dst->device, sp, src->device, bytes, st), dev,
                     "copying %zu bytes from device %d to device %d (cudaMemcpyPeerAsync)", bytes,
                     src->device, dst->device);
        } else {
            CUDA_TRY(cudaMemcpyAsync(d, sp, bytes, cudaMemcpyDefault, st), dev,
                     "copying %zu bytes from %s to %s memory (cudaMemcpyAsync)", bytes,
                     mgpu_mem_kind_name(src->kind), mgpu_mem_kind_name(dst->kind));
        }
        return MGPU_OK;
    }
    char *d = NULL, *sp = NULL;
    MGPU_CHECK(cuda_reach(s->be, dev, dst, dst_off, "an SM copy", &d));
    MGPU_CHECK(cuda_reach(s->be, dev, src, src_off, "an SM copy", &sp));
    CUDA_TRY(cuda_launch_copy(d, sp, bytes, sm_count_of(s), st), dev, "launching the SM copy kernel (%zu bytes)",
             bytes);
    return MGPU_OK;
}

/*--- Fill and checksum ------------------------------------------------*/

mgpu_result cuda_fill(mgpu_stream *s, mgpu_buffer *buf, size_t off, size_t count, mgpu_dtype dtype,
                      const mgpu_fill_spec *spec)
{
    int dev = s->device;
    CUDA_ON_DEVICE(dev);
    if (buf->kind == MGPU_MEM_PAGEABLE) {
        /* No GPU can write pageable memory: fill on the host once the work
         * queued before has finished, which keeps stream order. */
        CUDA_TRY(cudaStreamSynchronize(cuda_stream_of(s)), dev, "waiting for the stream before a host fill");
        char *base = (char *)buf->ptr + off;
        for (size_t i = 0; i < count; i++)
            mgpu_fill_store(base, dtype, i, mgpu_fill_value(dtype, spec->kind, spec->seed, spec->value, i));
        return MGPU_OK;
    }
    char *base = NULL;
    MGPU_CHECK(cuda_reach(s->be, dev, buf, off, "a fill", &base));
    CUDA_TRY(cuda_launch_fill(base, count, dtype, spec, sm_count_of(s), cuda_stream_of(s)), dev,
             "launching the fill kernel (%zu %s elements)", count, mgpu_dtype_name(dtype));
    return MGPU_OK;
}

static uint64_t host_checksum(const char *base, size_t count, mgpu_dtype dtype)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < count; i++) sum += mgpu_checksum_term(mgpu_elem_bits(base, dtype, i), i);
    return sum;
}

mgpu_result cuda_checksum(mgpu_stream *s, const mgpu_buffer *buf, size_t off, size_t count,
                          mgpu_dtype dtype, uint64_t *out)
{
    int dev = s->device;
    CUDA_ON_DEVICE(dev);
    cudaStream_t st = cuda_stream_of(s);
    if (buf->kind == MGPU_MEM_PAGEABLE) {
        CUDA_TRY(cudaStreamSynchronize(st), dev, "waiting for the stream before a host checksum");
        *out = host_checksum((const char *)buf->ptr + off, count, dtype);
        return MGPU_OK;
    }
    char *base = NULL;
    MGPU_CHECK(cuda_reach(s->be, dev, buf, off, "a checksum", &base));
    /* A per-call accumulator from the stream-ordered pool: two streams may
     * checksum at once, and the pool makes this cheap. */
    unsigned long long *acc = NULL, host = 0;
    CUDA_TRY(cudaMallocAsync((void **)&acc, sizeof *acc, st), dev, "allocating the checksum accumulator");
    cudaError_t e = cudaMemsetAsync(acc, 0, sizeof *acc, st);
    if (e == cudaSuccess) e = cuda_launch_checksum(base, count, dtype, acc, sm_count_of(s), st);
    if (e == cudaSuccess) e = cudaMemcpyAsync(&host, acc, sizeof host, cudaMemcpyDeviceToHost, st);
    cudaError_t ef = cudaFreeAsync(acc, st);
    if (e == cudaSuccess) e = ef;
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);
    CUDA_TRY(e, dev, "computing the checksum of %zu %s elements", count, mgpu_dtype_name(dtype));
    *out = host;
    return MGPU_OK;
}

/*--- Memory latency ---------------------------------------------------*/

/* Slots are at least a cache line apart and visited in a random cyclic
 * order, so neither the prefetcher nor the line just fetched helps; the
 * ring has at most 2^20 slots, spread over the whole range so a big range
 * still overflows L2. */
enum { LAT_MIN_STRIDE = 64, LAT_MAX_SLOTS = 1 << 20 };
static const unsigned long long LAT_LIMIT_NS = 10000000000ull; /* 10 s */

static mgpu_result build_ring(size_t n, size_t stride, uint64_t base, uint64_t **next_out, uint64_t *start)
{
    size_t *order = (size_t *)malloc(n * sizeof *order);
    uint64_t *next = (uint64_t *)malloc(n * sizeof *next);
    if (!order || !next) {
        free(order);
        free(next);
        return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory building a %zu-slot latency ring", n);
    }
    for (size_t i = 0; i < n; i++) order[i] = i;
    for (size_t i = n - 1; i > 0; i--) { /* Fisher-Yates, fixed seed: runs repeat */
        size_t j = (size_t)(mgpu_mix64(0x6c6174656e6379ull ^ i) % (i + 1));
        size_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (size_t k = 0; k < n; k++) next[order[k]] = base + order[(k + 1) % n] * stride;
    *start = base + order[0] * stride;
    free(order);
    *next_out = next;
    return MGPU_OK;
}

mgpu_result cuda_memory_latency(mgpu_stream *s, mgpu_buffer *buf, size_t bytes, uint64_t accesses,
                                double *ns)
{
    int dev = s->device;
    CUDA_ON_DEVICE(dev);
    cudaStream_t st = cuda_stream_of(s);
    char *ring = NULL;
    MGPU_CHECK(cuda_reach(s->be, dev, buf, 0, "the latency test", &ring));

    size_t stride = LAT_MIN_STRIDE;
    if (bytes / stride > LAT_MAX_SLOTS) stride = (bytes / LAT_MAX_SLOTS + LAT_MIN_STRIDE - 1) / LAT_MIN_STRIDE * LAT_MIN_STRIDE;
    size_t n = bytes / stride;
    if (n == 0) n = 1;
    uint64_t *next = NULL, start = 0;
    MGPU_CHECK(build_ring(n, stride, (uint64_t)(uintptr_t)ring, &next, &start));

    unsigned long long *tmp = NULL, host_out[3] = {0, 0, 0};
    cudaError_t e = cudaSuccess;
    if (buf->kind == MGPU_MEM_PINNED) {
        /* Host memory: write the ring from here once earlier work is done. */
        e = cudaStreamSynchronize(st);
        if (e == cudaSuccess) {
            char *h = (char *)buf->ptr;
            for (size_t j = 0; j < n; j++) memcpy(h + j * stride, &next[j], sizeof next[j]);
        }
    }
    /* tmp: [0,3) the kernel's results, then the ring's next addresses. */
    size_t tmp_bytes = (3 + (buf->kind == MGPU_MEM_PINNED ? 0 : n)) * sizeof(uint64_t);
    if (e == cudaSuccess) e = cudaMallocAsync((void **)&tmp, tmp_bytes, st);
    if (e == cudaSuccess && buf->kind != MGPU_MEM_PINNED) {
        e = cudaMemcpyAsync(tmp + 3, next, n * sizeof *next, cudaMemcpyHostToDevice, st);
        if (e == cudaSuccess) e = cuda_launch_ring_scatter(ring, stride, (const uint64_t *)(tmp + 3), n,
                                                           sm_count_of(s), st);
    }
    if (e == cudaSuccess) e = cuda_launch_chase((const uint64_t *)(uintptr_t)start, accesses, LAT_LIMIT_NS, tmp, st);
    if (e == cudaSuccess) e = cudaMemcpyAsync(host_out, tmp, sizeof host_out, cudaMemcpyDeviceToHost, st);
    if (tmp) {
        cudaError_t ef = cudaFreeAsync(tmp, st);
        if (e == cudaSuccess) e = ef;
    }
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);
    free(next);
    CUDA_TRY(e, dev, "measuring %s memory latency (%zu-slot ring, %llu loads)", mgpu_mem_kind_name(buf->kind), n,
             (unsigned long long)accesses);
    if (host_out[1] == 0) return mgpu_fail(MGPU_ERR_INTERNAL, "the latency kernel made no loads");
    double per = (double)host_out[0] / (double)host_out[1];
    if (host_out[1] < accesses)
        return mgpu_fail(MGPU_ERR_TIMEOUT,
                         "latency: %llu loads would take longer than %.0f s (%llu done at %.1f ns each); "
                         "ask for fewer accesses",
                         (unsigned long long)accesses, LAT_LIMIT_NS / 1e9, host_out[1], per);
    *ns = per;
    return MGPU_OK;
}
