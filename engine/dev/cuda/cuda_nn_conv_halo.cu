/* cuda_nn_conv_halo.cu - conv2d's bf16 halo kernels for 3x3 stride-1
 * layers (the ResNet's wide stages): the forward and data grad (k_halo)
 * and the weight grad (k_halo_wgrad and its combine). A block stages the
 * input rows its outputs read once in shared memory (the halo) and reads
 * all nine taps from there as wmma fragments, where the general kernels
 * (cuda_nn_conv_igemm.cu) gather every tap from global memory. A file of
 * their own: a layout made for one family of shapes, with its own tiles,
 * pipeline (cp.async in the weight grad) and conditions; the general
 * launch (cuda_nn_conv_igemm.cu's launch_t) calls their conditions and
 * launchers through cuda_nn_conv_igemm.h, which holds what both files
 * share (ig_dims, the block size, the GEMMs' modes). */
#include <cuda_bf16.h>
#include <mma.h>
#include <cuda_pipeline.h>
#include <type_traits>
#include "dev/cuda/cuda_nn.h"
#include "dev/cuda/cuda_nn_conv_igemm.h"

using namespace nvcuda;

/*--- bf16 3x3 stride 1: the image tile once, the nine taps from shared memory ---
 * The general kernel (cuda_nn_conv_igemm.cu) gathers each tap's B tile from
 * global memory, so every x element is loaded nine times (once a tap) and a
 * thread's index math and loads, not the tensor cores, bind the wide bf16
 * layers (256x64x32x32: 31 TFLOP/s, cuDNN 150). Here a block owns 64 output
 * channels by 256 output pixels, whole rows of one image (TH = 256 / W rows
 * of W = 16, 32 or 64 pixels); for each 16-channel slice of the reduction it
 * stages the TH+2 input rows it reads (the halo; the columns left and right
 * of the image are the padding and stay zero) in shared memory as
 * [pixel][channel], and the slice's weights for all nine taps as
 * [tap][m][channel]. Each tap is then a GEMM step read straight from those:
 * tap (r, s) of output pixel (y, x) is halo pixel (y + r, x + s), and 16
 * pixels of one row are 16 consecutive halo pixels of 32 bytes each - a
 * col-major wmma B fragment with ldm 16, so no tap is gathered twice. Each
 * warp holds 32 x 64 of accumulators (2 x 4 fragments: 6 fragment loads feed
 * 8 mma; BM 32: 2 x 2). The next slice's loads are in registers while this
 * one multiplies, as in the general kernel. The data gradient at stride 1 is
 * the same convolution of dy with the weights transposed (c <-> k) and
 * flipped (r, s -> 2 - r, 2 - s). Taken when M (the output channels) is a
 * multiple of 32 (BM = 64 rows a block where M allows, else 32 with 1 x 8
 * warps of 32 x 32), the reduction's channels of 16, W is 16, 32 or 64 and
 * TH divides H, pad 1 (same-size output), and the grid has at least
 * HL_MIN_BLOCKS blocks. The sum is in a fixed order: the same bits on every
 * run. */
#define HL_BM 64
#define HL_BN MGPU_NN_HALO_BN
#define HL_BKC MGPU_NN_HALO_SLICE /* channels a slice */
#define HL_LDA (HL_BKC + 8)
#define HL_PX 396 /* the largest halo: (TH + 2) x (W + 2) for W = 64, TH = 4 */
#define HL_CLD (64 + 4)
/* 2 blocks an SM (128 registers) with the taps looped; HL_MINB=1
 * HL_UNROLL=9 (bench variants) unrolls them in up to 255 registers */
#ifndef HL_MINB
#define HL_MINB 2
#endif
#ifndef HL_UNROLL
#define HL_UNROLL 1
#endif
/* Fewer blocks than SMs (a small batch) stay on the general kernels,
 * which cut the reduction in parts; bench/conv_emu sets 1 to reach these
 * kernels with its small shapes. */
