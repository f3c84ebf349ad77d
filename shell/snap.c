/* snap.c - deep copies of the catalog's lab and step infos. */
#include "snap.h"
#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s, int *oom)
{
    if (!s) return NULL;
    char *d = strdup(s);
    if (!d) *oom = 1;
    return d;
}

static void step_free(snap_step *st)
{
    free(st->id);
    free(st->title);
    free(st->text_path);
    free(st->exercise);
    free(st->last_message);
    for (int q = 0; q < st->nquestions && st->questions; q++) {
        free(st->questions[q].id);
        free(st->questions[q].ask);
        free(st->questions[q].answer);
    }
    free(st->questions);
}

void snap_free(shell_snap *s)
{
    for (int i = 0; i < s->nlabs && s->labs; i++) {
        snap_lab *l = &s->labs[i];
        for (int k = 0; k < l->nsteps && l->steps; k++) step_free(&l->steps[k]);
        free(l->steps);
        free(l->id);
        free(l->title);
        free(l->summary);
        free(l->dir);
        free(l->backends);
        free(l->load_error);
    }
    free(s->labs);
    s->labs = NULL;
    s->nlabs = 0;
}

/* The text in the current language where the catalog has one (the shell
 * shows, never stores, these: ids stay English). */
static const char *local(const char *loc, const char *en) { return loc ? loc : en; }

static void copy_step(const mgpu_lab_step_info *in, snap_step *st, int *oom)
{
    st->id = dup_or_null(in->id, oom);
    st->title = dup_or_null(local(in->title_local, in->title), oom);
    st->text_path = dup_or_null(local(in->text_path_local, in->text_path), oom);
    st->text_missing = in->text_missing;
    st->exercise = dup_or_null(in->exercise, oom);
    st->last_message = dup_or_null(in->last_message, oom);
    st->nhints = in->nhints;
    st->state = in->state;
    st->last_attempt = in->last_attempt;
    st->reading = !in->has_check;
    st->last_run = in->last_run;
    st->seconds = in->seconds;
    if (in->nquestions > 0) {
        st->questions = calloc((size_t)in->nquestions, sizeof *st->questions);
        if (!st->questions) {
            *oom = 1;
            return;
        }
        st->nquestions = in->nquestions;
        for (int q = 0; q < in->nquestions; q++) {
            st->questions[q].id = dup_or_null(in->questions[q].id, oom);
            st->questions[q].ask = dup_or_null(local(in->questions[q].ask_local, in->questions[q].ask), oom);
            st->questions[q].answer = dup_or_null(in->questions[q].answer, oom);
        }
    }
}

mgpu_result snap_take(const mgpu_lab_catalog *cat, shell_snap *out)
{
    shell_snap s = {0};
    int n = mgpu_lab_count(cat), oom = 0;
    if (n > 0) {
        s.labs = calloc((size_t)n, sizeof *s.labs);
        if (!s.labs) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory copying the lab list");
        s.nlabs = n;
    }
    for (int i = 0; i < n && !oom; i++) {
        const mgpu_lab_info *in = mgpu_lab_get(cat, i);
        snap_lab *l = &s.labs[i];
        l->id = dup_or_null(in->id, &oom);
        l->title = dup_or_null(local(in->title_local, in->title), &oom);
        l->summary = dup_or_null(local(in->summary_local, in->summary), &oom);
        l->dir = dup_or_null(in->dir, &oom);
        l->backends = dup_or_null(local(in->backends_local, in->backends), &oom);
        l->load_error = dup_or_null(in->load_error, &oom);
        l->number = in->number;
        l->passed = in->passed;
        if (in->nsteps > 0) {
            l->steps = calloc((size_t)in->nsteps, sizeof *l->steps);
            if (!l->steps) {
                oom = 1;
                break;
            }
            l->nsteps = in->nsteps;
            for (int k = 0; k < in->nsteps; k++) {
                copy_step(&in->steps[k], &l->steps[k], &oom);
                l->nchecked += in->steps[k].has_check;
            }
        }
    }
    if (oom) {
        snap_free(&s);
        return mgpu_fail(MGPU_ERR_NOMEM, "out of memory copying the lab list");
    }
    snap_free(out);
    *out = s;
    return MGPU_OK;
}

const char *snap_state_mark(mgpu_step_state st)
{
    switch (st) {
    case MGPU_STEP_PASSED: return "[x]";
    case MGPU_STEP_FAILED: return "[!]";
    case MGPU_STEP_ERROR: return "[E]";
    case MGPU_STEP_CANCELLED: return "[-]";
    case MGPU_STEP_AWAITING: return "[?]"; /* measured, questions wait: not a failure */
    default: return "[ ]";
    }
}

const char *snap_step_mark(const snap_step *st)
{
    if (st->reading) return st->state == MGPU_STEP_NEW ? "( )" : "(*)";
    return snap_state_mark(st->state);
}

const char *snap_lab_mark(const snap_lab *lab)
{
    if (lab->load_error) return "[E]";
    if (lab->nchecked > 0 && lab->passed >= lab->nchecked) return "[x]";
    for (int k = 0; k < lab->nsteps; k++)
        if (lab->steps[k].state == MGPU_STEP_ERROR || lab->steps[k].state == MGPU_STEP_FAILED) return "[!]";
    return lab->passed > 0 ? "[~]" : "[ ]";
}
