/* app.h - the shell core's state, shared by its modules (main loop, layout,
 * drawing, keys, dialogs, work thread, watch). The panes never see it: they
 * get only pane.h's pane_context. */
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

/* app.c: the state's own functions. Every module below calls these, and
 * app.c calls none of them back (no call circle in the shell's core). */
double shell_now(void); /* monotonic seconds */
/* The state for a session with the command line's options `g` (kept, not
 * copied), and its end: everything it owns (not the panes, not the screen:
 * panes_destroy and the terminal go first). */
mgpu_result app_new(const mgpu_shell_options *g, shell_app **out);
void app_free(shell_app *a);
const snap_lab *app_lab(const shell_app *a, int lab);
const snap_step *app_step(const shell_app *a, int lab, int step);
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

/* shell_layout.c */
void layout_compute(shell_app *a);

/* shell_box.c: a frame around r with a title in its top edge */
void draw_box(const rect *r, const char *title, int focused);
/* shell_lists.c: the lab list and the open lab's steps. Rows they take at
 * `inner_w` columns, each title wrapped to at most `wrap` rows (the layout
 * asks), and their drawing. */
int list_lab_rows(const shell_app *a, int inner_w, int wrap);
int list_step_rows(const shell_app *a, int inner_w, int wrap);
void draw_labs(shell_app *a);
void draw_steps(shell_app *a);
/* shell_draw.c: one full frame (stdscr, the pane window, then any dialog) */
void draw_frame(shell_app *a);
/* shell_draw_main.c */
void draw_text(shell_app *a);
void draw_pane(shell_app *a);
const char *pane_title(const pane_class *pc); /* in the current language */
void ensure_text(shell_app *a);
/* shell_verdict.c */
void draw_verdict(shell_app *a);
void verdict_show_all(shell_app *a);  /* v: the whole verdict in a scrollable view */
void verdict_view_refresh(shell_app *a); /* a new verdict arrived: an open `v` view of its step shows it */
/* shell_dialog.c */
/* What a key did in an open dialog. */
typedef struct dialog_outcome {
    enum {
        DIALOG_KEPT,      /* scrolled, typed, closed: nothing more to do */
        DIALOG_CONFIRMED, /* y: do `action` (for lab, step); the dialog is closed */
        DIALOG_ENTERED,   /* Enter in a prompt: its input (a->modal) is to be saved; still open */
    } kind;
    confirm_action action;
    int lab, step;
} dialog_outcome;
void dialog_draw(shell_app *a);
int dialog_key(shell_app *a, int ch, dialog_outcome *out); /* 1 when a dialog took the key */
void dialog_message(shell_app *a, const char *title, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void dialog_confirm(shell_app *a, confirm_action act, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void dialog_text(shell_app *a, const char *title, const char *text); /* a message of any length */
void dialog_help(shell_app *a);
void dialog_close(shell_app *a);
/* shell_keys.c */
void keys_handle(shell_app *a, int ch);
void mouse_handle(shell_app *a);
/* shell_actions.c */
void act_open_lab(shell_app *a, int lab);
void act_run(shell_app *a, int lab, int step);
void act_check(shell_app *a, int lab, int step); /* answers against the last run's measurement */
void act_cancel(shell_app *a);
void act_edit(shell_app *a);
void act_hint(shell_app *a);
void act_ask_solution(shell_app *a);   /* S: asks first (CONFIRM_SOLUTION) */
void act_solution(shell_app *a, int lab, int step); /* after y: show it, recorded in progress */
void act_answer(shell_app *a);
void act_answer_next(shell_app *a); /* after a prompt was answered */
void act_confirmed(shell_app *a, confirm_action act, int lab, int step); /* y in a confirmation */
void act_reset(shell_app *a);
void act_quit(shell_app *a);
void act_select_step(shell_app *a, int step);
void act_next(shell_app *a);  /* n: the next step of the open lab */
void act_lang(shell_app *a);  /* L: Korean <-> English; the lists and the step text redraw */
/* shell_work.c */
/* check_only: judge the last run again (new answers), no new measurement */
mgpu_result work_start(shell_app *a, int lab, int step, int check_only);
void work_join(shell_app *a);          /* after EV_STEP_DONE */
void work_dispatch(shell_app *a, shell_event *ev); /* one event to the panes and the state */
/* The selected step's last saved results into the results pane, when the
 * selection moved to a step whose results are not shown (results_store.h). */
void results_follow_selection(shell_app *a);
/* shell_topo.c */
void topo_probe_start(shell_app *a);
void topo_probe_join(shell_app *a);
/* shell_panes.c */
void panes_create(shell_app *a);
void panes_destroy(shell_app *a);
void panes_telemetry(shell_app *a);
int panes_dirty(shell_app *a);

#endif
