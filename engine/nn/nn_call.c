/* nn_call.c - one training op's call (nn_call.h): tensor and shape checks,
 * the phantom rule, and the dispatch of kernels and GEMMs to the backend's
 * nn-ops table with each launch's work for the compute-time model. */
#include "nn/nn_call.h"
#include "mgpu/mem.h"
#include <stdio.h>
#include <string.h>

void nn_call_init(nn_call *c, mgpu_stream *s, const char *what)
{
    memset(c, 0, sizeof *c);
    c->s = s;
    c->what = what;
    /* the op's end is its next op's begin (or any ordering call): its
     * several return paths need no end of their own (mgpu/race.h) */
    mgpu_race_op_begin(&c->race, s, what);
    if (!s) {
        c->r = mgpu_fail(MGPU_ERR_INVALID, "%s: no stream", what);
        return;
    }
    c->ops = mgpu_backend_nn_ops(mgpu_stream_backend(s));
    if (!c->ops)
        c->r = mgpu_fail(MGPU_ERR_UNSUPPORTED, "%s: the %s backend has no training ops in this build", what,
                         mgpu_backend_name(mgpu_stream_backend(s)));
}

static void *ptr_of(const mgpu_tensor *t) { return (char *)t->buf->ptr + t->offset; }

/* Check one tensor: live, in range, on the stream's GPU, of the right
 * dtype. `out` says the op writes it. Returns its device pointer (NULL
 * after an error). */
static void *add(nn_call *c, const mgpu_tensor *t, const char *name, int kind, int out)
{
    if (c->r != MGPU_OK) return NULL;
    char sh[128];
    if (!t || !t->buf) {
        c->r = mgpu_fail(MGPU_ERR_INVALID, "%s: %s is missing (no tensor, or a freed one)", c->what, name);
        return NULL;
    }
    size_t esz = mgpu_dtype_size(t->dtype);
    if (t->offset > t->buf->bytes || t->count > (t->buf->bytes - t->offset) / esz) {
        c->r = mgpu_fail(MGPU_ERR_INVALID, "%s: %s (%s) does not fit its buffer", c->what, name,
                         mgpu_tensor_shape_str(t, sh, sizeof sh));
        return NULL;
    }
    if (t->buf->kind != MGPU_MEM_DEVICE || t->buf->device != mgpu_stream_device(c->s)) {
        c->r = mgpu_fail(MGPU_ERR_INVALID,
                         "%s: %s is in %s memory%s, but the op runs on GPU %d (the stream's); ops take "
                         "device tensors of the stream's GPU",
                         c->what, name, mgpu_mem_kind_name(t->buf->kind),
                         t->buf->kind == MGPU_MEM_DEVICE ? " of another GPU" : "", mgpu_stream_device(c->s));
        return NULL;
    }
    if (kind == K_FLOAT) {
        if (t->dtype != MGPU_F32 && t->dtype != MGPU_BF16) {
            c->r = mgpu_fail(MGPU_ERR_INVALID, "%s: %s is %s; the ops take f32 or bf16", c->what, name,
                             mgpu_tensor_shape_str(t, sh, sizeof sh));
            return NULL;
        }
        if (!c->have_dtype) {
            c->have_dtype = 1;
            c->dtype = t->dtype;
        } else if (t->dtype != c->dtype) {
            c->r = mgpu_fail(MGPU_ERR_INVALID, "%s: %s is %s but the op's other tensors are %s; convert one first",
                             c->what, name, mgpu_tensor_shape_str(t, sh, sizeof sh), mgpu_dtype_name(c->dtype));
            return NULL;
        }
    } else {
        mgpu_dtype want = kind == K_F32 ? MGPU_F32 : MGPU_I32;
        if (t->dtype != want) {
            c->r = mgpu_fail(MGPU_ERR_INVALID, "%s: %s is %s; it must be %s", c->what, name,
                             mgpu_tensor_shape_str(t, sh, sizeof sh), mgpu_dtype_name(want));
            return NULL;
        }
    }
    if (t->buf->phantom) {
        if (out) c->phantom_out++;
        else c->phantom_in++;
    } else if (out) {
        c->real_out++;
    }
    c->bytes += (double)t->count * (double)esz;
    if (out) mgpu_race_write(&c->race, t->buf, t->offset, t->count * esz, t->dtype);
    else mgpu_race_read(&c->race, t->buf, t->offset, t->count * esz, t->dtype);
    return ptr_of(t);
}

