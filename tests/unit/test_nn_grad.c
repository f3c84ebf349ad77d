/* test_nn_grad.c - every training op's backward against central finite
 * differences of its forward on the sim (f32), the optimizers against
 * their formulas, bf16 against f32, shape errors, phantom ops and the
 * compute-time model. The loss is L = sum(y * R) for a fixed random R, so
 * dL/dy = R is what each backward gets. Sim device memory is host memory,
 * so the test reads and writes it directly after a stream sync. */
#include "mgpu/mem.h"
#include "mgpu/nn.h"
#include "tap.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static mgpu_backend *be;
static mgpu_stream *s;

static float *F(const mgpu_tensor *t) { return (float *)((char *)t->buf->ptr + t->offset); }

static mgpu_tensor mk_dt(mgpu_dtype dt, int nd, size_t d0, size_t d1, size_t d2, size_t d3, uint64_t seed)
{
    size_t dims[4] = {d0, d1, d2, d3};
    mgpu_tensor t;
    if (mgpu_tensor_alloc_shape(be, MGPU_MEM_DEVICE, 0, dt, nd, dims, &t) != MGPU_OK) {
        fprintf(stderr, "alloc: %s\n", mgpu_error_message());
        exit(1);
    }
    mgpu_fill_spec fs = {seed ? MGPU_FILL_RANDOM : MGPU_FILL_CONST, seed, 0};
    mgpu_tensor_fill(s, &t, &fs);
    mgpu_stream_synchronize(s);
    return t;
}

static mgpu_tensor mk(int nd, size_t d0, size_t d1, size_t d2, size_t d3, uint64_t seed)
{
    return mk_dt(MGPU_F32, nd, d0, d1, d2, d3, seed);
}

/* The forward under test: reads the case's inputs, writes its output y. */
typedef struct fd_case {
    void (*fwd)(struct fd_case *c);
    mgpu_tensor y, r;   /* output and the loss weights */
    mgpu_tensor in[6];
    int iv[4];
    float fv[4];
} fd_case;

static double loss_of(fd_case *c)
{
    c->fwd(c);
    mgpu_stream_synchronize(s);
    double l = 0;
    for (size_t i = 0; i < c->y.count; i++) l += (double)F(&c->y)[i] * F(&c->r)[i];
    return l;
}

/* Compare the analytic gradient `g` of input x with finite differences at
 * up to 40 elements spread over x. `kink` skips elements within h of 0
 * (ReLU). */
static void fd_check(const char *name, fd_case *c, mgpu_tensor *x, const mgpu_tensor *g, int kink)
{
    const float h = 1e-2f;
    size_t step = x->count > 40 ? x->count / 40 : 1;
    double worst = 0;
    size_t bad = 0, at = 0;
    for (size_t i = 0; i < x->count; i += step) {
        float *p = &F(x)[i], keep = *p;
        if (kink && fabsf(keep) < 2 * h) continue;
        *p = keep + h;
        double lp = loss_of(c);
        *p = keep - h;
        double lm = loss_of(c);
        *p = keep;
        double num = (lp - lm) / (2 * h), ana = F(g)[i];
        double err = fabs(num - ana) / fmax(1.0, fabs(num));
        if (err > worst) worst = err, at = i;
        if (err > 1e-3) bad++;
    }
    loss_of(c);
    if (getenv("NN_GRAD_VERBOSE")) printf("%-36s worst relative error %.2e (%zu elements)\n", name, worst, x->count);
    CHECKF(bad == 0, "%s: %zu elements off; worst relative error %.3g at %zu", name, bad, worst, at);
}

/*--- The ops' forwards --------------------------------------------------------*/

static void f_gemm(fd_case *c) { mgpu_nn_gemm(s, &c->in[0], c->iv[0], &c->in[1], c->iv[1], &c->y, 1, 0); }

