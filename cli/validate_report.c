/* validate_report.c - the validation report and its four outputs: a
 * terminal table, Markdown (a ticket or wiki page), JSON (scripts) and JUnit
 * XML (a cluster's CI shows each check as a test case, an anomaly as a
 * failure with its cause and next check). */
#include "cmd.h"
#include "validate.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_word[] = {"ok", "ANOMALY", "info", "ERROR"};

void vcheck_set(char *field, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(field, len, fmt, ap);
    va_end(ap);
}

vcheck *vreport_add(vreport *r, const char *section, vstatus st, const char *name_fmt, ...)
{
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 32;
        vcheck *v = realloc(r->v, (size_t)cap * sizeof *v);
        if (!v) {
            static vcheck dropped; /* callers fill it; it never reaches the report */
            return &dropped;
        }
        r->v = v;
        r->cap = cap;
    }
    vcheck *c = &r->v[r->n++];
    memset(c, 0, sizeof *c);
    snprintf(c->section, sizeof c->section, "%s", section);
    c->status = st;
    c->gpu_a = c->gpu_b = c->finding = -1;
    va_list ap;
    va_start(ap, name_fmt);
    vsnprintf(c->name, sizeof c->name, name_fmt, ap);
    va_end(ap);
    return c;
}

vcheck *vcheck_about(vcheck *c, const char *kind, int gpu_a, int gpu_b)
{
    snprintf(c->kind, sizeof c->kind, "%s", kind);
    c->gpu_a = gpu_a;
    c->gpu_b = gpu_b;
    return c;
}

int vreport_count(const vreport *r, vstatus st)
{
    int n = 0;
    for (int i = 0; i < r->n; i++) n += r->v[i].status == st;
    return n;
}

void vreport_free(vreport *r)
{
    free(r->v);
    free(r->findings);
    json_decref(r->sweep);
    json_decref(r->load);
    r->v = NULL;
    r->findings = NULL;
    r->sweep = r->load = NULL;
    r->n = r->cap = r->nfindings = 0;
}

static const char *verdict(const vreport *r)
{
    if (vreport_count(r, V_ERROR)) return "could not finish";
    return vreport_count(r, V_ANOMALY) ? "anomalies found" : "no anomaly";
}

/* What was measured, in one line every format carries. */
static void measured_what(const vreport *r, char *buf, size_t len)
{
    if (r->refused)
        snprintf(buf, len, "nothing (backend %s on %s: no usable GPU; no fallback to the sim)", r->backend,
                 r->hosts[0] ? r->hosts : "?");
    else if (r->simulated)
        snprintf(buf, len, "SIMULATED machine %s (backend sim: the numbers are the model's, not a machine's)",
                 r->machine);
    else
        snprintf(buf, len, "backend %s on %s", r->backend[0] ? r->backend : "?", r->hosts[0] ? r->hosts : "?");
}

static void tolerance_line(const vreport *r, char *buf, size_t len)
{
    if (r->tolerance > 0)
        snprintf(buf, len, "tolerance %.0f %% for every bandwidth check (--tolerance)", r->tolerance * 100);
    else
        snprintf(buf, len, "tolerance per check: the model's uncertainty for what bounds it (HBM %.0f %%, PCIe "
                 "%.0f %%, NVLink %.0f %%, SHM %.0f %%, network %.0f %%); shown as +-N %% after each expectation",
                 vreport_tolerance(r, "HBM") * 100, vreport_tolerance(r, "PCIe") * 100,
                 vreport_tolerance(r, "NVLink") * 100, vreport_tolerance(r, "SHM") * 100,
                 vreport_tolerance(r, "network") * 100);
}

/* A check's expectation with the tolerance it was judged with. */
static void expected_text(const vcheck *c, char *buf, size_t len)
{
    if (c->tol > 0) snprintf(buf, len, "%s +-%.0f %%", c->expected, c->tol * 100);
    else snprintf(buf, len, "%s", c->expected);
}

/*--- Terminal ------------------------------------------------------------*/

