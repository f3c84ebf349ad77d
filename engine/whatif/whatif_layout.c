/* whatif_layout.c - a what-if configuration checked (each error names the
 * option to change), and where the groups of each axis sit. Ranks are
 * numbered as Megatron-LM numbers them by default: TP fastest, then DP,
 * then PP (rank = tp_rank + tp x (dp_rank + dp x stage)), so a TP group is
 * neighbouring GPUs of one node, and PP stages are the farthest apart. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "whatif/whatif_internal.h"

void mgpu_whatif_defaults(mgpu_whatif_config *c)
{
    memset(c, 0, sizeof *c);
    c->model = (mgpu_whatif_model){.layers = 80, .hidden = 8192, .ffn = 28672, .heads = 64, .kv_heads = 8,
                                   .vocab = 32000, .seq = 4096};
    c->dp = 8;
    c->tp = 8;
    c->pp = 4;
    c->micro_batch_size = 1;
    c->global_batch = 1024;
    c->machine = "dgx-h100";
}

static mgpu_result positive(const char *opt, long v)
{
    if (v < 1) return mgpu_fail(MGPU_ERR_INVALID, "--%s %ld: must be a positive integer", opt, v);
    return MGPU_OK;
}

/* The 1F1B schedule is simulated pass by pass (micro-batches x stages):
 * bounded so that a what-if ends in about a second whatever it is asked. */
static mgpu_result schedule_size(const mgpu_whatif_config *c, long m)
{
    long passes = m * c->pp;
    if (passes <= MGPU_WHATIF_MAX_PASSES) return MGPU_OK;
    if (c->micro_batches > 0)
        return mgpu_fail(MGPU_ERR_INVALID,
                         "--micro-batches %d x --pp %d = %ld micro-batch passes to simulate; the what-if stops at %ld "
                         "(give fewer micro-batches)",
                         c->micro_batches, c->pp, passes, MGPU_WHATIF_MAX_PASSES);
    return mgpu_fail(MGPU_ERR_INVALID,
                     "--global-batch %d makes %ld micro-batches per DP replica, x --pp %d = %ld micro-batch passes to "
                     "simulate; the what-if stops at %ld (give a smaller --global-batch or a larger --micro-batch-size)",
                     c->global_batch, m, c->pp, passes, MGPU_WHATIF_MAX_PASSES);
}

/* The group of rank 0 of an axis whose neighbours are `stride` ranks apart
 * (`size` ranks of it: PP prices a pair of neighbouring stages); `value`
 * is the option's, for the message. */
static mgpu_result span_of(const whatif_layout *l, const char *axis, int value, int size, int stride,
                           whatif_span *out)
{
    int g = l->gpus_per_node;
    out->size = size;
    out->nodes = 1;
    out->stride = 1;
    if (size <= 1) return MGPU_OK;
    if (stride >= g) {
        if (stride % g != 0) goto uneven;
        out->nodes = size; /* one rank per node */
        return MGPU_OK;
    }
    /* stride < g: a run of ranks per node, stride GPUs apart */
    if (g % stride != 0) goto uneven;
    int per_node = g / stride;
    if (size <= per_node) {
        out->stride = stride;
        return MGPU_OK;
    }
    if (size % per_node != 0) goto uneven;
    out->nodes = size / per_node;
    out->stride = stride;
    return MGPU_OK;
uneven:
    return mgpu_fail(MGPU_ERR_INVALID,
                     "--%s %d: its groups would sit unevenly on nodes of %d GPUs (neighbours %d ranks apart); "
                     "choose sizes that divide %d or are multiples of it",
                     axis, value, g, stride, g);
}

/* The model's sizes and the parallel sizes: positive, and each split
 * dividing what it splits. */
