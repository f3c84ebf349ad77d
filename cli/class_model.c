/* class_model.c - reading a class's exports into the learner x step grid
 * (class_model.h): files read in name order, merged by learner id (the
 * newest wins), checked against the class configuration, the roster's
 * non-starters added. Every file that cannot be used, and every claim that
 * cannot be, is a problem that names the file; one broken upload never
 * hides the class. */
#include "class_model.h"
#include "report.h"
#include "mgpu/file.h"
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *js(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

const char *class_state_name(class_state s)
{
    static const char *const names[] = {"not started", "read", "awaiting", "failed", "cancelled", "passed",
                                        "invalid", "other machine", "edited"};
    return (unsigned)s < sizeof names / sizeof *names ? names[s] : "?";
}

const char *class_verify_name(class_verify v)
{
    return v == VERIFY_OK ? "verified" : v == VERIFY_FAILED ? "failed on re-run" : v == VERIFY_UNVERIFIABLE ? "unverifiable"
                                                                                                          : NULL;
}

static void cell_state_text(const class_cell *c, char *buf, size_t len);

void class_cell_text(const class_cell *c, char *buf, size_t len)
{
    cell_state_text(c, buf, len);
    const char *v = class_verify_name(c->verify);
    size_t n = strlen(buf);
    if (v && n < len) snprintf(buf + n, len - n, " [%s]", v);
}

static void cell_state_text(const class_cell *c, char *buf, size_t len)
{
    const char *sol = c->solution_shown ? " +sol" : "";
    switch (c->state) {
    case CLASS_NOT_STARTED: snprintf(buf, len, "-"); break;
    case CLASS_READ: snprintf(buf, len, "read%s", sol); break;
    case CLASS_INVALID:
    case CLASS_ELSEWHERE:
    case CLASS_EDITED: snprintf(buf, len, "%s", class_state_name(c->state)); break;
    default: snprintf(buf, len, "%s %d%s", class_state_name(c->state), c->attempts, sol);
    }
}

double class_cell_time_on_task(const class_cell *c)
{
    if (c->state != CLASS_PASSED || c->opened <= 0 || c->passed_at <= 0 || c->passed_at < c->opened) return -1;
    return c->passed_at - c->opened;
}

/* Why a parsed document is not an export we can read, or NULL. */
static const char *foreign(json_t *doc)
{
    if (!json_is_object(doc)) return "not a JSON object";
    if (strcmp(js(doc, "format"), MGPU_LAB_EXPORT_FORMAT) != 0)
        return "not an mgpulab report (no \"format\": \"" MGPU_LAB_EXPORT_FORMAT "\")";
    json_int_t v = json_integer_value(json_object_get(doc, "version"));
    if (v < 1 || v > MGPU_LAB_EXPORT_VERSION) return "a report version this mgpulab does not read";
    if (!json_is_array(json_object_get(doc, "labs")) || !json_is_object(json_object_get(doc, "learner")))
        return "a report without its labs or learner";
    if (!*js(json_object_get(doc, "learner"), "id")) return "a report without the learner's id";
    return NULL;
}

static void problem(class_model *m, const char *file, const char *learner, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void problem(class_model *m, const char *file, const char *learner, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    json_array_append_new(m->problems, json_pack("{s:s, s:s, s:s}", "file", file ? file : "", "learner",
                                                 learner ? learner : "", "what", what));
}

void class_machine(const class_model *m, char *buf, size_t len)
{
    const mgpu_class_config *c = m->cfg;
    buf[0] = '\0';
    if (!c) return;
    if (c->machine[0] && strcmp(c->backend, "cuda") != 0)
        snprintf(buf, len, "sim %s%s%s", c->machine, c->fault[0] ? " fault " : "", c->fault);
    else if (strcmp(c->backend, "sim") == 0) snprintf(buf, len, "sim");
    else if (strcmp(c->backend, "cuda") == 0) snprintf(buf, len, "cuda");
}

/* Does a step's ran_on belong to the class's machine? A pinned preset must
 * match whole ("sim dgx-h100" is not "sim dgx-h100 fault nvlink-down"); a
 * pinned backend only starts it. */
static int on_class_machine(const char *want, const char *ran_on)
{
    if (!*want || !*ran_on) return 1;
    if (strchr(want, ' ')) return strcmp(want, ran_on) == 0;
    size_t n = strlen(want);
    return strncmp(ran_on, want, n) == 0 && ran_on[n] == ' ';
}

/* The column of a lab's step (step NULL: the lab's first), or -1: looked
 * up, not searched - an export of 40k steps against a lab of as many took
 * 54 s searching every column for every step (issue 34). */
static int col_of(const class_model *m, const char *lab, const char *step)
{
    if (step && !*step) return -1;
    json_t *steps = json_object_get(m->col_index, lab);
    json_t *i = step ? json_object_get(steps, step) : json_object_get(steps, "");
    return json_is_integer(i) ? (int)json_integer_value(i) : -1;
}

/* The export's state of a step, checked against what the step can be. */
static class_state parse_state(const char *s, int reading, const char **why)
{
    *why = NULL;
    if (strcmp(s, "new") == 0) return CLASS_NOT_STARTED;
    if (reading) {
        if (strcmp(s, "read") == 0) return CLASS_READ;
        if (strcmp(s, "error") == 0) return CLASS_FAILED; /* a reading step's run may break */
        if (strcmp(s, "cancelled") == 0) return CLASS_CANCELLED;
        if (!strcmp(s, "passed") || !strcmp(s, "failed") || !strcmp(s, "awaiting"))
            *why = "on a reading step, which has no check (it is read, never passed or failed)";
        else *why = "unknown";
        return CLASS_INVALID;
    }
    if (strcmp(s, "passed") == 0) return CLASS_PASSED;
    if (strcmp(s, "failed") == 0 || strcmp(s, "error") == 0) return CLASS_FAILED;
    if (strcmp(s, "awaiting") == 0) return CLASS_AWAITING;
    if (strcmp(s, "cancelled") == 0) return CLASS_CANCELLED;
    *why = strcmp(s, "read") == 0 ? "on a step with a check (only a reading step is read)" : "unknown";
    return CLASS_INVALID;
}

/* One learner's cells from their export, every claim checked. */
static void fill_cells(class_model *m, class_learner *l)
{
    char want[200];
    class_machine(m, want, sizeof want);
    json_t *labs = json_object_get(l->doc, "labs"), *lab;
    size_t i;
    char elsewhere[300] = "";
    int nelsewhere = 0, nedited = 0;
    json_array_foreach(labs, i, lab) {
        const char *lid = js(lab, "id");
        if (col_of(m, lid, NULL) < 0) {
            /* a lab the class does not run: named, and a lab with no
             * progress in it (a learner's mgpulab lists all) only when the
             * class configuration says which labs belong */
            size_t k;
            json_t *st;
            int any = 0;
            json_array_foreach(json_object_get(lab, "steps"), k, st) any |= strcmp(js(st, "state"), "new") != 0;
            if (any || m->cfg)
                problem(m, l->file, l->id, "lab '%s' is not %s", lid,
                        m->cfg && m->cfg->nlabs ? "one of the class configuration's labs" : "one of this mgpulab's labs");
            continue;
        }
        size_t k;
        json_t *st;
        json_array_foreach(json_object_get(lab, "steps"), k, st) {
            int c = col_of(m, lid, js(st, "id"));
            if (c < 0) {
                problem(m, l->file, l->id, "lab %s has no step '%s'", lid, js(st, "id"));
                continue;
            }
            class_cell *cell = &l->cells[c];
            const class_col *col = &m->cols[c];
            cell->step = st;
            json_t *att = json_object_get(st, "attempts"), *hints = json_object_get(st, "hints_taken");
            /* counts past a million are not a learner's (and 2^31 of them
             * overflowed the step's sum): refused below as not a count */
            json_int_t na = json_integer_value(att), nh = json_integer_value(hints);
            cell->attempts = na < 0 || na > CLASS_MAX_COUNT ? -1 : (int)na;
            cell->hints = nh < 0 || nh > CLASS_MAX_COUNT ? -1 : (int)nh;
            cell->solution_shown = json_is_true(json_object_get(st, "solution_shown"));
            cell->last_run = json_number_value(json_object_get(st, "last_run"));
            cell->opened = json_number_value(json_object_get(st, "opened"));
            cell->passed_at = json_number_value(json_object_get(st, "passed_at"));
            cell->edited = json_is_true(json_object_get(st, "edited"));
            cell->message = json_string_value(json_object_get(st, "message"));
            snprintf(cell->ran_on, sizeof cell->ran_on, "%s", js(st, "ran_on"));
            /* a claim of a progress file changed outside mgpulab is not
             * data, whatever it says */
            if (cell->edited && strcmp(js(st, "state"), "new") != 0) {
                cell->state = CLASS_EDITED;
                nedited++;
                continue;
            }
            const char *why = NULL;
            cell->state = parse_state(js(st, "state"), col->reading, &why);
            if (why)
                problem(m, l->file, l->id, "%s step %s: state '%s' %s", lid, col->step, js(st, "state"), why);
            if ((att && !json_is_integer(att)) || cell->attempts < 0 || (hints && !json_is_integer(hints)) ||
                cell->hints < 0) {
                char a[48], h[48];
                if (json_is_integer(att)) snprintf(a, sizeof a, "%lld", (long long)na);
                else snprintf(a, sizeof a, "%s", att ? "not a number" : "none");
                if (json_is_integer(hints)) snprintf(h, sizeof h, "%lld", (long long)nh);
                else snprintf(h, sizeof h, "%s", hints ? "not a number" : "none");
                problem(m, l->file, l->id, "%s step %s: attempts %s, hints %s: each must be a count (0 to %d)", lid,
                        col->step, a, h, CLASS_MAX_COUNT);
                cell->attempts = cell->hints = 0; /* not data: never summed */
                cell->state = CLASS_INVALID;
            }
            if (cell->state == CLASS_INVALID) continue;
            if (cell->state != CLASS_NOT_STARTED && cell->attempts == 0 && cell->state != CLASS_READ) {
                problem(m, l->file, l->id, "%s step %s: state '%s' with no attempt", lid, col->step, js(st, "state"));
                cell->state = CLASS_INVALID;
                continue;
            }
            if (cell->state != CLASS_NOT_STARTED && !on_class_machine(want, cell->ran_on)) {
                cell->state = CLASS_ELSEWHERE;
                size_t used = strlen(elsewhere);
                if (used < sizeof elsewhere - 80)
                    snprintf(elsewhere + used, sizeof elsewhere - used, "%s%s %s (%s)", nelsewhere ? ", " : "", lid,
                             col->step, cell->ran_on);
                nelsewhere++;
            }
            if (cell->last_run > l->last_activity) l->last_activity = cell->last_run;
        }
    }
    if (nedited)
        problem(m, l->file, l->id, "the learner's progress file was changed outside mgpulab (its digest did not "
                "match): %d step%s it claims %s not counted until run again (--verify re-runs them)", nedited,
                nedited == 1 ? "" : "s", nedited == 1 ? "is" : "are");
    if (nelsewhere)
        problem(m, l->file, l->id, "%d step%s ran on a machine other than the class's %s: %s", nelsewhere,
                nelsewhere == 1 ? "" : "s", want, elsewhere);
}

/* An export, or NULL with why. Read as a file found in a shared folder:
 * a regular file only (a symbolic link could point anywhere, and the parse
 * error would quote what it points at; a FIFO would wait for ever) of at
 * most CLASS_EXPORT_MAX bytes (a 30 MB upload took 593 MB to hold). */
static json_t *read_export(const char *path, char *why, size_t len)
{
    char *text = NULL;
    size_t n = 0;
    if (mgpu_file_read_nofollow(path, CLASS_EXPORT_MAX, &text, &n) != MGPU_OK) {
        const char *e = mgpu_error_message();
        size_t pl = strlen(path);
        if (strncmp(e, path, pl) == 0 && e[pl] == ' ') snprintf(why, len, "not read: it%s", e + pl);
        else snprintf(why, len, "not read: %s", e);
        mgpu_error_clear();
        return NULL;
    }
    json_error_t err;
    json_t *doc = json_loadb(text, n, JSON_REJECT_DUPLICATES, &err);
    free(text);
    if (!doc) snprintf(why, len, "damaged: line %d column %d: %s", err.line, err.column, err.text);
    return doc;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* DIR's *.json names, sorted; NULL with *n = -1 when DIR cannot be read. */
static char **list_json(const char *dir, int *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) {
        *n = -1;
        return NULL;
    }
    char **names = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0 || e->d_name[0] == '.') continue;
        char **nn = realloc(names, (size_t)(*n + 1) * sizeof *nn);
        if (!nn) break;
        names = nn;
        if (!(names[*n] = strdup(e->d_name))) break;
        (*n)++;
    }
    closedir(d);
    if (*n) qsort(names, (size_t)*n, sizeof *names, by_name);
    return names;
}

