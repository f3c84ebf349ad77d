/* spmd_doc.h - the "spmd" job's documents, in one place (engine/jobs/
 * spmd_doc.c): its params (what `mgpulab spmd` and lab.spmd send, what the
 * worker's spmd_job.c reads) and what the coordinators keep of its messages
 * and write as the run's document (`mgpulab spmd --json`, the result a lab
 * step's listener - the shell - gets from lab.spmd).
 *
 *   params  {script: source text, chunkname: "@FILE.lua", args: [strings],
 *            time_limit_s, time_limit_cpu, mem_limit, spans, race}
 *            (spmd_job.c says what each does; absent: the job's default)
 *   doc     {tool: "mgpulab spmd", script, logs, results: [{rank, row}],
 *            errors: [{rank, error: {message, traceback, code}}], races:
 *            [race + rank], race_summary: {"K": rank K's summary}, ok,
 *            failed_rank, reason, analysis, wall_s}; the caller adds its own
 *            fields after (the CLI's trace; the lab's whatif). */
#ifndef MGPU_SPMD_DOC_H
#define MGPU_SPMD_DOC_H
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "mgpu/rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/*--- Params ------------------------------------------------------------------*/

typedef struct mgpu_spmd_params {
    const char *script;  /* the Lua source text (len bytes) */
    size_t len;
    const char *chunkname; /* "@FILE.lua": where error messages say the script is; NULL: "=script" */
    json_t *args;        /* mgpu.args: an array of strings, or NULL for none (borrowed) */
    double time_limit_s; /* the script's budget per rank; 0: the job's default */
    int time_limit_cpu;  /* 1: the budget counts CPU time, not wall time */
    uint64_t mem_limit;  /* Lua memory per rank (and host memory of its buffers); 0: the default */
    int spans;           /* 1: record timeline spans */
    int race_off;        /* 1: the race detector off */
} mgpu_spmd_params;

/* The params as JSON; NULL with an error set when the script is not UTF-8
 * text (the caller says which file). A new reference. */
json_t *mgpu_spmd_params_json(const mgpu_spmd_params *p);
/* The worker's side: p points into params (which must outlive it); the
 * script, the arguments (at most 4096, each a string) are checked. */
mgpu_result mgpu_spmd_params_read(json_t *params, mgpu_spmd_params *p);

/*--- What the coordinator keeps of the messages --------------------------------------*/

typedef struct mgpu_spmd_result {
    json_t *results;      /* [{rank, row}] in arrival order */
    json_t *errors;       /* {"K": rank K's spmd_error body} */
    json_t *races;        /* [race body + its rank] */
    json_t *race_summary; /* {"K": rank K's race_summary body} */
    long racing;          /* racing accesses over every rank (their summaries' "races") */
} mgpu_spmd_result;

void mgpu_spmd_result_init(mgpu_spmd_result *r);
/* Keep one message when it is the job's "result", "race", "race_summary"
 * or "spmd_error": 1, else 0 (logs, spans, flights are the caller's). A
 * kept race row (with its rank) is the last of r->races. */
int mgpu_spmd_result_add(mgpu_spmd_result *r, const mgpu_rt_msg *m);
/* Rank `rank`'s spmd_error body ({message, traceback, code}), or NULL. Borrowed. */
json_t *mgpu_spmd_result_error(const mgpu_spmd_result *r, int rank);
/* The run's document (the fields above) for ranks 0..nranks-1; logs is
 * borrowed (mgpu_log_keep_json's lines). A new reference. */
json_t *mgpu_spmd_result_doc(const mgpu_spmd_result *r, const char *script, json_t *logs, int nranks,
                             const mgpu_rt_report *rep);
void mgpu_spmd_result_free(mgpu_spmd_result *r);

#ifdef __cplusplus
}
#endif
#endif
