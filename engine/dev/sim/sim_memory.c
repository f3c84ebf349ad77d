/* sim_memory.c - the sim backend's memory: every kind is real, aligned host
 * memory (so data operations are exact); device memory is accounted per
 * device against the modelled GPU's size and is a mapping of its own, so it
 * can be shared with other processes (sim_ipc.c); a registry answers UVA
 * pointer attributes for any address inside a live buffer. */
#include "dev/sim/sim_ipc.h"
#include "dev/mem/mem_dev.h"
#include "mgpu/host_memory.h"
#include "mgpu/size.h"

#define SIM_HOST_CHECK_MIN ((uint64_t)4 << 20)
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

mgpu_result sim_registry_add_locked(sim_state *st, mgpu_buffer *buf)
{
    if (st->nbufs == st->cap_bufs) {
        int cap = st->cap_bufs ? st->cap_bufs * 2 : 64;
        mgpu_buffer **n = realloc(st->bufs, (size_t)cap * sizeof *n);
        if (!n) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory growing the sim allocation registry");
        st->bufs = n;
        st->cap_bufs = cap;
    }
    st->bufs[st->nbufs++] = buf;
    return MGPU_OK;
}

void sim_registry_remove_locked(sim_state *st, mgpu_buffer *buf)
{
    for (int i = 0; i < st->nbufs; i++)
        if (st->bufs[i] == buf) {
            st->bufs[i] = st->bufs[--st->nbufs];
            return;
        }
}

mgpu_result sim_mem_alloc_locked(sim_state *st, mgpu_buffer *buf)
{
    char a[32], b[32], c[32];
    if (buf->kind == MGPU_MEM_DEVICE) {
        int d = buf->device;
        uint64_t free_b = st->mem_total[d] - st->mem_used[d];
        if ((uint64_t)buf->bytes > free_b)
            return mgpu_fail(MGPU_ERR_DEVICE_OOM,
                             "out of memory on simulated GPU %d: tried to allocate %s (%zu bytes); "
                             "%s of %s is free. Free buffers you no longer need or allocate less",
                             d, mgpu_human_bytes(buf->bytes, a, sizeof a), buf->bytes, mgpu_human_bytes(free_b, b, sizeof b),
                             mgpu_human_bytes(st->mem_total[d], c, sizeof c));
    }
    if (buf->kind == MGPU_MEM_DEVICE && buf->phantom) {
        /* Shape-only: counted against the GPU, backed by nothing. */
        MGPU_CHECK(mgpu_phantom_va_reserve(buf->bytes, &buf->ptr));
        mgpu_result r = sim_registry_add_locked(st, buf);
        if (r != MGPU_OK) {
            mgpu_phantom_va_release(buf->ptr, buf->bytes);
            buf->ptr = NULL;
            return r;
        }
        st->mem_used[buf->device] += buf->bytes;
        return MGPU_OK;
    }
    /* The sim keeps every kind in host memory: refuse what this machine
     * cannot give before asking malloc, so the message names the cause
     * (and an over-large request never reaches a sanitizer's allocator).
     * The figure is bench's (half of what is available); small requests
     * are not worth reading /proc/meminfo for. */
    uint64_t avail = buf->bytes >= SIM_HOST_CHECK_MIN ? mgpu_host_available_bytes() : UINT64_MAX;
    if ((uint64_t)buf->bytes > avail / 2)
        return mgpu_fail(MGPU_ERR_NOMEM,
                         "cannot allocate %s of %s memory on the sim (it keeps all memory in host RAM): this "
                         "machine has %s of host memory available and one buffer may take half of it; allocate "
                         "less, or use phantom tensors for timing only",
                         mgpu_human_bytes(buf->bytes, a, sizeof a), mgpu_mem_kind_name(buf->kind),
                         mgpu_human_bytes(avail, b, sizeof b));
    if (buf->kind == MGPU_MEM_DEVICE) {
        MGPU_CHECK(sim_devmem_alloc(buf));
        mgpu_result r = sim_registry_add_locked(st, buf);
        if (r != MGPU_OK) {
            sim_devmem_release(buf);
            return r;
        }
        st->mem_used[buf->device] += buf->bytes;
        return MGPU_OK;
    }
    /* Host kinds: round up so the whole allocation is a multiple of the alignment.
     * Large buffers go on 2 MiB boundaries with transparent huge pages
     * asked for: a sim GPU buffer is touched whole (fills, collectives),
     * and faulting it in 4 KiB pages cost more than the data movement
     * itself (most of an 8-rank 256 MiB bench in a VM). */
    size_t align = buf->bytes >= SIM_HUGE_MIN ? SIM_HUGE_ALIGN : SIM_ALIGN;
    size_t rounded = (buf->bytes + align - 1) / align * align;
    void *p = NULL;
    if (posix_memalign(&p, align, rounded) != 0 || !p)
        return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory allocating %s of simulated %s memory",
                         mgpu_human_bytes(buf->bytes, a, sizeof a), mgpu_mem_kind_name(buf->kind));
    if (align == SIM_HUGE_ALIGN) (void)madvise(p, rounded, MADV_HUGEPAGE); /* a hint: fine if refused */
    buf->ptr = p;
    mgpu_result r = sim_registry_add_locked(st, buf);
    if (r != MGPU_OK) {
        free(p);
        buf->ptr = NULL;
        return r;
    }
    return MGPU_OK;
}

void sim_mem_free_locked(sim_state *st, mgpu_buffer *buf)
{
    for (int i = 0; i < st->nbufs; i++) {
        if (st->bufs[i] != buf) continue;
        st->bufs[i] = st->bufs[--st->nbufs];
        if (buf->kind == MGPU_MEM_DEVICE && buf->phantom) {
            st->mem_used[buf->device] -= buf->bytes;
            mgpu_phantom_va_release(buf->ptr, buf->bytes);
        } else if (buf->kind == MGPU_MEM_DEVICE) {
            /* opened memory is counted in the exporter's process */
            const sim_devmem *m = buf->impl;
            if (m && !m->imported) st->mem_used[buf->device] -= buf->bytes;
            sim_devmem_release(buf);
        } else {
            free(buf->ptr);
        }
        buf->ptr = NULL;
        return;
    }
}

/* Attributes as CUDA 12 reports them: device memory has a device pointer
 * and no host pointer; pinned memory has both (the same UVA address);
 * pageable memory the sim allocated is reported as PAGEABLE (CUDA says
 * "unregistered": host pointer only). Pointers the sim did not allocate stay
 * MGPU_MEM_UNKNOWN with neither pointer. */
void sim_pointer_attributes_locked(sim_state *st, const void *ptr, mgpu_ptr_attr *out)
{
    uintptr_t p = (uintptr_t)ptr;
    for (int i = 0; i < st->nbufs; i++) {
        const mgpu_buffer *b = st->bufs[i];
        uintptr_t base = (uintptr_t)b->ptr;
        if (p < base || p - base >= b->bytes) continue;
        out->kind = b->kind;
        out->device = b->kind == MGPU_MEM_DEVICE ? b->device : -1;
        out->device_ptr = b->kind == MGPU_MEM_PAGEABLE ? NULL : (void *)ptr;
        out->host_ptr = b->kind == MGPU_MEM_DEVICE ? NULL : (void *)ptr;
        return;
    }
}

void sim_registry_free(sim_state *st)
{
    free(st->bufs);
    st->bufs = NULL;
    st->nbufs = st->cap_bufs = 0;
}
