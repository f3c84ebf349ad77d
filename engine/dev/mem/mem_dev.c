/* mem_dev.c - a backend's device memory allocators: one caching allocator
 * per device (created at first use) over the backend's own allocation ops,
 * or plain allocations with the same statistics kept; the public memory
 * API of mgpu/mem.h. */
#include "dev/mem/mem_dev.h"
#include "dev/mem/caching.h"
#include "mgpu/size.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct prov_ctx {
    mgpu_backend *be;
    int dev;
} prov_ctx;

struct mgpu_mem_state {
    mgpu_alloc_conf conf;
    pthread_mutex_t lock;
    int ndev;
    mgpu_caching **alloc;      /* [ndev], NULL until first used */
    prov_ctx *ctx;             /* [ndev] */
    mgpu_memory_stats *plain;  /* [ndev]: plain and uncached allocations */
};

/*--- The provider: segments are the backend's own device buffers ----------*/

static mgpu_buffer *segment_buffer(prov_ctx *c, size_t bytes, int phantom)
{
    mgpu_buffer *seg = calloc(1, sizeof *seg);
    if (!seg) return NULL;
    seg->be = c->be;
    seg->kind = MGPU_MEM_DEVICE;
    seg->device = c->dev;
    seg->bytes = bytes;
    seg->phantom = phantom;
    return seg;
}

static mgpu_result seg_alloc(void *ctx, size_t bytes, int phantom, uintptr_t *base, void **handle)
{
    prov_ctx *c = ctx;
    mgpu_buffer *seg = segment_buffer(c, bytes, phantom);
    if (!seg) return MGPU_ERR_NOMEM;
    mgpu_result r = c->be->ops->mem_alloc(c->be, seg);
    if (r != MGPU_OK) {
        free(seg);
        return r;
    }
    *base = (uintptr_t)seg->ptr;
    *handle = seg;
    return MGPU_OK;
}

static void seg_free(void *ctx, void *handle)
{
    prov_ctx *c = ctx;
    c->be->ops->mem_free(c->be, handle);
    free(handle);
}

static mgpu_result va_reserve(void *ctx, size_t bytes, int phantom, uintptr_t *base, void **handle)
{
    prov_ctx *c = ctx;
    mgpu_buffer *seg = segment_buffer(c, bytes, phantom);
    if (!seg) return MGPU_ERR_NOMEM;
    mgpu_result r = c->be->ops->vmm_reserve(c->be, seg);
    if (r != MGPU_OK) {
        free(seg);
        return r;
    }
    *base = (uintptr_t)seg->ptr;
    *handle = seg;
    return MGPU_OK;
}

static mgpu_result va_map(void *ctx, void *handle, size_t off, size_t bytes)
{
    (void)ctx;
    mgpu_buffer *seg = handle;
    return seg->be->ops->vmm_map(seg, off, bytes);
}

static void va_unmap(void *ctx, void *handle, size_t off, size_t bytes)
{
    (void)ctx;
    mgpu_buffer *seg = handle;
    seg->be->ops->vmm_unmap(seg, off, bytes);
}

static void va_release(void *ctx, void *handle)
{
    (void)ctx;
    mgpu_buffer *seg = handle;
    seg->be->ops->vmm_release(seg);
    free(seg);
}

/*--- State ----------------------------------------------------------------*/

mgpu_result mgpu_mem_state_open(mgpu_backend *be, const char *conf_text)
{
    if (!conf_text) conf_text = getenv("MGPU_ALLOC_CONF");
    mgpu_alloc_conf conf;
    MGPU_CHECK(mgpu_alloc_conf_parse(conf_text, &conf));
    struct mgpu_mem_state *m = calloc(1, sizeof *m);
    int n = be->device_count > 0 ? be->device_count : 1;
    if (m) {
        m->alloc = calloc((size_t)n, sizeof *m->alloc);
        m->ctx = calloc((size_t)n, sizeof *m->ctx);
        m->plain = calloc((size_t)n, sizeof *m->plain);
    }
    if (!m || !m->alloc || !m->ctx || !m->plain) {
        if (m) free(m->alloc), free(m->ctx), free(m->plain);
        free(m);
        return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory setting up the device memory allocator");
    }
    m->conf = conf;
    m->ndev = n;
    pthread_mutex_init(&m->lock, NULL);
    be->mem = m;
    return MGPU_OK;
}

