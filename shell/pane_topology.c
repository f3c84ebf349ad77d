/* pane_topology.c - the topology pane: the `nvidia-smi topo -m` matrix of a
 * "topo" document (GPU/NIC rows, CPU and NUMA affinity, legend, peer access)
 * or, with 'g', the drawn graph (topo_graph.c); scrolls when it does not fit. */
#include <stdlib.h>
#include <string.h>
#include "chart.h"
#include "shell_strings.h"
#include "pane.h"
#include "topo_graph.h"

typedef struct topo_pane {
    int color;
    json_t *doc;
    topo_graph *graph;
    int show_graph;
    int sy, sx;                  /* scroll */
    int content_h, content_w;    /* from the last draw: scroll limits */
    int page;                    /* rows of the last draw */
    int dirty;
} topo_pane;

static const char *str_or(const char *s, const char *dflt)
{
    return s ? s : dflt;
}

static void *topo_create(const pane_context *ctx)
{
    topo_pane *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->color = ctx && ctx->color;
    if (p->color) chart_colors_init();
    p->dirty = 1;
    return p;
}

static void topo_destroy(void *self)
{
    topo_pane *p = self;
    if (!p) return;
    json_decref(p->doc);
    topo_graph_free(p->graph);
    free(p);
}

static void topo_on_result(void *self, const char *kind, json_t *doc)
{
    topo_pane *p = self;
    if (strcmp(kind, "topo") || !json_is_object(doc)) return;
    json_decref(p->doc);
    p->doc = json_incref(doc);
    topo_graph_free(p->graph);
    p->graph = topo_graph_build(doc);
    p->sy = p->sx = 0;
    p->dirty = 1;
}

static chart_tone path_tone(const char *t)
{
    if (!strncmp(t, "NV", 2)) return CHART_GOOD;
    if (!strcmp(t, "PIX") || !strcmp(t, "PXB")) return CHART_INFO;
    if (!strcmp(t, "PHB") || !strcmp(t, "NODE")) return CHART_WARN;
    if (!strcmp(t, "SYS") || !strcmp(t, "NET")) return CHART_BAD;
    return CHART_NTONES;
}

/* The matrix itself: a row and a column per GPU and NIC, the path type in
 * each cell (NVLink stands out), then each GPU's CPU and NUMA affinity. */
static void draw_matrix(topo_pane *p, chart_view *v)
{
    json_t *m = json_object_get(p->doc, "matrix"), *labels = json_object_get(m, "labels");
    json_t *rows = json_object_get(m, "rows"), *gpus = json_object_get(p->doc, "gpus");
    int n = (int)json_array_size(labels), ngpus = (int)json_array_size(gpus);
    int lw = 6, cw = 5;
    for (int i = 0; i < n; i++) {
        int l = (int)strlen(str_or(json_string_value(json_array_get(labels, (size_t)i)), ""));
        if (l + 1 > lw) lw = l + 1;
        if (l + 1 > cw) cw = l + 1;
    }
    int cpu_col = lw + n * cw + 1, cpu_w = 14;
    for (int g = 0; g < ngpus; g++) {
        int l = (int)strlen(str_or(json_string_value(json_object_get(json_array_get(gpus, (size_t)g), "cpulist")), ""));
        if (l + 2 > cpu_w) cpu_w = l + 2;
    }
    for (int i = 0; i < n; i++)
        chart_view_put(v, lw + i * cw, A_BOLD, json_string_value(json_array_get(labels, (size_t)i)));
    chart_view_put(v, cpu_col, A_BOLD, "CPU Affinity");
    chart_view_put(v, cpu_col + cpu_w, A_BOLD, "NUMA Affinity");
    chart_view_nl(v);
    for (int r = 0; r < n; r++, chart_view_nl(v)) {
        if (chart_view_row(v) < 0) continue;
        json_t *row = json_array_get(rows, (size_t)r);
        chart_view_put(v, 0, A_BOLD, json_string_value(json_array_get(labels, (size_t)r)));
        for (int c = 0; c < n; c++) {
            const char *t = str_or(json_string_value(json_array_get(row, (size_t)c)), "?");
            chart_tone tone = path_tone(t);
            attr_t a = tone == CHART_NTONES ? 0 : chart_tone_attr(p->color, tone);
            if (!p->color && tone != CHART_GOOD) a = 0; /* monochrome: only NVLink stands out */
            chart_view_put(v, lw + c * cw, a, !strcmp(t, "X") ? " X" : t);
        }
        if (r < ngpus) {
            json_t *g = json_array_get(gpus, (size_t)r);
            const char *cpus = json_string_value(json_object_get(g, "cpulist"));
            json_t *numa = json_object_get(g, "numa");
            chart_view_put(v, cpu_col, 0, cpus && *cpus ? cpus : "N/A");
            if (json_is_integer(numa) && json_integer_value(numa) >= 0)
                chart_view_putf(v, cpu_col + cpu_w, 0, "%lld", (long long)json_integer_value(numa));
            else chart_view_put(v, cpu_col + cpu_w, 0, "N/A");
        }
    }
    p->content_w = cpu_col + cpu_w + 14;
}