void *nn_in(nn_call *c, const mgpu_tensor *t, const char *name, int kind) { return add(c, t, name, kind, 0); }
void *nn_out(nn_call *c, mgpu_tensor *t, const char *name, int kind) { return add(c, t, name, kind, 1); }
/* An optional tensor: NULL stays NULL. */
void *nn_opt_out(nn_call *c, mgpu_tensor *t, const char *name, int kind) { return t ? nn_out(c, t, name, kind) : NULL; }

/* t must have exactly these dims; the error names both shapes. */
void nn_want_dims(nn_call *c, const mgpu_tensor *t, const char *name, int ndim, const size_t *dims)
{
    if (c->r != MGPU_OK || !t) return;
    size_t d[MGPU_TENSOR_MAX_DIMS];
    int nd = mgpu_tensor_dims(t, d);
    int same = nd == ndim;
    for (int i = 0; same && i < nd; i++) same = d[i] == dims[i];
    if (same) return;
    char a[128], b[128];
    mgpu_tensor want = {.dtype = t->dtype, .ndim = ndim};
    size_t n = 1;
    for (int i = 0; i < ndim; i++) n *= (want.shape[i] = dims[i]);
    want.count = n;
    c->r = mgpu_fail(MGPU_ERR_INVALID, "%s: %s is %s but must be %s", c->what, name,
                     mgpu_tensor_shape_str(t, a, sizeof a), mgpu_tensor_shape_str(&want, b, sizeof b));
}

void nn_want_same(nn_call *c, const mgpu_tensor *t, const char *name, const mgpu_tensor *ref, const char *ref_name)
{
    if (c->r != MGPU_OK || !t || !ref || mgpu_tensor_same_shape(t, ref)) return;
    char a[128], b[128];
    c->r = mgpu_fail(MGPU_ERR_INVALID, "%s: %s is %s but %s is %s; they must have one shape", c->what, name,
                     mgpu_tensor_shape_str(t, a, sizeof a), ref_name, mgpu_tensor_shape_str(ref, b, sizeof b));
}

void nn_want_apart(nn_call *c, const mgpu_tensor *out, const char *name, const mgpu_tensor *in, const char *in_name)
{
    if (c->r != MGPU_OK || !out || !in || !out->buf || out->buf != in->buf) return;
    size_t o0 = out->offset, o1 = o0 + mgpu_tensor_bytes(out), i0 = in->offset, i1 = i0 + mgpu_tensor_bytes(in);
    if (o1 <= i0 || i1 <= o0) return;
    if (o0 == i0 && o1 == i1)
        c->r = mgpu_fail(MGPU_ERR_INVALID, "%s: %s is %s (the same memory); the op does not work in place: write %s to "
                         "another tensor", c->what, name, in_name, name);
    else
        c->r = mgpu_fail(MGPU_ERR_INVALID, "%s: %s overlaps %s's memory; the op does not work in place: write %s to "
                         "memory apart from its inputs", c->what, name, in_name, name);
}

void nn_want_count(nn_call *c, const mgpu_tensor *t, const char *name, size_t n)
{
    if (c->r != MGPU_OK || !t || t->count == n) return;
    char a[128];
    c->r = mgpu_fail(MGPU_ERR_INVALID, "%s: %s is %s (%zu elements) but must hold %zu", c->what, name,
                     mgpu_tensor_shape_str(t, a, sizeof a), t->count, n);
}

mgpu_result nn_want_ndim(nn_call *c, const mgpu_tensor *t, const char *name, int ndim, const char *want, size_t *d)
{
    if (c->r != MGPU_OK || mgpu_tensor_dims(t, d) == ndim) return c->r;
    char sh[128];
    return c->r = mgpu_fail(MGPU_ERR_INVALID, "%s: %s is %s but must %s", c->what, name,
                            mgpu_tensor_shape_str(t, sh, sizeof sh), want);
}

/* Phantoms in, real out: nothing could be computed. Returns 1 to run the
 * op as phantom (price only), 0 to compute; sets c->r on the mix. */
int nn_phantom_mode(nn_call *c)
{
    if (c->r != MGPU_OK) return 0;
    if ((c->phantom_in || c->phantom_out) && c->real_out)
        c->r = mgpu_fail(MGPU_ERR_INVALID,
                         "%s: phantom (shape-only) tensors have no values, so the op cannot write a real "
                         "output from them; make every output phantom too, or every input real",
                         c->what);
    return c->phantom_in || c->phantom_out;
}

