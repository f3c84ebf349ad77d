/* shell_work.c - a step runs on a work thread (mgpu_lab_run_step); its
 * callbacks copy what they get into the event queue, and the UI thread
 * hands the events to the panes. */
#include "shell_work.h"
#include "shell_topo.h"
#include "shell_verdict.h"
#include "shell_strings.h"
#include "results_store.h"
#include <stdlib.h>
#include <string.h>

/*--- callbacks: work thread -----------------------------------------------*/

static void on_log(void *ctx, int rank, const char *line)
{
    shell_work *w = ctx;
    shell_event *ev = evq_new(EV_LOG);
    if (!ev) return;
    ev->rank = rank;
    ev->text = strdup(line ? line : "");
    evq_push(w->q, ev);
}

static void on_progress(void *ctx, double fraction, const char *what)
{
    shell_work *w = ctx;
    shell_event *ev = evq_new(EV_PROGRESS);
    if (!ev) return;
    ev->fraction = fraction;
    ev->text = strdup(what ? what : "");
    evq_push(w->q, ev);
}

static void on_result(void *ctx, const char *kind, json_t *doc)
{
    shell_work *w = ctx;
    shell_event *ev = evq_new(EV_RESULT);
    if (!ev) return;
    ev->kind = strdup(kind ? kind : "");
    ev->doc = doc ? json_deep_copy(doc) : NULL;
    evq_push(w->q, ev);
}

static void on_span(void *ctx, json_t *span)
{
    shell_work *w = ctx;
    shell_event *ev = evq_new(EV_SPAN);
    if (!ev) return;
    ev->doc = span ? json_deep_copy(span) : NULL;
    evq_push(w->q, ev);
}

static void *work_main(void *arg)
{
    shell_work *w = arg;
    shell_event *done = evq_new(EV_STEP_DONE);
    mgpu_lab_verdict *v = calloc(1, sizeof *v);
    mgpu_result rc = (done && v) ? mgpu_lab_run_step(w->cat, w->lab, w->step, &w->env, v)
                                 : mgpu_fail(MGPU_ERR_NOMEM, "out of memory starting the step");
    if (!done) { /* nothing can tell the UI: it will see the thread end on quit */
        if (v) mgpu_lab_verdict_clear(v);
        free(v);
        return NULL;
    }
    done->lab = w->lab;
    done->step = w->step;
    done->rc = rc;
    if (rc == MGPU_OK) {
        done->verdict = v;
    } else {
        /* the error message is thread-local: copy it for the UI thread */
        done->text = strdup(mgpu_error_message());
        if (v) mgpu_lab_verdict_clear(v);
        free(v);
    }
    evq_push(w->q, done);
    return NULL;
}

/*--- UI thread --------------------------------------------------------------*/

mgpu_result work_start(shell_app *a, int lab, int step, int check_only)
{
    shell_work *w = &a->work;
    if (w->active) return mgpu_fail(MGPU_ERR_INVALID, "a step is already running (c cancels it)");
    if (!a->cat) return mgpu_fail(MGPU_ERR_INVALID, "no labs are loaded");
    memset(&w->env, 0, sizeof w->env);
    w->env.backend = a->g->backend;
    w->env.launcher = a->g->launcher;
    w->env.ranks = a->g->ranks;
    w->env.timeout_s = a->g->timeout_s;
    w->env.check_only = check_only;
    w->lang = mgpu_lang_get(); /* the run's language: its verdict says it when the learner switches */
    w->cancel = 0;
    w->env.cancel = &w->cancel;
    w->extra_env[0] = a->tel ? mgpu_telemetry_env(a->tel) : NULL;
    w->extra_env[1] = NULL;
    w->env.extra_env = w->extra_env[0] ? w->extra_env : NULL;
    w->env.events = (mgpu_lab_events){.ctx = w, .log = on_log, .progress = on_progress,
                                      .result = on_result, .span = on_span};
    w->q = a->q;
    w->cat = a->cat;
    w->lab = lab;
    w->step = step;
    w->fraction = -1;
    w->what[0] = 0;
    w->started = shell_now();
    /* a re-check keeps the panes: they show the measurement being judged */
    for (int i = 0; i < a->npanes && !check_only; i++)
        if (shell_panes[i]->on_step_start) shell_panes[i]->on_step_start(a->pane_self[i]);
    json_decref(a->run_results);
    a->run_results = json_array(); /* NULL when out of memory: then nothing is saved */
    a->shown_lab = lab;
    a->shown_step = step;
    a->pane_picked = 0;
    if (pthread_create(&w->thread, NULL, work_main, w) != 0)
        return mgpu_fail(MGPU_ERR_INTERNAL, "cannot start the work thread");
    w->active = 1;
    /* the first telemetry sample starts the interval; its rates are dropped */
    a->last_sample = 0;
    return MGPU_OK;
}

