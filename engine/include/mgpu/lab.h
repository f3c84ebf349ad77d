/* lab.h - the lab framework: labs are Lua tables of steps (labs/NN-name/lab.lua,
 * docs/lab-authoring.md), run sandboxed on the coordinator; a step's `run`
 * calls the engine through rank workers (never CUDA in this process), its
 * `check` judges with the shared library in checks/. The shell and the
 * headless commands (list, run, verify, reset, hint) both go through this
 * API: no lab logic lives in a UI.
 *
 * Threading: a catalog and everything reached from it belong to one thread
 * at a time. The shell runs steps on a work thread and receives what
 * happens through mgpu_lab_events (called on that work thread: copy what
 * you keep, hand it to the UI thread yourself). Cancellation: set
 * *env->cancel to 1 from any thread; the running step ends with
 * MGPU_STEP_CANCELLED within about a second and its workers are gone. */
#ifndef MGPU_LAB_H
#define MGPU_LAB_H
#include <jansson.h>
#include "mgpu/dev.h"
#include "mgpu/dirs.h" /* where labs, checks and progress live */
#include "mgpu/err.h"
#include "mgpu/lang.h"

#ifdef __cplusplus
extern "C" {
#endif

/*--- The catalog: every lab found ---------------------------------------*/

typedef enum mgpu_step_state {
    MGPU_STEP_NEW = 0,    /* never run */
    MGPU_STEP_PASSED,     /* check passed */
    MGPU_STEP_FAILED,     /* check ran and said no (the learner's work is not done) */
    MGPU_STEP_ERROR,      /* the lab or the run broke (traceback in the verdict) */
    MGPU_STEP_CANCELLED,  /* cancelled by the user */
    MGPU_STEP_READ,       /* a step without a check (reading, a demo) was run: read, not passed */
    MGPU_STEP_AWAITING,   /* measured; nothing failed, but questions wait for the learner's answers */
} mgpu_step_state;
/* "new", "passed", "failed", "error", "cancelled", "read", "awaiting" */
const char *mgpu_step_state_name(mgpu_step_state s);

typedef struct mgpu_lab_question {
    const char *id;       /* "link01" */
    const char *ask;      /* the question, one line */
    const char *answer;   /* the learner's saved answer, or NULL */
    const char *ask_local; /* `ask` in the current language (see "Languages" below) */
} mgpu_lab_question;

typedef struct mgpu_lab_step_info {
    const char *id;           /* "sweep" */
    const char *title;        /* "Sweep 8 B to 256 MiB" */
    const char *text_path;    /* the step's Markdown file (absolute), or NULL */
    const char *exercise;     /* the learner's copy (absolute path in the workspace), or NULL */
    const char *exercise_src; /* the unsolved original in labs/ */
    const char *solution;     /* the reference solution in labs/, or NULL */
    int nhints;
    const char *const *hints;
    int nquestions;
    const mgpu_lab_question *questions;
    /* progress */
    mgpu_step_state state;
    double last_run;          /* unix time of the last run, 0 never */
    double seconds;           /* how long the last run took */
    const char *last_message; /* the last verdict's one-line message, or NULL */
    /* added after the first cut of this header */
    int has_run, has_check;   /* the step defines run / check (no check: a reading step) */
    int attempts;             /* runs so far */
    int hints_taken;          /* hints shown so far */
    /* a step keeps its best result: a passed step stays passed when a later
     * run fails or is cancelled; that latest run's state is here (else
     * MGPU_STEP_NEW) and last_message is that run's */
    mgpu_step_state last_attempt;
    int solution_shown;       /* the learner asked to see the reference solution (progress "solution_shown") */
    const char *passed_on;    /* the machine of the latest pass ("sim 2x-dgx-h100", "cuda host NAME"), or NULL */
    /* the progress file was changed outside mgpulab (its digest did not
     * match) and this step has not run since: state is NEW whatever the
     * file claims */
    int edited;
    /* In the current language (see "Languages" below); the fields above
     * stay English (ids, JSON). text_path_local is the step's .ko.md in
     * Korean, or text_path with text_missing 1 when the lab has none (show
     * MGPU_LAB_TEXT_MISSING_KO above the English). */
    const char *title_local;
    const char *const *hints_local;
    const char *text_path_local;
    int text_missing;
} mgpu_lab_step_info;

typedef struct mgpu_lab_info {
    const char *id;           /* directory name: "02-allreduce" */
    int number;               /* 2 */
    const char *title;        /* "All-reduce baseline" */
    const char *summary;      /* one line */
    const char *dir;          /* absolute path */
    const char *backends;     /* what the lab says it runs on, one line ("cuda (1..8 GPUs, emulated nodes for 2+ ranks) and sim") */
    int nsteps;
    const mgpu_lab_step_info *steps;
    int passed;               /* steps passed (reading steps are read, never passed) */
    const char *load_error;   /* non-NULL: the lab did not load (message and traceback); steps empty */
    int ranks;                /* ranks the lab wants (its `ranks`, default 1) */
    const char *workspace;    /* the learner's copies: <state>/work/NN-name (absolute) */
    /* title, summary and backends in the current language (see "Languages") */
    const char *title_local, *summary_local, *backends_local;
} mgpu_lab_info;

typedef struct mgpu_lab_catalog mgpu_lab_catalog;

/* Load every labs/NN-name/lab.lua (sandboxed, text only) and the progress
 * file. A broken lab is listed with its load_error; the others still load.
 * A damaged progress file is moved aside (progress.json.damaged-<time>) and
 * reported through mgpu_lab_catalog_warning. */
mgpu_result mgpu_lab_catalog_open(const char *labs_dir, const char *checks_dir, const char *state_dir,
                                  mgpu_lab_catalog **out);
/* The same with only the labs named in `only` ("02-allreduce", "02", "2" or
 * "allreduce"), in that order: a class configuration's workshop. A name
 * that is not a lab fails, naming it. nonly 0: every lab. */
mgpu_result mgpu_lab_catalog_open_selected(const char *labs_dir, const char *checks_dir, const char *state_dir,
                                           const char *const *only, int nonly, mgpu_lab_catalog **out);
/* The catalog as the class configuration in force has it (mgpu/classcfg.h:
 * its labs in its order), or every lab when there is none. */
mgpu_result mgpu_lab_catalog_open_class(const char *labs_dir, const char *checks_dir, const char *state_dir,
                                        mgpu_lab_catalog **out);
void mgpu_lab_catalog_close(mgpu_lab_catalog *cat);
int mgpu_lab_count(const mgpu_lab_catalog *cat);
const mgpu_lab_info *mgpu_lab_get(const mgpu_lab_catalog *cat, int index);
/* "2", "02", "allreduce", "02-allreduce" -> index; -1 when none. */
int mgpu_lab_find(const mgpu_lab_catalog *cat, const char *name);
/* A warning from loading (damaged progress kept aside, ...), or NULL. */
const char *mgpu_lab_catalog_warning(const mgpu_lab_catalog *cat);

/*--- Languages (issue 29; docs/lab-authoring.md "Two languages") ----------
 *
 * A lab's static texts (title, summary, backends, step titles, hints,
 * questions' ask) stay English in lab.lua; their Korean comes from the lab's
 * catalog labs/NN-name/lang/ko.lua (a chunk returning {["English"] =
 * "Korean"}), a step's text from steps/NN-name.ko.md beside the .md. The
 * *_local fields point at the current language's text (mgpu/lang.h); a
 * Korean text the lab lacks is the English prefixed MGPU_LANG_MISSING_MARK.
 * Text made at run time (verdicts, tables, printed lines) is in the language
 * current when the step ran (the lab's L() function). */

/* Switch the language (mgpu_lang_set) and point every *_local field of
 * the catalog at it; the next step runs in it. Pointers read from the
 * catalog before stay valid (both languages are kept) until it closes. */
void mgpu_lab_catalog_set_lang(mgpu_lab_catalog *cat, mgpu_lang lang);

/* The line shown above a step's English text when its Korean is missing. */
#define MGPU_LAB_TEXT_MISSING_KO "[en] 이 단계의 한국어 글이 아직 없어 영어 원문을 보여 줍니다."

/*--- Running a step ------------------------------------------------------*/

/* What happens while a step runs (every member may be NULL). */
typedef struct mgpu_lab_events {
    void *ctx;
    /* a log line: rank >= 0 from a worker (NCCL INFO lines included), -1 from the lab */
    void (*log)(void *ctx, int rank, const char *line);
    /* 0..1 (or < 0 when unknown) and what is going on: "all_reduce 64 MiB" */
    void (*progress)(void *ctx, double fraction, const char *what);
    /* a result document: kind "bench" (rows as `mgpulab bench --json`), "copy"
     * (as `mgpulab copy --json`), "topo" (as `mgpulab topo --json`), "spmd"
     * (as `mgpulab spmd --json`), "table" (a lab's own {title, columns, rows}) */
    void (*result)(void *ctx, const char *kind, json_t *doc);
    /* a timeline span {rank, stream, name, kind, start_us, end_us, run,
     * run_label}: run numbers the step's lab.spmd calls from 1 (a step may
     * run twice, 4 ranks and then 1), run_label says what ran
     * ("spans.lua, 2 ranks"); each run's times are its own clock's */
    void (*span)(void *ctx, json_t *span);
} mgpu_lab_events;

typedef struct mgpu_lab_env {
    mgpu_backend_config backend;  /* --backend/--machine/--fault */
    const char *launcher;         /* NULL or "local" = the lab's choice (local, or emulate when it needs more
                                     ranks than GPUs); "emulate", "mpirun", "srun" force one */
    int ranks;                    /* 0 = the lab's choice (its `ranks`, or what a call asks) */
    double timeout_s;             /* 0 = default */
    volatile int *cancel;         /* set to 1 to cancel; may be NULL */
    /* > 0: a step that a cancel cannot reach (stuck inside a C library call)
     * stops the process this many seconds after the cancel (a command's
     * Ctrl-C); 0: only its time budget's watch does (the shell stays up) */
    double cancel_stops_process_s;
    mgpu_lab_events events;
    const char *const *extra_env; /* "K=V" strings for every worker (MGPU_TELEMETRY=...), NULL-terminated or NULL */
    /* 1: judge the step's last run in this catalog again (new answers)
     * without measuring again; a step not run since the catalog opened
     * runs as usual */
    int check_only;
    /* 1: the instructor's re-run of a learner's work (report --verify):
     * the class configuration's pacing does not apply, and no export goes
     * to the class's shared folder */
    int instructor_rerun;
} mgpu_lab_env;

typedef struct mgpu_lab_verdict {
    mgpu_step_state state;
    char message[1024];       /* one paragraph: what was judged and the outcome */
    char saw[256];            /* the number seen: "312.4 GB/s busbw at 256 MiB" */
    char wanted[256];         /* the number wanted: ">= 360 GB/s (80 % of NV18 450 GB/s)" */
    char where[256];          /* where to look: "results pane, 256 MiB row" */
    char traceback[4096];     /* MGPU_STEP_ERROR: Lua's traceback */
    double seconds;           /* wall time of run + check */
    json_t *measurements;     /* key measurements the step recorded (owned; may be NULL) */
    /* every check the step's check returned, in order, whole (message is a
     * summary cut to fit): [{ok, msg, saw, wanted, where}] (owned; NULL when
     * no check ran) */
    json_t *checks;
    /* the machine the step was judged on ("sim dgx-h100", "sim dgx-h100
     * fault nvlink-down", "cuda host NAME"); "" when the run never chose
     * one. A step that passed on another machine (passed_on) may fail here
     * for answers that depend on the machine. */
    char machine[160];
} mgpu_lab_verdict;

/* Run step `step` of lab `lab`: run, then check; save progress (state, time,
 * measurements) atomically. A lab error is a verdict (MGPU_STEP_ERROR), not
 * a failure of this call; the call fails only for bad arguments or when the
 * progress could not be written. Free with mgpu_lab_verdict_clear. */
mgpu_result mgpu_lab_run_step(mgpu_lab_catalog *cat, int lab, int step, const mgpu_lab_env *env,
                              mgpu_lab_verdict *out);
void mgpu_lab_verdict_clear(mgpu_lab_verdict *v);

/* From now on run the catalog's steps in a child process: the program `exe`
 * (NULL: this one) started as `exe __lab-runner`, whose main calls
 * mgpu_lab_runner_main. A step stuck where its time budget cannot stop it
 * (a string pattern backtracking inside C) then takes the child down, not
 * the caller: the step ends with an error verdict saying what happened, its
 * attempt is recorded, and the next step starts a new child. A cancel the
 * child does not answer within a few seconds stops it. The child keeps the
 * labs' states from step to step (a kept run that an answer judges again). */
mgpu_result mgpu_lab_catalog_isolate(mgpu_lab_catalog *cat, const char *exe);
/* The child's side: serves the steps its parent sends on fd 3; returns the
 * exit status. */
int mgpu_lab_runner_main(void);

/* Save the learner's answer to a question (checked at the next run). */
mgpu_result mgpu_lab_answer(mgpu_lab_catalog *cat, int lab, int step, const char *question_id, const char *answer);

/* The next hint for the step (cycles through them; counts hints taken in
 * progress); NULL when the step has none. When the count could not be
 * saved (a full or read-only disk) the hint is still returned and
 * mgpu_error_code() says why; otherwise the error state is cleared. */
const char *mgpu_lab_hint(mgpu_lab_catalog *cat, int lab, int step);

/* The step's reference solution, shown because the learner asked for it
 * (the last hint stops short of the code; this is the explicit action):
 * the text of the solution file (malloc'd, *text, *len) and "solution_shown":
 * true recorded on the step. Fails with MGPU_ERR_INVALID when the step has
 * no exercise or no solution. When the record could not be saved the text
 * is still returned and the save's error with it (the caller says so). */
mgpu_result mgpu_lab_solution(mgpu_lab_catalog *cat, int lab, int step, char **text, size_t *len);

/* Put the lab's exercise files back to the unsolved originals (the old copy
 * is kept as FILE.bak) and forget its progress. */
mgpu_result mgpu_lab_reset(mgpu_lab_catalog *cat, int lab);

/* The first step neither passed nor read (nsteps when none is left). */
int mgpu_lab_next_step(const mgpu_lab_catalog *cat, int lab);

/* Step `step` of `lab` by number ("1", 1-based as the headless commands
 * show it) or id ("sweep"); -1 when none. */
int mgpu_lab_find_step(const mgpu_lab_catalog *cat, int lab, const char *name);

/*--- Showing results -------------------------------------------------------*/

/* A value of a results table (lab.table, an SPMD run's rows) as one line of
 * text: strings as they are, numbers short, yes/no, "-" for none; a list
 * "1, 4096", a record "op: all_reduce, count: 1" (nested ones bracketed) -
 * never raw JSON. Cut to len - 1 bytes. */
void mgpu_lab_cell_text(const json_t *v, char *buf, size_t len);
/* One error of an SPMD run ({rank, error: "text" | {message, ...}}) as
 * "rank 2: train_log.lua:23: ..."; another shape as mgpu_lab_cell_text. */
void mgpu_lab_error_text(const json_t *e, char *buf, size_t len);

/* Where the progress file is (<state>/progress.json). */
const char *mgpu_lab_progress_path(const mgpu_lab_catalog *cat);

/* The learner opened the step (the shell shows it): its "opened" time is
 * recorded once, the start of its time on task (a first run records it
 * too). Fails only when the progress could not be saved. */
mgpu_result mgpu_lab_open_step(mgpu_lab_catalog *cat, int lab, int step);

/*--- The export an instructor collects (export.c, docs/classroom.md) --------*/

#define MGPU_LAB_EXPORT_FORMAT "mgpulab-report"
#define MGPU_LAB_EXPORT_VERSION 2

/* The learner's progress as one JSON document: {format, version, created,
 * learner {name, id}, host, backend, machine (of the latest run), machines
 * (every one a step ran on), class, work, labs: [{id, title, steps: [{id,
 * title, reading, state, attempts, hints_taken, solution_shown, seconds,
 * last_run, opened, passed_at, last_attempt, ran_on, passed_on, message,
 * edited, measurements, answers, answer_log, exercise {file, text}}]}]},
 * progress_digest ("ok", or "edited": some claims come from a file changed
 * outside mgpulab and have not been run since; each such step "edited"). The
 * learner's exercise files only when with_work. NULL on OOM. */
json_t *mgpu_lab_export(mgpu_lab_catalog *cat, const char *name, const char *id, int with_work);
/* Write it atomically (a temporary file beside, renamed). */
mgpu_result mgpu_lab_export_write(json_t *doc, const char *path);
/* Fill *name / *id left NULL: the identity the learner gave last
 * (mgpu_lab_remember_learner), else the login name and its full name. */
void mgpu_lab_learner(mgpu_lab_catalog *cat, const char **name, const char **id, char *nbuf, size_t nlen, char *ibuf,
                      size_t ilen);
/* Keep the learner's name and id in progress for later exports. */
mgpu_result mgpu_lab_remember_learner(mgpu_lab_catalog *cat, const char *name, const char *id);
/* The class configuration's shared folder ("share"): write the export there
 * as ID@HOST.json, atomically (mgpu_lab_run_step does after every step).
 * No share: nothing, MGPU_OK. path (may be NULL) gets the file written. */
mgpu_result mgpu_lab_export_to_share(mgpu_lab_catalog *cat, char *path, size_t len);

/* Pacing (the class configuration's "pacing", pacing.c): 1 when the step
 * may not run yet - its lab not opened by the instructor, or a step before
 * it in its lab not done - with why; 0 when it may. */
int mgpu_lab_step_locked(const mgpu_lab_catalog *cat, int lab, int step, char *why, size_t len);

#ifdef __cplusplus
}
#endif
#endif
