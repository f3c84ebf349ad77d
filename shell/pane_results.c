/* pane_results.c - the results pane: the documents of the last run, one at
 * a time: "bench" as the nccl-tests table or a busbw/algbw-vs-size chart,
 * "copy" as nvbandwidth's GB/s matrices, "table" and "spmd" as tables. */
#include <math.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "chart.h"
#include "shell_strings.h"
#include "text.h"
#include "mgpu/lab.h"
#include "pane.h"

#define MAX_DOCS 16
#define MAX_COLS 32
#define MAX_POINTS 128

typedef struct result_doc {
    char kind[16];
    json_t *doc;        /* "spmd" documents are turned into a table at arrival */
} result_doc;

typedef struct results_pane {
    int color;
    result_doc docs[MAX_DOCS];
    int ndocs, cur;
    int chart;          /* bench: chart instead of table */
    int algbw;          /* bench chart: algbw too */
    int sy, sx, content_h, page;
    int dirty;
} results_pane;

static const char *str_or(const char *s, const char *dflt)
{
    return s ? s : dflt;
}

static void *results_create(const pane_context *ctx)
{
    results_pane *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->color = ctx && ctx->color;
    if (p->color) chart_colors_init();
    p->algbw = 1;
    p->dirty = 1;
    return p;
}

static void clear_docs(results_pane *p)
{
    for (int i = 0; i < p->ndocs; i++) json_decref(p->docs[i].doc);
    p->ndocs = p->cur = 0;
}

static void results_destroy(void *self)
{
    results_pane *p = self;
    if (!p) return;
    clear_docs(p);
    free(p);
}

/* {tool: spmd, results: [{rank, row: {...}}]} -> {title, columns, rows} with
 * one row per rank, columns the union of the ranks' keys (first seen first). */
static json_t *spmd_table(json_t *doc)
{
    json_t *res = json_object_get(doc, "results"), *cols = json_array(), *rows = json_array();
    char title[384];
    const char *whatif = json_string_value(json_object_get(doc, "whatif")); /* lab.spmd{machine =} */
    snprintf(title, sizeof title, "SPMD %s%s%s%s: %s%s%s", str_or(json_string_value(json_object_get(doc, "script")), "script"),
             whatif ? " (what-if on the SIMULATED " : "", whatif ? whatif : "", whatif ? ")" : "",
             json_is_true(json_object_get(doc, "ok")) ? "ok" : "FAILED",
             json_string_length(json_object_get(doc, "reason")) ? " - " : "",
             str_or(json_string_value(json_object_get(doc, "reason")), ""));
    json_t *t = json_pack("{s:s, s:o, s:o}", "title", title, "columns", cols, "rows", rows);
    if (!t) return NULL;
    json_array_append_new(cols, json_string("rank"));
    size_t n = json_array_size(res);
    for (int rank = 0, done = 0; done < (int)n && rank < 1 << 20; rank++) /* in rank order */
        for (size_t i = 0; i < n; i++) {
            json_t *r = json_array_get(res, i), *row = json_object_get(r, "row");
            if (json_integer_value(json_object_get(r, "rank")) != rank) continue;
            done++;
            const char *key;
            json_t *val;
            json_object_foreach(row, key, val) {
                size_t c = 0;
                while (c < json_array_size(cols) && strcmp(json_string_value(json_array_get(cols, c)), key)) c++;
                if (c == json_array_size(cols)) json_array_append_new(cols, json_string(key));
            }
            json_t *out = json_array();
            json_array_append_new(out, json_integer(rank));
            for (size_t c = 1; c < json_array_size(cols); c++) {
                json_t *v = json_object_get(row, json_string_value(json_array_get(cols, c)));
                json_array_append(out, v ? v : json_null());
            }
            json_array_append_new(rows, out);
        }
    json_t *errors = json_object_get(doc, "errors");
    if (json_array_size(errors)) json_object_set(t, "errors", errors);
    json_t *analysis = json_object_get(doc, "analysis");
    if (json_string_length(analysis)) json_object_set(t, "note", analysis);
    return t;
}

