/* phantom_va.c - address space for phantom (shape-only) memory: a range no
 * one can touch, so a phantom buffer has a unique address (the allocator
 * splits and merges by address) and any read that slips past the checks
 * faults at once instead of returning made-up values. */
#include "dev/mem/mem_dev.h"
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

mgpu_result mgpu_phantom_va_reserve(size_t bytes, void **out)
{
    void *p = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return mgpu_fail(MGPU_ERR_NOMEM, "cannot reserve %zu bytes of address space for phantom memory (%s)", bytes,
                         strerror(errno));
    *out = p;
    return MGPU_OK;
}

void mgpu_phantom_va_release(void *p, size_t bytes)
{
    if (p) munmap(p, bytes);
}
