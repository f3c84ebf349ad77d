/* nn.c - the training ops of mgpu/nn.h: argument, shape, dtype and phantom
 * checks, each op's FLOPs and bytes for the compute-time model, and the
 * dispatch to the backend's `struct mgpu_nn_ops` (nn_ops.h). Composite ops
 * (conv2d as im2col + GEMM) are built here from the backend's pieces, so
 * every backend runs the same algorithm. */
#include "dev/backend.h"
#include "dev/nn_ops.h"
#include "mgpu/mem.h"
#include "mgpu/nn.h"
#include <stdio.h>
#include <string.h>

/* conv2d's im2col workspace per chunk of images: the batch is cut so that
 * a batch of 256 32x32 images never needs gigabytes of columns. */
#define CONV_WORKSPACE_BYTES ((size_t)32 << 20)

static const char *act_names[MGPU_ACT_COUNT] = {"relu", "gelu", "silu"};

const char *mgpu_nn_act_name(mgpu_nn_act a) { return (unsigned)a < MGPU_ACT_COUNT ? act_names[a] : "?"; }

int mgpu_nn_act_parse(const char *name)
{
    for (int i = 0; name && i < MGPU_ACT_COUNT; i++)
        if (strcmp(name, act_names[i]) == 0) return i;
    return -1;
}

int mgpu_nn_available(mgpu_backend *be) { return be && be->ops->nn != NULL; }

/*--- One call: its tensors, checked as they are added ---------------------*/

/* What a tensor slot holds: the call's float dtype, f32 always, or i32. */
enum { K_FLOAT = 0, K_F32, K_I32 };

typedef struct call {
    mgpu_stream *s;
    const char *what;      /* "conv2d" */
    mgpu_result r;         /* the first error */
    int have_dtype;
    mgpu_dtype dtype;
    int phantom_in, phantom_out, real_out;
    double bytes;
} call;

static void call_init(call *c, mgpu_stream *s, const char *what)
{
    memset(c, 0, sizeof *c);
    c->s = s;
    c->what = what;
    if (!s) c->r = mgpu_fail(MGPU_ERR_INVALID, "%s: no stream", what);
    else if (!s->be->ops->nn)
        c->r = mgpu_fail(MGPU_ERR_UNSUPPORTED, "%s: the %s backend has no training ops in this build", what,
                         s->be->ops->name);
}

static void *ptr_of(const mgpu_tensor *t) { return (char *)t->buf->ptr + t->offset; }

/* Check one tensor: live, in range, on the stream's GPU, of the right
 * dtype. `out` says the op writes it. Returns its device pointer (NULL
 * after an error). */
static void *add(call *c, const mgpu_tensor *t, const char *name, int kind, int out)
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
    if (t->buf->kind != MGPU_MEM_DEVICE || t->buf->device != c->s->device) {
        c->r = mgpu_fail(MGPU_ERR_INVALID,
                         "%s: %s is in %s memory%s, but the op runs on GPU %d (the stream's); ops take "
                         "device tensors of the stream's GPU",
                         c->what, name, mgpu_mem_kind_name(t->buf->kind),
                         t->buf->kind == MGPU_MEM_DEVICE ? " of another GPU" : "", c->s->device);
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
    return ptr_of(t);
}

static void *in(call *c, const mgpu_tensor *t, const char *name, int kind) { return add(c, t, name, kind, 0); }
static void *out(call *c, mgpu_tensor *t, const char *name, int kind) { return add(c, t, name, kind, 1); }
/* An optional tensor: NULL stays NULL. */
static void *opt_out(call *c, mgpu_tensor *t, const char *name, int kind) { return t ? out(c, t, name, kind) : NULL; }

/* t must have exactly these dims; the error names both shapes. */
static void want_dims(call *c, const mgpu_tensor *t, const char *name, int ndim, const size_t *dims)
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

static void want_same(call *c, const mgpu_tensor *t, const char *name, const mgpu_tensor *ref, const char *ref_name)
{
    if (c->r != MGPU_OK || !t || !ref || mgpu_tensor_same_shape(t, ref)) return;
    char a[128], b[128];
    c->r = mgpu_fail(MGPU_ERR_INVALID, "%s: %s is %s but %s is %s; they must have one shape", c->what, name,
                     mgpu_tensor_shape_str(t, a, sizeof a), ref_name, mgpu_tensor_shape_str(ref, b, sizeof b));
}

static void want_count(call *c, const mgpu_tensor *t, const char *name, size_t n)
{
    if (c->r != MGPU_OK || !t || t->count == n) return;
    char a[128];
    c->r = mgpu_fail(MGPU_ERR_INVALID, "%s: %s is %s (%zu elements) but must hold %zu", c->what, name,
                     mgpu_tensor_shape_str(t, a, sizeof a), t->count, n);
}

/* Phantoms in, real out: nothing could be computed. Returns 1 to run the
 * op as phantom (price only), 0 to compute; sets c->r on the mix. */
static int phantom_mode(call *c)
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
static int models_time(const call *c) { return c->s->be->ops->stream_model_time != NULL; }

/* kernels: how many the op launches on a GPU (cuda's two-stage reductions
 * launch a partial pass, a combine and sometimes an apply); each pays the
 * model's per-kernel floor. */
static mgpu_result run_kernels(call *c, mgpu_nn_args *a, mgpu_nn_class cls, double flops, int kernels)
{
    int ph = phantom_mode(c);
    if (c->r != MGPU_OK) return c->r;
    if (ph && !models_time(c)) return MGPU_OK;
    a->dtype = c->have_dtype ? c->dtype : MGPU_F32;
    a->phantom = ph;
    a->cost.name = c->what;
    a->cost.w = (mgpu_nn_work){.cls = cls, .flops = flops, .bytes = c->bytes, .kernels = kernels};
    return c->s->be->ops->nn->kernel(c->s, a);
}

static mgpu_result run_kernel(call *c, mgpu_nn_args *a, mgpu_nn_class cls, double flops)
{
    return run_kernels(c, a, cls, flops, 1);
}

/*--- GEMM -------------------------------------------------------------------*/

/* A matrix operand: its batch (product of the dims before the last two),
 * rows and cols as stored. */
