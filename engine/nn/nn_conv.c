/* nn_conv.c - conv2d forward and backward, the same algorithm on every
 * backend: a 1x1 stride-1 conv is a GEMM (x is its own column matrix); any
 * other is three implicit GEMMs, one backend kernel each (MGPU_NNK_CONV2D*,
 * no column matrix in memory); a tensor past 2^31 elements goes the old
 * way, im2col + GEMM from the backend's pieces, the batch cut into chunks
 * of images so the columns fit a bounded workspace. */
#include "nn/nn_call.h"
#include "mgpu/mem.h"
#include <stdio.h>
#include <string.h>

/* conv2d's im2col workspace per chunk of images: the batch is cut so that
 * a batch of 256 32x32 images never needs gigabytes of columns. */
#define CONV_WORKSPACE_BYTES ((size_t)32 << 20)

/*--- conv2d: im2col + GEMM ----------------------------------------------------*/

typedef struct conv_geom {
    size_t n, cin, h, w, k, r, p, q;
    int stride, pad;
} conv_geom;

/* y is the output (forward) or its gradient (backward), named y_name. */
static void conv_check(nn_call *c, const mgpu_tensor *x, const mgpu_tensor *w, const mgpu_tensor *y, const char *y_name,
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
    nn_want_dims(c, y, y_name, 4, want);
}

/* 1x1, stride 1, no padding: x itself is the column matrix. */
static int conv_is_pointwise(const conv_geom *g) { return g->r == 1 && g->stride == 1 && g->pad == 0; }

/* The implicit GEMMs index in 32 bits (cuda_nn_conv_igemm.cu). */
static int conv_implicit(const conv_geom *g)
{
    size_t lim = (size_t)1 << 31, x = g->n * g->cin * g->h * g->w, y = g->n * g->k * g->p * g->q;
    return !conv_is_pointwise(g) && x < lim && y < lim && g->k * g->cin * g->r * g->r < lim && g->k < lim;
}

/* One implicit GEMM C [m, j] = A [m, kred] B [kred, j] of conv2d (op):
 * forward y from x (t0) and w (t1); data grad dx from dy (t0) and w; weight
 * grad dw from x (t0) and dy (t1), its reduction over the images cut in
 * parts added in order (a second kernel). */
static mgpu_result conv_igemm(nn_call *c, int phantom, mgpu_nn_kernel op, const conv_geom *g, const void *t0,
                              const void *t1, void *t2)
{
    mgpu_nn_args a = {.op = op, .t = {(void *)t0, (void *)t1, t2}, .n = {g->n, g->cin, g->h, g->w, g->r, g->p, g->q},
                      .i = {g->stride, g->pad, (int)g->k}, .dtype = c->dtype, .phantom = phantom};
    size_t crr = g->cin * g->r * g->r, img = g->n * g->cin * g->h * g->w, out = g->n * g->k * g->p * g->q, m, j, kred;
    /* x's elements the forward and weight grad read: a 1x1 stride-2 conv
     * touches every other row of x (P*R of H rows when R < stride; within a
     * row the 32-byte sectors all come in), so half of x crosses HBM */
    size_t rows = g->p * g->r < g->h ? g->p * g->r : g->h, xread = g->n * g->cin * rows * g->w;
    double elems;
    if (op == MGPU_NNK_CONV2D) m = g->k, j = g->n * g->p * g->q, kred = crr, elems = (double)(xread + out + g->k * crr);
    else if (op == MGPU_NNK_CONV2D_DGRAD)
        m = g->cin, j = g->n * g->h * g->w, kred = g->k * g->r * g->r, elems = (double)(img + out + g->k * crr);
    else m = g->k, j = crr, kred = g->n * g->p * g->q, elems = (double)(xread + out + g->k * crr);
    int bf16 = c->dtype == MGPU_BF16, halo = 0;
    size_t parts = 1, chunk;
    /* the bf16 halo kernels' shapes (nn_ops.h, as cuda takes them) */
    if (op == MGPU_NNK_CONV2D_WGRAD) {
        if (mgpu_nn_conv_halo_wgrad(bf16, g->n, g->cin, g->h, g->w, g->k, (int)g->r, g->stride, g->pad, g->p, g->q,
                                    MGPU_NN_HALO_WGRAD_MIN_BLOCKS) >= 0)
            halo = 2, parts = mgpu_nn_conv_halo_wgrad_parts(g->n, g->cin, g->h, g->w, g->k, &chunk);
    } else if (mgpu_nn_conv_halo(bf16, op == MGPU_NNK_CONV2D_DGRAD, g->n, g->cin, g->h, g->w, g->k, (int)g->r, g->stride,
                                 g->pad, g->p, g->q, MGPU_NN_HALO_MIN_BLOCKS) >= 0)
        halo = 1;
    /* the general kernel's tiles and parts as cuda chooses them (one
     * function for both): the weight grad's, the forward's of few tiles and
     * the stride-1 data grad's reduction cut in parts; the f32 weight grad
     * of a small output on its narrow tile (sim_conv_price.c recomputes the
     * tile from the same function) */
    if (!halo) parts = mgpu_nn_conv_plan_of(op, m, j, kred, bf16, g->stride).parts;
    a.cost.name = op == MGPU_NNK_CONV2D ? "conv2d" : op == MGPU_NNK_CONV2D_DGRAD ? "conv2d dgrad" : "conv2d wgrad";
    /* The GEMM the kernel runs; the sim prices its tiles and k-steps
     * (sim_conv_price.c, sim_conv_ns), a strided data grad's by its phases, a halo
     * kernel's by its blocks and slices. */
    a.cost.w = (mgpu_nn_work){.cls = MGPU_NN_CLASS_CONV, .flops = 2.0 * (double)m * (double)j * (double)kred,
                              .bytes = (double)mgpu_dtype_size(c->dtype) * elems, .m = m, .n = j, .batch = parts,
                              /* parts' combine (any op cut in parts); a strided data grad's 16 phases a launch */
                              .kernels = op == MGPU_NNK_CONV2D_WGRAD || parts > 1 ? 2
                                         : op == MGPU_NNK_CONV2D_DGRAD ? (g->stride * g->stride + 15) / 16
                                                                       : 1,
                              .conv = {.dgrad = op == MGPU_NNK_CONV2D_DGRAD, .wgrad = op == MGPU_NNK_CONV2D_WGRAD,
                                       .stride = g->stride, .pad = g->pad, .r = (int)g->r, .halo = halo, .h = g->h,
                                       .w = g->w}};
    return c->ops->kernel(c->s, &a);
}