static void test_gemm(int ta, int tb, int batched)
{
    size_t M = 5, N = 4, K = 3, B = batched ? 2 : 1;
    fd_case c = {.fwd = f_gemm, .iv = {ta, tb}};
    int nd = batched ? 3 : 2;
    c.in[0] = batched ? mk(3, B, ta ? K : M, ta ? M : K, 0, 1) : mk(2, ta ? K : M, ta ? M : K, 0, 0, 1);
    c.in[1] = batched ? mk(3, B, tb ? N : K, tb ? K : N, 0, 2) : mk(2, tb ? N : K, tb ? K : N, 0, 0, 2);
    c.y = batched ? mk(3, B, M, N, 0, 0) : mk(2, M, N, 0, 0, 0);
    c.r = batched ? mk(3, B, M, N, 0, 3) : mk(2, M, N, 0, 0, 3);
    (void)nd;
    /* dA = dY op(B)^T (stored as A is), dB = op(A)^T dY */
    mgpu_tensor da = batched ? mk(3, B, ta ? K : M, ta ? M : K, 0, 0) : mk(2, ta ? K : M, ta ? M : K, 0, 0, 0);
    mgpu_tensor db = batched ? mk(3, B, tb ? N : K, tb ? K : N, 0, 0) : mk(2, tb ? N : K, tb ? K : N, 0, 0, 0);
    if (!ta) CHECK_OK(mgpu_nn_gemm(s, &c.r, 0, &c.in[1], !tb, &da, 1, 0));
    else CHECK_OK(mgpu_nn_gemm(s, &c.in[1], tb, &c.r, 1, &da, 1, 0));
    if (!tb) CHECK_OK(mgpu_nn_gemm(s, &c.in[0], !ta, &c.r, 0, &db, 1, 0));
    else CHECK_OK(mgpu_nn_gemm(s, &c.r, 1, &c.in[0], ta, &db, 1, 0));
    char name[64];
    snprintf(name, sizeof name, "gemm ta=%d tb=%d batch=%zu dA", ta, tb, B);
    fd_check(name, &c, &c.in[0], &da, 0);
    snprintf(name, sizeof name, "gemm ta=%d tb=%d batch=%zu dB", ta, tb, B);
    fd_check(name, &c, &c.in[1], &db, 0);
    for (int i = 0; i < 2; i++) mgpu_tensor_free(&c.in[i]);
    mgpu_tensor_free(&c.y), mgpu_tensor_free(&c.r), mgpu_tensor_free(&da), mgpu_tensor_free(&db);
}

static void free_case(fd_case *c)
{
    for (int i = 0; i < 6; i++)
        if (c->in[i].buf) mgpu_tensor_free(&c->in[i]);
    mgpu_tensor_free(&c->y);
    mgpu_tensor_free(&c->r);
}

static void f_bias(fd_case *c) { mgpu_nn_bias_add(s, &c->in[0], &c->in[1], &c->y); }

static void test_bias(void)
{
    fd_case c = {.fwd = f_bias};
    c.in[0] = mk(3, 2, 3, 4, 0, 1);
    c.in[1] = mk(1, 4, 0, 0, 0, 2);
    c.y = mk(3, 2, 3, 4, 0, 0);
    c.r = mk(3, 2, 3, 4, 0, 3);
    mgpu_tensor db = mk(1, 4, 0, 0, 0, 0);
    CHECK_OK(mgpu_nn_bias_grad(s, &c.r, &db, 0));
    fd_check("bias_add dbias", &c, &c.in[1], &db, 0);
    /* dx is dy itself */
    fd_check("bias_add dx", &c, &c.in[0], &c.r, 0);
    mgpu_tensor_free(&db);
    free_case(&c);
}

static void f_act(fd_case *c) { mgpu_nn_activation(s, (mgpu_nn_act)c->iv[0], &c->in[0], &c->y); }

static void test_act(mgpu_nn_act act)
{
    fd_case c = {.fwd = f_act, .iv = {(int)act}};
    c.in[0] = mk(2, 6, 7, 0, 0, 11);
    c.y = mk(2, 6, 7, 0, 0, 0);
    c.r = mk(2, 6, 7, 0, 0, 12);
    mgpu_tensor dx = mk(2, 6, 7, 0, 0, 0);
    CHECK_OK(mgpu_nn_activation_backward(s, act, &c.in[0], &c.r, &dx));
    fd_check(mgpu_nn_act_name(act), &c, &c.in[0], &dx, act == MGPU_ACT_RELU);
    mgpu_tensor_free(&dx);
    free_case(&c);
}

static void f_swiglu(fd_case *c) { mgpu_nn_swiglu(s, &c->in[0], &c->in[1], &c->y); }

static void test_swiglu(void)
{
    fd_case c = {.fwd = f_swiglu};
    c.in[0] = mk(2, 4, 6, 0, 0, 1);
    c.in[1] = mk(2, 4, 6, 0, 0, 2);
    c.y = mk(2, 4, 6, 0, 0, 0);
    c.r = mk(2, 4, 6, 0, 0, 3);
    mgpu_tensor dg = mk(2, 4, 6, 0, 0, 0), du = mk(2, 4, 6, 0, 0, 0);
    CHECK_OK(mgpu_nn_swiglu_backward(s, &c.in[0], &c.in[1], &c.r, &dg, &du));
    fd_check("swiglu dgate", &c, &c.in[0], &dg, 0);
    fd_check("swiglu dup", &c, &c.in[1], &du, 0);
    mgpu_tensor_free(&dg), mgpu_tensor_free(&du);
    free_case(&c);
}

