/* mem.h - device memory the way PyTorch manages it: a caching allocator
 * (engine/dev/mem/) behind mgpu_mem_alloc(MGPU_MEM_DEVICE), its statistics and
 * its out-of-memory sentence, and phantom (shape-only) memory.
 *
 * The design is PyTorch's CUDACachingAllocator: requests are rounded to 512 B
 * size classes; requests up to 1 MiB come from 2 MiB segments (the small
 * pool), larger ones from 20 MiB segments or, from 10 MiB on, a segment of
 * their own rounded to 2 MiB (the large pool); a free block is split when the
 * rest is worth keeping and merged with free neighbours when freed; blocks
 * at least `max_split_size` big are never split and serve only requests of
 * about their size; free lists are per stream (memory freed on a stream is
 * reused at once by that stream, in stream order); a failed device
 * allocation frees the cached segments and tries again before giving up;
 * `expandable_segments` grows one mapped range per stream through the CUDA
 * virtual memory API instead of allocating separate segments, so
 * fragmentation across segments cannot strand free memory.
 *
 * MGPU_ALLOC_CONF (or mgpu_backend_config.alloc_conf) selects it, in the form
 * of PYTORCH_CUDA_ALLOC_CONF:
 *   backend:native|plain, max_split_size_mb:N, expandable_segments:True|False
 * `plain` is cudaMalloc/cudaFree per buffer (the sim's equivalent: one
 * mapping per buffer), with no cache and no statistics beyond the device's. */
#ifndef MGPU_MEM_H
#define MGPU_MEM_H
#include <stddef.h>
#include <stdint.h>
#include "mgpu/dev.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mgpu_alloc_conf {
    int caching;               /* 1: backend:native (the default); 0: backend:plain */
    uint64_t max_split_size;   /* bytes; UINT64_MAX = unlimited (PyTorch's default) */
    int expandable_segments;   /* 1: grow a mapped range per stream (VMM) */
} mgpu_alloc_conf;

/* Parse "backend:native,max_split_size_mb:64,expandable_segments:True".
 * NULL or "" gives the defaults. Unknown keys and bad values are errors that
 * quote the text and list what is accepted; `out` is untouched then. */
mgpu_result mgpu_alloc_conf_parse(const char *text, mgpu_alloc_conf *out);
/* "backend:native,max_split_size_mb:64,expandable_segments:False" (no
 * max_split_size_mb when unlimited); parses back to the same. */
void mgpu_alloc_conf_format(const mgpu_alloc_conf *c, char *buf, size_t len);

/* One statistic as PyTorch keeps it: current value, peak since the last
 * reset, and the running totals of increases and decreases. */
typedef struct mgpu_mem_stat {
    int64_t current, peak;
    int64_t allocated, freed;
} mgpu_mem_stat;

/* torch.cuda.memory_stats() for one device ("all" pools). Bytes are block
 * sizes (rounded), as PyTorch counts them; requested_bytes is what callers
 * asked for. Phantom memory is included everywhere and also shown alone. */
typedef struct mgpu_memory_stats {
    int caching;                       /* 0: backend:plain (only the *_bytes
                                        * and counts of live buffers are kept) */
    mgpu_mem_stat allocated_bytes;     /* blocks handed out */
    mgpu_mem_stat requested_bytes;     /* what callers asked for */
    mgpu_mem_stat reserved_bytes;      /* segments held from the device */
    mgpu_mem_stat active_bytes;        /* allocated blocks (PyTorch: also blocks
                                        * freed but awaiting stream work) */
    mgpu_mem_stat inactive_split_bytes;/* free blocks inside partly used segments */
    mgpu_mem_stat phantom_bytes;       /* allocated phantom blocks */
    mgpu_mem_stat allocation;          /* counts of the same */
    mgpu_mem_stat segment;
    mgpu_mem_stat active;
    mgpu_mem_stat inactive_split;
    int64_t num_alloc_retries;         /* device allocations that failed, then
                                        * succeeded after freeing the cache */
    int64_t num_ooms;                  /* out-of-memory errors returned */
    int64_t num_device_alloc, num_device_free; /* cudaMalloc / cudaFree calls (or maps) */
    uint64_t largest_free_block;       /* biggest cached free block, bytes */
    uint64_t max_split_size;           /* the knob in force (UINT64_MAX: none) */
} mgpu_memory_stats;