static mgpu_result check_sizes(const mgpu_whatif_config *c)
{
    const mgpu_whatif_model *md = &c->model;
    MGPU_CHECK(positive("layers", md->layers));
    MGPU_CHECK(positive("hidden", md->hidden));
    MGPU_CHECK(positive("ffn", md->ffn));
    MGPU_CHECK(positive("heads", md->heads));
    MGPU_CHECK(positive("kv-heads", md->kv_heads));
    MGPU_CHECK(positive("vocab", md->vocab));
    MGPU_CHECK(positive("seq", md->seq));
    MGPU_CHECK(positive("dp", c->dp));
    MGPU_CHECK(positive("tp", c->tp));
    MGPU_CHECK(positive("pp", c->pp));
    MGPU_CHECK(positive("micro-batch-size", c->micro_batch_size));
    if (c->micro_batches < 0) return positive("micro-batches", c->micro_batches);
    if (c->nodes < 0) return positive("nodes", c->nodes);
    if (c->zero != 0 && c->zero != 1)
        return mgpu_fail(MGPU_ERR_INVALID, "--zero %d: 0 (gradients all-reduced) or 1 (distributed optimizer)", c->zero);
    if (c->recompute != 0 && c->recompute != 1)
        return mgpu_fail(MGPU_ERR_INVALID, "--recompute %d: 0 (keep activations) or 1 (recompute each layer)",
                         c->recompute);
    if (md->hidden % md->heads != 0)
        return mgpu_fail(MGPU_ERR_INVALID, "--hidden %d is not a multiple of --heads %d", md->hidden, md->heads);
    if (md->heads % md->kv_heads != 0)
        return mgpu_fail(MGPU_ERR_INVALID, "--heads %d is not a multiple of --kv-heads %d", md->heads, md->kv_heads);
    if (md->heads % c->tp != 0)
        return mgpu_fail(MGPU_ERR_INVALID, "--tp %d does not divide the %d attention heads", c->tp, md->heads);
    /* Every TP rank holds whole KV groups (GQA): Megatron-Core divides the
     * query groups by the TP size (num_query_groups % tp == 0) and refuses a
     * remainder. A TP group larger than the KV groups would need KV heads
     * replicated over ranks, with their gradients summed in the group -
     * neither Megatron-Core nor this model does that (issue 27). */
    if (md->kv_heads % c->tp != 0)
        return mgpu_fail(MGPU_ERR_INVALID,
                         "--tp %d does not divide the %d KV heads (query groups): each TP rank must hold whole KV "
                         "groups, as Megatron-Core requires (num_query_groups %% tp == 0); a TP larger than the KV "
                         "groups would replicate KV heads, which is not modelled (a model with more: --kv-heads)",
                         c->tp, md->kv_heads);
    if (md->ffn % c->tp != 0)
        return mgpu_fail(MGPU_ERR_INVALID, "--tp %d does not divide the FFN width %d", c->tp, md->ffn);
    if (md->vocab % c->tp != 0)
        return mgpu_fail(MGPU_ERR_INVALID, "--tp %d does not divide the vocabulary %d", c->tp, md->vocab);
    if (md->layers % c->pp != 0)
        return mgpu_fail(MGPU_ERR_INVALID, "--pp %d does not divide the %d layers", c->pp, md->layers);
    return MGPU_OK;
}

/* The machine: GPUs per node (node 0's: *node_gpus; l->gpus_per_node the
 * ones used), the world, how many nodes it fills. */
static mgpu_result place_world(const mgpu_whatif_config *c, const mgpu_topo *t, whatif_layout *l, int *node_gpus)
{
    int g = 0;
    for (int i = 0; i < mgpu_topo_gpu_count(t); i++) g += mgpu_topo_gpu_at(t, i)->host == 0;
    if (g < 1) return mgpu_fail(MGPU_ERR_INVALID, "--machine %s: the node has no GPU", mgpu_topo_machine_name(t));
    l->gpus_per_node = *node_gpus = g;
    long world = (long)c->dp * c->tp * c->pp;
    if (world > 1L << 20)
        return mgpu_fail(MGPU_ERR_INVALID, "--dp %d x --tp %d x --pp %d = %ld GPUs; the what-if stops at %d", c->dp,
                         c->tp, c->pp, world, 1 << 20);
    l->world = (int)world;
    if (c->nodes == 0) {
        if (world % g != 0 && world > g)
            return mgpu_fail(MGPU_ERR_INVALID, "--dp %d x --tp %d x --pp %d = %ld GPUs do not fill whole nodes of %d GPUs",
                             c->dp, c->tp, c->pp, world, g);
        l->nodes = world <= g ? 1 : (int)(world / g);
    } else {
        if ((long)c->nodes * g != world && !(c->nodes == 1 && world <= g))
            return mgpu_fail(MGPU_ERR_INVALID, "--nodes %d x %d GPUs is not --dp %d x --tp %d x --pp %d = %ld GPUs",
                             c->nodes, g, c->dp, c->tp, c->pp, world);
        l->nodes = c->nodes;
    }
    if (world < g) l->gpus_per_node = (int)world; /* one node, partly used: its first GPUs */
    return MGPU_OK;
}