/* cross entropy: the loss itself is the output (y = loss[0], r = {1, 0}) */
static void f_ce(fd_case *c) { mgpu_nn_cross_entropy(s, &c->in[0], &c->in[1], &c->y, NULL); }

static void test_cross_entropy(void)
{
    fd_case c = {.fwd = f_ce};
    size_t n = 6, k = 5;
    c.in[0] = mk(2, n, k, 0, 0, 4);
    size_t dn = n;
    mgpu_tensor_alloc_shape(be, MGPU_MEM_DEVICE, 0, MGPU_I32, 1, &dn, &c.in[1]);
    for (size_t i = 0; i < n; i++) ((int32_t *)c.in[1].buf->ptr)[i] = (int32_t)((i * 3) % k);
    c.y = mk(1, 2, 0, 0, 0, 0);
    c.r = mk(1, 2, 0, 0, 0, 0);
    F(&c.r)[0] = 1;
    mgpu_tensor dx = mk(2, n, k, 0, 0, 0);
    CHECK_OK(mgpu_nn_cross_entropy(s, &c.in[0], &c.in[1], &c.y, &dx));
    mgpu_stream_synchronize(s);
    /* the loss against a host computation */
    double l = 0;
    int right = 0;
    for (size_t i = 0; i < n; i++) {
        double sum = 0, mx = -1e30;
        size_t best = 0;
        for (size_t j = 0; j < k; j++)
            if (F(&c.in[0])[i * k + j] > mx) mx = F(&c.in[0])[i * k + j], best = j;
        for (size_t j = 0; j < k; j++) sum += exp(F(&c.in[0])[i * k + j] - mx);
        size_t y = (i * 3) % k;
        l += log(sum) - (F(&c.in[0])[i * k + y] - mx);
        right += best == y;
    }
    CHECKF(fabs(F(&c.y)[0] - l / (double)n) < 1e-5, "loss %g, host %g", F(&c.y)[0], l / (double)n);
    CHECK(F(&c.y)[1] == (float)right);
    fd_check("cross_entropy dlogits", &c, &c.in[0], &dx, 0);
    mgpu_tensor_free(&dx);
    free_case(&c);
}

static void f_conv(fd_case *c) { mgpu_nn_conv2d(s, &c->in[0], &c->in[1], &c->y, c->iv[0], c->iv[1]); }

static void test_conv(size_t r, int stride, int pad)
{
    size_t N = 2, C = 3, H = 6, W = 5, K = 4;
    size_t P = (H + 2 * (size_t)pad - r) / (size_t)stride + 1, Q = (W + 2 * (size_t)pad - r) / (size_t)stride + 1;
    fd_case c = {.fwd = f_conv, .iv = {stride, pad}};
    c.in[0] = mk(4, N, C, H, W, 5);
    c.in[1] = mk(4, K, C, r, r, 6);
    c.y = mk(4, N, K, P, Q, 0);
    c.r = mk(4, N, K, P, Q, 7);
    mgpu_tensor dx = mk(4, N, C, H, W, 0), dw = mk(4, K, C, r, r, 0);
    CHECK_OK(mgpu_nn_conv2d_backward(s, &c.in[0], &c.in[1], &c.r, &dx, &dw, stride, pad));
    char name[64];
    snprintf(name, sizeof name, "conv2d %zux%zu stride %d pad %d dx", r, r, stride, pad);
    fd_check(name, &c, &c.in[0], &dx, 0);
    snprintf(name, sizeof name, "conv2d %zux%zu stride %d pad %d dw", r, r, stride, pad);
    fd_check(name, &c, &c.in[1], &dw, 0);
    mgpu_tensor_free(&dx), mgpu_tensor_free(&dw);
    free_case(&c);
}

/* in: x gamma beta rmean rvar; out y; saves in in[5] and a spare */
static mgpu_tensor bn_invstd;
static void f_bn(fd_case *c)
{
    mgpu_nn_batchnorm(s, &c->in[0], &c->in[1], &c->in[2], &c->in[3], &c->in[4], &c->in[5], &bn_invstd, &c->y, 1, 0.1f,
                      1e-5f);
}

