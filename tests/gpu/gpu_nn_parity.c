/* gpu_nn_parity.c - every training op (mgpu/nn.h) on the cuda backend
 * against the sim backend, whose ops are the host reference (OpenBLAS and
 * plain loops, tests/unit/test_nn_grad.c checks them against finite
 * differences). Inputs come from the deterministic fill, bit-identical on
 * both backends. Tolerances: f32 elementwise ops 1e-5 relative (expf and
 * tanhf differ in the last bits), f32 reductions and GEMMs 1e-4 (another
 * summation order), bf16 2e-2 (one bf16 rounding is 2^-8 of a value; the
 * order of f32 sums can move a result across a rounding boundary). Also:
 * the same op twice on cuda gives the same bits (no atomics), and a ResNet-
 * sized conv step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mgpu/dev.h"
#include "mgpu/nn.h"
#include "tap.h"

#define MAXT 11

typedef struct spec {
    mgpu_dtype dt;    /* MGPU_F32 here means "the case's dtype" unless f32 is forced */
    int force;        /* 1: always f32, 2: i32 (INDEX fill: 0, 1, 2, ...) */
    int nd;
    size_t d[4];
    uint64_t seed;    /* 0: zeros */
    int out;          /* compared */
} spec;

typedef struct ncase {
    const char *name;
    spec t[MAXT];
    int nt;
    mgpu_result (*fn)(mgpu_stream *s, mgpu_tensor *t);
} ncase;

static mgpu_result f_gemm(mgpu_stream *s, mgpu_tensor *t) { return mgpu_nn_gemm(s, &t[0], 0, &t[1], 1, &t[2], 1, 0); }
static mgpu_result f_gemm_tn(mgpu_stream *s, mgpu_tensor *t) { return mgpu_nn_gemm(s, &t[0], 1, &t[1], 0, &t[2], 1, 0.5f); }
static mgpu_result f_bgemm(mgpu_stream *s, mgpu_tensor *t) { return mgpu_nn_gemm(s, &t[0], 0, &t[1], 0, &t[2], 1, 0); }
static mgpu_result f_bias(mgpu_stream *s, mgpu_tensor *t)
{
    MGPU_CHECK(mgpu_nn_bias_add(s, &t[0], &t[1], &t[2]));
    return mgpu_nn_bias_grad(s, &t[0], &t[3], 0);
}
static mgpu_result f_acts(mgpu_stream *s, mgpu_tensor *t)
{
    for (int a = 0; a < MGPU_ACT_COUNT; a++) {
        MGPU_CHECK(mgpu_nn_activation(s, (mgpu_nn_act)a, &t[0], &t[2 + 2 * a]));
        MGPU_CHECK(mgpu_nn_activation_backward(s, (mgpu_nn_act)a, &t[0], &t[1], &t[3 + 2 * a]));
    }
    return MGPU_OK;
}
static mgpu_result f_swiglu(mgpu_stream *s, mgpu_tensor *t)
{
    MGPU_CHECK(mgpu_nn_swiglu(s, &t[0], &t[1], &t[2]));
    MGPU_CHECK(mgpu_nn_swiglu_backward(s, &t[0], &t[1], &t[2], &t[3], &t[4]));
    return mgpu_nn_add(s, &t[0], &t[1], &t[5], 0.5f, -2);
}
static mgpu_result f_ce(mgpu_stream *s, mgpu_tensor *t) { return mgpu_nn_cross_entropy(s, &t[0], &t[1], &t[2], &t[3]); }
static mgpu_result f_opt(mgpu_stream *s, mgpu_tensor *t)
{
    MGPU_CHECK(mgpu_nn_sgd(s, &t[0], &t[1], &t[2], 0.1f, 0.9f, 1e-4f));
    MGPU_CHECK(mgpu_nn_adamw(s, &t[3], &t[1], &t[4], &t[5], 1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, 3));
    MGPU_CHECK(mgpu_nn_sumsq(s, &t[1], &t[6], 0));
    return mgpu_nn_clip_scale(s, &t[1], &t[6], 1.0f);
}
static mgpu_result f_conv3(mgpu_stream *s, mgpu_tensor *t)
{
    MGPU_CHECK(mgpu_nn_conv2d(s, &t[0], &t[1], &t[2], 2, 1));
    return mgpu_nn_conv2d_backward(s, &t[0], &t[1], &t[2], &t[3], &t[4], 2, 1);
}
static mgpu_result f_conv1(mgpu_stream *s, mgpu_tensor *t)
{
    MGPU_CHECK(mgpu_nn_conv2d(s, &t[0], &t[1], &t[2], 1, 0));
    return mgpu_nn_conv2d_backward(s, &t[0], &t[1], &t[2], &t[3], &t[4], 1, 0);
}
/* backward alone, from a random dy (t2) rather than from y */
static mgpu_result f_conv3b(mgpu_stream *s, mgpu_tensor *t)
{
    return mgpu_nn_conv2d_backward(s, &t[0], &t[1], &t[2], &t[3], &t[4], 2, 1);
}
static mgpu_result f_conv1b(mgpu_stream *s, mgpu_tensor *t)
{
    return mgpu_nn_conv2d_backward(s, &t[0], &t[1], &t[2], &t[3], &t[4], 1, 0);
}
static mgpu_result f_conv1s2(mgpu_stream *s, mgpu_tensor *t)
{
    MGPU_CHECK(mgpu_nn_conv2d(s, &t[0], &t[1], &t[2], 2, 0));
    return mgpu_nn_conv2d_backward(s, &t[0], &t[1], &t[2], &t[3], &t[4], 2, 0);
}
static mgpu_result f_conv3s1(mgpu_stream *s, mgpu_tensor *t)
{
    MGPU_CHECK(mgpu_nn_conv2d(s, &t[0], &t[1], &t[2], 1, 1));
    return mgpu_nn_conv2d_backward(s, &t[0], &t[1], &t[2], &t[3], &t[4], 1, 1);
}
/* forward into t[2]; backward from a seeded dy (t[3]) into dx, dw (t[4],
 * t[5]): with dy = y, an element of y that two summation orders round to
 * neighbouring bf16 values moves every dw it feeds - over a reduction of
 * 36864 pixels that alone reaches 0.12 of a small dw, a difference of the
 * test's making, not the kernels' */
