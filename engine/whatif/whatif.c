/* whatif.c - one step of the what-if: the node model, the priced pieces,
 * the 1F1B schedule over the stages, the DP exchange and the optimizer,
 * and what each axis moves. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "whatif/whatif_internal.h"

void *whatif_mem_grow(whatif_mem *m, void *p, size_t old, size_t n)
{
    if (n > old && (n - old > m->limit || m->used > m->limit - (n - old))) {
        mgpu_fail(MGPU_ERR_NOMEM,
                  "the what-if's pipeline schedule needs more than the %zu KiB of memory it may use%s%s%s "
                  "(fewer stages or micro-batches need less)",
                  m->limit >> 10, m->what ? " (" : "", m->what ? m->what : "", m->what ? ")" : "");
        return NULL;
    }
    void *q = realloc(p, n);
    if (!q) {
        mgpu_fail(MGPU_ERR_NOMEM, "out of host memory for the what-if's pipeline schedule");
        return NULL;
    }
    m->used = m->used - old + n;
    return q;
}

void whatif_mem_free(whatif_mem *m, void *p, size_t n)
{
    if (!p) return;
    free(p);
    m->used -= n;
}

static void name_link(const mgpu_coll_prediction *p, const whatif_span *sp, mgpu_whatif_traffic *t)
{
    if (sp->size <= 1) {
        snprintf(t->link, sizeof t->link, "-");
        snprintf(t->algo, sizeof t->algo, "-");
        return;
    }
    /* the model says "network" for the hosts' NICs: InfiniBand on the DGX presets */
    snprintf(t->link, sizeof t->link, "%s", sp->nodes > 1 ? "InfiniBand" : (p->link ? p->link : "?"));
    snprintf(t->algo, sizeof t->algo, "%s/%s", p->algo_name ? p->algo_name : "?", p->proto_name ? p->proto_name : "?");
}

/* One call of an axis's collective on t->bytes, priced: its time, its
 * link and algorithm, and the total over t->calls. */
static mgpu_result price_calls(const whatif_layout *l, const whatif_span *sp, mgpu_coll op, mgpu_whatif_traffic *t)
{
    mgpu_coll_prediction p;
    double ns;
    MGPU_CHECK(whatif_coll_ns(l, sp, op, t->bytes, &ns, &p));
    name_link(&p, sp, t);
    t->call_us = ns / 1000.0;
    t->total_ms = t->calls * ns / 1e6;
    return MGPU_OK;
}

static mgpu_result traffic(const whatif_layout *l, const whatif_costs *k, double dp_bytes, mgpu_whatif_result *out)
{
    /* TP: the busiest stage's calls */
    mgpu_whatif_traffic *t = &out->traffic[MGPU_WHATIF_TP];
    const whatif_span *sp = &l->span[MGPU_WHATIF_TP];
    t->axis = "TP";
    t->group = sp->size;
    t->nodes = sp->nodes;
    snprintf(t->collective, sizeof t->collective, "all_reduce");
    t->bytes = k->tp_bytes;
    for (int s = 0; s < l->c.pp; s++) {
        long c = (whatif_stage_tp_calls(l, s, 0) + whatif_stage_tp_calls(l, s, 1)) * l->m;
        if (c > t->calls) t->calls = c;
    }
    MGPU_CHECK(price_calls(l, sp, MGPU_COLL_ALL_REDUCE, t));

    /* PP: a middle stage sends an activation up and a gradient down, and
     * receives as many, per micro-batch */
    t = &out->traffic[MGPU_WHATIF_PP];
    sp = &l->span[MGPU_WHATIF_PP];
    t->axis = "PP";
    t->group = l->c.pp;
    t->nodes = sp->nodes;
    snprintf(t->collective, sizeof t->collective, "send/recv");
    t->bytes = k->p2p_bytes;
    t->calls = l->c.pp > 1 ? (l->c.pp > 2 ? 4L : 2L) * l->m : 0;
    MGPU_CHECK(price_calls(l, sp, MGPU_COLL_SEND, t));

    /* DP: one exchange per step (ZeRO: a reduce-scatter and an all-gather) */
    t = &out->traffic[MGPU_WHATIF_DP];
    sp = &l->span[MGPU_WHATIF_DP];
    t->axis = "DP";
    t->group = sp->size;
    t->nodes = sp->nodes;
    t->bytes = dp_bytes;
    t->calls = sp->size > 1 ? (l->c.zero ? 2 : 1) : 0;
    if (l->c.zero) {
        mgpu_coll_prediction p;
        double ns, ns2;
        snprintf(t->collective, sizeof t->collective, "reduce_scatter + all_gather");
        MGPU_CHECK(whatif_coll_ns(l, sp, MGPU_COLL_REDUCE_SCATTER, dp_bytes, &ns, &p));
        MGPU_CHECK(whatif_coll_ns(l, sp, MGPU_COLL_ALL_GATHER, dp_bytes, &ns2, NULL));
        name_link(&p, sp, t);
        t->call_us = ns / 1000.0;
        t->total_ms = (ns + ns2) / 1e6;
    } else {
        snprintf(t->collective, sizeof t->collective, "all_reduce");
        MGPU_CHECK(price_calls(l, sp, MGPU_COLL_ALL_REDUCE, t));
    }
    if (sp->size <= 1) t->total_ms = 0;
    return MGPU_OK;
}

