/* pane_timeline.c - the timeline pane: spans {rank, stream, name, kind,
 * start_us, end_us} as one lane per rank and stream, time on x, kinds as
 * distinct characters (and colours), an overlap lane per rank that marks
 * where communication runs under compute; zoom and scroll. A step that runs
 * more than once (lab 4: 4 ranks, then 1 rank as the reference) shows each
 * run under its own heading and from its own start: its spans' `run`. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "chart.h"
#include "shell_strings.h"
#include "pane.h"

#define MAX_SPANS 200000
#define MAX_TRACKS 128
#define MAX_LANE 512
#define MAX_RUNS 16

enum span_kind { K_KERNEL, K_COPY, K_COLL, K_WAIT, K_OTHER, K_COUNT };
static const char KIND_CH[K_COUNT] = {'#', '=', '%', '.', '+'};
static const char *const KIND_NAME[K_COUNT] = {"kernel", "copy", "collective", "wait", "other"};
static const chart_tone KIND_TONE[K_COUNT] = {CHART_PLAIN, CHART_INFO, CHART_ACCENT, CHART_WARN, CHART_GOOD};

typedef struct span {
    int track;
    int kind;
    double start, end;       /* us */
    char name[24];
} span;

typedef struct track {
    int run;                 /* index into runs[] */
    int rank;
    char stream[24];
} track;

/* One run of the step (a lab.spmd call): its spans' times are its own clock's. */
typedef struct run_info {
    int id;                  /* the span's `run` (0: none given) */
    char label[96];          /* "spans.lua, 2 ranks" */
    double tmin, tmax;
    int seen;
} run_info;

typedef struct timeline_pane {
    int color;
    span *spans;
    int nspans, cap, dropped;
    track tracks[MAX_TRACKS];
    int ntracks;
    run_info runs[MAX_RUNS];
    int nruns;
    int fit;                 /* follow: show everything */
    double t0, us_per_col;   /* the view when not fitting; t0 from each run's start */
    int lane_w, rows_page, sy, content_h;
    int dirty;
} timeline_pane;

static void *tl_create(const pane_context *ctx)
{
    timeline_pane *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->color = ctx && ctx->color;
    if (p->color) chart_colors_init();
    p->fit = 1;
    p->dirty = 1;
    return p;
}

static void tl_destroy(void *self)
{
    timeline_pane *p = self;
    if (!p) return;
    free(p->spans);
    free(p);
}

static int kind_of(const char *k)
{
    for (int i = 0; k && i < K_OTHER; i++)
        if (!strcmp(k, KIND_NAME[i])) return i;
    return K_OTHER;
}

/* The run a span belongs to (runs in the order they first appear), or -1. */
static int run_of(timeline_pane *p, json_t *js)
{
    int id = (int)json_integer_value(json_object_get(js, "run"));
    for (int i = 0; i < p->nruns; i++)
        if (p->runs[i].id == id) return i;
    if (p->nruns == MAX_RUNS) return -1;
    run_info *r = &p->runs[p->nruns];
    memset(r, 0, sizeof *r);
    r->id = id;
    const char *label = json_string_value(json_object_get(js, "run_label"));
    snprintf(r->label, sizeof r->label, "%s", label ? label : "");
    return p->nruns++;
}

static int track_of(timeline_pane *p, int run, int rank, const char *stream)
{
    for (int i = 0; i < p->ntracks; i++)
        if (p->tracks[i].run == run && p->tracks[i].rank == rank && !strcmp(p->tracks[i].stream, stream)) return i;
    if (p->ntracks == MAX_TRACKS) return -1;
    /* lanes sorted by run, then rank; streams of a rank in the order they appear */
    int at = p->ntracks;
    while (at > 0 && (p->tracks[at - 1].run > run || (p->tracks[at - 1].run == run && p->tracks[at - 1].rank > rank)))
        at--;
    memmove(&p->tracks[at + 1], &p->tracks[at], (size_t)(p->ntracks - at) * sizeof p->tracks[0]);
    for (int i = 0; i < p->nspans; i++)
        if (p->spans[i].track >= at) p->spans[i].track++;
    p->ntracks++;
    p->tracks[at].run = run;
    p->tracks[at].rank = rank;
    snprintf(p->tracks[at].stream, sizeof p->tracks[at].stream, "%s", stream);
    return at;
}