void mgpu_mem_state_close(mgpu_backend *be)
{
    struct mgpu_mem_state *m = be->mem;
    if (!m) return;
    for (int d = 0; d < m->ndev; d++) mgpu_caching_destroy(m->alloc[d]);
    pthread_mutex_destroy(&m->lock);
    free(m->alloc);
    free(m->ctx);
    free(m->plain);
    free(m);
    be->mem = NULL;
}

const mgpu_alloc_conf *mgpu_memory_conf(const mgpu_backend *be) { return &be->mem->conf; }

/* Called with the lock held. */
static mgpu_result allocator_of(struct mgpu_mem_state *m, mgpu_backend *be, int dev, mgpu_caching **out)
{
    if (m->alloc[dev]) {
        *out = m->alloc[dev];
        return MGPU_OK;
    }
    m->ctx[dev] = (prov_ctx){be, dev};
    mgpu_mem_provider p = {.ctx = &m->ctx[dev], .seg_alloc = seg_alloc, .seg_free = seg_free};
    /* The mapping ops are there whenever the backend has them, so that
     * expandable_segments can also be turned on later (memory_configure). */
    if (be->ops->vmm_reserve && be->ops->vmm_granularity) {
        uint64_t fr = 0, total = 0;
        MGPU_CHECK(be->ops->mem_info(be, dev, &fr, &total));
        p.va_reserve = va_reserve;
        p.va_map = va_map;
        p.va_unmap = va_unmap;
        p.va_release = va_release;
        p.granularity = be->ops->vmm_granularity(be, dev);
        /* Address space is cheap and only mapped pages count: twice the
         * device lets a request be mapped past the live blocks after free
         * pages between them were unmapped (the cure for fragmentation). */
        p.va_size = 2 * total;
        /* The sim maps phantom pages as it maps real ones (counted, never
         * touched), so phantom tensors fragment and defragment alike. */
        p.expand_phantom = be->ops->stream_model_time != NULL;
    }
    if (mgpu_caching_create(&m->conf, &p, &m->alloc[dev]) != MGPU_OK)
        return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory creating the caching allocator of device %d", dev);
    *out = m->alloc[dev];
    return MGPU_OK;
}

/*--- Plain allocations: one backend buffer each, counted the same way -------*/

/* mem_block of a plain device buffer we counted (buffers opened from an IPC
 * handle have NULL: they are the exporter's memory). */
static mgpu_mem_block plain_mark;

static void plain_count(mgpu_memory_stats *s, const mgpu_buffer *buf, int sign)
{
    int64_t b = sign * (int64_t)buf->bytes;
    mgpu_mem_stat *bytes[] = {&s->allocated_bytes, &s->requested_bytes, &s->reserved_bytes, &s->active_bytes};
    mgpu_mem_stat *counts[] = {&s->allocation, &s->segment, &s->active};
    for (int i = 0; i < 4; i++) {
        bytes[i]->current += b;
        if (b > 0) bytes[i]->allocated += b;
        else bytes[i]->freed -= b;
        if (bytes[i]->current > bytes[i]->peak) bytes[i]->peak = bytes[i]->current;
    }
    for (int i = 0; i < 3; i++) {
        counts[i]->current += sign;
        if (sign > 0) counts[i]->allocated++;
        else counts[i]->freed++;
        if (counts[i]->current > counts[i]->peak) counts[i]->peak = counts[i]->current;
    }
    if (buf->phantom) {
        s->phantom_bytes.current += b;
        if (s->phantom_bytes.current > s->phantom_bytes.peak) s->phantom_bytes.peak = s->phantom_bytes.current;
    }
    if (sign > 0) s->num_device_alloc++;
    else s->num_device_free++;
}

