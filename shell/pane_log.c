/* pane_log.c - the log pane: the run's log lines (rank-prefixed, newest at
 * the bottom, the last MAX_LINES kept, scrollable) under a summary of the
 * NCCL INFO lines among them (nccl_log.c): version, rings, trees, channels,
 * transport per peer, algorithm/protocol per size. */
#include <stdlib.h>
#include <string.h>
#include "chart.h"
#include "shell_strings.h"
#include "mgpu/nccl_log.h"
#include "pane.h"
#include "text.h"

#define MAX_LINES 4000
#define SUMMARY_MAX 24   /* summary lines built per frame at most */

typedef struct log_pane {
    int color;
    char *lines[MAX_LINES];  /* ring buffer */
    int head, count;         /* oldest at head */
    int sy;                  /* lines scrolled back from the newest (0 follows) */
    int page;
    int show_summary;
    mgpu_nccl_summary *nccl;
    int dirty;
} log_pane;

static void *log_create(const pane_context *ctx)
{
    log_pane *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->nccl = malloc(sizeof *p->nccl);
    if (!p->nccl) {
        free(p);
        return NULL;
    }
    mgpu_nccl_summary_init(p->nccl);
    p->color = ctx && ctx->color;
    if (p->color) chart_colors_init();
    p->show_summary = 1;
    p->dirty = 1;
    return p;
}

static void log_destroy(void *self)
{
    log_pane *p = self;
    if (!p) return;
    for (int i = 0; i < p->count; i++) free(p->lines[(p->head + i) % MAX_LINES]);
    free(p->nccl);
    free(p);
}

static void push_line(log_pane *p, char *s)
{
    if (!s) return;
    if (p->count == MAX_LINES) { /* drop the oldest */
        free(p->lines[p->head]);
        p->lines[p->head] = s;
        p->head = (p->head + 1) % MAX_LINES;
    } else p->lines[(p->head + p->count++) % MAX_LINES] = s;
    /* a reader scrolled back keeps looking at the same lines */
    if (p->sy > 0 && p->sy < p->count - 1) p->sy++;
    p->dirty = 1;
}

static void log_on_log(void *self, int rank, const char *line)
{
    log_pane *p = self;
    if (!line) return;
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) n--;
    char *s = malloc(n + 16);
    if (!s) return;
    if (rank >= 0) snprintf(s, n + 16, "[r%d] %.*s", rank, (int)n, line);
    else snprintf(s, n + 16, "[lab] %.*s", (int)n, line);
    mgpu_nccl_summary_feed(p->nccl, line);
    push_line(p, s);
}

/* An SPMD script's errors (a typo, a syntax error) with the script's path:
 * the rank's message names file:line, the traceback how it got there. */
static void log_on_result(void *self, const char *kind, json_t *doc)
{
    if (strcmp(kind, "spmd") != 0) return;
    const char *script = json_string_value(json_object_get(doc, "script"));
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(doc, "errors"), i, e) {
        int rank = (int)json_integer_value(json_object_get(e, "rank"));
        json_t *err = json_object_get(e, "error");
        const char *msg = json_string_value(json_object_get(err, "message"));
        const char *tb = json_string_value(json_object_get(err, "traceback"));
        char line[1200];
        snprintf(line, sizeof line, "error: %s", msg ? msg : "(no message)");
        log_on_log(self, rank, line);
        if (script) {
            snprintf(line, sizeof line, "  in %s", script);
            log_on_log(self, rank, line);
        }
        for (const char *p = tb ? tb : ""; *p;) {
            const char *nl = strchr(p, '\n');
            int n = nl ? (int)(nl - p) : (int)strlen(p);
            snprintf(line, sizeof line, "  %.*s", n, p);
            log_on_log(self, rank, line);
            p = nl ? nl + 1 : p + n;
        }
    }
}

static void log_on_step_start(void *self)
{
    log_pane *p = self;
    /* the summary describes one run's communicators; the lines stay, marked */
    mgpu_nccl_summary_init(p->nccl);
    if (p->count) push_line(p, strdup("---- step started ----"));
    p->sy = 0;
    p->dirty = 1;
}