static void mat_dims(const mgpu_tensor *t, size_t *batch, size_t *rows, size_t *cols)
{
    size_t d[MGPU_TENSOR_MAX_DIMS];
    int nd = mgpu_tensor_dims(t, d);
    *cols = d[nd - 1];
    *rows = nd >= 2 ? d[nd - 2] : 1;
    *batch = 1;
    for (int i = 0; i < nd - 2; i++) *batch *= d[i];
}

/* One strided batched GEMM on raw pointers (conv2d's pieces call it too). */
static mgpu_result gemm_raw(call *c, int phantom, int ta, int tb, size_t m, size_t n, size_t k, size_t batch,
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
    return c->s->be->ops->nn->gemm(c->s, &g);
}

mgpu_result mgpu_nn_gemm(mgpu_stream *s, const mgpu_tensor *a, int ta, const mgpu_tensor *b, int tb,
                         mgpu_tensor *cm, float alpha, float beta)
{
    call c;
    call_init(&c, s, "gemm");
    const void *pa = in(&c, a, "a", K_FLOAT), *pb = in(&c, b, "b", K_FLOAT);
    void *pc = out(&c, cm, "c", K_FLOAT);
    if (c.r != MGPU_OK) return c.r;
    size_t ba, ra, ca, bb, rb, cb, bc, rc, cc;
    mat_dims(a, &ba, &ra, &ca);
    mat_dims(b, &bb, &rb, &cb);
    mat_dims(cm, &bc, &rc, &cc);
    size_t m = ta ? ca : ra, k = ta ? ra : ca, kb = tb ? cb : rb, n = tb ? rb : cb;
    char sa[128], sb[128], sc[128];
    if (k != kb || rc != m || cc != n || ba != bc || (bb != 1 && bb != ba))
        return mgpu_fail(MGPU_ERR_INVALID,
                         "gemm: a %s%s times b %s%s does not give c %s (want [.., %zu, %zu] from inner dims %zu "
                         "and %zu, and one batch)",
                         mgpu_tensor_shape_str(a, sa, sizeof sa), ta ? " transposed" : "",
                         mgpu_tensor_shape_str(b, sb, sizeof sb), tb ? " transposed" : "",
                         mgpu_tensor_shape_str(cm, sc, sizeof sc), m, n, k, kb);
    int ph = phantom_mode(&c);
    if (c.r != MGPU_OK) return c.r;
    if (ph && !models_time(&c)) return MGPU_OK;
    return gemm_raw(&c, ph, ta, tb, m, n, k, ba, pa, m * k, pb, bb == 1 ? 0 : k * n, pc, m * n, alpha, beta);
}

/*--- Elementwise ------------------------------------------------------------*/

/* Rows and the last dim of x. */
static void rows_cols(const mgpu_tensor *t, size_t *rows, size_t *cols)
{
    size_t d[MGPU_TENSOR_MAX_DIMS];
    int nd = mgpu_tensor_dims(t, d);
    *cols = d[nd - 1];
    *rows = t->count / *cols;
}

mgpu_result mgpu_nn_bias_add(mgpu_stream *s, const mgpu_tensor *x, const mgpu_tensor *bias, mgpu_tensor *y)
{
    call c;
    call_init(&c, s, "bias_add");
    mgpu_nn_args a = {.op = MGPU_NNK_BIAS_ADD};
    a.t[0] = in(&c, x, "x", K_FLOAT);
    a.t[1] = in(&c, bias, "bias", K_FLOAT);
    a.t[2] = out(&c, y, "y", K_FLOAT);
    want_same(&c, y, "y", x, "x");
    if (c.r != MGPU_OK) return c.r;
    rows_cols(x, &a.n[0], &a.n[1]);
    want_dims(&c, bias, "bias", 1, &a.n[1]);
    return run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, (double)x->count);
}

mgpu_result mgpu_nn_bias_grad(mgpu_stream *s, const mgpu_tensor *dy, mgpu_tensor *db, float beta)
{
    call c;
    call_init(&c, s, "bias_grad");
    mgpu_nn_args a = {.op = MGPU_NNK_BIAS_GRAD, .f = {beta}};
    a.t[0] = in(&c, dy, "dy", K_FLOAT);
    a.t[1] = out(&c, db, "db", K_FLOAT);
    if (c.r != MGPU_OK) return c.r;
    rows_cols(dy, &a.n[0], &a.n[1]);
    want_dims(&c, db, "db", 1, &a.n[1]);
    return run_kernels(&c, &a, MGPU_NN_CLASS_REDUCE, (double)dy->count, 2); /* partial sums, combine */
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
    call c;
    call_init(&c, s, mgpu_nn_act_name(act));
    mgpu_nn_args a = {.op = MGPU_NNK_ACT, .i = {(int)act}};
    a.t[0] = in(&c, x, "x", K_FLOAT);
    a.t[1] = out(&c, y, "y", K_FLOAT);
    want_same(&c, y, "y", x, "x");
    if (c.r != MGPU_OK) return c.r;
    a.n[0] = x->count;
    return run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, act_flops(act) * (double)x->count);
}

mgpu_result mgpu_nn_activation_backward(mgpu_stream *s, mgpu_nn_act act, const mgpu_tensor *x, const mgpu_tensor *dy,
                                 mgpu_tensor *dx)
{
    MGPU_CHECK(check_act(act, "activation backward"));
    call c;
    call_init(&c, s, act == MGPU_ACT_RELU ? "relu_backward" : act == MGPU_ACT_GELU ? "gelu_backward" : "silu_backward");
    mgpu_nn_args a = {.op = MGPU_NNK_ACT_BACKWARD, .i = {(int)act}};
    a.t[0] = in(&c, x, "x", K_FLOAT);
    a.t[1] = in(&c, dy, "dy", K_FLOAT);
    a.t[2] = out(&c, dx, "dx", K_FLOAT);
    want_same(&c, dy, "dy", x, "x");
    want_same(&c, dx, "dx", x, "x");
    if (c.r != MGPU_OK) return c.r;
    a.n[0] = x->count;
    return run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, 2 * act_flops(act) * (double)x->count);
}

