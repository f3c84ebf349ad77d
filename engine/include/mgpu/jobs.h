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

/* The "topo" job sends the rows of its path-type matrix and peer-access
 * table packed, one string each (a 2,000-GPU host's arrays made a 49 MB
 * message); this turns a received document's rows back into the arrays
 * `mgpulab topo --json` prints (engine/jobs/topo_doc.c). A document with
 * arrays already is left as it is. */
mgpu_result mgpu_topo_doc_expand(json_t *doc);

#ifdef __cplusplus
}
#endif
#endif
