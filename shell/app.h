/* app.h - the shell core's state and app.c, its one owner: the modules
 * (main loop, keys, actions, dialogs, drawing, the work thread; each with
 * its own header, shell_NAME.h) read and change the state through app.c and
 * call each other only downwards, never in a circle. The panes never see it:
 * they get only pane.h's pane_context. */
#ifndef MGPU_SHELL_APP_H
#define MGPU_SHELL_APP_H
#include <curses.h>
#include <pthread.h>
#include <signal.h>
#include "shell.h"
#include "evq.h"
#include "md.h"
#include "pane.h"
#include "snap.h"
#include "mgpu/lab.h"
#include "mgpu/telemetry.h"
#include "mgpu/lang.h"

#define SHELL_MIN_W 80
#define SHELL_MIN_H 24
#define SHELL_MAX_PANES 8

typedef struct rect { int y, x, h, w; } rect;

typedef enum focus_area { FOCUS_LABS, FOCUS_STEPS, FOCUS_TEXT, FOCUS_PANE, FOCUS_COUNT } focus_area;

typedef enum modal_kind {
    MODAL_NONE,
    MODAL_HELP,
    MODAL_MESSAGE,  /* a title and text, any key closes */
    MODAL_CONFIRM,  /* y/n; the action runs on y */
    MODAL_PROMPT,   /* one line of input */
} modal_kind;

typedef enum confirm_action { CONFIRM_QUIT, CONFIRM_RESET, CONFIRM_SOLUTION } confirm_action;

typedef struct modal {
    modal_kind kind;
    char title[384];        /* a Korean step's title and the keys: 3 bytes a character */
    char *text;             /* owned */
    confirm_action action;
    /* prompt: answering question `question` of (lab, step); the solution
     * confirmation: the step whose solution y shows */
    int lab, step, question;
    char input[512];
    int input_len;
    int input_old;          /* the input is the saved answer, untouched: shown selected, typing replaces it */
    int scroll;
    int live_verdict;       /* the `v` view: redrawn when a new verdict of its step arrives */
} modal;

/* The work thread's run of one step. */
typedef struct shell_work {
    pthread_t thread;
    int active;             /* started, not yet joined */
    volatile int cancel;    /* the c key sets it; the lab framework polls it */
    int lab, step;
    double started;         /* monotonic seconds */
    double ended;           /* when the last run was joined (0 none) */
    double fraction;        /* last progress, < 0 unknown */
    mgpu_lang lang;         /* the language the step runs in (the current one when it started) */
    char what[256];
    mgpu_lab_env env;
    const char *extra_env[2];
    shell_evq *q;
    mgpu_lab_catalog *cat;
} shell_work;

/* The last verdict, shown when its step is selected: the engine's own,
 * whole (a step that could not run: state ERROR and why in its message),
 * and which step it judged. */
typedef struct shell_verdict {
    int valid, lab, step;
    mgpu_lang lang;         /* the language it was made in (it is not redone on a switch) */
    mgpu_lab_verdict v;     /* owned: verdict_clear frees its checks and measurements */
} shell_verdict;

typedef struct shell_watch shell_watch;

typedef struct shell_app {
    const mgpu_shell_options *g;  /* the command line's options */
    /* the session */
    char backend_line[256];
    int simulated;
    char labs_dir[4096], checks_dir[4096], state_dir[4096];
    char load_error[12288];   /* no labs / catalog failed: shown in the text area */
    int loaded;              /* the catalog was opened (or failed) after the first frame */
    mgpu_lab_catalog *cat;
    shell_snap snap;
    mgpu_telemetry *tel;
    double last_sample;
    int tail_samples;        /* telemetry samples taken since the work ended */
    int tail_quiet;          /* of those, the latest in a row that saw no traffic */
    shell_evq *q;
    shell_work work;
    pthread_t topo_thread;
    int topo_active;
    shell_watch *watch;
    int rerun_pending;       /* watch fired while a step ran: run again after it */
    int rerun_lab, rerun_step;
    json_t *run_results;     /* the running step's results [{kind, doc}], saved when it ends */
    int shown_lab, shown_step; /* whose results the panes show (-1: none yet) */
    /* panes */
    pane_context pctx;
    int npanes;
    void *pane_self[SHELL_MAX_PANES];
    int pane_cur;
    int pane_picked;         /* the learner chose the pane shown since the run began (1-5, a click) */
    int pane_rows;           /* height of the pane area (+ / -) */
    int pane_max;            /* z: the pane fills the main area */
    WINDOW *pane_win;
    int tab_x[SHELL_MAX_PANES], tab_w[SHELL_MAX_PANES]; /* pane titles on the frame, for clicks */
    /* selection and view */
    int lab_sel, lab_open;   /* selected row; the lab whose steps are shown (-1 none) */
    int step_sel;
    int lab_top, step_top;   /* first visible items */
    int labs_wrap, steps_wrap; /* rows a title may take (1: cut), as room allows (layout) */
    int lab_at_row[256], step_at_row[256]; /* the item drawn on each row of the list (-1 none), for the mouse */
    focus_area focus;
    md_lines text;           /* the selected step's rendered text */
    int text_lab, text_step, text_width; /* what `text` was rendered for */
    int text_scroll;
    shell_verdict verdict;
    char status[512];        /* the status line when nothing runs */
    modal modal;
    /* layout (recomputed on every draw) */
    int too_small;
    rect r_top, r_labs, r_steps, r_text, r_verdict, r_pane, r_status;
    int dirty;
    int quit;
    /* SIGWINCH is blocked except inside ppoll, so a resize can never slip
     * in between reading the keys and going to sleep */
    sigset_t poll_mask;
} shell_app;

/* app.c: the state's own functions. Every module of the core calls these,
 * and app.c calls none of them back (no call circle in the shell's core). */
double shell_now(void); /* monotonic seconds */
/* The state for a session with the command line's options `g` (kept, not
 * copied), and its end: everything it owns (not the panes, not the screen:
 * panes_destroy and the terminal go first). */
mgpu_result app_new(const mgpu_shell_options *g, shell_app **out);
void app_free(shell_app *a);
const snap_lab *app_lab(const shell_app *a, int lab);
const snap_step *app_step(const shell_app *a, int lab, int step);
/* The selected step of the open lab, or NULL after asking the learner on
 * the status line to select one (where an action on "this step" starts). */
const snap_step *app_selected_step(shell_app *a);
int next_step_of(const shell_app *a, int lab, int step); /* -1 when step is the last */
int app_busy(const shell_app *a); /* a step is running */
/* Telemetry is sampled: a step runs, or ended less than a moment ago (the
 * bandwidth pane then reads the links falling idle, not the last value). */
int app_sampling(const shell_app *a);
void status_set(shell_app *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The catalog's infos again (states, answers, the language), when the
 * catalog is the UI thread's (no step runs). */
void app_refresh_snapshot(shell_app *a);
void verdict_clear(shell_verdict *v);

#endif
