/* topo_graph.h - the topology pane's drawn graph: hosts, CPUs/NUMA nodes,
 * PCIe switches, GPUs, NICs as a tree in ACS line characters, with the
 * NVLink fabric as a bar that joins the GPUs. Built once per "topo"
 * document (from `mgpulab topo --json`), drawn every frame without
 * allocating. */
#ifndef MGPU_SHELL_TOPO_GRAPH_H
#define MGPU_SHELL_TOPO_GRAPH_H
#include <jansson.h>
#include "chart.h"

typedef struct topo_graph topo_graph;

/* NULL when the document has no GPUs (or on OOM). */
topo_graph *topo_graph_build(json_t *doc);
void topo_graph_free(topo_graph *g);
/* Draw from the view's current line on; advances v->line past the graph. */
void topo_graph_draw(const topo_graph *g, chart_view *v, int color);
int topo_graph_width(const topo_graph *g);

#endif
