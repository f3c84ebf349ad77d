/* sim_nn.c - the sim backend's training ops (nn_ops.h): GEMMs through
 * OpenBLAS (bf16 converted to f32 around sgemm, so it accumulates in f32),
 * every other op as a plain loop on host memory, computed when queued as
 * the sim's copies are. Each op then takes its modelled duration on the
 * stream (sim_model_compute) and occupies the GPU's SMs, so kernels on two
 * streams of one GPU serialise while copies and collectives overlap them. */
#include "mgpu/nn_ops.h"
#include "dev/sim/sim_internal.h"
#include "dev/sim/sim_nn.h"
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static inline float ld(const void *p, mgpu_dtype dt, size_t i)
{
    return dt == MGPU_BF16 ? mgpu_bf16_to_f32(((const uint16_t *)p)[i]) : ((const float *)p)[i];
}

static inline void st(void *p, mgpu_dtype dt, size_t i, float v)
{
    if (dt == MGPU_BF16) ((uint16_t *)p)[i] = mgpu_f32_to_bf16(v);
    else ((float *)p)[i] = v;
}

/* Charge the op's modelled time on s (with the backend locked). */
static void charge(mgpu_stream *s, const mgpu_nn_cost *cost, mgpu_dtype dt)
{
    sim_state *stt = sim_of(s->be);
    sim_cost c;
    double floor_ns, flops_ns, bytes_ns;
    sim_model_compute_parts(&stt->model, s->device, &cost->w, dt == MGPU_BF16, &c, &floor_ns, &flops_ns, &bytes_ns);
    sim_run_compute(stt, s, &c, floor_ns, flops_ns, bytes_ns); /* slower beside a collective */
}

/*--- GEMM --------------------------------------------------------------------*/

/* A bf16 matrix of n elements as f32 (NULL on out of memory). */
static float *widen(const void *p, size_t n)
{
    float *f = malloc(n * sizeof *f + 1);
    if (f)
        for (size_t i = 0; i < n; i++) f[i] = mgpu_bf16_to_f32(((const uint16_t *)p)[i]);
    return f;
}

static mgpu_result gemm_f32(const mgpu_nn_gemm_args *g, const float *a, const float *b, float *c)
{
    int lda = (int)(g->ta ? g->m : g->k), ldb = (int)(g->tb ? g->k : g->n), ldc = (int)g->n;
    for (size_t i = 0; i < g->batch; i++)
        cblas_sgemm(CblasRowMajor, g->ta ? CblasTrans : CblasNoTrans, g->tb ? CblasTrans : CblasNoTrans, (int)g->m,
                    (int)g->n, (int)g->k, g->alpha, a + i * g->stride_a, lda, b + i * g->stride_b, ldb, g->beta,
                    c + i * g->stride_c, ldc);
    return MGPU_OK;
}

/* bf16: widen the operands, multiply in f32, round the result once. */
static mgpu_result gemm_bf16(const mgpu_nn_gemm_args *g)
{
    size_t na = (g->batch - 1) * g->stride_a + g->m * g->k, nb = (g->batch - 1) * g->stride_b + g->k * g->n,
           nc = (g->batch - 1) * g->stride_c + g->m * g->n;
    float *a = widen(g->a, na), *b = widen(g->b, nb), *c = g->beta != 0 ? widen(g->c, nc) : calloc(nc, sizeof(float));
    mgpu_result r = MGPU_OK;
    if (!a || !b || !c) r = mgpu_fail(MGPU_ERR_NOMEM, "gemm: out of host memory widening bf16 operands");
    else {
        gemm_f32(g, a, b, c);
        for (size_t bi = 0; bi < g->batch; bi++)
            for (size_t i = 0; i < g->m * g->n; i++)
                ((uint16_t *)g->c)[bi * g->stride_c + i] = mgpu_f32_to_bf16(c[bi * g->stride_c + i]);
    }
    free(a);
    free(b);
    free(c);
    return r;
}