mgpu_result mgpu_nn_swiglu(mgpu_stream *s, const mgpu_tensor *gate, const mgpu_tensor *up, mgpu_tensor *y)
{
    call c;
    call_init(&c, s, "swiglu");
    mgpu_nn_args a = {.op = MGPU_NNK_SWIGLU};
    a.t[0] = in(&c, gate, "gate", K_FLOAT);
    a.t[1] = in(&c, up, "up", K_FLOAT);
    a.t[2] = out(&c, y, "y", K_FLOAT);
    want_same(&c, up, "up", gate, "gate");
    want_same(&c, y, "y", gate, "gate");
    if (c.r != MGPU_OK) return c.r;
    a.n[0] = gate->count;
    return run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, 7 * (double)gate->count);
}

mgpu_result mgpu_nn_swiglu_backward(mgpu_stream *s, const mgpu_tensor *gate, const mgpu_tensor *up,
                                    const mgpu_tensor *dy, mgpu_tensor *dgate, mgpu_tensor *dup)
{
    call c;
    call_init(&c, s, "swiglu_backward");
    mgpu_nn_args a = {.op = MGPU_NNK_SWIGLU_BACKWARD};
    a.t[0] = in(&c, gate, "gate", K_FLOAT);
    a.t[1] = in(&c, up, "up", K_FLOAT);
    a.t[2] = in(&c, dy, "dy", K_FLOAT);
    a.t[3] = out(&c, dgate, "dgate", K_FLOAT);
    a.t[4] = out(&c, dup, "dup", K_FLOAT);
    want_same(&c, up, "up", gate, "gate");
    want_same(&c, dy, "dy", gate, "gate");
    want_same(&c, dgate, "dgate", gate, "gate");
    want_same(&c, dup, "dup", gate, "gate");
    if (c.r != MGPU_OK) return c.r;
    a.n[0] = gate->count;
    return run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, 14 * (double)gate->count);
}

mgpu_result mgpu_nn_add(mgpu_stream *s, const mgpu_tensor *x, const mgpu_tensor *b, mgpu_tensor *y, float alpha,
                        float beta)
{
    call c;
    call_init(&c, s, "add");
    mgpu_nn_args a = {.op = MGPU_NNK_ADD, .f = {alpha, beta}};
    a.t[0] = in(&c, x, "a", K_FLOAT);
    a.t[1] = in(&c, b, "b", K_FLOAT);
    a.t[2] = out(&c, y, "y", K_FLOAT);
    want_same(&c, b, "b", x, "a");
    want_same(&c, y, "y", x, "a");
    if (c.r != MGPU_OK) return c.r;
    a.n[0] = x->count;
    return run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, 3 * (double)x->count);
}

/*--- Loss, optimizers, clipping -----------------------------------------------*/

mgpu_result mgpu_nn_cross_entropy(mgpu_stream *s, const mgpu_tensor *logits, const mgpu_tensor *labels,
                                  mgpu_tensor *loss, mgpu_tensor *dlogits)
{
    call c;
    call_init(&c, s, "cross_entropy");
    mgpu_nn_args a = {.op = MGPU_NNK_CROSS_ENTROPY};
    a.t[0] = in(&c, logits, "logits", K_FLOAT);
    a.t[1] = in(&c, labels, "labels", K_I32);
    a.t[2] = out(&c, loss, "loss", K_F32);
    a.t[3] = opt_out(&c, dlogits, "dlogits", K_FLOAT);
    if (c.r != MGPU_OK) return c.r;
    size_t d[MGPU_TENSOR_MAX_DIMS];
    if (mgpu_tensor_dims(logits, d) != 2) {
        char sh[128];
        return mgpu_fail(MGPU_ERR_INVALID, "cross_entropy: logits is %s but must be [rows, classes]",
                         mgpu_tensor_shape_str(logits, sh, sizeof sh));
    }
    a.n[0] = d[0];
    a.n[1] = d[1];
    want_dims(&c, labels, "labels", 1, &d[0]);
    size_t two = 2;
    want_dims(&c, loss, "loss", 1, &two);
    want_same(&c, dlogits, "dlogits", logits, "logits");
    return run_kernels(&c, &a, MGPU_NN_CLASS_REDUCE, 8 * (double)logits->count, 2); /* rows, then the mean */
}

mgpu_result mgpu_nn_sgd(mgpu_stream *s, mgpu_tensor *p, const mgpu_tensor *g, mgpu_tensor *m, float lr, float mu,
                        float wd)
{
    call c;
    call_init(&c, s, "sgd");
    mgpu_nn_args a = {.op = MGPU_NNK_SGD, .f = {lr, mu, wd}};
    a.t[0] = out(&c, p, "param", K_FLOAT);
    a.t[1] = in(&c, g, "grad", K_FLOAT);
    a.t[2] = out(&c, m, "momentum", K_F32);
    want_same(&c, g, "grad", p, "param");
    want_count(&c, m, "momentum", p ? p->count : 0);
    if (c.r != MGPU_OK) return c.r;
    a.n[0] = p->count;
    c.bytes += (double)mgpu_tensor_bytes(p) + (double)mgpu_tensor_bytes(m); /* read and written */
    return run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, 5 * (double)p->count);
}

mgpu_result mgpu_nn_adamw(mgpu_stream *s, mgpu_tensor *p, const mgpu_tensor *g, mgpu_tensor *m, mgpu_tensor *v,
                          float lr, float beta1, float beta2, float eps, float wd, int step)
{
    call c;
    call_init(&c, s, "adamw");
    if (c.r == MGPU_OK && step < 1) c.r = mgpu_fail(MGPU_ERR_INVALID, "adamw: step counts from 1, got %d", step);
    mgpu_nn_args a = {.op = MGPU_NNK_ADAMW, .f = {lr, beta1, beta2, eps, wd}};
    a.t[0] = out(&c, p, "param", K_FLOAT);
    a.t[1] = in(&c, g, "grad", K_FLOAT);
    a.t[2] = out(&c, m, "exp_avg", K_F32);
    a.t[3] = out(&c, v, "exp_avg_sq", K_F32);
    want_same(&c, g, "grad", p, "param");
    want_count(&c, m, "exp_avg", p ? p->count : 0);
    want_count(&c, v, "exp_avg_sq", p ? p->count : 0);
    if (c.r != MGPU_OK) return c.r;
    a.n[0] = p->count;
    /* the bias corrections once on the host, in double as PyTorch does */
    double b1 = 1, b2 = 1;
    for (int i = 0; i < step; i++) b1 *= beta1, b2 *= beta2;
    a.f[5] = (float)(1 - b1);
    a.f[6] = (float)(1 - b2);
    c.bytes += (double)mgpu_tensor_bytes(p) + (double)mgpu_tensor_bytes(m) + (double)mgpu_tensor_bytes(v);
    return run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, 14 * (double)p->count);
}