static void results_on_result(void *self, const char *kind, json_t *doc)
{
    results_pane *p = self;
    int spmd = !strcmp(kind, "spmd");
    if (!json_is_object(doc) || (strcmp(kind, "bench") && strcmp(kind, "copy") && strcmp(kind, "table") && !spmd))
        return;
    json_t *keep = spmd ? spmd_table(doc) : json_incref(doc);
    if (!keep) return;
    if (p->ndocs == MAX_DOCS) {
        json_decref(p->docs[0].doc);
        memmove(&p->docs[0], &p->docs[1], (MAX_DOCS - 1) * sizeof p->docs[0]);
        p->ndocs--;
    }
    snprintf(p->docs[p->ndocs].kind, sizeof p->docs[0].kind, "%s", spmd ? "table" : kind);
    p->docs[p->ndocs++].doc = keep;
    p->cur = p->ndocs - 1;
    p->sy = p->sx = 0;
    p->dirty = 1;
}

static void results_on_step_start(void *self)
{
    results_pane *p = self;
    clear_docs(p);
    p->sy = p->sx = 0;
    p->dirty = 1;
}

/* A JSON value as table text. */
static void cell_text(json_t *v, char *buf, size_t len)
{
    if (json_is_string(v)) snprintf(buf, len, "%s", json_string_value(v));
    else if (json_is_integer(v)) snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v)) {
        double d = json_real_value(v);
        if (d == floor(d) && fabs(d) < 1e15) snprintf(buf, len, "%.1f", d);
        else if (fabs(d) >= 0.01 && fabs(d) < 1e7) snprintf(buf, len, "%.2f", d);
        else snprintf(buf, len, "%.4g", d);
    } else if (json_is_true(v)) snprintf(buf, len, "yes");
    else if (json_is_false(v)) snprintf(buf, len, "no");
    else if (json_is_null(v) || !v) snprintf(buf, len, "-");
    else mgpu_lab_cell_text(v, buf, len); /* a list or a record, as words */
}

static json_t *row_cell(json_t *row, json_t *cols, size_t c)
{
    if (json_is_array(row)) return json_array_get(row, c);
    return json_object_get(row, str_or(json_string_value(json_array_get(cols, c)), ""));
}

static void draw_table(results_pane *p, chart_view *v, json_t *doc)
{
    json_t *cols = json_object_get(doc, "columns"), *rows = json_object_get(doc, "rows");
    int ncols = (int)json_array_size(cols), width[MAX_COLS], left[MAX_COLS];
    if (ncols > MAX_COLS) ncols = MAX_COLS;
    char buf[400]; /* a cell of 128 Hangul characters, whole */
    for (int c = 0; c < ncols; c++) {
        /* display columns, not bytes: a Korean column name or cell (L() in
         * a lab's table) takes two columns a character */
        width[c] = text_width(str_or(json_string_value(json_array_get(cols, (size_t)c)), ""), -1);
        /* numbers align right, words left: a right-aligned word column as
         * wide as its longest cell put "sim" 40 columns off an 80-column
         * screen (lab 0's "This run" table) */
        left[c] = 0;
        for (size_t r = 0; r < json_array_size(rows); r++) {
            json_t *cell = row_cell(json_array_get(rows, r), cols, (size_t)c);
            cell_text(cell, buf, sizeof buf);
            if (text_width(buf, -1) > width[c]) width[c] = text_width(buf, -1);
            /* a word: a string that does not start with a number ("8 B",
             * "365.82 GB/s" are numbers with units; "-" is no value) */
            const char *d = buf + (buf[0] == '-' || buf[0] == '+');
            if (*d == '.') d++;
            if (json_is_string(cell) && buf[0] && strcmp(buf, "-") != 0 && !isdigit((unsigned char)*d)) left[c] = 1;
        }
        if (width[c] > 96) width[c] = 96; /* wider cells: scroll sideways (Left/Right) */
    }
    chart_view_put(v, 0, A_BOLD, str_or(json_string_value(json_object_get(doc, "title")), tr("(untitled table)")));
    chart_view_nl(v);
    char cellw[512];
    for (int c = 0, x = 0; c < ncols; x += width[c++] + 2) {
        text_pad(cellw, sizeof cellw, str_or(json_string_value(json_array_get(cols, (size_t)c)), ""), width[c], !left[c]);
        chart_view_put(v, x, A_UNDERLINE, cellw);
    }
    chart_view_nl(v);
    for (size_t r = 0; r < json_array_size(rows); r++, chart_view_nl(v)) {
        if (chart_view_row(v) < 0) continue;
        for (int c = 0, x = 0; c < ncols; x += width[c++] + 2) {
            cell_text(row_cell(json_array_get(rows, r), cols, (size_t)c), buf, sizeof buf);
            text_pad(cellw, sizeof cellw, buf, width[c], !left[c]);
            chart_view_put(v, x, 0, cellw);
        }
    }
    json_t *note = json_object_get(doc, "note"), *errors = json_object_get(doc, "errors");
    if (json_string_length(note)) {
        chart_view_put(v, 0, 0, json_string_value(note));
        chart_view_nl(v);
    }
    for (size_t i = 0; i < json_array_size(errors); i++, chart_view_nl(v)) {
        json_t *e = json_array_get(errors, i);
        char t[256];
        if (json_is_string(e)) snprintf(t, sizeof t, "error: %s", json_string_value(e));
        else mgpu_lab_error_text(e, t, sizeof t); /* "rank 2: train_log.lua:23: ..." */
        chart_view_put(v, 0, chart_tone_attr(p->color, CHART_BAD), t);
    }
}

