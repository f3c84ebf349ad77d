/* validate_report.c - the validation report and its four outputs: a
 * terminal table, Markdown (a ticket or wiki page), JSON (scripts) and JUnit
 * XML (a cluster's CI shows each check as a test case, an anomaly as a
 * failure with its cause and next check). */
#include "cmd.h"
#include "validate.h"
#include <stdarg.h>
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
    va_list ap;
    va_start(ap, name_fmt);
    vsnprintf(c->name, sizeof c->name, name_fmt, ap);
    va_end(ap);
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
    r->v = NULL;
    r->n = r->cap = 0;
}

static const char *verdict(const vreport *r)
{
    if (vreport_count(r, V_ERROR)) return "could not finish";
    return vreport_count(r, V_ANOMALY) ? "anomalies found" : "no anomaly";
}

/*--- Terminal ------------------------------------------------------------*/

void vreport_print_text(const vreport *r, FILE *f, int color)
{
    const char *red = color ? "\033[31m" : "", *green = color ? "\033[32m" : "", *off = color ? "\033[0m" : "";
    fprintf(f, "# %s\n", r->backend_line);
    if (r->simulated) fprintf(f, "# SIMULATED machine %s: measurements are the sim's model\n", r->machine);
    fprintf(f, "# expected = the sim's model of this topology; tolerance %.0f %%\n\n", r->tolerance * 100);
    fprintf(f, "%-10s %-8s %-40s %-22s %-22s\n", "section", "status", "check", "measured", "expected");
    for (int i = 0; i < r->n; i++) {
        const vcheck *c = &r->v[i];
        const char *col = c->status == V_OK ? green : c->status == V_INFO ? "" : red;
        fprintf(f, "%-10s %s%-8s%s %-40.40s %-22.22s %-22.22s\n", c->section, col, status_word[c->status], off,
                c->name, c->measured, c->expected);
        if (c->status == V_ANOMALY || c->status == V_ERROR) {
            if (c->cause[0]) fprintf(f, "%19s why:  %s\n", "", c->cause);
            if (c->next[0]) fprintf(f, "%19s next: %s\n", "", c->next);
        } else if (c->cause[0]) {
            fprintf(f, "%19s note: %s\n", "", c->cause);
        }
    }
    fprintf(f, "\n%d checks: %d ok, %d anomal%s, %d info, %d error%s - %s\n", r->n, vreport_count(r, V_OK),
            vreport_count(r, V_ANOMALY), vreport_count(r, V_ANOMALY) == 1 ? "y" : "ies", vreport_count(r, V_INFO),
            vreport_count(r, V_ERROR), vreport_count(r, V_ERROR) == 1 ? "" : "s", verdict(r));
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
    fprintf(f, "# mgpulab validate: %s\n\n", verdict(r));
    fprintf(f, "- backend: %s\n", r->backend_line);
    if (r->simulated) fprintf(f, "- **SIMULATED** machine `%s`\n", r->machine);
    fprintf(f, "- expected values: the sim's model of this topology, tolerance %.0f %%\n", r->tolerance * 100);
    fprintf(f, "- %d checks: %d ok, %d anomalies, %d info, %d errors\n\n", r->n, vreport_count(r, V_OK),
            vreport_count(r, V_ANOMALY), vreport_count(r, V_INFO), vreport_count(r, V_ERROR));
    fprintf(f, "| section | status | check | measured | expected |\n|---|---|---|---|---|\n");
    for (int i = 0; i < r->n; i++) {
        const vcheck *c = &r->v[i];
        fprintf(f, "| %s | %s%s%s | ", c->section, c->status == V_ANOMALY || c->status == V_ERROR ? "**" : "",
                status_word[c->status], c->status == V_ANOMALY || c->status == V_ERROR ? "**" : "");
        md_cell(f, c->name);
        fputs(" | ", f);
        md_cell(f, c->measured);
        fputs(" | ", f);
        md_cell(f, c->expected);
        fputs(" |\n", f);
    }
    int any = 0;
    for (int i = 0; i < r->n; i++) {
        const vcheck *c = &r->v[i];
        if (c->status != V_ANOMALY && c->status != V_ERROR) continue;
        if (!any++) fprintf(f, "\n## Anomalies\n");
        fprintf(f, "\n### %s: %s\n\n- measured: %s\n- expected: %s\n- likely cause: %s\n- check next: %s\n",
                c->section, c->name, c->measured, c->expected, c->cause, c->next);
    }
}

/*--- JSON ------------------------------------------------------------------*/

json_t *vreport_json(const vreport *r)
{
    json_t *checks = json_array();
    for (int i = 0; i < r->n; i++) {
        const vcheck *c = &r->v[i];
        json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "section", c->section, "status", status_word[c->status],
                              "check", c->name, "measured", c->measured, "expected", c->expected);
        if (c->cause[0]) json_object_set_new(o, c->status == V_INFO || c->status == V_OK ? "note" : "cause",
                                             json_string(c->cause));
        if (c->next[0]) json_object_set_new(o, "next", json_string(c->next));
        json_array_append_new(checks, o);
    }
    return json_pack("{s:s, s:s, s:b, s:s, s:f, s:i, s:i, s:i, s:o}", "tool", "mgpulab validate", "backend_line",
                     r->backend_line, "simulated", r->simulated, "machine", r->machine, "tolerance", r->tolerance,
                     "anomalies", vreport_count(r, V_ANOMALY), "errors", vreport_count(r, V_ERROR), "checks_total",
                     r->n, "checks", checks);
}

/*--- JUnit XML -------------------------------------------------------------*/

static void xml_text(FILE *f, const char *s) { mgpu_cli_markup_text(f, s); }

void vreport_print_junit(const vreport *r, FILE *f)
{
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<testsuites name=\"mgpulab validate\" tests=\"%d\" failures=\"%d\" errors=\"%d\">\n", r->n,
            vreport_count(r, V_ANOMALY), vreport_count(r, V_ERROR));
    const char *sections[] = {"topology", "nvml", "copy", "collective", "ranks"};
    for (size_t s = 0; s < sizeof sections / sizeof sections[0]; s++) {
        int n = 0, fails = 0, errs = 0;
        for (int i = 0; i < r->n; i++)
            if (strcmp(r->v[i].section, sections[s]) == 0)
                n++, fails += r->v[i].status == V_ANOMALY, errs += r->v[i].status == V_ERROR;
        if (!n) continue;
        fprintf(f, "  <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"%d\">\n", sections[s], n, fails,
                errs);
        for (int i = 0; i < r->n; i++) {
            const vcheck *c = &r->v[i];
            if (strcmp(c->section, sections[s]) != 0) continue;
            fprintf(f, "    <testcase classname=\"mgpulab.validate.%s\" name=\"", c->section);
            xml_text(f, c->name);
            fprintf(f, "\">\n");
            const char *tag = c->status == V_ANOMALY ? "failure" : c->status == V_ERROR ? "error" : NULL;
            if (tag) {
                fprintf(f, "      <%s message=\"", tag);
                xml_text(f, c->cause);
                fprintf(f, "\">measured: ");
                xml_text(f, c->measured);
                fprintf(f, "\nexpected: ");
                xml_text(f, c->expected);
                fprintf(f, "\nlikely cause: ");
                xml_text(f, c->cause);
                fprintf(f, "\ncheck next: ");
                xml_text(f, c->next);
                fprintf(f, "</%s>\n", tag);
            } else {
                fprintf(f, "      <system-out>measured: ");
                xml_text(f, c->measured);
                fprintf(f, "; expected: ");
                xml_text(f, c->expected);
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
