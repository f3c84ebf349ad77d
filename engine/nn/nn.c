/* nn.c - the training ops of mgpu/nn.h, first part: activation names, GEMM,
 * the elementwise ops, the loss, the optimizers and gradient clipping. Each
 * op checks its arguments, shapes, dtypes and phantoms, works out its FLOPs
 * and bytes for the compute-time model, and dispatches to the backend's
 * `struct mgpu_nn_ops` (nn_ops.h) through one call (nn_call.h). The other
 * ops: nn_conv.c (conv2d, built from the backend's pieces so every backend
 * runs the same algorithm), nn_norm.c (normalisation, pooling), nn_attn.c
 * (embedding, softmax, swap12). */
#include "nn/nn_call.h"
#include "mgpu/mem.h"
#include "mgpu/nn.h"
#include <math.h>
#include <stdio.h>
#include <string.h>


static const char *act_names[MGPU_ACT_COUNT] = {"relu", "gelu", "silu"};

const char *mgpu_nn_act_name(mgpu_nn_act a) { return (unsigned)a < MGPU_ACT_COUNT ? act_names[a] : "?"; }

int mgpu_nn_act_parse(const char *name)
{
    for (int i = 0; name && i < MGPU_ACT_COUNT; i++)
        if (strcmp(name, act_names[i]) == 0) return i;
    return -1;
}

int mgpu_nn_available(mgpu_backend *be) { return be && mgpu_backend_nn_ops(be) != NULL; }

/*--- GEMM -------------------------------------------------------------------*/

mgpu_result mgpu_nn_gemm(mgpu_stream *s, const mgpu_tensor *a, int ta, const mgpu_tensor *b, int tb,
                         mgpu_tensor *cm, float alpha, float beta)
{
    nn_call c;
    nn_call_init(&c, s, "gemm");
    const void *pa = nn_in(&c, a, "a", K_FLOAT), *pb = nn_in(&c, b, "b", K_FLOAT);
    void *pc = nn_out(&c, cm, "c", K_FLOAT);
    nn_want_apart(&c, cm, "c", a, "a");
    nn_want_apart(&c, cm, "c", b, "b");
    if (c.r != MGPU_OK) return c.r;
    size_t ba, ra, ca, bb, rb, cb, bc, rc, cc;
    nn_mat_dims(a, &ba, &ra, &ca);
    nn_mat_dims(b, &bb, &rb, &cb);
    nn_mat_dims(cm, &bc, &rc, &cc);
    size_t m = ta ? ca : ra, k = ta ? ra : ca, kb = tb ? cb : rb, n = tb ? rb : cb;
    char sa[128], sb[128], sc[128];
    if (k != kb || rc != m || cc != n || ba != bc || (bb != 1 && bb != ba))
        return mgpu_fail(MGPU_ERR_INVALID,
                         "gemm: a %s%s times b %s%s does not give c %s (want [.., %zu, %zu] from inner dims %zu "
                         "and %zu, and one batch)",
                         mgpu_tensor_shape_str(a, sa, sizeof sa), ta ? " transposed" : "",
                         mgpu_tensor_shape_str(b, sb, sizeof sb), tb ? " transposed" : "",
                         mgpu_tensor_shape_str(cm, sc, sizeof sc), m, n, k, kb);
    int ph = nn_phantom_mode(&c);
    if (c.r != MGPU_OK) return c.r;
    if (ph && !nn_models_time(&c)) return MGPU_OK;
    return nn_gemm_raw(&c, ph, ta, tb, m, n, k, ba, pa, m * k, pb, bb == 1 ? 0 : k * n, pc, m * n, alpha, beta);
}

/*--- Elementwise ------------------------------------------------------------*/

mgpu_result mgpu_nn_bias_add(mgpu_stream *s, const mgpu_tensor *x, const mgpu_tensor *bias, mgpu_tensor *y)
{
    nn_call c;
    nn_call_init(&c, s, "bias_add");
    mgpu_nn_args a = {.op = MGPU_NNK_BIAS_ADD};
    a.t[0] = nn_in(&c, x, "x", K_FLOAT);
    a.t[1] = nn_in(&c, bias, "bias", K_FLOAT);
    a.t[2] = nn_out(&c, y, "y", K_FLOAT);
    nn_want_same(&c, y, "y", x, "x");
    if (c.r != MGPU_OK) return c.r;
    nn_rows_cols(x, &a.n[0], &a.n[1]);
    nn_want_dims(&c, bias, "bias", 1, &a.n[1]);
    return nn_run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, (double)x->count);
}

