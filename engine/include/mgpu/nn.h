/* nn.h - training ops on shaped tensors, forward and backward, queued on a
 * stream like any device work: the same calls on every backend (the sim
 * computes on the CPU with OpenBLAS and charges the modelled time; cuda
 * runs cuBLAS and its own kernels).
 *
 * Float tensors are f32 or bf16 and every float tensor of one call has the
 * same dtype, except the ones said to be f32 (statistics, optimizer moments,
 * losses), which are always f32; sums accumulate in f32. Labels and token
 * ids are i32. Shapes are checked: a mismatch is an error naming both
 * shapes. Outputs are overwritten unless a call says it accumulates.
 *
 * Phantom tensors (mgpu_mem_alloc_phantom): when an op's inputs include a
 * phantom, its outputs must be phantom too; the op then only takes its
 * modelled time (sim) and computes nothing. */
#ifndef MGPU_NN_H
#define MGPU_NN_H
#include "mgpu/tensor.h"
#include "mgpu/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What an op is made of, for the compute-time model's efficiency. */
typedef enum mgpu_nn_class {
    MGPU_NN_CLASS_GEMM = 0,   /* tensor-core (bf16) or FMA (f32) bound matrix products */
    MGPU_NN_CLASS_ELEMENTWISE,/* streams its bytes once */
    MGPU_NN_CLASS_REDUCE,     /* norms, softmax, pooling: a few passes */
    MGPU_NN_CLASS_GATHER,     /* im2col / col2im: index arithmetic per element */
    MGPU_NN_CLASS_CONV,       /* conv2d's implicit GEMMs: m, n its output's rows and
                               * cols, batch the parts its reduction is cut in */
    MGPU_NN_CLASS_COUNT
} mgpu_nn_class;

/* One op's work as the compute-time model prices it. */
typedef struct mgpu_nn_work {
    mgpu_nn_class cls;
    double flops;       /* GATHER: elements gathered */
    double bytes;       /* read + written */
    size_t m, n, batch; /* GEMM: C's rows, cols and the batch, for the tile
                         * count (wave quantization); 0: too many to matter */
    int kernels;        /* kernels the op launches on a GPU; 0 counts as 1 */
    struct {            /* CONV, conv2d's data grad (dgrad 1): its geometry. A
                         * stride-s one runs as s*s phase GEMMs in one launch,
                         * each over the output pixels h = a + s*i, w = b + s*j
                         * and the taps that land there (sim_conv_price.c). halo:
                         * cuda runs it on a bf16 halo kernel (nn_ops.h,
                         * mgpu_nn_conv_halo*): 1 the forward or data grad
                         * (k_halo), 2 the weight grad (k_halo_wgrad, batch its
                         * parts, then their combine); 0 the general kernel.
                         * wgrad 1: the weight grad (its threads work out every
                         * column of a tile, and its parts are combined) */
        int dgrad, wgrad, stride, pad, r, halo;
        size_t h, w;
    } conv;
} mgpu_nn_work;

/* What starting one block costs a GATHER kernel (im2col, col2im, the
 * softmax: one block per plane or row), in element accesses, counted into
 * its work: k_im2col on the H200 (ncu) took 0.47 ns more a plane over
 * 7,344 to 130,752 planes of the same accesses, at 990 accesses a ns. */
#define MGPU_NN_GATHER_BLOCK_ACCESSES 470.0

/* The accesses the softmax is priced by (a GATHER), for the op (nn_attn.c)
 * and the what-if (whatif_ops.c) alike. A row of at most 4096 elements, a
 * multiple of 8 (either dtype), is held in registers on cuda (k_rows_reg):
 * read once in 16-byte packs and written once. On an H100 (2026-12-06,
 * fourteenth session) 65536 x 2048 bf16 took 0.267 ms plain and 0.370 ms
 * causal: 1.95 and 2.71 accesses of the model's rate (990 a ns, im2col's)
 * an element. The causal one skips the masked packs' loads yet takes
 * longer - measured, not explained (no profile of it yet). Other rows: the
 * memory kernel's three passes over a row's unmasked part (max, sum,
 * write; half the row on average when causal) and a store of the whole
 * row, one element at a time, each 990/740 of an im2col access (740 a ns
 * for the causal softmax on the H200, ncu). */
static inline double mgpu_nn_softmax_accesses(double rows, double cols, int causal)
{
    if (cols > 0 && cols <= 4096 && (long long)cols % 8 == 0) return rows * cols * (causal ? 2.71 : 1.95);
    double seen = causal ? (cols + 1) / 2 : cols;
    return rows * (3 * seen + cols + MGPU_NN_GATHER_BLOCK_ACCESSES) * (990.0 / 740.0);
}

