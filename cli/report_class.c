/* report_class.c - `mgpulab report --class DIR`: the class as a learner x
 * step grid (class_model.c) in Markdown, plain text for the terminal, one
 * HTML page, CSV (one row per learner and step) or JSON; below the grid
 * each step's totals (done, waiting, failed, not started, time on task,
 * who is stuck), each question's right and wrong answers, and every
 * problem with a file. */
#include "report.h"
#include "class_model.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { FMT_MARKDOWN, FMT_TEXT, FMT_HTML, FMT_CSV, FMT_JSON };

/*--- Times, durations and lists as text -----------------------------------------*/

/* "2026-12-06 14:05" local time; "-" for none. */
static void when(double t, char *buf, size_t len)
{
    if (t <= 0) {
        snprintf(buf, len, "-");
        return;
    }
    time_t s = (time_t)t;
    struct tm tm;
    localtime_r(&s, &tm);
    strftime(buf, len, "%Y-%m-%d %H:%M", &tm);
}

/* ISO 8601 UTC for CSV: "2026-12-06T14:05:09Z", "" for none. */
static void iso(double t, char *buf, size_t len)
{
    buf[0] = '\0';
    if (t <= 0) return;
    time_t s = (time_t)t;
    struct tm tm;
    gmtime_r(&s, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* "45 s", "12.5 min", "1.5 h"; "-" for none. */
static void duration(double s, char *buf, size_t len)
{
    if (s < 0) snprintf(buf, len, "-");
    else if (s < 60) snprintf(buf, len, "%.0f s", s);
    else if (s < 3600) snprintf(buf, len, "%.1f min", s / 60);
    else snprintf(buf, len, "%.1f h", s / 3600);
}

static void join(json_t *list, const char *key, char *buf, size_t len)
{
    size_t used = 0, i;
    json_t *v;
    buf[0] = '\0';
    json_array_foreach(list, i, v) {
        const char *s = key ? json_string_value(json_object_get(v, key)) : json_string_value(v);
        int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", s ? s : "");
        if (n < 0 || (size_t)n >= len - used) break;
        used += (size_t)n;
    }
}

/* The common wrong answers: "4 (2), 16 (1)". */
static void wrong_answers_text(json_t *q, char *buf, size_t len)
{
    size_t used = 0, i;
    json_t *v;
    buf[0] = '\0';
    json_array_foreach(json_object_get(q, "wrong_answers"), i, v) {
        if (i == 5) {
            snprintf(buf + used, len - used, ", ...");
            break;
        }
        int n = snprintf(buf + used, len - used, "%s%s (%d)", i ? ", " : "",
                         json_string_value(json_object_get(v, "answer")),
                         (int)json_integer_value(json_object_get(v, "learners")));
        if (n < 0 || (size_t)n >= len - used) break;
        used += (size_t)n;
    }
}

/*--- Markdown, text and HTML ----------------------------------------------------*/

/* One table: header cells, rows of cells; Markdown, aligned text or HTML. */
typedef struct table {
    int fmt, ncols;
    char ***rows; /* rows[r][c], row 0 the header */
    const char **classes; /* HTML: a class per body cell (state), row-major, may be NULL */
    int nrows;
} table;

/* s as plain text puts it (controls shown, newlines made spaces), malloc'd:
 * the text table measures what it will print. */
static char *safe_dup(const char *s)
{
    char *out = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&out, &n);
    if (!f) return strdup("");
    report_safe_text(f, s, 0);
    fclose(f);
    return out;
}

static void table_add(table *t, char **cells)
{
    char ***r = realloc(t->rows, (size_t)(t->nrows + 1) * sizeof *r);
    if (!r) return;
    t->rows = r;
    r[t->nrows] = calloc((size_t)t->ncols, sizeof **r);
    for (int c = 0; r[t->nrows] && c < t->ncols; c++)
        r[t->nrows][c] = t->fmt == FMT_TEXT ? safe_dup(cells[c]) : strdup(cells[c] ? cells[c] : "");
    t->nrows++;
}

static void table_print(table *t, FILE *f, const class_state *states)
{
    if (t->fmt == FMT_HTML) {
        fputs("<table>\n", f);
        for (int r = 0; r < t->nrows; r++) {
            fputs("<tr>", f);
            for (int c = 0; c < t->ncols; c++) {
                if (r == 0) fputs("<th>", f);
                else if (states && c > 0 && c <= t->ncols - 2) {
                    const char *cls = class_state_name(states[(r - 1) * t->ncols + c]);
                    fputs("<td class=\"", f);
                    for (const char *p = cls; *p; p++) fputc(*p == ' ' ? '-' : *p, f);
                    fputs("\">", f);
                } else fputs("<td>", f);
                report_html_text(f, t->rows[r][c]);
                fputs(r == 0 ? "</th>" : "</td>", f);
            }
            fputs("</tr>\n", f);
        }
        fputs("</table>\n", f);
        return;
    }
    if (t->fmt == FMT_MARKDOWN) {
        for (int r = 0; r < t->nrows; r++) {
            fputs("|", f);
            for (int c = 0; c < t->ncols; c++) {
                fputc(' ', f);
                report_md_text(f, t->rows[r][c]);
                fputs(" |", f);
            }
            fputc('\n', f);
            if (r == 0) {
                fputs("|", f);
                for (int c = 0; c < t->ncols; c++) fputs("---|", f);
                fputc('\n', f);
            }
        }
        return;
    }
    /* text: columns aligned, two spaces apart */
    int *w = calloc((size_t)t->ncols, sizeof *w);
    for (int r = 0; w && r < t->nrows; r++)
        for (int c = 0; c < t->ncols; c++)
            if (cli_text_width(t->rows[r][c]) > w[c]) w[c] = cli_text_width(t->rows[r][c]);
    for (int r = 0; w && r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++) {
            const char *s = t->rows[r][c];
            for (const char *p = s; *p; p++) fputc(*p == '\n' ? ' ' : *p, f);
            if (c + 1 < t->ncols)
                for (int k = cli_text_width(s); k < w[c] + 2; k++) fputc(' ', f);
        }
        fputc('\n', f);
    }
    free(w);
}