mgpu_result mgpu_nn_bias_grad(mgpu_stream *s, const mgpu_tensor *dy, mgpu_tensor *db, float beta)
{
    nn_call c;
    nn_call_init(&c, s, "bias_grad");
    mgpu_nn_args a = {.op = MGPU_NNK_BIAS_GRAD, .f = {beta}};
    a.t[0] = nn_in(&c, dy, "dy", K_FLOAT);
    a.t[1] = nn_out(&c, db, "db", K_FLOAT);
    if (c.r != MGPU_OK) return c.r;
    nn_rows_cols(dy, &a.n[0], &a.n[1]);
    nn_want_dims(&c, db, "db", 1, &a.n[1]);
    return nn_run_kernels(&c, &a, MGPU_NN_CLASS_REDUCE, (double)dy->count, 2); /* partial sums, combine */
}

static mgpu_result check_act(mgpu_nn_act act, const char *what)
{
    if ((unsigned)act >= MGPU_ACT_COUNT)
        return mgpu_fail(MGPU_ERR_INVALID, "%s: activation %d is not relu, gelu or silu", what, (int)act);
    return MGPU_OK;
}

/* Work per element of each activation, for the model (tanh and exp count a few). */
static double act_flops(mgpu_nn_act act) { return act == MGPU_ACT_RELU ? 1 : act == MGPU_ACT_GELU ? 12 : 6; }

mgpu_result mgpu_nn_activation(mgpu_stream *s, mgpu_nn_act act, const mgpu_tensor *x, mgpu_tensor *y)
{
    MGPU_CHECK(check_act(act, "activation"));
    nn_call c;
    nn_call_init(&c, s, mgpu_nn_act_name(act));
    mgpu_nn_args a = {.op = MGPU_NNK_ACT, .i = {(int)act}};
    a.t[0] = nn_in(&c, x, "x", K_FLOAT);
    a.t[1] = nn_out(&c, y, "y", K_FLOAT);
    nn_want_same(&c, y, "y", x, "x");
    if (c.r != MGPU_OK) return c.r;
    a.n[0] = x->count;
    return nn_run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, act_flops(act) * (double)x->count);
}

mgpu_result mgpu_nn_activation_backward(mgpu_stream *s, mgpu_nn_act act, const mgpu_tensor *x, const mgpu_tensor *dy,
                                 mgpu_tensor *dx)
{
    MGPU_CHECK(check_act(act, "activation backward"));
    nn_call c;
    nn_call_init(&c, s, act == MGPU_ACT_RELU ? "relu_backward" : act == MGPU_ACT_GELU ? "gelu_backward" : "silu_backward");
    mgpu_nn_args a = {.op = MGPU_NNK_ACT_BACKWARD, .i = {(int)act}};
    a.t[0] = nn_in(&c, x, "x", K_FLOAT);
    a.t[1] = nn_in(&c, dy, "dy", K_FLOAT);
    a.t[2] = nn_out(&c, dx, "dx", K_FLOAT);
    nn_want_same(&c, dy, "dy", x, "x");
    nn_want_same(&c, dx, "dx", x, "x");
    if (c.r != MGPU_OK) return c.r;
    a.n[0] = x->count;
    return nn_run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, 2 * act_flops(act) * (double)x->count);
}

mgpu_result mgpu_nn_swiglu(mgpu_stream *s, const mgpu_tensor *gate, const mgpu_tensor *up, mgpu_tensor *y)
{
    nn_call c;
    nn_call_init(&c, s, "swiglu");
    mgpu_nn_args a = {.op = MGPU_NNK_SWIGLU};
    a.t[0] = nn_in(&c, gate, "gate", K_FLOAT);
    a.t[1] = nn_in(&c, up, "up", K_FLOAT);
    a.t[2] = nn_out(&c, y, "y", K_FLOAT);
    nn_want_same(&c, up, "up", gate, "gate");
    nn_want_same(&c, y, "y", gate, "gate");
    if (c.r != MGPU_OK) return c.r;
    a.n[0] = gate->count;
    return nn_run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, 7 * (double)gate->count);
}

