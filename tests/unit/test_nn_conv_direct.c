/* test_nn_conv_direct.c - conv2d forward and backward on the sim against a
 * direct (naive) convolution and its gradients summed in double, in f32 and
 * bf16, over several images: the backward's weight gradient is one GEMM
 * over a chunk of images (im2col laid out by row, dy transposed), so the
 * images must all land in dw, each exactly once, and bf16 must round dw
 * once per chunk, not once per image. One f32 case is large enough to take
 * two chunks of the 32 MiB workspace, so chunks add into dw too. */
#include "mgpu/nn.h"
#include "tap.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static mgpu_backend *be;
static mgpu_stream *s;

typedef struct geom {
    size_t n, c, h, w, k, r;
    int stride, pad;
} geom;

static size_t out_dim(size_t in, const geom *g) { return (in + 2 * (size_t)g->pad - g->r) / (size_t)g->stride + 1; }

static mgpu_tensor tensor(mgpu_dtype dt, size_t d0, size_t d1, size_t d2, size_t d3, uint64_t seed)
{
    size_t d[4] = {d0, d1, d2, d3};
    mgpu_tensor t;
    memset(&t, 0, sizeof t);
    if (mgpu_tensor_alloc_shape(be, MGPU_MEM_DEVICE, 0, dt, 4, d, &t) != MGPU_OK) {
        fprintf(stderr, "alloc: %s\n", mgpu_error_message());
        exit(1);
    }
    mgpu_fill_spec fs = {seed ? MGPU_FILL_RANDOM : MGPU_FILL_CONST, seed, seed ? 0 : 7};
    CHECK_OK(mgpu_tensor_fill(s, &t, &fs)); /* outputs start as 7s: every element must be written */
    return t;
}

static float *host(const mgpu_tensor *t)
{
    float *h = malloc(t->count * sizeof *h);
    CHECK_OK(mgpu_tensor_to_host_f32(s, t, h));
    return h;
}

/* Worst |got - want| / max(1, |want|). */
static double worst(const float *got, const double *want, size_t n)
{
    double e = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - want[i]) / fmax(1.0, fabs(want[i]));
        if (!(d <= e)) e = d; /* NaN wins */
    }
    return e;
}