void work_join(shell_app *a)
{
    if (!a->work.active) return;
    pthread_join(a->work.thread, NULL);
    a->work.active = 0;
    a->work.ended = shell_now();
    a->tail_samples = a->tail_quiet = 0;
}

static void log_to_panes(shell_app *a, int rank, const char *line)
{
    for (int i = 0; i < a->npanes; i++)
        if (shell_panes[i]->on_log) shell_panes[i]->on_log(a->pane_self[i], rank, line);
}

/* The verdict into the log too: "where: log pane" must find the error
 * there, and a lab's own error (a syntax error in lab.lua or a check) has
 * no other place that shows its traceback whole. */
static void log_verdict(shell_app *a, const mgpu_lab_verdict *sv)
{
    char line[1400];
    snprintf(line, sizeof line, "---- step ended: %s (%.1f s): %s", mgpu_step_state_name(sv->state), sv->seconds,
             sv->message);
    log_to_panes(a, -1, line);
    for (const char *p = sv->traceback; *p;) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        snprintf(line, sizeof line, "  %.*s", n, p);
        log_to_panes(a, -1, line);
        p = nl ? nl + 1 : p + n;
    }
}

/* The run's results become the step's last results on disk (a re-check
 * that produced none leaves the measurement it judged). */
static void save_results(shell_app *a, int lab, int step)
{
    const snap_lab *l = app_lab(a, lab);
    const snap_step *st = app_step(a, lab, step);
    if (l && st && a->run_results && json_array_size(a->run_results) > 0 &&
        results_store_save(a->state_dir, l->id, st->id, a->run_results) != MGPU_OK)
        log_to_panes(a, -1, mgpu_error_message());
    json_decref(a->run_results);
    a->run_results = NULL;
}

void results_follow_selection(shell_app *a)
{
    if (app_busy(a) || !a->cat || a->lab_open < 0) return;
    if (a->lab_open == a->shown_lab && a->step_sel == a->shown_step) return;
    a->shown_lab = a->lab_open;
    a->shown_step = a->step_sel;
    /* the learner sees the step: its time on task starts (recorded once) */
    if (mgpu_lab_open_step(a->cat, a->lab_open, a->step_sel) != MGPU_OK) mgpu_error_clear();
    const snap_lab *l = app_lab(a, a->lab_open);
    const snap_step *st = app_step(a, a->lab_open, a->step_sel);
    json_t *saved = l && st ? results_store_load(a->state_dir, l->id, st->id) : NULL;
    if (!saved) return; /* nothing kept: the panes keep what they show */
    for (int i = 0; i < a->npanes; i++) {
        if (strcmp(shell_panes[i]->name, "results") != 0) continue;
        shell_panes[i]->on_step_start(a->pane_self[i]);
        json_t *r;
        size_t k;
        json_array_foreach(json_object_get(saved, "results"), k, r) {
            json_t *doc = json_object_get(r, "doc");
            const char *kind = json_string_value(json_object_get(r, "kind"));
            if (kind && doc) shell_panes[i]->on_result(a->pane_self[i], kind, doc);
        }
    }
    json_decref(saved);
    a->dirty = 1;
}