/* Images per chunk when each image needs `per_image` bytes of workspace
 * (every buffer the chunk's pieces use, counted together). */
static size_t conv_chunk(const conv_geom *g, size_t per_image)
{
    size_t nb = CONV_WORKSPACE_BYTES / per_image;
    if (nb < 1) nb = 1;
    return nb > g->n ? g->n : nb;
}

/* layout: MGPU_NN_COL_BY_IMAGE or MGPU_NN_COL_BY_ROW (nn_ops.h). */
static mgpu_result im2col(nn_call *c, int phantom, mgpu_nn_kernel op, const conv_geom *g, size_t nb, int layout,
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
    return c->ops->kernel(c->s, &a);
}

/* A workspace for nb images' columns on the stream (phantom when the op is). */
static mgpu_result workspace(nn_call *c, int phantom, size_t bytes, mgpu_buffer **out)
{
    if (phantom) return mgpu_mem_alloc_phantom(mgpu_stream_backend(c->s), mgpu_stream_device(c->s), c->s, bytes, 1, out);
    return mgpu_mem_alloc_stream(c->s, bytes, out);
}

mgpu_result mgpu_nn_conv2d(mgpu_stream *s, const mgpu_tensor *x, const mgpu_tensor *w, mgpu_tensor *y, int stride,
                           int pad)
{
    nn_call c;
    nn_call_init(&c, s, "conv2d");
    char *px = nn_in(&c, x, "x", K_FLOAT);
    const void *pw = nn_in(&c, w, "w", K_FLOAT);
    char *py = nn_out(&c, y, "y", K_FLOAT);
    conv_geom g;
    conv_check(&c, x, w, y, "y", stride, pad, &g);
    nn_want_apart(&c, y, "y", x, "x"); /* GEMMs write y while they read x */
    nn_want_apart(&c, y, "y", w, "w");
    int ph = nn_phantom_mode(&c);
    if (c.r != MGPU_OK) return c.r;
    if (ph && !nn_models_time(&c)) return MGPU_OK;
    size_t esz = mgpu_dtype_size(c.dtype), crr = g.cin * g.r * g.r, pq = g.p * g.q;
    if (conv_is_pointwise(&g)) /* y[n] = w [K, C] @ x[n] [C, HW] */
        return nn_gemm_raw(&c, ph, 0, 0, g.k, pq, crr, g.n, pw, 0, px, crr * pq, py, g.k * pq, 1, 0);
    if (conv_implicit(&g)) return conv_igemm(&c, ph, MGPU_NNK_CONV2D, &g, px, pw, py);
    size_t nb = conv_chunk(&g, crr * pq * esz);
    mgpu_buffer *ws = NULL;
    MGPU_CHECK(workspace(&c, ph, nb * crr * pq * esz, &ws));
    mgpu_result r = MGPU_OK;
    for (size_t n0 = 0; n0 < g.n && r == MGPU_OK; n0 += nb) {
        size_t m = g.n - n0 < nb ? g.n - n0 : nb;
        r = im2col(&c, ph, MGPU_NNK_IM2COL, &g, m, MGPU_NN_COL_BY_IMAGE, px + n0 * g.cin * g.h * g.w * esz,
                   ws->ptr);
        if (r == MGPU_OK)
            r = nn_gemm_raw(&c, ph, 0, 0, g.k, pq, crr, m, pw, 0, ws->ptr, crr * pq, py + n0 * g.k * pq * esz, g.k * pq,
                         1, 0);
    }
    mgpu_mem_free(ws);
    return r;
}

