/* host_memory.h - how much host memory this machine can still give: the
 * sim keeps every buffer (device memory too) in host RAM, so bench, copy
 * and the sim's allocator ask before they allocate. */
#ifndef MGPU_HOST_MEMORY_H
#define MGPU_HOST_MEMORY_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel's MemAvailable (what can be allocated without swapping),
 * or the free pages when /proc/meminfo does not say. */
uint64_t mgpu_host_available_bytes(void);

#ifdef __cplusplus
}
#endif
#endif
