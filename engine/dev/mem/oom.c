/* oom.c - the out-of-memory error in the sentence a PyTorch user knows:
 *   "CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total
 *    capacity of 79.32 GiB of which 15.56 MiB is free. ... Of the allocated
 *    memory 78.12 GiB is allocated by PyTorch, and 1.02 GiB is reserved by
 *    PyTorch but unallocated. If reserved but unallocated memory is large
 *    try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True ..."
 * with what PyTorch leaves out and lab 9 needs: the largest free block, and
 * the max_split_size knob next to expandable segments. */
#include "dev/mem/caching.h"
#include "dev/mem/mem_dev.h"
#include <stdio.h>

/* PyTorch's format_size: bytes, KiB, MiB, then GiB however large (a 1 TiB
 * request reads "1024.00 GiB", as torch prints it), so the sentence can be
 * compared with torch's word for word. */
static const char *torch_size(uint64_t bytes, char *buf, size_t len)
{
    if (bytes <= 1024) snprintf(buf, len, "%llu bytes", (unsigned long long)bytes);
    else if (bytes <= 1048576) snprintf(buf, len, "%.2f KiB", (double)bytes / 1024.0);
    else if (bytes <= 1073741824ull) snprintf(buf, len, "%.2f MiB", (double)bytes / 1048576.0);
    else snprintf(buf, len, "%.2f GiB", (double)bytes / 1073741824.0);
    return buf;
}

mgpu_result mgpu_mem_oom_fail(mgpu_backend *be, int dev, const mgpu_mem_oom *o, int caching)
{
    uint64_t fr = 0, total = 0;
    (void)be->ops->mem_info(be, dev, &fr, &total);
    char ask[32], cap[32], fre[32], alloc[32], unalloc[32], big[32], ph[32], seg[32];
    torch_size(o->requested, ask, sizeof ask);
    torch_size(total, cap, sizeof cap);
    torch_size(fr, fre, sizeof fre);
    torch_size(o->allocated, alloc, sizeof alloc);
    uint64_t idle = o->reserved > o->allocated ? o->reserved - o->allocated : 0;
    torch_size(idle, unalloc, sizeof unalloc);
    torch_size(o->largest_free, big, sizeof big);
    torch_size(o->alloc_size, seg, sizeof seg);
    char asked[96] = "";
    if (o->alloc_size > o->requested + MGPU_MEM_MIN_BLOCK)
        snprintf(asked, sizeof asked, " (the allocator asked the device for a %s segment)", seg);
    char phantom[96] = "";
    if (o->phantom) snprintf(phantom, sizeof phantom, " (%s of it phantom)", torch_size(o->phantom, ph, sizeof ph));
    const char *sim = mgpu_backend_simulated(be) ? "simulated " : "";
    const char *what = o->phantom_request ? " of phantom memory" : "";
    if (!caching)
        return mgpu_fail(MGPU_ERR_DEVICE_OOM,
                         "out of memory on %sGPU %d. Tried to allocate %s%s (%zu bytes). GPU %d has a total "
                         "capacity of %s of which %s is free. Of the allocated memory %s is allocated by "
                         "mgpulab%s; nothing is cached (MGPU_ALLOC_CONF=backend:plain). Free buffers you no "
                         "longer need or allocate less",
                         sim, dev, ask, what, o->requested, dev, cap, fre, alloc, phantom);
    /* PyTorch's advice, expandable segments, only where they are off: with
     * them on it sent the learner to set what was already set */
    const char *advice = o->expandable
                             ? "Expandable segments are already on (MGPU_ALLOC_CONF=expandable_segments:True): free "
                               "tensors you no longer need or allocate less"
                             : "If reserved but unallocated memory is large try setting "
                               "MGPU_ALLOC_CONF=expandable_segments:True (or max_split_size_mb:N) to avoid "
                               "fragmentation";
    return mgpu_fail(MGPU_ERR_DEVICE_OOM,
                     "out of memory on %sGPU %d. Tried to allocate %s%s (%zu bytes)%s. GPU %d has a total "
                     "capacity of %s of which %s is free. Of the allocated memory %s is allocated by "
                     "mgpulab%s, and %s is reserved by mgpulab but unallocated; the largest free block is "
                     "%s. %s",
                     sim, dev, ask, what, o->requested, asked, dev, cap, fre, alloc, phantom, unalloc, big, advice);
}
