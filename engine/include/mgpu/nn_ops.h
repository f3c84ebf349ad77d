/* nn_ops.h - the seam between the training ops (engine/nn/: nn.c and its
 * siblings, mgpu/nn.h) and the device backends (engine/dev/sim/sim_nn.c,
 * engine/dev/cuda/cuda_nn.cu): `struct mgpu_nn_ops`, which a backend puts in
 * mgpu_dev_ops.nn and nn/ reaches through mgpu_backend_nn_ops. Public
 * because two folders meet here; not for scripts or commands.
 *
 * nn.c checks shapes, dtypes and phantoms, works out each op's FLOPs and
 * bytes, and hands the backend flat arguments: device pointers (buffer
 * address plus offset) and sizes. A backend computes (unless the call is
 * phantom) and, when it models time (sim), charges the op's modelled
 * duration to the stream. Float tensors are f32 or bf16 (`dtype`); every
 * reduction accumulates in f32. Integer tensors (labels, token ids) are i32. */
#ifndef MGPU_NN_OPS_H
#define MGPU_NN_OPS_H
#include "mgpu/dev.h"
#include "mgpu/nn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* mgpu_nn_class (what an op is made of) is public: mgpu/nn.h. */

/* 1 when cuda holds a row of `cols` elements of `elem` bytes in registers
 * for the norms and the softmax (cuda_nn_reduce.cu, k_rows_reg: 16-byte
 * packs, at most 4 a thread of 256): the row is read once and written
 * once, at the rate of a streaming kernel, so the model prices it so. */
static inline int mgpu_nn_row_in_registers(size_t cols, size_t elem)
{
    size_t pack = elem ? 16 / elem : 0;
    return pack && cols > 0 && cols % pack == 0 && cols / pack <= 4 * 256;
}

/* conv2d as an implicit GEMM on cuda (cuda_nn_conv_igemm.cu, the
 * MGPU_NNK_CONV2D* ops) cuts its output C [M, J] in tiles of BM rows
 * (channels) by BN columns; the weight gradient, whose C is small and whose
 * reduction (images x pixels) is deep, cuts that reduction in a fixed
 * number of parts: at most 264 blocks (two a SM of 132), each part at least
 * 8 tiles of BK deep - the shape alone decides, so the sum repeats bit for
 * bit. nn_conv.c prices the tiles these say the kernel computes. */
static inline int mgpu_nn_conv_tile_m(size_t m) { return m <= 16 ? 16 : m <= 32 ? 32 : 64; }
static inline int mgpu_nn_conv_tile_n(int bm) { return bm == 64 ? 128 : 256; }
static inline int mgpu_nn_conv_tile_k(int bm, int bf16) { return bf16 && bm == 64 ? 32 : 16; }
static inline size_t mgpu_nn_conv_wgrad_parts(size_t tiles, size_t kred, size_t bk)
{
    size_t parts = tiles ? 264 / tiles : 1, most = kred / (8 * bk);
    if (parts > most) parts = most;
    return parts < 1 ? 1 : parts;
}
/* A stride-s data gradient runs by output phase (h mod s): the taps r of R
 * that reach the rows h = a + s*i are those with (a + pad - r) divisible by
 * s, r = r0, r0 + s, ... with r0 = (a + pad) mod s. cuda launches its
 * phases by this count, and the sim prices them by it. */
static inline int mgpu_nn_conv_phase_taps(int R, int pad, int s, int a)
{
    int r0 = (a + pad) % s;
    return r0 < R ? (R - 1 - r0) / s + 1 : 0;
}
/* The forward cuts its reduction too when it has at most 32 tiles (a batch
 * of small images: 16 blocks would leave 116 of 132 SMs idle): about one
 * wave, each part at least 4 tiles deep; its f32 partials are added in
 * order by a second kernel as the weight gradient's are. */
static inline size_t mgpu_nn_conv_fwd_parts(size_t tiles, size_t kred, size_t bk)
{
    if (tiles == 0 || tiles > 32) return 1;
    size_t parts = 132 / tiles, most = kred / (4 * bk);
    if (parts > most) parts = most;
    return parts < 1 ? 1 : parts;
}
/* A reduction of kred cut as cuda cuts it (the weight gradient's parts, or
 * the forward's): chunks of whole BK-deep steps. Returns the chunk (0 when
 * kred is 0) and sets *parts, the chunks it makes. */
