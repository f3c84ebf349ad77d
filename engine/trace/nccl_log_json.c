/* nccl_log_json.c - an NCCL log summary as JSON, the shape labs read
 * (lab.bench(...).nccl, lab.spmd(...).nccl): the transport of every peer
 * link, rings, trees and the algorithm/protocol NCCL chose per size. */
#include <stdio.h>
#include "mgpu/nccl_log.h"

static json_t *gdr_value(int gdr) { return gdr < 0 ? json_null() : json_boolean(gdr); }

static json_t *links_json(const mgpu_nccl_summary *s)
{
    json_t *a = json_array();
    for (int i = 0; a && i < s->nlinks; i++) {
        const mgpu_nccl_link *l = &s->links[i];
        json_array_append_new(a, json_pack("{s:i, s:i, s:s, s:s, s:o, s:i}", "from", l->from, "to", l->to,
                                           "transport", l->transport, "detail", l->detail, "gdr", gdr_value(l->gdr),
                                           "channels", mgpu_nccl_link_channel_count(l)));
    }
    return a;
}

static json_t *rings_json(const mgpu_nccl_summary *s)
{
    json_t *a = json_array();
    for (int i = 0; a && i < s->nrings; i++) {
        json_t *order = json_array();
        for (int k = 0; order && k < s->rings[i].nranks; k++) json_array_append_new(order, json_integer(s->rings[i].order[k]));
        json_array_append_new(a, json_pack("{s:i, s:o}", "channel", s->rings[i].channel, "order", order));
    }
    return a;
}

/* trees: per channel, parent[rank] as an object keyed by rank ("-1" = root). */
static json_t *trees_json(const mgpu_nccl_summary *s)
{
    json_t *a = json_array();
    for (int c = 0; a && c < s->ntree_channels && c < 8; c++) {
        json_t *parent = json_object();
        for (int r = 0; parent && r < MGPU_NCCL_LOG_MAX_RANKS; r++) {
            if (s->tree_up[c][r] == -2) continue;
            char key[16];
            snprintf(key, sizeof key, "%d", r);
            json_object_set_new(parent, key, json_integer(s->tree_up[c][r]));
        }
        json_array_append_new(a, json_pack("{s:i, s:o}", "channel", c, "parent", parent));
    }
    return a;
}

static json_t *tuning_json(const mgpu_nccl_summary *s)
{
    json_t *a = json_array();
    for (int i = 0; a && i < s->ntuning; i++) {
        const mgpu_nccl_tuning *t = &s->tuning[i];
        json_array_append_new(a, json_pack("{s:s, s:I, s:s, s:s}", "coll", t->coll, "bytes", (json_int_t)t->bytes,
                                           "algo", t->algo, "proto", t->proto));
    }
    return a;
}

json_t *mgpu_nccl_summary_json(const mgpu_nccl_summary *s)
{
    if (!s) return NULL;
    json_t *transports = json_object();
    const char *names[16];
    int counts[16], n = mgpu_nccl_summary_transports(s, names, counts, 16);
    for (int i = 0; transports && i < n; i++) json_object_set_new(transports, names[i], json_integer(counts[i]));
    json_t *colls = json_object();
    for (int i = 0; colls && i < s->ncolls; i++) json_object_set_new(colls, s->colls[i].name, json_integer(s->colls[i].calls));
    return json_pack("{s:I, s:I, s:s, s:s, s:i, s:i, s:i, s:o, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:i, s:s}",
                     "lines", (json_int_t)s->lines, "nccl_lines", (json_int_t)s->nccl_lines, "version", s->version,
                     "network", s->network, "nranks", s->nranks, "nnodes", s->nnodes, "nchannels", s->nchannels,
                     "gdr", gdr_value(s->gdr), "simulated", s->simulated, "transports", transports, "links",
                     links_json(s), "rings", rings_json(s), "trees", trees_json(s), "tuning", tuning_json(s),
                     "colls", colls, "links_dropped", s->links_dropped, "warnings", s->nwarn, "last_warn",
                     s->last_warn);
}