static void check_case(const geom *g, mgpu_dtype dt)
{
    size_t P = out_dim(g->h, g), Q = out_dim(g->w, g);
    mgpu_tensor x = tensor(dt, g->n, g->c, g->h, g->w, 11), w = tensor(dt, g->k, g->c, g->r, g->r, 12);
    mgpu_tensor dy = tensor(dt, g->n, g->k, P, Q, 13), y = tensor(dt, g->n, g->k, P, Q, 0);
    mgpu_tensor dx = tensor(dt, g->n, g->c, g->h, g->w, 0), dw = tensor(dt, g->k, g->c, g->r, g->r, 0);
    CHECK_OK(mgpu_nn_conv2d(s, &x, &w, &y, g->stride, g->pad));
    CHECK_OK(mgpu_nn_conv2d_backward(s, &x, &w, &dy, &dx, &dw, g->stride, g->pad));
    float *hx = host(&x), *hw = host(&w), *hdy = host(&dy), *hy = host(&y), *hdx = host(&dx), *hdw = host(&dw);
    double *ry = calloc(y.count, sizeof *ry), *rdx = calloc(dx.count, sizeof *rdx), *rdw = calloc(dw.count, sizeof *rdw);
    for (size_t n = 0; n < g->n; n++)
        for (size_t k = 0; k < g->k; k++)
            for (size_t p = 0; p < P; p++)
                for (size_t q = 0; q < Q; q++) {
                    size_t yi = ((n * g->k + k) * P + p) * Q + q;
                    for (size_t c = 0; c < g->c; c++)
                        for (size_t r = 0; r < g->r; r++)
                            for (size_t t = 0; t < g->r; t++) {
                                long h = (long)(p * (size_t)g->stride + r) - g->pad;
                                long v = (long)(q * (size_t)g->stride + t) - g->pad;
                                if (h < 0 || v < 0 || h >= (long)g->h || v >= (long)g->w) continue;
                                size_t xi = ((n * g->c + c) * g->h + (size_t)h) * g->w + (size_t)v;
                                size_t wi = ((k * g->c + c) * g->r + r) * g->r + t;
                                ry[yi] += (double)hx[xi] * hw[wi];
                                rdx[xi] += (double)hdy[yi] * hw[wi];
                                rdw[wi] += (double)hdy[yi] * hx[xi];
                            }
                }
    /* f32: f32 sums of up to 14K terms in another order; bf16: one rounding
     * of each result (2^-9 relative) on f32 sums, and dx sums up to R*R
     * rounded column values. The fill's values are exact in bf16. */
    double ty = dt == MGPU_BF16 ? 8e-3 : 1e-4, tdw = dt == MGPU_BF16 ? 8e-3 : 1e-4,
           tdx = dt == MGPU_BF16 ? 2e-2 : 1e-4;
    double ey = worst(hy, ry, y.count), edx = worst(hdx, rdx, dx.count), edw = worst(hdw, rdw, dw.count);
    char name[128];
    snprintf(name, sizeof name, "%zu images %zux%zux%zu, %zu filters %zux%zu stride %d pad %d (%s)", g->n, g->c, g->h,
             g->w, g->k, g->r, g->r, g->stride, g->pad, mgpu_dtype_name(dt));
    if (getenv("NN_CONV_VERBOSE")) printf("%-60s y %.2e dx %.2e dw %.2e\n", name, ey, edx, edw);
    CHECKF(ey <= ty, "%s: y off the direct convolution by %.3g (tolerance %.0e)", name, ey, ty);
    CHECKF(edx <= tdx, "%s: dx off the direct gradient by %.3g (tolerance %.0e)", name, edx, tdx);
    CHECKF(edw <= tdw, "%s: dw off the direct gradient by %.3g (tolerance %.0e)", name, edw, tdw);
    free(hx), free(hw), free(hdy), free(hy), free(hdx), free(hdw), free(ry), free(rdx), free(rdw);
    mgpu_tensor_free(&x), mgpu_tensor_free(&w), mgpu_tensor_free(&dy), mgpu_tensor_free(&y);
    mgpu_tensor_free(&dx), mgpu_tensor_free(&dw);
}

int main(void)
{
    mgpu_backend_config cfg = {.kind = MGPU_BACKEND_SIM, .machine = "dgx-h100"};
    if (mgpu_backend_open(&cfg, &be) != MGPU_OK || mgpu_stream_create(be, 0, 0, &s) != MGPU_OK) {
        fprintf(stderr, "%s\n", mgpu_error_message());
        return 1;
    }
    static const geom small[] = {
        {6, 3, 9, 7, 5, 3, 2, 1},  /* 3x3 stride 2 pad 1, odd sizes */
        {6, 4, 8, 8, 6, 3, 1, 1},  /* 3x3 stride 1 pad 1 */
        {6, 8, 6, 5, 16, 1, 1, 0}, /* pointwise: x is its own column matrix */
        {6, 8, 7, 7, 4, 1, 2, 0},  /* 1x1 stride 2: through im2col */
        {1, 2, 5, 5, 3, 3, 1, 0},  /* one image, no padding */
        {2, 3, 4, 5, 4, 5, 3, 2},  /* 5x5 stride 3 pad 2: padded columns on both edges */
        {2, 2, 3, 3, 3, 3, 2, 3},  /* pad 3 > the kernel's reach: taps that see no column */
    };
    for (int d = 0; d < 2; d++)
        for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) check_case(&small[i], d ? MGPU_BF16 : MGPU_F32);
    /* (576 + 8) * 1024 * 4 bytes of workspace per image: 13 images a chunk */
    const geom big = {14, 64, 32, 32, 8, 3, 1, 1};
    check_case(&big, MGPU_F32);
    mgpu_stream_destroy(s);
    mgpu_backend_close(be);
    return tap_done();
}
