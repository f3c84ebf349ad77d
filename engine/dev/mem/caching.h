/* caching.h - the caching allocator's policy, over an abstract provider of
 * device memory (private to the engine; mgpu/mem.h is the public face).
 *
 * The policy knows addresses and sizes only: a provider hands it segments
 * (cudaMalloc on cuda, a mapping on the sim, a counter in the unit tests)
 * and, for expandable segments, reserves address space and maps pages into
 * it (cuMemAddressReserve / cuMemCreate + cuMemMap). One allocator serves one
 * device; callers serialise calls (the glue holds a lock). */
#ifndef MGPU_MEM_CACHING_H
#define MGPU_MEM_CACHING_H
#include <stddef.h>
#include <stdint.h>
#include "mgpu/mem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* PyTorch's constants (c10/cuda/CUDACachingAllocator.cpp). */
#define MGPU_MEM_MIN_BLOCK ((size_t)512)              /* every size is a multiple */
#define MGPU_MEM_SMALL_SIZE ((size_t)1 << 20)         /* largest "small" request */
#define MGPU_MEM_SMALL_BUFFER ((size_t)2 << 20)       /* small-pool segment */
#define MGPU_MEM_MIN_LARGE_ALLOC ((size_t)10 << 20)   /* from here: a segment of its own */
#define MGPU_MEM_LARGE_BUFFER ((size_t)20 << 20)      /* large-pool segment below that */
#define MGPU_MEM_ROUND_LARGE ((size_t)2 << 20)        /* large segments round to this */

typedef struct mgpu_mem_provider {
    void *ctx;
    /* A segment of `bytes` (phantom: address space only). MGPU_ERR_DEVICE_OOM
     * when the device is full (the policy then frees its cache and retries). */
    mgpu_result (*seg_alloc)(void *ctx, size_t bytes, int phantom, uintptr_t *base, void **handle);
    void (*seg_free)(void *ctx, void *handle);
    /* Expandable segments; NULL members: the provider cannot (the policy
     * then falls back to ordinary segments). `granularity` is the page size
     * of a mapping, `va_size` how much address space a segment reserves (more
     * than the device has, so a request can be mapped past live blocks). */
    mgpu_result (*va_reserve)(void *ctx, size_t bytes, int phantom, uintptr_t *base, void **handle);
    mgpu_result (*va_map)(void *ctx, void *handle, size_t off, size_t bytes);
    void (*va_unmap)(void *ctx, void *handle, size_t off, size_t bytes);
    void (*va_release)(void *ctx, void *handle);
    size_t granularity;
    uint64_t va_size;
    int expand_phantom;   /* phantom memory grows in expandable segments too (sim) */
} mgpu_mem_provider;

typedef struct mgpu_caching mgpu_caching;
typedef struct mgpu_mem_segment mgpu_mem_segment;

typedef struct mgpu_mem_block {
    uintptr_t ptr;
    size_t size;        /* rounded; what the statistics count */
    size_t requested;   /* what the caller asked for (allocated blocks) */
    uintptr_t stream;   /* the stream whose free list it belongs to (0: none) */
    int allocated;
    int phantom;
    int large;          /* 1: large pool */
    int unmapped;       /* expandable segments: a hole of address space with
                         * no memory mapped (never in a pool) */
    struct mgpu_mem_block *prev, *next; /* neighbours in the segment */
    mgpu_mem_segment *seg;
} mgpu_mem_block;

/* What an out-of-memory error reports (the glue turns it into PyTorch's sentence). */
typedef struct mgpu_mem_oom {
    size_t requested;       /* what was asked */
    size_t alloc_size;      /* the segment (or mapping) the device refused */
    uint64_t allocated;     /* blocks in use */
    uint64_t reserved;      /* segments held */
    uint64_t phantom;       /* of allocated, phantom */
    uint64_t largest_free;  /* biggest cached free block */
    int phantom_request;
    int expandable;         /* expandable segments were on: the message must not suggest them */
} mgpu_mem_oom;

size_t mgpu_mem_round_size(size_t bytes);
/* The segment a request of rounded `size` makes the allocator ask for. */
size_t mgpu_mem_allocation_size(size_t size);

mgpu_result mgpu_caching_create(const mgpu_alloc_conf *conf, const mgpu_mem_provider *p, mgpu_caching **out);
/* Frees every cached segment; allocated blocks are leaked to the device
 * (the backend frees the device memory itself on close). */
void mgpu_caching_destroy(mgpu_caching *a);

/* MGPU_ERR_DEVICE_OOM with *oom filled (when oom is not NULL) after the
 * free-and-retry failed; the policy sets no message (the glue does). */
mgpu_result mgpu_caching_malloc(mgpu_caching *a, size_t bytes, uintptr_t stream, int phantom,
                                mgpu_mem_block **out, mgpu_mem_oom *oom);
void mgpu_caching_free(mgpu_caching *a, mgpu_mem_block *b);
/* torch.cuda.empty_cache(): release every fully free segment (and unmap
 * the free tail of expandable ones). */
void mgpu_caching_empty_cache(mgpu_caching *a);

void mgpu_caching_stats(const mgpu_caching *a, mgpu_memory_stats *out);
/* New settings for what comes next; blocks already handed out keep the
 * segments they live in. */
void mgpu_caching_set_conf(mgpu_caching *a, const mgpu_alloc_conf *conf);
void mgpu_caching_reset_peak(mgpu_caching *a);

/* The segment under a block: the provider's handle, its base address, and
 * whether it is an expandable (mapped) one. */
void *mgpu_mem_block_segment(const mgpu_mem_block *b, uintptr_t *base, size_t *size, int *expandable);
/* Release the block's segment to the provider once it is entirely free,
 * instead of caching it (memory shared through IPC: its handle must go
 * stale when the memory is freed, as with cudaFree). */
void mgpu_mem_block_release_on_free(mgpu_mem_block *b);

#ifdef __cplusplus
}
#endif
#endif
