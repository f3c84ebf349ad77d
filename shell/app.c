/* app.c - the shell's state in one place: what the screen shows and what a
 * key may do next are read and changed through these functions. Every
 * other module of the shell core (actions, keys, drawing, dialogs, the work
 * thread's events) calls down into this file and never into its peers'
 * state helpers, so the core has no call circle: app.c itself calls only
 * the leaves (snap, text, the engine). */
#include "app.h"
#include "shell_strings.h"
#include "text.h"
#include "watch.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double shell_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const snap_lab *app_lab(const shell_app *a, int lab)
{
    return lab >= 0 && lab < a->snap.nlabs ? &a->snap.labs[lab] : NULL;
}

const snap_step *app_step(const shell_app *a, int lab, int step)
{
    const snap_lab *l = app_lab(a, lab);
    return l && step >= 0 && step < l->nsteps ? &l->steps[step] : NULL;
}

const snap_step *app_selected_step(shell_app *a)
{
    const snap_step *st = app_step(a, a->lab_open, a->step_sel);
    if (!st) status_set(a, tr("open a lab and select a step first"));
    return st;
}

/* After `step`: the first step not passed, else simply the next one. */
int next_step_of(const shell_app *a, int lab, int step)
{
    const snap_lab *l = app_lab(a, lab);
    if (!l || step + 1 >= l->nsteps) return -1;
    for (int k = step + 1; k < l->nsteps; k++)
        if (l->steps[k].state != MGPU_STEP_PASSED && l->steps[k].state != MGPU_STEP_READ) return k;
    return step + 1;
}

int app_busy(const shell_app *a) { return a->work.active; }

/* After the work, sampling goes on until the bandwidth pane's window (its
 * last 50 samples, ~5 s) holds only idle samples, so it reads 0.0: 56 in a
 * row with no traffic. Counted in samples, not seconds (on a loaded machine
 * a 100 ms poll comes late), and counted from the last traffic seen, not
 * from the end: a rate still held when the step ended (the workers' last
 * calls) kept a 365.8 in the window once under ASan on a loaded machine.
 * A tail that never goes quiet (failing samples, traffic from elsewhere)
 * still ends, so an idle shell sleeps. */
#define SAMPLE_TAIL_QUIET 56
#define SAMPLE_TAIL_MAX 600

int app_sampling(const shell_app *a)
{
    return a->work.active || (a->work.ended > 0 && a->tel && a->tail_quiet < SAMPLE_TAIL_QUIET &&
                              a->tail_samples < SAMPLE_TAIL_MAX);
}

void status_set(shell_app *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->status, sizeof a->status, fmt, ap);
    va_end(ap);
    text_trim_partial(a->status);
    a->dirty = 1;
}

void app_refresh_snapshot(shell_app *a)
{
    if (!a->cat || a->work.active) return;
    /* the catalog's texts in the language the learner chose (L may have
     * switched it while a step ran and the catalog was the work thread's) */
    mgpu_lab_catalog_set_lang(a->cat, mgpu_lang_get());
    if (snap_take(a->cat, &a->snap) != MGPU_OK)
        status_set(a, "%s", mgpu_error_message());
    a->text_lab = -1; /* answers and states may change the text shown */
}

void verdict_clear(shell_verdict *v)
{
    mgpu_lab_verdict_clear(&v->v);
    memset(v, 0, sizeof *v);
}

/* The top bar's first words, before the machine answers (shell_topo.c). */
static void initial_backend_line(shell_app *a)
{
    const mgpu_backend_config *b = &a->g->backend;
    if (b->kind == MGPU_BACKEND_SIM || (b->kind == MGPU_BACKEND_AUTO && !mgpu_build_has_cuda())) {
        a->simulated = 1;
        snprintf(a->backend_line, sizeof a->backend_line, "SIMULATED machine %s%s%s",
                 b->machine ? b->machine : "dgx-h100", b->fault ? ", faults: " : "", b->fault ? b->fault : "");
    } else {
        snprintf(a->backend_line, sizeof a->backend_line, "%s backend (asking the machine...)",
                 b->kind == MGPU_BACKEND_CUDA ? "cuda" : "auto");
    }
}

mgpu_result app_new(const mgpu_shell_options *g, shell_app **out)
{
    *out = NULL;
    shell_app *a = calloc(1, sizeof *a);
    if (!a) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory");
    a->g = g;
    a->lab_open = -1;
    a->text_lab = -1;
    a->shown_lab = a->shown_step = -1;
    initial_backend_line(a);
    mgpu_result rc = evq_open(&a->q);
    if (rc != MGPU_OK) {
        free(a);
        return rc;
    }
    *out = a;
    return MGPU_OK;
}

void app_free(shell_app *a)
{
    if (!a) return;
    free(a->modal.text);
    verdict_clear(&a->verdict);
    json_decref(a->run_results);
    md_lines_free(&a->text);
    snap_free(&a->snap);
    if (a->cat) mgpu_lab_catalog_close(a->cat);
    if (a->tel) mgpu_telemetry_close(a->tel);
    watch_close(a->watch);
    evq_close(a->q);
    free(a);
}