static inline size_t mgpu_nn_conv_chunk(size_t tiles, size_t kred, size_t bk, int wgrad, size_t *parts)
{
    size_t want = wgrad ? mgpu_nn_conv_wgrad_parts(tiles, kred, bk) : mgpu_nn_conv_fwd_parts(tiles, kred, bk);
    size_t chunk = (kred + want - 1) / want;
    chunk = (chunk + bk - 1) / bk * bk;
    *parts = chunk ? (kred + chunk - 1) / chunk : 1;
    return chunk;
}

/* The bf16 halo kernels (cuda_nn_conv_halo.cu, k_halo and k_halo_wgrad)
 * take the wide 3x3 stride-1 layers: a block stages the input rows it reads
 * once in shared memory and runs the nine taps from there. Their shape
 * conditions and cuts live here, once, for cuda's launch and the sim's
 * price (nn_conv.c marks the work, sim_conv_price.c prices it): two copies
 * could drift, and the sim would price a kernel cuda does not run. The
 * pointer-alignment checks stay in cuda (the sim has no pointers).
 * min_blocks: cuda's HL_MIN_BLOCKS, MGPU_NN_HALO_MIN_BLOCKS unless the CPU
 * emulation lowers it to reach the kernels with small shapes. */
#define MGPU_NN_HALO_MIN_BLOCKS 132 /* fewer blocks than SMs stay on the general kernels */
/* The weight grad runs two blocks an SM (128 registers, its loads
 * cp.async); 128 blocks still take 128 SMs, one each (64x32x32x32>64:
 * 128 parts of one block), far better than the general kernel's
 * 1-wide-tile gather there (0.082 ms, cuDNN 0.047) */
#define MGPU_NN_HALO_WGRAD_MIN_BLOCKS 128
#define MGPU_NN_HALO_BN 256         /* output pixels a block: whole rows of one image */
#define MGPU_NN_HALO_SLICE 16       /* reduction channels a slice (staged, then 9 GEMM steps) */
#define MGPU_NN_HALO_WGRAD_BM 64    /* the weight grad's k a block */
#define MGPU_NN_HALO_WGRAD_BC 32    /* the weight grad's channels a block */
#define MGPU_NN_HALO_WGRAD_PX 64    /* the weight grad's pixels a step */
/* The forward's and data grad's rows of M a block: 64, or 32 for M = 32, 96, ... */
static inline int mgpu_nn_conv_halo_bm(size_t M) { return M % 64 ? 32 : 64; }
/* The forward (dgrad 0: M = K, reduction C) or stride-1 data grad (dgrad
 * 1: M = C, reduction K) on the halo kernel: bf16, 3x3, stride 1, pad 1,
 * same-size output, W 16, 32 or 64, M a multiple of 32, the reduction of
 * 16, whole rows a block (H a multiple of 256 / W), at least min_blocks
 * blocks. Returns log2 W, or -1. */
static inline int mgpu_nn_conv_halo(int bf16, int dgrad, size_t N, size_t C, size_t H, size_t W, size_t K, int R,
                                    int stride, int pad, size_t P, size_t Q, size_t min_blocks)
{
    if (!bf16 || R != 3 || stride != 1 || pad != 1 || P != H || Q != W) return -1;
    size_t M = dgrad ? C : K, red = dgrad ? K : C;
    int lgw = W == 16 ? 4 : W == 32 ? 5 : W == 64 ? 6 : -1;
    if (lgw < 0 || M % 32 || red % MGPU_NN_HALO_SLICE || H % (MGPU_NN_HALO_BN / W)) return -1;
    if (N * H * W / MGPU_NN_HALO_BN * (M / (size_t)mgpu_nn_conv_halo_bm(M)) < min_blocks) return -1;
    return lgw;
}
/* The halo weight grad's parts and their pixel steps (*chunk each): about
 * two blocks an SM, each part at least 8 steps deep - a function of the
 * shape only, so every run adds the same partials in the same order. */
static inline size_t mgpu_nn_conv_halo_wgrad_parts(size_t N, size_t C, size_t H, size_t W, size_t K, size_t *chunk)
{
    size_t steps = N * H * W / MGPU_NN_HALO_WGRAD_PX;
    size_t blocks = (C / MGPU_NN_HALO_WGRAD_BC) * (K / MGPU_NN_HALO_WGRAD_BM);
    size_t parts = blocks ? 264 / blocks : 1, most = steps / 8;
    if (parts > most) parts = most;
    if (parts < 1) parts = 1;
    *chunk = (steps + parts - 1) / parts;
    return *chunk ? (steps + *chunk - 1) / *chunk : 1;
}
/* The weight grad on the halo kernel (k_halo_wgrad, then a combine of its
 * parts' f32 partials [part][tap][k][c]: 2 launches): bf16, 3x3, stride
 * 1, pad 1, same-size output, W 16 or 32, K a multiple of 64, C of 32,
 * whole rows a step (H a multiple of 64 / W), at least min_blocks blocks
 * over the parts. Returns log2 W, or -1. */