mgpu_result mgpu_nn_sumsq(mgpu_stream *s, const mgpu_tensor *x, mgpu_tensor *acc, int accumulate)
{
    call c;
    call_init(&c, s, "sumsq");
    mgpu_nn_args a = {.op = MGPU_NNK_SUMSQ, .i = {accumulate ? 1 : 0}};
    a.t[0] = in(&c, x, "x", K_FLOAT);
    a.t[1] = out(&c, acc, "acc", K_F32);
    want_count(&c, acc, "acc", 1);
    if (c.r != MGPU_OK) return c.r;
    a.n[0] = x->count;
    return run_kernels(&c, &a, MGPU_NN_CLASS_REDUCE, 2 * (double)x->count, 2); /* partials, combine */
}

mgpu_result mgpu_nn_clip_scale(mgpu_stream *s, mgpu_tensor *g, const mgpu_tensor *acc, float max_norm)
{
    call c;
    call_init(&c, s, "clip_grad_norm");
    mgpu_nn_args a = {.op = MGPU_NNK_CLIP_SCALE, .f = {max_norm}};
    a.t[0] = out(&c, g, "grad", K_FLOAT);
    a.t[1] = in(&c, acc, "acc", K_F32);
    want_count(&c, acc, "acc", 1);
    if (c.r == MGPU_OK && !(max_norm > 0))
        c.r = mgpu_fail(MGPU_ERR_INVALID, "clip_grad_norm: max_norm must be > 0, got %g", (double)max_norm);
    if (c.r != MGPU_OK) return c.r;
    a.n[0] = g->count;
    c.bytes += (double)mgpu_tensor_bytes(g);
    return run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, (double)g->count);
}

/*--- conv2d: im2col + GEMM ----------------------------------------------------*/

typedef struct conv_geom {
    size_t n, cin, h, w, k, r, p, q;
    int stride, pad;
} conv_geom;

/* y is the output (forward) or its gradient (backward), named y_name. */
static void conv_check(call *c, const mgpu_tensor *x, const mgpu_tensor *w, const mgpu_tensor *y, const char *y_name,
                       int stride, int pad, conv_geom *g)
{
    if (c->r != MGPU_OK) return;
    size_t dx[MGPU_TENSOR_MAX_DIMS], dw[MGPU_TENSOR_MAX_DIMS];
    char a[128], b[128];
    if (mgpu_tensor_dims(x, dx) != 4 || mgpu_tensor_dims(w, dw) != 4 || dw[2] != dw[3]) {
        c->r = mgpu_fail(MGPU_ERR_INVALID, "%s: x %s must be [N, C, H, W] and w %s [K, C, R, R]", c->what,
                         mgpu_tensor_shape_str(x, a, sizeof a), mgpu_tensor_shape_str(w, b, sizeof b));
        return;
    }
    if (dw[1] != dx[1]) {
        c->r = mgpu_fail(MGPU_ERR_INVALID, "%s: x %s has %zu channels but w %s takes %zu", c->what,
                         mgpu_tensor_shape_str(x, a, sizeof a), dx[1], mgpu_tensor_shape_str(w, b, sizeof b), dw[1]);
        return;
    }
    if (stride < 1 || pad < 0 || dx[2] + 2 * (size_t)pad < dw[2] || dx[3] + 2 * (size_t)pad < dw[2]) {
        c->r = mgpu_fail(MGPU_ERR_INVALID, "%s: stride %d and padding %d do not fit a %zux%zu kernel over %s", c->what,
                         stride, pad, dw[2], dw[2], mgpu_tensor_shape_str(x, a, sizeof a));
        return;
    }
    *g = (conv_geom){.n = dx[0], .cin = dx[1], .h = dx[2], .w = dx[3], .k = dw[0], .r = dw[2], .stride = stride,
                     .pad = pad};
    g->p = (g->h + 2 * (size_t)pad - g->r) / (size_t)stride + 1;
    g->q = (g->w + 2 * (size_t)pad - g->r) / (size_t)stride + 1;
    size_t want[4] = {g->n, g->k, g->p, g->q};
    want_dims(c, y, y_name, 4, want);
}

/* 1x1, stride 1, no padding: x itself is the column matrix. */
static int conv_is_pointwise(const conv_geom *g) { return g->r == 1 && g->stride == 1 && g->pad == 0; }

/* Images per chunk when each image needs `per_image` bytes of workspace
 * (every buffer the chunk's pieces use, counted together). */
static size_t conv_chunk(const conv_geom *g, size_t per_image)
{
    size_t nb = CONV_WORKSPACE_BYTES / per_image;
    if (nb < 1) nb = 1;
    return nb > g->n ? g->n : nb;
}

/* layout: MGPU_NN_COL_BY_IMAGE or MGPU_NN_COL_BY_ROW (nn_ops.h). */
static mgpu_result im2col(call *c, int phantom, mgpu_nn_kernel op, const conv_geom *g, size_t nb, int layout,
                          void *img, void *col)
{
    mgpu_nn_args a = {.op = op, .t = {img, col}, .n = {nb, g->cin, g->h, g->w, g->r, g->p, g->q},
                      .i = {g->stride, g->pad, layout}, .dtype = c->dtype, .phantom = phantom};
    size_t esz = mgpu_dtype_size(c->dtype);
    a.cost.name = op == MGPU_NNK_IM2COL ? "im2col" : "col2im";
    /* Priced by the column elements it works out (the index arithmetic per
     * element bounds it on a GPU, not the bytes: docs/sim-model.md). */
    double cols = (double)nb * (double)(g->cin * g->r * g->r * g->p * g->q), xs = (double)nb * (double)(g->cin * g->h * g->w);
    /* Element accesses, as a GPU makes them, one element per thread and
     * load: im2col loads and stores each column, one block per column row
     * of an image (a plane); col2im sums, for each image element, the
     * R x R taps that read it, from as many rows of the column matrix - a
     * gather whose loads measured half im2col's rate (380 against 990 a
     * ns on the H200), so each counts twice - one block per image channel. */
    int back = op == MGPU_NNK_COL2IM;
    double planes = (double)nb * (double)(back ? g->cin : g->cin * g->r * g->r);
    a.cost.w = (mgpu_nn_work){.cls = MGPU_NN_CLASS_GATHER,
                              .flops = (back ? 2 * cols + xs : 2 * cols) + MGPU_NN_GATHER_BLOCK_ACCESSES * planes,
                              .bytes = (double)esz * (xs + cols), .kernels = 1};
    return c->s->be->ops->nn->kernel(c->s, &a);
}

