/* sim_vmm.c - the sim's virtual memory for expandable segments (the CUDA
 * VMM calls cuMemAddressReserve / cuMemCreate + cuMemMap / cuMemUnmap,
 * modelled): a reserved range of host address space with no access, made
 * readable and writable page by page as the caching allocator maps it, and
 * counted against the simulated GPU's memory while mapped. A phantom
 * segment's pages are counted the same way and stay inaccessible. */
#include "dev/sim/sim_ipc.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define SIM_VMM_GRANULE ((size_t)2 << 20) /* cuMemGetAllocationGranularity on an H100/H200 */

mgpu_result sim_vmm_reserve(mgpu_backend *be, mgpu_buffer *seg)
{
    sim_state *st = sim_of(be);
    size_t len = (seg->bytes + SIM_VMM_GRANULE - 1) / SIM_VMM_GRANULE * SIM_VMM_GRANULE;
    size_t want = len + SIM_VMM_GRANULE;
    char *p = mmap(NULL, want, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return mgpu_fail(MGPU_ERR_NOMEM, "cannot reserve %zu bytes of address space for an expandable segment (%s)",
                         len, strerror(errno));
    char *a = (char *)(((uintptr_t)p + SIM_VMM_GRANULE - 1) / SIM_VMM_GRANULE * SIM_VMM_GRANULE);
    if (a > p) munmap(p, (size_t)(a - p));
    if (p + want > a + len) munmap(a + len, (size_t)(p + want - (a + len)));
    sim_devmem *m = calloc(1, sizeof *m);
    if (!m) {
        munmap(a, len);
        return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory");
    }
    m->map = a;
    m->map_len = len;
    m->memfd = -1;
    m->open_dev = -1;
    seg->ptr = a;
    seg->impl = m;
    pthread_mutex_lock(&st->lock);
    mgpu_result r = sim_registry_add_locked(st, seg);
    pthread_mutex_unlock(&st->lock);
    if (r != MGPU_OK) {
        munmap(a, len);
        free(m);
        seg->ptr = seg->impl = NULL;
    }
    return r;
}

mgpu_result sim_vmm_map(mgpu_buffer *seg, size_t off, size_t bytes)
{
    sim_state *st = sim_of(seg->be);
    sim_devmem *m = seg->impl;
    mgpu_result r = MGPU_OK;
    pthread_mutex_lock(&st->lock);
    int d = seg->device;
    if (off > m->map_len || bytes > m->map_len - off || bytes > st->mem_total[d] - st->mem_used[d]) {
        r = mgpu_fail(MGPU_ERR_DEVICE_OOM, "simulated GPU %d: cannot map %zu more bytes", d, bytes);
    } else if (!seg->phantom && mprotect((char *)m->map + off, bytes, PROT_READ | PROT_WRITE) != 0) {
        r = mgpu_fail(MGPU_ERR_NOMEM, "cannot map %zu bytes of simulated device memory (%s)", bytes, strerror(errno));
    } else {
        if (!seg->phantom) (void)madvise((char *)m->map + off, bytes, MADV_HUGEPAGE); /* a hint */
        st->mem_used[d] += bytes;
    }
    pthread_mutex_unlock(&st->lock);
    return r;
}

void sim_vmm_unmap(mgpu_buffer *seg, size_t off, size_t bytes)
{
    sim_state *st = sim_of(seg->be);
    sim_devmem *m = seg->impl;
    pthread_mutex_lock(&st->lock);
    /* Give the pages back (their contents are gone, as with cuMemUnmap +
     * cuMemRelease) and make the range fault again. */
    if (!seg->phantom) {
        (void)madvise((char *)m->map + off, bytes, MADV_DONTNEED);
        (void)mprotect((char *)m->map + off, bytes, PROT_NONE);
    }
    st->mem_used[seg->device] -= bytes;
    pthread_mutex_unlock(&st->lock);
}

void sim_vmm_release(mgpu_buffer *seg)
{
    sim_state *st = sim_of(seg->be);
    pthread_mutex_lock(&st->lock);
    sim_registry_remove_locked(st, seg);
    pthread_mutex_unlock(&st->lock);
    sim_devmem *m = seg->impl;
    if (m) {
        munmap(m->map, m->map_len);
        free(m);
    }
    seg->impl = seg->ptr = NULL;
}

size_t sim_vmm_granularity(mgpu_backend *be, int dev)
{
    (void)be, (void)dev;
    return SIM_VMM_GRANULE;
}