mgpu_result mgpu_nn_swiglu_backward(mgpu_stream *s, const mgpu_tensor *gate, const mgpu_tensor *up,
                                    const mgpu_tensor *dy, mgpu_tensor *dgate, mgpu_tensor *dup)
{
    nn_call c;
    nn_call_init(&c, s, "swiglu_backward");
    mgpu_nn_args a = {.op = MGPU_NNK_SWIGLU_BACKWARD};
    a.t[0] = nn_in(&c, gate, "gate", K_FLOAT);
    a.t[1] = nn_in(&c, up, "up", K_FLOAT);
    a.t[2] = nn_in(&c, dy, "dy", K_FLOAT);
    a.t[3] = nn_out(&c, dgate, "dgate", K_FLOAT);
    a.t[4] = nn_out(&c, dup, "dup", K_FLOAT);
    nn_want_same(&c, up, "up", gate, "gate");
    nn_want_same(&c, dy, "dy", gate, "gate");
    nn_want_same(&c, dgate, "dgate", gate, "gate");
    nn_want_same(&c, dup, "dup", gate, "gate");
    if (c.r != MGPU_OK) return c.r;
    a.n[0] = gate->count;
    return nn_run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, 14 * (double)gate->count);
}

mgpu_result mgpu_nn_add(mgpu_stream *s, const mgpu_tensor *x, const mgpu_tensor *b, mgpu_tensor *y, float alpha,
                        float beta)
{
    nn_call c;
    nn_call_init(&c, s, "add");
    mgpu_nn_args a = {.op = MGPU_NNK_ADD, .f = {alpha, beta}};
    a.t[0] = nn_in(&c, x, "a", K_FLOAT);
    a.t[1] = nn_in(&c, b, "b", K_FLOAT);
    a.t[2] = nn_out(&c, y, "y", K_FLOAT);
    nn_want_same(&c, b, "b", x, "a");
    nn_want_same(&c, y, "y", x, "a");
    if (c.r != MGPU_OK) return c.r;
    a.n[0] = x->count;
    return nn_run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, 3 * (double)x->count);
}

/*--- Loss, optimizers, clipping -----------------------------------------------*/

mgpu_result mgpu_nn_cross_entropy(mgpu_stream *s, const mgpu_tensor *logits, const mgpu_tensor *labels,
                                  mgpu_tensor *loss, mgpu_tensor *dlogits)
{
    nn_call c;
    nn_call_init(&c, s, "cross_entropy");
    mgpu_nn_args a = {.op = MGPU_NNK_CROSS_ENTROPY};
    a.t[0] = nn_in(&c, logits, "logits", K_FLOAT);
    a.t[1] = nn_in(&c, labels, "labels", K_I32);
    a.t[2] = nn_out(&c, loss, "loss", K_F32);
    a.t[3] = nn_opt_out(&c, dlogits, "dlogits", K_FLOAT);
    if (c.r != MGPU_OK) return c.r;
    size_t d[MGPU_TENSOR_MAX_DIMS];
    if (nn_want_ndim(&c, logits, "logits", 2, "be [rows, classes]", d) != MGPU_OK) return c.r;
    a.n[0] = d[0];
    a.n[1] = d[1];
    nn_want_dims(&c, labels, "labels", 1, &d[0]);
    size_t two = 2;
    nn_want_dims(&c, loss, "loss", 1, &two);
    nn_want_same(&c, dlogits, "dlogits", logits, "logits");
    return nn_run_kernels(&c, &a, MGPU_NN_CLASS_REDUCE, 8 * (double)logits->count, 2); /* rows, then the mean */
}

