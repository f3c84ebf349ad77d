/* host_memory.c - MemAvailable, the one host-memory figure bench, copy and
 * the sim's allocator check against (mgpu/host_memory.h). */
#include "mgpu/host_memory.h"
#include <stdio.h>
#include <unistd.h>

uint64_t mgpu_host_available_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
    if (f) fclose(f);
    if (kb) return (uint64_t)kb * 1024u;
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : UINT64_MAX;
}