static int width_of(const vreport *r, size_t off, int min)
{
    int w = min;
    for (int i = 0; i < r->n; i++) {
        int n = (int)strlen((const char *)&r->v[i] + off);
        if (n > w) w = n;
    }
    return w;
}

static void print_findings_text(const vreport *r, FILE *f, const char *red, const char *off)
{
    if (!r->nfindings) return;
    fprintf(f, "%sFindings%s (one likely cause each, the one that explains most first):\n", red, off);
    for (int k = 0; k < r->nfindings; k++) {
        const vfinding *x = &r->findings[k];
        fprintf(f, "  %d. %s; %d anomal%s follow%s from it\n", k + 1, x->title, x->explains,
                x->explains == 1 ? "y" : "ies", x->explains == 1 ? "s" : "");
        if (x->next[0]) fprintf(f, "     next: %s\n", x->next);
    }
    fputc('\n', f);
}

static void print_sweep_text(const vreport *r, FILE *f)
{
    if (!r->sweep) return;
    const char *coll = NULL;
    for (size_t i = 0; i < json_array_size(r->sweep); i++) {
        json_t *row = json_array_get(r->sweep, i);
        const char *c = json_string_value(json_object_get(row, "coll"));
        if (!coll || strcmp(coll, c) != 0) {
            coll = c;
            fprintf(f, "\n# sweep %s (nccl-tests columns; model = the expectation)\n", c);
            fprintf(f, "#%11s %12s %8s %6s %6s %10s %8s %8s %6s %10s %8s %10s %8s %8s %6s\n", "size", "count",
                    "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "model", "busbw", "time", "algbw",
                    "busbw", "#wrong");
            fprintf(f, "#%11s %12s %8s %6s %6s %10s %8s %8s %6s %10s %8s %10s %8s %8s %6s\n", "(B)", "(elements)",
                    "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(us)", "(GB/s)", "(GB/s)", "");
        }
        /* out of place then in place, on one line as nccl-tests prints them */
        json_t *ip = json_array_get(r->sweep, i + 1);
        int pair = ip && json_is_true(json_object_get(ip, "in_place")) &&
                   json_integer_value(json_object_get(ip, "size")) == json_integer_value(json_object_get(row, "size"));
        fprintf(f, "%12lld %12lld %8s %6s %6lld %10.2f %8.2f %8.2f %6lld %10.2f %8.2f",
                (long long)json_integer_value(json_object_get(row, "size")),
                (long long)json_integer_value(json_object_get(row, "count")),
                json_string_value(json_object_get(row, "type")), json_string_value(json_object_get(row, "redop")),
                (long long)json_integer_value(json_object_get(row, "root")),
                json_number_value(json_object_get(row, "time_us")), json_number_value(json_object_get(row, "algbw")),
                json_number_value(json_object_get(row, "busbw")),
                (long long)json_integer_value(json_object_get(row, "wrong")),
                json_number_value(json_object_get(row, "model_us")),
                json_number_value(json_object_get(row, "model_busbw")));
        if (pair) {
            json_t *w = json_object_get(ip, "wrong");
            char wrong[24] = "N/A"; /* nccl-tests does not check in-place sendrecv */
            if (json_is_integer(w)) snprintf(wrong, sizeof wrong, "%lld", (long long)json_integer_value(w));
            fprintf(f, " %10.2f %8.2f %8.2f %6s", json_number_value(json_object_get(ip, "time_us")),
                    json_number_value(json_object_get(ip, "algbw")), json_number_value(json_object_get(ip, "busbw")),
                    wrong);
            i++;
        }
        fputc('\n', f);
    }
    json_t *note = NULL;
    for (size_t i = 0; i < json_array_size(r->sweep) && !note; i++)
        note = json_object_get(json_array_get(r->sweep, i), "note");
    if (note) fprintf(f, "# %s\n", json_string_value(note));
}

