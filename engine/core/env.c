/* env.c - seconds from the environment, for the test hooks that shorten a
 * budget or a grace (MGPU_RUNAWAY_GRACE_S, MGPU_LAB_STEP_BUDGET_S): a value
 * that is not a number in range is ignored, so a typo keeps the default
 * rather than making a budget of zero. */
#include "mgpu/env.h"
#include <stdlib.h>

double mgpu_env_seconds(const char *name, double max)
{
    const char *v = getenv(name);
    char *end = NULL;
    double s = v && *v ? strtod(v, &end) : 0;
    return end && *end == '\0' && s > 0 && s <= max ? s : 0;
}
