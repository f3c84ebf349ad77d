/* caching.c - the caching allocator's policy (PyTorch's design, see
 * mgpu/mem.h): size classes, pools with per-stream free lists, block
 * splitting and merging, the max_split_size rules, free-and-retry.
 * Expandable segments live in caching_expand.c. */
#include "dev/mem/caching_internal.h"
#include <stdlib.h>
#include <string.h>

/*--- Sizes ----------------------------------------------------------------*/

size_t mgpu_mem_round_size(size_t bytes)
{
    if (bytes < MGPU_MEM_MIN_BLOCK) return MGPU_MEM_MIN_BLOCK;
    return (bytes + MGPU_MEM_MIN_BLOCK - 1) / MGPU_MEM_MIN_BLOCK * MGPU_MEM_MIN_BLOCK;
}

size_t mgpu_mem_allocation_size(size_t size)
{
    if (size <= MGPU_MEM_SMALL_SIZE) return MGPU_MEM_SMALL_BUFFER;
    if (size < MGPU_MEM_MIN_LARGE_ALLOC) return MGPU_MEM_LARGE_BUFFER;
    return (size + MGPU_MEM_ROUND_LARGE - 1) / MGPU_MEM_ROUND_LARGE * MGPU_MEM_ROUND_LARGE;
}

/*--- Statistics -----------------------------------------------------------*/

void mem_stat_add(mgpu_mem_stat *s, int64_t delta)
{
    s->current += delta;
    if (delta > 0) s->allocated += delta;
    else s->freed -= delta;
    if (s->current > s->peak) s->peak = s->current;
}

static int is_split(const mgpu_mem_block *b) { return b->prev != NULL || b->next != NULL; }

/*--- Block structs (recycled: malloc/free pairs should not call malloc) ----*/

mgpu_mem_block *mem_block_new(mgpu_caching *a)
{
    mgpu_mem_block *b = a->spare;
    if (b) a->spare = b->next;
    else if (!(b = malloc(sizeof *b))) return NULL;
    memset(b, 0, sizeof *b);
    return b;
}

void mem_block_delete(mgpu_caching *a, mgpu_mem_block *b)
{
    b->next = a->spare;
    a->spare = b;
}

/*--- Pools: free blocks sorted by (stream, size, address) -------------------*/

static int block_less(const mgpu_mem_block *b, uintptr_t stream, size_t size, uintptr_t ptr)
{
    if (b->stream != stream) return b->stream < stream;
    if (b->size != size) return b->size < size;
    return b->ptr < ptr;
}

