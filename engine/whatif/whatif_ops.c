/* whatif_ops.c - one micro-batch's work on one TP rank, op by op, priced
 * as the sim prices each training op (mgpu_nn_model_ns over the FLOPs and
 * bytes nn.c counts for it): the layer Megatron shards - RMSNorm, Q/K/V
 * column-parallel, attention over this rank's heads (scores, causal
 * softmax, P.V), the row-parallel output projection and its all-reduce,
 * RMSNorm, SwiGLU gate/up column-parallel, down row-parallel and its
 * all-reduce - forward and backward; the vocabulary-parallel embedding and
 * LM head with the loss; the fused AdamW step. Tensors are bf16 (2 bytes),
 * statistics f32. examples/spmd/pipeline_phantom.lua runs the same ops. */
#include <string.h>
#include "mgpu/nn.h"
#include "mgpu/nn_ops.h"
#include "whatif/whatif_internal.h"

#define E 2.0 /* bf16 */

typedef struct pricer {
    const mgpu_topo *t;
    double ns;
} pricer;

/* One op of `kernels` GPU kernels, as nn.c counts it. */
static void op_k(pricer *p, mgpu_nn_class cls, double flops, double bytes, int kernels)
{
    mgpu_nn_work w = {.cls = cls, .flops = flops, .bytes = bytes, .kernels = kernels};
    p->ns += mgpu_nn_model_work_ns(p->t, 0, &w, 1);
}
static void op(pricer *p, mgpu_nn_class cls, double flops, double bytes) { op_k(p, cls, flops, bytes, 1); }

/* nn.c's GEMM: 2mnk FLOPs a batch entry; A, B (once when shared), C read
 * again when accumulated (beta != 0). */
static void gemm(pricer *p, double m, double n, double k, double batch, int shared_b, int accumulate)
{
    double bytes = E * (batch * m * k + (shared_b ? 1 : batch) * k * n + batch * m * n * (accumulate ? 2 : 1));
    mgpu_nn_work w = {.cls = MGPU_NN_CLASS_GEMM, .flops = 2 * m * n * k * batch, .bytes = bytes,
                      .m = (size_t)m, .n = (size_t)n, .batch = (size_t)batch, .kernels = 1};
    p->ns += mgpu_nn_model_work_ns(p->t, 0, &w, 1);
}
/* y = x W: x [T, in], W [in, out] */
static void linear(pricer *p, double T, double in, double out) { gemm(p, T, out, in, 1, 1, 0); }
/* its backward: dx (= dy W^T, accumulated into dx when acc_dx) and dW += x^T dy */
static void linear_bwd(pricer *p, double T, double in, double out, int acc_dx)
{
    gemm(p, T, in, out, 1, 1, acc_dx);
    gemm(p, in, out, T, 1, 1, 1);
}
/* The norms as nn_norm.c prices them: a row held in registers streams
 * (ELEMENTWISE), otherwise the SMs bind it (REDUCE); the backward in one
 * pass (x and dy read once, the chunks' column partials written and read
 * back) or in three kernels that read x and dy twice. */
static void rmsnorm(pricer *p, double T, double h)
{
    mgpu_nn_class cls = mgpu_nn_row_in_registers((size_t)h, (size_t)E) ? MGPU_NN_CLASS_ELEMENTWISE
                                                                       : MGPU_NN_CLASS_REDUCE;
    op(p, cls, 6 * T * h, E * (2 * T * h + h) + 4 * T);
}
static void rmsnorm_bwd(pricer *p, double T, double h)
{
    double bytes = E * (3 * T * h + 2 * h) + 4 * T; /* x, dy, dx, gamma, dgamma, 1/rms */
    if (mgpu_nn_norm_back_one_pass((size_t)T, (size_t)h, (size_t)E)) {
        bytes += 2.0 * (double)mgpu_nn_norm_back_chunks((size_t)T) * h * sizeof(float);
        op_k(p, MGPU_NN_CLASS_ELEMENTWISE, MGPU_NN_NORM_BACK_INSTR * T * h, bytes, 2);
    } else {
        op_k(p, MGPU_NN_CLASS_REDUCE, 10 * T * h, bytes + E * 2 * T * h, 3);
    }
}
static void add(pricer *p, double n) { op(p, MGPU_NN_CLASS_ELEMENTWISE, 3 * n, 3 * E * n); }
static void swap12(pricer *p, double n) { op(p, MGPU_NN_CLASS_ELEMENTWISE, 0, 2 * E * n); }