static mgpu_result sim_nn_gemm(mgpu_stream *s, const mgpu_nn_gemm_args *g)
{
    sim_state *stt = sim_of(s->be);
    sim_nn_blas_init();
    if (g->m > INT32_MAX || g->n > INT32_MAX || g->k > INT32_MAX)
        return mgpu_fail(MGPU_ERR_INVALID, "gemm: a dim above 2^31 is more than BLAS takes");
    pthread_mutex_lock(&stt->lock);
    mgpu_result r = MGPU_OK;
    if (!g->phantom)
        r = g->dtype == MGPU_BF16 ? gemm_bf16(g) : gemm_f32(g, g->a, g->b, g->c);
    if (r == MGPU_OK) charge(s, &g->cost, g->dtype);
    pthread_mutex_unlock(&stt->lock);
    return r;
}

/*--- Elementwise ---------------------------------------------------------------*/

#define SQRT_2_OVER_PI 0.7978845608028654f

static float act_f(int act, float x)
{
    if (act == 0) return x > 0 ? x : 0;
    if (act == 1) return 0.5f * x * (1 + tanhf(SQRT_2_OVER_PI * (x + 0.044715f * x * x * x)));
    return x / (1 + expf(-x));
}

static float act_grad(int act, float x)
{
    if (act == 0) return x > 0 ? 1.f : 0.f;
    if (act == 1) {
        float u = SQRT_2_OVER_PI * (x + 0.044715f * x * x * x), t = tanhf(u);
        return 0.5f * (1 + t) + 0.5f * x * (1 - t * t) * SQRT_2_OVER_PI * (1 + 3 * 0.044715f * x * x);
    }
    float sg = 1 / (1 + expf(-x));
    return sg * (1 + x * (1 - sg));
}

static void cross_entropy(const mgpu_nn_args *a)
{
    mgpu_dtype dt = a->dtype;
    size_t rows = a->n[0], cls = a->n[1];
    const int32_t *lab = a->t[1];
    double loss = 0;
    float correct = 0;
    for (size_t r = 0; r < rows; r++) {
        const void *x = a->t[0];
        size_t o = r * cls, best = 0;
        float mx = ld(x, dt, o);
        for (size_t j = 1; j < cls; j++)
            if (ld(x, dt, o + j) > mx) mx = ld(x, dt, o + j), best = j;
        double sum = 0;
        for (size_t j = 0; j < cls; j++) sum += exp((double)(ld(x, dt, o + j) - mx));
        size_t y = (size_t)lab[r];
        loss += log(sum) - (double)(ld(x, dt, o + y) - mx);
        if (best == y) correct += 1;
        if (a->t[3])
            for (size_t j = 0; j < cls; j++) {
                double p = exp((double)(ld(x, dt, o + j) - mx)) / sum;
                st(a->t[3], dt, o + j, (float)((p - (j == y)) / (double)rows));
            }
    }
    ((float *)a->t[2])[0] = (float)(loss / (double)rows);
    ((float *)a->t[2])[1] = correct;
}

/*--- conv2d's columns ------------------------------------------------------------*/

