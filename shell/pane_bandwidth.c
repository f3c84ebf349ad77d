/* pane_bandwidth.c - the bandwidth pane: per GPU, NVLink and PCIe TX/RX as
 * sparklines over the last HIST telemetry samples with the current GB/s -
 * and on a machine of several nodes the GPU's share of the network through
 * its NIC, on a row named as the topology names that NIC - and the source
 * of the numbers (NVML, modelled on sim, or none and why). */
#include <stdlib.h>
#include <string.h>
#include "chart.h"
#include "shell_strings.h"
#include "pane.h"

#define HIST 60          /* samples kept: ~6 s at 10 Hz */
#define RECENT 50        /* the number shown: the highest of the last ~5 s; the
                          * sim's modelled load comes in bursts between the real
                          * copies and checks of a sweep, seconds apart */
#define MAX_GPUS 64

enum { NV_TX, NV_RX, PCIE_TX, PCIE_RX, NET_TX, NET_RX, NSERIES };
enum { ROW_NVLINK, ROW_PCIE, ROW_NET, NROWS };

typedef struct gpu_hist {
    int gpu;
    int has_nvlink, has_pcie, has_net;
    int nic;                  /* its node's NIC it reaches other nodes through (has_net) */
    double v[NSERIES][HIST];  /* bytes/s, oldest first */
} gpu_hist;

typedef struct bw_pane {
    int color;
    char source[160];
    int ngpus;
    int nsamples;             /* samples taken (saturates at HIST) */
    int quiet;                /* consecutive all-zero samples */
    gpu_hist gpus[MAX_GPUS];
    int sy, content_h, page;
    int dirty;
} bw_pane;

static void *bw_create(const pane_context *ctx)
{
    bw_pane *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->color = ctx && ctx->color;
    if (p->color) chart_colors_init();
    p->dirty = 1;
    return p;
}

static void bw_destroy(void *self)
{
    free(self);
}

static void bw_on_telemetry(void *self, const mgpu_link_sample *s, int n, const char *source)
{
    bw_pane *p = self;
    if (n > MAX_GPUS) n = MAX_GPUS;
    if (n < 0) n = 0;
    if (source && strcmp(source, p->source)) {
        snprintf(p->source, sizeof p->source, "%s", source);
        p->dirty = 1;
    }
    if (n != p->ngpus) { /* another machine: start over */
        memset(p->gpus, 0, sizeof p->gpus);
        p->ngpus = n;
        p->nsamples = 0;
        p->dirty = 1;
    }
    int any = 0;
    for (int i = 0; i < n; i++) {
        gpu_hist *g = &p->gpus[i];
        double now[NSERIES] = {s[i].nvlink_tx, s[i].nvlink_rx, s[i].pcie_tx, s[i].pcie_rx, s[i].net_tx, s[i].net_rx};
        g->gpu = s[i].gpu;
        g->has_nvlink = s[i].has_nvlink;
        g->has_pcie = s[i].has_pcie;
        g->has_net = s[i].has_net;
        g->nic = s[i].nic;
        for (int k = 0; k < NSERIES; k++) {
            memmove(&g->v[k][0], &g->v[k][1], (HIST - 1) * sizeof g->v[k][0]);
            g->v[k][HIST - 1] = now[k] > 0 ? now[k] : 0;
            any |= now[k] > 0;
        }
    }
    if (p->nsamples < HIST) p->nsamples++;
    /* an idle machine sends zeros: once the lines are flat, nothing changes */
    p->quiet = any ? 0 : p->quiet + 1;
    if (p->quiet <= HIST) p->dirty = 1;
}

static void bw_on_step_start(void *self)
{
    (void)self; /* live numbers: the history just rolls on */
}

/* The highest of the last RECENT of the n samples (oldest first, ending at HIST). */
static double recent_max(const double *v, int n)
{
    int k = n < RECENT ? n : RECENT;
    double m = 0;
    for (int i = HIST - k; i < HIST; i++)
        if (v[i] > m) m = v[i];
    return m;
}

/* "123.4" GB/s, or "  -  " for a number the source does not give */
static void gbs(char *buf, size_t len, double bps, int has)
{
    if (!has) snprintf(buf, len, "%7s", "n/a");
    else snprintf(buf, len, "%7.1f", bps / 1e9);
}