#ifndef HL_MIN_BLOCKS
#define HL_MIN_BLOCKS MGPU_NN_HALO_MIN_BLOCKS
#endif
/* The halo weight grad's (nn_ops.h); bench/conv_emu sets 1 as for HL_MIN_BLOCKS. */
#ifndef HW_MIN_BLOCKS
#define HW_MIN_BLOCKS MGPU_NN_HALO_WGRAD_MIN_BLOCKS
#endif

template <int MODE, int BM>
__global__ void __launch_bounds__(IG_THREADS, HL_MINB) k_halo(const uint16_t *__restrict__ in0, const uint16_t *__restrict__ in1,
                                                        uint16_t *__restrict__ out, ig_dims d, int lgw)
{
    constexpr bool F = MODE == IG_FWD;
    constexpr int TAP_UNROLL = HL_UNROLL;
    /* BM 64: 2 x 4 warps of 32 x 64; BM 32 (32-channel layers): 1 x 8 of 32 x 32 */
    constexpr int WNW = 8 / (BM / 32), NT = HL_BN / WNW, FN = NT / 16;
    /* a thread's run of weights: 9 taps of CQ channels (forward) or CQ output channels (data grad) */
    constexpr int CQ = BM / 16, AE = 9 * CQ;
    using aword = typename std::conditional<BM == 64, uint2, uint32_t>::type;
    constexpr int A_BYTES = 9 * BM * HL_LDA * 2, X_BYTES = HL_PX * HL_BKC * 2, C_BYTES = 8 * 16 * HL_CLD * 4;
    constexpr int SMEM = A_BYTES + X_BYTES > C_BYTES ? A_BYTES + X_BYTES : C_BYTES;
    __shared__ __align__(128) unsigned char smem[SMEM];
    uint16_t *As = reinterpret_cast<uint16_t *>(smem), *Xs = reinterpret_cast<uint16_t *>(smem + A_BYTES);
    float *Cs = reinterpret_cast<float *>(smem);

    const int tid = threadIdx.x, W = 1 << lgw, TH = HL_BN >> lgw, HP = TH + 2, WP = W + 2;
    const int red = F ? d.C : d.K, M = d.M, H = d.H, plane = H * W;
    const int j0 = blockIdx.x * HL_BN, m0 = blockIdx.y * BM;
    const int n = j0 / plane, p0 = (j0 - n * plane) >> lgw;

    /* the halo's left and right columns: padding, zero for every slice */
    for (int e = tid; e < HP * 2 * 2; e += IG_THREADS) {
        int row = e >> 2, side = e >> 1 & 1, half = e & 1;
        *reinterpret_cast<uint4 *>(Xs + (row * WP + side * (W + 1)) * HL_BKC + half * 8) = make_uint4(0, 0, 0, 0);
    }

    /* A: this thread's AE consecutive weights a slice, loaded CQ at a time.
     * Forward: row m = tid / (16 / CQ) of w[m][c][3][3], channels CQ q ..
     * CQ q + CQ - 1 of the slice (q = tid % (16 / CQ)), stored a tap's CQ
     * channels at once (one 8- or 4-byte store). Data grad: channel c =
     * tid % 16 of w[c][m][3][3], output channels CQ q' .. (q' = tid / 16),
     * stored one at a time to As[tap][m][c]: a warp's lanes are 16
     * channels of one m (8 words) and 16 of the next run of m (other
     * banks). With c = tid / 16 (lanes along m, 48 words apart in As)
     * every store was an 8-way bank conflict, and the data grad ran 18 %
     * slower than the forward (0.166 against 0.141 ms, 256x64x32x32>64);
     * its loads are now a 72-byte run a lane, 1152 bytes apart (the
     * weights are L1/L2-resident, 18 KB a slice). */
    const int a_hi = F ? tid / (16 / CQ) : tid & 15, a_lo = F ? tid % (16 / CQ) : tid >> 4;
    const uint16_t *a_src = F ? in1 + ((size_t)(m0 + a_hi) * red + a_lo * CQ) * 9 : in1 + ((size_t)a_hi * M + m0 + a_lo * CQ) * 9;
    const int a_step = F ? 9 : M * 9; /* a reduction channel's step in w (fewer than 2^31 elements) */
    /* B: packs of 8 channels of one halo pixel; pack u = tid + 256 i is
     * column u % W, halo row u / W % HP, channel group u / W / HP */
    constexpr int BP = 3; /* at most 2 x (256 + 2 x 64) / 256 packs a thread */
    const int packs = 2 * HP * W;
    int b_off[BP], b_dst[BP];
#pragma unroll
    for (int i = 0; i < BP; i++) {
        int u = tid + i * IG_THREADS, ww = u & (W - 1), rest = u >> lgw, hh = rest % HP, g = rest / HP;
        int h = p0 - 1 + hh;
        bool in = u < packs && (unsigned)h < (unsigned)H;
        b_off[i] = in ? ((n * red + g * 8) * H + h) * W + ww : -1; /* -1: padding or no pack, zeros */
        b_dst[i] = u < packs ? (hh * WP + ww + 1) * HL_BKC + g * 8 : -1;
    }

    aword ra[9];
    uint32_t rb[BP][4];
    auto load = [&](int c0) {
        const aword *s = reinterpret_cast<const aword *>(a_src + c0 * a_step);
#pragma unroll
        for (int i = 0; i < 9; i++) ra[i] = s[i];
        const uint16_t *x = in0 + (size_t)c0 * plane;
#pragma unroll
        for (int i = 0; i < BP; i++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                uint32_t lo = b_off[i] >= 0 ? x[b_off[i] + 2 * e * plane] : 0, hi = b_off[i] >= 0 ? x[b_off[i] + (2 * e + 1) * plane] : 0;
                rb[i][e] = lo | hi << 16;
            }
    };
    /* element i of the thread's AE: forward channel CQ q + i / 9, tap
     * i % 9; data grad output channel CQ q' + i / 9, tap 8 - i % 9 (flipped) */
    auto elem = [&](int i) -> uint32_t {
        uint32_t v2;
        if constexpr (BM == 64) v2 = (i & 2) ? ra[i / 4].y : ra[i / 4].x;
        else v2 = ra[i / 2];
        return i & 1 ? v2 >> 16 : v2 & 0xffff;
    };
    auto stash = [&]() {
        if constexpr (F) { /* a tap's CQ consecutive channels in one store */
#pragma unroll
            for (int t = 0; t < 9; t++) {
                uint16_t *dst = As + (t * BM + a_hi) * HL_LDA + a_lo * CQ;
                if constexpr (BM == 64) {
                    uint2 v;
                    v.x = elem(t) | elem(9 + t) << 16, v.y = elem(18 + t) | elem(27 + t) << 16;
                    *reinterpret_cast<uint2 *>(dst) = v;
                } else {
                    *reinterpret_cast<uint32_t *>(dst) = elem(t) | elem(9 + t) << 16;
                }
            }
        } else {
#pragma unroll
            for (int i = 0; i < AE; i++) As[((8 - i % 9) * BM + a_lo * CQ + i / 9) * HL_LDA + a_hi] = (uint16_t)elem(i);
        }
#pragma unroll
        for (int i = 0; i < BP; i++)
            if (b_dst[i] >= 0) *reinterpret_cast<uint4 *>(Xs + b_dst[i]) = make_uint4(rb[i][0], rb[i][1], rb[i][2], rb[i][3]);
    };

    const int warp = tid / 32, wm = warp / WNW, wn = warp % WNW;
    using afrag = wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major>;
    using bfrag = wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major>;
    using cfrag = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
    cfrag acc[2][FN];
#pragma unroll
    for (int i = 0; i < 2; i++)
#pragma unroll
        for (int j = 0; j < FN; j++) wmma::fill_fragment(acc[i][j], 0.f);
    /* the halo pixel of tap (0, 0) for each of the warp's FN column fragments */
    int bpx[FN];
#pragma unroll
    for (int j = 0; j < FN; j++) {
        int jl = wn * NT + j * 16;
        bpx[j] = (jl >> lgw) * WP + (jl & (W - 1));
    }

    const __nv_bfloat16 *Ab = reinterpret_cast<const __nv_bfloat16 *>(As), *Xb = reinterpret_cast<const __nv_bfloat16 *>(Xs);
    load(0);
    for (int c0 = 0; c0 < red; c0 += HL_BKC) {
        __syncthreads();
        stash();
        __syncthreads();
        if (c0 + HL_BKC < red) load(c0 + HL_BKC); /* in flight while this slice multiplies */
#pragma unroll TAP_UNROLL
        for (int tap = 0; tap < 9; tap++) {
            const int r = tap / 3, s = tap % 3;
            afrag fa[2];
            bfrag fb[FN];
#pragma unroll
            for (int i = 0; i < 2; i++) wmma::load_matrix_sync(fa[i], Ab + (tap * BM + wm * 32 + i * 16) * HL_LDA, HL_LDA);
#pragma unroll
            for (int j = 0; j < FN; j++) wmma::load_matrix_sync(fb[j], Xb + (bpx[j] + r * WP + s) * HL_BKC, HL_BKC);
#pragma unroll
            for (int i = 0; i < 2; i++)
#pragma unroll
                for (int j = 0; j < FN; j++) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
    }

    /* out: a warp's 16 x NT of f32 at a time through shared memory, then 8
     * bf16 (16 bytes) a lane, a row's NT pixels from NT / 8 lanes */
    float *cw = Cs + warp * 16 * HL_CLD;
    const int lane = tid & 31;
#pragma unroll
    for (int i = 0; i < 2; i++) {
        __syncthreads();
#pragma unroll
        for (int j = 0; j < FN; j++) wmma::store_matrix_sync(cw + j * 16, acc[i][j], HL_CLD, wmma::mem_row_major);
        __syncthreads();
#pragma unroll
        for (int t = 0; t < NT / 16; t++) {
            int v = lane + 32 * t, row = v / (NT / 8), col = v % (NT / 8) * 8, jl = wn * NT + col;
            int m = m0 + wm * 32 + i * 16 + row, y = p0 + (jl >> lgw), x = jl & (W - 1);
            const float *c = cw + row * HL_CLD + col;
            uint4 o;
            o.x = from_f<uint16_t>(c[0]) | (uint32_t)from_f<uint16_t>(c[1]) << 16;
            o.y = from_f<uint16_t>(c[2]) | (uint32_t)from_f<uint16_t>(c[3]) << 16;
            o.z = from_f<uint16_t>(c[4]) | (uint32_t)from_f<uint16_t>(c[5]) << 16;
            o.w = from_f<uint16_t>(c[6]) | (uint32_t)from_f<uint16_t>(c[7]) << 16;
            *reinterpret_cast<uint4 *>(out + ((size_t)(n * M + m) * H + y) * W + x) = o;
        }
    }
}

/* The halo kernel's rows of M a block: 64, or 32 for M = 32, 96, ... */
static int halo_bm(int M) { return mgpu_nn_conv_halo_bm((size_t)M); }

/* The halo kernel's shape conditions (above; nn_ops.h, which the sim's
 * price shares); returns log2 W, or -1. */
int halo_lgw(const mgpu_nn_args *a, const ig_dims &d)
{
    if (a->dtype != MGPU_BF16 || (a->op != MGPU_NNK_CONV2D && a->op != MGPU_NNK_CONV2D_DGRAD)) return -1;
    int lgw = mgpu_nn_conv_halo(1, a->op == MGPU_NNK_CONV2D_DGRAD, d.N, d.C, d.H, d.W, d.K, d.R, d.stride, d.pad, d.P, d.Q,
                                HL_MIN_BLOCKS);
    if (lgw < 0) return -1;
    /* 8-byte (BM 64) or 4-byte weight loads, 16-byte stores */
    if (((uintptr_t)a->t[1] & 7) || ((uintptr_t)a->t[2] & 15)) return -1;
    return lgw;
}

void launch_halo(cudaStream_t st, const mgpu_nn_args *a, const ig_dims &d, int lgw)
{
    int bm = halo_bm(d.M);
    dim3 grid((unsigned)(d.N * d.H * d.W / HL_BN), (unsigned)(d.M / bm), 1);
    const uint16_t *i0 = (const uint16_t *)a->t[0], *i1 = (const uint16_t *)a->t[1];
    uint16_t *o = (uint16_t *)a->t[2];
    if (a->op == MGPU_NNK_CONV2D) {
        if (bm == 64) k_halo<IG_FWD, 64><<<grid, IG_THREADS, 0, st>>>(i0, i1, o, d, lgw);
        else k_halo<IG_FWD, 32><<<grid, IG_THREADS, 0, st>>>(i0, i1, o, d, lgw);
    } else {
        if (bm == 64) k_halo<IG_DGRAD, 64><<<grid, IG_THREADS, 0, st>>>(i0, i1, o, d, lgw);
        else k_halo<IG_DGRAD, 32><<<grid, IG_THREADS, 0, st>>>(i0, i1, o, d, lgw);
    }
}

/* The weight gradient of the same layers (bf16 3x3 stride 1 pad 1, W 16
 * or 32): dw[k][c][r][s] = sum over pixels of dy[k][px] x[c][px + (r, s)].
 * A block owns 64 k by 32 channels by all nine taps and reduces over a
 * part of the pixels, 64 (TH = 64 / W whole rows of one image) a step:
 * dy's 64 x 64 tile is A (row-major), and the x rows the step reads (TH +
 * 2 of them, 32 channels) are B, kept three times in shared memory,
 * shifted by s - 1 = -1, 0, 1 columns, so that tap (r, s) of 16 pixels in
 * a row is 16 consecutive elements of copy s at row offset r - a
 * col-major wmma B fragment (channel stride ldm) with no gather. Each
 * warp holds 16 k x 16 channels for all nine taps. The parts' f32
 * partials go to the scratch as [part][tap][k][c] (wmma's row-major
 * store) and a second kernel adds them in part order into dw[k][c][r][s]:
 * the same bits on every run.
 * The loads are cp.async (16 bytes, straight to shared memory, no
 * registers): dy's tile and x's unshifted copy (s = 1, rows outside the
 * image zero-filled) land in a ring of HW_STAGES stages, two steps ahead
 * of the multiply; the threads build the shifted copies 0 and 2 from copy
 * 1 once it has landed. With no loads held in registers a thread needs
 * <= 128 registers: two blocks an SM (16 warps, not 8) hide each other's
 * waits, and a part plan of about two blocks an SM is one wave. */
#define HW_BC MGPU_NN_HALO_WGRAD_BC /* channels a block */
#define HW_PX MGPU_NN_HALO_WGRAD_PX /* pixels a step */
#define HW_LDA (HW_PX + 8)
#define HW_STAGES 3
/* dynamic shared memory (over 48 KB a block); bench/conv_emu declares its own */
#ifndef HW_SMEM_DECL
#define HW_SMEM_DECL(name, bytes) extern __shared__ __align__(128) uint4 name[]
#endif

/* The layout for W = 2^LGW: a copy's channel stride XP is (TH + 2) x W
 * and 8 more, so that a B fragment's 16 channels (16-byte rows for the
 * tensor cores' loads) fall in different banks; a stage is dy's tile then
 * copy 1; after the stages, copies 0 and 2. */
template <int LGW> struct hw_shape {
    static constexpr int W = 1 << LGW, TH = HW_PX >> LGW, HP = TH + 2, XP = HP * W + 8;
    static constexpr int A_EL = HL_BM * HW_LDA, X_EL = HW_BC * XP, STAGE = A_EL + X_EL;
    static constexpr int CHUNKS = HW_BC * HP * W / 8; /* x's 16-byte chunks a step */
    static constexpr int XQ = (CHUNKS + IG_THREADS - 1) / IG_THREADS;
    static constexpr int SMEM = (HW_STAGES * STAGE + 2 * X_EL) * 2;
};

template <int LGW>
__global__ void __launch_bounds__(IG_THREADS, 2) k_halo_wgrad(const uint16_t *__restrict__ x, const uint16_t *__restrict__ dy,
                                                              float *__restrict__ part, ig_dims d, int chunk)
{
    using S = hw_shape<LGW>;
    constexpr int W = S::W, TH = S::TH, HP = S::HP, XP = S::XP, XQ = S::XQ;
    HW_SMEM_DECL(hw_smem, S::SMEM);
    uint16_t *sm = reinterpret_cast<uint16_t *>(hw_smem), *X02 = sm + HW_STAGES * S::STAGE;

    const int tid = threadIdx.x;
    const int C = d.C, K = d.K, H = d.H, plane = H * W, tiles_per_img = H / TH;
    const int c0 = blockIdx.x * HW_BC, k0 = blockIdx.y * HL_BM;
    const int t_beg = blockIdx.z * chunk, t_end = min(d.N * tiles_per_img, t_beg + chunk);

    /* A: packs of 8 pixels, pack u = tid + 256 i is k = u / 8, pixels 8 (u % 8) */
    const int a_k = tid >> 3, a_px = (tid & 7) * 8;
    /* x: chunk v = tid + 256 i is columns col..col + 7 (the same for every
     * i, 256 being a multiple of W / 8), halo row v / (W / 8) % HP, channel
     * v / (W / 8) / HP: its halo row, and its offset in a copy */
    const int col = (tid & (W / 8 - 1)) * 8;
    int x_hh[XQ], x_sm[XQ];
#pragma unroll
    for (int i = 0; i < XQ; i++) {
        int v = tid + i * IG_THREADS, rest = v / (W / 8), hh = rest % HP, c = rest / HP;
        x_hh[i] = v < S::CHUNKS ? hh : -1;
        x_sm[i] = c * XP + hh * W + col;
    }

    /* step t's dy tile and copy 1 into stage st (cp.async, not waited for) */
    auto load = [&](int t, int st) {
        int n = t / tiles_per_img, p0 = (t - n * tiles_per_img) * TH;
        uint16_t *As = sm + st * S::STAGE, *X1 = As + S::A_EL;
        const uint16_t *a = dy + ((size_t)n * K + k0) * plane + p0 * W;
#pragma unroll
        for (int i = 0; i < 2; i++)
            __pipeline_memcpy_async(As + (a_k + 32 * i) * HW_LDA + a_px, a + (size_t)(a_k + 32 * i) * plane + a_px, 16);
        const uint16_t *b = x + ((size_t)n * C + c0) * plane;
#pragma unroll
        for (int i = 0; i < XQ; i++) {
            if (x_hh[i] < 0) continue;
            int h = p0 - 1 + x_hh[i], c = x_sm[i] / XP;
            bool in = (unsigned)h < (unsigned)H;
            /* a row outside the image: 16 bytes of zeros, nothing read */
            __pipeline_memcpy_async(X1 + x_sm[i], in ? b + ((size_t)c * H + h) * W + col : x, 16, in ? 0 : 16);
        }
    };
    /* copies 0 and 2 (x[column - 1], x[column + 1]; 0 past the row's ends)
     * from stage st's copy 1: a thread's chunks, 4-byte words from two
     * neighbouring ones (little-endian: a word's low half is its left pixel) */
    auto build = [&](int st) {
        const uint16_t *X1 = sm + st * S::STAGE + S::A_EL;
#pragma unroll
        for (int i = 0; i < XQ; i++) {
            if (x_hh[i] < 0) continue;
            const uint16_t *src = X1 + x_sm[i];
            uint4 m = *reinterpret_cast<const uint4 *>(src);
            uint32_t lo = col > 0 ? *reinterpret_cast<const uint32_t *>(src - 2) : 0u;
            uint32_t hi = col + 8 < W ? *reinterpret_cast<const uint32_t *>(src + 8) : 0u;
            uint4 s0, s2;
            s0.x = lo >> 16 | m.x << 16, s0.y = m.x >> 16 | m.y << 16, s0.z = m.y >> 16 | m.z << 16, s0.w = m.z >> 16 | m.w << 16;
            s2.x = m.x >> 16 | m.y << 16, s2.y = m.y >> 16 | m.z << 16, s2.z = m.z >> 16 | m.w << 16, s2.w = m.w >> 16 | hi << 16;
            *reinterpret_cast<uint4 *>(X02 + x_sm[i]) = s0;
            *reinterpret_cast<uint4 *>(X02 + S::X_EL + x_sm[i]) = s2;
        }
    };

    const int warp = tid / 32, wm = warp & 3, hc = warp >> 2;
    using afrag = wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major>;
    using bfrag = wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major>;
    using cfrag = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
    cfrag acc[9];
#pragma unroll
    for (int t = 0; t < 9; t++) wmma::fill_fragment(acc[t], 0.f);

    auto multiply = [&](int st) {
        const __nv_bfloat16 *Ab = reinterpret_cast<const __nv_bfloat16 *>(sm + st * S::STAGE) + wm * 16 * HW_LDA;
        const __nv_bfloat16 *Xc[3] = {reinterpret_cast<const __nv_bfloat16 *>(X02) + hc * 16 * XP,
                                      reinterpret_cast<const __nv_bfloat16 *>(sm + st * S::STAGE + S::A_EL) + hc * 16 * XP,
                                      reinterpret_cast<const __nv_bfloat16 *>(X02 + S::X_EL) + hc * 16 * XP};
#pragma unroll 2
        for (int kk = 0; kk < HW_PX; kk += 16) {
            const int tr = kk >> LGW, tc = kk & (W - 1);
            afrag fa;
            wmma::load_matrix_sync(fa, Ab + kk, HW_LDA);
#pragma unroll
            for (int tap = 0; tap < 9; tap++) {
                const int r = tap / 3, s = tap % 3;
                bfrag fb;
                wmma::load_matrix_sync(fb, Xc[s] + (tr + r) * W + tc, XP);
                wmma::mma_sync(acc[tap], fa, fb, acc[tap]);
            }
        }
    };

    /* the ring: step t in stage (t - t_beg) % HW_STAGES; a group committed
     * every step (empty past the part's end) so that waiting for all but
     * the newest HW_STAGES - 2 groups always means step t's has landed */
#pragma unroll
    for (int i = 0; i < HW_STAGES - 1; i++) {
        if (t_beg + i < t_end) load(t_beg + i, i);
        __pipeline_commit();
    }
    int st = 0;
    for (int t = t_beg; t < t_end; t++) {
        __pipeline_wait_prior(HW_STAGES - 2);
        __syncthreads(); /* step t's stage in for every thread; step t - 1's multiply done */
        int ahead = st + HW_STAGES - 1 >= HW_STAGES ? st - 1 : st + HW_STAGES - 1; /* step t - 1's stage, free now */
        if (t + HW_STAGES - 1 < t_end) load(t + HW_STAGES - 1, ahead);
        __pipeline_commit();
        build(st);
        __syncthreads();
        multiply(st);
        st = st + 1 == HW_STAGES ? 0 : st + 1;
    }
#pragma unroll
    for (int tap = 0; tap < 9; tap++)
        wmma::store_matrix_sync(part + (((size_t)blockIdx.z * 9 + tap) * K + k0 + wm * 16) * C + c0 + hc * 16, acc[tap], C,
                                wmma::mem_row_major);
}

/* dw[k][c][tap] = the parts' [part][tap][k][c] partials added in part
 * order, rounded once; a thread walks the partials' order (coalesced
 * reads; the few writes are the strided ones). HW_CB partials at a time
 * are loaded before they are added: the adds keep the part order, the
 * independent loads overlap (one at a time, it took 12 us for 19 MB). */
#define HW_CB 16
__global__ void k_halo_wgrad_combine(const float *__restrict__ part, uint16_t *__restrict__ dw, int K, int C, int parts)
{
    int n = K * C * 9;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int tap = i / (K * C), kc = i - tap * K * C;
        const float *q = part + i;
        float s = 0;
        int p = 0;
        for (; p + HW_CB <= parts; p += HW_CB) {
            float v[HW_CB];
#pragma unroll
            for (int j = 0; j < HW_CB; j++) v[j] = q[(size_t)(p + j) * n];
#pragma unroll
            for (int j = 0; j < HW_CB; j++) s += v[j];
        }
        for (; p < parts; p++) s += q[(size_t)p * n];
        dw[kc * 9 + tap] = from_f<uint16_t>(s);
    }
}

