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
#include "mgpu/spmd_doc.h"

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
    json_t *results;           /* bench rows, copy testcases, topo doc(s) */
    mgpu_spmd_result spmd;     /* spmd: results, races, their summaries, errors (as `spmd --json` keeps them) */
    mgpu_log_keep kept;        /* spmd: the first and last {rank, text} */
    json_t *logs;              /* spmd: kept's lines once the run ended (lab_collect_logs) */
    json_t *flights;           /* spmd: per-rank flight-recorder dumps (decoded), keyed by rank */
    long expected_rows;        /* bench: for the progress bar */
    double weight_total, weight_done; /* bench: the rows' expected time (lab_bench_row_weight) */
    mgpu_nccl_summary *nccl;   /* the run's NCCL INFO lines, parsed (allocated on the first one) */
    /* spmd: which of the step's runs this is (1, 2, ...) and what it ran
     * ("spans.lua, 2 ranks"): every timeline span says so, as one step may
     * run a script twice (lab 4's 4-rank run, then its 1-rank reference) */
    int run_index;
    char run_label[160];
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
/* Where one call's workers run: the run's own machine, or a what-if on a
 * sim preset the call names (opts.machine), whatever the run's backend -
 * a 70B on phantom tensors, two nodes on a one-node machine. */
typedef struct lab_target {
    mgpu_backend_config backend; /* what the workers open (machine points into `machine`) */
    int simulated, gpus;
    int whatif;                  /* 1: opts.machine picked it */
    char machine[128];           /* the sim preset (or --machine's XML path); "" on cuda */
} lab_target;
/* The run's machine when `preset` is NULL, else that sim preset (no
 * --fault: a what-if is the same machine on every backend); raises a Lua
 * error naming the presets when `preset` is not one. Calls lab_run_backend. */
void lab_pick_target(lua_State *L, lab_run *run, const char *what, const char *preset, lab_target *t);
/* ranks: the user's --ranks, else the call's, else the lab's; a what-if
 * (t->whatif) takes the call's, else the lab's (--ranks is about this
 * machine). */
int lab_pick_ranks(lab_run *run, int call_ranks);
int lab_target_ranks(lab_run *run, const lab_target *t, int call_ranks);
/* The call's launcher, else --launcher unless it is the default "local",
 * else emulate when a real machine has fewer GPUs than ranks. */
const char *lab_pick_launcher(lab_run *run, int ranks, const char *call_launcher);
/* The same for a target: a what-if takes the call's launcher, else "local"
 * (the sim's; --launcher is about this machine). */
const char *lab_target_launcher(lab_run *run, const lab_target *t, int ranks, const char *call_launcher);
/* The call's lab_target as Lua fields of the table on top: machine (the
 * preset; nil on cuda), simulated, gpus, whatif. */
void lab_push_target_fields(lua_State *L, const lab_target *t);
/* opts[k] as a string (numbers too) or NULL; as an integer or dflt. */
const char *lab_opt_string(lua_State *L, int opts, const char *k);
int lab_opt_int(lua_State *L, int opts, const char *k, int dflt);
/* Run `job` (takes params) on target t (NULL: the run's machine) and wait;
 * raises a Lua error (freeing c) when it could not start or was cancelled. */
void lab_run_job(lua_State *L, lab_run *run, const lab_target *t, const char *what, const char *job, json_t *params,
                 int ranks, const char *launcher, int opts, double timeout_s, lab_collect *c, mgpu_rt_report *rep);
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
/* The topology document of the run's machine, or of a what-if target
 * (t->whatif; NULL: the run's) - the "topo" job once per step and machine;
 * raises a Lua error on failure. Borrowed. */
json_t *lab_topo_doc(lua_State *L, lab_run *run, const lab_target *t);
/* lab.backend's table for the run. */
void lab_push_backend(lua_State *L, lab_run *run);

#endif