static void table_free(table *t)
{
    for (int r = 0; r < t->nrows; r++) {
        for (int c = 0; t->rows[r] && c < t->ncols; c++) free(t->rows[r][c]);
        free(t->rows[r]);
    }
    free(t->rows);
}

static void heading(FILE *f, int fmt, int level, const char *text)
{
    if (fmt == FMT_HTML) {
        fprintf(f, "<h%d>", level);
        report_html_text(f, text);
        fprintf(f, "</h%d>\n", level);
    } else if (fmt == FMT_MARKDOWN) {
        fprintf(f, "%s%.*s ", level > 1 ? "\n" : "", level, "####");
        report_md_text(f, text);
        fputs(level > 1 ? "\n\n" : "\n", f);
    } else {
        fputs(level > 1 ? "\n" : "", f);
        report_safe_text(f, text, 0);
        fputc('\n', f);
        if (level > 1) {
            for (int k = cli_text_width(text); k > 0; k--) fputc('-', f);
            fputc('\n', f);
        }
    }
}

static void list_item(FILE *f, int fmt, const char *a, const char *b)
{
    if (fmt == FMT_HTML) {
        fputs("<li>", f);
        report_html_text(f, a);
        fputs(": ", f);
        report_html_text(f, b);
        fputs("</li>\n", f);
    } else {
        fputs("- ", f);
        if (fmt == FMT_MARKDOWN) report_md_text(f, a);
        else report_safe_text(f, a, 0);
        fputs(": ", f);
        if (fmt == FMT_MARKDOWN) report_md_text(f, b);
        else report_safe_text(f, b, 0);
        fputc('\n', f);
    }
}

/* The grid of one lab: a row per learner, a column per step, then the
 * learner's last activity. */
