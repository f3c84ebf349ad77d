/* caching_expand.c - expandable segments (PYTORCH_CUDA_ALLOC_CONF=
 * expandable_segments:True): per stream, one range of address space as large
 * as the device is reserved once; memory is mapped into it in pages
 * (granularity, 2 MiB on an H100/H200) where the stream needs it, and the
 * pages under free blocks are unmapped when the cache is emptied (or an
 * allocation would fail). The holes this leaves are mapped again for the
 * next request, contiguous with the free blocks around them, so memory
 * freed between live blocks is not stranded: the fragmentation that makes a
 * large request fail with plenty free goes away. The provider maps
 * (cuMemAddressReserve, cuMemCreate + cuMemMap on cuda).
 *
 * A segment is a list of blocks in address order covering the whole range:
 * allocated, free (mapped, in a pool) or unmapped holes (in no pool). */
#include "dev/mem/caching_internal.h"
#include <stdlib.h>

int mem_expand_enabled(const mgpu_caching *a)
{
    const mgpu_mem_provider *p = &a->prov;
    return a->conf.expandable_segments && p->va_reserve && p->va_map && p->va_unmap && p->va_release &&
           p->granularity > 0 && p->va_size > 0;
}

static size_t round_up(size_t v, size_t g) { return (v + g - 1) / g * g; }
static size_t round_down(size_t v, size_t g) { return v / g * g; }

static mgpu_mem_segment *segment_of_stream(mgpu_caching *a, uintptr_t stream, int phantom)
{
    for (mgpu_mem_segment *s = a->segments; s; s = s->next)
        if (s->expandable && s->stream == stream && s->phantom == phantom) return s;
    return NULL;
}

static mgpu_result new_segment(mgpu_caching *a, uintptr_t stream, int phantom, mgpu_mem_segment **out)
{
    mgpu_mem_segment *s = calloc(1, sizeof *s);
    mgpu_mem_block *hole = mem_block_new(a);
    if (!s || !hole) {
        free(s);
        if (hole) mem_block_delete(a, hole);
        return MGPU_ERR_NOMEM;
    }
    size_t va = round_up((size_t)a->prov.va_size, a->prov.granularity);
    mgpu_result r = a->prov.va_reserve(a->prov.ctx, va, phantom, &s->base, &s->handle);
    if (r != MGPU_OK) {
        free(s);
        mem_block_delete(a, hole);
        return r;
    }
    s->expandable = 1;
    s->phantom = phantom;
    s->stream = stream;
    s->va_size = va;
    *hole = (mgpu_mem_block){
        .ptr = s->base, .size = va, .stream = stream, .phantom = phantom, .large = 1, .unmapped = 1, .seg = s};
    s->head = hole;
    s->next = a->segments;
    if (a->segments) a->segments->prev = s;
    a->segments = s;
    mem_stat_add(&a->st.segment, 1);
    *out = s;
    return MGPU_OK;
}

/* Cut b at `size` bytes into b and `rest` (a fresh struct), which
 * copies b's state. */
static mgpu_mem_block *split_into(mgpu_mem_block *b, size_t size, mgpu_mem_block *rest)
{
    *rest = *b;
    rest->ptr = b->ptr + size;
    rest->size = b->size - size;
    rest->prev = b;
    if (b->next) b->next->prev = rest;
    b->next = rest;
    b->size = size;
    return rest;
}

static mgpu_mem_block *split_at(mgpu_caching *a, mgpu_mem_block *b, size_t size)
{
    mgpu_mem_block *rest = mem_block_new(a);
    return rest ? split_into(b, size, rest) : NULL;
}

/* Merge the blocks from `first` up to and including `last` into `first`. */
static void merge_run(mgpu_caching *a, mgpu_mem_block *first, mgpu_mem_block *last)
{
    while (first != last) {
        mgpu_mem_block *n = first->next;
        first->size += n->size;
        first->next = n->next;
        if (n->next) n->next->prev = first;
        mem_block_delete(a, n);
        if (n == last) break;
    }
}

static void merge_holes(mgpu_caching *a, mgpu_mem_block *h);

