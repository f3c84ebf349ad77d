/* whatif_internal.h - what the what-if planner's files share: the checked
 * layout (where each axis's group sits), the priced pieces of one stage's
 * programme, and the 1F1B schedule over them. */
#ifndef MGPU_WHATIF_INTERNAL_H
#define MGPU_WHATIF_INTERNAL_H
#include "mgpu/collmodel.h"
#include "mgpu/topo.h"
#include "mgpu/whatif.h"

/* Where one group of an axis sits: the group of global rank 0 (every other
 * group of the axis is a shifted copy). */
typedef struct whatif_span {
    int size;      /* ranks in the group */
    int nodes;     /* hosts it spans */
    int stride;    /* GPUs between neighbours inside one host (1 when one rank per host) */
} whatif_span;

/* The configuration once checked, with what follows from it. */
typedef struct whatif_layout {
    mgpu_whatif_config c;
    const mgpu_topo *topo;     /* the node model */
    int gpus_per_node, world, nodes, m;
    int layers_per_stage;
    /* per TP rank */
    int heads, kv_heads, head_dim, ffn, vocab;
    whatif_span span[MGPU_WHATIF_AXES]; /* PP: the pair of neighbouring stages */
} whatif_layout;

/* Check c against the node model t; errors name the option. */
mgpu_result whatif_layout_check(const mgpu_whatif_config *c, const mgpu_topo *t, whatif_layout *out);

/* Predicted time (ns) of one call of `op` moving `bytes` in the group `sp`;
 * 0 for a group of one. `pred` (may be NULL) gets the prediction. */
mgpu_result whatif_coll_ns(const whatif_layout *l, const whatif_span *sp, mgpu_coll op, double bytes, double *ns,
                           mgpu_coll_prediction *pred);

/* Priced pieces, ns, of one micro-batch on one rank (TP collectives
 * included) and the bytes the axes move. */
typedef struct whatif_costs {
    double layer_fwd, layer_bwd;          /* compute of one layer */
    double embed_fwd, embed_bwd;          /* stage 0 */
    double head_fwd, head_bwd;            /* the last stage: final norm, LM head, loss */
    double tp_bytes;                      /* one TP all-reduce: [tokens, hidden] bf16 */
    double tp_call;                       /* its time */
    double p2p_bytes, p2p;                /* one activation (or its gradient) between stages */
} whatif_costs;

mgpu_result whatif_costs_price(const whatif_layout *l, whatif_costs *out);

/* Parameters of one rank of stage s. */
double whatif_stage_params(const whatif_layout *l, int s);
double whatif_model_params(const whatif_layout *l);
/* TP all-reduces one micro-batch's forward (backward) makes on stage s. */
long whatif_stage_tp_calls(const whatif_layout *l, int s, int backward);
/* Forward and backward time of one micro-batch on stage s. */
void whatif_stage_times(const whatif_layout *l, const whatif_costs *k, int s, double *fwd, double *bwd);
/* The AdamW step over n parameters. */
double whatif_optimizer_ns(const whatif_layout *l, double n);

/* Memory of one rank of stage s. */
void whatif_stage_memory(const whatif_layout *l, int s, mgpu_whatif_memory *out);

/* What the simulation allocates, counted against a cap (the sandbox's
 * memory cap for a script's call): the schedule's memory grows with the
 * stages, and a script must not reach past its cap through the what-if. */
typedef struct whatif_mem {
    size_t used, limit;
    const char *what;          /* the cap's name for the message */
} whatif_mem;
/* realloc of `old` bytes to `n` bytes of `p`, counted; NULL (with the
 * engine's error set, naming the cap) when it would pass the cap. */
void *whatif_mem_grow(whatif_mem *m, void *p, size_t old, size_t n);
void whatif_mem_free(whatif_mem *m, void *p, size_t n);

/* The 1F1B schedule (Megatron's, send/recv paired in groups as
 * send_forward_recv_backward does), run as each stage's programme with the
 * sim's send/recv timing. fwd[s], bwd[s]: one micro-batch's compute on
 * stage s; p2p: one transfer. end[s] (pp entries): when stage s's last
 * backward ends; busy[s]: its compute. Memory: a few words per stage and
 * the messages in flight between neighbours, never the whole programme. */
mgpu_result whatif_1f1b(int pp, int m, const double *fwd, const double *bwd, double p2p, double *end, double *busy,
                        whatif_mem *mem);

#endif