/* The halo weight grad's parts and their pixel steps (*chunk each): about
 * two blocks an SM, each part at least 8 steps deep - a function of the
 * shape only, so every run adds the same partials in the same order. */
int halo_wgrad_parts(const ig_dims &d, int *chunk)
{
    size_t ch, parts = mgpu_nn_conv_halo_wgrad_parts(d.N, d.C, d.H, d.W, d.K, &ch); /* nn_ops.h */
    *chunk = (int)ch;
    return (int)parts;
}

/* The halo weight grad's conditions (above), or -1; its log2 W when met. */
int halo_wgrad_lgw(const mgpu_nn_args *a, const ig_dims &d, bool ptrs)
{
    if (a->dtype != MGPU_BF16 || a->op != MGPU_NNK_CONV2D_WGRAD) return -1;
    int lgw = mgpu_nn_conv_halo_wgrad(1, d.N, d.C, d.H, d.W, d.K, d.R, d.stride, d.pad, d.P, d.Q, HW_MIN_BLOCKS);
    if (lgw < 0) return -1;
    if (ptrs && (((uintptr_t)a->t[0] & 15) || ((uintptr_t)a->t[1] & 15))) return -1; /* 16-byte loads */
    return lgw;
}

/* over 48 KB of shared memory a block: allowed for the kernel, and the
 * largest carveout asked for, so that two blocks fit an SM (each call: the
 * setting is the current device's, and a call is cheap next to the
 * kernel) */
