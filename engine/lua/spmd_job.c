/* spmd_job.c - skeleton; being written. */
#include "mgpu/rt.h"

static mgpu_result run(mgpu_worker *w, json_t *params)
{
    (void)w; (void)params;
    return mgpu_fail(MGPU_ERR_UNSUPPORTED, "the spmd job is not built yet");
}

const mgpu_job_handler mgpu_job_spmd = {.type = "spmd", .run = run};