/* The columns: every step of the class's labs (the catalog opened with the
 * class configuration), or without one, of the labs some export holds. */
static void make_columns(class_model *m, json_t *docs)
{
    int total = 0;
    for (int l = 0; l < mgpu_lab_count(m->cat); l++) total += mgpu_lab_get(m->cat, l)->nsteps;
    m->cols = calloc((size_t)total + 1, sizeof *m->cols);
    for (int l = 0; m->cols && l < mgpu_lab_count(m->cat); l++) {
        const mgpu_lab_info *lab = mgpu_lab_get(m->cat, l);
        if (lab->load_error) continue;
        int used = m->cfg && m->cfg->nlabs;
        size_t i;
        json_t *doc;
        json_array_foreach(docs, i, doc) {
            size_t k;
            json_t *dl;
            json_array_foreach(json_object_get(doc, "labs"), k, dl) {
                if (strcmp(js(dl, "id"), lab->id) != 0) continue;
                size_t s;
                json_t *st;
                json_array_foreach(json_object_get(dl, "steps"), s, st) used |= strcmp(js(st, "state"), "new") != 0;
            }
        }
        for (int s = 0; used && s < lab->nsteps; s++) {
            class_col *c = &m->cols[m->ncols++];
            snprintf(c->lab, sizeof c->lab, "%s", lab->id);
            snprintf(c->lab_title, sizeof c->lab_title, "%s", lab->title);
            snprintf(c->step, sizeof c->step, "%s", lab->steps[s].id);
            snprintf(c->title, sizeof c->title, "%s", lab->steps[s].title);
            c->lab_index = l;
            c->step_index = s;
            c->reading = !lab->steps[s].has_check;
            c->nquestions = lab->steps[s].nquestions;
            c->questions = lab->steps[s].questions;
        }
    }
    /* lab id -> {step id -> column, "" -> the lab's first column}; a step
     * id "" is not a step (catalog ids are never empty) */
    m->col_index = json_object();
    for (int i = 0; i < m->ncols; i++) {
        json_t *steps = json_object_get(m->col_index, m->cols[i].lab);
        if (!steps) {
            json_object_set_new_nocheck(m->col_index, m->cols[i].lab, steps = json_object());
            json_object_set_new_nocheck(steps, "", json_integer(i));
        }
        if (m->cols[i].step[0] && !json_object_get(steps, m->cols[i].step))
            json_object_set_new_nocheck(steps, m->cols[i].step, json_integer(i));
    }
}

