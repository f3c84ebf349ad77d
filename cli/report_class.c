/* report_class.c - `mgpulab report --class DIR`: every learner's exported
 * report in DIR folded into one row per lab and step (how many passed,
 * attempts, hints, the median time, who is stuck there). A file that does not
 * parse, or is not an mgpulab report, is named with the reason and skipped:
 * one broken upload never hides the class. */
#include "report.h"
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

typedef struct class_row {
    char lab[64], lab_title[128], step[64], title[160];
    int learners, passed, attempts, hints;
    double *secs;
    int nsecs;
    char stuck[512];
    int nstuck;
} class_row;

typedef struct class_sum {
    class_row *rows;
    int n, cap;
    json_t *learners, *skipped;
} class_sum;

static const char *js(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static class_row *row_for(class_sum *c, json_t *lab, json_t *st)
{
    for (int i = 0; i < c->n; i++)
        if (!strcmp(c->rows[i].lab, js(lab, "id")) && !strcmp(c->rows[i].step, js(st, "id"))) return &c->rows[i];
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 32;
        class_row *r = realloc(c->rows, (size_t)cap * sizeof *r);
        if (!r) return NULL;
        c->rows = r;
        c->cap = cap;
    }
    class_row *r = &c->rows[c->n++];
    memset(r, 0, sizeof *r);
    snprintf(r->lab, sizeof r->lab, "%s", js(lab, "id"));
    snprintf(r->lab_title, sizeof r->lab_title, "%s", js(lab, "title"));
    snprintf(r->step, sizeof r->step, "%s", js(st, "id"));
    snprintf(r->title, sizeof r->title, "%s", js(st, "title"));
    return r;
}

/* Why a parsed document is not a report we can read, or NULL. */
static const char *foreign(json_t *doc)
{
    if (!json_is_object(doc)) return "not a JSON object";
    if (strcmp(js(doc, "format"), REPORT_FORMAT) != 0) return "not an mgpulab report (no \"format\": \"" REPORT_FORMAT "\")";
    json_int_t v = json_integer_value(json_object_get(doc, "version"));
    if (v < 1 || v > REPORT_VERSION) return "a report version this mgpulab does not read";
    if (!json_is_array(json_object_get(doc, "labs")) || !json_is_object(json_object_get(doc, "learner")))
        return "a report without its labs or learner";
    return NULL;
}

static void add_learner(class_sum *c, json_t *doc)
{
    const char *name = js(json_object_get(doc, "learner"), "name");
    json_array_append_new(c->learners, json_string(*name ? name : js(json_object_get(doc, "learner"), "id")));
    size_t i, k;
    json_t *lab, *st;
    json_array_foreach(json_object_get(doc, "labs"), i, lab) {
        json_array_foreach(json_object_get(lab, "steps"), k, st) {
            class_row *r = row_for(c, lab, st);
            if (!r) return;
            const char *state = js(st, "state");
            int attempts = (int)json_integer_value(json_object_get(st, "attempts"));
            r->learners++;
            r->passed += strcmp(state, "passed") == 0;
            r->attempts += attempts;
            r->hints += (int)json_integer_value(json_object_get(st, "hints_taken"));
            double s = json_number_value(json_object_get(st, "seconds"));
            if (s > 0) {
                double *v = realloc(r->secs, (size_t)(r->nsecs + 1) * sizeof *v);
                if (v) (r->secs = v)[r->nsecs++] = s;
            }
            /* stuck: tried and not passed (failed, or the run broke) */
            if (attempts > 0 && (strcmp(state, "failed") == 0 || strcmp(state, "error") == 0)) {
                size_t used = strlen(r->stuck);
                snprintf(r->stuck + used, sizeof r->stuck - used, "%s%s", r->nstuck ? ", " : "", *name ? name : "?");
                r->nstuck++;
            }
        }
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(class_row *r)
{
    if (!r->nsecs) return 0;
    qsort(r->secs, (size_t)r->nsecs, sizeof *r->secs, cmp_double);
    return r->nsecs % 2 ? r->secs[r->nsecs / 2] : 0.5 * (r->secs[r->nsecs / 2 - 1] + r->secs[r->nsecs / 2]);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Read DIR's *.json in name order. Returns -1 when DIR cannot be read. */
static int load_dir(const char *dir, class_sum *c)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    char **names = NULL;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0) continue;
        char **nn = realloc(names, (size_t)(n + 1) * sizeof *nn);
        if (!nn || !(nn[n] = strdup(e->d_name))) {
            names = nn ? nn : names;
            break;
        }
        names = nn;
        n++;
    }
    closedir(d);
    if (n) qsort(names, (size_t)n, sizeof *names, by_name);
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        json_error_t err;
        json_t *doc = json_load_file(path, 0, &err);
        const char *why = doc ? foreign(doc) : NULL;
        char msg[300];
        if (!doc) snprintf(msg, sizeof msg, "damaged: line %d column %d: %s", err.line, err.column, err.text);
        else if (why) snprintf(msg, sizeof msg, "foreign: %s", why);
        if (!doc || why) {
            fprintf(stderr, "mgpulab report: skipped %s: %s\n", path, msg);
            json_array_append_new(c->skipped, json_pack("{s:s, s:s}", "file", names[i], "why", msg));
        } else {
            add_learner(c, doc);
        }
        json_decref(doc);
        free(names[i]);
    }
    free(names);
    return 0;
}