static void tl_on_span(void *self, json_t *js)
{
    timeline_pane *p = self;
    json_t *st = json_object_get(js, "stream");
    double s = json_number_value(json_object_get(js, "start_us")), e = json_number_value(json_object_get(js, "end_us"));
    if (!json_is_object(js) || !(e >= s)) return;
    if (p->nspans == MAX_SPANS) {
        p->dropped++;
        return;
    }
    char stream[24];
    if (json_is_string(st)) snprintf(stream, sizeof stream, "%s", json_string_value(st));
    else snprintf(stream, sizeof stream, "s%lld", (long long)json_integer_value(st));
    int run = run_of(p, js);
    int t = run < 0 ? -1 : track_of(p, run, (int)json_integer_value(json_object_get(js, "rank")), stream);
    if (t < 0) {
        p->dropped++;
        return;
    }
    if (p->nspans == p->cap) {
        int cap = p->cap ? p->cap * 2 : 1024;
        span *n = realloc(p->spans, (size_t)cap * sizeof *n);
        if (!n) return;
        p->spans = n;
        p->cap = cap;
    }
    span *sp = &p->spans[p->nspans++];
    sp->track = t;
    sp->kind = kind_of(json_string_value(json_object_get(js, "kind")));
    sp->start = s;
    sp->end = e;
    snprintf(sp->name, sizeof sp->name, "%s", json_string_value(json_object_get(js, "name")) ? json_string_value(json_object_get(js, "name")) : "");
    run_info *r = &p->runs[run];
    if (!r->seen || s < r->tmin) r->tmin = s;
    if (!r->seen || e > r->tmax) r->tmax = e;
    r->seen = 1;
    p->dirty = 1;
}

static void tl_on_step_start(void *self)
{
    timeline_pane *p = self;
    p->nspans = p->ntracks = p->dropped = p->nruns = 0;
    p->fit = 1;
    p->sy = 0;
    p->dirty = 1;
}

/* "1.25 ms" / "830 us" / "2.1 s" */
static void fmt_time(double us, char *buf, size_t len)
{
    if (fabs(us) >= 1e6) snprintf(buf, len, "%.3g s", us / 1e6);
    else if (fabs(us) >= 1e3) snprintf(buf, len, "%.4g ms", us / 1e3);
    else snprintf(buf, len, "%.4g us", us);
}

/* Columns [c0, c1] a time interval covers in the view (s, e from the
 * start of their run). */
static int columns(const timeline_pane *p, double s, double e, int *c0, int *c1)
{
    double a = (s - p->t0) / p->us_per_col, b = (e - p->t0) / p->us_per_col;
    if (b < 0 || a >= p->lane_w) return 0;
    *c0 = a < 0 ? 0 : (int)a;
    *c1 = b >= p->lane_w ? p->lane_w - 1 : (int)b;
    if (*c1 < *c0) *c1 = *c0;
    return 1;
}

/* One lane: which kind covers each column (later spans over earlier). */
static void fill_lane(const timeline_pane *p, int track, signed char *kind, char *text)
{
    memset(kind, -1, (size_t)p->lane_w);
    memset(text, ' ', (size_t)p->lane_w);
    double origin = p->runs[p->tracks[track].run].tmin;
    for (int i = 0; i < p->nspans; i++) {
        const span *s = &p->spans[i];
        int c0, c1;
        if (s->track != track || !columns(p, s->start - origin, s->end - origin, &c0, &c1)) continue;
        for (int c = c0; c <= c1; c++) kind[c] = (signed char)s->kind, text[c] = KIND_CH[s->kind];
        int n = (int)strlen(s->name), ascii = 1;
        /* the lane is one byte a column: a name in Hangul (a tensor or a
         * span named by the learner) would put half characters in it, so
         * only an ASCII name labels its block */
        for (int k = 0; k < n; k++) ascii &= (unsigned char)s->name[k] >= 0x20 && (unsigned char)s->name[k] < 0x7f;
        if (ascii && c1 - c0 + 1 >= n + 2) memcpy(text + c0 + 1, s->name, (size_t)n); /* room: label the block */
    }
}