/* Attention of this rank's heads: q [b*kv, G*s, d] against k, v [b*kv, s, d]. */
typedef struct attn_dims {
    double T, bk, Gs, s, d, q_cols, kv_cols, scores;
} attn_dims;

static attn_dims attn_of(const whatif_layout *l)
{
    double b = l->c.micro_batch_size, s = l->c.model.seq, d = l->head_dim;
    double G = (double)l->heads / l->kv_heads;
    attn_dims a = {.T = b * s, .bk = b * l->kv_heads, .Gs = G * s, .s = s, .d = d,
                   .q_cols = (double)l->heads * d, .kv_cols = (double)l->kv_heads * d};
    a.scores = a.bk * a.Gs * s;
    return a;
}

static double layer_fwd(const whatif_layout *l)
{
    pricer p = {l->topo, 0};
    attn_dims a = attn_of(l);
    double T = a.T, h = l->c.model.hidden, f = l->ffn;
    rmsnorm(&p, T, h);
    linear(&p, T, h, a.q_cols);
    linear(&p, T, h, a.kv_cols);
    linear(&p, T, h, a.kv_cols);
    swap12(&p, T * a.q_cols);
    swap12(&p, T * a.kv_cols);
    swap12(&p, T * a.kv_cols);
    gemm(&p, a.Gs, a.s, a.d, a.bk, 0, 0);                            /* S = Q K^T */
    /* causal softmax: a gather of element accesses (the op's own count) */
    op(&p, MGPU_NN_CLASS_GATHER, mgpu_nn_softmax_accesses(a.scores / a.s, a.s, 1), 2 * E * a.scores);
    gemm(&p, a.Gs, a.d, a.s, a.bk, 0, 0);                            /* O = P V */
    swap12(&p, T * a.q_cols);
    linear(&p, T, a.q_cols, h);                                      /* + TP all-reduce */
    add(&p, T * h);
    rmsnorm(&p, T, h);
    linear(&p, T, h, f);                                             /* gate */
    linear(&p, T, h, f);                                             /* up */
    op(&p, MGPU_NN_CLASS_ELEMENTWISE, 7 * T * f, 3 * E * T * f);    /* swiglu */
    linear(&p, T, f, h);                                             /* down, + TP all-reduce */
    add(&p, T * h);
    return p.ns;
}

static double layer_bwd(const whatif_layout *l)
{
    pricer p = {l->topo, 0};
    attn_dims a = attn_of(l);
    double T = a.T, h = l->c.model.hidden, f = l->ffn;
    linear_bwd(&p, T, f, h, 0);                                      /* down */
    op(&p, MGPU_NN_CLASS_ELEMENTWISE, 14 * T * f, 5 * E * T * f);   /* swiglu backward */
    linear_bwd(&p, T, h, f, 0);                                      /* up */
    linear_bwd(&p, T, h, f, 1);                                      /* gate, dx accumulated; + TP all-reduce */
    rmsnorm_bwd(&p, T, h);
    add(&p, T * h);
    linear_bwd(&p, T, a.q_cols, h, 0);                               /* output projection */
    swap12(&p, T * a.q_cols);
    gemm(&p, a.Gs, a.s, a.d, a.bk, 0, 0);                            /* dP = dO V^T */
    gemm(&p, a.s, a.d, a.Gs, a.bk, 0, 0);                            /* dV = P^T dO */
    op(&p, MGPU_NN_CLASS_REDUCE, 4 * a.scores, 3 * E * a.scores);   /* softmax backward */
    gemm(&p, a.Gs, a.d, a.s, a.bk, 0, 0);                            /* dQ = dS K */
    gemm(&p, a.s, a.d, a.Gs, a.bk, 0, 0);                            /* dK = dS^T Q */
    swap12(&p, T * a.kv_cols);
    swap12(&p, T * a.kv_cols);
    swap12(&p, T * a.q_cols);
    linear_bwd(&p, T, h, a.q_cols, 0);
    linear_bwd(&p, T, h, a.kv_cols, 1);
    linear_bwd(&p, T, h, a.kv_cols, 1);                              /* + TP all-reduce */
    rmsnorm_bwd(&p, T, h);
    add(&p, T * h);
    return p.ns;
}