void vreport_print_text(const vreport *r, FILE *f, int color)
{
    const char *red = color ? "\033[31m" : "", *green = color ? "\033[32m" : "", *off = color ? "\033[0m" : "";
    char what[400], tol[400];
    measured_what(r, what, sizeof what);
    tolerance_line(r, tol, sizeof tol);
    fprintf(f, "# %s\n", r->backend_line);
    fprintf(f, "# measured: %s\n", what);
    fprintf(f, "# expected = the model of this topology; %s\n\n", tol);
    print_findings_text(r, f, red, off);
    /* columns as wide as their widest cell: a value is never cut */
    int wn = width_of(r, offsetof(vcheck, name), 5), wm = width_of(r, offsetof(vcheck, measured), 8);
    int we = 8;
    for (int i = 0; i < r->n; i++) {
        char e[160];
        expected_text(&r->v[i], e, sizeof e);
        if ((int)strlen(e) > we) we = (int)strlen(e);
    }
    fprintf(f, "%-10s %-8s %-*s %-*s %s\n", "section", "status", wn, "check", wm, "measured", "expected");
    for (int i = 0; i < r->n; i++) {
        const vcheck *c = &r->v[i];
        const char *col = c->status == V_OK ? green : c->status == V_INFO ? "" : red;
        char e[160];
        expected_text(c, e, sizeof e);
        fprintf(f, "%-10s %s%-8s%s %-*s %-*s %s\n", c->section, col, status_word[c->status], off, wn, c->name, wm,
                c->measured, e);
        if (c->status == V_ANOMALY || c->status == V_ERROR) {
            if (c->finding >= 0) fprintf(f, "%19s from:  finding %d\n", "", c->finding + 1);
            if (c->cause[0]) fprintf(f, "%19s why:  %s\n", "", c->cause);
            if (c->next[0]) fprintf(f, "%19s next: %s\n", "", c->next);
        } else if (c->cause[0]) {
            fprintf(f, "%19s note: %s\n", "", c->cause);
        }
    }
    print_sweep_text(r, f);
    fprintf(f, "\n%d checks: %d ok, %d anomal%s, %d info, %d error%s - %s", r->n, vreport_count(r, V_OK),
            vreport_count(r, V_ANOMALY), vreport_count(r, V_ANOMALY) == 1 ? "y" : "ies", vreport_count(r, V_INFO),
            vreport_count(r, V_ERROR), vreport_count(r, V_ERROR) == 1 ? "" : "s", verdict(r));
    if (r->simulated) fprintf(f, " (SIMULATED machine %s)", r->machine);
    fputc('\n', f);
}

/*--- Markdown --------------------------------------------------------------*/

/* Table cells: a pipe would end the cell, a newline the row. */
static void md_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|') fputs("\\|", f);
        else if (*s == '\n') fputc(' ', f);
        else fputc(*s, f);
    }
}

void vreport_print_markdown(const vreport *r, FILE *f)
{
    char what[400], tol[400], e[160];
    measured_what(r, what, sizeof what);
    tolerance_line(r, tol, sizeof tol);
    fprintf(f, "# mgpulab validate: %s\n\n", verdict(r));
    fprintf(f, "- measured: %s%s%s\n", r->simulated ? "**" : "", what, r->simulated ? "**" : "");
    fprintf(f, "- backend: %s\n", r->backend_line);
    fprintf(f, "- expected values: the model of this topology; %s\n", tol);
    fprintf(f, "- %d checks: %d ok, %d anomalies, %d info, %d errors\n", r->n, vreport_count(r, V_OK),
            vreport_count(r, V_ANOMALY), vreport_count(r, V_INFO), vreport_count(r, V_ERROR));
    if (r->nfindings) {
        fprintf(f, "\n## Findings\n\nOne likely cause each, the one that explains most first.\n\n");
        for (int k = 0; k < r->nfindings; k++) {
            fprintf(f, "%d. ", k + 1);
            md_cell(f, r->findings[k].title);
            fprintf(f, "; %d anomal%s follow from it. Next: `", r->findings[k].explains,
                    r->findings[k].explains == 1 ? "y" : "ies");
            md_cell(f, r->findings[k].next);
            fprintf(f, "`\n");
        }
    }
    fprintf(f, "\n| section | status | check | measured | expected |\n|---|---|---|---|---|\n");
    for (int i = 0; i < r->n; i++) {
        const vcheck *c = &r->v[i];
        fprintf(f, "| %s | %s%s%s | ", c->section, c->status == V_ANOMALY || c->status == V_ERROR ? "**" : "",
                status_word[c->status], c->status == V_ANOMALY || c->status == V_ERROR ? "**" : "");
        md_cell(f, c->name);
        fputs(" | ", f);
        md_cell(f, c->measured);
        fputs(" | ", f);
        expected_text(c, e, sizeof e);
        md_cell(f, e);
        fputs(" |\n", f);
    }
    int any = 0;
    for (int i = 0; i < r->n; i++) {
        const vcheck *c = &r->v[i];
        if (c->status != V_ANOMALY && c->status != V_ERROR) continue;
        if (!any++) fprintf(f, "\n## Anomalies\n");
        expected_text(c, e, sizeof e);
        fprintf(f, "\n### %s: %s\n\n", c->section, c->name);
        if (c->finding >= 0) fprintf(f, "- follows from finding %d\n", c->finding + 1);
        fprintf(f, "- measured: %s\n- expected: %s\n- likely cause: %s\n- check next: %s\n", c->measured, e,
                c->cause, c->next);
    }
    if (r->sweep) {
        fprintf(f, "\n## Sweep\n\n```\n");
        print_sweep_text(r, f);
        fprintf(f, "```\n");
    }
}

