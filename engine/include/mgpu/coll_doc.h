/* coll_doc.h - the "bench" job's documents, in one place (engine/jobs/
 * coll_doc.c): its params (what a coordinator sends), its result rows (what
 * rank 0 sends per size) and the result document `mgpulab bench --json`
 * prints and lab.bench returns. The worker (coll_job.c) writes rows and reads
 * params with it; the coordinators (cli/cmd_bench.c, cli/cmd_validate.c,
 * engine/lab/lab_jobs.c) write params and read rows with it, so a field is
 * named and checked once.
 *
 *   params  {coll, min_bytes, max_bytes, step_bytes, step_factor, iters,
 *            warmup, check, root, blocking, average, set_iters, set_warmup,
 *            dtypes: ["f32", ...], ops: [0, ...]}
 *   row     {size, count, type, redop, root, out_of_place: {time, alg_bw,
 *            bus_bw, nwrong}, in_place: {...}} (nccl-tests' JSON names;
 *            nwrong null = not checked)
 *   result  {tool, [version], collective, options: params, [fault], devices,
 *            rows: [row...], avg_bus_bw, wrong_checks, report: {ok,
 *            failed_rank, reason, analysis, wall_s}}; the caller adds its own
 *            fields after (the CLI's prediction; the lab's ranks, launcher,
 *            nccl). */
#ifndef MGPU_COLL_DOC_H
#define MGPU_COLL_DOC_H
#include <jansson.h>
#include "mgpu/collbench.h"
#include "mgpu/rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/*--- Params ------------------------------------------------------------------*/

/* The params for options the coordinator has checked
 * (mgpu_collbench_options_check); a new reference. */
json_t *mgpu_collbench_params_json(const mgpu_collbench_coll *coll, const mgpu_collbench_options *o);
/* The worker's side: params back into options (from the defaults), refused
 * with MGPU_ERR_INVALID when a field is missing or of the wrong kind, or the
 * options fail mgpu_collbench_options_check (the one check both sides use). */
mgpu_result mgpu_collbench_params_read(json_t *params, mgpu_collbench_options *o, const mgpu_collbench_coll **coll);

/*--- Rows --------------------------------------------------------------------*/

/* A row as rank 0 sends it; a new reference. */
json_t *mgpu_collbench_row_json(const mgpu_collbench_row *r);
/* A received row back, every field checked (a garbled message must not
 * print garbage): MGPU_OK, or MGPU_ERR_INVALID. */
mgpu_result mgpu_collbench_row_read(json_t *j, mgpu_collbench_row *r);

/*--- The result document -------------------------------------------------------*/

typedef struct mgpu_collbench_result {
    json_t *doc;          /* tool, [version], collective, options, then what arrives */
    json_t *rows;         /* the rows as received */
    int64_t wrong_checks; /* halves whose check found wrong values, plus malformed rows */
    double bw_sum;        /* busbw over every half of every row */
    long bw_count;
} mgpu_collbench_result;

/* Start the document of a run of coll with options o; version (the
 * program's) or NULL. */
void mgpu_collbench_result_init(mgpu_collbench_result *res, const mgpu_collbench_coll *coll,
                                const mgpu_collbench_options *o, const char *version);
/* The job's "devices" message, kept as the document's "devices". */
void mgpu_collbench_result_devices(mgpu_collbench_result *res, json_t *devices);
/* One "result" message: kept, counted (its wrong checks, its busbw) and,
 * when row is not NULL, decoded into it. A malformed row is not kept and
 * counts as a wrong check (a garbled row never passes as a clean run):
 * MGPU_ERR_INVALID. */
mgpu_result mgpu_collbench_result_add(mgpu_collbench_result *res, json_t *body, mgpu_collbench_row *row);
/* The mean busbw over every half of every row so far (0 for none). */
double mgpu_collbench_result_avg(const mgpu_collbench_result *res);
/* Close the document with rows, avg_bus_bw, wrong_checks and the run's
 * report; returns it (the caller's reference) and leaves res empty. */
json_t *mgpu_collbench_result_finish(mgpu_collbench_result *res, const mgpu_rt_report *rep);
void mgpu_collbench_result_free(mgpu_collbench_result *res);

#ifdef __cplusplus
}
#endif
#endif