/* The step once the node model is open. */
static mgpu_result simulate(const whatif_layout *l, mgpu_whatif_result *out)
{
    int pp = l->c.pp;
    whatif_costs k;
    MGPU_CHECK(whatif_costs_price(l, &k));
    whatif_mem mem = {.limit = l->c.mem_limit ? l->c.mem_limit : MGPU_WHATIF_DEFAULT_MEM, .what = l->c.mem_what};
    size_t nv = sizeof(double) * (size_t)pp * 4;
    double *v = whatif_mem_grow(&mem, NULL, 0, nv);
    if (!v) MGPU_CHECK(mgpu_error_code());
    memset(v, 0, nv);
    double *fwd = v, *bwd = v + pp, *end = v + 2 * pp, *busy = v + 3 * pp;
    for (int s = 0; s < pp; s++) whatif_stage_times(l, &k, s, &fwd[s], &bwd[s]);
    mgpu_result r = whatif_1f1b(pp, l->m, fwd, bwd, k.p2p, end, busy, &mem);
    if (r != MGPU_OK) {
        whatif_mem_free(&mem, v, nv);
        MGPU_CHECK(r);
    }
    double pipe = 0, idle = 0, step = 0, dp_max = 0, opt_max = 0, dp_bytes_max = 0;
    for (int s = 0; s < pp; s++)
        if (end[s] > pipe) pipe = end[s];
    for (int s = 0; s < pp && r == MGPU_OK; s++) {
        idle += pipe > 0 ? 1.0 - busy[s] / pipe : 0;
        double n = whatif_stage_params(l, s), dp = 0, dp2 = 0;
        /* The gradients (bf16) leave after the last backward: every DP
         * peer of the stage ends its pipeline together. */
        const whatif_span *sp = &l->span[MGPU_WHATIF_DP];
        if (l->c.zero) {
            r = whatif_coll_ns(l, sp, MGPU_COLL_REDUCE_SCATTER, 2 * n, &dp, NULL);
            if (r == MGPU_OK) r = whatif_coll_ns(l, sp, MGPU_COLL_ALL_GATHER, 2 * n, &dp2, NULL);
        } else {
            r = whatif_coll_ns(l, sp, MGPU_COLL_ALL_REDUCE, 2 * n, &dp, NULL);
        }
        double opt = whatif_optimizer_ns(l, l->c.zero ? n / l->c.dp : n);
        double e = end[s] + dp + dp2 + opt;
        if (e > step) step = e;
        if (dp + dp2 > dp_max) dp_max = dp + dp2;
        if (opt > opt_max) opt_max = opt;
        if (2 * n > dp_bytes_max) dp_bytes_max = 2 * n;
    }
    double mid_f, mid_b;
    whatif_stage_times(l, &k, pp > 2 ? 1 : 0, &mid_f, &mid_b);
    whatif_mem_free(&mem, v, nv);
    MGPU_CHECK(r);
    out->pipeline_ms = pipe / 1e6;
    out->step_ms = step / 1e6;
    out->dp_ms = dp_max / 1e6;
    out->optimizer_ms = opt_max / 1e6;
    out->fwd_ms = mid_f / 1e6;
    out->bwd_ms = mid_b / 1e6;
    out->bubble = idle / pp;
    out->bubble_ideal = (double)(pp - 1) / (l->m + pp - 1);
    MGPU_CHECK(traffic(l, &k, dp_bytes_max, out));
    return MGPU_OK;
}

mgpu_result mgpu_whatif_run(const mgpu_whatif_config *c, mgpu_whatif_result *out)
{
    if (!c || !out) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_whatif_run: configuration and result are required");
    memset(out, 0, sizeof *out);
    const char *machine = c->machine && *c->machine ? c->machine : "dgx-h100";
    mgpu_topo *t;
    MGPU_CHECK(mgpu_topo_open_machine(machine, &t));
    whatif_layout l;
    mgpu_result r = whatif_layout_check(c, t, &l);
    if (r == MGPU_OK) r = simulate(&l, out);
    if (r == MGPU_OK) {
        const mgpu_topo_gpu *g = mgpu_topo_gpu_at(t, 0);
        snprintf(out->machine, sizeof out->machine, "%s", mgpu_topo_machine_name(t));
        snprintf(out->gpu, sizeof out->gpu, "%s", g->name[0] ? g->name : "unknown GPU");
        out->world = l.world;
        out->nodes = l.nodes;
        out->gpus_per_node = l.gpus_per_node;
        out->micro_batches = l.m;
        out->params = whatif_model_params(&l);
        for (int s = 0; s < l.c.pp; s++) {
            mgpu_whatif_memory m;
            whatif_stage_memory(&l, s, &m);
            if (m.total > out->mem.total) out->mem = m;
        }
        out->gpu_mem = (double)g->mem_bytes;
        out->fits = out->gpu_mem <= 0 || out->mem.total <= out->gpu_mem;
        double tokens = (double)l.c.global_batch * l.c.model.seq;
        const mgpu_gpu_model *gm = mgpu_gpu_model_by_name(g->name);
        out->tokens_per_s = out->step_ms > 0 ? tokens / (out->step_ms / 1e3) : 0;
        if (gm && gm->bf16_tflops > 0 && out->step_ms > 0)
            out->mfu = 6 * out->params * tokens / (out->step_ms / 1e3) / (l.world * gm->bf16_tflops * 1e12);
    }
    mgpu_topo_free(t);
    MGPU_CHECK(r);
    return MGPU_OK;
}