/*--- JSON ------------------------------------------------------------------*/

json_t *vreport_json(const vreport *r)
{
    char what[400];
    measured_what(r, what, sizeof what);
    json_t *checks = json_array();
    for (int i = 0; i < r->n; i++) {
        const vcheck *c = &r->v[i];
        json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "section", c->section, "status", status_word[c->status],
                              "check", c->name, "measured", c->measured, "expected", c->expected);
        if (c->kind[0]) json_object_set_new(o, "kind", json_string(c->kind));
        if (c->tol > 0) json_object_set_new(o, "tolerance", json_real(c->tol));
        if (c->finding >= 0) json_object_set_new(o, "finding", json_integer(c->finding + 1));
        if (c->cause[0]) json_object_set_new(o, c->status == V_INFO || c->status == V_OK ? "note" : "cause",
                                             json_string(c->cause));
        if (c->next[0]) json_object_set_new(o, "next", json_string(c->next));
        json_object_set_new(o, "time_s", json_real(c->time_s));
        json_array_append_new(checks, o);
    }
    json_t *findings = json_array();
    for (int k = 0; k < r->nfindings; k++)
        json_array_append_new(findings, json_pack("{s:i, s:s, s:s, s:i, s:s}", "finding", k + 1, "key",
                                                  r->findings[k].key, "cause", r->findings[k].title, "explains",
                                                  r->findings[k].explains, "next", r->findings[k].next));
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:b, s:s, s:s, s:i, s:f, s:i, s:i, s:i, s:f, s:o, s:o}", "tool",
                          "mgpulab validate", "measured", what, "backend", r->backend, "backend_line", r->backend_line,
                          "simulated", r->simulated, "machine", r->machine, "hosts", r->hosts, "ranks", r->nranks,
                          "tolerance", r->tolerance, "anomalies", vreport_count(r, V_ANOMALY), "errors",
                          vreport_count(r, V_ERROR), "checks_total", r->n, "wall_s", r->wall_s, "findings", findings,
                          "checks", checks);
    if (o && r->sweep) json_object_set(o, "sweep", r->sweep);
    if (o && r->load) json_object_set(o, "sustained", r->load);
    return o;
}

/*--- JUnit XML -------------------------------------------------------------*/

static void xml_text(FILE *f, const char *s) { mgpu_cli_markup_text(f, s); }

static void junit_property(FILE *f, const char *indent, const char *name, const char *value)
{
    fprintf(f, "%s<property name=\"%s\" value=\"", indent, name);
    xml_text(f, value);
    fprintf(f, "\"/>\n");
}

