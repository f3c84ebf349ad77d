/* class_model.h - a class as `mgpulab report --class DIR` sees it: the
 * learners (one row each: exports merged by learner id, the roster's
 * non-starters added) times the steps of the class's labs (one column
 * each), every cell what the learner's newest export says of that step.
 * What cannot be shown as data - a damaged or foreign file, a lab or step
 * outside the class, a state or count that cannot be, a step run on a
 * machine other than the class's, two exports of one id, two people under
 * one name - is a problem with the file and what is wrong, never a cell.
 * report_class.c prints it, report_verify.c re-runs it, report_watch.c
 * shows it live. */
#ifndef MGPU_CLI_CLASS_MODEL_H
#define MGPU_CLI_CLASS_MODEL_H
#include <jansson.h>
#include "mgpu/classcfg.h"
#include "mgpu/lab.h"

/* An export larger than this is skipped with the reason (a learner's is a
 * few hundred KiB with their exercise files; a 30 MB one took 593 MB). */
#define CLASS_EXPORT_MAX ((size_t)8 << 20)
/* Attempts and hints of one step above this are not a count (refused). */
#define CLASS_MAX_COUNT 1000000

/* What a cell shows. */
typedef enum class_state {
    CLASS_NOT_STARTED = 0,
    CLASS_READ,         /* a reading step, read */
    CLASS_AWAITING,     /* measured; questions wait for answers */
    CLASS_FAILED,       /* tried, not passed (failed, a lab error) */
    CLASS_CANCELLED,    /* the only attempts were cancelled */
    CLASS_PASSED,
    CLASS_INVALID,      /* the export says something that cannot be (problems name it) */
    CLASS_ELSEWHERE,    /* ran on a machine other than the class's (problems name it) */
    CLASS_EDITED,       /* claimed by a progress file changed outside mgpulab, not run since */
} class_state;

/* The verification of one cell by re-running it (report_verify.c). */
typedef enum class_verify {
    VERIFY_NONE = 0,    /* not asked, or nothing to verify (not started) */
    VERIFY_OK,          /* re-run here: the same outcome */
    VERIFY_FAILED,      /* re-run here: not what the export claims */
    VERIFY_UNVERIFIABLE /* cannot be re-run here (why in note) */
} class_verify;

typedef struct class_cell {
    class_state state;
    int attempts, hints, solution_shown;
    double last_run, opened, passed_at; /* unix times, 0 = none */
    char ran_on[160];
    const char *message;   /* the export's last verdict (borrowed from the doc) */
    json_t *step;          /* the export's step object (borrowed), NULL when absent */
    int edited;            /* the learner's progress file was changed outside mgpulab */
    class_verify verify;
    char verify_note[400];
} class_cell;

typedef struct class_col {
    char lab[64], lab_title[128], step[64], title[160];
    int lab_index, step_index; /* in the catalog */
    int reading;               /* no check: read, never passed */
    int nquestions;
    const mgpu_lab_question *questions;
} class_col;

typedef struct class_learner {
    char id[64], name[128], host[128], file[256];
    char label[200];           /* the row's name: "Ada Lovelace", "Grace Hopper (grace)" when a name is shared */
    json_t *doc;               /* the newest export (owned), NULL for a non-starter */
    double created, last_activity;
    int on_roster, edited;
    class_cell *cells;         /* one per column */
} class_learner;

typedef struct class_model {
    int quiet;                    /* set before loading: skipped files are not said on stderr (the live view) */
    const mgpu_class_config *cfg; /* NULL: no class configuration */
    mgpu_lab_catalog *cat;        /* the labs the columns come from */
    class_col *cols;
    int ncols;
    json_t *col_index;            /* lab id -> {step id -> column index} */
    class_learner *learners;
    int nlearners;
    json_t *problems;             /* [{file, learner, what}] */
    json_t *skipped;              /* [{file, why}]: files not read at all */
} class_model;

/* Read DIR's *.json into m (m zeroed by the caller). The class
 * configuration in force gives the labs, the roster and the machine;
 * without one the columns are the labs the exports hold. Returns 0, or -1
 * when DIR cannot be read (with a message on stderr). */
int class_model_load(class_model *m, const char *dir, mgpu_lab_catalog *cat);
void class_model_free(class_model *m);

/* "passed", "read", "awaiting", "failed", "cancelled", "not started",
 * "invalid", "other machine", "edited" */
const char *class_state_name(class_state s);
/* The cell as one short text: "passed 2" (state, attempts), "read", "-"
 * for not started, "+sol" when the learner asked for the solution. */
void class_cell_text(const class_cell *c, char *buf, size_t len);
/* Time on task of a passed cell (first open to pass), seconds; < 0 none. */
double class_cell_time_on_task(const class_cell *c);
/* The steps' totals. */
typedef struct class_step_sum {
    int done, awaiting, failed, not_started, invalid, solutions;
    long long attempts, hints; /* summed over learners: counts up to CLASS_MAX_COUNT each */
    double median_time_on_task; /* < 0: nobody passed with a time */
} class_step_sum;
void class_step_summary(const class_model *m, int col, class_step_sum *out);
/* Learners stuck on column col (tried, not passed), as a JSON list of labels. */
json_t *class_stuck(const class_model *m, int col);
/* Per question: [{lab, step, question, ask, answered, right, wrong, wrong_answers: [{answer, learners}]}] */
json_t *class_questions(const class_model *m);
/* Re-run every pass the exports claim (report_verify.c): fills each
 * claimed cell's verify and verify_note. Returns 0, or the exit status
 * when the labs cannot be found. */
struct mgpu_cli_globals;
int class_model_verify(class_model *m, const struct mgpu_cli_globals *g);
/* "verified", "failed on re-run", "unverifiable"; NULL for none. */
const char *class_verify_name(class_verify v);

/* The machine the class runs on as a step's "ran_on" starts ("sim
 * dgx-h100", "sim", "cuda") or "" when the configuration pins none. */
void class_machine(const class_model *m, char *buf, size_t len);

#endif
