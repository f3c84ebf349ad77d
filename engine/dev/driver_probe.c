/* driver_probe.c - how many GPUs the NVIDIA driver lists, without a CUDA
 * call: the coordinator, the telemetry sampler and the lab framework ask
 * before deciding on a backend, and must never create a context. */
#include "mgpu/dev.h"
#include <dirent.h>
#include <stdlib.h>

/* GPUs the NVIDIA driver lists, narrowed by CUDA_VISIBLE_DEVICES; no CUDA
 * call, so the coordinator never creates a context. */
int mgpu_driver_gpu_count(void)
{
    int n = 0;
    DIR *d = opendir("/proc/driver/nvidia/gpus");
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (e->d_name[0] != '.') n++;
        closedir(d);
    }
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    if (vis && n > 0) {
        int k = 0;
        if (*vis) {
            k = 1;
            for (const char *p = vis; *p; p++) k += *p == ',';
        }
        if (k < n) n = k;
    }
    return n;
}
