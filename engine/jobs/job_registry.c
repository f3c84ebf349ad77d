/* job_registry.c - every job type a worker can run, by name: the table the
 * program hands to the worker and to the coordinator (mgpu/jobs.h). A new
 * job is one file in this folder and one line here. */
#include "mgpu/jobs.h"
#include <stddef.h>

extern const mgpu_job_handler mgpu_job_selftest; /* selftest_job.c: runtime tests */
extern const mgpu_job_handler mgpu_job_bench;    /* coll_job.c: mgpulab bench */
extern const mgpu_job_handler mgpu_job_spmd;     /* spmd_job.c: mgpulab spmd */
extern const mgpu_job_handler mgpu_job_topo;     /* topo_job.c: mgpulab topo, lab 1 */
extern const mgpu_job_handler mgpu_job_copy;     /* copy_job.c: mgpulab copy, lab 3 */
extern const mgpu_job_handler mgpu_job_validate_ranks; /* validate_job.c: mgpulab validate */
extern const mgpu_job_handler mgpu_job_validate_load;  /* validate_load_job.c: mgpulab validate --sustained */

const mgpu_job_handler *const mgpu_jobs[] = {
    &mgpu_job_selftest,
    &mgpu_job_bench,
    &mgpu_job_spmd,
    &mgpu_job_topo,
    &mgpu_job_copy,
    &mgpu_job_validate_ranks,
    &mgpu_job_validate_load,
    NULL,
};