/* The summary as lines into out[][], at most max; returns how many. */
static int summary_lines(const mgpu_nccl_summary *s, char out[][256], int max)
{
    int n = 0;
    if (!s->nccl_lines) {
        snprintf(out[n++], 256, "NCCL: no NCCL INFO lines in this run (the cuda backend prints them with NCCL_DEBUG=INFO)");
        return n;
    }
    int len = snprintf(out[n], 256, "NCCL %s", s->version[0] ? s->version : "(version not printed)");
    if (s->nranks) len += snprintf(out[n] + len, (size_t)(256 - len), "  %d ranks", s->nranks);
    if (s->nnodes) len += snprintf(out[n] + len, (size_t)(256 - len), " on %d node%s", s->nnodes, s->nnodes == 1 ? "" : "s");
    if (s->network[0]) len += snprintf(out[n] + len, (size_t)(256 - len), "  network %s", s->network);
    if (s->gdr >= 0) snprintf(out[n] + len, (size_t)(256 - len), "  GPUDirect RDMA %s", s->gdr ? "on" : "OFF");
    n++;
    if (n < max && (s->nchannels || s->coll_channels >= 0)) {
        len = snprintf(out[n], 256, "channels:");
        if (s->nchannels) len += snprintf(out[n] + len, (size_t)(256 - len), " %d ring", s->nchannels);
        if (s->coll_channels >= 0) len += snprintf(out[n] + len, (size_t)(256 - len), ", %d coll", s->coll_channels);
        if (s->p2p_channels >= 0) len += snprintf(out[n] + len, (size_t)(256 - len), ", %d p2p", s->p2p_channels);
        if (s->nvls_channels >= 0) len += snprintf(out[n] + len, (size_t)(256 - len), ", %d nvls", s->nvls_channels);
        if (s->collnet_channels >= 0) snprintf(out[n] + len, (size_t)(256 - len), ", %d collnet", s->collnet_channels);
        n++;
    }
    if (n < max && s->nlinks) {
        const char *names[16];
        int counts[16], k = mgpu_nccl_summary_transports(s, names, counts, 16);
        len = snprintf(out[n], 256, "transport:");
        for (int i = 0; i < k && len < 240; i++)
            len += snprintf(out[n] + len, (size_t)(256 - len), " %s x%d%s", names[i], counts[i], i + 1 < k ? "," : "");
        n++;
    }
    for (int r = 0; r < s->nrings && n < max; r++) {
        const mgpu_nccl_ring *ring = &s->rings[r];
        len = snprintf(out[n], 256, "ring %02d:", ring->channel);
        for (int i = 0; i < ring->nranks && len < 240; i++)
            len += snprintf(out[n] + len, (size_t)(256 - len), " %d", ring->order[i]);
        n++;
        if (r == 3 && s->nrings > 5 && n < max) { /* enough to see the pattern */
            snprintf(out[n++], 256, "... %d more rings", s->nrings - 4);
            break;
        }
    }
    for (int c = 0; c < s->ntree_channels && c < 2 && n < max; c++) {
        len = snprintf(out[n], 256, "tree %d (rank->parent):", c);
        for (int r = 0; r < MGPU_NCCL_LOG_MAX_RANKS && len < 240; r++)
            if (s->tree_up[c][r] != -2) len += snprintf(out[n] + len, (size_t)(256 - len), " %d->%d", r, s->tree_up[c][r]);
        n++;
    }
    if (n < max && s->nlinks) {
        len = snprintf(out[n], 256, "peers:");
        for (int i = 0; i < s->nlinks && len < 230; i++) {
            const mgpu_nccl_link *l = &s->links[i];
            len += snprintf(out[n] + len, (size_t)(256 - len), " %d->%d %s%s (%d ch)%s", l->from, l->to, l->transport,
                            l->gdr == 1 ? "/GDRDMA" : "", mgpu_nccl_link_channel_count(l), i + 1 < s->nlinks ? "," : "");
        }
        n++;
    }
    if (n < max && s->ntuning) {
        len = snprintf(out[n], 256, "algo/proto:");
        for (int i = 0; i < s->ntuning && len < 230; i++) {
            char sz[16];
            const mgpu_nccl_tuning *t = &s->tuning[i];
            len += snprintf(out[n] + len, (size_t)(256 - len), " %s%s%s %s/%s%s", t->coll, t->coll[0] ? " " : "",
                            chart_size((double)t->bytes, sz, sizeof sz), t->algo, t->proto, i + 1 < s->ntuning ? "," : "");
        }
        n++;
    }
    if (n < max && s->nwarn) snprintf(out[n++], 256, "NCCL WARN x%d: %s", s->nwarn, s->last_warn);
    return n;
}