static void test_batchnorm(void)
{
    size_t N = 3, C = 2, H = 3, W = 2;
    fd_case c = {.fwd = f_bn};
    c.in[0] = mk(4, N, C, H, W, 8);
    c.in[1] = mk(1, C, 0, 0, 0, 9);
    c.in[2] = mk(1, C, 0, 0, 0, 10);
    c.in[3] = mk(1, C, 0, 0, 0, 0);
    c.in[4] = mk(1, C, 0, 0, 0, 0);
    c.in[5] = mk(1, C, 0, 0, 0, 0);
    bn_invstd = mk(1, C, 0, 0, 0, 0);
    c.y = mk(4, N, C, H, W, 0);
    c.r = mk(4, N, C, H, W, 11);
    loss_of(&c);
    mgpu_tensor dx = mk(4, N, C, H, W, 0), dg = mk(1, C, 0, 0, 0, 0), db = mk(1, C, 0, 0, 0, 0);
    CHECK_OK(mgpu_nn_batchnorm_backward(s, &c.in[0], &c.in[1], &c.in[5], &bn_invstd, &c.r, &dx, &dg, &db));
    fd_check("batchnorm dx", &c, &c.in[0], &dx, 0);
    fd_check("batchnorm dgamma", &c, &c.in[1], &dg, 0);
    fd_check("batchnorm dbeta", &c, &c.in[2], &db, 0);
    /* eval with the running statistics: y = (x - rm)/sqrt(rv + eps)*g + b */
    mgpu_nn_batchnorm(s, &c.in[0], &c.in[1], &c.in[2], &c.in[3], &c.in[4], NULL, NULL, &c.y, 0, 0.1f, 1e-5f);
    mgpu_stream_synchronize(s);
    float x0 = F(&c.in[0])[0], want = (x0 - F(&c.in[3])[0]) / sqrtf(F(&c.in[4])[0] + 1e-5f) * F(&c.in[1])[0] + F(&c.in[2])[0];
    CHECKF(fabsf(F(&c.y)[0] - want) < 1e-5f, "eval %g, want %g", F(&c.y)[0], want);
    mgpu_tensor_free(&dx), mgpu_tensor_free(&dg), mgpu_tensor_free(&db), mgpu_tensor_free(&bn_invstd);
    free_case(&c);
}

static void f_pool(fd_case *c) { mgpu_nn_avgpool(s, &c->in[0], &c->y); }

static void test_avgpool(void)
{
    fd_case c = {.fwd = f_pool};
    c.in[0] = mk(4, 2, 3, 4, 4, 12);
    c.y = mk(2, 2, 3, 0, 0, 0);
    c.r = mk(2, 2, 3, 0, 0, 13);
    mgpu_tensor dx = mk(4, 2, 3, 4, 4, 0);
    CHECK_OK(mgpu_nn_avgpool_backward(s, &c.r, &dx));
    fd_check("avgpool dx", &c, &c.in[0], &dx, 0);
    mgpu_tensor_free(&dx);
    free_case(&c);
}

/* in: x gamma beta(or empty) save_mean save_rstd */
static void f_norm(fd_case *c)
{
    mgpu_nn_norm(s, c->iv[0], &c->in[0], &c->in[1], c->iv[0] ? &c->in[2] : NULL, &c->y, c->iv[0] ? &c->in[3] : NULL,
                 &c->in[4], 1e-5f);
}

static void test_norm(int layer)
{
    fd_case c = {.fwd = f_norm, .iv = {layer}};
    c.in[0] = mk(3, 2, 3, 8, 0, 14);
    c.in[1] = mk(1, 8, 0, 0, 0, 15);
    if (layer) c.in[2] = mk(1, 8, 0, 0, 0, 16);
    if (layer) c.in[3] = mk(1, 6, 0, 0, 0, 0);
    c.in[4] = mk(1, 6, 0, 0, 0, 0);
    c.y = mk(3, 2, 3, 8, 0, 0);
    c.r = mk(3, 2, 3, 8, 0, 17);
    loss_of(&c);
    mgpu_tensor dx = mk(3, 2, 3, 8, 0, 0), dg = mk(1, 8, 0, 0, 0, 0), db = mk(1, 8, 0, 0, 0, 0);
    CHECK_OK(mgpu_nn_norm_backward(s, layer, &c.in[0], &c.in[1], layer ? &c.in[3] : NULL, &c.in[4], &c.r, &dx, &dg,
                                   layer ? &db : NULL));
    fd_check(layer ? "layernorm dx" : "rmsnorm dx", &c, &c.in[0], &dx, 0);
    fd_check(layer ? "layernorm dgamma" : "rmsnorm dgamma", &c, &c.in[1], &dg, 0);
    if (layer) fd_check("layernorm dbeta", &c, &c.in[2], &db, 0);
    mgpu_tensor_free(&dx), mgpu_tensor_free(&dg), mgpu_tensor_free(&db);
    free_case(&c);
}