static inline int mgpu_nn_conv_halo_wgrad(int bf16, size_t N, size_t C, size_t H, size_t W, size_t K, int R,
                                          int stride, int pad, size_t P, size_t Q, size_t min_blocks)
{
    if (!bf16 || R != 3 || stride != 1 || pad != 1 || P != H || Q != W) return -1;
    int lgw = W == 16 ? 4 : W == 32 ? 5 : -1;
    if (lgw < 0 || K % MGPU_NN_HALO_WGRAD_BM || C % MGPU_NN_HALO_WGRAD_BC || H % (MGPU_NN_HALO_WGRAD_PX / W)) return -1;
    size_t chunk, parts = mgpu_nn_conv_halo_wgrad_parts(N, C, H, W, K, &chunk);
    if (parts * (C / MGPU_NN_HALO_WGRAD_BC) * (K / MGPU_NN_HALO_WGRAD_BM) < min_blocks) return -1;
    return lgw;
}

/* The norm backward in one pass (cuda_nn_norm_back.cu): rows of more than
 * 128 16-byte packs and at most 4096 columns (a block of up to 512 threads
 * a row, 8 columns a thread, whose column sums fit in its registers and
 * shared memory), and every
 * pack index below 2^32. x and dy are read once and dx written once; the
 * column sums go out as partials for chunks of rows (at most
 * MGPU_NN_NORM_BACK_CHUNKS: one wave of two blocks a SM on 132 SMs, and the
 * shape alone fixes them, so the bits are the same on every GPU), which a
 * second kernel adds in order. Otherwise the row kernel and the column sums
 * read x and dy twice. */
#define MGPU_NN_NORM_BACK_CHUNKS 264

/* Its work in instructions an element, which the model issues at one a
 * lane a cycle (fitted on an H100, fifteenth session: layernorm and rmsnorm
 * bf16 16384x4096 both within 3 %); nn_norm.c and the what-if price it so. */
#define MGPU_NN_NORM_BACK_INSTR 88.0

static inline int mgpu_nn_norm_back_one_pass(size_t rows, size_t cols, size_t elem)
{
    size_t pack = elem ? 16 / elem : 0;
    return pack && rows > 0 && cols % pack == 0 && cols / pack > 128 && cols <= 4096 &&
           rows * (cols / pack) < ((size_t)1 << 32) - 4096;
}

/* The chunks of rows the one-pass norm backward keeps partials for. */
static inline size_t mgpu_nn_norm_back_chunks(size_t rows)
{
    size_t per = rows ? (rows + MGPU_NN_NORM_BACK_CHUNKS - 1) / MGPU_NN_NORM_BACK_CHUNKS : 1;
    return rows ? (rows + per - 1) / per : 0;
}

/* The price nn.c computed for one op: its name and its work (mgpu/nn.h). */
typedef struct mgpu_nn_cost {
    const char *name;   /* "gemm", "relu", ... */
    mgpu_nn_work w;
} mgpu_nn_cost;

/* C[b] = alpha * op(A[b]) * op(B[b]) + beta * C[b] for b < batch, all row-
 * major: op(A) is m x k, op(B) k x n, C m x n; ta/tb say A is stored k x m
 * or B n x k. Strides are in elements between batch entries (0 repeats the
 * same matrix). */
typedef struct mgpu_nn_gemm_args {
    mgpu_dtype dtype;
    int ta, tb;
    size_t m, n, k, batch;
    const void *a, *b;
    void *c;
    size_t stride_a, stride_b, stride_c;
    float alpha, beta;
    int phantom;        /* 1: price only */
    mgpu_nn_cost cost;
} mgpu_nn_gemm_args;

/* IM2COL / COL2IM's i2: how the column matrix is laid out. */
enum { MGPU_NN_COL_BY_IMAGE = 0, MGPU_NN_COL_BY_ROW = 1 };

/* Every op that is not a GEMM. Which pointers, sizes and scalars an op
 * uses is listed with it; t[] are device pointers (NULL: not given). */