static mgpu_result plain_alloc(struct mgpu_mem_state *m, mgpu_buffer *buf)
{
    mgpu_backend *be = buf->be;
    mgpu_result r = be->ops->mem_alloc(be, buf);
    pthread_mutex_lock(&m->lock);
    mgpu_memory_stats s = m->plain[buf->device];
    if (r == MGPU_OK) {
        plain_count(&m->plain[buf->device], buf, 1);
        buf->mem_block = &plain_mark;
    }
    else if (r == MGPU_ERR_DEVICE_OOM) m->plain[buf->device].num_ooms++;
    pthread_mutex_unlock(&m->lock);
    if (r == MGPU_ERR_DEVICE_OOM) {
        mgpu_mem_oom o = {.requested = buf->bytes,
                          .alloc_size = buf->bytes,
                          .allocated = (uint64_t)s.allocated_bytes.current,
                          .reserved = (uint64_t)s.reserved_bytes.current,
                          .phantom = (uint64_t)s.phantom_bytes.current,
                          .phantom_request = buf->phantom};
        return mgpu_mem_oom_fail(be, buf->device, &o, 0);
    }
    return r;
}

/*--- Device buffers -------------------------------------------------------*/

mgpu_result mgpu_mem_device_alloc(mgpu_buffer *buf, uint64_t stream, int cached)
{
    mgpu_backend *be = buf->be;
    struct mgpu_mem_state *m = be->mem;
    if (!cached || !m->conf.caching) return plain_alloc(m, buf);
    mgpu_mem_block *blk = NULL;
    mgpu_mem_oom oom;
    pthread_mutex_lock(&m->lock);
    mgpu_caching *a = NULL;
    mgpu_error_clear(); /* so a backend's own NOMEM sentence can be told from the allocator's bare code */
    mgpu_result r = allocator_of(m, be, buf->device, &a);
    if (r == MGPU_OK) r = mgpu_caching_malloc(a, buf->bytes, (uintptr_t)stream, buf->phantom, &blk, &oom);
    pthread_mutex_unlock(&m->lock);
    if (r == MGPU_ERR_DEVICE_OOM) return mgpu_mem_oom_fail(be, buf->device, &oom, 1);
    if (r == MGPU_ERR_NOMEM && mgpu_error_code() != MGPU_ERR_NOMEM)
        return mgpu_fail(r, "out of host memory in the caching allocator");
    if (r != MGPU_OK) return r; /* the backend's own error, with its message */
    mgpu_buffer *seg = mgpu_mem_block_segment(blk, NULL, NULL, NULL);
    buf->ptr = (void *)blk->ptr;
    buf->impl = seg->impl;
    buf->mem_block = blk;
    return MGPU_OK;
}

void mgpu_mem_device_free(mgpu_buffer *buf)
{
    mgpu_backend *be = buf->be;
    struct mgpu_mem_state *m = be->mem;
    mgpu_mem_block *blk = buf->mem_block;
    if (!blk || blk == &plain_mark) {
        if (blk) {
            pthread_mutex_lock(&m->lock);
            plain_count(&m->plain[buf->device], buf, -1);
            pthread_mutex_unlock(&m->lock);
        }
        buf->mem_block = NULL;
        be->ops->mem_free(be, buf);
        return;
    }
    /* On a GPU a block of no stream may still be in use by any stream: wait
     * for the device first, as cudaFree does, before anyone else can get it.
     * Stream blocks are reused in that stream's order, which needs no wait;
     * so is everything on the sim, which moves data when work is queued
     * (a wait there would only serialise the modelled timeline, which
     * PyTorch's allocator does not). */
    if (!blk->stream && !blk->phantom && !be->ops->stream_model_time)
        (void)be->ops->device_synchronize(be, buf->device);
    pthread_mutex_lock(&m->lock);
    mgpu_caching_free(m->alloc[buf->device], blk);
    pthread_mutex_unlock(&m->lock);
    buf->mem_block = NULL;
    buf->ptr = NULL;
    buf->impl = NULL;
}