static void print_lab_grid(const class_model *m, int first, int last, FILE *f, int fmt)
{
    int nc = last - first + 3;
    table t = {.fmt = fmt, .ncols = nc};
    char **cells = calloc((size_t)nc, sizeof *cells);
    class_state *states = calloc((size_t)(m->nlearners + 1) * (size_t)nc, sizeof *states);
    char(*buf)[200] = calloc((size_t)nc, sizeof *buf); /* a lab of any length: 64 columns hid longer ones */
    if (!cells || !states || !buf) {
        free(cells);
        free(states);
        free(buf);
        return;
    }
    for (int c = 0; c < nc; c++) cells[c] = buf[c];
    snprintf(buf[0], sizeof buf[0], "learner");
    for (int c = first; c <= last; c++)
        snprintf(buf[c - first + 1], sizeof buf[0], "%d %s", m->cols[c].step_index + 1, m->cols[c].step);
    snprintf(buf[nc - 1], sizeof buf[0], "last activity");
    table_add(&t, cells);
    for (int k = 0; k < m->nlearners; k++) {
        const class_learner *l = &m->learners[k];
        snprintf(buf[0], sizeof buf[0], "%s", l->label);
        double lastact = 0;
        for (int c = first; c <= last; c++) {
            class_cell_text(&l->cells[c], buf[c - first + 1], sizeof buf[0]);
            states[k * nc + (c - first + 1)] = l->cells[c].state;
            if (l->cells[c].last_run > lastact) lastact = l->cells[c].last_run;
        }
        when(lastact, buf[nc - 1], sizeof buf[0]);
        table_add(&t, cells);
    }
    table_print(&t, f, states);
    table_free(&t);
    free(cells);
    free(states);
    free(buf);
}

static void print_lab_summary(const class_model *m, int first, int last, FILE *f, int fmt)
{
    enum { NC = 9 };
    table t = {.fmt = fmt, .ncols = NC};
    char buf[NC][600], *cells[NC];
    for (int c = 0; c < NC; c++) cells[c] = buf[c];
    static const char *const head[NC] = {"step", "done", "awaiting", "failed", "not started", "attempts", "hints",
                                         "median time on task", "stuck"};
    for (int c = 0; c < NC; c++) snprintf(buf[c], sizeof buf[c], "%s", head[c]);
    table_add(&t, cells);
    for (int c = first; c <= last; c++) {
        class_step_sum s;
        class_step_summary(m, c, &s);
        int counted = s.done + s.awaiting + s.failed + s.not_started;
        snprintf(buf[0], sizeof buf[0], "%d %s", m->cols[c].step_index + 1, m->cols[c].title);
        snprintf(buf[1], sizeof buf[1], "%d/%d %s", s.done, counted, m->cols[c].reading ? "read" : "passed");
        snprintf(buf[2], sizeof buf[2], "%d", s.awaiting);
        snprintf(buf[3], sizeof buf[3], "%d", s.failed);
        snprintf(buf[4], sizeof buf[4], "%d", s.not_started);
        snprintf(buf[5], sizeof buf[5], "%lld", s.attempts);
        snprintf(buf[6], sizeof buf[6], "%lld", s.hints);
        if (s.solutions)
            snprintf(buf[6] + strlen(buf[6]), sizeof buf[6] - strlen(buf[6]), " (%d solution%s shown)", s.solutions,
                     s.solutions == 1 ? "" : "s");
        duration(s.median_time_on_task, buf[7], sizeof buf[7]);
        json_t *stuck = class_stuck(m, c);
        join(stuck, NULL, buf[8], sizeof buf[8]);
        json_decref(stuck);
        table_add(&t, cells);
    }
    table_print(&t, f, NULL);
    table_free(&t);
}

