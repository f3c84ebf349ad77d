/* job_selftest.c - skeleton; being written. */
#include "mgpu/rt.h"

static mgpu_result run(mgpu_worker *w, json_t *params)
{
    (void)w; (void)params;
    return mgpu_fail(MGPU_ERR_UNSUPPORTED, "the selftest job is not built yet");
}

const mgpu_job_handler mgpu_job_selftest = {.type = "selftest", .run = run};