mgpu_result mgpu_mem_export_view(mgpu_buffer *buf, mgpu_buffer **seg, size_t *offset)
{
    *seg = buf;
    *offset = 0;
    if (!buf->mem_block || buf->mem_block == &plain_mark) return MGPU_OK;
    struct mgpu_mem_state *m = buf->be->mem;
    uintptr_t base = 0;
    int expandable = 0;
    pthread_mutex_lock(&m->lock);
    mgpu_buffer *s = mgpu_mem_block_segment(buf->mem_block, &base, NULL, &expandable);
    if (!expandable) mgpu_mem_block_release_on_free(buf->mem_block);
    pthread_mutex_unlock(&m->lock);
    if (expandable)
        return mgpu_fail(MGPU_ERR_UNSUPPORTED,
                         "IPC export: this buffer lives in an expandable segment (MGPU_ALLOC_CONF="
                         "expandable_segments:True), which CUDA IPC handles cannot share; allocate it "
                         "with expandable_segments:False");
    *seg = s;
    *offset = (size_t)((uintptr_t)buf->ptr - base);
    return MGPU_OK;
}

/*--- The public API -------------------------------------------------------*/

mgpu_result mgpu_memory_stats_get(mgpu_backend *be, int dev, mgpu_memory_stats *out)
{
    MGPU_CHECK(mgpu_dev_check_device(be, dev));
    struct mgpu_mem_state *m = be->mem;
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&m->lock);
    if (!m->conf.caching) *out = m->plain[dev];
    else if (m->alloc[dev]) mgpu_caching_stats(m->alloc[dev], out);
    out->caching = m->conf.caching;
    out->max_split_size = m->conf.max_split_size;
    pthread_mutex_unlock(&m->lock);
    return MGPU_OK;
}

mgpu_result mgpu_memory_reset_peak(mgpu_backend *be, int dev)
{
    MGPU_CHECK(mgpu_dev_check_device(be, dev));
    struct mgpu_mem_state *m = be->mem;
    pthread_mutex_lock(&m->lock);
    if (m->alloc[dev]) mgpu_caching_reset_peak(m->alloc[dev]);
    mgpu_memory_stats *p = &m->plain[dev];
    mgpu_mem_stat *all[] = {&p->allocated_bytes, &p->requested_bytes, &p->reserved_bytes, &p->active_bytes,
                            &p->phantom_bytes,   &p->allocation,      &p->segment,        &p->active};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) all[i]->peak = all[i]->current;
    pthread_mutex_unlock(&m->lock);
    return MGPU_OK;
}

mgpu_result mgpu_memory_configure(mgpu_backend *be, const char *text)
{
    mgpu_alloc_conf conf;
    MGPU_CHECK(mgpu_alloc_conf_parse(text, &conf));
    struct mgpu_mem_state *m = be->mem;
    pthread_mutex_lock(&m->lock);
    m->conf = conf;
    for (int d = 0; d < m->ndev; d++)
        if (m->alloc[d]) mgpu_caching_set_conf(m->alloc[d], &conf);
    pthread_mutex_unlock(&m->lock);
    return MGPU_OK;
}

mgpu_result mgpu_memory_empty_cache(mgpu_backend *be, int dev)
{
    MGPU_CHECK(mgpu_dev_check_device(be, dev));
    struct mgpu_mem_state *m = be->mem;
    pthread_mutex_lock(&m->lock);
    if (m->alloc[dev]) mgpu_caching_empty_cache(m->alloc[dev]);
    pthread_mutex_unlock(&m->lock);
    return MGPU_OK;
}

mgpu_result mgpu_phantom_check_read(const mgpu_buffer *buf, const char *what)
{
    if (!buf || !buf->phantom) return MGPU_OK;
    char sz[32];
    return mgpu_fail(MGPU_ERR_INVALID,
                     "%s: this %s buffer on device %d is phantom (shape-only, timing only): it has no "
                     "values to read. Use a real tensor where values matter",
                     what, mgpu_human_bytes(buf->bytes, sz, sizeof sz), buf->device);
}