/* The gradients: two implicit GEMMs (conv_igemm: dw, then dx), or for a
 * pointwise conv or a tensor past 2^31 elements, chunk by chunk of m
 * images, each piece one GEMM:
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
    nn_call c;
    nn_call_init(&c, s, "conv2d_backward");
    char *px = nn_in(&c, x, "x", K_FLOAT);
    const void *pw = nn_in(&c, w, "w", K_FLOAT);
    char *pdy = nn_in(&c, dy, "dy", K_FLOAT);
    char *pdx = nn_opt_out(&c, dx, "dx", K_FLOAT);
    char *pdw = nn_out(&c, dw, "dw", K_FLOAT);
    conv_geom g;
    conv_check(&c, x, w, dy, "dy", stride, pad, &g);
    nn_want_same(&c, dx, "dx", x, "x");
    nn_want_same(&c, dw, "dw", w, "w");
    nn_want_apart(&c, dx, "dx", dy, "dy");
    nn_want_apart(&c, dx, "dx", w, "w");
    nn_want_apart(&c, dw, "dw", x, "x");
    nn_want_apart(&c, dw, "dw", dy, "dy");
    int ph = nn_phantom_mode(&c);
    if (c.r != MGPU_OK) return c.r;
    if (ph && !nn_models_time(&c)) return MGPU_OK;
    size_t esz = mgpu_dtype_size(c.dtype), crr = g.cin * g.r * g.r, pq = g.p * g.q, img = g.cin * g.h * g.w;
    if (conv_implicit(&g)) {
        mgpu_result r = conv_igemm(&c, ph, MGPU_NNK_CONV2D_WGRAD, &g, px, pdy, pdw);
        if (r == MGPU_OK && pdx) r = conv_igemm(&c, ph, MGPU_NNK_CONV2D_DGRAD, &g, pdy, pw, pdx);
        return r;
    }
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
        r = nn_swap12_raw(&c, ph, 1, m, g.k, pq, dyn, dyT);
        if (r == MGPU_OK)
            r = pw1 ? nn_swap12_raw(&c, ph, 1, m, g.cin, pq, xn, colT)
                    : im2col(&c, ph, MGPU_NNK_IM2COL, &g, m, MGPU_NN_COL_BY_ROW, xn, colT);
        if (r == MGPU_OK)
            r = nn_gemm_raw(&c, ph, 0, 1, g.k, crr, mpq, 1, dyT, 0, colT, 0, pdw, 0, 1, n0 == 0 ? 0 : 1);
        if (!pdx || r != MGPU_OK) continue;
        char *dxn = pdx + n0 * img * esz;
        if (pw1) { /* dx[n] [C, HW] = w^T [C, K] @ dy[n] [K, HW] */
            r = nn_gemm_raw(&c, ph, 1, 0, crr, pq, g.k, m, pw, 0, dyn, g.k * pq, dxn, crr * pq, 1, 0);
            continue;
        }
        r = nn_gemm_raw(&c, ph, 1, 0, crr, mpq, g.k, 1, pw, 0, dyT, 0, colT, 0, 1, 0);
        if (r == MGPU_OK) r = im2col(&c, ph, MGPU_NNK_COL2IM, &g, m, MGPU_NN_COL_BY_ROW, dxn, colT);
    }
    mgpu_mem_free(ws);
    return r;
}
