/* shell_actions.c - what the keys do: open a lab, run / cancel a step,
 * edit the exercise, hints, answers, reset, quit. Everything that touches
 * the catalog goes through mgpu/lab.h, and only while no step runs (the
 * catalog belongs to the work thread then). */
#include "shell_actions.h"
#include "shell_dialog.h"
#include "shell_work.h"
#include "shell_strings.h"
#include "text.h"
#include "watch.h"
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The catalog is the work thread's while a step runs. */
static int catalog_free(shell_app *a, const char *what)
{
    if (!a->cat) {
        status_set(a, tr("no labs are loaded"));
        return 0;
    }
    if (app_busy(a)) {
        status_set(a, tr("%s: wait for the running step to finish (c cancels it)"), what);
        return 0;
    }
    return 1;
}

static void watch_lab(shell_app *a)
{
    const snap_lab *l = app_lab(a, a->lab_open);
    const char *paths[64];
    int n = 0;
    for (int k = 0; l && k < l->nsteps && n < 64; k++) paths[n++] = l->steps[k].exercise;
    watch_set(a->watch, paths, n);
}

void act_open_lab(shell_app *a, int lab)
{
    const snap_lab *l = app_lab(a, lab);
    if (!l) return;
    a->lab_sel = lab;
    if (a->lab_open != lab) {
        a->lab_open = lab;
        /* start at the first step not passed */
        int k = 0;
        while (k < l->nsteps && (l->steps[k].state == MGPU_STEP_PASSED || l->steps[k].state == MGPU_STEP_READ)) k++;
        a->step_sel = k < l->nsteps ? k : 0;
        a->step_top = 0;
        watch_lab(a);
    }
    a->focus = l->nsteps > 0 ? FOCUS_STEPS : FOCUS_LABS;
    a->dirty = 1;
}

void act_select_step(shell_app *a, int step)
{
    const snap_lab *l = app_lab(a, a->lab_open);
    if (!l || l->nsteps == 0) return;
    if (step < 0) step = 0;
    if (step >= l->nsteps) step = l->nsteps - 1;
    a->step_sel = step;
    a->dirty = 1;
}

static void start_step(shell_app *a, int lab, int step, int check_only)
{
    const snap_lab *l = app_lab(a, lab);
    if (!l) return;
    if (l->load_error) {
        dialog_message(a, tr("This lab did not load"), "%s", l->load_error);
        return;
    }
    if (!app_step(a, lab, step)) {
        status_set(a, tr("this lab has no steps"));
        return;
    }
    if (!catalog_free(a, "run")) return;
    if (work_start(a, lab, step, check_only) != MGPU_OK) {
        dialog_message(a, tr("The step could not start"), "%s", mgpu_error_message());
        return;
    }
    a->status[0] = 0;
    a->dirty = 1;
}

void act_run(shell_app *a, int lab, int step) { start_step(a, lab, step, 0); }

void act_next(shell_app *a)
{
    int k = next_step_of(a, a->lab_open, a->step_sel);
    if (k < 0) {
        status_set(a, a->lab_open < 0 ? tr("open a lab first (Enter)") : tr("this is the lab's last step; Esc goes to the lab list"));
        return;
    }
    a->lab_sel = a->lab_open;
    act_select_step(a, k);
    a->focus = FOCUS_STEPS;
    const snap_step *st = app_step(a, a->lab_open, k);
    status_set(a, tr("step %d: %s - read it, then r runs it"), k + 1, st->title ? st->title : st->id);
}
void act_check(shell_app *a, int lab, int step) { start_step(a, lab, step, 1); }

void act_cancel(shell_app *a)
{
    if (!app_busy(a)) {
        status_set(a, tr("nothing is running"));
        return;
    }
    a->work.cancel = 1;
    status_set(a, tr("cancelling..."));
}