static void draw_lane(timeline_pane *p, WINDOW *win, int row, int x, const signed char *kind, const char *text)
{
    for (int c = 0; c < p->lane_w;) {
        int e = c;
        while (e < p->lane_w && kind[e] == kind[c]) e++;
        char seg[MAX_LANE + 1];
        memcpy(seg, text + c, (size_t)(e - c));
        seg[e - c] = 0;
        attr_t a = kind[c] >= 0 ? chart_tone_attr(p->color, KIND_TONE[kind[c]]) : 0;
        chart_text(win, row, x + c, e - c, a, seg);
        c = e;
    }
}

static void tl_draw(void *self, WINDOW *win, int focused)
{
    timeline_pane *p = self;
    int h = getmaxy(win), w = getmaxx(win);
    (void)focused;
    p->dirty = 0;
    if (!p->nspans) {
        chart_text_wrapped(win, 0, 0, 0, tr("nothing yet: run a step that records a timeline (streams, events, DDP overlap)"));
        return;
    }
    int label_w = w >= 40 ? 14 : 9;
    p->lane_w = w - label_w;
    if (p->lane_w > MAX_LANE) p->lane_w = MAX_LANE;
    if (p->lane_w < 4) {
        chart_text(win, 0, 0, 0, 0, tr("(too narrow for a timeline)"));
        return;
    }
    if (p->fit) { /* from the start, as long as the longest run */
        double longest = 0;
        for (int r = 0; r < p->nruns; r++)
            if (p->runs[r].tmax - p->runs[r].tmin > longest) longest = p->runs[r].tmax - p->runs[r].tmin;
        p->t0 = 0;
        p->us_per_col = longest / p->lane_w;
        if (!(p->us_per_col > 0)) p->us_per_col = 1e-3;
    }
    /* legend, then the range */
    int x = 0;
    for (int k = 0; k < K_COUNT; k++) {
        char item[32];
        snprintf(item, sizeof item, "%c %s  ", KIND_CH[k], KIND_NAME[k]);
        x += chart_text(win, 0, x, 0, chart_tone_attr(p->color, KIND_TONE[k]), item);
    }
    chart_text(win, 0, x, 0, 0, "^ overlap");
    char a[32], b[32], c[32];
    fmt_time(p->t0, a, sizeof a);
    fmt_time(p->t0 + p->us_per_col * p->lane_w, b, sizeof b);
    fmt_time(p->us_per_col, c, sizeof c);
    int top = 1;
    if (h >= 5) {
        chart_textf(win, 1, 0, 0, A_DIM, "%s .. %s  (%s/col)%s  i/o zoom  Left/Right scroll  f fit%s", a, b, c, p->fit ? " fit" : "",
                    p->dropped ? "  (spans dropped)" : "");
        top = 2;
    }
    signed char kind[MAX_LANE], other[MAX_LANE];
    char text[MAX_LANE + 1], otext[MAX_LANE + 1];
    chart_view v = {win, top, h, p->sy, 0, 0};
    for (int t = 0; t < p->ntracks; t++) {
        const track *tr = &p->tracks[t];
        /* runs apart: a heading before each run's lanes */
        if (p->nruns > 1 && (t == 0 || p->tracks[t - 1].run != tr->run)) {
            const run_info *ru = &p->runs[tr->run];
            int hr = chart_view_row(&v);
            if (hr >= 0)
                chart_textf(win, hr, 0, w, A_BOLD, "run %d: %s", ru->id ? ru->id : tr->run + 1,
                            ru->label[0] ? ru->label : "(no label)");
            chart_view_nl(&v);
        }
        int row = chart_view_row(&v);
        if (row >= 0) {
            chart_textf(win, row, 0, label_w - 1, A_BOLD, "r%d %s", tr->rank, tr->stream);
            fill_lane(p, t, kind, text);
            draw_lane(p, win, row, label_w, kind, text);
        }
        chart_view_nl(&v);
        /* the last lane of a rank with more than one: where comm runs under compute */
        if (t + 1 < p->ntracks && p->tracks[t + 1].rank == tr->rank && p->tracks[t + 1].run == tr->run) continue;
        int first = t;
        while (first > 0 && p->tracks[first - 1].rank == tr->rank && p->tracks[first - 1].run == tr->run) first--;
        if (first == t) continue;
        row = chart_view_row(&v);
        if (row >= 0) {
            char comp[MAX_LANE] = {0}, comm[MAX_LANE] = {0}, line[MAX_LANE + 1];
            for (int u = first; u <= t; u++) {
                fill_lane(p, u, other, otext);
                for (int col = 0; col < p->lane_w; col++) {
                    if (other[col] == K_KERNEL) comp[col] = 1;
                    if (other[col] == K_COLL || other[col] == K_COPY) comm[col] = 1;
                }
            }
            int ncomm = 0, nover = 0;
            for (int col = 0; col < p->lane_w; col++) {
                ncomm += comm[col];
                nover += comm[col] && comp[col];
                line[col] = comm[col] && comp[col] ? '^' : ' ';
            }
            line[p->lane_w] = 0;
            if (ncomm) chart_textf(win, row, 0, label_w - 1, A_DIM, "r%d %d%%ovl", tr->rank, 100 * nover / ncomm);
            else chart_textf(win, row, 0, label_w - 1, A_DIM, "r%d no comm", tr->rank);
            chart_text(win, row, label_w, p->lane_w, chart_tone_attr(p->color, CHART_GOOD), line);
        }
        chart_view_nl(&v);
    }
    p->content_h = v.line;
    p->rows_page = h - top;
}

