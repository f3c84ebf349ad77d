/* job_common.c - helpers the device jobs share (job_common.h). */
#include "rt/job_common.h"
#include <stdio.h>
#include "mgpu/topo.h"

void rt_backend_line(mgpu_backend *be, char *buf, size_t len)
{
    const mgpu_topo *t = mgpu_backend_topo(be);
    if (mgpu_backend_simulated(be)) {
        snprintf(buf, len, "SIMULATED machine %s (%s)", t ? mgpu_topo_machine_name(t) : "?", mgpu_backend_reason(be));
        return;
    }
    int n = 0;
    mgpu_device_count(be, &n);
    mgpu_device_info info;
    if (n > 0 && mgpu_device_info_get(be, 0, &info) == MGPU_OK)
        snprintf(buf, len, "cuda: %d GPU%s (%s)", n, n == 1 ? "" : "s", info.name);
    else
        snprintf(buf, len, "cuda: %d GPUs", n);
}