static mgpu_result f_conv3s1_dy(mgpu_stream *s, mgpu_tensor *t)
{
    MGPU_CHECK(mgpu_nn_conv2d(s, &t[0], &t[1], &t[2], 1, 1));
    return mgpu_nn_conv2d_backward(s, &t[0], &t[1], &t[3], &t[4], &t[5], 1, 1);
}
static mgpu_result f_conv5s3(mgpu_stream *s, mgpu_tensor *t)
{
    MGPU_CHECK(mgpu_nn_conv2d(s, &t[0], &t[1], &t[2], 3, 2));
    return mgpu_nn_conv2d_backward(s, &t[0], &t[1], &t[2], &t[3], &t[4], 3, 2);
}
static mgpu_result f_bn(mgpu_stream *s, mgpu_tensor *t)
{
    MGPU_CHECK(mgpu_nn_batchnorm(s, &t[0], &t[1], &t[2], &t[3], &t[4], &t[5], &t[6], &t[7], 1, 0.1f, 1e-5f));
    return mgpu_nn_batchnorm_backward(s, &t[0], &t[1], &t[5], &t[6], &t[7], &t[8], &t[9], &t[10]);
}
/* training statistics and backward, then eval (into y) from the running
 * statistics the training pass updated */
static mgpu_result f_bn_eval(mgpu_stream *s, mgpu_tensor *t)
{
    MGPU_CHECK(f_bn(s, t));
    return mgpu_nn_batchnorm(s, &t[0], &t[1], &t[2], &t[3], &t[4], NULL, NULL, &t[7], 0, 0.1f, 1e-5f);
}
static mgpu_result f_pool(mgpu_stream *s, mgpu_tensor *t)
{
    MGPU_CHECK(mgpu_nn_avgpool(s, &t[0], &t[1]));
    return mgpu_nn_avgpool_backward(s, &t[1], &t[2]);
}
static mgpu_result f_ln(mgpu_stream *s, mgpu_tensor *t)
{
    MGPU_CHECK(mgpu_nn_norm(s, 1, &t[0], &t[1], &t[2], &t[3], &t[4], &t[5], 1e-5f));
    return mgpu_nn_norm_backward(s, 1, &t[0], &t[1], &t[4], &t[5], &t[3], &t[6], &t[7], &t[8]);
}
static mgpu_result f_rms(mgpu_stream *s, mgpu_tensor *t)
{
    MGPU_CHECK(mgpu_nn_norm(s, 0, &t[0], &t[1], NULL, &t[2], NULL, &t[3], 1e-6f));
    return mgpu_nn_norm_backward(s, 0, &t[0], &t[1], NULL, &t[3], &t[2], &t[4], &t[5], NULL);
}
static mgpu_result f_emb(mgpu_stream *s, mgpu_tensor *t)
{
    MGPU_CHECK(mgpu_nn_embedding(s, &t[0], &t[1], &t[2]));
    return mgpu_nn_embedding_backward(s, &t[0], &t[2], &t[3]);
}
static mgpu_result f_attn(mgpu_stream *s, mgpu_tensor *t)
{
    MGPU_CHECK(mgpu_nn_softmax(s, &t[0], &t[1], 0.125f, 1));
    MGPU_CHECK(mgpu_nn_softmax_backward(s, &t[1], &t[0], &t[2], 0.125f));
    return mgpu_nn_swap12(s, &t[0], &t[3]);
}
static mgpu_result f_softmax(mgpu_stream *s, mgpu_tensor *t)
{
    MGPU_CHECK(mgpu_nn_softmax(s, &t[0], &t[1], 0.125f, 1));
    MGPU_CHECK(mgpu_nn_softmax_backward(s, &t[1], &t[0], &t[2], 0.125f));
    return mgpu_nn_softmax(s, &t[0], &t[3], 0.5f, 0);
}

