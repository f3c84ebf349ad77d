/* lab_entry.c - a lab's entry in the catalog, the part every file of the
 * framework shares: the strings the entry keeps (lab_keep) and its steps'
 * progress fields, copied from the progress document (lab_sync_progress).
 * Below catalog, load, run and workspace, which all call it. */
#include "lab/lab_internal.h"
#include <stdlib.h>
#include <string.h>

const char *lab_keep(lab_entry *e, const char *s)
{
    if (!s) return NULL;
    if (e->nstrings == e->capstrings) {
        int cap = e->capstrings ? 2 * e->capstrings : 32;
        char **n = realloc(e->strings, (size_t)cap * sizeof *n);
        if (!n) return NULL;
        e->strings = n;
        e->capstrings = cap;
    }
    char *c = strdup(s);
    if (c) e->strings[e->nstrings++] = c;
    return c;
}

const char *mgpu_step_state_name(mgpu_step_state s)
{
    static const char *const names[] = {"new", "passed", "failed", "error", "cancelled", "read", "awaiting"};
    return (unsigned)s < sizeof names / sizeof *names ? names[s] : "?";
}

static mgpu_step_state state_parse(const char *s)
{
    for (int i = MGPU_STEP_NEW; i <= MGPU_STEP_AWAITING; i++)
        if (s && strcmp(s, mgpu_step_state_name((mgpu_step_state)i)) == 0) return (mgpu_step_state)i;
    return MGPU_STEP_NEW;
}

static const char *json_str(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

void lab_sync_all_progress(mgpu_lab_catalog *cat)
{
    for (int i = 0; i < cat->nlabs; i++) lab_sync_progress(cat, &cat->labs[i]);
}

void lab_sync_progress(mgpu_lab_catalog *cat, lab_entry *e)
{
    e->info.passed = 0;
    for (int i = 0; i < e->info.nsteps; i++) {
        mgpu_lab_step_info *s = &e->steps[i];
        json_t *p = lab_progress_step(&cat->progress, e->info.id, s->id, 0);
        s->state = state_parse(json_str(p, "state"));
        s->last_attempt = json_str(p, "last_attempt") ? state_parse(json_str(p, "last_attempt")) : MGPU_STEP_NEW;
        s->last_run = json_number_value(json_object_get(p, "last_run"));
        s->seconds = json_number_value(json_object_get(p, "seconds"));
        s->attempts = (int)json_integer_value(json_object_get(p, "attempts"));
        s->hints_taken = (int)json_integer_value(json_object_get(p, "hints_taken"));
        s->solution_shown = json_is_true(json_object_get(p, "solution_shown"));
        s->passed_on = json_str(p, "passed_on");
        /* a claim from a file edited outside mgpulab counts once the step
         * runs again: until then it is not done */
        s->edited = json_is_true(json_object_get(p, "untrusted"));
        if (s->edited) {
            s->state = s->last_attempt = MGPU_STEP_NEW;
            s->passed_on = NULL;
        }
        /* pointers into the progress document: valid until it changes, and
         * every change goes through here again */
        s->last_message = json_str(p, "message");
        json_t *answers = json_object_get(p, "answers");
        for (int q = 0; q < s->nquestions; q++) e->questions[i][q].answer = json_str(answers, e->questions[i][q].id);
        /* checked steps pass; a reading step is read, whatever a file says */
        e->info.passed += s->state == MGPU_STEP_PASSED && s->has_check;
    }
}