static class_learner *add_learner(class_model *m)
{
    class_learner *nl = realloc(m->learners, (size_t)(m->nlearners + 1) * sizeof *nl);
    if (!nl) return NULL;
    m->learners = nl;
    class_learner *l = &nl[m->nlearners++];
    memset(l, 0, sizeof *l);
    l->cells = calloc((size_t)m->ncols + 1, sizeof *l->cells);
    return l;
}

static int learner_order(const void *a, const void *b)
{
    const class_learner *x = a, *y = b;
    if (x->on_roster != y->on_roster) return y->on_roster - x->on_roster;
    if (x->on_roster) return 0; /* the roster's order (qsort is not stable: on_roster holds the index + 1) */
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->id, y->id);
}

static int roster_order(const void *a, const void *b)
{
    const class_learner *x = a, *y = b;
    if (x->on_roster && y->on_roster) return x->on_roster - y->on_roster;
    return learner_order(a, b);
}

int class_model_load(class_model *m, const char *dir, mgpu_lab_catalog *cat)
{
    m->cat = cat;
    m->problems = json_array();
    m->skipped = json_array();
    if (mgpu_class_config_active(&m->cfg) != MGPU_OK) {
        m->cfg = NULL;
        mgpu_error_clear(); /* main.c said so already */
    }
    int n;
    char **names = list_json(dir, &n);
    if (n < 0) return -1;
    /* every readable export, with its file name */
    json_t *docs = json_array(), *files = json_array();
    for (int i = 0; i < n; i++) {
        char path[4096], msg[300];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        json_t *doc = read_export(path, msg, sizeof msg);
        const char *why = doc ? foreign(doc) : NULL;
        if (why) snprintf(msg, sizeof msg, "foreign: %s", why);
        if (!doc || why) {
            if (!m->quiet) {
                fputs("mgpulab report: skipped ", stderr);
                report_safe_text(stderr, path, 0);
                fputs(": ", stderr);
                report_safe_text(stderr, msg, 0);
                fputc('\n', stderr);
            }
            json_array_append_new(m->skipped, json_pack("{s:s, s:s}", "file", names[i], "why", msg));
            json_decref(doc);
        } else {
            json_array_append_new(docs, doc);
            json_array_append_new(files, json_string(names[i]));
        }
        free(names[i]);
    }
    free(names);
    make_columns(m, docs);

    /* one learner per id: the newest export (then the later file name) */
    size_t nd = json_array_size(docs);
    int *winner = calloc(nd + 1, sizeof *winner);
    for (size_t i = 0; winner && i < nd; i++) {
        json_t *d = json_array_get(docs, i);
        const char *id = js(json_object_get(d, "learner"), "id");
        winner[i] = 1;
        for (size_t j = 0; j < i; j++) {
            json_t *o = json_array_get(docs, j);
            if (!winner[j] || strcmp(js(json_object_get(o, "learner"), "id"), id) != 0) continue;
            int newer = json_integer_value(json_object_get(d, "created")) >= json_integer_value(json_object_get(o, "created"));
            size_t lose = newer ? j : i, win = newer ? i : j;
            winner[lose] = 0;
            json_t *w = json_array_get(docs, win), *x = json_array_get(docs, lose);
            const char *wf = json_string_value(json_array_get(files, win)), *xf = json_string_value(json_array_get(files, lose));
            const char *wn = js(json_object_get(w, "learner"), "name"), *xn = js(json_object_get(x, "learner"), "name");
            problem(m, xf, id, "an older export of learner '%s' than %s, which is shown", id, wf);
            if (strcmp(wn, xn) != 0 || strcmp(js(w, "host"), js(x, "host")) != 0)
                problem(m, xf, id, "learner id '%s' exported as '%s' from host %s and as '%s' from host %s (%s): "
                        "one person on two machines, or two people under one id?", id, xn, js(x, "host"), wn,
                        js(w, "host"), wf);
            if (!newer) break;
        }
    }
    /* the roster first, in its order; then everyone else */
    const mgpu_class_config *c = m->cfg;
    for (int r = 0; c && r < c->nroster; r++) {
        class_learner *l = add_learner(m);
        if (!l) break;
        snprintf(l->id, sizeof l->id, "%s", c->roster[r].id);
        snprintf(l->name, sizeof l->name, "%s", c->roster[r].name[0] ? c->roster[r].name : c->roster[r].id);
        l->on_roster = r + 1;
    }
    for (size_t i = 0; winner && i < nd; i++) {
        if (!winner[i]) continue;
        json_t *d = json_array_get(docs, i), *who = json_object_get(d, "learner");
        class_learner *l = NULL;
        for (int k = 0; k < m->nlearners && !l; k++)
            if (m->learners[k].on_roster && strcmp(m->learners[k].id, js(who, "id")) == 0) l = &m->learners[k];
        if (!l) {
            if (!(l = add_learner(m))) break;
            snprintf(l->id, sizeof l->id, "%s", js(who, "id"));
            if (c && c->nroster)
                problem(m, json_string_value(json_array_get(files, i)), l->id, "learner '%s' (%s) is not on the "
                        "class configuration's roster", l->id, js(who, "name"));
        }
        /* the roster's name stands (the instructor's list); else the export's */
        if (!l->on_roster || !c->roster[l->on_roster - 1].name[0])
            snprintf(l->name, sizeof l->name, "%s", *js(who, "name") ? js(who, "name") : l->id);
        snprintf(l->host, sizeof l->host, "%s", js(d, "host"));
        snprintf(l->file, sizeof l->file, "%s", json_string_value(json_array_get(files, i)));
        l->doc = json_incref(d);
        l->created = (double)json_integer_value(json_object_get(d, "created"));
        l->edited = strcmp(js(d, "progress_digest"), "edited") == 0;
    }
    free(winner);
    json_decref(docs);
    json_decref(files);
    if (m->nlearners > 0) /* qsort of NULL, even of none, is undefined */
        qsort(m->learners, (size_t)m->nlearners, sizeof *m->learners, roster_order);
    for (int k = 0; k < m->nlearners; k++)
        if (m->learners[k].doc) fill_cells(m, &m->learners[k]);
    /* two people under one name: each row says its id */
    for (int k = 0; k < m->nlearners; k++) {
        class_learner *l = &m->learners[k];
        int shared = 0;
        char ids[300] = "";
        for (int j = 0; j < m->nlearners; j++)
            if (strcmp(m->learners[j].name, l->name) == 0) {
                size_t used = strlen(ids);
                snprintf(ids + used, sizeof ids - used, "%s%s", shared++ ? ", " : "", m->learners[j].id);
            }
        if (shared > 1) {
            snprintf(l->label, sizeof l->label, "%s (%s)", l->name, l->id);
            int first = 1;
            for (int j = 0; j < k; j++) first &= strcmp(m->learners[j].name, l->name) != 0;
            if (first)
                problem(m, l->file, l->id, "%d learners are named '%s' (ids %s): told apart by id", shared, l->name, ids);
        } else {
            snprintf(l->label, sizeof l->label, "%s", l->name);
        }
    }
    return 0;
}