typedef enum mgpu_nn_kernel {
    /* y[r,c] = x[r,c] + bias[c]: t0 x, t1 bias, t2 y; n0 rows, n1 cols */
    MGPU_NNK_BIAS_ADD = 0,
    /* db[c] = beta*db[c] + sum_r dy[r,c]: t0 dy, t1 db; n0 rows, n1 cols; f0 beta */
    MGPU_NNK_BIAS_GRAD,
    /* y = act(x): t0 x, t1 y; n0 count; i0 activation (mgpu_nn_act) */
    MGPU_NNK_ACT,
    /* dx = dy * act'(x): t0 x, t1 dy, t2 dx; n0 count; i0 activation */
    MGPU_NNK_ACT_BACKWARD,
    /* y = silu(g) * u: t0 g, t1 u, t2 y; n0 count */
    MGPU_NNK_SWIGLU,
    /* dg, du from dy: t0 g, t1 u, t2 dy, t3 dg, t4 du; n0 count */
    MGPU_NNK_SWIGLU_BACKWARD,
    /* y = alpha*a + beta*b (y may be a or b): t0 a, t1 b, t2 y; n0 count; f0 alpha, f1 beta */
    MGPU_NNK_ADD,
    /* loss[0] = mean_r -log softmax(x_r)[label_r], loss[1] = rows whose
     * argmax is the label; dx = (softmax - onehot)/rows when t3:
     * t0 logits, t1 labels (i32), t2 loss (f32 [2]), t3 dlogits; n0 rows, n1 classes */
    MGPU_NNK_CROSS_ENTROPY,
    /* m = mu*m + (g + wd*p); p -= lr*m: t0 p, t1 g, t2 m; n0 count; f0 lr, f1 mu, f2 wd */
    MGPU_NNK_SGD,
    /* AdamW, one fused update (decoupled weight decay, bias-corrected):
     * t0 p, t1 g, t2 m, t3 v (m and v f32); n0 count; f0 lr, f1 beta1,
     * f2 beta2, f3 eps, f4 wd, f5 1-beta1^step, f6 1-beta2^step */
    MGPU_NNK_ADAMW,
    /* acc[0] (f32) = (accumulate ? acc[0] : 0) + sum x^2: t0 x, t1 acc; n0 count; i0 accumulate */
    MGPU_NNK_SUMSQ,
    /* g *= min(1, max_norm / (sqrt(acc[0]) + 1e-6)): t0 g, t1 acc; n0 count; f0 max_norm */
    MGPU_NNK_CLIP_SCALE,
    /* col[c*R*S + r*S + s, p*Q + q] = x[c, p*stride - pad + r, q*stride - pad + s]
     * (0 outside) for one image per batch entry: t0 x (N images), t1 col;
     * n0 images, n1 C, n2 H, n3 W, n4 R (=S), n5 P, n6 Q; i0 stride, i1 pad;
     * i2 layout: 0 (MGPU_NN_COL_BY_IMAGE) col is [N, C*R*S, P*Q], one
     * column matrix per image; 1 (MGPU_NN_COL_BY_ROW) col is [C*R*S, N, P*Q],
     * so the N images' columns of one row are side by side and one GEMM
     * with k = N*P*Q sums over the images (conv2d's weight gradient) */
    MGPU_NNK_IM2COL,
    /* The adjoint: dx (overwritten) from dcol, same arguments (and
     * layouts) as IM2COL with t0 dx, t1 dcol */
    MGPU_NNK_COL2IM,
    /* Batch norm over N,H,W per channel of x [N,C,HW]: t0 x, t1 gamma,
     * t2 beta, t3 running mean, t4 running var (f32), t5 save mean, t6 save
     * invstd (f32 [C]), t7 y; n0 N, n1 C, n2 HW; i0 train; f0 momentum, f1 eps.
     * Eval uses the running statistics and leaves the saves alone. */
    MGPU_NNK_BATCHNORM,
    /* t0 x, t1 gamma, t2 save mean, t3 save invstd, t4 dy, t5 dx, t6 dgamma,
     * t7 dbeta; n0 N, n1 C, n2 HW (training-mode statistics) */
    MGPU_NNK_BATCHNORM_BACKWARD,
    /* y[n,c] = mean_hw x[n,c,hw]: t0 x, t1 y; n0 N*C, n1 HW */
    MGPU_NNK_AVGPOOL,
    /* dx[n,c,hw] = dy[n,c]/HW: t0 dy, t1 dx; n0 N*C, n1 HW */
    MGPU_NNK_AVGPOOL_BACKWARD,
    /* Over the last dim: i0 1 = LayerNorm (t2 beta may be NULL), 0 = RMSNorm:
     * t0 x, t1 gamma, t2 beta, t3 y, t4 save mean, t5 save rstd (f32 [rows]);
     * n0 rows, n1 cols; f0 eps */
    MGPU_NNK_NORM,
    /* t0 x, t1 gamma, t2 save mean, t3 save rstd, t4 dy, t5 dx, t6 dgamma,
     * t7 dbeta (LayerNorm with beta); n0 rows, n1 cols; i0 layer */
    MGPU_NNK_NORM_BACKWARD,
    /* out[i,:] = table[ids[i],:]: t0 ids (i32), t1 table, t2 out; n0 tokens, n1 dim, n2 vocab */
    MGPU_NNK_EMBEDDING,
    /* dtable[ids[i],:] += dout[i,:] in token order: t0 ids, t1 dout, t2 dtable; n0, n1, n2 as above */
    MGPU_NNK_EMBEDDING_BACKWARD,
    /* Row softmax of scale*s over the last dim, keys after the row's
     * position masked when i0 (row position = row index mod cols):
     * t0 s, t1 p; n0 rows, n1 cols; f0 scale; i0 causal */
    MGPU_NNK_SOFTMAX,
    /* ds = scale * p * (dp - sum(dp*p)): t0 p, t1 dp, t2 ds; n0 rows, n1 cols; f0 scale */
    MGPU_NNK_SOFTMAX_BACKWARD,
    /* y[a,c,b,d] = x[a,b,c,d]: t0 x, t1 y; n0 A, n1 B, n2 C, n3 D */
    MGPU_NNK_SWAP12,
    /* conv2d as an implicit GEMM (no column matrix), each f32-accumulated
     * and rounded once: y = conv(x, w) with t0 x, t1 w, t2 y; n0 N, n1 C,
     * n2 H, n3 W, n4 R (=S), n5 P, n6 Q; i0 stride, i1 pad, i2 K (w's out
     * channels). DGRAD: dx from dy (t0 dy, t1 w, t2 dx); WGRAD: dw from x
     * and dy (t0 x, t1 dy, t2 dw), every image's sum; same sizes. */
    MGPU_NNK_CONV2D,
    MGPU_NNK_CONV2D_DGRAD,
    MGPU_NNK_CONV2D_WGRAD,
    MGPU_NNK_COUNT
} mgpu_nn_kernel;

