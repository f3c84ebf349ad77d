/* nn_norm.c - normalisation and pooling ops: batchnorm, layernorm and
 * rmsnorm, average pooling, forward and backward. */
#include "nn/nn_call.h"
#include "mgpu/mem.h"
#include <stdio.h>
#include <string.h>

/*--- Normalisation and pooling -------------------------------------------------*/

/* x [N, C, ...]: N, C and the rest's size. */
static void nc_rest(const mgpu_tensor *x, size_t *n, size_t *ch, size_t *rest)
{
    size_t d[MGPU_TENSOR_MAX_DIMS];
    int nd = mgpu_tensor_dims(x, d);
    *n = d[0];
    *ch = nd > 1 ? d[1] : 1;
    *rest = x->count / (*n * *ch);
}

mgpu_result mgpu_nn_batchnorm(mgpu_stream *s, const mgpu_tensor *x, const mgpu_tensor *gamma,
                              const mgpu_tensor *beta, mgpu_tensor *running_mean, mgpu_tensor *running_var,
                              mgpu_tensor *save_mean, mgpu_tensor *save_invstd, mgpu_tensor *y, int train,
                              float momentum, float eps)
{
    nn_call c;
    nn_call_init(&c, s, train ? "batchnorm" : "batchnorm_eval");
    mgpu_nn_args a = {.op = MGPU_NNK_BATCHNORM, .i = {train ? 1 : 0}, .f = {momentum, eps}};
    a.t[0] = nn_in(&c, x, "x", K_FLOAT);
    a.t[1] = nn_in(&c, gamma, "gamma", K_FLOAT);
    a.t[2] = nn_in(&c, beta, "beta", K_FLOAT);
    a.t[3] = nn_out(&c, running_mean, "running_mean", K_F32);
    a.t[4] = nn_out(&c, running_var, "running_var", K_F32);
    a.t[5] = train ? nn_out(&c, save_mean, "save_mean", K_F32) : NULL;
    a.t[6] = train ? nn_out(&c, save_invstd, "save_invstd", K_F32) : NULL;
    a.t[7] = nn_out(&c, y, "y", K_FLOAT);
    if (c.r != MGPU_OK) return c.r;
    if (x->ndim != 2 && x->ndim != 4) {
        char sh[128];
        return mgpu_fail(MGPU_ERR_INVALID, "%s: x is %s but must be [N, C, H, W] or [N, C]", c.what,
                         mgpu_tensor_shape_str(x, sh, sizeof sh));
    }
    nc_rest(x, &a.n[0], &a.n[1], &a.n[2]);
    nn_want_same(&c, y, "y", x, "x");
    nn_want_dims(&c, gamma, "gamma", 1, &a.n[1]);
    nn_want_dims(&c, beta, "beta", 1, &a.n[1]);
    nn_want_count(&c, running_mean, "running_mean", a.n[1]);
    nn_want_count(&c, running_var, "running_var", a.n[1]);
    if (train) nn_want_count(&c, save_mean, "save_mean", a.n[1]);
    if (train) nn_want_count(&c, save_invstd, "save_invstd", a.n[1]);
    if (c.r == MGPU_OK && train && a.n[0] * a.n[2] < 2)
        c.r = mgpu_fail(MGPU_ERR_INVALID, "batchnorm: training needs more than one value per channel");
    if (train) c.bytes += (double)mgpu_tensor_bytes(x); /* statistics pass */
    /* training: statistics partials, their combine, the apply; eval: the apply */
    return nn_run_kernels(&c, &a, MGPU_NN_CLASS_REDUCE, 6 * (double)x->count, train ? 3 : 1);
}