/* $EDITOR (or vi) on the exercise: curses steps aside while it runs. */
void act_edit(shell_app *a)
{
    const snap_step *st = app_selected_step(a);
    if (!st) return;
    if (!st->exercise) {
        status_set(a, tr("step \"%s\" has no exercise to edit"), st->title ? st->title : st->id);
        return;
    }
    struct stat sb;
    if (stat(st->exercise, &sb) != 0) {
        dialog_message(a, tr("No exercise file yet"),
                       tr("%s does not exist yet (%s).\nRun the step once (r): the lab copies its exercises into "
                       "your workspace on first use."), st->exercise, strerror(errno));
        return;
    }
    const char *ed = getenv("EDITOR");
    if (!ed || !*ed) ed = "vi";
    def_prog_mode();
    endwin();
    /* through sh so EDITOR may carry arguments ("code -w"); the path is
     * passed as $1, never pasted into the command line */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "exec %s \"$1\"", ed);
    const char *argv[] = {"sh", "-c", cmd, "sh", st->exercise, NULL};
    pid_t pid;
    /* the editor gets the signal mask the shell was started with */
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setsigmask(&attr, &a->poll_mask);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    int rc = posix_spawn(&pid, "/bin/sh", NULL, &attr, (char *const *)argv, environ);
    posix_spawnattr_destroy(&attr);
    int status = 0;
    if (rc == 0)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    reset_prog_mode();
    clearok(curscr, TRUE);
    refresh();
    if (rc != 0)
        dialog_message(a, tr("Editor"), tr("cannot start %s: %s"), ed, strerror(rc));
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        status_set(a, tr("%s exited with status %d"), ed, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    else
        status_set(a, tr("back from %s; a saved change re-runs the check"), ed);
    a->dirty = 1;
}

void act_hint(shell_app *a)
{
    const snap_step *st = app_selected_step(a);
    if (!st) return;
    if (!catalog_free(a, "hint")) return;
    const char *h = mgpu_lab_hint(a->cat, a->lab_open, a->step_sel);
    if (!h) dialog_message(a, tr("Hint"), tr("This step has no hints."));
    else dialog_message(a, tr("Hint"), "%s", h);
    app_refresh_snapshot(a);
}

/* The reference solution is its own action, never the last hint: asked for,
 * confirmed, and recorded in progress ("solution_shown"). */
void act_ask_solution(shell_app *a)
{
    const snap_step *st = app_selected_step(a);
    if (!st) return;
    if (!st->exercise) {
        status_set(a, tr("step %d has no exercise, so no solution to show"), a->step_sel + 1);
        return;
    }
    if (!catalog_free(a, "solution")) return;
    const char *file = strrchr(st->exercise, '/');
    dialog_confirm(a, CONFIRM_SOLUTION,
                   tr("Show the reference solution of %s? The hints (h) lead to it without the code. Your progress "
                   "records that you saw it."), file ? file + 1 : st->exercise);
    a->modal.lab = a->lab_open;
    a->modal.step = a->step_sel;
}

void act_solution(shell_app *a, int lab, int step)
{
    const snap_step *st = app_step(a, lab, step);
    if (!st || !catalog_free(a, "solution")) return;
    char *text = NULL;
    size_t len = 0;
    mgpu_result r = mgpu_lab_solution(a->cat, lab, step, &text, &len);
    if (!text) {
        dialog_message(a, tr("No solution"), "%s", mgpu_error_message());
        return;
    }
    const char *file = st->exercise ? strrchr(st->exercise, '/') : NULL;
    char title[384];
    snprintf(title, sizeof title, tr("Solution: %s (%s)"), file ? file + 1 : tr("the exercise"),
             r == MGPU_OK ? tr("recorded in your progress") : tr("NOT recorded: the progress could not be saved"));
    dialog_text(a, title, text);
    free(text);
    app_refresh_snapshot(a);
}