/* nccl-tests' table: size count type | time algbw busbw #wrong | (in place) */
static void draw_bench_table(results_pane *p, chart_view *v, json_t *doc)
{
    json_t *rows = json_object_get(doc, "rows");
    static const char *const halves[2] = {"out_of_place", "in_place"};
    if (getmaxx(v->w) < 64 && v->sx == 0) { /* narrow: busbw first, out-of-place only */
        chart_view_putf(v, 0, A_UNDERLINE, "%7s %8s %8s %9s %6s", "size", "busbw", "algbw", "time(us)", "#wrong");
        chart_view_nl(v);
        for (size_t r = 0; r < json_array_size(rows); r++, chart_view_nl(v)) {
            json_t *row = json_array_get(rows, r), *half = json_object_get(row, halves[0]);
            char sz[16];
            chart_size(json_number_value(json_object_get(row, "size")), sz, sizeof sz);
            chart_view_putf(v, 0, 0, "%7s", sz);
            chart_view_putf(v, 8, A_BOLD, "%8.2f", json_number_value(json_object_get(half, "bus_bw")));
            chart_view_putf(v, 17, 0, "%8.2f %9.2f %6lld", json_number_value(json_object_get(half, "alg_bw")),
                            json_number_value(json_object_get(half, "time")),
                            (long long)json_integer_value(json_object_get(half, "nwrong")));
        }
        chart_view_put(v, 0, A_DIM, tr("(out-of-place; -> for the full table)"));
        chart_view_nl(v);
        return;
    }
    chart_view_putf(v, 0, A_DIM, "%7s %11s %6s   %-36s %s", "", "", "", "out-of-place", "in-place");
    chart_view_nl(v);
    chart_view_putf(v, 0, A_UNDERLINE, "%7s %11s %6s | %9s %8s %8s %6s | %9s %8s %8s %6s", "size", "count", "type",
                    "time(us)", "algbw", "busbw", "#wrong", "time(us)", "algbw", "busbw", "#wrong");
    chart_view_nl(v);
    for (size_t r = 0; r < json_array_size(rows); r++, chart_view_nl(v)) {
        if (chart_view_row(v) < 0) continue;
        json_t *row = json_array_get(rows, r);
        char sz[16];
        chart_size(json_number_value(json_object_get(row, "size")), sz, sizeof sz);
        chart_view_putf(v, 0, 0, "%7s %11lld %6s |", sz, (long long)json_integer_value(json_object_get(row, "count")),
                        str_or(json_string_value(json_object_get(row, "type")), "?"));
        for (int h = 0; h < 2; h++) {
            json_t *half = json_object_get(row, halves[h]);
            int col = 29 + h * 37;
            if (!half) {
                chart_view_putf(v, col, A_DIM, "%9s", "-");
                continue;
            }
            long long wrong = json_integer_value(json_object_get(half, "nwrong"));
            chart_view_putf(v, col, 0, "%9.2f %8.2f", json_number_value(json_object_get(half, "time")),
                            json_number_value(json_object_get(half, "alg_bw")));
            chart_view_putf(v, col + 19, A_BOLD, "%8.2f", json_number_value(json_object_get(half, "bus_bw")));
            chart_view_putf(v, col + 28, wrong ? chart_tone_attr(p->color, CHART_BAD) : 0, "%6lld", wrong);
            if (h == 0) chart_view_put(v, col + 35, 0, "|");
        }
    }
    chart_view_putf(v, 0, 0, "# Avg bus bandwidth    : %g GB/s", json_number_value(json_object_get(doc, "avg_bus_bw")));
    chart_view_nl(v);
    long long wrong = json_integer_value(json_object_get(doc, "wrong_checks"));
    chart_view_putf(v, 0, wrong ? chart_tone_attr(p->color, CHART_BAD) : 0, "# Out of bounds values : %lld %s", wrong,
                    wrong ? "FAILED" : "OK");
    chart_view_nl(v);
    json_t *rep = json_object_get(doc, "report");
    if (rep && !json_is_true(json_object_get(rep, "ok"))) {
        chart_view_putf(v, 0, chart_tone_attr(p->color, CHART_BAD), "run failed: %s %s",
                        str_or(json_string_value(json_object_get(rep, "reason")), ""),
                        str_or(json_string_value(json_object_get(rep, "analysis")), ""));
        chart_view_nl(v);
    }
}