static void f_emb(fd_case *c) { mgpu_nn_embedding(s, &c->in[0], &c->in[1], &c->y); }

static void test_embedding(void)
{
    fd_case c = {.fwd = f_emb};
    size_t n = 7, V = 5, D = 3;
    mgpu_tensor_alloc_shape(be, MGPU_MEM_DEVICE, 0, MGPU_I32, 1, &n, &c.in[0]);
    for (size_t i = 0; i < n; i++) ((int32_t *)c.in[0].buf->ptr)[i] = (int32_t)((i * 2) % V); /* repeats */
    c.in[1] = mk(2, V, D, 0, 0, 18);
    c.y = mk(2, n, D, 0, 0, 0);
    c.r = mk(2, n, D, 0, 0, 19);
    mgpu_tensor dt = mk(2, V, D, 0, 0, 0);
    CHECK_OK(mgpu_nn_embedding_backward(s, &c.in[0], &c.r, &dt));
    fd_check("embedding dtable", &c, &c.in[1], &dt, 0);
    ((int32_t *)c.in[0].buf->ptr)[3] = (int32_t)V;
    CHECK(mgpu_nn_embedding(s, &c.in[0], &c.in[1], &c.y) == MGPU_ERR_INVALID);
    mgpu_tensor_free(&dt);
    free_case(&c);
}

static void f_softmax(fd_case *c) { mgpu_nn_softmax(s, &c->in[0], &c->y, c->fv[0], c->iv[0]); }

static void test_softmax(int causal)
{
    fd_case c = {.fwd = f_softmax, .iv = {causal}, .fv = {0.5f}};
    c.in[0] = mk(4, 1, 2, 4, 4, 20);
    c.y = mk(4, 1, 2, 4, 4, 0);
    c.r = mk(4, 1, 2, 4, 4, 21);
    loss_of(&c);
    mgpu_tensor ds = mk(4, 1, 2, 4, 4, 0);
    CHECK_OK(mgpu_nn_softmax_backward(s, &c.y, &c.r, &ds, 0.5f));
    fd_check(causal ? "softmax causal" : "softmax", &c, &c.in[0], &ds, 0);
    if (causal) CHECK(F(&c.y)[1] == 0 && F(&c.y)[0] == 1.0f); /* row 0 sees only key 0 */
    mgpu_tensor_free(&ds);
    free_case(&c);
}

static void test_swap12(void)
{
    mgpu_tensor x = mk(4, 2, 3, 4, 5, 22), y = mk(4, 2, 4, 3, 5, 0), z = mk(4, 2, 3, 4, 5, 0);
    CHECK_OK(mgpu_nn_swap12(s, &x, &y));
    CHECK_OK(mgpu_nn_swap12(s, &y, &z));
    mgpu_stream_synchronize(s);
    CHECK(F(&y)[((1 * 4 + 2) * 3 + 1) * 5 + 3] == F(&x)[((1 * 3 + 1) * 4 + 2) * 5 + 3]);
    CHECK(memcmp(F(&x), F(&z), x.count * 4) == 0);
    mgpu_tensor_free(&x), mgpu_tensor_free(&y), mgpu_tensor_free(&z);
}

/*--- Optimizers, clipping ---------------------------------------------------*/