static void prompt_question(shell_app *a, int q)
{
    const snap_step *st = app_step(a, a->lab_open, a->step_sel);
    int lab = a->lab_open, step = a->step_sel;
    dialog_close(a);
    modal *m = &a->modal;
    m->kind = MODAL_PROMPT;
    m->lab = lab;
    m->step = step;
    m->question = q;
    snprintf(m->title, sizeof m->title, tr("Question %d/%d (Enter saves, Esc cancels)"), q + 1, st->nquestions);
    m->text = strdup(st->questions[q].ask ? st->questions[q].ask : st->questions[q].id);
    snprintf(m->input, sizeof m->input, "%s", st->questions[q].answer ? st->questions[q].answer : "");
    m->input_len = (int)strlen(m->input);
    m->input_old = m->input_len > 0; /* selected: the first key typed replaces it */
}

void act_answer(shell_app *a)
{
    const snap_step *st = app_selected_step(a);
    if (!st) return;
    if (st->nquestions == 0) {
        status_set(a, tr("this step asks no questions"));
        return;
    }
    if (!catalog_free(a, "answer")) return;
    prompt_question(a, 0);
}

void act_answer_next(shell_app *a)
{
    modal *m = &a->modal;
    const snap_step *st = app_step(a, m->lab, m->step);
    if (!st || m->question >= st->nquestions || !catalog_free(a, "answer")) {
        dialog_close(a);
        return;
    }
    if (mgpu_lab_answer(a->cat, m->lab, m->step, st->questions[m->question].id, m->input) != MGPU_OK) {
        dialog_message(a, tr("The answer was not saved"), "%s", mgpu_error_message());
        return;
    }
    int next = m->question + 1, nq = st->nquestions, lab = m->lab, step = m->step;
    app_refresh_snapshot(a); /* st is stale from here on */
    if (next < nq) {
        prompt_question(a, next);
    } else {
        /* judged at once against the measurement on screen; r measures again */
        dialog_close(a);
        act_check(a, lab, step);
        status_set(a, tr("answers saved and checked against the last measurement; r measures again"));
    }
}

void act_reset(shell_app *a)
{
    const snap_lab *l = app_lab(a, a->lab_open >= 0 ? a->lab_open : a->lab_sel);
    if (!l || !catalog_free(a, "reset")) return;
    int lab = (int)(l - a->snap.labs);
    if (mgpu_lab_reset(a->cat, lab) != MGPU_OK) {
        dialog_message(a, tr("Reset failed"), "%s", mgpu_error_message());
        return;
    }
    char id[256];
    snprintf(id, sizeof id, "%s", l->id);
    app_refresh_snapshot(a);
    watch_rebase(a->watch); /* the originals coming back are not a learner's save */
    if (a->verdict.lab == lab) a->verdict.valid = 0;
    status_set(a, tr("%s reset: exercises back to the originals (old copies kept as .bak), progress forgotten"), id);
}

void act_quit(shell_app *a)
{
    if (app_busy(a)) a->work.cancel = 1; /* the loop's exit waits for the step to end */
    a->quit = 1;
}

/* y in a confirmation: what it asked about (dialog_confirm's action). */
void act_confirmed(shell_app *a, confirm_action act, int lab, int step)
{
    if (act == CONFIRM_QUIT) act_quit(a);
    else if (act == CONFIRM_SOLUTION) act_solution(a, lab, step);
    else act_reset(a);
}

/* L: the other language. The lists, the step's text, its hints and
 * questions come back from the catalog in it (a step that runs now
 * finishes in the language it started in; its verdict says which). */
void act_lang(shell_app *a)
{
    mgpu_lang to = mgpu_lang_get() == MGPU_LANG_KO ? MGPU_LANG_EN : MGPU_LANG_KO;
    mgpu_lang_set(to);
    app_refresh_snapshot(a); /* a running step: when it ends (step_done takes a new one) */
    a->text_lab = -1;         /* the step's text again, from the other file */
    status_set(a, "%s", tr("language: English (L: Korean)"));
}