static void draw_bench_chart(results_pane *p, WINDOW *win, int top, json_t *doc)
{
    json_t *rows = json_object_get(doc, "rows");
    double x[MAX_POINTS], bus[MAX_POINTS], alg[MAX_POINTS];
    int n = 0;
    for (size_t r = 0; r < json_array_size(rows) && n < MAX_POINTS; r++) {
        json_t *row = json_array_get(rows, r), *half = json_object_get(row, "out_of_place");
        if (!half) half = json_object_get(row, "in_place");
        x[n] = json_number_value(json_object_get(row, "size"));
        bus[n] = json_number_value(json_object_get(half, "bus_bw"));
        alg[n++] = json_number_value(json_object_get(half, "alg_bw"));
    }
    chart_series s[2] = {
        {"busbw", '*', chart_tone_attr(p->color, CHART_GOOD), x, bus, n},
        {"algbw", 'o', chart_tone_attr(p->color, CHART_INFO), x, alg, n},
    };
    if (!n) {
        chart_text(win, top, 0, 0, 0, tr("(no rows: the run measured nothing)"));
        return;
    }
    chart_xy(win, top, 0, getmaxy(win) - top, getmaxx(win), s, p->algbw ? 2 : 1, "GB/s");
}

static void draw_copy(results_pane *p, chart_view *v, json_t *doc)
{
    json_t *tcs = json_object_get(doc, "testcases");
    if (json_string_length(json_object_get(doc, "unit_note"))) {
        chart_view_put(v, 0, A_DIM, json_string_value(json_object_get(doc, "unit_note")));
        chart_view_nl(v);
    }
    for (size_t t = 0; t < json_array_size(tcs); t++) {
        json_t *tc = json_array_get(tcs, t);
        const char *status = str_or(json_string_value(json_object_get(tc, "status")), "?");
        int ok = !strcmp(status, "passed");
        chart_view_putf(v, 0, A_BOLD, "%s", str_or(json_string_value(json_object_get(tc, "name")), "?"));
        chart_view_putf(v, 48, ok ? chart_tone_attr(p->color, CHART_GOOD) : chart_tone_attr(p->color, CHART_WARN), "%s",
                        status);
        chart_view_nl(v);
        if (json_string_length(json_object_get(tc, "waived_reason"))) {
            chart_view_putf(v, 2, 0, "waived: %s", json_string_value(json_object_get(tc, "waived_reason")));
            chart_view_nl(v);
        }
        json_t *ms = json_object_get(tc, "matrices");
        for (size_t m = 0; m < json_array_size(ms); m++) {
            json_t *mx = json_array_get(ms, m), *vals = json_object_get(mx, "values");
            const char *title = str_or(json_string_value(json_object_get(mx, "title")), "");
            int cpu_rows = strstr(title, "CPU(row)") != NULL;
            int ncol = (int)json_integer_value(json_object_get(mx, "cols"));
            chart_view_put(v, 2, 0, title);
            chart_view_nl(v);
            for (int c = 0; c < ncol; c++) chart_view_putf(v, 6 + c * 9, A_UNDERLINE, "%9d", c);
            chart_view_nl(v);
            for (size_t r = 0; r < json_array_size(vals); r++, chart_view_nl(v)) {
                if (chart_view_row(v) < 0) continue;
                json_t *row = json_array_get(vals, r);
                if (cpu_rows) chart_view_put(v, 2, A_BOLD, "CPU");
                else chart_view_putf(v, 2, A_BOLD, "%zu", r);
                for (int c = 0; c < ncol; c++) {
                    json_t *x = json_array_get(row, (size_t)c);
                    if (json_is_number(x)) chart_view_putf(v, 6 + c * 9, 0, "%9.2f", json_number_value(x));
                    else chart_view_putf(v, 6 + c * 9, A_DIM, "%9s", "N/A");
                }
            }
            chart_view_putf(v, 2, 0, "SUM %s %.2f", str_or(json_string_value(json_object_get(mx, "key")), ""),
                            json_number_value(json_object_get(mx, "sum")));
            chart_view_nl(v);
        }
        json_t *notes = json_object_get(tc, "notes");
        for (size_t i = 0; i < json_array_size(notes); i++, chart_view_nl(v))
            chart_view_putf(v, 2, A_DIM, "note: %s", str_or(json_string_value(json_array_get(notes, i)), ""));
    }
}