static void test_optimizers(void)
{
    mgpu_tensor p = mk(1, 10, 0, 0, 0, 23), g = mk(1, 10, 0, 0, 0, 24), m = mk(1, 10, 0, 0, 0, 0),
                v = mk(1, 10, 0, 0, 0, 0);
    float p0[10], g0[10];
    memcpy(p0, F(&p), sizeof p0);
    memcpy(g0, F(&g), sizeof g0);
    CHECK_OK(mgpu_nn_sgd(s, &p, &g, &m, 0.1f, 0.9f, 0.01f));
    CHECK_OK(mgpu_nn_sgd(s, &p, &g, &m, 0.1f, 0.9f, 0.01f));
    mgpu_stream_synchronize(s);
    float pp = p0[3], mm = 0;
    for (int k = 0; k < 2; k++) mm = 0.9f * mm + g0[3] + 0.01f * pp, pp -= 0.1f * mm;
    CHECKF(fabsf(F(&p)[3] - pp) < 1e-6f, "sgd %g, want %g", F(&p)[3], pp);

    memcpy(F(&p), p0, sizeof p0);
    memset(F(&m), 0, 40);
    CHECK_OK(mgpu_nn_adamw(s, &p, &g, &m, &v, 1e-2f, 0.9f, 0.999f, 1e-8f, 0.1f, 1));
    mgpu_stream_synchronize(s);
    /* step 1: m/bc1 = g, v/bc2 = g^2: the update is lr*sign(g) after decay */
    float want = p0[5] * (1 - 1e-2f * 0.1f) - 1e-2f * g0[5] / (fabsf(g0[5]) + 1e-8f);
    CHECKF(fabsf(F(&p)[5] - want) < 1e-5f, "adamw %g, want %g", F(&p)[5], want);
    CHECK(mgpu_nn_adamw(s, &p, &g, &m, &v, 1e-2f, 0.9f, 0.999f, 1e-8f, 0.1f, 0) == MGPU_ERR_INVALID);

    mgpu_tensor acc = mk(1, 1, 0, 0, 0, 0);
    CHECK_OK(mgpu_nn_sumsq(s, &g, &acc, 0));
    CHECK_OK(mgpu_nn_sumsq(s, &g, &acc, 1));
    mgpu_stream_synchronize(s);
    double ss = 0;
    for (int i = 0; i < 10; i++) ss += (double)g0[i] * g0[i];
    CHECKF(fabs(F(&acc)[0] - 2 * ss) < 1e-4, "sumsq %g, want %g", F(&acc)[0], 2 * ss);
    float max_norm = (float)sqrt(2 * ss) / 4;
    CHECK_OK(mgpu_nn_clip_scale(s, &g, &acc, max_norm));
    mgpu_stream_synchronize(s);
    CHECKF(fabsf(F(&g)[2] - g0[2] / 4) < 1e-5f, "clipped %g, want %g", F(&g)[2], g0[2] / 4);
    mgpu_tensor_free(&p), mgpu_tensor_free(&g), mgpu_tensor_free(&m), mgpu_tensor_free(&v), mgpu_tensor_free(&acc);
}

/*--- bf16 against f32 -----------------------------------------------------------*/

static void to_bf16(const mgpu_tensor *f, mgpu_tensor *b)
{
    for (size_t i = 0; i < f->count; i++) ((uint16_t *)b->buf->ptr)[i] = mgpu_f32_to_bf16(F(f)[i]);
}

static double max_err_bf16(const mgpu_tensor *f, const mgpu_tensor *b)
{
    double w = 0;
    for (size_t i = 0; i < f->count; i++)
        w = fmax(w, fabs(F(f)[i] - mgpu_bf16_to_f32(((uint16_t *)b->buf->ptr)[i])) / fmax(1, fabs(F(f)[i])));
    return w;
}

static void test_bf16(void)
{
    mgpu_tensor x = mk(4, 2, 3, 6, 6, 30), w = mk(4, 4, 3, 3, 3, 31), y = mk(4, 2, 4, 6, 6, 0);
    mgpu_tensor xb = mk_dt(MGPU_BF16, 4, 2, 3, 6, 6, 0), wb = mk_dt(MGPU_BF16, 4, 4, 3, 3, 3, 0),
                yb = mk_dt(MGPU_BF16, 4, 2, 4, 6, 6, 0);
    to_bf16(&x, &xb);
    to_bf16(&w, &wb);
    /* round the f32 inputs the same way, so only the arithmetic differs */
    for (size_t i = 0; i < x.count; i++) F(&x)[i] = mgpu_bf16_to_f32(((uint16_t *)xb.buf->ptr)[i]);
    for (size_t i = 0; i < w.count; i++) F(&w)[i] = mgpu_bf16_to_f32(((uint16_t *)wb.buf->ptr)[i]);
    CHECK_OK(mgpu_nn_conv2d(s, &x, &w, &y, 1, 1));
    CHECK_OK(mgpu_nn_conv2d(s, &xb, &wb, &yb, 1, 1));
    mgpu_stream_synchronize(s);
    double e = max_err_bf16(&y, &yb);
    CHECKF(e < 8e-3, "bf16 conv2d off f32 by %g (one bf16 rounding is 2^-8)", e);
    CHECK(mgpu_nn_conv2d(s, &x, &wb, &y, 1, 1) == MGPU_ERR_INVALID); /* mixed dtypes */
    mgpu_tensor_free(&x), mgpu_tensor_free(&w), mgpu_tensor_free(&y);
    mgpu_tensor_free(&xb), mgpu_tensor_free(&wb), mgpu_tensor_free(&yb);
}