static void zoom(timeline_pane *p, double factor)
{
    double mid = p->t0 + p->us_per_col * p->lane_w / 2;
    p->us_per_col *= factor;
    if (p->us_per_col < 1e-3) p->us_per_col = 1e-3;
    p->t0 = mid - p->us_per_col * p->lane_w / 2;
}

/* Up/Down, PgUp/PgDn, Home/End over the lanes, as every pane's view
 * scrolls (sideways is time: '<' and '>'). */
static int scroll_lanes(timeline_pane *p, int ch)
{
    int sx = 0;
    return chart_view_scroll_key(ch, &p->sy, &sx, p->content_h, p->rows_page, 0);
}

static int tl_key(void *self, int ch)
{
    timeline_pane *p = self;
    if (p->lane_w <= 0) return 0;
    switch (ch) {
    /* + and - size the pane everywhere: zoom has letters of its own */
    case 'i': p->fit = 0; zoom(p, 0.5); break;
    case 'o': p->fit = 0; zoom(p, 2.0); break;
    case '<': case KEY_LEFT: p->fit = 0; p->t0 -= p->us_per_col * p->lane_w / 4; break;
    case '>': case KEY_RIGHT: p->fit = 0; p->t0 += p->us_per_col * p->lane_w / 4; break;
    case 'f': case '0': p->fit = 1; break;
    default:
        if (!scroll_lanes(p, ch)) return 0;
    }
    p->dirty = 1;
    return 1;
}

static int tl_dirty(void *self)
{
    return ((timeline_pane *)self)->dirty;
}

const pane_class pane_timeline = {
    .name = "timeline",
    .title = "Timeline",
    .hotkey = '4',
    .create = tl_create,
    .destroy = tl_destroy,
    .on_span = tl_on_span,
    .on_step_start = tl_on_step_start,
    .draw = tl_draw,
    .key = tl_key,
    .dirty = tl_dirty,
};