void class_model_free(class_model *m)
{
    if (!m->problems) return; /* never loaded */
    for (int k = 0; k < m->nlearners; k++) {
        json_decref(m->learners[k].doc);
        free(m->learners[k].cells);
    }
    free(m->learners);
    free(m->cols);
    json_decref(m->col_index);
    json_decref(m->problems);
    json_decref(m->skipped);
    memset(m, 0, sizeof *m);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void class_step_summary(const class_model *m, int col, class_step_sum *o)
{
    memset(o, 0, sizeof *o);
    double *t = calloc((size_t)m->nlearners + 1, sizeof *t);
    int nt = 0;
    for (int k = 0; k < m->nlearners; k++) {
        const class_cell *c = &m->learners[k].cells[col];
        /* a pass that failed on re-run is a failure */
        class_state st = c->state == CLASS_PASSED && c->verify == VERIFY_FAILED ? CLASS_FAILED : c->state;
        switch (st) {
        case CLASS_PASSED:
        case CLASS_READ: o->done++; break;
        case CLASS_AWAITING: o->awaiting++; break;
        case CLASS_FAILED:
        case CLASS_CANCELLED: o->failed++; break;
        case CLASS_NOT_STARTED: o->not_started++; break;
        default: o->invalid++; continue; /* not counted as data */
        }
        o->attempts += c->attempts;
        o->hints += c->hints;
        o->solutions += c->solution_shown;
        double s = class_cell_time_on_task(c);
        if (s >= 0 && t) t[nt++] = s;
    }
    o->median_time_on_task = -1;
    if (nt) {
        qsort(t, (size_t)nt, sizeof *t, cmp_double);
        o->median_time_on_task = nt % 2 ? t[nt / 2] : 0.5 * (t[nt / 2 - 1] + t[nt / 2]);
    }
    free(t);
}

json_t *class_stuck(const class_model *m, int col)
{
    json_t *a = json_array();
    for (int k = 0; k < m->nlearners; k++)
        if (m->learners[k].cells[col].state == CLASS_FAILED ||
            (m->learners[k].cells[col].state == CLASS_PASSED && m->learners[k].cells[col].verify == VERIFY_FAILED))
            json_array_append_new(a, json_string(m->learners[k].label));
    return a;
}

/* An answer as the report groups it: trimmed, lower case. */
static void norm_answer(const char *s, char *out, size_t len)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
    size_t k = 0;
    for (size_t i = 0; i < n && k + 1 < len; i++) out[k++] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
    out[k] = '\0';
}