/*--- Errors, views, phantoms, the time model ---------------------------------------*/

static void test_shape_errors(void)
{
    mgpu_tensor a = mk(2, 4, 3, 0, 0, 1), b = mk(2, 4, 3, 0, 0, 2), c = mk(2, 4, 4, 0, 0, 0);
    CHECK(mgpu_nn_gemm(s, &a, 0, &b, 0, &c, 1, 0) == MGPU_ERR_INVALID);
    CHECKF(strstr(mgpu_error_message(), "[4, 3] f32") && strstr(mgpu_error_message(), "[4, 4] f32"), "%s",
           mgpu_error_message());
    CHECK_OK(mgpu_nn_gemm(s, &a, 0, &b, 1, &c, 1, 0));
    CHECK(mgpu_nn_add(s, &a, &c, &a, 1, 1) == MGPU_ERR_INVALID);
    CHECKF(strstr(mgpu_error_message(), "[4, 4] f32") && strstr(mgpu_error_message(), "[4, 3] f32"), "%s",
           mgpu_error_message());
    /* views: a slice of rows and a flat range are ops' tensors too */
    mgpu_tensor rows, flat, re;
    CHECK_OK(mgpu_tensor_slice0(&c, 1, 2, &rows));
    CHECK(rows.count == 8 && rows.offset == 16 && rows.shape[0] == 2 && rows.shape[1] == 4);
    CHECK_OK(mgpu_tensor_flat_range(&c, 3, 5, &flat));
    CHECK(flat.ndim == 1 && flat.count == 5 && flat.offset == 12);
    CHECK(mgpu_tensor_slice0(&c, 3, 2, &rows) == MGPU_ERR_INVALID);
    CHECK(mgpu_tensor_reshape(&c, 2, (size_t[]){3, 5}, &re) == MGPU_ERR_INVALID);
    CHECKF(strstr(mgpu_error_message(), "[4, 4] f32") && strstr(mgpu_error_message(), "[3, 5]"), "%s",
           mgpu_error_message());
    CHECK_OK(mgpu_tensor_reshape(&c, 3, (size_t[]){2, 2, 4}, &re));
    mgpu_tensor_free(&a), mgpu_tensor_free(&b), mgpu_tensor_free(&c);
}

static void test_phantom_and_model(void)
{
    /* 4096^3 bf16 on an H100: at least FLOPs/peak, and not more than 3x that */
    size_t n = 4096, dims[2] = {n, n};
    mgpu_tensor ph[3];
    for (int i = 0; i < 3; i++) {
        mgpu_buffer *buf = NULL;
        CHECK_OK(mgpu_mem_alloc_phantom(be, 0, s, n * n * 2, 0, &buf));
        ph[i] = (mgpu_tensor){.buf = buf, .count = n * n, .dtype = MGPU_BF16, .ndim = 2, .shape = {n, n}};
    }
    (void)dims;
    double t0, t1;
    mgpu_stream_synchronize(s);
    CHECK_OK(mgpu_stream_model_time(s, &t0));
    CHECK_OK(mgpu_nn_gemm(s, &ph[0], 0, &ph[1], 0, &ph[2], 1, 0));
    CHECK_OK(mgpu_stream_model_time(s, &t1));
    double ideal = 2.0 * (double)n * n * n / 989e3; /* ns at the dense peak */
    CHECKF(t1 - t0 >= ideal && t1 - t0 < 3 * ideal, "modelled %g ns, peak-bound %g ns", t1 - t0, ideal);
    /* phantom in, real out */
    mgpu_tensor real = mk_dt(MGPU_BF16, 2, n, n, 0, 0, 0);
    CHECK(mgpu_nn_gemm(s, &ph[0], 0, &ph[1], 0, &real, 1, 0) == MGPU_ERR_INVALID);
    CHECK(strstr(mgpu_error_message(), "phantom") != NULL);
    mgpu_tensor_free(&real);
    for (int i = 0; i < 3; i++) mgpu_mem_free(ph[i].buf);
    /* a memory-bound op: bytes over HBM */
    mgpu_tensor x = mk(1, 1 << 22, 0, 0, 0, 0), y = mk(1, 1 << 22, 0, 0, 0, 0);
    mgpu_stream_synchronize(s);
    CHECK_OK(mgpu_stream_model_time(s, &t0));
    CHECK_OK(mgpu_nn_activation(s, MGPU_ACT_RELU, &x, &y));
    CHECK_OK(mgpu_stream_model_time(s, &t1));
    double bytes_ns = 2.0 * 4 * (1 << 22) / 3350.0;
    CHECKF(t1 - t0 >= bytes_ns && t1 - t0 < 2 * bytes_ns + 5000, "relu modelled %g ns, HBM-bound %g ns", t1 - t0,
           bytes_ns);
    mgpu_tensor_free(&x), mgpu_tensor_free(&y);
}

