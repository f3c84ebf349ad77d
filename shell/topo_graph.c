/* topo_graph.c - lay out a "topo" document as a tree (host > CPU/NUMA >
 * PCIe switch > GPU/NIC) plus an NVLink bar, inferred from the path matrix:
 * devices joined by PIX/PXB share a PCIe switch, NV# paths join the bar. */
#include "topo_graph.h"
#include <stdlib.h>
#include <string.h>

enum row_kind { ROW_HOST, ROW_CPU, ROW_SWITCH, ROW_GPU, ROW_NIC, ROW_NET };
enum bar_part { BAR_NONE, BAR_FIRST, BAR_MID, BAR_LAST, BAR_PASS };

typedef struct graph_row {
    int depth;
    unsigned cont;         /* bit l: the level-l ancestor has siblings below (draw a VLINE) */
    int last;              /* last child of its parent */
    int kind;
    int nv;                /* NV# of a GPU on the bar */
    int bar;
    char text[112];
} graph_row;

struct topo_graph {
    int nrows, cap;
    graph_row *rows;
    int bar_col;
    char bar_label[64];
};

static graph_row *add_row(topo_graph *g, int depth, unsigned cont, int last, int kind)
{
    if (g->nrows == g->cap) {
        int cap = g->cap ? g->cap * 2 : 64;
        graph_row *r = realloc(g->rows, (size_t)cap * sizeof *r);
        if (!r) return NULL;
        g->rows = r;
        g->cap = cap;
    }
    graph_row *r = &g->rows[g->nrows++];
    memset(r, 0, sizeof *r);
    r->depth = depth;
    r->cont = cont;
    r->last = last;
    r->kind = kind;
    return r;
}

static const char *cell(json_t *rows, int a, int b)
{
    const char *s = json_string_value(json_array_get(json_array_get(rows, (size_t)a), (size_t)b));
    return s ? s : "";
}