mgpu_result mgpu_nn_batchnorm_backward(mgpu_stream *s, const mgpu_tensor *x, const mgpu_tensor *gamma,
                                       const mgpu_tensor *save_mean, const mgpu_tensor *save_invstd,
                                       const mgpu_tensor *dy, mgpu_tensor *dx, mgpu_tensor *dgamma,
                                       mgpu_tensor *dbeta)
{
    nn_call c;
    nn_call_init(&c, s, "batchnorm_backward");
    mgpu_nn_args a = {.op = MGPU_NNK_BATCHNORM_BACKWARD};
    a.t[0] = nn_in(&c, x, "x", K_FLOAT);
    a.t[1] = nn_in(&c, gamma, "gamma", K_FLOAT);
    a.t[2] = nn_in(&c, save_mean, "save_mean", K_F32);
    a.t[3] = nn_in(&c, save_invstd, "save_invstd", K_F32);
    a.t[4] = nn_in(&c, dy, "dy", K_FLOAT);
    a.t[5] = nn_out(&c, dx, "dx", K_FLOAT);
    a.t[6] = nn_out(&c, dgamma, "dgamma", K_FLOAT);
    a.t[7] = nn_out(&c, dbeta, "dbeta", K_FLOAT);
    if (c.r != MGPU_OK) return c.r;
    nc_rest(x, &a.n[0], &a.n[1], &a.n[2]);
    nn_want_same(&c, dy, "dy", x, "x");
    nn_want_same(&c, dx, "dx", x, "x");
    nn_want_dims(&c, gamma, "gamma", 1, &a.n[1]);
    nn_want_same(&c, dgamma, "dgamma", gamma, "gamma");
    nn_want_same(&c, dbeta, "dbeta", gamma, "gamma");
    nn_want_count(&c, save_mean, "save_mean", a.n[1]);
    nn_want_count(&c, save_invstd, "save_invstd", a.n[1]);
    c.bytes += (double)mgpu_tensor_bytes(x) + (double)mgpu_tensor_bytes(dy); /* two passes */
    return nn_run_kernels(&c, &a, MGPU_NN_CLASS_REDUCE, 8 * (double)x->count, 3); /* partials, combine, dx */
}

mgpu_result mgpu_nn_avgpool(mgpu_stream *s, const mgpu_tensor *x, mgpu_tensor *y)
{
    nn_call c;
    nn_call_init(&c, s, "avgpool");
    mgpu_nn_args a = {.op = MGPU_NNK_AVGPOOL};
    a.t[0] = nn_in(&c, x, "x", K_FLOAT);
    a.t[1] = nn_out(&c, y, "y", K_FLOAT);
    if (c.r != MGPU_OK) return c.r;
    size_t d[MGPU_TENSOR_MAX_DIMS];
    if (nn_want_ndim(&c, x, "x", 4, "be [N, C, H, W]", d) != MGPU_OK) return c.r;
    nn_want_dims(&c, y, "y", 2, d);
    a.n[0] = d[0] * d[1];
    a.n[1] = d[2] * d[3];
    return nn_run_kernel(&c, &a, MGPU_NN_CLASS_REDUCE, (double)x->count);
}

mgpu_result mgpu_nn_avgpool_backward(mgpu_stream *s, const mgpu_tensor *dy, mgpu_tensor *dx)
{
    nn_call c;
    nn_call_init(&c, s, "avgpool_backward");
    mgpu_nn_args a = {.op = MGPU_NNK_AVGPOOL_BACKWARD};
    a.t[0] = nn_in(&c, dy, "dy", K_FLOAT);
    a.t[1] = nn_out(&c, dx, "dx", K_FLOAT);
    if (c.r != MGPU_OK) return c.r;
    size_t d[MGPU_TENSOR_MAX_DIMS];
    if (nn_want_ndim(&c, dx, "dx", 4, "be [N, C, H, W]", d) != MGPU_OK) return c.r;
    nn_want_dims(&c, dy, "dy", 2, d);
    a.n[0] = d[0] * d[1];
    a.n[1] = d[2] * d[3];
    return nn_run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, (double)dx->count);
}

mgpu_result mgpu_nn_norm(mgpu_stream *s, int layer, const mgpu_tensor *x, const mgpu_tensor *gamma,
                         const mgpu_tensor *beta, mgpu_tensor *y, mgpu_tensor *save_mean, mgpu_tensor *save_rstd,
                         float eps)
{
    nn_call c;
    nn_call_init(&c, s, layer ? "layernorm" : "rmsnorm");
    mgpu_nn_args a = {.op = MGPU_NNK_NORM, .i = {layer ? 1 : 0}, .f = {eps}};
    a.t[0] = nn_in(&c, x, "x", K_FLOAT);
    a.t[1] = nn_in(&c, gamma, "gamma", K_FLOAT);
    if (c.r == MGPU_OK && beta && !layer) c.r = mgpu_fail(MGPU_ERR_INVALID, "rmsnorm has no beta");
    a.t[2] = beta ? nn_in(&c, beta, "beta", K_FLOAT) : NULL;
    a.t[3] = nn_out(&c, y, "y", K_FLOAT);
    a.t[4] = layer ? nn_out(&c, save_mean, "save_mean", K_F32) : NULL;
    a.t[5] = nn_out(&c, save_rstd, "save_rstd", K_F32);
    if (c.r != MGPU_OK) return c.r;
    nn_rows_cols(x, &a.n[0], &a.n[1]);
    nn_want_same(&c, y, "y", x, "x");
    nn_want_dims(&c, gamma, "gamma", 1, &a.n[1]);
    nn_want_dims(&c, beta, "beta", 1, &a.n[1]);
    if (layer) nn_want_count(&c, save_mean, "save_mean", a.n[0]);
    nn_want_count(&c, save_rstd, "save_rstd", a.n[0]);
    /* A row in registers streams at HBM's rate (an H100: 0.097 ms for
     * 16384 x 4096 bf16, 2.8 TB/s); the memory kernel's passes are bound by
     * the SMs (REDUCE). */
    mgpu_nn_class cls = mgpu_nn_row_in_registers(a.n[1], mgpu_dtype_size(x->dtype)) ? MGPU_NN_CLASS_ELEMENTWISE
                                                                                     : MGPU_NN_CLASS_REDUCE;
    return nn_run_kernel(&c, &a, cls, 6 * (double)x->count);
}