/* Kernels on two streams of one GPU share its SMs (one after the other);
 * a copy on another stream overlaps a kernel (links and HBM, not SMs). */
static void test_streams_overlap(void)
{
    size_t n = 2048;
    mgpu_stream *s2 = NULL;
    CHECK_OK(mgpu_stream_create(be, 0, 0, &s2));
    mgpu_buffer *b[6];
    for (int i = 0; i < 6; i++) CHECK_OK(mgpu_mem_alloc_phantom(be, 0, NULL, n * n * 2, 0, &b[i]));
    mgpu_tensor t[6];
    for (int i = 0; i < 6; i++) t[i] = (mgpu_tensor){.buf = b[i], .count = n * n, .dtype = MGPU_BF16, .ndim = 2, .shape = {n, n}};
    mgpu_device_synchronize(be, 0);
    double a0, a1, c0, c1;
    CHECK_OK(mgpu_stream_model_time(s, &a0));
    CHECK_OK(mgpu_stream_model_time(s2, &c0));
    CHECK_OK(mgpu_nn_gemm(s, &t[0], 0, &t[1], 0, &t[2], 1, 0));
    CHECK_OK(mgpu_nn_gemm(s2, &t[3], 0, &t[4], 0, &t[5], 1, 0));
    CHECK_OK(mgpu_stream_model_time(s, &a1));
    CHECK_OK(mgpu_stream_model_time(s2, &c1));
    double one = a1 - a0;
    CHECKF(c1 - c0 >= 2 * one * 0.99, "the second stream's GEMM ended at %g ns, want after the first's (%g ns each)", c1 - c0, one);
    mgpu_device_synchronize(be, 0);
    CHECK_OK(mgpu_stream_model_time(s, &a0));
    CHECK_OK(mgpu_stream_model_time(s2, &c0));
    CHECK_OK(mgpu_nn_gemm(s, &t[0], 0, &t[1], 0, &t[2], 1, 0));
    CHECK_OK(mgpu_copy(s2, b[3], 0, b[4], 0, n * n * 2, MGPU_COPY_CE));
    CHECK_OK(mgpu_stream_model_time(s, &a1));
    CHECK_OK(mgpu_stream_model_time(s2, &c1));
    CHECKF(c1 - c0 < one, "a copy beside a GEMM took %g ns of modelled time, the GEMM %g: they should overlap", c1 - c0, one);
    for (int i = 0; i < 6; i++) mgpu_mem_free(b[i]);
    mgpu_stream_destroy(s2);
}

int main(void)
{
    mgpu_backend_config cfg = {.kind = MGPU_BACKEND_SIM, .machine = "dgx-h100"};
    if (mgpu_backend_open(&cfg, &be) != MGPU_OK || mgpu_stream_create(be, 0, 0, &s) != MGPU_OK) {
        fprintf(stderr, "%s\n", mgpu_error_message());
        return 1;
    }
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) test_gemm(ta, tb, 0);
    test_gemm(0, 0, 1);
    test_gemm(1, 1, 1);
    test_bias();
    for (int a = 0; a < MGPU_ACT_COUNT; a++) test_act((mgpu_nn_act)a);
    test_swiglu();
    test_cross_entropy();
    test_conv(3, 1, 1);
    test_conv(3, 2, 1);
    test_conv(1, 1, 0);
    test_conv(1, 2, 0);
    test_batchnorm();
    test_avgpool();
    test_norm(0);
    test_norm(1);
    test_embedding();
    test_softmax(0);
    test_softmax(1);
    test_swap12();
    test_optimizers();
    test_bf16();
    test_shape_errors();
    test_phantom_and_model();
    test_streams_overlap();
    mgpu_stream_destroy(s);
    mgpu_backend_close(be);
    return tap_done();
}
