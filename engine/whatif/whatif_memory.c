/* whatif_memory.c - one GPU's memory on stage s: bf16 weights and
 * gradients, fp32 master weights and AdamW moments (16 bytes a parameter;
 * the last 12 split over DP with ZeRO-1), the activations the layer ops
 * keep for backward times the micro-batches 1F1B keeps in flight on the
 * stage (min(m, pp - s): the first stage holds pp; with recomputation
 * only each layer's input), and the largest
 * working set of one layer's backward. Not counted: the CUDA context,
 * NCCL's buffers, allocator fragmentation (docs/whatif.md). */
#include <string.h>
#include "whatif/whatif_internal.h"

#define E 2.0

/* What one layer keeps for its backward, per micro-batch: each GEMM's input,
 * the norms' inputs and 1/rms, Q/K/V heads-first, the softmax output, the
 * SwiGLU inputs and output. */
static double layer_saved(const whatif_layout *l)
{
    double b = l->c.micro_batch_size, s = l->c.model.seq, T = b * s, h = l->c.model.hidden, d = l->head_dim;
    double q = (double)l->heads * d, kv = (double)l->kv_heads * d, f = l->ffn;
    return E * T * (4 * h + q + 2 * kv + q + 3 * f) + 2 * 4 * T + E * b * l->heads * s * s;
}

/* One layer's backward at its widest: dP and dS with the Q/K/V gradients
 * (both layouts), or the SwiGLU's three gradients; with dy and dx. */
static double layer_transient(const whatif_layout *l)
{
    double b = l->c.micro_batch_size, s = l->c.model.seq, T = b * s, h = l->c.model.hidden, d = l->head_dim;
    double q = (double)l->heads * d, kv = (double)l->kv_heads * d;
    double attn = E * (2 * b * l->heads * s * s + 2 * T * (q + 2 * kv)), mlp = E * 3 * T * l->ffn;
    return (attn > mlp ? attn : mlp) + 2 * E * T * h;
}

void whatif_stage_memory(const whatif_layout *l, int s, mgpu_whatif_memory *o)
{
    memset(o, 0, sizeof *o);
    int pp = l->c.pp, m = l->m;
    double T = (double)l->c.micro_batch_size * l->c.model.seq, h = l->c.model.hidden;
    o->stage = s;
    o->params = whatif_stage_params(l, s);
    o->weights = E * o->params;
    o->grads = E * o->params;
    o->optimizer = 12 * o->params / (l->c.zero ? l->c.dp : 1);
    o->inflight = pp - s < m ? pp - s : m;
    /* recomputation keeps each layer's input only; the layer being
     * recomputed holds its full set while its backward runs */
    double per_mb = l->layers_per_stage * (l->c.recompute ? E * T * h : layer_saved(l));
    if (s == 0) per_mb += 4 * T;                          /* token ids */
    if (s == pp - 1) per_mb += E * 2 * T * h + 4 * T;     /* final norm's input and output */
    o->activations = o->inflight * per_mb;
    o->transient = layer_transient(l) + (l->c.recompute ? layer_saved(l) : 0);
    if (s == pp - 1) {
        double logits = 2 * E * T * l->vocab; /* logits and their gradient */
        if (logits > o->transient) o->transient = logits;
    }
    o->total = o->weights + o->grads + o->optimizer + o->activations + o->transient;
}