template <int LGW>
static void launch_halo_wgrad_w(cudaStream_t st, dim3 grid, const uint16_t *x, const uint16_t *dy, float *part, const ig_dims &d,
                                int chunk)
{
    constexpr int bytes = hw_shape<LGW>::SMEM;
    cudaFuncSetAttribute(k_halo_wgrad<LGW>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    cudaFuncSetAttribute(k_halo_wgrad<LGW>, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared);
    k_halo_wgrad<LGW><<<grid, IG_THREADS, bytes, st>>>(x, dy, part, d, chunk);
}

void launch_halo_wgrad(cudaStream_t st, const mgpu_nn_args *a, const ig_dims &d, int lgw, void *ws)
{
    int chunk, parts = halo_wgrad_parts(d, &chunk);
    dim3 grid((unsigned)(d.C / HW_BC), (unsigned)(d.K / HL_BM), (unsigned)parts);
    const uint16_t *x = (const uint16_t *)a->t[0], *dy = (const uint16_t *)a->t[1];
    if (lgw == 4) launch_halo_wgrad_w<4>(st, grid, x, dy, (float *)ws, d, chunk);
    else launch_halo_wgrad_w<5>(st, grid, x, dy, (float *)ws, d, chunk);
    k_halo_wgrad_combine<<<nn_blocks((size_t)d.K * d.C * 9), NN_THREADS, 0, st>>>((const float *)ws, (uint16_t *)a->t[2], d.K, d.C,
                                                                                   parts);
}
