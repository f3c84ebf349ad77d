/* lab_internal.h - what the files of the lab framework share: the catalog's
 * layout, one sandbox per lab, and the state of a step being run. */
#ifndef MGPU_LAB_INTERNAL_H
#define MGPU_LAB_INTERNAL_H
#include <limits.h>
#include "lab/progress.h"
#include "mgpu/lua_sandbox.h"
#include "mgpu/lab.h"

#define LAB_MEM_LIMIT ((size_t)64 << 20)
/* Lua time of loading a lab, and of a step's own Lua between engine calls
 * (see run.c for why the budget restarts after each engine call). CPU time
 * of the thread (mgpu_lua_config.cpu_time): they guard against runaway
 * scripts, and a busy machine stretched a 50,000-step lab's load past 5 s of
 * wall time under ASan (tests/hostile/hostile_labs.sh) though it spends far
 * less CPU; the sandbox keeps a generous wall-clock backstop for hangs. */
#define LAB_LOAD_BUDGET_S 5.0
#define LAB_STEP_BUDGET_S 10.0
#define LAB_MAX_FILE ((size_t)4 << 20)
#define LAB_MAX_PROGRESS ((size_t)16 << 20)

typedef struct lab_run lab_run;

/* A step's Korean (lab_lang.c): the catalog's text or the English marked;
 * text_path NULL when the step has no .ko.md. */
typedef struct lab_step_ko {
    const char *title, *text_path;
    const char *exercise_src;      /* exercises/NAME.ko.lua (Korean comments, the same code), or NULL */
    const char **hints, **asks;
} lab_step_ko;

typedef struct lab_entry {
    mgpu_lab_info info;
    mgpu_lab_step_info *steps;
    mgpu_lab_question **questions; /* per step */
    char **strings;                /* everything info points at, freed at close */
    int nstrings, capstrings;
    mgpu_lua *sb;                  /* the lab's sandbox, NULL when it did not load */
    int lab_ref;                   /* registry ref of the lab table */
    lab_run *run;                  /* the step running now, or NULL */
    struct mgpu_lab_catalog *cat;
    struct {
        const char *title, *summary, *backends;
        lab_step_ko *steps;        /* per step; NULL until the lab loaded */
        int pointed;               /* the language the *_local fields point at, + 1 (0: not yet) */
    } ko;
} lab_entry;

typedef struct lab_runner lab_runner;

struct mgpu_lab_catalog {
    char labs_dir[PATH_MAX], checks_dir[PATH_MAX], state_dir[PATH_MAX];
    char runner_exe[PATH_MAX];     /* "": steps run in this process (mgpu_lab_catalog_isolate) */
    lab_runner *runner;            /* the child running steps, once one started */
    lab_entry *labs;
    int nlabs;
    lab_progress progress;
    char warning[2048];
    char *checks_text;             /* every checks/NAME.lua, read once: pairs of name\0text\0 */
    size_t checks_len;
    char *checks_ko_text;          /* checks/lang/ko.lua, validated at open; NULL when none or broken */
    size_t checks_ko_len;
};

/* A step being run: what the `lab` object (engine/lab/lab_object.c and its satellites) reaches. */
struct lab_run {
    mgpu_lab_catalog *cat;
    lab_entry *lab;
    int step;
    const mgpu_lab_env *env;
    json_t *measurements;          /* recorded during this run */
    json_t *races;                 /* lab.spmd's races the step did not expect: each fails it */
    int cancelled;                 /* an engine call saw the cancel flag */
    int spmd_runs;                 /* lab.spmd calls so far in this step (the timeline's runs) */
    const char *last_question;     /* the id of the question lab.answer read last (checks._asked) */
    /* cached for the run: the backend decision and the topology document */
    int backend_known, simulated, gpus;
    char machine[128];
    json_t *topo_doc;
    json_t *whatif_topo_doc;       /* lab.topo{machine = ...}: the last what-if preset's */
    char whatif_topo_machine[128];
};