/* The batch: micro-batches per DP replica (l->m) and the global batch. */
static mgpu_result split_batch(const mgpu_whatif_config *c, whatif_layout *l)
{
    long per_replica = (long)c->dp * c->micro_batch_size;
    if (c->micro_batches > 0) {
        /* bounded before it is multiplied: 10^8 micro-batches ran for minutes
         * and took gigabytes (issue 34) */
        MGPU_CHECK(schedule_size(c, c->micro_batches));
        if (per_replica * c->micro_batches > INT_MAX)
            return mgpu_fail(MGPU_ERR_INVALID,
                             "--micro-batches %d x --dp %d x --micro-batch-size %d = %ld sequences a step; "
                             "the what-if counts at most %d",
                             c->micro_batches, c->dp, c->micro_batch_size, per_replica * c->micro_batches, INT_MAX);
        l->m = c->micro_batches;
        l->c.global_batch = (int)(per_replica * c->micro_batches);
    } else {
        MGPU_CHECK(positive("global-batch", c->global_batch));
        if (c->global_batch % per_replica != 0)
            return mgpu_fail(MGPU_ERR_INVALID,
                             "--global-batch %d is not a multiple of --dp %d x --micro-batch-size %d "
                             "(or give --micro-batches)",
                             c->global_batch, c->dp, c->micro_batch_size);
        l->m = (int)(c->global_batch / per_replica);
        MGPU_CHECK(schedule_size(c, l->m));
    }
    return MGPU_OK;
}

mgpu_result whatif_layout_check(const mgpu_whatif_config *c, const mgpu_topo *t, whatif_layout *l)
{
    memset(l, 0, sizeof *l);
    l->c = *c;
    l->topo = t;
    const mgpu_whatif_model *md = &c->model;
    int g = 0;
    MGPU_CHECK(check_sizes(c));
    MGPU_CHECK(place_world(c, t, l, &g));
    MGPU_CHECK(split_batch(c, l));
    l->layers_per_stage = md->layers / c->pp;
    l->heads = md->heads / c->tp;
    l->kv_heads = md->kv_heads / c->tp;
    l->head_dim = md->hidden / md->heads;
    l->ffn = md->ffn / c->tp;
    l->vocab = md->vocab / c->tp;

    /* The partly used node keeps the real node's GPU spacing for pricing. */
    int gpn = l->gpus_per_node;
    l->gpus_per_node = g;
    mgpu_result r = span_of(l, "tp", c->tp, c->tp, 1, &l->span[MGPU_WHATIF_TP]);
    if (r == MGPU_OK) r = span_of(l, "dp", c->dp, c->dp, c->tp, &l->span[MGPU_WHATIF_DP]);
    if (r == MGPU_OK) r = span_of(l, "pp", c->pp, c->pp > 1 ? 2 : 1, c->tp * c->dp, &l->span[MGPU_WHATIF_PP]);
    l->gpus_per_node = gpn;
    MGPU_CHECK(r);
    return MGPU_OK;
}

mgpu_result whatif_coll_ns(const whatif_layout *l, const whatif_span *sp, mgpu_coll op, double bytes, double *ns,
                           mgpu_coll_prediction *pred)
{
    mgpu_coll_prediction p;
    memset(&p, 0, sizeof p);
    *ns = 0;
    if (sp->size > 1) {
        mgpu_coll_tuning tun;
        MGPU_CHECK(mgpu_coll_tuning_from_env(&tun));
        MGPU_CHECK(mgpu_coll_predict_spread(l->topo, op, (size_t)bytes, sp->size, sp->nodes, sp->stride, &tun, &p));
        *ns = p.time_us * 1000.0;
    }
    if (pred) *pred = p;
    return MGPU_OK;
}