static void step_done(shell_app *a, shell_event *ev)
{
    work_join(a);
    save_results(a, ev->lab, ev->step);
    verdict_clear(&a->verdict);
    a->verdict.valid = 1;
    a->verdict.lab = ev->lab;
    a->verdict.step = ev->step;
    a->verdict.lang = a->work.lang;
    mgpu_lab_verdict *sv = &a->verdict.v;
    int ran = ev->rc == MGPU_OK && ev->verdict;
    if (ran) { /* the engine's verdict itself: the event gives it up */
        *sv = *ev->verdict;
        free(ev->verdict);
        ev->verdict = NULL;
    } else {
        sv->state = MGPU_STEP_ERROR;
        snprintf(sv->message, sizeof sv->message, tr("the step could not run: %s"), ev->text ? ev->text : "?");
    }
    log_verdict(a, sv);
    app_refresh_snapshot(a);
    verdict_view_refresh(a);
    status_set(a, tr("%s: %s (%.1f s)"), ran ? tr("step ended") : tr("step failed to run"),
               tr(mgpu_step_state_name(sv->state)), sv->seconds);
    int next = next_step_of(a, ev->lab, ev->step);
    if ((sv->state == MGPU_STEP_PASSED || sv->state == MGPU_STEP_READ) && next >= 0 && ev->lab == a->lab_open) {
        const snap_step *ns = app_step(a, ev->lab, next);
        status_set(a, tr("step ended: %s (%.1f s) - n: next step, %d %s"), tr(mgpu_step_state_name(sv->state)), sv->seconds, next + 1,
                   ns->title ? ns->title : ns->id);
    } else if (sv->state == MGPU_STEP_AWAITING) {
        status_set(a, tr("step ended: measured; its questions wait for your answers (press a)"));
    }
}

/* A run's results appear in the results pane, shown without taking focus:
 * the keys stay where the learner was (the steps list: j still moves to
 * the next step). Not when the learner picked a pane during the run or is
 * working in one; the topology document stays in the topology pane. */
static void results_come_into_view(shell_app *a, const char *kind)
{
    if (!app_busy(a) || a->pane_picked || a->focus == FOCUS_PANE || (kind && strcmp(kind, "topo") == 0)) return;
    for (int i = 0; i < a->npanes; i++)
        if (strcmp(shell_panes[i]->name, "results") == 0) a->pane_cur = i;
}

void work_dispatch(shell_app *a, shell_event *ev)
{
    switch (ev->type) {
    case EV_LOG: log_to_panes(a, ev->rank, ev->text ? ev->text : ""); break;
    case EV_PROGRESS:
        a->work.fraction = ev->fraction;
        snprintf(a->work.what, sizeof a->work.what, "%s", ev->text ? ev->text : "");
        break;
    case EV_RESULT:
        if (!ev->doc) break;
        if (app_busy(a) && a->run_results)
            json_array_append_new(a->run_results, json_pack("{s:s, s:O}", "kind", ev->kind ? ev->kind : "", "doc", ev->doc));
        for (int i = 0; i < a->npanes; i++)
            if (shell_panes[i]->on_result) shell_panes[i]->on_result(a->pane_self[i], ev->kind, ev->doc);
        results_come_into_view(a, ev->kind);
        break;
    case EV_SPAN:
        if (!ev->doc) break;
        for (int i = 0; i < a->npanes; i++)
            if (shell_panes[i]->on_span) shell_panes[i]->on_span(a->pane_self[i], ev->doc);
        break;
    case EV_STEP_DONE: step_done(a, ev); break;
    case EV_TOPO_DONE:
        topo_probe_join(a);
        if (ev->rc != MGPU_OK) status_set(a, tr("topology: %s"), ev->text ? ev->text : "?");
        else if (ev->text) {
            snprintf(a->backend_line, sizeof a->backend_line, "%s", ev->text);
            a->simulated = ev->simulated;
            a->pctx.simulated = ev->simulated;
        }
        break;
    }
    a->dirty = 1;
}