/* y [A, C, B, D] = x [A, B, C, D] on raw pointers (conv2d's transposes). */
static mgpu_result swap12_raw(call *c, int phantom, size_t A, size_t B, size_t C, size_t D, const void *x, void *y)
{
    mgpu_nn_args a = {.op = MGPU_NNK_SWAP12, .t = {(void *)x, y}, .n = {A, B, C, D}, .dtype = c->dtype,
                      .phantom = phantom};
    a.cost.name = "swap12";
    a.cost.w = (mgpu_nn_work){.cls = MGPU_NN_CLASS_ELEMENTWISE,
                              .bytes = 2.0 * (double)mgpu_dtype_size(c->dtype) * (double)A * (double)B * (double)C * (double)D,
                              .kernels = 1};
    return c->s->be->ops->nn->kernel(c->s, &a);
}

/* A workspace for nb images' columns on the stream (phantom when the op is). */
static mgpu_result workspace(call *c, int phantom, size_t bytes, mgpu_buffer **out)
{
    if (phantom) return mgpu_mem_alloc_phantom(c->s->be, c->s->device, c->s, bytes, 1, out);
    return mgpu_mem_alloc_stream(c->s, bytes, out);
}

mgpu_result mgpu_nn_conv2d(mgpu_stream *s, const mgpu_tensor *x, const mgpu_tensor *w, mgpu_tensor *y, int stride,
                           int pad)
{
    call c;
    call_init(&c, s, "conv2d");
    char *px = in(&c, x, "x", K_FLOAT);
    const void *pw = in(&c, w, "w", K_FLOAT);
    char *py = out(&c, y, "y", K_FLOAT);
    conv_geom g;
    conv_check(&c, x, w, y, "y", stride, pad, &g);
    int ph = phantom_mode(&c);
    if (c.r != MGPU_OK) return c.r;
    if (ph && !models_time(&c)) return MGPU_OK;
    size_t esz = mgpu_dtype_size(c.dtype), crr = g.cin * g.r * g.r, pq = g.p * g.q;
    if (conv_is_pointwise(&g)) /* y[n] = w [K, C] @ x[n] [C, HW] */
        return gemm_raw(&c, ph, 0, 0, g.k, pq, crr, g.n, pw, 0, px, crr * pq, py, g.k * pq, 1, 0);
    size_t nb = conv_chunk(&g, crr * pq * esz);
    mgpu_buffer *ws = NULL;
    MGPU_CHECK(workspace(&c, ph, nb * crr * pq * esz, &ws));
    mgpu_result r = MGPU_OK;
    for (size_t n0 = 0; n0 < g.n && r == MGPU_OK; n0 += nb) {
        size_t m = g.n - n0 < nb ? g.n - n0 : nb;
        r = im2col(&c, ph, MGPU_NNK_IM2COL, &g, m, MGPU_NN_COL_BY_IMAGE, px + n0 * g.cin * g.h * g.w * esz,
                   ws->ptr);
        if (r == MGPU_OK)
            r = gemm_raw(&c, ph, 0, 0, g.k, pq, crr, m, pw, 0, ws->ptr, crr * pq, py + n0 * g.k * pq * esz, g.k * pq,
                         1, 0);
    }
    mgpu_mem_free(ws);
    return r;
}

/* The gradients chunk by chunk of m images, each piece one GEMM:
 *   dyT [K, m*PQ]   = dy [m, K, PQ] with its first two dims swapped
 *   colT [CRR, m*PQ] = the chunk's columns, laid out by row (im2col)
 *   dw [K, CRR]     (+)= dyT @ colT^T   (k = m*PQ: the sum over images
 *                       happens inside the GEMM, in f32, one rounding)
 *   dcolT [CRR, m*PQ] = w^T [CRR, K] @ dyT, then col2im into dx.
 * Pointwise (1x1, stride 1, no padding) x is its own column matrix: colT
 * is x [m, C, HW] swapped to [C, m*HW], and dx[n] = w^T @ dy[n] directly.
 * Chunks add into dw (beta 1 after the first), so dw rounds once per chunk
 * in bf16; the workspace holds dyT and colT (dcolT reuses colT). */
