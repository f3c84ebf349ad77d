/* whatif.h - one training step of a Llama-shaped model under DP x TP x PP
 * on a cluster of identical nodes, timing-only: the per-rank programme
 * (Megatron's layer ops, its TP all-reduces, 1F1B pipeline send/recv, the
 * DP gradient exchange and the AdamW step) is simulated in one process,
 * one representative rank per pipeline stage - every rank of a TP or DP
 * group runs the same programme at the same time, so one stands for all.
 * Compute is priced by the sim's training-op model (mgpu_nn_model_ns),
 * collectives and send/recv by NCCL's (mgpu_coll_predict_spread): the same
 * numbers a multi-process phantom run on the sim charges, without starting
 * a process per rank. docs/whatif.md says what is modelled and what not. */
#ifndef MGPU_WHATIF_H
#define MGPU_WHATIF_H
#include <stddef.h>
#include "mgpu/err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The model's shapes (a Llama decoder: RMSNorm, grouped-query attention,
 * SwiGLU MLP; untied embedding and LM head). */
typedef struct mgpu_whatif_model {
    int layers, hidden, ffn, heads, kv_heads, vocab;
    int seq;               /* tokens per sequence */
} mgpu_whatif_model;

typedef struct mgpu_whatif_config {
    mgpu_whatif_model model;
    int dp, tp, pp;
    int micro_batch_size;  /* sequences per micro-batch */
    int micro_batches;     /* per step and DP replica; 0 = global_batch / (dp x micro_batch_size) */
    int global_batch;      /* sequences per step (used when micro_batches is 0) */
    int zero;              /* 0: DP all-reduce of the gradients; 1: distributed optimizer (ZeRO-1:
                            * reduce-scatter the gradients, all-gather the parameters) */
    int recompute;         /* 1: full activation recomputation - each layer keeps only its input and
                            * runs its forward again (TP all-reduces included) before its backward */
    const char *machine;   /* the node: a preset or NCCL XML (its first host); NULL = "dgx-h100" */
    int nodes;             /* 0 = dp x tp x pp / GPUs per node */
    size_t mem_limit;      /* bytes the simulation may allocate; 0 = MGPU_WHATIF_DEFAULT_MEM (a
                            * script's call passes what its sandbox's memory cap leaves) */
    const char *mem_what;  /* that cap's name for the message ("--mem-limit"); NULL = the what-if's own */
} mgpu_whatif_config;

/* The schedule is simulated pass by pass: micro-batches x stages is its
 * size (time), and memory grows with the stages. Both are bounded so a
 * what-if always ends quickly: 2^24 passes is a second's work, far past any
 * real step (Llama 2's 1024 sequences on 4 stages are 4096 passes). */
#define MGPU_WHATIF_MAX_PASSES (1L << 24)
#define MGPU_WHATIF_DEFAULT_MEM ((size_t)256 << 20)

/* Llama-2-70B (80 layers, hidden 8192, FFN 28672, 64 heads / 8 KV heads,
 * vocab 32000, sequence 4096) as the note's DP = 8 x TP = 8 x PP = 4 on 32
 * DGX H100 nodes, micro-batches of 1 sequence, global batch 1024 sequences
 * (Llama 2's 4M tokens), gradients all-reduced. */
void mgpu_whatif_defaults(mgpu_whatif_config *c);

enum { MGPU_WHATIF_TP = 0, MGPU_WHATIF_PP, MGPU_WHATIF_DP, MGPU_WHATIF_AXES };

/* One axis's traffic, per rank and step. */
typedef struct mgpu_whatif_traffic {
    const char *axis;          /* "TP", "PP", "DP" */
    int group;                 /* ranks in the group (1: the axis is not used) */
    char collective[48];       /* "all_reduce", "send/recv", "reduce_scatter + all_gather" */
    double bytes;              /* one call's size (nccl-tests' size: the whole buffer) */
    long calls;                /* per step on the busiest rank */
    int nodes;                 /* hosts one group spans */
    char link[24];             /* "NVLink", "InfiniBand", "-" */
    char algo[24];             /* NCCL's choice: "ring/LL128", "tree/Simple", "p2p/Simple" */
    double call_us;            /* one call's predicted time */
    double total_ms;           /* calls x call time (DP with ZeRO-1: both collectives) */
} mgpu_whatif_traffic;

/* Memory of one GPU, bytes (a representative rank of stage `stage`). */
typedef struct mgpu_whatif_memory {
    int stage;
    double params;             /* the rank's parameter count */
    double weights, grads, optimizer; /* bf16, bf16, fp32 master + m + v */
    double activations;        /* saved for backward: inflight micro-batches x layers */
    double transient;          /* the largest working set of one layer's backward */
    double total;
    int inflight;              /* micro-batches whose activations a 1F1B stage holds at most */
} mgpu_whatif_memory;

typedef struct mgpu_whatif_result {
    char machine[64];          /* the node */
    char gpu[64];              /* its GPU's name */
    int world, nodes, gpus_per_node;
    int micro_batches;
    double params;             /* the model's parameter count, from the shapes */
    double step_ms;            /* the slowest stage's step */
    double pipeline_ms;        /* 1F1B: first forward to last backward */
    double dp_ms, optimizer_ms;
    double fwd_ms, bwd_ms;     /* one micro-batch through a middle stage (TP collectives included) */
    double bubble;             /* idle fraction of the pipeline phase, from the simulated schedule */
    double bubble_ideal;       /* (pp - 1) / (m + pp - 1) */
    double tokens_per_s, mfu;  /* MFU: 6 x params FLOPs per token / (step x world x bf16 peak) */
    double gpu_mem;            /* one GPU's memory */
    mgpu_whatif_memory mem;    /* the stage that needs the most */
    int fits;
    mgpu_whatif_traffic traffic[MGPU_WHATIF_AXES];
} mgpu_whatif_result;

/* Check the configuration (an error names the option: "--tp 3 does not
 * divide the 64 heads") and simulate one step. */
mgpu_result mgpu_whatif_run(const mgpu_whatif_config *c, mgpu_whatif_result *out);

#ifdef __cplusplus
}
#endif
#endif