static void bw_draw(void *self, WINDOW *win, int focused)
{
    bw_pane *p = self;
    int h = getmaxy(win), w = getmaxx(win);
    (void)focused;
    p->dirty = 0;
    if (!strncmp(p->source, "none", 4)) {
        chart_textf(win, 0, 0, 0, A_BOLD, "source: %s", p->source);
        chart_text_wrapped(win, 1, 0, 0, tr("No live link counters here: the numbers need NVML (the NVIDIA driver) "
                                            "or the sim backend's modelled load. Results and timeline still work."));
        return;
    }
    if (!p->ngpus || !p->nsamples) {
        int n = chart_text_wrapped(win, 0, 0, 0, tr("nothing yet: run a step that moves data (a bench or a copy) to see "
                                                    "NVLink/PCIe traffic"));
        if (p->source[0]) chart_textf(win, n, 0, 0, A_DIM, "source: %s", p->source);
        return;
    }
    /* one scale per link kind over everything on screen, at least 1 GB/s */
    double max[NROWS] = {1e9, 1e9, 1e9};
    int any_net = 0;
    for (int i = 0; i < p->ngpus; i++) {
        const gpu_hist *g = &p->gpus[i];
        any_net |= g->has_net;
        for (int t = 0; t < HIST; t++)
            for (int k = 0; k < NSERIES; k++)
                if (g->v[k][t] > max[k / 2]) max[k / 2] = g->v[k][t];
    }
    chart_textf(win, 0, 0, 0, A_BOLD, "source: %s", p->source[0] ? p->source : "?");
    int top = 1;
    if (h >= 5) {
        char net[64] = "";
        if (any_net) snprintf(net, sizeof net, " / NIC %.0f", max[ROW_NET] / 1e9);
        chart_textf(win, 1, 0, 0, A_DIM, tr("GB/s: highest of the last 5 s; lines: last %d samples, full = NVLink %.0f / "
                       "PCIe %.0f%s GB/s"), HIST, max[ROW_NVLINK] / 1e9, max[ROW_PCIE] / 1e9, net);
        top = 2;
    }
    /* between nodes a GPU's traffic leaves through its NIC (and crosses its
     * PCIe link on the way): that share on a row named for the NIC, as the
     * topology numbers a node's NICs */
    if (any_net && h >= 6) {
        chart_text(win, top, 0, 0, A_DIM, tr("NICn: the GPU's share of the traffic between nodes, through its node's NICn "
                                             "(also in its PCIe)"));
        top++;
    }
    /* "GPU0  NVLink TX <spark> 123.4  RX <spark> 120.0" */
    int label_w = 16, val_w = 8;
    int spark = (w - label_w - 2 * val_w - 5) / 2;
    if (spark > HIST) spark = HIST;
    chart_view v = {win, top, h, p->sy, 0, 0};
    attr_t attrs[NROWS] = {chart_tone_attr(p->color, CHART_GOOD), chart_tone_attr(p->color, CHART_INFO),
                           chart_tone_attr(p->color, CHART_ACCENT)};
    for (int i = 0; i < p->ngpus; i++) {
        const gpu_hist *g = &p->gpus[i];
        for (int kind = 0; kind < NROWS; kind++) {
            if (kind == ROW_NET && !g->has_net) continue;
            int has = kind == ROW_NVLINK ? g->has_nvlink : kind == ROW_PCIE ? g->has_pcie : g->has_net;
            int tx = 2 * kind, rx = tx + 1;
            double full = max[kind];
            attr_t a = attrs[kind];
            char tv[16], rv[16], name[16];
            gbs(tv, sizeof tv, recent_max(g->v[tx], p->nsamples), has);
            gbs(rv, sizeof rv, recent_max(g->v[rx], p->nsamples), has);
            if (kind == ROW_NVLINK) chart_view_putf(&v, 0, A_BOLD, "GPU%d", g->gpu);
            if (kind == ROW_NET) snprintf(name, sizeof name, "NIC%d", g->nic);
            else snprintf(name, sizeof name, "%s", kind == ROW_PCIE ? "PCIe" : "NVLink");
            chart_view_put(&v, 6, a, name);
            if (spark < 4) { /* narrow: numbers only */
                chart_view_putf(&v, 13, 0, "tx%s rx%s", tv, rv);
                chart_view_nl(&v);
                continue;
            }
            int col = label_w;
            chart_view_put(&v, col - 3, 0, "TX");
            int r = chart_view_row(&v);
            int n = p->nsamples;
            if (r >= 0 && has) chart_sparkline(win, r, col, spark, &g->v[tx][HIST - n], n, full, a);
            else if (r >= 0) chart_text(win, r, col, spark, A_DIM, tr("(not reported)"));
            chart_view_put(&v, col + spark, 0, tv);
            col += spark + val_w + 4;
            chart_view_put(&v, col - 3, 0, "RX");
            if (r >= 0 && has) chart_sparkline(win, r, col, spark, &g->v[rx][HIST - n], n, full, a);
            chart_view_put(&v, col + spark, 0, rv);
            chart_view_nl(&v);
        }
    }
    p->content_h = v.line;
    p->page = h - top;
}

static int bw_key(void *self, int ch)
{
    bw_pane *p = self;
    int sx = 0; /* the rows fit the width: no sideways scroll */
    if (!chart_view_scroll_key(ch, &p->sy, &sx, p->content_h, p->page, 0)) return 0;
    p->dirty = 1;
    return 1;
}

static int bw_dirty(void *self)
{
    return ((bw_pane *)self)->dirty;
}

const pane_class pane_bandwidth = {
    .name = "bandwidth",
    .title = "Bandwidth",
    .hotkey = '2',
    .create = bw_create,
    .destroy = bw_destroy,
    .on_telemetry = bw_on_telemetry,
    .on_step_start = bw_on_step_start,
    .draw = bw_draw,
    .key = bw_key,
    .dirty = bw_dirty,
};
