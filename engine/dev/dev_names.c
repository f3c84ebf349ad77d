/* dev_names.c - the device API's names for its enums, at the bottom of
 * dev/: the backends, the allocator and the race detector print them. */
#include "mgpu/dev.h"

const char *mgpu_mem_kind_name(mgpu_mem_kind k)
{
    switch (k) {
    case MGPU_MEM_DEVICE: return "device";
    case MGPU_MEM_PINNED: return "pinned";
    case MGPU_MEM_PAGEABLE: return "pageable";
    default: return "unknown";
    }
}