static int lower_bound(const mem_pool *p, uintptr_t stream, size_t size, uintptr_t ptr)
{
    int lo = 0, hi = p->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (block_less(p->v[mid], stream, size, ptr)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

mem_pool *mem_pool_of(mgpu_caching *a, int large, int phantom) { return &a->pools[phantom * 2 + large]; }

/* Insert a free block; it counts as an inactive split when its segment also
 * holds other blocks (PyTorch's inactive_split). */
mgpu_result mem_pool_insert(mgpu_caching *a, mgpu_mem_block *b)
{
    mem_pool *p = mem_pool_of(a, b->large, b->phantom);
    if (p->n == p->cap) {
        int cap = p->cap ? p->cap * 2 : 32;
        mgpu_mem_block **v = realloc(p->v, (size_t)cap * sizeof *v);
        if (!v) return MGPU_ERR_NOMEM;
        p->v = v;
        p->cap = cap;
    }
    int i = lower_bound(p, b->stream, b->size, b->ptr);
    memmove(p->v + i + 1, p->v + i, (size_t)(p->n - i) * sizeof *p->v);
    p->v[i] = b;
    p->n++;
    if (is_split(b)) {
        mem_stat_add(&a->st.inactive_split_bytes, (int64_t)b->size);
        mem_stat_add(&a->st.inactive_split, 1);
    }
    return MGPU_OK;
}

void mem_pool_remove(mgpu_caching *a, mgpu_mem_block *b)
{
    mem_pool *p = mem_pool_of(a, b->large, b->phantom);
    int i = lower_bound(p, b->stream, b->size, b->ptr);
    if (i >= p->n || p->v[i] != b) return; /* not in the pool: nothing to do */
    memmove(p->v + i, p->v + i + 1, (size_t)(p->n - i - 1) * sizeof *p->v);
    p->n--;
    if (is_split(b)) {
        mem_stat_add(&a->st.inactive_split_bytes, -(int64_t)b->size);
        mem_stat_add(&a->st.inactive_split, -1);
    }
}

/*--- Segments -------------------------------------------------------------*/

static void segment_link(mgpu_caching *a, mgpu_mem_segment *s)
{
    s->next = a->segments;
    if (a->segments) a->segments->prev = s;
    a->segments = s;
}

void mem_segment_unlink(mgpu_caching *a, mgpu_mem_segment *s)
{
    if (s->prev) s->prev->next = s->next;
    else a->segments = s->next;
    if (s->next) s->next->prev = s->prev;
}

static mgpu_result segment_alloc(mgpu_caching *a, size_t size, uintptr_t stream, int large, int phantom,
                                 mgpu_mem_block **out)
{
    mgpu_mem_segment *s = calloc(1, sizeof *s);
    mgpu_mem_block *b = mem_block_new(a);
    if (!s || !b) {
        free(s);
        if (b) mem_block_delete(a, b);
        return MGPU_ERR_NOMEM;
    }
    uintptr_t base = 0;
    mgpu_result r = a->prov.seg_alloc(a->prov.ctx, size, phantom, &base, &s->handle);
    if (r != MGPU_OK) {
        free(s);
        mem_block_delete(a, b);
        return r;
    }
    a->st.num_device_alloc++;
    s->base = base;
    s->size = size;
    s->phantom = phantom;
    s->head = b;
    segment_link(a, s);
    b->ptr = base;
    b->size = size;
    b->stream = stream;
    b->large = large;
    b->phantom = phantom;
    b->seg = s;
    mem_stat_add(&a->st.reserved_bytes, (int64_t)size);
    mem_stat_add(&a->st.segment, 1);
    *out = b;
    return MGPU_OK;
}

/* Give a whole free segment back to the provider (b is its only block and
 * is not in a pool). */
static void segment_release(mgpu_caching *a, mgpu_mem_block *b)
{
    mgpu_mem_segment *s = b->seg;
    a->prov.seg_free(a->prov.ctx, s->handle);
    a->st.num_device_free++;
    mem_stat_add(&a->st.reserved_bytes, -(int64_t)s->size);
    mem_stat_add(&a->st.segment, -1);
    mem_segment_unlink(a, s);
    free(s);
    mem_block_delete(a, b);
}

static int whole_free_segment(const mgpu_mem_block *b)
{
    return !b->allocated && !b->prev && !b->next && !b->seg->expandable;
}

/* Release fully free segments of the given pool, all of them (want == 0)
 * or, as PyTorch's release_available_cached_blocks does with max_split_size,
 * the oversize ones until `want` bytes are back: the smallest that covers it
 * alone, else the largest first. */
static size_t release_pool(mgpu_caching *a, mem_pool *p, size_t want)
{
    size_t freed = 0;
    if (want) {
        mgpu_mem_block *best = NULL;
        for (int i = 0; i < p->n; i++) {
            mgpu_mem_block *b = p->v[i];
            if (whole_free_segment(b) && b->size >= a->conf.max_split_size && b->size >= want &&
                (!best || b->size < best->size))
                best = b;
        }
        if (best) {
            mem_pool_remove(a, best);
            freed = best->size;
            segment_release(a, best);
            return freed;
        }
        while (freed < want) {
            mgpu_mem_block *big = NULL;
            for (int i = 0; i < p->n; i++)
                if (whole_free_segment(p->v[i]) && p->v[i]->size >= a->conf.max_split_size &&
                    (!big || p->v[i]->size > big->size))
                    big = p->v[i];
            if (!big) break;
            mem_pool_remove(a, big);
            freed += big->size;
            segment_release(a, big);
        }
        return freed;
    }
    for (int i = p->n - 1; i >= 0; i--) {
        if (i >= p->n) continue;
        mgpu_mem_block *b = p->v[i];
        if (!whole_free_segment(b)) continue;
        mem_pool_remove(a, b);
        freed += b->size;
        segment_release(a, b);
    }
    return freed;
}

void mgpu_caching_empty_cache(mgpu_caching *a)
{
    for (int i = 0; i < 4; i++) release_pool(a, &a->pools[i], 0);
    mem_expand_trim_all(a);
}

/*--- Allocation -----------------------------------------------------------*/

/* The smallest cached block of this stream that fits, under PyTorch's
 * max_split_size rules: an oversize block (>= max_split_size) never serves
 * a smaller request, and serves a big one only when it wastes less than a
 * large buffer (20 MiB). */
static mgpu_mem_block *take_free_block(mgpu_caching *a, mem_pool *p, uintptr_t stream, size_t size)
{
    int i = lower_bound(p, stream, size, 0);
    if (i >= p->n) return NULL;
    mgpu_mem_block *b = p->v[i];
    if (b->stream != stream) return NULL;
    if (!b->seg->expandable) {
        uint64_t ms = a->conf.max_split_size;
        if (size < ms && b->size >= ms) return NULL;
        if (size >= ms && b->size >= size + MGPU_MEM_LARGE_BUFFER) return NULL;
    }
    mem_pool_remove(a, b);
    return b;
}

static int should_split(const mgpu_caching *a, const mgpu_mem_block *b, size_t size)
{
    size_t rest = b->size - size;
    /* In an expandable segment the rest stays contiguous with what is
     * mapped next, so any usable rest is worth keeping (PyTorch does the same). */
    if (!b->large || b->seg->expandable) return rest >= MGPU_MEM_MIN_BLOCK;
    return size < a->conf.max_split_size && rest > MGPU_MEM_SMALL_SIZE;
}

/* One attempt at a new segment (or a bigger mapping) for the request. */
static mgpu_result grow(mgpu_caching *a, size_t size, uintptr_t stream, int large, int phantom, mgpu_mem_block **out)
{
    if (large && mem_expand_enabled(a) && (!phantom || a->prov.expand_phantom))
        return mem_expand_grow(a, stream, size, phantom, out);
    return segment_alloc(a, mgpu_mem_allocation_size(size), stream, large, phantom, out);
}

mgpu_result mgpu_caching_malloc(mgpu_caching *a, size_t bytes, uintptr_t stream, int phantom,
                                mgpu_mem_block **out, mgpu_mem_oom *oom)
{
    *out = NULL;
    size_t size = mgpu_mem_round_size(bytes);
    int large = size > MGPU_MEM_SMALL_SIZE;
    mem_pool *p = mem_pool_of(a, large, phantom);
    mgpu_mem_block *b = take_free_block(a, p, stream, size);
    mgpu_result r = MGPU_OK;
    if (!b) {
        r = grow(a, size, stream, large, phantom, &b);
        if (r == MGPU_ERR_DEVICE_OOM) {
            /* Free and retry: first what max_split_size makes useless for
             * this request, then the whole cache. */
            if (a->conf.max_split_size != UINT64_MAX && release_pool(a, p, size) > 0)
                r = grow(a, size, stream, large, phantom, &b);
            if (r == MGPU_ERR_DEVICE_OOM) {
                mgpu_caching_empty_cache(a);
                r = grow(a, size, stream, large, phantom, &b);
            }
            if (r == MGPU_OK) a->st.num_alloc_retries++;
        }
    }
    if (r != MGPU_OK) {
        if (r == MGPU_ERR_DEVICE_OOM) {
            a->st.num_ooms++;
            if (oom) {
                memset(oom, 0, sizeof *oom);
                oom->requested = bytes;
                oom->alloc_size = large && mem_expand_enabled(a) && (!phantom || a->prov.expand_phantom)
                                      ? size
                                      : mgpu_mem_allocation_size(size);
                oom->allocated = (uint64_t)a->st.allocated_bytes.current;
                oom->reserved = (uint64_t)a->st.reserved_bytes.current;
                oom->phantom = (uint64_t)a->st.phantom_bytes.current;
                oom->largest_free = mem_largest_free(a);
                oom->phantom_request = phantom;
                oom->expandable = a->conf.expandable_segments;
            }
        }
        return r;
    }
    if (should_split(a, b, size)) {
        mgpu_mem_block *rest = mem_block_new(a);
        if (!rest) {
            mem_pool_insert(a, b);
            return MGPU_ERR_NOMEM;
        }
        *rest = *b;
        rest->ptr = b->ptr + size;
        rest->size = b->size - size;
        rest->prev = b;
        if (b->next) b->next->prev = rest;
        b->next = rest;
        b->size = size;
        if (mem_pool_insert(a, rest) != MGPU_OK) { /* undo: merge back */
            b->size += rest->size;
            b->next = rest->next;
            if (b->next) b->next->prev = b;
            mem_block_delete(a, rest);
            mem_pool_insert(a, b);
            return MGPU_ERR_NOMEM;
        }
    }
    b->allocated = 1;
    b->requested = bytes;
    mem_stat_add(&a->st.allocated_bytes, (int64_t)b->size);
    mem_stat_add(&a->st.requested_bytes, (int64_t)bytes);
    mem_stat_add(&a->st.active_bytes, (int64_t)b->size);
    mem_stat_add(&a->st.allocation, 1);
    mem_stat_add(&a->st.active, 1);
    if (phantom) mem_stat_add(&a->st.phantom_bytes, (int64_t)b->size);
    *out = b;
    return MGPU_OK;
}

/* Absorb `next` (free, not in a pool) into b. */
static void merge_next(mgpu_caching *a, mgpu_mem_block *b, mgpu_mem_block *next)
{
    b->size += next->size;
    b->next = next->next;
    if (b->next) b->next->prev = b;
    mem_block_delete(a, next);
}

void mgpu_caching_free(mgpu_caching *a, mgpu_mem_block *b)
{
    if (!b || !b->allocated) return;
    mem_stat_add(&a->st.allocated_bytes, -(int64_t)b->size);
    mem_stat_add(&a->st.requested_bytes, -(int64_t)b->requested);
    mem_stat_add(&a->st.active_bytes, -(int64_t)b->size);
    mem_stat_add(&a->st.allocation, -1);
    mem_stat_add(&a->st.active, -1);
    if (b->phantom) mem_stat_add(&a->st.phantom_bytes, -(int64_t)b->size);
    b->allocated = 0;
    b->requested = 0;
    /* Merge with free neighbours; never with an unmapped hole. */
    if (b->next && !b->next->allocated && !b->next->unmapped) {
        mem_pool_remove(a, b->next);
        merge_next(a, b, b->next);
    }
    if (b->prev && !b->prev->allocated && !b->prev->unmapped) {
        mgpu_mem_block *prev = b->prev;
        mem_pool_remove(a, prev);
        merge_next(a, prev, b);
        b = prev;
    }
    if (b->seg->release_on_free && whole_free_segment(b)) {
        segment_release(a, b);
        return;
    }
    if (mem_pool_insert(a, b) != MGPU_OK && whole_free_segment(b)) segment_release(a, b);
}

/*--- Queries --------------------------------------------------------------*/

uint64_t mem_largest_free(const mgpu_caching *a)
{
    uint64_t best = 0;
    for (int i = 0; i < 4; i++) {
        const mem_pool *p = &a->pools[i];
        for (int j = 0; j < p->n; j++)
            if (p->v[j]->size > best) best = p->v[j]->size;
    }
    return best;
}

void mgpu_caching_stats(const mgpu_caching *a, mgpu_memory_stats *out)
{
    *out = a->st;
    out->caching = 1;
    out->largest_free_block = mem_largest_free(a);
    out->max_split_size = a->conf.max_split_size;
}

void mgpu_caching_reset_peak(mgpu_caching *a)
{
    mgpu_mem_stat *all[] = {&a->st.allocated_bytes, &a->st.requested_bytes, &a->st.reserved_bytes,
                            &a->st.active_bytes,    &a->st.inactive_split_bytes, &a->st.phantom_bytes,
                            &a->st.allocation,      &a->st.segment,          &a->st.active,
                            &a->st.inactive_split};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) all[i]->peak = all[i]->current;
}

void mgpu_caching_set_conf(mgpu_caching *a, const mgpu_alloc_conf *conf) { a->conf = *conf; }

void *mgpu_mem_block_segment(const mgpu_mem_block *b, uintptr_t *base, size_t *size, int *expandable)
{
    if (base) *base = b->seg->base;
    if (size) *size = b->seg->size;
    if (expandable) *expandable = b->seg->expandable;
    return b->seg->handle;
}

void mgpu_mem_block_release_on_free(mgpu_mem_block *b) { b->seg->release_on_free = 1; }

/*--- Life -----------------------------------------------------------------*/

mgpu_result mgpu_caching_create(const mgpu_alloc_conf *conf, const mgpu_mem_provider *p, mgpu_caching **out)
{
    mgpu_caching *a = calloc(1, sizeof *a);
    if (!a) return MGPU_ERR_NOMEM;
    a->conf = *conf;
    a->prov = *p;
    for (int i = 0; i < 4; i++) {
        a->pools[i].large = i & 1;
        a->pools[i].phantom = i >> 1;
    }
    *out = a;
    return MGPU_OK;
}

void mgpu_caching_destroy(mgpu_caching *a)
{
    if (!a) return;
    mgpu_caching_empty_cache(a);
    mem_expand_release_all(a);
    /* Segments still holding allocated blocks: the caller's buffers outlive
     * the allocator; the backend's close frees the device memory. Free our
     * bookkeeping only. */
    while (a->segments) {
        mgpu_mem_segment *s = a->segments;
        mem_segment_unlink(a, s);
        for (mgpu_mem_block *b = s->head; b;) {
            mgpu_mem_block *n = b->next;
            if (!b->allocated) free(b);
            else b->seg = NULL, b->prev = b->next = NULL;
            b = n;
        }
        free(s);
    }
    for (int i = 0; i < 4; i++) free(a->pools[i].v);
    while (a->spare) {
        mgpu_mem_block *b = a->spare;
        a->spare = b->next;
        free(b);
    }
    free(a);
}
