/* results_store.h - the last results of each step on disk, so that the
 * results pane shows a step's last measurement after a restart (issue 10,
 * item 15): $STATE/results/LAB/STEP.json = {"saved": ISO time, "results":
 * [{"kind", "doc"}, ...]}, written when a run of the step ends. */
#ifndef MGPU_SHELL_RESULTS_STORE_H
#define MGPU_SHELL_RESULTS_STORE_H
#include <jansson.h>
#include "mgpu/err.h"

/* Write `results` (an array of {kind, doc}) as the step's last results,
 * replacing the file atomically. Ids must be plain names (no '/'). */
mgpu_result results_store_save(const char *state_dir, const char *lab, const char *step, json_t *results);
/* The step's saved document, or NULL when there is none (a damaged file
 * reads as none: the next run writes it again). The caller decrefs. */
json_t *results_store_load(const char *state_dir, const char *lab, const char *step);

#endif