mgpu_result mgpu_memory_stats_get(mgpu_backend *be, int dev, mgpu_memory_stats *out);
/* Peaks start again from the current values (torch.cuda.reset_peak_memory_stats). */
mgpu_result mgpu_memory_reset_peak(mgpu_backend *be, int dev);
/* Return every fully free cached segment to the device (torch.cuda.empty_cache). */
mgpu_result mgpu_memory_empty_cache(mgpu_backend *be, int dev);
/* Change the settings at run time, as torch.cuda.memory._set_allocator_
 * settings does (same text as MGPU_ALLOC_CONF): later allocations follow
 * them; live buffers stay where they are and free as they came (a plain
 * buffer to the device, a cached one to its cache). Cached free segments
 * are not released: call mgpu_memory_empty_cache for that. */
mgpu_result mgpu_memory_configure(mgpu_backend *be, const char *text);
/* The configuration this backend's allocator runs with. */
const mgpu_alloc_conf *mgpu_memory_conf(const mgpu_backend *be);

/* Device memory tied to a stream, as PyTorch allocates on the current stream:
 * once freed, the block is reused at once by later allocations on the same
 * stream (stream order keeps that safe). mgpu_mem_alloc's blocks belong to no
 * stream; on a GPU freeing one first waits for the device, as cudaFree does
 * (the sim, which moves data when work is queued, needs no wait), so code
 * that frees in a training loop should allocate on its stream. */
mgpu_result mgpu_mem_alloc_stream(mgpu_stream *s, size_t bytes, mgpu_buffer **out);

/* Memory that bypasses the cache whatever the configuration: benchmarks
 * that measure what nccl-tests and nvbandwidth measure (cudaMalloc'd
 * buffers, released between test cases) use it. */
mgpu_result mgpu_mem_alloc_uncached(mgpu_backend *be, mgpu_mem_kind kind, int device, size_t bytes,
                                    mgpu_buffer **out);

/* Phantom (shape-only) device memory: `bytes` count against the device's
 * memory and show in the statistics like any allocation, but no memory
 * stands behind the buffer (buf->phantom = 1): copies and collectives on it
 * take modelled time and move nothing, and reading it is an error. The sim
 * is where it belongs; on cuda it is refused unless `allow_on_cuda` (its
 * bytes are then only counted, and its work is skipped). `s` may be NULL
 * (a block of no stream). */
mgpu_result mgpu_mem_alloc_phantom(mgpu_backend *be, int device, mgpu_stream *s, size_t bytes,
                                   int allow_on_cuda, mgpu_buffer **out);

/* Device memory a library takes for itself (NCCL's NVLS buffers): on the
 * sim it counts against the device - cudaMemGetInfo's free drops, and a
 * later allocation can run out - but the caching allocator's statistics do
 * not see it, as torch.cuda.memory_allocated does not see NCCL's; no host
 * memory stands behind it. On a GPU the library allocates for itself:
 * *out = NULL and MGPU_OK. Free with mgpu_mem_free_library (NULL is fine). */
mgpu_result mgpu_mem_alloc_library(mgpu_backend *be, int device, size_t bytes, mgpu_buffer **out);
void mgpu_mem_free_library(mgpu_buffer *buf);

/* A clear error when `buf` is phantom and its values would be read: names
 * `what` (e.g. "checksum"). MGPU_OK otherwise. */
mgpu_result mgpu_phantom_check_read(const mgpu_buffer *buf, const char *what);

#ifdef __cplusplus
}
#endif
#endif
