/* caching_internal.h - the allocator's structures, shared by caching.c (the
 * policy) and caching_expand.c (expandable segments). */
#ifndef MGPU_MEM_CACHING_INTERNAL_H
#define MGPU_MEM_CACHING_INTERNAL_H
#include "dev/mem/caching.h"

struct mgpu_mem_segment {
    void *handle;          /* the provider's */
    uintptr_t base;
    size_t size;           /* bytes held: the segment, or what is mapped */
    int phantom;
    int expandable;        /* a reserved range that grows by mapping pages */
    int release_on_free;   /* shared through IPC: not cached once free */
    uintptr_t stream;      /* expandable: the stream it grows for */
    size_t va_size;        /* expandable: address space reserved */
    mgpu_mem_block *head;  /* the block at base (the lowest survives merges) */
    struct mgpu_mem_segment *prev, *next;
};

typedef struct mem_pool {
    mgpu_mem_block **v;    /* free blocks sorted by (stream, size, ptr) */
    int n, cap;
    int large, phantom;
} mem_pool;

struct mgpu_caching {
    mgpu_alloc_conf conf;
    mgpu_mem_provider prov;
    mem_pool pools[4];             /* [phantom * 2 + large] */
    mgpu_mem_segment *segments;    /* every segment, for release and lookup */
    mgpu_mem_block *spare;         /* recycled block structs */
    mgpu_memory_stats st;
};

void mem_stat_add(mgpu_mem_stat *s, int64_t delta);
mgpu_mem_block *mem_block_new(mgpu_caching *a);
void mem_block_delete(mgpu_caching *a, mgpu_mem_block *b);
mem_pool *mem_pool_of(mgpu_caching *a, int large, int phantom);
mgpu_result mem_pool_insert(mgpu_caching *a, mgpu_mem_block *b);
void mem_pool_remove(mgpu_caching *a, mgpu_mem_block *b);
void mem_segment_unlink(mgpu_caching *a, mgpu_mem_segment *s);
uint64_t mem_largest_free(const mgpu_caching *a);

/* caching_expand.c */
int mem_expand_enabled(const mgpu_caching *a);
/* Map enough at the end of this stream's expandable segment for `size`
 * and hand back a free block of at least `size` (not in a pool). */
mgpu_result mem_expand_grow(mgpu_caching *a, uintptr_t stream, size_t size, int phantom, mgpu_mem_block **out);
/* Unmap the free tail of every expandable segment. */
void mem_expand_trim_all(mgpu_caching *a);
/* Unmap and release every expandable segment that holds no allocated block. */
void mem_expand_release_all(mgpu_caching *a);

#endif