static void results_draw(void *self, WINDOW *win, int focused)
{
    results_pane *p = self;
    int h = getmaxy(win);
    (void)focused;
    p->dirty = 0;
    if (!p->ndocs) {
        chart_text_wrapped(win, 0, 0, 0, tr("nothing yet: run a step that measures something (a bench, a copy, a check's table)"));
        return;
    }
    result_doc *d = &p->docs[p->cur];
    int bench = !strcmp(d->kind, "bench");
    char head[200];
    int len = snprintf(head, sizeof head, "[%d/%d] %s", p->cur + 1, p->ndocs, d->kind);
    if (bench) {
        json_t *dev = json_object_get(d->doc, "devices");
        len += snprintf(head + len, sizeof head - (size_t)len, " %s  %lld ranks%s%s",
                        str_or(json_string_value(json_object_get(d->doc, "collective")), "?"),
                        (long long)json_integer_value(json_object_get(dev, "ranks")),
                        json_is_true(json_object_get(dev, "simulated")) ? "  SIMULATED " : "  ",
                        str_or(json_string_value(json_object_get(dev, "machine")), ""));
    } else if (!strcmp(d->kind, "copy"))
        snprintf(head + len, sizeof head - (size_t)len, "  %s", str_or(json_string_value(json_object_get(d->doc, "backend_line")), ""));
    chart_text(win, 0, 0, 0, A_BOLD, head);
    int top = 1;
    if (h >= 6) {
        chart_textf(win, 1, 0, 0, A_DIM, "%s%s'[' ']' prev/next document  arrows scroll", bench ? (p->chart ? "[g] table  " : "[g] chart  ") : "",
                    bench && p->chart ? (p->algbw ? "[b] hide algbw  " : "[b] algbw  ") : "");
        top = 2;
    }
    p->page = h - top;
    if (bench && p->chart) {
        draw_bench_chart(p, win, top, d->doc);
        p->content_h = 0;
        return;
    }
    chart_view v = {win, top, h, p->sy, p->sx, 0};
    if (bench) draw_bench_table(p, &v, d->doc);
    else if (!strcmp(d->kind, "copy")) draw_copy(p, &v, d->doc);
    else draw_table(p, &v, d->doc);
    p->content_h = v.line;
}

static int results_key(void *self, int ch)
{
    results_pane *p = self;
    switch (ch) {
    /* letters of their own: c, a, +, - are the shell's everywhere (cancel,
     * answer, pane size) */
    case 'g': p->chart = !p->chart; p->sy = 0; break;
    case 'b': p->algbw = !p->algbw; break;
    case '[': if (p->cur > 0) p->cur--, p->sy = p->sx = 0; break;
    case ']': if (p->cur + 1 < p->ndocs) p->cur++, p->sy = p->sx = 0; break;
    default:
        if (!chart_view_scroll_key(ch, &p->sy, &p->sx, p->content_h, p->page, 400)) return 0;
    }
    p->dirty = 1;
    return 1;
}

static int results_dirty(void *self)
{
    return ((results_pane *)self)->dirty;
}

const pane_class pane_results = {
    .name = "results",
    .title = "Results",
    .hotkey = '3',
    .create = results_create,
    .destroy = results_destroy,
    .on_result = results_on_result,
    .on_step_start = results_on_step_start,
    .draw = results_draw,
    .key = results_key,
    .dirty = results_dirty,
};