mgpu_result mgpu_nn_norm_backward(mgpu_stream *s, int layer, const mgpu_tensor *x, const mgpu_tensor *gamma,
                                  const mgpu_tensor *save_mean, const mgpu_tensor *save_rstd, const mgpu_tensor *dy,
                                  mgpu_tensor *dx, mgpu_tensor *dgamma, mgpu_tensor *dbeta)
{
    nn_call c;
    nn_call_init(&c, s, layer ? "layernorm_backward" : "rmsnorm_backward");
    mgpu_nn_args a = {.op = MGPU_NNK_NORM_BACKWARD, .i = {layer ? 1 : 0}};
    a.t[0] = nn_in(&c, x, "x", K_FLOAT);
    a.t[1] = nn_in(&c, gamma, "gamma", K_FLOAT);
    a.t[2] = layer ? nn_in(&c, save_mean, "save_mean", K_F32) : NULL;
    a.t[3] = nn_in(&c, save_rstd, "save_rstd", K_F32);
    a.t[4] = nn_in(&c, dy, "dy", K_FLOAT);
    a.t[5] = nn_out(&c, dx, "dx", K_FLOAT);
    a.t[6] = nn_out(&c, dgamma, "dgamma", K_FLOAT);
    if (c.r == MGPU_OK && dbeta && !layer) c.r = mgpu_fail(MGPU_ERR_INVALID, "rmsnorm_backward: rmsnorm has no beta");
    a.t[7] = nn_opt_out(&c, dbeta, "dbeta", K_FLOAT);
    if (c.r != MGPU_OK) return c.r;
    nn_rows_cols(x, &a.n[0], &a.n[1]);
    nn_want_same(&c, dy, "dy", x, "x");
    nn_want_same(&c, dx, "dx", x, "x");
    nn_want_dims(&c, gamma, "gamma", 1, &a.n[1]);
    nn_want_same(&c, dgamma, "dgamma", gamma, "gamma");
    nn_want_same(&c, dbeta, "dbeta", gamma, "gamma");
    if (layer) nn_want_count(&c, save_mean, "save_mean", a.n[0]);
    nn_want_count(&c, save_rstd, "save_rstd", a.n[0]);
    /* One pass (mgpu_nn_norm_back_one_pass): x and dy read once, dx
     * written once, and the chunks' column partials written and read back
     * by the combine - a streaming kernel's rate (an H100, rmsnorm 16384 x
     * 4096: 0.150 ms bf16, 0.295 ms f32, 2.7 TB/s). Otherwise dx rows,
     * then partials and a combine that read x and dy a second time: 5
     * tensors' bytes, not 3 (0.380 ms for 16384 x 4096 bf16, 1.77 TB/s of
     * those bytes - the SMs' rate). */
    if (mgpu_nn_norm_back_one_pass(a.n[0], a.n[1], mgpu_dtype_size(x->dtype))) {
        c.bytes += 2.0 * (double)mgpu_nn_norm_back_chunks(a.n[0]) * (double)a.n[1] * sizeof(float) * (layer ? 2 : 1);
        /* Its work is counted as instructions an element, which the model
         * issues at one a lane a cycle (ELEMENTWISE's half of the f32 FMA
         * peak): the bf16 kernel's 403 MB took 0.178-0.187 ms on an H100,
         * 370 elements a ns, about 88 instructions each (unpacking, the
         * row sums, the column partials), so per-element work binds it, not
         * HBM; f32's 805 MB stay HBM-bound (sim_model.c, docs/sim-model.md) */
        return nn_run_kernels(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, MGPU_NN_NORM_BACK_INSTR * (double)x->count, 2);
    }
    c.bytes += (double)mgpu_tensor_bytes(x) + (double)mgpu_tensor_bytes(dy);
    return nn_run_kernels(&c, &a, MGPU_NN_CLASS_REDUCE, 10 * (double)x->count, 3);
}