/*--- Outputs ----------------------------------------------------------------*/

static void csv_field(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void print_csv(class_sum *c, FILE *f)
{
    fputs("lab,step,title,learners,passed,attempts,hints,median_seconds,stuck\n", f);
    for (int i = 0; i < c->n; i++) {
        class_row *r = &c->rows[i];
        csv_field(f, r->lab);
        fputc(',', f);
        csv_field(f, r->step);
        fputc(',', f);
        csv_field(f, r->title);
        fprintf(f, ",%d,%d,%d,%d,%.1f,", r->learners, r->passed, r->attempts, r->hints, median(r));
        csv_field(f, r->stuck);
        fputc('\n', f);
    }
}

static json_t *class_json(class_sum *c)
{
    json_t *rows = json_array();
    for (int i = 0; i < c->n; i++) {
        class_row *r = &c->rows[i];
        json_array_append_new(rows, json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:f, s:s}", "lab", r->lab, "step",
                                              r->step, "title", r->title, "learners", r->learners, "passed", r->passed,
                                              "attempts", r->attempts, "hints", r->hints, "median_seconds", median(r),
                                              "stuck", r->stuck));
    }
    return json_pack("{s:s, s:O, s:O, s:o}", "format", "mgpulab-class", "learners", c->learners, "skipped",
                     c->skipped, "steps", rows);
}

static void print_table(class_sum *c, FILE *f, int html)
{
    int nl = (int)json_array_size(c->learners);
    if (html) {
        report_html_begin(f, "mgpulab class");
        fprintf(f, "<h1>mgpulab class: %d learner%s</h1>\n", nl, nl == 1 ? "" : "s");
    } else {
        fprintf(f, "# mgpulab class: %d learner%s\n", nl, nl == 1 ? "" : "s");
    }
    const char *cur = "";
    for (int i = 0; i < c->n; i++) {
        class_row *r = &c->rows[i];
        if (strcmp(cur, r->lab) != 0) {
            if (html) {
                fputs(*cur ? "</table>\n<h2>" : "<h2>", f);
                report_html_text(f, r->lab);
                fputc(' ', f);
                report_html_text(f, r->lab_title);
                fputs("</h2>\n<table><tr><th>step</th><th>passed</th><th>attempts</th><th>hints</th>"
                      "<th>median time (s)</th><th>stuck</th></tr>\n", f);
            } else {
                fprintf(f, "\n## %s %s\n\n| step | passed | attempts | hints | median time (s) | stuck |\n"
                           "|---|---|---|---|---|---|\n", r->lab, r->lab_title);
            }
            cur = r->lab;
        }
        if (html) {
            fputs("<tr><td>", f);
            report_html_text(f, r->title);
            fprintf(f, "</td><td>%d/%d</td><td>%d</td><td>%d</td><td>%.1f</td><td>", r->passed, r->learners,
                    r->attempts, r->hints, median(r));
            report_html_text(f, r->stuck);
            fputs("</td></tr>\n", f);
        } else {
            fprintf(f, "| %s | %d/%d | %d | %d | %.1f | %s |\n", r->title, r->passed, r->learners, r->attempts,
                    r->hints, median(r), r->stuck);
        }
    }
    if (html && *cur) fputs("</table>\n", f);
    size_t k;
    json_t *s;
    if (json_array_size(c->skipped)) {
        fputs(html ? "<h2>Skipped files</h2>\n<ul>\n" : "\n## Skipped files\n\n", f);
        json_array_foreach(c->skipped, k, s) {
            if (html) {
                fputs("<li>", f);
                report_html_text(f, js(s, "file"));
                fputs(": ", f);
                report_html_text(f, js(s, "why"));
                fputs("</li>\n", f);
            } else {
                fprintf(f, "- %s: %s\n", js(s, "file"), js(s, "why"));
            }
        }
        if (html) fputs("</ul>\n", f);
    }
    if (html) report_html_end(f);
}

int report_class(const char *dir, const char *format, FILE *out)
{
    class_sum c = {.learners = json_array(), .skipped = json_array()};
    int rc = 0;
    if (load_dir(dir, &c) != 0) {
        fprintf(stderr, "mgpulab report: --class %s: cannot read the directory\n", dir);
        rc = 1;
    } else if (json_array_size(c.learners) == 0) {
        fprintf(stderr, "mgpulab report: --class %s: no exported report (*.json from `mgpulab report --export`) "
                        "could be read\n", dir);
        rc = 1;
    } else if (strcmp(format, "csv") == 0) {
        print_csv(&c, out);
    } else if (strcmp(format, "json") == 0) {
        json_t *j = class_json(&c);
        json_dumpf(j, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        fputc('\n', out);
        json_decref(j);
    } else {
        print_table(&c, out, strcmp(format, "html") == 0);
    }
    for (int i = 0; i < c.n; i++) free(c.rows[i].secs);
    free(c.rows);
    json_decref(c.learners);
    json_decref(c.skipped);
    return rc;
}