#define S(nd_, a, b, c, d_, seed_, out_) {MGPU_F32, 0, nd_, {a, b, c, d_}, seed_, out_}
#define S32(nd_, a, b, c, d_, seed_, out_) {MGPU_F32, 1, nd_, {a, b, c, d_}, seed_, out_}
#define SI(nd_, a, b, c, d_) {MGPU_I32, 2, nd_, {a, b, c, d_}, 0, 0}

static const ncase cases[] = {
    {"gemm 96x80x72 (b transposed)", {S(2, 96, 72, 0, 0, 1, 0), S(2, 80, 72, 0, 0, 2, 0), S(2, 96, 80, 0, 0, 0, 1)}, 3, f_gemm},
    {"gemm a^T, beta 0.5", {S(2, 72, 96, 0, 0, 1, 0), S(2, 72, 80, 0, 0, 2, 0), S(2, 96, 80, 0, 0, 3, 1)}, 3, f_gemm_tn},
    {"batched gemm 3x[33x17x65]", {S(3, 3, 33, 65, 0, 1, 0), S(3, 3, 65, 17, 0, 2, 0), S(3, 3, 33, 17, 0, 0, 1)}, 3, f_bgemm},
    {"bias add and grad", {S(2, 37, 19, 0, 0, 1, 0), S(1, 19, 0, 0, 0, 2, 0), S(2, 37, 19, 0, 0, 0, 1), S(1, 19, 0, 0, 0, 0, 1)}, 4, f_bias},
    {"relu gelu silu and backward", {S(1, 4099, 0, 0, 0, 1, 0), S(1, 4099, 0, 0, 0, 2, 0), S(1, 4099, 0, 0, 0, 0, 1),
      S(1, 4099, 0, 0, 0, 0, 1), S(1, 4099, 0, 0, 0, 0, 1), S(1, 4099, 0, 0, 0, 0, 1), S(1, 4099, 0, 0, 0, 0, 1),
      S(1, 4099, 0, 0, 0, 0, 1)}, 8, f_acts},
    {"swiglu, backward, add", {S(1, 3000, 0, 0, 0, 1, 0), S(1, 3000, 0, 0, 0, 2, 0), S(1, 3000, 0, 0, 0, 0, 1),
      S(1, 3000, 0, 0, 0, 0, 1), S(1, 3000, 0, 0, 0, 0, 1), S(1, 3000, 0, 0, 0, 0, 1)}, 6, f_swiglu},
    {"cross entropy 32x40", {S(2, 32, 40, 0, 0, 1, 0), SI(1, 32, 0, 0, 0), S32(1, 2, 0, 0, 0, 0, 1), S(2, 32, 40, 0, 0, 0, 1)}, 4, f_ce},
    {"sgd, adamw, sumsq, clip", {S(1, 5000, 0, 0, 0, 1, 1), S(1, 5000, 0, 0, 0, 2, 1), S32(1, 5000, 0, 0, 0, 3, 1),
      S(1, 5000, 0, 0, 0, 4, 1), S32(1, 5000, 0, 0, 0, 5, 1), S32(1, 5000, 0, 0, 0, 0, 1), S32(1, 1, 0, 0, 0, 0, 1)}, 7, f_opt},
    {"conv2d 3x3 stride 2 pad 1, backward", {S(4, 4, 8, 17, 15, 1, 0), S(4, 16, 8, 3, 3, 2, 0), S(4, 4, 16, 9, 8, 0, 1),
      S(4, 4, 8, 17, 15, 0, 1), S(4, 16, 8, 3, 3, 0, 1)}, 5, f_conv3},
    {"conv2d 1x1, backward", {S(4, 4, 8, 6, 6, 1, 0), S(4, 16, 8, 1, 1, 2, 0), S(4, 4, 16, 6, 6, 0, 1),
      S(4, 4, 8, 6, 6, 0, 1), S(4, 16, 8, 1, 1, 0, 1)}, 5, f_conv1},
    /* 6 images: dw is one GEMM over the images (k = 6*P*Q), from columns
     * laid out by row and dy transposed */
    {"conv2d 3x3 s2 p1, 6 images, backward", {S(4, 6, 8, 17, 15, 3, 0), S(4, 16, 8, 3, 3, 4, 0),
      S(4, 6, 16, 9, 8, 5, 0), S(4, 6, 8, 17, 15, 0, 1), S(4, 16, 8, 3, 3, 0, 1)}, 5, f_conv3b},
    {"conv2d 1x1, 6 images, backward", {S(4, 6, 8, 6, 6, 3, 0), S(4, 16, 8, 1, 1, 4, 0), S(4, 6, 16, 6, 6, 5, 0),
      S(4, 6, 8, 6, 6, 0, 1), S(4, 16, 8, 1, 1, 0, 1)}, 5, f_conv1b},
    {"batchnorm train, backward", {S(4, 8, 6, 5, 5, 1, 0), S(1, 6, 0, 0, 0, 2, 0), S(1, 6, 0, 0, 0, 3, 0),
      S32(1, 6, 0, 0, 0, 0, 1), S32(1, 6, 0, 0, 0, 0, 1), S32(1, 6, 0, 0, 0, 0, 1), S32(1, 6, 0, 0, 0, 0, 1),
      S(4, 8, 6, 5, 5, 0, 1), S(4, 8, 6, 5, 5, 0, 1), S(1, 6, 0, 0, 0, 0, 1), S(1, 6, 0, 0, 0, 0, 1)}, 11, f_bn},
    /* two first-stage chunks per channel (5120 values), packed loads */
    {"batchnorm 20x8x16x16, eval, backward", {S(4, 20, 8, 16, 16, 1, 0), S(1, 8, 0, 0, 0, 2, 0),
      S(1, 8, 0, 0, 0, 3, 0), S32(1, 8, 0, 0, 0, 0, 1), S32(1, 8, 0, 0, 0, 0, 1), S32(1, 8, 0, 0, 0, 0, 1),
      S32(1, 8, 0, 0, 0, 0, 1), S(4, 20, 8, 16, 16, 0, 1), S(4, 20, 8, 16, 16, 0, 1), S(1, 8, 0, 0, 0, 0, 1),
      S(1, 8, 0, 0, 0, 0, 1)}, 11, f_bn_eval},
    /* planes of 1600 values: more than one block a plane */
    {"conv2d 3x3 s1 p1, 2 images 40x40", {S(4, 2, 4, 40, 40, 1, 0), S(4, 8, 4, 3, 3, 2, 0), S(4, 2, 8, 40, 40, 0, 1),
      S(4, 2, 4, 40, 40, 0, 1), S(4, 8, 4, 3, 3, 0, 1)}, 5, f_conv3s1},
    /* The implicit GEMMs (issue 33): a ResNet shortcut, 1x1 stride 2 (R not
     * a compile-time 3; 20 channels: the 32-row tile); 70 out channels (two
     * 64-row tiles, the second part full), 3 images of 11x13 (429 columns,
     * not a multiple of the 128-column tile), reductions of 360 and 630
     * (not a multiple of the 32 deep tile); the stem's 3 input channels
     * (27 deep); a stride-2 stage entry of 9 images, whose weight gradient
     * is cut in 4 parts (the 40x40 case above: 25). */
    {"conv2d 1x1 stride 2 (shortcut), backward", {S(4, 5, 12, 9, 9, 1, 0), S(4, 20, 12, 1, 1, 2, 0),
      S(4, 5, 20, 5, 5, 3, 1), S(4, 5, 12, 9, 9, 0, 1), S(4, 20, 12, 1, 1, 0, 1)}, 5, f_conv1s2},
    {"conv2d 3x3 s1 p1, 40->70 channels, 3x11x13", {S(4, 3, 40, 11, 13, 1, 0), S(4, 70, 40, 3, 3, 2, 0),
      S(4, 3, 70, 11, 13, 0, 1), S(4, 3, 40, 11, 13, 0, 1), S(4, 70, 40, 3, 3, 0, 1)}, 5, f_conv3s1},
    {"conv2d 3x3 s1 p1, stem 3->16, 7x16x16", {S(4, 7, 3, 16, 16, 1, 0), S(4, 16, 3, 3, 3, 2, 0),
      S(4, 7, 16, 16, 16, 0, 1), S(4, 7, 3, 16, 16, 0, 1), S(4, 16, 3, 3, 3, 0, 1)}, 5, f_conv3s1},
    {"conv2d 3x3 s2 p1, 16->32, 9x16x16", {S(4, 9, 16, 16, 16, 1, 0), S(4, 32, 16, 3, 3, 2, 0),
      S(4, 9, 32, 8, 8, 0, 1), S(4, 9, 16, 16, 16, 0, 1), S(4, 32, 16, 3, 3, 0, 1)}, 5, f_conv3},
    /* the data gradient by output phase: stride 3 gives 9 phases of
     * different sizes (13 = 5+4+4 rows, 11 = 4+4+3 columns) and taps (1 or
     * 2 of the 5 rows each); 32 channels: tap-major reductions */
    /* at least 132 blocks: bf16 takes the halo kernels (a966e49) - W 16 all
     * three (the weight grad in 132 parts), W 32 with 64-row tiles */
    {"conv2d 3x3 s1 p1, 32->64, 264x16x16", {S(4, 264, 32, 16, 16, 1, 0), S(4, 64, 32, 3, 3, 2, 0),
      S(4, 264, 64, 16, 16, 0, 1), S(4, 264, 64, 16, 16, 3, 0), S(4, 264, 32, 16, 16, 0, 1),
      S(4, 64, 32, 3, 3, 0, 1)}, 6, f_conv3s1_dy},
    {"conv2d 3x3 s1 p1, 64->64, 36x32x32", {S(4, 36, 64, 32, 32, 1, 0), S(4, 64, 64, 3, 3, 2, 0),
      S(4, 36, 64, 32, 32, 0, 1), S(4, 36, 64, 32, 32, 3, 0), S(4, 36, 64, 32, 32, 0, 1),
      S(4, 64, 64, 3, 3, 0, 1)}, 6, f_conv3s1_dy},
    {"conv2d 5x5 s3 p2, 32->32, 2x13x11", {S(4, 2, 32, 13, 11, 1, 0), S(4, 32, 32, 5, 5, 2, 0),
      S(4, 2, 32, 5, 4, 0, 1), S(4, 2, 32, 13, 11, 0, 1), S(4, 32, 32, 5, 5, 0, 1)}, 5, f_conv5s3},
    /* column sums over 5 row chunks, packed bias add */
    {"bias add and grad 300x40", {S(2, 300, 40, 0, 0, 1, 0), S(1, 40, 0, 0, 0, 2, 0), S(2, 300, 40, 0, 0, 0, 1),
      S(1, 40, 0, 0, 0, 0, 1)}, 4, f_bias},
    {"layernorm 100x512 (packed), backward", {S(2, 100, 512, 0, 0, 1, 0), S(1, 512, 0, 0, 0, 2, 0),
      S(1, 512, 0, 0, 0, 3, 0), S(2, 100, 512, 0, 0, 0, 1), S32(1, 100, 0, 0, 0, 0, 1), S32(1, 100, 0, 0, 0, 0, 1),
      S(2, 100, 512, 0, 0, 0, 1), S(1, 512, 0, 0, 0, 0, 1), S(1, 512, 0, 0, 0, 0, 1)}, 9, f_ln},
    {"avgpool, backward", {S(4, 4, 8, 7, 7, 1, 0), S(2, 4, 8, 0, 0, 0, 1), S(4, 4, 8, 7, 7, 0, 1)}, 3, f_pool},
    {"layernorm, backward", {S(2, 24, 300, 0, 0, 1, 0), S(1, 300, 0, 0, 0, 2, 0), S(1, 300, 0, 0, 0, 3, 0),
      S(2, 24, 300, 0, 0, 0, 1), S32(1, 24, 0, 0, 0, 0, 1), S32(1, 24, 0, 0, 0, 0, 1), S(2, 24, 300, 0, 0, 0, 1),
      S(1, 300, 0, 0, 0, 0, 1), S(1, 300, 0, 0, 0, 0, 1)}, 9, f_ln},
    {"rmsnorm, backward", {S(2, 24, 300, 0, 0, 1, 0), S(1, 300, 0, 0, 0, 2, 0), S(2, 24, 300, 0, 0, 0, 1),
      S32(1, 24, 0, 0, 0, 0, 1), S(2, 24, 300, 0, 0, 0, 1), S(1, 300, 0, 0, 0, 0, 1)}, 6, f_rms},
    {"embedding, backward", {SI(1, 48, 0, 0, 0), S(2, 64, 20, 0, 0, 1, 0), S(2, 48, 20, 0, 0, 0, 1), S(2, 64, 20, 0, 0, 0, 1)}, 4, f_emb},
    /* rows a block each, held in registers (issue 33): 512 bf16 / 1024 f32
     * packs a row (2 and 4 packs a thread), 250 / 500 (1 and 2) */
    {"layernorm 40x4096 (a block a row), backward", {S(2, 40, 4096, 0, 0, 1, 0), S(1, 4096, 0, 0, 0, 2, 0),
      S(1, 4096, 0, 0, 0, 3, 0), S(2, 40, 4096, 0, 0, 0, 1), S32(1, 40, 0, 0, 0, 0, 1), S32(1, 40, 0, 0, 0, 0, 1),
      S(2, 40, 4096, 0, 0, 0, 1), S(1, 4096, 0, 0, 0, 0, 1), S(1, 4096, 0, 0, 0, 0, 1)}, 9, f_ln},
    {"rmsnorm 30x2000 (a block a row), backward", {S(2, 30, 2000, 0, 0, 1, 0), S(1, 2000, 0, 0, 0, 2, 0),
      S(2, 30, 2000, 0, 0, 0, 1), S32(1, 30, 0, 0, 0, 0, 1), S(2, 30, 2000, 0, 0, 0, 1), S(1, 2000, 0, 0, 0, 0, 1)},
     6, f_rms},
    {"softmax 2x40x1280 causal and not, backward", {S(3, 2, 40, 1280, 0, 1, 0), S(3, 2, 40, 1280, 0, 0, 1),
      S(3, 2, 40, 1280, 0, 0, 1), S(3, 2, 40, 1280, 0, 0, 1)}, 4, f_softmax},
    {"causal softmax, backward, swap12", {S(4, 2, 3, 16, 16, 1, 0), S(4, 2, 3, 16, 16, 0, 1), S(4, 2, 3, 16, 16, 0, 1),
      S(4, 2, 16, 3, 16, 0, 1)}, 4, f_attn},
};