/* The sim's modelled duration, in ns, of one training op on GPU `gpu`
 * (global index) of `t`: a floor per kernel it launches plus the larger of
 * its FLOPs at the GPU's bf16 tensor-core (or f32) peak and its bytes at
 * HBM bandwidth, each at the class's efficiency; a GEMM's FLOPs run on
 * the SMs its output tiles fill (docs/sim-model.md, "Training ops"). It is
 * exactly what the sim charges a stream for the op, so a planner that
 * prices a schedule with it (the what-if, mgpu/whatif.h) agrees with a
 * phantom run. -1 for a bad GPU or class. */
double mgpu_nn_model_work_ns(const mgpu_topo *t, int gpu, const mgpu_nn_work *w, int bf16);
/* The same for one kernel of work with no GEMM shape. */
double mgpu_nn_model_ns(const mgpu_topo *t, int gpu, mgpu_nn_class cls, int bf16, double flops, double bytes);

typedef enum mgpu_nn_act { MGPU_ACT_RELU = 0, MGPU_ACT_GELU, MGPU_ACT_SILU, MGPU_ACT_COUNT } mgpu_nn_act;
/* "relu", "gelu" (tanh approximation), "silu"; parse returns -1 when unknown */
const char *mgpu_nn_act_name(mgpu_nn_act a);
int mgpu_nn_act_parse(const char *name);

/* 1 when the backend has the ops. */
int mgpu_nn_available(mgpu_backend *be);

/* c = alpha * op(a) @ op(b) + beta * c. a is [.., M, K] ([.., K, M] when
 * ta), b [.., K, N] ([.., N, K] when tb), c [.., M, N]; leading dims (up to
 * two) are a batch: a and c carry it, b carries it too or is 2-dim (shared
 * by every batch entry). */
mgpu_result mgpu_nn_gemm(mgpu_stream *s, const mgpu_tensor *a, int ta, const mgpu_tensor *b, int tb,
                         mgpu_tensor *c, float alpha, float beta);

/* y = x + bias over the last dim (bias [C], x and y [.., C]; y may be x). */
mgpu_result mgpu_nn_bias_add(mgpu_stream *s, const mgpu_tensor *x, const mgpu_tensor *bias, mgpu_tensor *y);
/* db = beta*db + the sum of dy over every dim but the last. */
mgpu_result mgpu_nn_bias_grad(mgpu_stream *s, const mgpu_tensor *dy, mgpu_tensor *db, float beta);

mgpu_result mgpu_nn_activation(mgpu_stream *s, mgpu_nn_act act, const mgpu_tensor *x, mgpu_tensor *y);
mgpu_result mgpu_nn_activation_backward(mgpu_stream *s, mgpu_nn_act act, const mgpu_tensor *x, const mgpu_tensor *dy,
                                 mgpu_tensor *dx);
/* y = silu(gate) * up (all one shape). */
mgpu_result mgpu_nn_swiglu(mgpu_stream *s, const mgpu_tensor *gate, const mgpu_tensor *up, mgpu_tensor *y);
mgpu_result mgpu_nn_swiglu_backward(mgpu_stream *s, const mgpu_tensor *gate, const mgpu_tensor *up,
                                    const mgpu_tensor *dy, mgpu_tensor *dgate, mgpu_tensor *dup);
/* y = alpha*a + beta*b, one shape (y may be a or b): residual adds,
 * gradient accumulation, scaling. */
mgpu_result mgpu_nn_add(mgpu_stream *s, const mgpu_tensor *a, const mgpu_tensor *b, mgpu_tensor *y, float alpha,
                        float beta);

/* Softmax cross-entropy fused with its gradient: logits [N, C], labels
 * [N] i32, loss f32 [2] = {mean loss, rows predicted right}; dlogits [N, C]
 * (may be NULL) = (softmax - onehot) / N. A label outside 0..C-1 is an
 * error on the sim and clamped on cuda (no device-side check). */
mgpu_result mgpu_nn_cross_entropy(mgpu_stream *s, const mgpu_tensor *logits, const mgpu_tensor *labels,
                                  mgpu_tensor *loss, mgpu_tensor *dlogits);

/* SGD with momentum and L2 weight decay: m = mu*m + g + wd*p; p -= lr*m
 * (m f32, p and g one shape). */
mgpu_result mgpu_nn_sgd(mgpu_stream *s, mgpu_tensor *p, const mgpu_tensor *g, mgpu_tensor *m, float lr, float mu,
                        float wd);
/* AdamW in one fused update; step counts from 1 (m, v f32). */
mgpu_result mgpu_nn_adamw(mgpu_stream *s, mgpu_tensor *p, const mgpu_tensor *g, mgpu_tensor *m, mgpu_tensor *v,
                          float lr, float beta1, float beta2, float eps, float wd, int step);
/* acc (f32 [1]) = (accumulate ? acc : 0) + sum of x^2: the squared
 * gradient norm, one tensor at a time. */
mgpu_result mgpu_nn_sumsq(mgpu_stream *s, const mgpu_tensor *x, mgpu_tensor *acc, int accumulate);
/* g *= min(1, max_norm / (sqrt(acc) + 1e-6)): clipping by the total norm
 * without a trip to the host. */