static void junit_properties(const vreport *r, FILE *f, const char *indent)
{
    char what[400], tol[400], in[16];
    measured_what(r, what, sizeof what);
    tolerance_line(r, tol, sizeof tol);
    snprintf(in, sizeof in, "%s  ", indent);
    fprintf(f, "%s<properties>\n", indent);
    junit_property(f, in, "measured", what);
    junit_property(f, in, "backend", r->backend);
    junit_property(f, in, "simulated", r->simulated ? "true" : "false");
    junit_property(f, in, "machine", r->machine);
    junit_property(f, in, "hosts", r->hosts);
    junit_property(f, in, "backend_line", r->backend_line);
    junit_property(f, in, "tolerance", tol);
    for (int k = 0; k < r->nfindings; k++) {
        char name[32], v[480];
        snprintf(name, sizeof name, "finding %d", k + 1);
        snprintf(v, sizeof v, "%s (%d anomalies)", r->findings[k].title, r->findings[k].explains);
        junit_property(f, in, name, v);
    }
    fprintf(f, "%s</properties>\n", indent);
}

void vreport_print_junit(const vreport *r, FILE *f)
{
    char what[400];
    measured_what(r, what, sizeof what);
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<testsuites name=\"mgpulab validate: ");
    xml_text(f, what);
    fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%.3f\">\n", r->n,
            vreport_count(r, V_ANOMALY), vreport_count(r, V_ERROR), r->wall_s);
    const char *sections[] = {"backend", "topology", "nvml", "copy", "collective", "ranks", "network", "sweep", "load"};
    for (size_t s = 0; s < sizeof sections / sizeof sections[0]; s++) {
        int n = 0, fails = 0, errs = 0;
        double t = 0;
        for (int i = 0; i < r->n; i++)
            if (strcmp(r->v[i].section, sections[s]) == 0)
                n++, fails += r->v[i].status == V_ANOMALY, errs += r->v[i].status == V_ERROR, t += r->v[i].time_s;
        if (!n) continue;
        fprintf(f, "  <testsuite name=\"%s%s\" tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%.3f\">\n",
                r->simulated ? "SIMULATED " : "", sections[s], n, fails, errs, t);
        junit_properties(r, f, "    ");
        for (int i = 0; i < r->n; i++) {
            const vcheck *c = &r->v[i];
            if (strcmp(c->section, sections[s]) != 0) continue;
            char e[160];
            expected_text(c, e, sizeof e);
            fprintf(f, "    <testcase classname=\"mgpulab.validate.%s%s\" name=\"", r->simulated ? "simulated." : "",
                    c->section);
            xml_text(f, c->name);
            fprintf(f, "\" time=\"%.3f\">\n", c->time_s);
            const char *tag = c->status == V_ANOMALY ? "failure" : c->status == V_ERROR ? "error" : NULL;
            if (tag) {
                fprintf(f, "      <%s message=\"", tag);
                if (c->finding >= 0) {
                    fprintf(f, "[finding %d: ", c->finding + 1);
                    xml_text(f, r->findings[c->finding].title);
                    fprintf(f, "] ");
                }
                xml_text(f, c->cause);
                fprintf(f, "\">measured: ");
                xml_text(f, c->measured);
                fprintf(f, "\nexpected: ");
                xml_text(f, e);
                fprintf(f, "\nlikely cause: ");
                xml_text(f, c->cause);
                fprintf(f, "\ncheck next: ");
                xml_text(f, c->next);
                fprintf(f, "\n%s</%s>\n", r->simulated ? "SIMULATED: the sim's model, not a machine" : "", tag);
            } else {
                fprintf(f, "      <system-out>%smeasured: ", r->simulated ? "SIMULATED " : "");
                xml_text(f, c->measured);
                fprintf(f, "; expected: ");
                xml_text(f, e);
                if (c->cause[0]) {
                    fprintf(f, "; ");
                    xml_text(f, c->cause);
                }
                fprintf(f, "</system-out>\n");
            }
            fprintf(f, "    </testcase>\n");
        }
        fprintf(f, "  </testsuite>\n");
    }
    fprintf(f, "</testsuites>\n");
}