/* Run case c with float dtype dt on backend be; outputs as host floats. */
static int run(mgpu_backend *be, const ncase *c, mgpu_dtype dt, float **out)
{
    mgpu_stream *s = NULL;
    mgpu_tensor t[MAXT];
    memset(t, 0, sizeof t);
    int ok = mgpu_stream_create(be, 0, 0, &s) == MGPU_OK;
    for (int i = 0; ok && i < c->nt; i++) {
        const spec *p = &c->t[i];
        mgpu_dtype d = p->force == 2 ? MGPU_I32 : p->force == 1 ? MGPU_F32 : dt;
        ok = mgpu_tensor_alloc_shape(be, MGPU_MEM_DEVICE, 0, d, p->nd, p->d, &t[i]) == MGPU_OK;
        mgpu_fill_spec fs = {p->force == 2 ? MGPU_FILL_INDEX : p->seed ? MGPU_FILL_RANDOM : MGPU_FILL_CONST, p->seed, 0};
        if (ok) ok = mgpu_tensor_fill(s, &t[i], &fs) == MGPU_OK;
    }
    if (ok && c->fn(s, t) != MGPU_OK) {
        printf("  %s on %s: %s\n", c->name, mgpu_backend_name(be), mgpu_error_message());
        ok = 0;
    }
    for (int i = 0; ok && i < c->nt; i++) {
        if (!c->t[i].out) continue;
        out[i] = malloc(t[i].count * sizeof(float));
        ok = mgpu_tensor_to_host_f32(s, &t[i], out[i]) == MGPU_OK;
    }
    for (int i = 0; i < c->nt; i++)
        if (t[i].buf) mgpu_tensor_free(&t[i]);
    if (s) mgpu_stream_destroy(s);
    return ok;
}

