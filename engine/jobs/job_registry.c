/* job_registry.c - every job type a worker can run, by name. */
#include "mgpu/rt.h"
#include <string.h>

extern const mgpu_job_handler mgpu_job_selftest; /* rt/job_selftest.c: runtime tests */
extern const mgpu_job_handler mgpu_job_bench;    /* bench/coll_job.c: mgpulab bench */
extern const mgpu_job_handler mgpu_job_spmd;     /* lua/spmd_job.c: mgpulab spmd */
extern const mgpu_job_handler mgpu_job_topo;     /* topo/topo_job.c: mgpulab topo, lab 1 */
extern const mgpu_job_handler mgpu_job_copy;     /* bench/copy_job.c: mgpulab copy, lab 3 */

static const mgpu_job_handler *const handlers[] = {
    &mgpu_job_selftest,
    &mgpu_job_bench,
    &mgpu_job_spmd,
    &mgpu_job_topo,
    &mgpu_job_copy,
    NULL,
};

const mgpu_job_handler *mgpu_job_find(const char *type)
{
    for (int i = 0; type && handlers[i]; i++)
        if (strcmp(handlers[i]->type, type) == 0) return handlers[i];
    return NULL;
}