mgpu_result whatif_costs_price(const whatif_layout *l, whatif_costs *k)
{
    memset(k, 0, sizeof *k);
    double T = (double)l->c.micro_batch_size * l->c.model.seq, h = l->c.model.hidden, v = l->vocab;
    k->layer_fwd = layer_fwd(l);
    k->layer_bwd = layer_bwd(l);
    pricer p = {l->topo, 0};
    /* embedding: ids in, this rank's rows out (nn.c counts the output twice, the table not) */
    op(&p, MGPU_NN_CLASS_ELEMENTWISE, 0, 4 * T + 2 * E * T * h);
    k->embed_fwd = p.ns;
    p.ns = 0;
    op(&p, MGPU_NN_CLASS_ELEMENTWISE, T * h, 4 * T + 2 * E * T * h);
    k->embed_bwd = p.ns;
    p.ns = 0;
    rmsnorm(&p, T, h);
    linear(&p, T, h, v);
    op_k(&p, MGPU_NN_CLASS_REDUCE, 8 * T * v, 2 * E * T * v + 4 * T + 8, 2); /* cross-entropy and its gradient */
    k->head_fwd = p.ns;
    p.ns = 0;
    linear_bwd(&p, T, h, v, 0);
    rmsnorm_bwd(&p, T, h);
    k->head_bwd = p.ns;

    k->tp_bytes = E * T * h;
    MGPU_CHECK(whatif_coll_ns(l, &l->span[MGPU_WHATIF_TP], MGPU_COLL_ALL_REDUCE, k->tp_bytes, &k->tp_call, NULL));
    k->p2p_bytes = E * T * h;
    MGPU_CHECK(whatif_coll_ns(l, &l->span[MGPU_WHATIF_PP], MGPU_COLL_SEND, k->p2p_bytes, &k->p2p, NULL));
    return MGPU_OK;
}

/* TP all-reduces: two a layer each way (and the recomputed forward's two
 * in the backward); the embedding's output forward (vocabulary-parallel
 * lookup), the LM head's input gradient backward. */
long whatif_stage_tp_calls(const whatif_layout *l, int s, int backward)
{
    if (l->c.tp <= 1) return 0;
    long n = 2L * l->layers_per_stage * (backward && l->c.recompute ? 2 : 1);
    if (!backward && s == 0) n++;
    if (backward && s == l->c.pp - 1) n++;
    return n;
}

void whatif_stage_times(const whatif_layout *l, const whatif_costs *k, int s, double *fwd, double *bwd)
{
    double L = l->layers_per_stage;
    *fwd = L * k->layer_fwd + whatif_stage_tp_calls(l, s, 0) * k->tp_call;
    *bwd = L * (k->layer_bwd + (l->c.recompute ? k->layer_fwd : 0)) + whatif_stage_tp_calls(l, s, 1) * k->tp_call;
    if (s == 0) *fwd += k->embed_fwd, *bwd += k->embed_bwd;
    if (s == l->c.pp - 1) *fwd += k->head_fwd, *bwd += k->head_bwd;
}

/* Parameters of one layer on one TP rank (the norms' weights replicated). */
static double layer_params(const whatif_layout *l)
{
    double h = l->c.model.hidden, d = l->head_dim;
    return h * d * (2.0 * l->heads + 2.0 * l->kv_heads) + 3 * h * l->ffn + 2 * h;
}

double whatif_stage_params(const whatif_layout *l, int s)
{
    double h = l->c.model.hidden, n = l->layers_per_stage * layer_params(l);
    if (s == 0) n += (double)l->vocab * h;             /* embedding shard */
    if (s == l->c.pp - 1) n += h + (double)l->vocab * h; /* final norm, LM head shard */
    return n;
}

double whatif_model_params(const whatif_layout *l)
{
    const mgpu_whatif_model *m = &l->c.model;
    double h = m->hidden, d = (double)m->hidden / m->heads;
    double layer = h * d * (2.0 * m->heads + 2.0 * m->kv_heads) + 3 * h * m->ffn + 2 * h;
    return m->layers * layer + 2 * (double)m->vocab * h + h;
}

/* nn.c's AdamW: param, grad (bf16), moments (f32) read, param and moments written. */
double whatif_optimizer_ns(const whatif_layout *l, double n)
{
    return mgpu_nn_model_ns(l->topo, 0, MGPU_NN_CLASS_ELEMENTWISE, 1, 14 * n, 22 * n);
}