static void im2col(const mgpu_nn_args *a, int back)
{
    if (a->dtype == MGPU_F32) {
        sim_nn_im2col_f32(a, back);
        return;
    }
    mgpu_dtype dt = a->dtype;
    size_t nimg = a->n[0], C = a->n[1], H = a->n[2], W = a->n[3], R = a->n[4], P = a->n[5], Q = a->n[6];
    long stride = a->i[0], pad = a->i[1];
    size_t img = C * H * W;
    if (back) {
        if (dt == MGPU_BF16) {
            float *acc = calloc(img, sizeof *acc);
            for (size_t n = 0; n < nimg && acc; n++) {
                memset(acc, 0, img * sizeof *acc);
                for (size_t row = 0; row < C * R * R; row++) {
                    size_t c = row / (R * R), r = row / R % R, s = row % R;
                    for (size_t p = 0; p < P; p++)
                        for (size_t q = 0; q < Q; q++) {
                            long h = (long)p * stride - pad + (long)r, w = (long)q * stride - pad + (long)s;
                            if (h < 0 || w < 0 || h >= (long)H || w >= (long)W) continue;
                            acc[c * H * W + (size_t)h * W + (size_t)w] += ld(a->t[1], dt, sim_nn_col_at(a, n, row) + p * Q + q);
                        }
                }
                for (size_t i = 0; i < img; i++) st(a->t[0], dt, n * img + i, acc[i]);
            }
            free(acc);
            return;
        }
        memset(a->t[0], 0, nimg * img * sizeof(float));
    }
    for (size_t n = 0; n < nimg; n++)
        for (size_t row = 0; row < C * R * R; row++) {
            size_t c = row / (R * R), r = row / R % R, s = row % R;
            for (size_t p = 0; p < P; p++) {
                long h = (long)p * stride - pad + (long)r;
                for (size_t q = 0; q < Q; q++) {
                    long w = (long)q * stride - pad + (long)s;
                    size_t ci = sim_nn_col_at(a, n, row) + p * Q + q;
                    int inside = h >= 0 && w >= 0 && h < (long)H && w < (long)W;
                    size_t xi = n * img + c * H * W + (size_t)(inside ? h : 0) * W + (size_t)(inside ? w : 0);
                    if (back) {
                        if (inside) ((float *)a->t[0])[xi] += ((const float *)a->t[1])[ci];
                    } else {
                        st(a->t[1], dt, ci, inside ? ld(a->t[0], dt, xi) : 0.f);
                    }
                }
            }
        }
}

/*--- Normalisation ----------------------------------------------------------------*/

static void batchnorm(const mgpu_nn_args *a)
{
    mgpu_dtype dt = a->dtype;
    size_t N = a->n[0], C = a->n[1], HW = a->n[2], cnt = N * HW;
    float *rm = a->t[3], *rv = a->t[4], mom = a->f[0], eps = a->f[1];
    for (size_t c = 0; c < C; c++) {
        float mean, invstd;
        if (a->i[0]) {
            double s = 0, s2 = 0;
            for (size_t n = 0; n < N; n++)
                for (size_t i = 0; i < HW; i++) s += ld(a->t[0], dt, (n * C + c) * HW + i);
            double m = s / (double)cnt;
            for (size_t n = 0; n < N; n++)
                for (size_t i = 0; i < HW; i++) {
                    double d = ld(a->t[0], dt, (n * C + c) * HW + i) - m;
                    s2 += d * d;
                }
            double var = s2 / (double)cnt;
            mean = (float)m;
            invstd = (float)(1 / sqrt(var + eps));
            ((float *)a->t[5])[c] = mean;
            ((float *)a->t[6])[c] = invstd;
            rm[c] = (1 - mom) * rm[c] + mom * mean;
            rv[c] = (1 - mom) * rv[c] + mom * (float)(s2 / (double)(cnt - 1));
        } else {
            mean = rm[c];
            invstd = 1 / sqrtf(rv[c] + eps);
        }
        float g = ld(a->t[1], dt, c), b = ld(a->t[2], dt, c);
        for (size_t n = 0; n < N; n++)
            for (size_t i = 0; i < HW; i++) {
                size_t k = (n * C + c) * HW + i;
                st(a->t[7], dt, k, (ld(a->t[0], dt, k) - mean) * invstd * g + b);
            }
    }
}

static void batchnorm_backward(const mgpu_nn_args *a)
{
    mgpu_dtype dt = a->dtype;
    size_t N = a->n[0], C = a->n[1], HW = a->n[2];
    double cnt = (double)(N * HW);
    for (size_t c = 0; c < C; c++) {
        float mean = ((const float *)a->t[2])[c], inv = ((const float *)a->t[3])[c], g = ld(a->t[1], dt, c);
        double sdy = 0, sdyx = 0;
        for (size_t n = 0; n < N; n++)
            for (size_t i = 0; i < HW; i++) {
                size_t k = (n * C + c) * HW + i;
                float dy = ld(a->t[4], dt, k);
                sdy += dy;
                sdyx += dy * (ld(a->t[0], dt, k) - mean) * inv;
            }
        st(a->t[6], dt, c, (float)sdyx);
        st(a->t[7], dt, c, (float)sdy);
        for (size_t n = 0; n < N; n++)
            for (size_t i = 0; i < HW; i++) {
                size_t k = (n * C + c) * HW + i;
                float xh = (ld(a->t[0], dt, k) - mean) * inv;
                double v = g * inv * (ld(a->t[4], dt, k) - sdy / cnt - xh * sdyx / cnt);
                st(a->t[5], dt, k, (float)v);
            }
    }
}