/* What the cells mean, as nvidia-smi says it, and the NICs named. */
static void draw_legend(const topo_pane *p, chart_view *v)
{
    json_t *nics = json_object_get(p->doc, "nics");
    chart_view_nl(v);
    static const char *const legend[] = {
        "Legend:",
        "  X    = Self",
        "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)",
        "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node",
        "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)",
        "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)",
        "  PIX  = Connection traversing at most a single PCIe bridge",
        "  NV#  = Connection traversing a bonded set of # NVLinks",
        "  NET  = Connection between hosts through the network",
    };
    for (size_t i = 0; i < sizeof legend / sizeof legend[0]; i++, chart_view_nl(v))
        chart_view_put(v, 0, i ? 0 : A_BOLD, legend[i]);
    if (json_array_size(nics)) {
        chart_view_nl(v);
        chart_view_put(v, 0, A_BOLD, "NIC Legend:");
        chart_view_nl(v);
        for (size_t i = 0; i < json_array_size(nics); i++, chart_view_nl(v)) {
            json_t *nic = json_array_get(nics, i);
            chart_view_putf(v, 0, 0, "  NIC%zu: %s  %.0f Gb/s  port %lld  NUMA %lld  GPUDirect RDMA %s", i,
                            str_or(json_string_value(json_object_get(nic, "name")), "?"),
                            json_number_value(json_object_get(nic, "speed_gbps")),
                            (long long)json_integer_value(json_object_get(nic, "port")),
                            (long long)json_integer_value(json_object_get(nic, "numa")),
                            json_is_true(json_object_get(nic, "gdr")) ? "yes" : "no");
        }
    }
}

/* Peer access: the pairs that cannot, since "all yes" is the common case. */
static void draw_peer_access(const topo_pane *p, chart_view *v)
{
    json_t *pa = json_object_get(p->doc, "peer_access");
    if (json_array_size(pa)) {
        char buf[400];
        int len = 0, no = 0, unknown = 0;
        for (size_t a = 0; a < json_array_size(pa); a++)
            for (size_t b = 0; b < json_array_size(json_array_get(pa, a)); b++) {
                json_t *x = json_array_get(json_array_get(pa, a), b);
                if (a == b) continue;
                if (json_is_false(x)) {
                    no++;
                    if (len < (int)sizeof buf - 24)
                        len += snprintf(buf + len, sizeof buf - (size_t)len, "%sGPU%zu->GPU%zu", no > 1 ? ", " : "", a, b);
                } else if (!json_is_true(x)) unknown++;
            }
        chart_view_nl(v);
        if (!no && !unknown) chart_view_put(v, 0, 0, "Peer access (cudaDeviceCanAccessPeer): every GPU pair");
        else if (no) {
            chart_view_putf(v, 0, 0, "Peer access: NO for %d pair%s: ", no, no == 1 ? "" : "s");
            chart_view_nl(v);
            chart_view_put(v, 2, chart_tone_attr(p->color, CHART_BAD), buf);
        } else chart_view_putf(v, 0, 0, "Peer access: unknown for %d pairs", unknown);
        chart_view_nl(v);
    }
}

/* What the machine's description adds ("note: ..."), in the warning tone. */
static void draw_notes(const topo_pane *p, chart_view *v)
{
    json_t *notes = json_object_get(p->doc, "notes");
    for (size_t i = 0; i < json_array_size(notes); i++, chart_view_nl(v))
        chart_view_putf(v, 0, chart_tone_attr(p->color, CHART_WARN), "note: %s",
                        str_or(json_string_value(json_array_get(notes, i)), ""));
}

static void topo_draw(void *self, WINDOW *win, int focused)
{
    topo_pane *p = self;
    int h = getmaxy(win), w = getmaxx(win);
    p->dirty = 0;
    if (!p->doc) {
        chart_text_wrapped(win, 0, 0, 0, tr("nothing yet: run a step that reads the topology (lab 1) to see the matrix"));
        return;
    }
    /* which machine, in a few words (the top bar has the backend's line,
     * said once): a lab may have run on a machine of its own */
    const char *machine = str_or(json_string_value(json_object_get(p->doc, "machine")), "?");
    int sim = json_is_true(json_object_get(p->doc, "simulated"));
    char head[160];
    snprintf(head, sizeof head, "%s %s ", sim ? "SIMULATED" : "machine", machine);
    int x = chart_text(win, 0, 0, 0, A_BOLD, head);
    chart_textf(win, 0, x + 1, 0, A_DIM, tr("%s  [g] %s  arrows/PgUp/PgDn scroll%s"), p->show_graph ? "graph" : "matrix",
                p->show_graph ? "matrix" : "graph", focused ? "" : tr("  (focus the pane to scroll)"));
    int top = 1;
    chart_view v = {win, top, h, p->sy, p->sx, 0};
    if (p->show_graph && p->graph) {
        topo_graph_draw(p->graph, &v, p->color);
        p->content_w = topo_graph_width(p->graph);
    } else if (p->show_graph) {
        chart_view_put(&v, 0, 0, "(no GPUs in this topology: nothing to draw)");
        chart_view_nl(&v);
    } else {
        draw_matrix(p, &v);
        draw_legend(p, &v);
        draw_peer_access(p, &v);
        draw_notes(p, &v);
    }
    p->content_h = v.line;
    p->page = h - top;
    /* say there is more, in the corner the content leaves free */
    if (p->content_h - p->sy > p->page && w > 10) chart_text(win, h - 1, w - 8, 7, A_REVERSE, " more v ");
}

static int topo_key(void *self, int ch)
{
    topo_pane *p = self;
    if (ch == 'g') p->show_graph = !p->show_graph, p->sy = p->sx = 0;
    else if (!chart_view_scroll_key(ch, &p->sy, &p->sx, p->content_h, p->page, p->content_w - 20)) return 0;
    p->dirty = 1;
    return 1;
}

static int topo_dirty(void *self)
{
    return ((topo_pane *)self)->dirty;
}

const pane_class pane_topology = {
    .name = "topology",
    .title = "Topology",
    .hotkey = '1',
    .create = topo_create,
    .destroy = topo_destroy,
    .on_result = topo_on_result,
    .draw = topo_draw,
    .key = topo_key,
    .dirty = topo_dirty,
};