mgpu_result mgpu_nn_conv2d_backward(mgpu_stream *s, const mgpu_tensor *x, const mgpu_tensor *w,
                                    const mgpu_tensor *dy, mgpu_tensor *dx, mgpu_tensor *dw, int stride, int pad)
{
    call c;
    call_init(&c, s, "conv2d_backward");
    char *px = in(&c, x, "x", K_FLOAT);
    const void *pw = in(&c, w, "w", K_FLOAT);
    char *pdy = in(&c, dy, "dy", K_FLOAT);
    char *pdx = opt_out(&c, dx, "dx", K_FLOAT);
    char *pdw = out(&c, dw, "dw", K_FLOAT);
    conv_geom g;
    conv_check(&c, x, w, dy, "dy", stride, pad, &g);
    want_same(&c, dx, "dx", x, "x");
    want_same(&c, dw, "dw", w, "w");
    int ph = phantom_mode(&c);
    if (c.r != MGPU_OK) return c.r;
    if (ph && !models_time(&c)) return MGPU_OK;
    size_t esz = mgpu_dtype_size(c.dtype), crr = g.cin * g.r * g.r, pq = g.p * g.q, img = g.cin * g.h * g.w;
    int pw1 = conv_is_pointwise(&g);
    size_t nb = conv_chunk(&g, (crr + g.k) * pq * esz);
    mgpu_buffer *ws = NULL;
    size_t col_bytes = (nb * crr * pq * esz + 255) / 256 * 256; /* dyT aligned as cuBLAS and packed loads like */
    MGPU_CHECK(workspace(&c, ph, col_bytes + nb * g.k * pq * esz, &ws));
    char *colT = ws->ptr, *dyT = colT + col_bytes;
    mgpu_result r = MGPU_OK;
    for (size_t n0 = 0; n0 < g.n && r == MGPU_OK; n0 += nb) {
        size_t m = g.n - n0 < nb ? g.n - n0 : nb, mpq = m * pq;
        char *xn = px + n0 * img * esz, *dyn = pdy + n0 * g.k * pq * esz;
        r = swap12_raw(&c, ph, 1, m, g.k, pq, dyn, dyT);
        if (r == MGPU_OK)
            r = pw1 ? swap12_raw(&c, ph, 1, m, g.cin, pq, xn, colT)
                    : im2col(&c, ph, MGPU_NNK_IM2COL, &g, m, MGPU_NN_COL_BY_ROW, xn, colT);
        if (r == MGPU_OK)
            r = gemm_raw(&c, ph, 0, 1, g.k, crr, mpq, 1, dyT, 0, colT, 0, pdw, 0, 1, n0 == 0 ? 0 : 1);
        if (!pdx || r != MGPU_OK) continue;
        char *dxn = pdx + n0 * img * esz;
        if (pw1) { /* dx[n] [C, HW] = w^T [C, K] @ dy[n] [K, HW] */
            r = gemm_raw(&c, ph, 1, 0, crr, pq, g.k, m, pw, 0, dyn, g.k * pq, dxn, crr * pq, 1, 0);
            continue;
        }
        r = gemm_raw(&c, ph, 1, 0, crr, mpq, g.k, 1, pw, 0, dyT, 0, colT, 0, 1, 0);
        if (r == MGPU_OK) r = im2col(&c, ph, MGPU_NNK_COL2IM, &g, m, MGPU_NN_COL_BY_ROW, dxn, colT);
    }
    mgpu_mem_free(ws);
    return r;
}

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
    call c;
    call_init(&c, s, train ? "batchnorm" : "batchnorm_eval");
    mgpu_nn_args a = {.op = MGPU_NNK_BATCHNORM, .i = {train ? 1 : 0}, .f = {momentum, eps}};
    a.t[0] = in(&c, x, "x", K_FLOAT);
    a.t[1] = in(&c, gamma, "gamma", K_FLOAT);
    a.t[2] = in(&c, beta, "beta", K_FLOAT);
    a.t[3] = out(&c, running_mean, "running_mean", K_F32);
    a.t[4] = out(&c, running_var, "running_var", K_F32);
    a.t[5] = train ? out(&c, save_mean, "save_mean", K_F32) : NULL;
    a.t[6] = train ? out(&c, save_invstd, "save_invstd", K_F32) : NULL;
    a.t[7] = out(&c, y, "y", K_FLOAT);
    if (c.r != MGPU_OK) return c.r;
    if (x->ndim != 2 && x->ndim != 4) {
        char sh[128];
        return mgpu_fail(MGPU_ERR_INVALID, "%s: x is %s but must be [N, C, H, W] or [N, C]", c.what,
                         mgpu_tensor_shape_str(x, sh, sizeof sh));
    }
    nc_rest(x, &a.n[0], &a.n[1], &a.n[2]);
    want_same(&c, y, "y", x, "x");
    want_dims(&c, gamma, "gamma", 1, &a.n[1]);
    want_dims(&c, beta, "beta", 1, &a.n[1]);
    want_count(&c, running_mean, "running_mean", a.n[1]);
    want_count(&c, running_var, "running_var", a.n[1]);
    if (train) want_count(&c, save_mean, "save_mean", a.n[1]);
    if (train) want_count(&c, save_invstd, "save_invstd", a.n[1]);
    if (c.r == MGPU_OK && train && a.n[0] * a.n[2] < 2)
        c.r = mgpu_fail(MGPU_ERR_INVALID, "batchnorm: training needs more than one value per channel");
    if (train) c.bytes += (double)mgpu_tensor_bytes(x); /* statistics pass */
    /* training: statistics partials, their combine, the apply; eval: the apply */
    return run_kernels(&c, &a, MGPU_NN_CLASS_REDUCE, 6 * (double)x->count, train ? 3 : 1);
}

mgpu_result mgpu_nn_batchnorm_backward(mgpu_stream *s, const mgpu_tensor *x, const mgpu_tensor *gamma,
                                       const mgpu_tensor *save_mean, const mgpu_tensor *save_invstd,
                                       const mgpu_tensor *dy, mgpu_tensor *dx, mgpu_tensor *dgamma,
                                       mgpu_tensor *dbeta)
{
    call c;
    call_init(&c, s, "batchnorm_backward");
    mgpu_nn_args a = {.op = MGPU_NNK_BATCHNORM_BACKWARD};
    a.t[0] = in(&c, x, "x", K_FLOAT);
    a.t[1] = in(&c, gamma, "gamma", K_FLOAT);
    a.t[2] = in(&c, save_mean, "save_mean", K_F32);
    a.t[3] = in(&c, save_invstd, "save_invstd", K_F32);
    a.t[4] = in(&c, dy, "dy", K_FLOAT);
    a.t[5] = out(&c, dx, "dx", K_FLOAT);
    a.t[6] = out(&c, dgamma, "dgamma", K_FLOAT);
    a.t[7] = out(&c, dbeta, "dbeta", K_FLOAT);
    if (c.r != MGPU_OK) return c.r;
    nc_rest(x, &a.n[0], &a.n[1], &a.n[2]);
    want_same(&c, dy, "dy", x, "x");
    want_same(&c, dx, "dx", x, "x");
    want_dims(&c, gamma, "gamma", 1, &a.n[1]);
    want_same(&c, dgamma, "dgamma", gamma, "gamma");
    want_same(&c, dbeta, "dbeta", gamma, "gamma");
    want_count(&c, save_mean, "save_mean", a.n[1]);
    want_count(&c, save_invstd, "save_invstd", a.n[1]);
    c.bytes += (double)mgpu_tensor_bytes(x) + (double)mgpu_tensor_bytes(dy); /* two passes */
    return run_kernels(&c, &a, MGPU_NN_CLASS_REDUCE, 8 * (double)x->count, 3); /* partials, combine, dx */
}