static void norm(const mgpu_nn_args *a)
{
    mgpu_dtype dt = a->dtype;
    size_t rows = a->n[0], D = a->n[1];
    int layer = a->i[0];
    for (size_t r = 0; r < rows; r++) {
        double s = 0, s2 = 0;
        for (size_t j = 0; j < D; j++) s += ld(a->t[0], dt, r * D + j);
        double mean = layer ? s / (double)D : 0;
        for (size_t j = 0; j < D; j++) {
            double d = ld(a->t[0], dt, r * D + j) - mean;
            s2 += d * d;
        }
        float rstd = (float)(1 / sqrt(s2 / (double)D + a->f[0]));
        if (layer) ((float *)a->t[4])[r] = (float)mean;
        ((float *)a->t[5])[r] = rstd;
        for (size_t j = 0; j < D; j++) {
            float v = (ld(a->t[0], dt, r * D + j) - (float)mean) * rstd * ld(a->t[1], dt, j);
            if (a->t[2]) v += ld(a->t[2], dt, j);
            st(a->t[3], dt, r * D + j, v);
        }
    }
}

static mgpu_result norm_backward(const mgpu_nn_args *a)
{
    mgpu_dtype dt = a->dtype;
    size_t rows = a->n[0], D = a->n[1];
    int layer = a->i[0];
    double *dg = calloc(2 * D, sizeof *dg), *db = dg + D;
    if (!dg) return mgpu_fail(MGPU_ERR_NOMEM, "norm backward: out of host memory");
    for (size_t r = 0; r < rows; r++) {
        float mean = layer ? ((const float *)a->t[2])[r] : 0, rstd = ((const float *)a->t[3])[r];
        double s1 = 0, s2 = 0; /* sum g*dy, sum g*dy*xhat */
        for (size_t j = 0; j < D; j++) {
            float xh = (ld(a->t[0], dt, r * D + j) - mean) * rstd, dy = ld(a->t[4], dt, r * D + j);
            float gdy = dy * ld(a->t[1], dt, j);
            s1 += gdy;
            s2 += gdy * xh;
            dg[j] += dy * xh;
            db[j] += dy;
        }
        for (size_t j = 0; j < D; j++) {
            float xh = (ld(a->t[0], dt, r * D + j) - mean) * rstd;
            float gdy = ld(a->t[4], dt, r * D + j) * ld(a->t[1], dt, j);
            double v = rstd * (gdy - (layer ? s1 / (double)D : 0) - xh * s2 / (double)D);
            st(a->t[5], dt, r * D + j, (float)v);
        }
    }
    for (size_t j = 0; j < D; j++) {
        st(a->t[6], dt, j, (float)dg[j]);
        if (a->t[7]) st(a->t[7], dt, j, (float)db[j]);
    }
    free(dg);
    return MGPU_OK;
}

static void softmax(const mgpu_nn_args *a)
{
    mgpu_dtype dt = a->dtype;
    size_t rows = a->n[0], cols = a->n[1];
    float sc = a->f[0];
    for (size_t r = 0; r < rows; r++) {
        size_t lim = a->i[0] ? r % cols + 1 : cols, o = r * cols;
        float mx = -INFINITY;
        for (size_t j = 0; j < lim; j++) mx = fmaxf(mx, sc * ld(a->t[0], dt, o + j));
        double sum = 0;
        for (size_t j = 0; j < lim; j++) sum += exp((double)(sc * ld(a->t[0], dt, o + j) - mx));
        for (size_t j = 0; j < cols; j++)
            st(a->t[1], dt, o + j, j < lim ? (float)(exp((double)(sc * ld(a->t[0], dt, o + j) - mx)) / sum) : 0.f);
    }
}

/*--- Dispatch ------------------------------------------------------------------------*/