static void print_questions(const class_model *m, json_t *qs, FILE *f, int fmt)
{
    if (!json_array_size(qs)) return;
    heading(f, fmt, 2, "Questions");
    enum { NC = 6 };
    table t = {.fmt = fmt, .ncols = NC};
    char buf[NC][600], *cells[NC];
    for (int c = 0; c < NC; c++) cells[c] = buf[c];
    static const char *const head[NC] = {"step", "question", "answered", "right now", "answered wrong",
                                         "common wrong answers"};
    for (int c = 0; c < NC; c++) snprintf(buf[c], sizeof buf[c], "%s", head[c]);
    table_add(&t, cells);
    size_t i;
    json_t *q;
    (void)m;
    json_array_foreach(qs, i, q) {
        snprintf(buf[0], sizeof buf[0], "%s %s", json_string_value(json_object_get(q, "lab")),
                 json_string_value(json_object_get(q, "step")));
        snprintf(buf[1], sizeof buf[1], "%s", json_string_value(json_object_get(q, "question")));
        snprintf(buf[2], sizeof buf[2], "%d", (int)json_integer_value(json_object_get(q, "answered")));
        snprintf(buf[3], sizeof buf[3], "%d", (int)json_integer_value(json_object_get(q, "right")));
        snprintf(buf[4], sizeof buf[4], "%d", (int)json_integer_value(json_object_get(q, "wrong")));
        wrong_answers_text(q, buf[5], sizeof buf[5]);
        table_add(&t, cells);
    }
    table_print(&t, f, NULL);
    table_free(&t);
}

/* What --verify found beside the passes it confirmed. */
static void print_verification(const class_model *m, FILE *f, int fmt)
{
    int ok = 0, claims = 0;
    for (int k = 0; k < m->nlearners; k++)
        for (int c = 0; c < m->ncols; c++) {
            ok += m->learners[k].cells[c].verify == VERIFY_OK;
            claims += m->learners[k].cells[c].verify != VERIFY_NONE;
        }
    if (!claims) return;
    heading(f, fmt, 2, "Verification");
    char line[600];
    snprintf(line, sizeof line, "%d of %d claimed passes passed again on this machine.", ok, claims);
    if (fmt == FMT_HTML) {
        fputs("<p>", f);
        report_html_text(f, line);
        fputs("</p>\n<ul>\n", f);
    } else {
        fprintf(f, "%s\n\n", line);
    }
    for (int k = 0; k < m->nlearners; k++)
        for (int c = 0; c < m->ncols; c++) {
            const class_cell *cell = &m->learners[k].cells[c];
            if (cell->verify != VERIFY_FAILED && cell->verify != VERIFY_UNVERIFIABLE) continue;
            char a[400], b[700];
            snprintf(a, sizeof a, "%s, %s step %d %s", m->learners[k].label, m->cols[c].lab, m->cols[c].step_index + 1,
                     m->cols[c].step);
            snprintf(b, sizeof b, "%s: %s", class_verify_name(cell->verify), cell->verify_note);
            list_item(f, fmt, a, b);
        }
    if (fmt == FMT_HTML) fputs("</ul>\n", f);
}

/* A titled list of files, each with what is wrong with it (the list's
 * `key`); nothing when the list is empty. */
static void print_file_list(FILE *f, int fmt, const char *title, json_t *list, const char *key)
{
    size_t k;
    json_t *s;
    if (!json_array_size(list)) return;
    heading(f, fmt, 2, title);
    if (fmt == FMT_HTML) fputs("<ul>\n", f);
    json_array_foreach(list, k, s)
        list_item(f, fmt, json_string_value(json_object_get(s, "file")), json_string_value(json_object_get(s, key)));
    if (fmt == FMT_HTML) fputs("</ul>\n", f);
}

static void print_problems(const class_model *m, FILE *f, int fmt)
{
    print_file_list(f, fmt, "Problems", m->problems, "what");
    print_file_list(f, fmt, "Skipped files", m->skipped, "why");
}

static void class_title(const class_model *m, char *buf, size_t len)
{
    int started = 0, roster = 0;
    for (int k = 0; k < m->nlearners; k++) {
        started += m->learners[k].doc != NULL;
        roster += m->learners[k].on_roster > 0;
    }
    char name[200] = "", machine[200];
    if (m->cfg && m->cfg->name[0]) snprintf(name, sizeof name, " '%s'", m->cfg->name);
    class_machine(m, machine, sizeof machine);
    int n = m->nlearners;
    snprintf(buf, len, "mgpulab class%s: %d learner%s", name, n, n == 1 ? "" : "s");
    if (m->cfg && m->cfg->nroster)
        snprintf(buf + strlen(buf), len - strlen(buf), " (%d on the roster, %d not started)", roster, n - started);
    if (machine[0]) snprintf(buf + strlen(buf), len - strlen(buf), ", on %s", machine);
}

