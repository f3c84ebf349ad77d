/* jobs.h - the jobs a rank worker can run (engine/jobs/): the layer above
 * the runtime (rt.h) that measures, discovers and runs scripts through the
 * bench, topo, comm and Lua modules. The runtime knows no job by name;
 * whoever starts a coordinator or a worker hands it this table. */
#ifndef MGPU_JOBS_H
#define MGPU_JOBS_H
#include "mgpu/rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every job type of this build, NULL-terminated (job_registry.c). */
extern const mgpu_job_handler *const mgpu_jobs[];

#ifdef __cplusplus
}
#endif
#endif