static int find(int *parent, int i)
{
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

static int numa_of(json_t *dev)
{
    json_t *n = json_object_get(dev, "numa");
    return json_is_integer(n) ? (int)json_integer_value(n) : -1;
}

static void device_text(graph_row *r, json_t *gpus, json_t *nics, int ngpus, int d)
{
    if (d < ngpus) {
        json_t *gp = json_array_get(gpus, (size_t)d);
        const char *name = json_string_value(json_object_get(gp, "name"));
        snprintf(r->text, sizeof r->text, "GPU%d %s", d, name && *name ? name : "(unknown)");
        r->kind = ROW_GPU;
    } else {
        json_t *n = json_array_get(nics, (size_t)(d - ngpus));
        const char *name = json_string_value(json_object_get(n, "name"));
        snprintf(r->text, sizeof r->text, "NIC%d %s %.0f Gb/s%s", d - ngpus, name ? name : "?",
                 json_number_value(json_object_get(n, "speed_gbps")),
                 json_is_true(json_object_get(n, "gdr")) ? " GDR" : "");
        r->kind = ROW_NIC;
    }
}

/* One host: its devices (matrix indices) grouped by NUMA node and switch. */
static int build_host(topo_graph *g, json_t *doc, int host, int *dev, int ndev, int *parent)
{
    json_t *gpus = json_object_get(doc, "gpus"), *nics = json_object_get(doc, "nics");
    json_t *rows = json_object_get(json_object_get(doc, "matrix"), "rows");
    int ngpus = (int)json_array_size(gpus);
    graph_row *r = add_row(g, 0, 0, 1, ROW_HOST);
    if (!r) return -1;
    int hosts = (int)json_integer_value(json_object_get(doc, "hosts"));
    if (hosts > 1) snprintf(r->text, sizeof r->text, "Host %d of %d", host, hosts);
    else snprintf(r->text, sizeof r->text, "Host %d", host);
    /* devices joined by at most PCIe bridges share a switch */
    for (int i = 0; i < ndev; i++) parent[i] = i;
    for (int i = 0; i < ndev; i++)
        for (int j = i + 1; j < ndev; j++) {
            const char *t = cell(rows, dev[i], dev[j]);
            if (!strcmp(t, "PIX") || !strcmp(t, "PXB")) parent[find(parent, j)] = find(parent, i);
        }
    int numas[64], nnuma = 0;
    for (int i = 0; i < ndev; i++) {
        int d = dev[i], n = numa_of(d < ngpus ? json_array_get(gpus, (size_t)d) : json_array_get(nics, (size_t)(d - ngpus)));
        int k = 0;
        while (k < nnuma && numas[k] != n) k++;
        if (k == nnuma && nnuma < 64) numas[nnuma++] = n;
    }
    for (int a = 0; a < nnuma; a++) /* NUMA nodes in order, unknown (-1) first */
        for (int b = a + 1; b < nnuma; b++)
            if (numas[b] < numas[a]) { int t = numas[a]; numas[a] = numas[b]; numas[b] = t; }
    int first_gpu_row = -1, last_gpu_row = -1;
    for (int c = 0; c < nnuma; c++) {
        int last_cpu = c == nnuma - 1;
        r = add_row(g, 1, 0, last_cpu, ROW_CPU);
        if (!r) return -1;
        const char *cpus = "";
        for (int i = 0; i < ndev; i++)
            if (dev[i] < ngpus && numa_of(json_array_get(gpus, (size_t)dev[i])) == numas[c]) {
                cpus = json_string_value(json_object_get(json_array_get(gpus, (size_t)dev[i]), "cpulist"));
                break;
            }
        if (numas[c] < 0) snprintf(r->text, sizeof r->text, "CPU (NUMA node unknown)");
        else snprintf(r->text, sizeof r->text, "CPU%d  NUMA %d%s%s", numas[c], numas[c], cpus && *cpus ? "  cpus " : "",
                      cpus ? cpus : "");
        /* the groups (switches or lone devices) under this CPU, in device order */
        int groups[128], ngroups = 0;
        for (int i = 0; i < ndev; i++) {
            int d = dev[i], n = numa_of(d < ngpus ? json_array_get(gpus, (size_t)d) : json_array_get(nics, (size_t)(d - ngpus)));
            int root = find(parent, i), k = 0;
            if (n != numas[c]) continue;
            while (k < ngroups && groups[k] != root) k++;
            if (k == ngroups && ngroups < 128) groups[ngroups++] = root;
        }
        unsigned cont1 = last_cpu ? 0u : 2u;
        for (int k = 0; k < ngroups; k++) {
            int members = 0, last_child = k == ngroups - 1;
            for (int i = 0; i < ndev; i++) members += find(parent, i) == groups[k];
            int depth = 2;
            unsigned cont = cont1;
            if (members > 1) {
                r = add_row(g, 2, cont1, last_child, ROW_SWITCH);
                if (!r) return -1;
                snprintf(r->text, sizeof r->text, "PCIe switch");
                depth = 3;
                cont = cont1 | (last_child ? 0u : 4u);
            }
            int seen = 0;
            for (int i = 0; i < ndev; i++) {
                if (find(parent, i) != groups[k]) continue;
                seen++;
                r = add_row(g, depth, cont, depth == 2 ? last_child : seen == members, ROW_GPU);
                if (!r) return -1;
                device_text(r, gpus, nics, ngpus, dev[i]);
                if (r->kind == ROW_GPU) {
                    int best = 0;
                    for (int j = 0; j < ndev; j++)
                        if (!strncmp(cell(rows, dev[i], dev[j]), "NV", 2)) {
                            int nv = atoi(cell(rows, dev[i], dev[j]) + 2);
                            if (nv > best) best = nv;
                        }
                    r->nv = best;
                    if (best > 0) {
                        if (first_gpu_row < 0) first_gpu_row = g->nrows - 1;
                        last_gpu_row = g->nrows - 1;
                    }
                }
            }
        }
    }
    /* the NVLink bar joins the GPUs that have NVLink, passing the rows between */
    if (first_gpu_row >= 0 && last_gpu_row > first_gpu_row) {
        for (int i = first_gpu_row; i <= last_gpu_row; i++)
            g->rows[i].bar = g->rows[i].nv > 0 ? BAR_MID : BAR_PASS;
        g->rows[first_gpu_row].bar = BAR_FIRST;
        g->rows[last_gpu_row].bar = BAR_LAST;
    }
    return 0;
}

topo_graph *topo_graph_build(json_t *doc)
{
    json_t *gpus = json_object_get(doc, "gpus"), *nics = json_object_get(doc, "nics");
    json_t *rows = json_object_get(json_object_get(doc, "matrix"), "rows");
    int ngpus = (int)json_array_size(gpus), nnics = (int)json_array_size(nics), ndev = ngpus + nnics;
    if (ngpus == 0 || (int)json_array_size(rows) < ndev) return NULL;
    topo_graph *g = calloc(1, sizeof *g);
    int *dev = malloc((size_t)ndev * sizeof *dev), *parent = malloc((size_t)ndev * sizeof *parent);
    if (!g || !dev || !parent) goto fail;
    int hosts = (int)json_integer_value(json_object_get(doc, "hosts"));
    if (hosts < 1) hosts = 1;
    for (int h = 0; h < hosts; h++) {
        int n = 0;
        for (int d = 0; d < ndev; d++) {
            json_t *o = d < ngpus ? json_array_get(gpus, (size_t)d) : json_array_get(nics, (size_t)(d - ngpus));
            if ((int)json_integer_value(json_object_get(o, "host")) == h) dev[n++] = d;
        }
        if (n && build_host(g, doc, h, dev, n, parent) < 0) goto fail;
    }
    if (hosts > 1) {
        graph_row *r = add_row(g, 0, 0, 1, ROW_NET);
        if (!r) goto fail;
        snprintf(r->text, sizeof r->text, "Network: %d hosts joined through their %d NICs (paths between hosts: NET)",
                 hosts, nnics);
    }
    /* every GPU at the same NV# to every other: an NVSwitch fabric */
    int all_nv = ngpus > 2, nvmax = 0;
    for (int a = 0; a < ngpus; a++)
        for (int b = 0; b < ngpus; b++) {
            if (a == b) continue;
            const char *t = cell(rows, a, b);
            if (!strcmp(t, "NET")) continue;
            if (strncmp(t, "NV", 2)) all_nv = 0;
            else if (atoi(t + 2) > nvmax) nvmax = atoi(t + 2);
        }
    snprintf(g->bar_label, sizeof g->bar_label, "%s", all_nv ? "NVSwitch" : "NVLink");
    int width = 0;
    for (int i = 0; i < g->nrows; i++) {
        int end = 2 * g->rows[i].depth + (int)strlen(g->rows[i].text);
        if (g->rows[i].kind == ROW_GPU && end > width) width = end;
    }
    g->bar_col = width + 9;
    free(dev);
    free(parent);
    return g;
fail:
    free(dev);
    free(parent);
    topo_graph_free(g);
    return NULL;
}

void topo_graph_free(topo_graph *g)
{
    if (!g) return;
    free(g->rows);
    free(g);
}

int topo_graph_width(const topo_graph *g)
{
    return g ? g->bar_col + 2 + (int)strlen(g->bar_label) : 0;
}

void topo_graph_draw(const topo_graph *g, chart_view *v, int color)
{
    static const chart_tone tone[] = {CHART_PLAIN, CHART_WARN, CHART_INFO, CHART_GOOD, CHART_ACCENT, CHART_BAD};
    for (int i = 0; g && i < g->nrows; i++, chart_view_nl(v)) {
        const graph_row *r = &g->rows[i];
        if (chart_view_row(v) < 0) continue;
        for (int l = 1; l < r->depth; l++)
            if (r->cont & (1u << l)) chart_view_ch(v, 2 * (l - 1), ACS_VLINE);
        if (r->depth > 0) {
            chart_view_ch(v, 2 * (r->depth - 1), r->last ? ACS_LLCORNER : ACS_LTEE);
            chart_view_ch(v, 2 * (r->depth - 1) + 1, ACS_HLINE);
        }
        attr_t a = r->kind == ROW_HOST ? A_BOLD : chart_tone_attr(color, tone[r->kind]);
        if (!color && (r->kind == ROW_NIC || r->kind == ROW_SWITCH)) a = 0;
        int col = 2 * r->depth;
        chart_view_put(v, col, a, r->text);
        int end = col + (int)strlen(r->text);
        if (r->bar == BAR_NONE) continue;
        if (r->bar == BAR_PASS) {
            chart_view_ch(v, g->bar_col, ACS_VLINE);
            continue;
        }
        /* " ───NV18──┤" from the GPU's text to the bar */
        char nv[16];
        snprintf(nv, sizeof nv, "NV%d", r->nv);
        int label_at = g->bar_col - 2 - (int)strlen(nv);
        for (int c = end + 1; c < g->bar_col; c++)
            if (c < label_at || c >= label_at + (int)strlen(nv)) chart_view_ch(v, c, ACS_HLINE);
        chart_view_put(v, label_at, chart_tone_attr(color, CHART_GOOD), nv);
        chart_view_ch(v, g->bar_col, r->bar == BAR_FIRST ? ACS_URCORNER : r->bar == BAR_LAST ? ACS_LRCORNER : ACS_RTEE);
        if (r->bar == BAR_FIRST) chart_view_put(v, g->bar_col + 2, A_BOLD, g->bar_label);
    }
}