static void print_table(const class_model *m, FILE *f, int fmt)
{
    char title[600];
    class_title(m, title, sizeof title);
    if (fmt == FMT_HTML) report_html_begin(f, "mgpulab class");
    heading(f, fmt, 1, title);
    if (fmt != FMT_HTML)
        fputs(fmt == FMT_MARKDOWN ? "\nA cell: the state and the attempts (`+sol`: the solution was shown); `-`: "
                                    "not started.\n"
                                  : "A cell: the state and the attempts (+sol: the solution was shown); -: not started.\n",
              f);
    for (int c = 0; c < m->ncols;) {
        int last = c;
        while (last + 1 < m->ncols && strcmp(m->cols[last + 1].lab, m->cols[c].lab) == 0) last++;
        char h[300];
        snprintf(h, sizeof h, "%s %s", m->cols[c].lab, m->cols[c].lab_title);
        heading(f, fmt, 2, h);
        print_lab_grid(m, c, last, f, fmt);
        if (fmt != FMT_HTML) fputc('\n', f);
        print_lab_summary(m, c, last, f, fmt);
        c = last + 1;
    }
    json_t *qs = class_questions(m);
    print_questions(m, qs, f, fmt);
    json_decref(qs);
    print_verification(m, f, fmt);
    print_problems(m, f, fmt);
    if (fmt == FMT_HTML) report_html_end(f);
}

/*--- CSV and JSON -----------------------------------------------------------------*/

static void print_csv(const class_model *m, FILE *f)
{
    fputs("learner_id,name,lab,step,title,state,attempts,hints,solution_shown,last_run,opened,passed_at,"
          "time_on_task_s,ran_on,message,verified,verify_note\n", f);
    for (int k = 0; k < m->nlearners; k++) {
        const class_learner *l = &m->learners[k];
        for (int c = 0; c < m->ncols; c++) {
            const class_cell *cell = &l->cells[c];
            char a[40], b[40], d[40];
            iso(cell->last_run, a, sizeof a);
            iso(cell->opened, b, sizeof b);
            iso(cell->passed_at, d, sizeof d);
            report_csv_field(f, l->id);
            fputc(',', f);
            report_csv_field(f, l->name);
            fputc(',', f);
            report_csv_field(f, m->cols[c].lab);
            fputc(',', f);
            report_csv_field(f, m->cols[c].step);
            fputc(',', f);
            report_csv_field(f, m->cols[c].title);
            fprintf(f, ",%s,%d,%d,%d,%s,%s,%s,", class_state_name(cell->state), cell->attempts, cell->hints,
                    cell->solution_shown, a, b, d);
            double t = class_cell_time_on_task(cell);
            if (t >= 0) fprintf(f, "%.0f", t);
            fputc(',', f);
            report_csv_field(f, cell->ran_on);
            fputc(',', f);
            report_csv_field(f, cell->message ? cell->message : "");
            fprintf(f, ",%s,", class_verify_name(cell->verify) ? class_verify_name(cell->verify) : "");
            report_csv_field(f, cell->verify_note);
            fputc('\n', f);
        }
    }
}

static json_t *num_or_null(double v, int ok) { return ok ? json_real(v) : json_null(); }