static void log_draw(void *self, WINDOW *win, int focused)
{
    log_pane *p = self;
    int h = getmaxy(win), w = getmaxx(win);
    (void)focused;
    p->dirty = 0;
    if (!p->count) {
        chart_text_wrapped(win, 0, 0, 0, tr("nothing yet: run a step that runs ranks (a bench or an SPMD script) to see its log"));
        return;
    }
    int top = 0;
    if (p->show_summary && h >= 6) {
        char sum[SUMMARY_MAX][256];
        int room = h / 2 - 1, n = summary_lines(p->nccl, sum, room < SUMMARY_MAX ? room : SUMMARY_MAX);
        for (int i = 0; i < n; i++)
            chart_text(win, i, 0, 0, i ? 0 : A_BOLD, sum[i]);
        top = n;
        mvwhline(win, top, 0, ACS_HLINE, w);
        chart_text(win, top, 2, w - 4, A_DIM, tr(" log  [s] summary  arrows/PgUp/PgDn scroll  End follows "));
        top++;
    }
    p->page = h - top;
    int last = p->count - 1 - p->sy;
    /* newest at the bottom; a long line wraps (an error's file:line and
     * reason are at its end), continuation rows indented */
    for (int row = h - 1, i = last; row >= top && i >= 0; i--) {
        const char *s = p->lines[(p->head + i) % MAX_LINES];
        attr_t a = strstr(s, "WARN") || strstr(s, "error") || strstr(s, "ERROR") ? chart_tone_attr(p->color, CHART_BAD) : 0;
        if (!strncmp(s, "---- step started", 17)) a = A_DIM;
        enum { WRAP_MAX = 16 };
        const char *seg[WRAP_MAX];
        int len[WRAP_MAX], n = 0, ind = w > 20 ? 4 : 0;
        for (const char *q = s; *q && n < WRAP_MAX;) {
            int room = n ? w - 1 - ind : w - 1, rest = (int)strlen(q), k = text_fit(q, rest, room);
            if (k <= 0) k = text_char_len(q, rest); /* a whole character */
            for (int b = k; k < rest && b > k / 2; b--) /* break at a space in the row's second half */
                if (q[b] == ' ') {
                    k = b + 1;
                    break;
                }
            seg[n] = q;
            len[n++] = k;
            q += k;
        }
        for (int k = n - 1; k >= 0 && row >= top; k--, row--) {
            char buf[1024];
            snprintf(buf, sizeof buf, "%.*s", len[k], seg[k]);
            chart_text(win, row, k ? ind : 0, 0, a, buf);
        }
        if (n == 0) row--;
    }
    /* on the separator (or the top row): the reader is not following */
    if (p->sy > 0 && w > 24) chart_textf(win, top > 0 ? top - 1 : 0, w - 22, 21, A_REVERSE, " %d newer lines v ", p->sy);
}

static int log_key(void *self, int ch)
{
    log_pane *p = self;
    if (ch == 's') {
        p->show_summary = !p->show_summary;
    } else {
        /* sy counts lines up from the newest (0 follows the log): the
         * view's keys move the top line, counted from the oldest */
        int end = p->count - p->page, top = end - p->sy, sx = 0;
        if (!chart_view_scroll_key(ch, &top, &sx, p->count, p->page, 0)) return 0;
        p->sy = end - top;
        if (p->sy < 0) p->sy = 0;
    }
    p->dirty = 1;
    return 1;
}

static int log_dirty(void *self)
{
    return ((log_pane *)self)->dirty;
}

const pane_class pane_log = {
    .name = "log",
    .title = "Log",
    .hotkey = '5',
    .create = log_create,
    .destroy = log_destroy,
    .on_log = log_on_log,
    .on_result = log_on_result,
    .on_step_start = log_on_step_start,
    .draw = log_draw,
    .key = log_key,
    .dirty = log_dirty,
};
