/* lab_object.h - what the files of the coordinator-side `lab` object share
 * (lab_aux.c: shared helpers; lab_object.c: files, answers, records, output;
 * lab_workers.c: running rank workers; lab_jobs.c and lab_spmd.c: the calls
 * that do; lab_peak.c: link peaks). The object itself is pushed by
 * lab_push_object (engine/lab/lab_internal.h). */
#ifndef MGPU_LAB_OBJECT_H
#define MGPU_LAB_OBJECT_H
#include "mgpu/log_keep.h"
#include <jansson.h>
#include <lauxlib.h>
#include "lab/lab_internal.h"
#include "mgpu/nccl_log.h"
#include "mgpu/rt.h"

/*--- Helpers (lab_aux.c) ----------------------------------------------------*/

/* The run a `lab` function belongs to (its first upvalue). */
lab_run *lab_run_of(lua_State *L);
/* Push a JSON value as Lua (objects and arrays become tables, arrays
 * 1-based; null becomes nil). */
void lab_push_json(lua_State *L, json_t *j);
/* Raise "cancelled" when the learner asked to cancel. */
void lab_check_cancel(lua_State *L, lab_run *run);

/*--- Running workers (lab_workers.c) ----------------------------------------*/

/* What one engine call collects from its workers. */
typedef struct lab_collect {
    lab_run *run;
    const char *kind;          /* "bench", "copy", "topo", "spmd" */
    json_t *devices, *summary; /* rank 0's header and footer */
    json_t *results;           /* bench rows, copy testcases, topo doc(s); spmd: {rank, row} */
    mgpu_log_keep kept;        /* spmd: the first and last {rank, text} */
    json_t *logs;              /* spmd: kept's lines once the run ended (lab_collect_logs) */
    json_t *errors;            /* spmd: per-rank spmd_error bodies, keyed by rank */
    json_t *flights;           /* spmd: per-rank flight-recorder dumps (decoded), keyed by rank */
    long expected_rows;        /* bench: for the progress bar */
    double weight_total, weight_done; /* bench: the rows' expected time (lab_bench_row_weight) */
    mgpu_nccl_summary *nccl;   /* the run's NCCL INFO lines, parsed (allocated on the first one) */
} lab_collect;
/* The parsed NCCL log of the run (lab.bench's and lab.spmd's `nccl`), or
 * NULL when the workers printed no NCCL line. A new reference. */
json_t *lab_collect_nccl_json(const lab_collect *c);
void lab_collect_free(lab_collect *c);
/* A bench row's share of the sweep's time for the progress bar: a fixed
 * cost per row (launch, check, messages) plus time in proportion to its
 * bytes - so a sweep to 256 MiB no longer sits at 90 % for most of its run,
 * the small sizes having counted as much as the large. */
double lab_bench_row_weight(uint64_t bytes);
/* ranks: the user's --ranks, else the call's, else the lab's. */
int lab_pick_ranks(lab_run *run, int call_ranks);
/* The call's launcher, else --launcher unless it is the default "local",
 * else emulate when a real machine has fewer GPUs than ranks. */
const char *lab_pick_launcher(lab_run *run, int ranks, const char *call_launcher);
/* opts[k] as a string (numbers too) or NULL; as an integer or dflt. */
const char *lab_opt_string(lua_State *L, int opts, const char *k);
int lab_opt_int(lua_State *L, int opts, const char *k, int dflt);
/* Run `job` (takes params) and wait; raises a Lua error (freeing c) when it
 * could not start or was cancelled. */
void lab_run_job(lua_State *L, lab_run *run, const char *what, const char *job, json_t *params, int ranks,
                 const char *launcher, int opts, double timeout_s, lab_collect *c, mgpu_rt_report *rep);
json_t *lab_report_json(const mgpu_rt_report *rep);
/* A failed bench/copy/topo run is a lab error (frees c). */
void lab_raise_failed(lua_State *L, const char *what, const mgpu_rt_report *rep, lab_collect *c);

/*--- The calls, as lua_CFunctions --------------------------------------------*/

int lab_l_bench(lua_State *L);
int lab_l_spmd(lua_State *L);
int lab_l_topo(lua_State *L);
int lab_l_topo_xml(lua_State *L);
int lab_l_copy(lua_State *L);
/* lab.peak (lab_peak.c) */
int lab_l_peak(lua_State *L);
/* The topology document of the run's machine (runs the "topo" job once per
 * step); raises a Lua error on failure. Borrowed. */
json_t *lab_topo_doc(lua_State *L, lab_run *run);
/* lab.backend's table for the run. */
void lab_push_backend(lua_State *L, lab_run *run);

#endif