/* Two f32 arrays of n elements are the same array or do not overlap. */
static int same_or_apart(const float *a, const float *b, size_t n)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b, len = n * sizeof(float);
    return x == y || x + len <= y || y + len <= x;
}

/* y = act(x), i[0] the activation */
static mgpu_result act(const mgpu_nn_args *a)
{
    mgpu_dtype dt = a->dtype;
    size_t n = a->n[0];
    if (dt == MGPU_F32 && a->i[0] == 0) { /* f32 ReLU, a ResNet's every layer: a loop that vectorises */
        const float *x = a->t[0];
        float *y = a->t[1];
        for (size_t i = 0; i < n; i++) y[i] = x[i] > 0 ? x[i] : 0.f;
        return MGPU_OK;
    }
    for (size_t i = 0; i < n; i++) st(a->t[1], dt, i, act_f(a->i[0], ld(a->t[0], dt, i)));
    return MGPU_OK;
}

/* dx = dy * act'(x) */
static mgpu_result act_backward(const mgpu_nn_args *a)
{
    mgpu_dtype dt = a->dtype;
    size_t n = a->n[0];
    if (dt == MGPU_F32 && a->i[0] == 0) {
        const float *x = a->t[0], *dy = a->t[1];
        float *dx = a->t[2];
        /* Vectorised (the scalar loop's branch on the sign mispredicted
         * half the time: a tenth of a lab 4 run) given -fno-trapping-math
         * (CMakeLists.txt) and no overlap gcc must check for: backward
         * writes its gradient in place (dx == dy), and element i reads
         * and writes index i only, so the same array or apart are both
         * safe. */
        if (same_or_apart(dx, dy, n) && same_or_apart(dx, x, n)) {
#pragma GCC ivdep
            for (size_t i = 0; i < n; i++) dx[i] = dy[i] * (x[i] > 0 ? 1.f : 0.f); /* act_grad(0), same bits */
        } else {
            for (size_t i = 0; i < n; i++) dx[i] = dy[i] * (x[i] > 0 ? 1.f : 0.f);
        }
        return MGPU_OK;
    }
    for (size_t i = 0; i < n; i++) st(a->t[2], dt, i, ld(a->t[1], dt, i) * act_grad(a->i[0], ld(a->t[0], dt, i)));
    return MGPU_OK;
}

/* SGD with momentum and weight decay, in place: t0 the parameters, t1 the
 * gradients, t2 the momentum (f32) */
static mgpu_result sgd(const mgpu_nn_args *a)
{
    mgpu_dtype dt = a->dtype;
    size_t n = a->n[0];
    float *m = a->t[2], lr = a->f[0], mu = a->f[1], wd = a->f[2];
    for (size_t i = 0; i < n; i++) {
        float p = ld(a->t[0], dt, i);
        m[i] = mu * m[i] + ld(a->t[1], dt, i) + wd * p;
        st(a->t[0], dt, i, p - lr * m[i]);
    }
    return MGPU_OK;
}

/* AdamW, in place: t0 the parameters, t1 the gradients, t2/t3 the moments
 * (f32) */
static mgpu_result adamw(const mgpu_nn_args *a)
{
    mgpu_dtype dt = a->dtype;
    size_t n = a->n[0];
    float *m = a->t[2], *v = a->t[3], lr = a->f[0], b1 = a->f[1], b2 = a->f[2], eps = a->f[3], wd = a->f[4];
    float bc1 = a->f[5], bc2 = a->f[6];
    for (size_t i = 0; i < n; i++) {
        float p = ld(a->t[0], dt, i), g = ld(a->t[1], dt, i);
        m[i] = b1 * m[i] + (1 - b1) * g;
        v[i] = b2 * v[i] + (1 - b2) * g * g;
        p *= 1 - lr * wd;
        p -= lr * (m[i] / bc1) / (sqrtf(v[i] / bc2) + eps);
        st(a->t[0], dt, i, p);
    }
    return MGPU_OK;
}

/* Rows of a table by id (t0 ids; forward t1 the table, t2 the rows;
 * backward t1 the rows' gradients, t2 the table's, added to); an id outside
 * the vocabulary fails */