/* Which tiles and parts conv2d's implicit GEMM (cuda_nn_conv_igemm.cu) runs
 * for op's GEMM C [m, ncol] = A [m, kred] B [kred, ncol] - the one place
 * cuda decides, so that nn_conv.c can price what cuda runs. Tiles of bm x
 * bn, bk deep, the reduction in parts chunks of whole bk-deep steps:
 * - the general tiles (mgpu_nn_conv_tile_m/_n/_k above); the weight grad
 *   cut in parts as mgpu_nn_conv_wgrad_parts says, the forward as
 *   mgpu_nn_conv_fwd_parts (at most 32 tiles), and the stride-1 data grad
 *   as the forward: its one phase is the same GEMM shape (a batch of small
 *   images: 32x64x8x8 makes 16 tiles, 116 of 132 SMs idle uncut);
 * - narrow: the f32 weight grad of a small output (m <= 64 by
 *   ncol <= 64: the stem's 16 x 27, a 1x1 downsample's 32 x 16), whose
 *   256-wide tile would be mostly empty columns - bn is ncol rounded up to
 *   16, 32 or 64, bk 64, and the block's 256 threads are ks groups of
 *   (bm/4) x (bn/4) that each take bk/ks of every step, their sums added in
 *   group order in shared memory; parts at least 4 steps deep;
 * - deep: the f32 forward of many tiles (mgpu_nn_conv_fwd_deep): bn 256,
 *   each thread an 8 x 8 register tile, shared memory double-buffered.
 * stride is the conv's (the data grad cuts only at stride 1). */
typedef struct mgpu_nn_conv_plan {
    int bm, bn, bk, ks, narrow;
    int deep; /* the f32 forward's deep tile (below): 8 x 8 a thread, bn 256 */
    size_t parts, chunk; /* chunk: reduction elements a part (0 when kred is 0) */
} mgpu_nn_conv_plan;

