/* dev_discover.c - discovery's device facts through the device API: each
 * GPU's PCI id, name, compute capability, memory and NUMA node, and peer
 * access for every ordered pair; topo/ builds the model from them with NVML
 * and sysfs (mgpu_topo_discover_host), never touching a backend itself. */
#include "dev/backend.h"
#include "mgpu/topo.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Discovery may run inside a backend's open, before dev.c has cached the
 * device count; ask the backend then (dev.c stores the same number next). */
static mgpu_result device_count(mgpu_backend *be, int *n)
{
    MGPU_CHECK(mgpu_device_count(be, n));
    if (*n == 0 && be->ops && be->ops->device_count) {
        MGPU_CHECK(be->ops->device_count(be, n));
        be->device_count = *n;
    }
    return MGPU_OK;
}

mgpu_result mgpu_topo_discover(mgpu_backend *be, const char *sysfs_root, mgpu_topo **out)
{
    if (!be || !out) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_topo_discover: no backend or output pointer");
    *out = NULL;
    int n = 0;
    MGPU_CHECK(device_count(be, &n));
    size_t pairs = n > 0 ? (size_t)n * (size_t)n : 1;
    mgpu_host_gpu_facts *gpus = calloc(n > 0 ? (size_t)n : 1, sizeof *gpus);
    signed char *peer = calloc(pairs, sizeof *peer);
    char **why = calloc(pairs, sizeof *why);
    mgpu_result res = MGPU_OK;
    if (!gpus || !peer || !why) {
        res = mgpu_fail(MGPU_ERR_NOMEM, "out of host memory discovering the topology");
        goto done;
    }
    for (int d = 0; d < n; d++) {
        mgpu_device_info info;
        MGPU_CHECKGOTO(mgpu_device_info_get(be, d, &info), res, done);
        mgpu_host_gpu_facts *g = &gpus[d];
        snprintf(g->busid, sizeof g->busid, "%.19s", info.pci_bus_id);
        snprintf(g->name, sizeof g->name, "%s", info.name);
        g->sm = info.cc_major * 10 + info.cc_minor;
        g->mem_bytes = info.total_mem;
        g->numa_node = info.numa_node;
    }
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            if (a == b) continue;
            int can = -1;
            if (mgpu_peer_can_access(be, a, b, &can) != MGPU_OK) {
                why[a * n + b] = strdup(mgpu_error_message());
                mgpu_error_clear();
                can = -1;
            }
            peer[a * n + b] = (signed char)can;
        }
    mgpu_host_facts facts = {.backend_name = mgpu_backend_name(be), .ngpus = n, .gpus = gpus, .peer = peer,
                             .peer_why = (const char *const *)why};
    res = mgpu_topo_discover_host(&facts, sysfs_root, out);
done:
    for (size_t i = 0; why && i < pairs; i++) free(why[i]);
    free(why);
    free(peer);
    free(gpus);
    return res;
}