static mgpu_result embedding(const mgpu_nn_args *a)
{
    mgpu_dtype dt = a->dtype;
    size_t n = a->n[0];
    const int32_t *ids = a->t[0];
    size_t D = a->n[1];
    for (size_t i = 0; i < n; i++)
        if (ids[i] < 0 || (size_t)ids[i] >= a->n[2])
            return mgpu_fail(MGPU_ERR_INVALID, "embedding: id %d at %zu is not in the vocabulary 0..%zu", (int)ids[i],
                             i, a->n[2] - 1);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < D; j++) {
            size_t row = (size_t)ids[i] * D + j;
            if (a->op == MGPU_NNK_EMBEDDING) st(a->t[2], dt, i * D + j, ld(a->t[1], dt, row));
            else st(a->t[2], dt, row, ld(a->t[2], dt, row) + ld(a->t[1], dt, i * D + j));
        }
    return MGPU_OK;
}

/* dx = scale * y * (dy - sum(y * dy)) per row */
static mgpu_result softmax_backward(const mgpu_nn_args *a)
{
    mgpu_dtype dt = a->dtype;
    for (size_t r = 0; r < a->n[0]; r++) {
        size_t o = r * a->n[1];
        double dot = 0;
        for (size_t j = 0; j < a->n[1]; j++) dot += (double)ld(a->t[0], dt, o + j) * ld(a->t[1], dt, o + j);
        for (size_t j = 0; j < a->n[1]; j++)
            st(a->t[2], dt, o + j, a->f[0] * ld(a->t[0], dt, o + j) * (float)(ld(a->t[1], dt, o + j) - dot));
    }
    return MGPU_OK;
}

/* t0 [A, B, C, D] to t1 [A, C, B, D] */
static mgpu_result swap12(const mgpu_nn_args *a)
{
    mgpu_dtype dt = a->dtype;
    size_t A = a->n[0], B = a->n[1], C = a->n[2], D = a->n[3], es = mgpu_dtype_size(dt);
    for (size_t i = 0; i < A; i++)
        for (size_t b = 0; b < B; b++)
            for (size_t c = 0; c < C; c++)
                memcpy((char *)a->t[1] + (((i * C + c) * B + b) * D) * es,
                       (const char *)a->t[0] + (((i * B + b) * C + c) * D) * es, D * es);
    return MGPU_OK;
}