mgpu_result mgpu_nn_clip_scale(mgpu_stream *s, mgpu_tensor *g, const mgpu_tensor *acc, float max_norm);

/* conv2d without bias, im2col + GEMM: x [N, C, H, W], w [K, C, R, R] (R
 * odd or 1), y [N, K, P, Q] with P = (H + 2*pad - R)/stride + 1. */
mgpu_result mgpu_nn_conv2d(mgpu_stream *s, const mgpu_tensor *x, const mgpu_tensor *w, mgpu_tensor *y, int stride,
                           int pad);
/* dw = dL/dw (overwritten); dx (may be NULL: the first layer) = dL/dx. */
mgpu_result mgpu_nn_conv2d_backward(mgpu_stream *s, const mgpu_tensor *x, const mgpu_tensor *w,
                                    const mgpu_tensor *dy, mgpu_tensor *dx, mgpu_tensor *dw, int stride, int pad);

/* Batch norm of x [N, C, H, W] (or [N, C]) per channel; gamma, beta [C]
 * (x's dtype); running mean/var and save mean/invstd f32 [C]. train: batch
 * statistics, saved for backward, running ones updated with momentum
 * (PyTorch's: running = (1-m)*running + m*batch, unbiased var); eval: the
 * running ones. */
mgpu_result mgpu_nn_batchnorm(mgpu_stream *s, const mgpu_tensor *x, const mgpu_tensor *gamma,
                              const mgpu_tensor *beta, mgpu_tensor *running_mean, mgpu_tensor *running_var,
                              mgpu_tensor *save_mean, mgpu_tensor *save_invstd, mgpu_tensor *y, int train,
                              float momentum, float eps);
mgpu_result mgpu_nn_batchnorm_backward(mgpu_stream *s, const mgpu_tensor *x, const mgpu_tensor *gamma,
                                       const mgpu_tensor *save_mean, const mgpu_tensor *save_invstd,
                                       const mgpu_tensor *dy, mgpu_tensor *dx, mgpu_tensor *dgamma,
                                       mgpu_tensor *dbeta);

/* Global average pool: x [N, C, H, W] -> y [N, C]. */
mgpu_result mgpu_nn_avgpool(mgpu_stream *s, const mgpu_tensor *x, mgpu_tensor *y);
mgpu_result mgpu_nn_avgpool_backward(mgpu_stream *s, const mgpu_tensor *dy, mgpu_tensor *dx);

/* RMSNorm (layer = 0, beta NULL) or LayerNorm (layer = 1, beta may be
 * NULL) over the last dim of x [.., D]; gamma, beta [D]; save_mean and
 * save_rstd f32 [rows] (save_mean unused by RMSNorm, may be NULL). */
mgpu_result mgpu_nn_norm(mgpu_stream *s, int layer, const mgpu_tensor *x, const mgpu_tensor *gamma,
                         const mgpu_tensor *beta, mgpu_tensor *y, mgpu_tensor *save_mean, mgpu_tensor *save_rstd,
                         float eps);
mgpu_result mgpu_nn_norm_backward(mgpu_stream *s, int layer, const mgpu_tensor *x, const mgpu_tensor *gamma,
                                  const mgpu_tensor *save_mean, const mgpu_tensor *save_rstd, const mgpu_tensor *dy,
                                  mgpu_tensor *dx, mgpu_tensor *dgamma, mgpu_tensor *dbeta);

/* out [.., D] = table [V, D] rows at ids [..] (i32, each in 0..V-1; an id
 * outside is clamped on cuda and an error on the sim). */
mgpu_result mgpu_nn_embedding(mgpu_stream *s, const mgpu_tensor *ids, const mgpu_tensor *table, mgpu_tensor *out);
/* dtable += dout's rows at ids, in token order (deterministic). */
mgpu_result mgpu_nn_embedding_backward(mgpu_stream *s, const mgpu_tensor *ids, const mgpu_tensor *dout,
                                       mgpu_tensor *dtable);

/* p = softmax(scale * s) over the last dim; causal masks key j > i for the
 * row at position i (its index mod the last dim): attention scores
 * [.., T, T], or [B, Hkv, G*T, T] for G query heads per KV head. */
mgpu_result mgpu_nn_softmax(mgpu_stream *s, const mgpu_tensor *scores, mgpu_tensor *p, float scale, int causal);
/* ds = scale * p * (dp - rowsum(dp * p)). */
mgpu_result mgpu_nn_softmax_backward(mgpu_stream *s, const mgpu_tensor *p, const mgpu_tensor *dp, mgpu_tensor *ds,
                                     float scale);
/* y [A, C, B, D] = x [A, B, C, D] with dims 1 and 2 swapped: [B, T, H, Dh]
 * <-> [B, H, T, Dh] for attention heads. */
mgpu_result mgpu_nn_swap12(mgpu_stream *s, const mgpu_tensor *x, mgpu_tensor *y);

#ifdef __cplusplus
}
#endif
#endif