#define MGPU_NN_CONV_NARROW_BK 64
/* The f32 forward's deep tile: 64 x 256 a block, each thread 8 x 8 (64
 * accumulators, 4 shared loads of 16 bytes feed 64 FMAs; the 4 x 8 tile
 * spent 3 on 32 and bound the 256x64x32x32>64 forward on L1/shared at
 * 0.76x cuDNN). Half as many blocks as the 64 x 128 tile, and 2 an SM (128
 * registers), so it is taken only where there are blocks enough for
 * about a wave: bm 64 and at least this many 64 x 256 tiles (256: on an H100
 * 256x64x16x16>64 and 64x32x32x32>64, 256 tiles each, went from 0.161 /
 * 0.084 ms to 0.135 / 0.070 with it; 1024 tiles, 0.627 -> 0.525).
 * bench/conv_emu lowers it to reach the kernel with small shapes. */
#ifndef MGPU_NN_CONV_DEEP_MIN_TILES
#define MGPU_NN_CONV_DEEP_MIN_TILES 256
#endif
static inline int mgpu_nn_conv_fwd_deep(size_t m, size_t ncol, int bf16)
{
    return !bf16 && mgpu_nn_conv_tile_m(m) == 64 && ((m + 63) / 64) * ((ncol + 255) / 256) >= MGPU_NN_CONV_DEEP_MIN_TILES;
}
static inline int mgpu_nn_conv_wgrad_narrow(size_t m, size_t ncol, int bf16) { return !bf16 && m <= 64 && ncol <= 64; }

static inline mgpu_nn_conv_plan mgpu_nn_conv_plan_of(mgpu_nn_kernel op, size_t m, size_t ncol, size_t kred, int bf16,
                                                     int stride)
{
    mgpu_nn_conv_plan p;
    p.bm = mgpu_nn_conv_tile_m(m), p.bn = mgpu_nn_conv_tile_n(p.bm), p.bk = mgpu_nn_conv_tile_k(p.bm, bf16), p.ks = 1, p.narrow = 0, p.deep = 0;
    int wgrad = op == MGPU_NNK_CONV2D_WGRAD;
    if (wgrad && mgpu_nn_conv_wgrad_narrow(m, ncol, bf16)) {
        p.bn = ncol <= 16 ? 16 : ncol <= 32 ? 32 : 64, p.bk = MGPU_NN_CONV_NARROW_BK, p.narrow = 1;
        p.ks = 256 / ((p.bm / 4) * (p.bn / 4));
        size_t most = kred / (4 * (size_t)p.bk), parts = 264 < most ? 264 : most;
        if (parts < 1) parts = 1;
        size_t chunk = (kred + parts - 1) / parts;
        p.chunk = (chunk + p.bk - 1) / p.bk * p.bk;
        p.parts = p.chunk ? (kred + p.chunk - 1) / p.chunk : 1;
        return p;
    }
    if (op == MGPU_NNK_CONV2D && mgpu_nn_conv_fwd_deep(m, ncol, bf16)) p.bn = 256, p.deep = 1;
    size_t tiles = ((m + p.bm - 1) / p.bm) * ((ncol + p.bn - 1) / p.bn);
    if (op == MGPU_NNK_CONV2D_DGRAD && stride != 1) {
        p.parts = 1, p.chunk = kred;
        return p;
    }
    p.chunk = mgpu_nn_conv_chunk(tiles, kred, (size_t)p.bk, wgrad, &p.parts);
    return p;
}

typedef struct mgpu_nn_args {
    mgpu_nn_kernel op;
    mgpu_dtype dtype;   /* of the float tensors that are not f32 by definition */
    void *t[8];
    size_t n[7];
    float f[8];
    int i[3];
    int phantom;        /* 1: price only */
    mgpu_nn_cost cost;
} mgpu_nn_args;

struct mgpu_nn_ops {
    mgpu_result (*gemm)(mgpu_stream *s, const mgpu_nn_gemm_args *g);
    mgpu_result (*kernel)(mgpu_stream *s, const mgpu_nn_args *a);
};

/* The device API's side (dev.c): the backend's table, NULL when it has no
 * training ops in this build; 1 when the backend models time (the sim),
 * where a phantom op is priced - elsewhere it is skipped. */
const struct mgpu_nn_ops *mgpu_backend_nn_ops(const mgpu_backend *be);
int mgpu_backend_models_time(const mgpu_backend *be);

#ifdef __cplusplus
}
#endif
#endif
