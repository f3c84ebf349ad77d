/* nn_call.h - one training op's call, as the op files build it (nn.c,
 * nn_conv.c, nn_norm.c, nn_attn.c): its tensors checked as they are added
 * (live, in range, on the stream's GPU, one float dtype), shape checks whose
 * errors name both shapes, the phantom rule, and the dispatch to the
 * backend's kernels and GEMM with the op's work for the compute-time model
 * (mgpu/nn_ops.h). The first error sticks in `r`; later checks do nothing, so an
 * op checks all its tensors and tests `r` once. */
#ifndef MGPU_NN_CALL_H
#define MGPU_NN_CALL_H
#include "mgpu/nn.h"
#include "mgpu/nn_ops.h"
#include "mgpu/race.h"
#include "mgpu/tensor.h"

/* What a tensor slot holds: the call's float dtype, f32 always, or i32. */
enum { K_FLOAT = 0, K_F32, K_I32 };

typedef struct nn_call {
    mgpu_stream *s;
    const struct mgpu_nn_ops *ops; /* the stream's backend's (mgpu/nn_ops.h) */
    const char *what;      /* "conv2d" */
    mgpu_result r;         /* the first error */
    int have_dtype;
    mgpu_dtype dtype;
    int phantom_in, phantom_out, real_out;
    double bytes;
    mgpu_race_op race;     /* each tensor's read or write, for the race detector */
} nn_call;

void nn_call_init(nn_call *c, mgpu_stream *s, const char *what);

/* One tensor the op reads (nn_in) or writes (nn_out): checked, counted in
 * the op's bytes; returns its device pointer, NULL after an error. */
void *nn_in(nn_call *c, const mgpu_tensor *t, const char *name, int kind);
void *nn_out(nn_call *c, mgpu_tensor *t, const char *name, int kind);
/* An optional output: NULL stays NULL. */
void *nn_opt_out(nn_call *c, mgpu_tensor *t, const char *name, int kind);

/* Shape checks; the error names both shapes. */
void nn_want_dims(nn_call *c, const mgpu_tensor *t, const char *name, int ndim, const size_t *dims);
void nn_want_same(nn_call *c, const mgpu_tensor *t, const char *name, const mgpu_tensor *ref, const char *ref_name);
void nn_want_count(nn_call *c, const mgpu_tensor *t, const char *name, size_t n);
/* An output that must not share memory with an input (an op that reads its
 * input while it writes: gemm's tiles, a transpose). */
void nn_want_apart(nn_call *c, const mgpu_tensor *out, const char *name, const mgpu_tensor *in, const char *in_name);
/* t's dims into d (MGPU_TENSOR_MAX_DIMS of them); when t has not ndim dims,
 * c->r says "OP: NAME is SHAPE but must WANT" (want: "be [N, C, H, W]").
 * Returns c->r. */
mgpu_result nn_want_ndim(nn_call *c, const mgpu_tensor *t, const char *name, int ndim, const char *want, size_t *d);

/* 1: run the op as phantom (price only), 0: compute; sets c->r when real
 * outputs would come from phantom inputs. */
int nn_phantom_mode(nn_call *c);
/* The backend models time (sim) or skips phantom work entirely (cuda). */
int nn_models_time(const nn_call *c);

/* Run one backend kernel (or `kernels` of them: each pays the model's
 * per-kernel floor) with the op's class and FLOPs. */
mgpu_result nn_run_kernels(nn_call *c, mgpu_nn_args *a, mgpu_nn_class cls, double flops, int kernels);
mgpu_result nn_run_kernel(nn_call *c, mgpu_nn_args *a, mgpu_nn_class cls, double flops);

/* A matrix operand's batch (product of the dims before the last two), rows
 * and cols as stored. */
void nn_mat_dims(const mgpu_tensor *t, size_t *batch, size_t *rows, size_t *cols);
/* The rows (every dim but the last) and the last dim of t. */
void nn_rows_cols(const mgpu_tensor *t, size_t *rows, size_t *cols);
/* One strided batched GEMM on raw pointers (gemm and conv2d). */
mgpu_result nn_gemm_raw(nn_call *c, int phantom, int ta, int tb, size_t m, size_t n, size_t k, size_t batch,
                        const void *a, size_t sa, const void *b, size_t sb, void *cm, size_t sc, float alpha,
                        float beta);
/* y [A, C, B, D] = x [A, B, C, D] on raw pointers (swap12 and conv2d). */
mgpu_result nn_swap12_raw(nn_call *c, int phantom, size_t A, size_t B, size_t C, size_t D, const void *x, void *y);

#endif