static int by_count(const void *a, const void *b)
{
    json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    json_int_t cx = json_integer_value(json_object_get(x, "learners")), cy = json_integer_value(json_object_get(y, "learners"));
    if (cx != cy) return cx > cy ? -1 : 1;
    return strcmp(js(x, "answer"), js(y, "answer"));
}

json_t *class_questions(const class_model *m)
{
    json_t *out = json_array();
    for (int c = 0; c < m->ncols; c++) {
        const class_col *col = &m->cols[c];
        for (int q = 0; q < col->nquestions; q++) {
            const char *qid = col->questions[q].id;
            int answered = 0, right = 0, wrong = 0;
            json_t *counts = json_object(); /* normalised wrong answer -> learners */
            for (int k = 0; k < m->nlearners; k++) {
                const class_cell *cell = &m->learners[k].cells[c];
                if (!cell->step || cell->state == CLASS_INVALID || cell->state == CLASS_ELSEWHERE) continue;
                const char *now = json_string_value(json_object_get(json_object_get(cell->step, "answers"), qid));
                answered += now && *now;
                json_t *last = NULL, *e;
                size_t i;
                int was_wrong = 0;
                json_t *mine = json_object(); /* this learner's wrong answers, once each */
                json_array_foreach(json_object_get(cell->step, "answer_log"), i, e) {
                    if (strcmp(js(e, "q"), qid) != 0) continue;
                    last = e;
                    if (json_is_true(json_object_get(e, "ok"))) continue;
                    was_wrong = 1;
                    char a[128];
                    norm_answer(js(e, "answer"), a, sizeof a);
                    json_object_set_new(mine, a, json_true());
                }
                right += last && json_is_true(json_object_get(last, "ok"));
                wrong += was_wrong;
                const char *a;
                json_t *v;
                json_object_foreach(mine, a, v)
                    json_object_set_new(counts, a, json_integer(json_integer_value(json_object_get(counts, a)) + 1));
                json_decref(mine);
            }
            json_t *list = json_array();
            const char *a;
            json_t *v;
            json_object_foreach(counts, a, v)
                json_array_append_new(list, json_pack("{s:s, s:I}", "answer", a, "learners", json_integer_value(v)));
            size_t nl = json_array_size(list);
            json_t **items = calloc(nl + 1, sizeof *items);
            for (size_t i = 0; items && i < nl; i++) items[i] = json_incref(json_array_get(list, i));
            if (items) qsort(items, nl, sizeof *items, by_count);
            json_t *sorted = json_array();
            for (size_t i = 0; items && i < nl; i++) json_array_append_new(sorted, items[i]);
            free(items);
            json_decref(list);
            json_decref(counts);
            json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:o}", "lab", col->lab, "step",
                                                 col->step, "question", qid, "ask", col->questions[q].ask, "answered",
                                                 answered, "right", right, "wrong", wrong, "wrong_answers", sorted));
        }
    }
    return out;
}