mgpu_result mgpu_nn_avgpool(mgpu_stream *s, const mgpu_tensor *x, mgpu_tensor *y)
{
    call c;
    call_init(&c, s, "avgpool");
    mgpu_nn_args a = {.op = MGPU_NNK_AVGPOOL};
    a.t[0] = in(&c, x, "x", K_FLOAT);
    a.t[1] = out(&c, y, "y", K_FLOAT);
    if (c.r != MGPU_OK) return c.r;
    size_t d[MGPU_TENSOR_MAX_DIMS];
    if (mgpu_tensor_dims(x, d) != 4) {
        char sh[128];
        return mgpu_fail(MGPU_ERR_INVALID, "avgpool: x is %s but must be [N, C, H, W]", mgpu_tensor_shape_str(x, sh, sizeof sh));
    }
    want_dims(&c, y, "y", 2, d);
    a.n[0] = d[0] * d[1];
    a.n[1] = d[2] * d[3];
    return run_kernel(&c, &a, MGPU_NN_CLASS_REDUCE, (double)x->count);
}

mgpu_result mgpu_nn_avgpool_backward(mgpu_stream *s, const mgpu_tensor *dy, mgpu_tensor *dx)
{
    call c;
    call_init(&c, s, "avgpool_backward");
    mgpu_nn_args a = {.op = MGPU_NNK_AVGPOOL_BACKWARD};
    a.t[0] = in(&c, dy, "dy", K_FLOAT);
    a.t[1] = out(&c, dx, "dx", K_FLOAT);
    if (c.r != MGPU_OK) return c.r;
    size_t d[MGPU_TENSOR_MAX_DIMS];
    if (mgpu_tensor_dims(dx, d) != 4) {
        char sh[128];
        return mgpu_fail(MGPU_ERR_INVALID, "avgpool_backward: dx is %s but must be [N, C, H, W]",
                         mgpu_tensor_shape_str(dx, sh, sizeof sh));
    }
    want_dims(&c, dy, "dy", 2, d);
    a.n[0] = d[0] * d[1];
    a.n[1] = d[2] * d[3];
    return run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, (double)dx->count);
}

mgpu_result mgpu_nn_norm(mgpu_stream *s, int layer, const mgpu_tensor *x, const mgpu_tensor *gamma,
                         const mgpu_tensor *beta, mgpu_tensor *y, mgpu_tensor *save_mean, mgpu_tensor *save_rstd,
                         float eps)
{
    call c;
    call_init(&c, s, layer ? "layernorm" : "rmsnorm");
    mgpu_nn_args a = {.op = MGPU_NNK_NORM, .i = {layer ? 1 : 0}, .f = {eps}};
    a.t[0] = in(&c, x, "x", K_FLOAT);
    a.t[1] = in(&c, gamma, "gamma", K_FLOAT);
    if (c.r == MGPU_OK && beta && !layer) c.r = mgpu_fail(MGPU_ERR_INVALID, "rmsnorm has no beta");
    a.t[2] = beta ? in(&c, beta, "beta", K_FLOAT) : NULL;
    a.t[3] = out(&c, y, "y", K_FLOAT);
    a.t[4] = layer ? out(&c, save_mean, "save_mean", K_F32) : NULL;
    a.t[5] = out(&c, save_rstd, "save_rstd", K_F32);
    if (c.r != MGPU_OK) return c.r;
    rows_cols(x, &a.n[0], &a.n[1]);
    want_same(&c, y, "y", x, "x");
    want_dims(&c, gamma, "gamma", 1, &a.n[1]);
    want_dims(&c, beta, "beta", 1, &a.n[1]);
    if (layer) want_count(&c, save_mean, "save_mean", a.n[0]);
    want_count(&c, save_rstd, "save_rstd", a.n[0]);
    return run_kernel(&c, &a, MGPU_NN_CLASS_REDUCE, 6 * (double)x->count);
}

mgpu_result mgpu_nn_norm_backward(mgpu_stream *s, int layer, const mgpu_tensor *x, const mgpu_tensor *gamma,
                                  const mgpu_tensor *save_mean, const mgpu_tensor *save_rstd, const mgpu_tensor *dy,
                                  mgpu_tensor *dx, mgpu_tensor *dgamma, mgpu_tensor *dbeta)
{
    call c;
    call_init(&c, s, layer ? "layernorm_backward" : "rmsnorm_backward");
    mgpu_nn_args a = {.op = MGPU_NNK_NORM_BACKWARD, .i = {layer ? 1 : 0}};
    a.t[0] = in(&c, x, "x", K_FLOAT);
    a.t[1] = in(&c, gamma, "gamma", K_FLOAT);
    a.t[2] = layer ? in(&c, save_mean, "save_mean", K_F32) : NULL;
    a.t[3] = in(&c, save_rstd, "save_rstd", K_F32);
    a.t[4] = in(&c, dy, "dy", K_FLOAT);
    a.t[5] = out(&c, dx, "dx", K_FLOAT);
    a.t[6] = out(&c, dgamma, "dgamma", K_FLOAT);
    if (c.r == MGPU_OK && dbeta && !layer) c.r = mgpu_fail(MGPU_ERR_INVALID, "rmsnorm_backward: rmsnorm has no beta");
    a.t[7] = opt_out(&c, dbeta, "dbeta", K_FLOAT);
    if (c.r != MGPU_OK) return c.r;
    rows_cols(x, &a.n[0], &a.n[1]);
    want_same(&c, dy, "dy", x, "x");
    want_same(&c, dx, "dx", x, "x");
    want_dims(&c, gamma, "gamma", 1, &a.n[1]);
    want_same(&c, dgamma, "dgamma", gamma, "gamma");
    want_same(&c, dbeta, "dbeta", gamma, "gamma");
    if (layer) want_count(&c, save_mean, "save_mean", a.n[0]);
    want_count(&c, save_rstd, "save_rstd", a.n[0]);
    return run_kernels(&c, &a, MGPU_NN_CLASS_REDUCE, 10 * (double)x->count, 3); /* dx rows; dgamma, dbeta: partials, combine */
}