/* Keep a copy of s in the entry (NULL stays NULL); NULL on OOM (lab_entry.c). */
const char *lab_keep(lab_entry *e, const char *s);
/* load.c */
void lab_entry_free(lab_entry *e);

/* lab_entry.c: copy the info's progress fields (state, time, answers, ...) from the
 * progress document; call after every change to it. */
void lab_sync_progress(mgpu_lab_catalog *cat, lab_entry *e);
void lab_sync_all_progress(mgpu_lab_catalog *cat);

/* Load one lab's sandbox and table into e (e->info.dir/id set); a broken lab
 * sets e->info.load_error and still returns MGPU_OK. */
mgpu_result lab_load(mgpu_lab_catalog *cat, lab_entry *e);

/* Languages (lab_lang.c). Read and validate checks/lang/ko.lua once (a
 * broken one: warn set, the labs load without it). */
mgpu_result lab_lang_read_checks_catalog(mgpu_lab_catalog *cat, char *warn, size_t warnlen);
/* Into the lab's fresh sandbox, before lab.lua runs: the merged catalog
 * and the global L. -1 with err set when the lab's catalog is malformed. */
int lab_lang_install(lab_entry *e, char *err, size_t errlen);
/* After the lab table was read: the Korean of its static fields and the
 * steps' .ko.md; then the *_local fields for the current language. */
int lab_lang_statics(lab_entry *e, char *err, size_t errlen);
/* Point the *_local fields at a language (a lab that did not load too). */
void lab_lang_point(lab_entry *e, mgpu_lang lang);
/* The same when the current language changed since (mgpu_lang_set alone):
 * mgpu_lab_get and mgpu_lab_hint call it, so a front end that only set the
 * language still reads the new one. */
void lab_lang_follow(lab_entry *e);
void lab_lang_free(lab_entry *e);
/* The framework's own verdict text `en` in the current language. */
const char *lab_tr(const char *en) __attribute__((format_arg(1)));

/* Workspace (workspace.c). */
mgpu_result lab_workspace_prepare(lab_entry *e, int step);
mgpu_result lab_copy_file(const char *src, const char *dst);
/* Read a whole file (at most LAB_MAX_FILE bytes); *len set; NUL-terminated. */
mgpu_result lab_read_file(const char *path, char **text, size_t *len);
/* Resolve `path` (relative: to the lab directory) and accept it only when it
 * lies inside the lab directory or the lab's workspace. */
mgpu_result lab_resolve_path(const lab_entry *e, const char *path, char *out, size_t len);
/* A file the lab names (a step's text, exercise, solution): it must resolve
 * (links followed) to a regular file inside the lab directory. `what` names
 * it in the error ("step 2 (sweep): its text"). */
mgpu_result lab_own_file(const lab_entry *e, const char *path, const char *what);

/* The exercise sandbox (exercise_env.c): install once per lab state, after
 * `checks`; apply to a loaded chunk on top of the stack (its _ENV becomes a
 * fresh table with read-only views of checks and the libraries). */
mgpu_result lab_exercise_env_install(mgpu_lua *sb);
void lab_exercise_env_apply(lua_State *L);

/* The `lab` object (engine/lab/lab_object.c): push a fresh one for this run. */
void lab_push_object(lua_State *L, lab_run *run);
/* Prepare the run's backend choice (lab.backend); lab_jobs.c */
mgpu_result lab_run_backend(lab_run *run);
/* The machine a run's measurements and passes belong to ("sim dgx-h100",
 * "sim dgx-h100 fault nvlink-down", "cuda host NAME"); lab_object.c */
mgpu_result lab_machine_key(lab_run *run, char *out, size_t len);
void lab_run_free(lab_run *run);

/* The step runner (runner.c): run the step in the catalog's child process,
 * starting one when there is none. *died: the child ended without a verdict
 * (out says why; the caller records the attempt). */
mgpu_result lab_runner_step(mgpu_lab_catalog *cat, int lab, int step, const mgpu_lab_env *env, mgpu_lab_verdict *out,
                            int *died);
void lab_runner_close(mgpu_lab_catalog *cat);

#endif