static size_t count_of(const spec *p)
{
    size_t n = 1;
    for (int i = 0; i < p->nd; i++) n *= p->d[i];
    return n;
}

static int is_elementwise(const ncase *c)
{
    return strstr(c->name, "relu") || strstr(c->name, "swiglu") || strstr(c->name, "embedding");
}

int main(void)
{
    mgpu_backend *cu = NULL, *sim = NULL;
    mgpu_backend_config cc = {.kind = MGPU_BACKEND_CUDA}, sc = {.kind = MGPU_BACKEND_SIM, .machine = "dgx-h200"};
    if (mgpu_backend_open(&cc, &cu) != MGPU_OK) {
        printf("no cuda backend: %s\n", mgpu_error_message());
        return 1;
    }
    if (mgpu_backend_open(&sc, &sim) != MGPU_OK) {
        printf("no sim backend: %s\n", mgpu_error_message());
        return 1;
    }
    for (int d = 0; d < 2; d++) {
        mgpu_dtype dt = d ? MGPU_BF16 : MGPU_F32;
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            const ncase *c = &cases[k];
            float *a[MAXT] = {0}, *b[MAXT] = {0}, *a2[MAXT] = {0};
            int ok = run(cu, c, dt, a) && run(sim, c, dt, b) && run(cu, c, dt, a2);
            CHECKF(ok, "%s (%s) ran on both backends", c->name, mgpu_dtype_name(dt));
            double tol = dt == MGPU_BF16 ? 2e-2 : is_elementwise(c) ? 1e-5 : 1e-4;
            double worst = 0;
            int same_bits = 1;
            for (int i = 0; ok && i < c->nt; i++) {
                if (!c->t[i].out) continue;
                size_t n = count_of(&c->t[i]);
                for (size_t j = 0; j < n; j++) {
                    double e = fabs((double)a[i][j] - b[i][j]) / fmax(1.0, fabs(b[i][j]));
                    if (e > worst || isnan(e)) worst = isnan(e) ? INFINITY : e;
                }
                same_bits &= memcmp(a[i], a2[i], n * sizeof(float)) == 0;
            }
            printf("  %-40s %-4s worst relative difference cuda vs sim %.2e (tolerance %.0e)%s\n", c->name,
                   mgpu_dtype_name(dt), worst, tol, same_bits ? ", cuda repeats bit for bit" : "");
            CHECKF(ok && worst <= tol, "%s (%s): cuda vs sim %.3g > %.0e", c->name, mgpu_dtype_name(dt), worst, tol);
            CHECKF(same_bits, "%s (%s): two cuda runs differ", c->name, mgpu_dtype_name(dt));
            for (int i = 0; i < MAXT; i++) free(a[i]), free(b[i]), free(a2[i]);
        }
    }
    mgpu_backend_close(cu);
    mgpu_backend_close(sim);
    return tap_done();
}