/*--- Embedding, attention pieces ------------------------------------------------*/

static void embedding_check(call *c, const mgpu_tensor *ids, const mgpu_tensor *table, const mgpu_tensor *o,
                            const char *oname, mgpu_nn_args *a)
{
    if (c->r != MGPU_OK) return;
    size_t dt[MGPU_TENSOR_MAX_DIMS], di[MGPU_TENSOR_MAX_DIMS];
    char sh[128];
    int ni = mgpu_tensor_dims(ids, di);
    if (mgpu_tensor_dims(table, dt) != 2 || ni >= MGPU_TENSOR_MAX_DIMS) {
        c->r = mgpu_fail(MGPU_ERR_INVALID, "%s: the table is %s but must be [vocab, dim] (ids up to 3 dims)", c->what,
                         mgpu_tensor_shape_str(table, sh, sizeof sh));
        return;
    }
    di[ni] = dt[1];
    want_dims(c, o, oname, ni + 1, di);
    a->n[0] = ids->count;
    a->n[1] = dt[1];
    a->n[2] = dt[0];
}

mgpu_result mgpu_nn_embedding(mgpu_stream *s, const mgpu_tensor *ids, const mgpu_tensor *table, mgpu_tensor *o)
{
    call c;
    call_init(&c, s, "embedding");
    mgpu_nn_args a = {.op = MGPU_NNK_EMBEDDING};
    a.t[0] = in(&c, ids, "ids", K_I32);
    a.t[1] = in(&c, table, "table", K_FLOAT);
    a.t[2] = out(&c, o, "out", K_FLOAT);
    embedding_check(&c, ids, table, o, "out", &a);
    if (c.r != MGPU_OK) return c.r;
    c.bytes -= (double)mgpu_tensor_bytes(table); /* only the rows read */
    c.bytes += (double)mgpu_tensor_bytes(o);
    return run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, 0);
}

mgpu_result mgpu_nn_embedding_backward(mgpu_stream *s, const mgpu_tensor *ids, const mgpu_tensor *dout,
                                       mgpu_tensor *dtable)
{
    call c;
    call_init(&c, s, "embedding_backward");
    mgpu_nn_args a = {.op = MGPU_NNK_EMBEDDING_BACKWARD};
    a.t[0] = in(&c, ids, "ids", K_I32);
    a.t[1] = in(&c, dout, "dout", K_FLOAT);
    a.t[2] = out(&c, dtable, "dtable", K_FLOAT);
    embedding_check(&c, ids, dtable, dout, "dout", &a);
    if (c.r != MGPU_OK) return c.r;
    c.bytes += (double)mgpu_tensor_bytes(dout) - (double)mgpu_tensor_bytes(dtable);
    return run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, (double)dout->count);
}

mgpu_result mgpu_nn_softmax(mgpu_stream *s, const mgpu_tensor *scores, mgpu_tensor *p, float scale, int causal)
{
    call c;
    call_init(&c, s, causal ? "softmax_causal" : "softmax");
    mgpu_nn_args a = {.op = MGPU_NNK_SOFTMAX, .f = {scale}, .i = {causal ? 1 : 0}};
    a.t[0] = in(&c, scores, "scores", K_FLOAT);
    a.t[1] = out(&c, p, "p", K_FLOAT);
    want_same(&c, p, "p", scores, "scores");
    if (c.r != MGPU_OK) return c.r;
    rows_cols(scores, &a.n[0], &a.n[1]);
    /* A gather on a GPU: the row limit of the causal mask cuts 16-byte
     * packs, so the kernel loads one element at a time, in three passes
     * (max, sum, write) over the row's unmasked part - on average half of
     * it when causal - and stores the whole row. Priced by those accesses. */
    double cols = (double)a.n[1], seen = causal ? (cols + 1) / 2 : cols;
    return run_kernel(&c, &a, MGPU_NN_CLASS_GATHER, (double)a.n[0] * (3 * seen + cols + MGPU_NN_GATHER_BLOCK_ACCESSES));
}

mgpu_result mgpu_nn_softmax_backward(mgpu_stream *s, const mgpu_tensor *p, const mgpu_tensor *dp, mgpu_tensor *ds,
                                     float scale)
{
    call c;
    call_init(&c, s, "softmax_backward");
    mgpu_nn_args a = {.op = MGPU_NNK_SOFTMAX_BACKWARD, .f = {scale}};
    a.t[0] = in(&c, p, "p", K_FLOAT);
    a.t[1] = in(&c, dp, "dp", K_FLOAT);
    a.t[2] = out(&c, ds, "ds", K_FLOAT);
    want_same(&c, dp, "dp", p, "p");
    want_same(&c, ds, "ds", p, "p");
    if (c.r != MGPU_OK) return c.r;
    rows_cols(p, &a.n[0], &a.n[1]);
    return run_kernel(&c, &a, MGPU_NN_CLASS_REDUCE, 4 * (double)p->count);
}

mgpu_result mgpu_nn_swap12(mgpu_stream *s, const mgpu_tensor *x, mgpu_tensor *y)
{
    call c;
    call_init(&c, s, "swap12");
    mgpu_nn_args a = {.op = MGPU_NNK_SWAP12};
    a.t[0] = in(&c, x, "x", K_FLOAT);
    a.t[1] = out(&c, y, "y", K_FLOAT);
    if (c.r != MGPU_OK) return c.r;
    size_t d[MGPU_TENSOR_MAX_DIMS];
    if (mgpu_tensor_dims(x, d) != 4) {
        char sh[128];
        return mgpu_fail(MGPU_ERR_INVALID, "swap12: x is %s but must have 4 dims", mgpu_tensor_shape_str(x, sh, sizeof sh));
    }
    size_t want[4] = {d[0], d[2], d[1], d[3]};
    want_dims(&c, y, "y", 4, want);
    if (c.r == MGPU_OK && x->buf == y->buf && x->offset == y->offset)
        c.r = mgpu_fail(MGPU_ERR_INVALID, "swap12: y must not be x (the swap is not in place)");
    memcpy(a.n, d, sizeof d);
    return run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, 0);
}