static json_t *class_json(const class_model *m)
{
    json_t *learners = json_array();
    for (int k = 0; k < m->nlearners; k++) {
        const class_learner *l = &m->learners[k];
        json_t *cells = json_array();
        for (int c = 0; c < m->ncols; c++) {
            const class_cell *cell = &l->cells[c];
            double t = class_cell_time_on_task(cell);
            json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:i, s:b, s:o, s:o, s:o, s:o, s:s, s:s?}", "lab", m->cols[c].lab,
                                  "step", m->cols[c].step, "state", class_state_name(cell->state), "attempts",
                                  cell->attempts, "hints", cell->hints, "solution_shown", cell->solution_shown,
                                  "last_run", num_or_null(cell->last_run, cell->last_run > 0), "opened",
                                  num_or_null(cell->opened, cell->opened > 0), "passed_at",
                                  num_or_null(cell->passed_at, cell->passed_at > 0), "time_on_task",
                                  num_or_null(t, t >= 0), "ran_on", cell->ran_on, "message", cell->message);
            if (cell->verify != VERIFY_NONE) {
                json_object_set_new(o, "verify", json_string(class_verify_name(cell->verify)));
                json_object_set_new(o, "verify_note", json_string(cell->verify_note));
            }
            json_array_append_new(cells, o);
        }
        json_array_append_new(learners, json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:b, s:o, s:o}", "id", l->id, "name",
                                                  l->name, "label", l->label, "host", l->host, "file", l->file,
                                                  "on_roster", l->on_roster > 0, "started", l->doc != NULL,
                                                  "last_activity", num_or_null(l->last_activity, l->last_activity > 0),
                                                  "cells", cells));
    }
    json_t *steps = json_array();
    for (int c = 0; c < m->ncols; c++) {
        class_step_sum s;
        class_step_summary(m, c, &s);
        json_array_append_new(
            steps, json_pack("{s:s, s:s, s:s, s:b, s:i, s:i, s:i, s:i, s:i, s:I, s:I, s:i, s:o, s:o}", "lab",
                             m->cols[c].lab, "step", m->cols[c].step, "title", m->cols[c].title, "reading",
                             m->cols[c].reading, "done", s.done, "awaiting", s.awaiting, "failed", s.failed,
                             "not_started", s.not_started, "invalid", s.invalid, "attempts", (json_int_t)s.attempts,
                             "hints", (json_int_t)s.hints, "solutions_shown", s.solutions, "median_time_on_task",
                             num_or_null(s.median_time_on_task, s.median_time_on_task >= 0), "stuck",
                             class_stuck(m, c)));
    }
    char machine[200];
    class_machine(m, machine, sizeof machine);
    return json_pack("{s:s, s:i, s:s, s:s, s:o, s:o, s:o, s:O, s:O}", "format", "mgpulab-class", "version", 2, "class",
                     m->cfg ? m->cfg->name : "", "machine", machine, "learners", learners, "steps", steps, "questions",
                     class_questions(m), "problems", m->problems, "skipped", m->skipped);
}

int report_class_format(const char *format)
{
    return !strcmp(format, "text") ? FMT_TEXT : !strcmp(format, "html") ? FMT_HTML : !strcmp(format, "csv") ? FMT_CSV
         : !strcmp(format, "json") ? FMT_JSON : !strcmp(format, "markdown") ? FMT_MARKDOWN : -1;
}

int report_class(const char *dir, const char *format, FILE *out, mgpu_lab_catalog *cat, const mgpu_cli_globals *verify)
{
    class_model m = {0};
    int rc = 0, fmt = report_class_format(format);
    if (class_model_load(&m, dir, cat) != 0) {
        fprintf(stderr, "mgpulab report: --class %s: cannot read the directory\n", dir);
        rc = 1;
    } else if (m.nlearners == 0) {
        fprintf(stderr, "mgpulab report: --class %s: no exported report (*.json from `mgpulab report --export`) "
                        "could be read\n", dir);
        rc = 1;
    } else if (verify && (rc = class_model_verify(&m, verify)) != 0) {
        /* said */
    } else if (fmt == FMT_CSV) {
        print_csv(&m, out);
    } else if (fmt == FMT_JSON) {
        json_t *j = class_json(&m);
        json_dumpf(j, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        fputc('\n', out);
        json_decref(j);
    } else {
        print_table(&m, out, fmt);
    }
    class_model_free(&m);
    return rc;
}