mgpu_result mem_expand_grow(mgpu_caching *a, uintptr_t stream, size_t size, int phantom, mgpu_mem_block **out)
{
    mgpu_mem_segment *s = segment_of_stream(a, stream, phantom);
    if (!s) {
        mgpu_result r = new_segment(a, stream, phantom, &s);
        if (r != MGPU_OK) return r;
    }
    /* The lowest run of blocks no one holds (free or unmapped) that is
     * big enough: mapping its holes makes it one free block. */
    mgpu_mem_block *first = NULL, *end = NULL;
    size_t total = 0;
    for (mgpu_mem_block *b = s->head; b && !end; b = b->next) {
        if (b->allocated) {
            first = NULL;
            continue;
        }
        if (!first) first = b, total = 0;
        total += b->size;
        if (total >= size) end = b;
    }
    if (!end) return MGPU_ERR_DEVICE_OOM; /* as much as the device has is in use */
    size_t acc = 0;
    mgpu_result r = MGPU_OK;
    mgpu_mem_block *x = first, *done = NULL;
    for (;;) {
        if (x->unmapped) {
            size_t want = round_up(size - acc, a->prov.granularity);
            if (want < x->size && !split_at(a, x, want)) {
                r = MGPU_ERR_NOMEM;
                break;
            }
            r = a->prov.va_map(a->prov.ctx, s->handle, (size_t)(x->ptr - s->base), x->size);
            if (r != MGPU_OK) {
                /* the device is full: join the split-off hole back, so a
                 * segment of holes alone is one hole, which is released */
                merge_holes(a, x);
                break;
            }
            x->unmapped = 0;
            a->st.num_device_alloc++;
            mem_stat_add(&a->st.reserved_bytes, (int64_t)x->size);
            s->size += x->size;
        } else {
            mem_pool_remove(a, x);
        }
        done = x;
        acc += x->size;
        if (acc >= size || x == end) break;
        x = x->next;
    }
    if (!done) return r == MGPU_OK ? MGPU_ERR_DEVICE_OOM : r;
    merge_run(a, first, done);
    if (r != MGPU_OK || acc < size) {
        /* What was mapped stays, free, for later. */
        (void)mem_pool_insert(a, first);
        return r != MGPU_OK ? r : MGPU_ERR_DEVICE_OOM;
    }
    *out = first;
    return MGPU_OK;
}

/* Join a hole with the holes next to it. */
static void merge_holes(mgpu_caching *a, mgpu_mem_block *h)
{
    if (h->prev && h->prev->unmapped) h = h->prev, merge_run(a, h, h->next);
    if (h->next && h->next->unmapped) merge_run(a, h, h->next);
}

/* Unmap the whole pages under a free block, leaving [head][hole][tail];
 * 1 when it did. */
static int unmap_free_block(mgpu_caching *a, mgpu_mem_segment *s, mgpu_mem_block *b)
{
    size_t g = a->prov.granularity, off = (size_t)(b->ptr - s->base);
    size_t lo = round_up(off, g), hi = round_down(off + b->size, g);
    if (hi <= lo) return 0;
    int need_head = lo > off, need_tail = off + b->size > hi;
    mgpu_mem_block *n1 = need_head ? mem_block_new(a) : NULL;
    mgpu_mem_block *n2 = need_tail ? mem_block_new(a) : NULL;
    if ((need_head && !n1) || (need_tail && !n2)) {
        if (n1) mem_block_delete(a, n1);
        if (n2) mem_block_delete(a, n2);
        return 0;
    }
    mem_pool_remove(a, b);
    mgpu_mem_block *hole = b;
    if (need_head) {
        hole = split_into(b, lo - off, n1);
        (void)mem_pool_insert(a, b);
    }
    if (need_tail) (void)mem_pool_insert(a, split_into(hole, hi - lo, n2));
    a->prov.va_unmap(a->prov.ctx, s->handle, lo, hi - lo);
    a->st.num_device_free++;
    mem_stat_add(&a->st.reserved_bytes, -(int64_t)(hi - lo));
    s->size -= hi - lo;
    hole->unmapped = 1;
    merge_holes(a, hole);
    return 1;
}

void mem_expand_trim_all(mgpu_caching *a)
{
    for (mgpu_mem_segment *s = a->segments; s; s = s->next) {
        if (!s->expandable) continue;
        /* Each unmap reshapes the list: start over until nothing is left
         * to unmap (what remains mapped and free is under a page). */
        for (mgpu_mem_block *b = s->head; b;)
            b = !b->allocated && !b->unmapped && unmap_free_block(a, s, b) ? s->head : b->next;
    }
}

void mem_expand_release_all(mgpu_caching *a)
{
    mgpu_mem_segment *s = a->segments;
    while (s) {
        mgpu_mem_segment *next = s->next;
        if (s->expandable && s->head && s->head->unmapped && !s->head->next) {
            a->prov.va_release(a->prov.ctx, s->handle);
            mem_block_delete(a, s->head);
            mem_stat_add(&a->st.segment, -1);
            mem_segment_unlink(a, s);
            free(s);
        }
        s = next;
    }
}