mgpu_result mgpu_nn_sgd(mgpu_stream *s, mgpu_tensor *p, const mgpu_tensor *g, mgpu_tensor *m, float lr, float mu,
                        float wd)
{
    nn_call c;
    nn_call_init(&c, s, "sgd");
    mgpu_nn_args a = {.op = MGPU_NNK_SGD, .f = {lr, mu, wd}};
    a.t[0] = nn_out(&c, p, "param", K_FLOAT);
    a.t[1] = nn_in(&c, g, "grad", K_FLOAT);
    a.t[2] = nn_out(&c, m, "momentum", K_F32);
    nn_want_same(&c, g, "grad", p, "param");
    nn_want_count(&c, m, "momentum", p ? p->count : 0);
    if (c.r != MGPU_OK) return c.r;
    a.n[0] = p->count;
    c.bytes += (double)mgpu_tensor_bytes(p) + (double)mgpu_tensor_bytes(m); /* read and written */
    return nn_run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, 5 * (double)p->count);
}

mgpu_result mgpu_nn_adamw(mgpu_stream *s, mgpu_tensor *p, const mgpu_tensor *g, mgpu_tensor *m, mgpu_tensor *v,
                          float lr, float beta1, float beta2, float eps, float wd, int step)
{
    nn_call c;
    nn_call_init(&c, s, "adamw");
    if (c.r == MGPU_OK && step < 1) c.r = mgpu_fail(MGPU_ERR_INVALID, "adamw: step counts from 1, got %d", step);
    mgpu_nn_args a = {.op = MGPU_NNK_ADAMW, .f = {lr, beta1, beta2, eps, wd}};
    a.t[0] = nn_out(&c, p, "param", K_FLOAT);
    a.t[1] = nn_in(&c, g, "grad", K_FLOAT);
    a.t[2] = nn_out(&c, m, "exp_avg", K_F32);
    a.t[3] = nn_out(&c, v, "exp_avg_sq", K_F32);
    nn_want_same(&c, g, "grad", p, "param");
    nn_want_count(&c, m, "exp_avg", p ? p->count : 0);
    nn_want_count(&c, v, "exp_avg_sq", p ? p->count : 0);
    if (c.r != MGPU_OK) return c.r;
    a.n[0] = p->count;
    /* the bias corrections once on the host, in double as PyTorch does
     * (beta1 ** step): pow, not a loop of `step` products - a script may
     * pass any step up to 2^31 - 1 */
    double b1 = pow(beta1, step), b2 = pow(beta2, step);
    a.f[5] = (float)(1 - b1);
    a.f[6] = (float)(1 - b2);
    c.bytes += (double)mgpu_tensor_bytes(p) + (double)mgpu_tensor_bytes(m) + (double)mgpu_tensor_bytes(v);
    return nn_run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, 14 * (double)p->count);
}

mgpu_result mgpu_nn_sumsq(mgpu_stream *s, const mgpu_tensor *x, mgpu_tensor *acc, int accumulate)
{
    nn_call c;
    nn_call_init(&c, s, "sumsq");
    mgpu_nn_args a = {.op = MGPU_NNK_SUMSQ, .i = {accumulate ? 1 : 0}};
    a.t[0] = nn_in(&c, x, "x", K_FLOAT);
    a.t[1] = nn_out(&c, acc, "acc", K_F32);
    nn_want_count(&c, acc, "acc", 1);
    if (c.r != MGPU_OK) return c.r;
    a.n[0] = x->count;
    return nn_run_kernels(&c, &a, MGPU_NN_CLASS_REDUCE, 2 * (double)x->count, 2); /* partials, combine */
}

mgpu_result mgpu_nn_clip_scale(mgpu_stream *s, mgpu_tensor *g, const mgpu_tensor *acc, float max_norm)
{
    nn_call c;
    nn_call_init(&c, s, "clip_grad_norm");
    mgpu_nn_args a = {.op = MGPU_NNK_CLIP_SCALE, .f = {max_norm}};
    a.t[0] = nn_out(&c, g, "grad", K_FLOAT);
    a.t[1] = nn_in(&c, acc, "acc", K_F32);
    nn_want_count(&c, acc, "acc", 1);
    if (c.r == MGPU_OK && !(max_norm > 0))
        c.r = mgpu_fail(MGPU_ERR_INVALID, "clip_grad_norm: max_norm must be > 0, got %g", (double)max_norm);
    if (c.r != MGPU_OK) return c.r;
    a.n[0] = g->count;
    c.bytes += (double)mgpu_tensor_bytes(g);
    return nn_run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, (double)g->count);
}
