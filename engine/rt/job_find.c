/* job_find.c - look a job type up in the table the program handed over
 * (the worker and the coordinator both do; neither knows a job by name). */
#include "mgpu/rt.h"
#include <string.h>

const mgpu_job_handler *mgpu_job_find(const mgpu_job_handler *const *jobs, const char *type)
{
    for (int i = 0; jobs && type && jobs[i]; i++)
        if (strcmp(jobs[i]->type, type) == 0) return jobs[i];
    return NULL;
}