static mgpu_result compute(const mgpu_nn_args *a)
{
    mgpu_dtype dt = a->dtype;
    size_t n = a->n[0];
    switch (a->op) {
    case MGPU_NNK_BIAS_ADD:
        for (size_t r = 0; r < a->n[0]; r++)
            for (size_t c = 0; c < a->n[1]; c++)
                st(a->t[2], dt, r * a->n[1] + c, ld(a->t[0], dt, r * a->n[1] + c) + ld(a->t[1], dt, c));
        return MGPU_OK;
    case MGPU_NNK_BIAS_GRAD:
        for (size_t c = 0; c < a->n[1]; c++) {
            double s = 0;
            for (size_t r = 0; r < a->n[0]; r++) s += ld(a->t[0], dt, r * a->n[1] + c);
            st(a->t[1], dt, c, (float)(a->f[0] != 0 ? a->f[0] * ld(a->t[1], dt, c) + s : s));
        }
        return MGPU_OK;
    case MGPU_NNK_ACT: return act(a);
    case MGPU_NNK_ACT_BACKWARD: return act_backward(a);
    case MGPU_NNK_SWIGLU:
        for (size_t i = 0; i < n; i++) st(a->t[2], dt, i, act_f(2, ld(a->t[0], dt, i)) * ld(a->t[1], dt, i));
        return MGPU_OK;
    case MGPU_NNK_SWIGLU_BACKWARD:
        for (size_t i = 0; i < n; i++) {
            float g = ld(a->t[0], dt, i), u = ld(a->t[1], dt, i), dy = ld(a->t[2], dt, i);
            st(a->t[3], dt, i, dy * u * act_grad(2, g));
            st(a->t[4], dt, i, dy * act_f(2, g));
        }
        return MGPU_OK;
    case MGPU_NNK_ADD:
        for (size_t i = 0; i < n; i++)
            st(a->t[2], dt, i, a->f[0] * ld(a->t[0], dt, i) + (a->f[1] != 0 ? a->f[1] * ld(a->t[1], dt, i) : 0.f));
        return MGPU_OK;
    case MGPU_NNK_CROSS_ENTROPY:
        for (size_t r = 0; r < a->n[0]; r++) {
            int32_t y = ((const int32_t *)a->t[1])[r];
            if (y < 0 || (size_t)y >= a->n[1])
                return mgpu_fail(MGPU_ERR_INVALID, "cross_entropy: label %d of row %zu is not a class 0..%zu", (int)y, r,
                                 a->n[1] - 1);
        }
        cross_entropy(a);
        return MGPU_OK;
    case MGPU_NNK_SGD: return sgd(a);
    case MGPU_NNK_ADAMW: return adamw(a);
    case MGPU_NNK_SUMSQ: {
        double s = a->i[0] ? ((float *)a->t[1])[0] : 0;
        for (size_t i = 0; i < n; i++) s += (double)ld(a->t[0], dt, i) * ld(a->t[0], dt, i);
        ((float *)a->t[1])[0] = (float)s;
        return MGPU_OK;
    }
    case MGPU_NNK_CLIP_SCALE: {
        float norm = sqrtf(((const float *)a->t[1])[0]), k = a->f[0] / (norm + 1e-6f);
        if (k < 1)
            for (size_t i = 0; i < n; i++) st(a->t[0], dt, i, ld(a->t[0], dt, i) * k);
        return MGPU_OK;
    }
    case MGPU_NNK_IM2COL: im2col(a, 0); return MGPU_OK;
    case MGPU_NNK_COL2IM: im2col(a, 1); return MGPU_OK;
    case MGPU_NNK_BATCHNORM: batchnorm(a); return MGPU_OK;
    case MGPU_NNK_BATCHNORM_BACKWARD: batchnorm_backward(a); return MGPU_OK;
    case MGPU_NNK_AVGPOOL:
        for (size_t r = 0; r < a->n[0]; r++) {
            double s = 0;
            for (size_t i = 0; i < a->n[1]; i++) s += ld(a->t[0], dt, r * a->n[1] + i);
            st(a->t[1], dt, r, (float)(s / (double)a->n[1]));
        }
        return MGPU_OK;
    case MGPU_NNK_AVGPOOL_BACKWARD:
        for (size_t r = 0; r < a->n[0]; r++)
            for (size_t i = 0; i < a->n[1]; i++) st(a->t[1], dt, r * a->n[1] + i, ld(a->t[0], dt, r) / (float)a->n[1]);
        return MGPU_OK;
    case MGPU_NNK_NORM: norm(a); return MGPU_OK;
    case MGPU_NNK_NORM_BACKWARD: return norm_backward(a);
    case MGPU_NNK_EMBEDDING:
    case MGPU_NNK_EMBEDDING_BACKWARD: return embedding(a);
    case MGPU_NNK_SOFTMAX: softmax(a); return MGPU_OK;
    case MGPU_NNK_SOFTMAX_BACKWARD: return softmax_backward(a);
    case MGPU_NNK_SWAP12: return swap12(a);
    case MGPU_NNK_CONV2D:
    case MGPU_NNK_CONV2D_DGRAD:
    case MGPU_NNK_CONV2D_WGRAD: return sim_nn_conv_igemm(a);
    case MGPU_NNK_COUNT: break;
    }
    return mgpu_fail(MGPU_ERR_INVALID, "sim: unknown training op %d", (int)a->op);
}

static mgpu_result sim_nn_kernel(mgpu_stream *s, const mgpu_nn_args *a)
{
    sim_state *stt = sim_of(s->be);
    pthread_mutex_lock(&stt->lock);
    mgpu_result r = a->phantom ? MGPU_OK : compute(a);
    if (r == MGPU_OK) charge(s, &a->cost, a->dtype);
    pthread_mutex_unlock(&stt->lock);
    return r;
}

const struct mgpu_nn_ops mgpu_sim_nn_ops = {
    .gemm = sim_nn_gemm,
    .kernel = sim_nn_kernel,
};