/* The backend models time (sim) or skips phantom work entirely (cuda). */
int nn_models_time(const nn_call *c) { return mgpu_backend_models_time(mgpu_stream_backend(c->s)); }

/* kernels: how many the op launches on a GPU (cuda's two-stage reductions
 * launch a partial pass, a combine and sometimes an apply); each pays the
 * model's per-kernel floor. */
mgpu_result nn_run_kernels(nn_call *c, mgpu_nn_args *a, mgpu_nn_class cls, double flops, int kernels)
{
    int ph = nn_phantom_mode(c);
    if (c->r != MGPU_OK) return c->r;
    if (ph && !nn_models_time(c)) return MGPU_OK;
    a->dtype = c->have_dtype ? c->dtype : MGPU_F32;
    a->phantom = ph;
    a->cost.name = c->what;
    a->cost.w = (mgpu_nn_work){.cls = cls, .flops = flops, .bytes = c->bytes, .kernels = kernels};
    return c->ops->kernel(c->s, a);
}

mgpu_result nn_run_kernel(nn_call *c, mgpu_nn_args *a, mgpu_nn_class cls, double flops)
{
    return nn_run_kernels(c, a, cls, flops, 1);
}

/* A matrix operand: its batch (product of the dims before the last two),
 * rows and cols as stored. */
void nn_mat_dims(const mgpu_tensor *t, size_t *batch, size_t *rows, size_t *cols)
{
    size_t d[MGPU_TENSOR_MAX_DIMS];
    int nd = mgpu_tensor_dims(t, d);
    *cols = d[nd - 1];
    *rows = nd >= 2 ? d[nd - 2] : 1;
    *batch = 1;
    for (int i = 0; i < nd - 2; i++) *batch *= d[i];
}

/* Rows and the last dim of t. */
void nn_rows_cols(const mgpu_tensor *t, size_t *rows, size_t *cols)
{
    size_t d[MGPU_TENSOR_MAX_DIMS];
    int nd = mgpu_tensor_dims(t, d);
    *cols = d[nd - 1];
    *rows = t->count / *cols;
}

/* One strided batched GEMM on raw pointers (conv2d's pieces call it too). */
mgpu_result nn_gemm_raw(nn_call *c, int phantom, int ta, int tb, size_t m, size_t n, size_t k, size_t batch,
                        const void *a, size_t sa, const void *b, size_t sb, void *cm, size_t sc, float alpha,
                        float beta)
{
    mgpu_nn_gemm_args g = {.dtype = c->dtype, .ta = ta, .tb = tb, .m = m, .n = n, .k = k, .batch = batch,
                           .a = a, .b = b, .c = cm, .stride_a = sa, .stride_b = sb, .stride_c = sc,
                           .alpha = alpha, .beta = beta, .phantom = phantom};
    size_t esz = mgpu_dtype_size(c->dtype);
    g.cost.name = c->what;
    g.cost.w = (mgpu_nn_work){
        .cls = MGPU_NN_CLASS_GEMM,
        .flops = 2.0 * (double)m * (double)n * (double)k * (double)batch,
        .bytes = (double)esz * ((double)(sa ? batch : 1) * (double)(m * k) + (double)(sb ? batch : 1) * (double)(k * n) +
                                (double)batch * (double)(m * n) * (beta != 0 ? 2 : 1)),
        .m = m, .n = n, .batch = batch, .kernels = 1};
    return c->ops->gemm(c->s, &g);
}

/* y [A, C, B, D] = x [A, B, C, D] on raw pointers (conv2d's transposes). */
mgpu_result nn_swap12_raw(nn_call *c, int phantom, size_t A, size_t B, size_t C, size_t D, const void *x, void *y)
{
    mgpu_nn_args a = {.op = MGPU_NNK_SWAP12, .t = {(void *)x, y}, .n = {A, B, C, D}, .dtype = c->dtype,
                      .phantom = phantom};
    a.cost.name = "swap12";
    a.cost.w = (mgpu_nn_work){.cls = MGPU_NN_CLASS_ELEMENTWISE,
                              .bytes = 2.0 * (double)mgpu_dtype_size(c->dtype) * (double)A * (double)B * (double)C * (double)D,
                              .kernels = 1};
    return c->ops->kernel(c->s, &a);
}
