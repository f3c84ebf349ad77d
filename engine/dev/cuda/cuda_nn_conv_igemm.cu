/* cuda_nn_conv_igemm.cu - conv2d as an implicit GEMM: no column matrix in
 * memory; each block gathers its tile of the would-be columns from the
 * image straight into shared memory, and multiplies there. Three GEMMs
 * (nn_ops.h, MGPU_NNK_CONV2D_*), C[m, j] = sum_k A[m, k] B[k, j]:
 *   forward   y [N,K,P,Q]:  m = out channel, j = (n,p,q), k = (c,r,s)
 *   data grad dx [N,C,H,W]: m = in channel,  j = (n,h,w), k = (k,r,s),
 *             cut by output phase (h mod stride, w mod stride): phase
 *             (a, b) computes the pixels h = a + stride*i, w = b + stride*j
 *             and reduces over only the taps that reach them, r with
 *             (a + pad - r) mod stride == 0 (likewise s), so no zero
 *             between dy's pixels is multiplied; the stride^2 phases are
 *             one launch (blockIdx.z), a phase with no taps writes zeros.
 *   weight grad dw [K,CRR]: m = out channel, j = (c,r,s), k = (n,p,q),
 *             the reduction cut in a fixed number of parts (a function of
 *             the shape alone) whose f32 partials a second kernel adds in
 *             order: the same inputs give the same bits on every run.
 * The forward also cuts its reduction in parts when it has at most 32
 * tiles (nn_ops.h: a batch of small images), added in order the same way.
 * Where a tap's channels fill whole BK-deep chunks (C for the forward, K
 * for the data grad, a multiple of BK) the reduction runs tap-major, k =
 * (r, s, c): a chunk is one tap's, so a thread's bounds check and address
 * are worked out once a chunk, not once an element (the gather's index
 * math, not the tensor cores, bound the first version).
 * bf16 multiplies on the tensor cores (wmma 16x16x16, f32 accumulate),
 * f32 on the FMA units, each thread a 4 x 4..8 register tile (the f32
 * forward of many tiles: 8 x 8, a 64 x 256 block tile). A block of
 * 256 threads stages its next tile's elements in registers while it
 * multiplies the current one; in bf16 a thread's B elements are a run of
 * 16 put in shared memory by two 16-byte stores. Loads that walk j (the
 * image's q, w) or k (the reduction's q) are consecutive addresses, so
 * they coalesce. bf16 3x3 stride-1 layers wide enough (the ResNet's
 * 64-channel stages) take the halo kernels instead (cuda_nn_conv_halo.cu),
 * which stage each input row once and read all nine taps from shared
 * memory; this file's launch (launch_t) picks them by their conditions.
 * Two files, two ideas: here the general kernels, which gather every tap
 * from global memory and take any shape, and the launch; there the halo
 * kernels, a layout of their own for one family of shapes with its own
 * tiles, pipeline and conditions. What both use (ig_dims, the block size,
 * the GEMMs' modes, the halo launchers) is in cuda_nn_conv_igemm.h.
 * Every index is 32-bit: nn_conv.c takes this path only when each tensor
 * has fewer than 2^31 elements. */
#include <cuda_bf16.h>
#include <mma.h>
#include <type_traits>
#include "dev/cuda/cuda_nn.h"
#include "dev/cuda/cuda_nn_conv_igemm.h"

using namespace nvcuda;

/* (c or k, r, s) of a reduction or column index over C*R*R: R a constant
 * when RT > 0 (3: every 3x3 conv of the ResNet), else the launch's. */
template <int RT> struct crs {
    int c, r, s;
    __device__ __forceinline__ crs(int i, const ig_dims &d)
    {
        if constexpr (RT > 0) {
            c = (int)((unsigned)i / (unsigned)(RT * RT));
            int rs = i - c * RT * RT;
            r = (int)((unsigned)rs / (unsigned)RT);
            s = rs - r * RT;
        } else {
            c = (int)d.by_rr.div((uint32_t)i);
            int rs = i - c * d.R * d.R;
            r = (int)d.by_r.div((uint32_t)rs);
            s = rs - r * d.R;
        }
    }
};

template <typename T> __device__ __forceinline__ T ig_zero() { return (T)0; }

/* x[n, c, hb + r, wb + s], 0 outside the image (padding). */
template <typename T>
__device__ __forceinline__ T x_tap(const T *__restrict__ x, const ig_dims &d, int xbase, int hb, int wb, int c, int r,
                                   int s)
{
    int h = hb + r, w = wb + s;
    if ((unsigned)h >= (unsigned)d.H || (unsigned)w >= (unsigned)d.W) return ig_zero<T>();
    return x[xbase + (c * d.H + h) * d.W + w];
}

/* The tile shapes: BM rows of C (channels) by BN columns, BK deep; BM
 * and BN as mgpu_nn_conv_tile_m/_n (nn_ops.h) say, which the sim prices. */
template <int BM> struct ig_tile {
    static constexpr int BN = BM == 64 ? 128 : 256;
};

#ifndef IG_DEEP_BK
#define IG_DEEP_BK 16
#endif
/* The deep tile's blocks an SM: 2 (128 registers a thread), else as many
 * as the registers the compiler picks allow. */
template <int TM> struct ig_minb {
    static constexpr int v = TM == 8 ? 2 : 0;
};

/* BNN > 0: the f32 weight grad's narrow tile (nn_ops.h, mgpu_nn_conv_plan_of)
 * of BNN columns, the 256 threads in KS groups over each step's k.
 * TM 8: the f32 forward's deep tile (nn_ops.h, mgpu_nn_conv_fwd_deep), 64 x
 * 256 with an 8 x 8 register tile a thread: a warp is 4 x 8 threads, so
 * that each of its 16-byte shared loads is one wavefront (4 rows of A, 8
 * runs of 4 columns of B: 4 loads feed 64 FMAs a thread, where the 4 x 8
 * tile's 1 x 32 or 2 x 16 warps needed 5 wavefronts for 32); A and B
 * double-buffered in shared memory (one __syncthreads a step), and the
 * outputs stored straight from the registers (a 64 x 256 f32 tile does
 * not fit in 48 KB of shared memory). */
template <typename T, int MODE, int RT, int BM, int BK, bool TAP, int BNN = 0, int TM = 4>
__global__ void __launch_bounds__(IG_THREADS, ig_minb<TM>::v) k_igemm(const T *__restrict__ in0, const T *__restrict__ in1,
                                                                     void *__restrict__ out, ig_dims d)
{
    constexpr bool DEEP = TM == 8;
    constexpr int BN = DEEP ? 256 : BNN ? BNN : ig_tile<BM>::BN;
    constexpr bool BF = sizeof(T) == 2;
    static_assert(!BNN || (!BF && MODE == IG_WGRAD), "narrow tiles: the f32 weight grad");
    static_assert(!DEEP || (!BF && MODE == IG_FWD && BM == 64 && !BNN), "the deep tile: the f32 forward, 64 rows");
    /* f32: a 4 x TN register tile a thread, TN/4 groups of 4 columns; a
     * narrow tile's threads 4 x 4 each, in KS groups that each multiply
     * BK / KS of a step's k, summed in group order at the end */
    constexpr int TMN = BM / TM, TNN = BNN ? BN / 4 : IG_THREADS / TMN, TN = BN / TNN, NG = TN / 4;
    constexpr int KS = BF ? 1 : IG_THREADS / (TMN * TNN);
    constexpr int AREG = BM * BK / IG_THREADS, BREG = BK * BN / IG_THREADS;
    /* shared memory: the A and B tiles while multiplying, C's tile after */
    constexpr int A_LD = BF ? BK + 8 : BM + 4; /* bf16: As[m][k]; f32: As[k][m] */
    /* Bs[k][j]; bf16 forward and data grad Bs[j][k] (col-major), so that a
     * thread's run of k goes to shared memory in 16-byte stores */
    constexpr bool BCOL = BF && MODE != IG_WGRAD;
    constexpr int B_LD = BCOL ? BK + 8 : BF ? BN + 8 : BN + 4;
    constexpr int A_BYTES = (BF ? BM : BK) * A_LD * (int)sizeof(T), B_BYTES = (BCOL ? BN : BK) * B_LD * (int)sizeof(T);
    constexpr int C_LD = BN + 4, C_BYTES = KS * BM * C_LD * 4;
    constexpr int SMEM = DEEP ? 2 * (A_BYTES + B_BYTES) : A_BYTES + B_BYTES > C_BYTES ? A_BYTES + B_BYTES : C_BYTES;
    __shared__ __align__(128) unsigned char smem[SMEM];
    T *As = reinterpret_cast<T *>(smem), *Bs = reinterpret_cast<T *>(smem + A_BYTES); /* the deep tile: the buffer stash fills */
    float *Cs = reinterpret_cast<float *>(smem);

    const int tid = threadIdx.x, m0 = blockIdx.y * BM, j0 = blockIdx.x * BN;
    /* the data grad's blockIdx.z is its phase, or (stride 1, one phase) its part */
    const bool zpart = MODE != IG_DGRAD || d.split;
    const ig_phase &ph = d.ph[zpart ? 0 : blockIdx.z];
    const int ncol = MODE == IG_DGRAD ? ph.ncol : d.Ncol;
    if (j0 >= ncol) return; /* a smaller phase's spare blocks */
    const int kbeg = zpart ? blockIdx.z * d.chunk : 0;
    const int kend = min(MODE == IG_DGRAD ? ph.kred : d.Kred, kbeg + d.chunk);

    /* A loads walk k fastest (w's rows, dy's pixels); B loads walk j
     * (forward, data grad: the image's q or w) or k (weight grad). */
    /* bf16 64-row tiles: a thread's 8 A elements are a run along k (one
     * 16-byte shared store); else they step along m by A_MS */
    constexpr bool APK = BF && AREG % 8 == 0 && (MODE != IG_DGRAD || TAP);
    static_assert(!APK || AREG == 8, "a packed A run is one 16-byte store");
    constexpr int A_MS = APK ? 0 : IG_THREADS / BK, A_KS = APK ? 1 : 0;
    const int a_k = APK ? tid % (BK / AREG) * AREG : tid % BK, a_m = APK ? tid / (BK / AREG) : tid / BK;
    /* A thread's BREG elements of B step along k (forward, data grad) or j
     * (weight grad) by B_STEP: bf16 takes a run of consecutive ones (packed
     * into 16-byte shared stores), f32 every B_STEP-th */
    constexpr int B_STEP = BF ? 1 : MODE == IG_WGRAD ? IG_THREADS / BK : IG_THREADS / BN;
    constexpr int B_RUN = BF ? BREG : 1;
    const int b_j = MODE == IG_WGRAD ? tid / BK * B_RUN : tid % BN, b_k = MODE == IG_WGRAD ? tid % BK : tid / BN * B_RUN;

    /* Forward and data grad: this thread's B column j is fixed; its image
     * and position are worked out once. */
    int jbase = 0, jh = 0, jw = 0;
    bool jok = false;
    if (MODE != IG_WGRAD) {
        int j = j0 + b_j;
        jok = j < ncol;
        if (jok) {
            if (MODE == IG_FWD) {
                int n = (int)d.by_pq.div((uint32_t)j), pq = j - n * d.P * d.Q;
                int p = (int)d.by_q.div((uint32_t)pq), q = pq - p * d.Q;
                jbase = n * d.C * d.H * d.W, jh = p * d.stride - d.pad, jw = q * d.stride - d.pad;
            } else { /* dy's p, q for the phase's first tap; tap (t, u) reads p - t, q - u */
                int n = (int)ph.by_hsws.div((uint32_t)j), ij = j - n * ph.hs * ph.ws;
                int i = (int)ph.by_ws.div((uint32_t)ij), jj = ij - i * ph.ws;
                jbase = n * d.K * d.P * d.Q, jh = i + ph.pa, jw = jj + ph.qa;
            }
        }
    }

    /* Weight grad: this thread's B columns j = (c, r, s) are fixed; their
     * offsets in an image and their taps are worked out once (a column
     * past Ncol gets a tap that is outside every image). */
    int jo[MODE == IG_WGRAD ? BREG : 1], jrs[MODE == IG_WGRAD ? BREG : 1];
    if (MODE == IG_WGRAD) {
#pragma unroll
        for (int i = 0; i < BREG; i++) {
            int j = j0 + b_j + i * B_STEP;
            crs<RT> t(j < d.Ncol ? j : 0, d);
            jo[i] = (t.c * d.H + t.r) * d.W + t.s;
            jrs[i] = j < d.Ncol ? t.r << 16 | t.s : 0x7fff0000;
        }
    }

    T ra[AREG], rb[BREG];
    auto load = [&](int k0) {
        if constexpr (TAP) { /* k = tap * RED + channel: the chunk is one tap's */
            constexpr bool F = MODE == IG_FWD;
            const int red = F ? d.C : d.K, tap = k0 / red, cb = k0 - tap * red;
            int r, sw;
            if (F) {
                r = tap / d.R, sw = tap - r * d.R;
            } else {
                int t = (int)ph.by_ts.div((uint32_t)tap), u = tap - t * ph.ts;
                r = t, sw = u;
            }
            const int wtap = F ? tap : (ph.r0 + d.stride * r) * d.R + ph.s0 + d.stride * sw, rr = d.R * d.R;
#pragma unroll
            for (int i = 0; i < AREG; i++) {
                int m = m0 + a_m + i * A_MS, c = cb + a_k + i * A_KS;
                bool ok = m < d.M;
                ra[i] = ok ? in1[F ? (m * d.C + c) * rr + wtap : (c * d.C + m) * rr + wtap] : ig_zero<T>();
            }
            /* B: one bounds check and one address for the whole chunk */
            int h = F ? jh + r : jh - r, w = F ? jw + sw : jw - sw;
            int hi = F ? d.H : d.P, wi = F ? d.W : d.Q;
            bool ok = jok && (unsigned)h < (unsigned)hi && (unsigned)w < (unsigned)wi;
            const int plane = hi * wi;
            const T *src = in0 + jbase + (cb + b_k) * plane + h * wi + w;
#pragma unroll
            for (int i = 0; i < BREG; i++) rb[i] = ok ? src[i * B_STEP * plane] : ig_zero<T>();
            return;
        }
        /* A */
        int k = k0 + a_k;
        if (MODE == IG_WGRAD) {
            int n = 0, pq = 0;
            const int npq = d.P * d.Q;
            if (k < kend) n = (int)d.by_pq.div((uint32_t)k), pq = k - n * npq;
#pragma unroll
            for (int i = 0; i < AREG; i++) {
                int m = m0 + a_m + i * A_MS;
                if (APK && i > 0 && ++pq == npq) pq = 0, n++; /* the run's next k */
                ra[i] = k + i * A_KS < kend && m < d.M ? in1[(n * d.K + m) * npq + pq] : ig_zero<T>();
            }
        } else {
            bool kok = k < kend;
            int wk = 0, wrs = 0;
            if (MODE == IG_DGRAD && kok) { /* k = (k, t, u) over the phase's taps */
                wk = (int)ph.by_taps.div((uint32_t)k);
                int tu = k - wk * ph.tr * ph.ts, t = (int)ph.by_ts.div((uint32_t)tu), u = tu - t * ph.ts;
                wrs = (ph.r0 + d.stride * t) * d.R + ph.s0 + d.stride * u;
            }
#pragma unroll
            for (int i = 0; i < AREG; i++) {
                int m = m0 + a_m + i * A_MS;
                bool ok = k + i * A_KS < kend && m < d.M;
                if (MODE == IG_FWD) ra[i] = ok ? in1[m * d.Kred + k + i * A_KS] : ig_zero<T>();
                else ra[i] = ok ? in1[(wk * d.C + m) * d.R * d.R + wrs] : ig_zero<T>();
            }
        }
        /* B */
        if (MODE == IG_WGRAD) {
            int kk = k0 + b_k, xbase = 0, hb = 0, wb = 0;
            bool kok = kk < kend;
            if (kok) {
                int n = (int)d.by_pq.div((uint32_t)kk), pq = kk - n * d.P * d.Q;
                int p = (int)d.by_q.div((uint32_t)pq), q = pq - p * d.Q;
                xbase = n * d.C * d.H * d.W, hb = p * d.stride - d.pad, wb = q * d.stride - d.pad;
            }
            const T *src = in0 + xbase + hb * d.W + wb;
#pragma unroll
            for (int i = 0; i < BREG; i++) {
                int h = hb + (jrs[i] >> 16), w = wb + (jrs[i] & 0xffff);
                bool ok = kok && (unsigned)h < (unsigned)d.H && (unsigned)w < (unsigned)d.W;
                rb[i] = ok ? src[jo[i]] : ig_zero<T>();
            }
        } else {
#pragma unroll
            for (int i = 0; i < BREG; i++) {
                int kk = k0 + b_k + i * B_STEP;
                T v = ig_zero<T>();
                if (jok && kk < kend) {
                    if (MODE == IG_FWD) {
                        crs<RT> t(kk, d);
                        v = x_tap(in0, d, jbase, jh, jw, t.c, t.r, t.s);
                    } else {
                        int k = (int)ph.by_taps.div((uint32_t)kk), tu = kk - k * ph.tr * ph.ts;
                        int t = (int)ph.by_ts.div((uint32_t)tu), p = jh - t, q = jw - (tu - t * ph.ts);
                        if ((unsigned)p < (unsigned)d.P && (unsigned)q < (unsigned)d.Q)
                            v = in0[jbase + (k * d.P + p) * d.Q + q];
                    }
                }
                rb[i] = v;
            }
        }
    };
    auto stash = [&]() {
        if constexpr (APK) {
            uint4 v;
            v.x = ra[0] | (uint32_t)ra[1] << 16, v.y = ra[2] | (uint32_t)ra[3] << 16;
            v.z = ra[4] | (uint32_t)ra[5] << 16, v.w = ra[6] | (uint32_t)ra[7] << 16;
            *reinterpret_cast<uint4 *>(As + a_m * A_LD + a_k) = v;
        } else {
#pragma unroll
            for (int i = 0; i < AREG; i++) {
                int m = a_m + i * A_MS;
                if (BF) As[m * A_LD + a_k] = ra[i];
                else As[a_k * A_LD + m] = ra[i];
            }
        }
        if constexpr (BF) { /* the run in 16-byte stores */
            static_assert(BREG % 8 == 0, "a bf16 run is whole 16-byte packs");
            T *dst = BCOL ? Bs + b_j * B_LD + b_k : Bs + b_k * B_LD + b_j;
#pragma unroll
            for (int i = 0; i < BREG; i += 8) {
                uint4 v;
                v.x = rb[i] | (uint32_t)rb[i + 1] << 16, v.y = rb[i + 2] | (uint32_t)rb[i + 3] << 16;
                v.z = rb[i + 4] | (uint32_t)rb[i + 5] << 16, v.w = rb[i + 6] | (uint32_t)rb[i + 7] << 16;
                *reinterpret_cast<uint4 *>(dst + i) = v;
            }
        } else {
#pragma unroll
            for (int i = 0; i < BREG; i++) {
                if (MODE == IG_WGRAD) Bs[b_k * B_LD + b_j + i * B_STEP] = rb[i];
                else Bs[(b_k + i * B_STEP) * B_LD + b_j] = rb[i];
            }
        }
    };

    /* bf16: 8 warps, WM x WN, each FM x FN fragments of 16x16 */
    constexpr int FM = BM == 64 ? 2 : 1, WM = BM / (16 * FM), WN = 8 / WM, FN = BN / (16 * WN);
    const int warp = tid / 32, wm = warp / WN, wn = warp % WN;
    /* the deep tile: warp w is rows (w / 4) x 4 .. + 3 of ty, columns (w % 4) x 8 .. + 7 of tx */
    const int gk = DEEP ? 0 : tid / (TMN * TNN), ty = DEEP ? (tid >> 7) * 4 + (tid & 31) / 8 : tid % (TMN * TNN) / TNN,
              tx = DEEP ? (tid >> 5 & 3) * 8 + (tid & 7) : tid % TNN;
    using afrag = wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major>;
    using blay = typename std::conditional<BCOL, wmma::col_major, wmma::row_major>::type;
    using bfrag = wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, blay>;
    using cfrag = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
    cfrag acc[BF ? FM : 1][BF ? FN : 1];
    float facc[BF ? 1 : TM][BF ? 1 : TN];
    if constexpr (BF) {
#pragma unroll
        for (int i = 0; i < FM; i++)
#pragma unroll
            for (int j = 0; j < FN; j++) wmma::fill_fragment(acc[i][j], 0.f);
    } else {
#pragma unroll
        for (int i = 0; i < TM; i++)
#pragma unroll
            for (int j = 0; j < TN; j++) facc[i][j] = 0.f;
    }

    if constexpr (DEEP) {
        /* buffer b: A then B at smem + b (A_BYTES + B_BYTES); stash fills
         * the one As/Bs point at while the other is multiplied */
        constexpr int BUF = (A_BYTES + B_BYTES) / 4;
        float *const A0 = reinterpret_cast<float *>(smem), *const B0 = reinterpret_cast<float *>(smem + A_BYTES);
        int buf = 0;
        if (kbeg < kend) load(kbeg), stash();
        __syncthreads();
        for (int k0 = kbeg; k0 < kend; k0 += BK) {
            const bool more = k0 + BK < kend;
            if (more) load(k0 + BK); /* in flight while this tile multiplies */
            const float *Af = A0 + buf * BUF, *Bf = B0 + buf * BUF;
#pragma unroll
            for (int kk = 0; kk < BK; kk++) {
                float4 a0 = *reinterpret_cast<const float4 *>(Af + kk * A_LD + ty * 4);
                float4 a1 = *reinterpret_cast<const float4 *>(Af + kk * A_LD + BM / 2 + ty * 4);
                float4 b0 = *reinterpret_cast<const float4 *>(Bf + kk * B_LD + tx * 4);
                float4 b1 = *reinterpret_cast<const float4 *>(Bf + kk * B_LD + BN / 2 + tx * 4);
                float av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
                float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
                for (int i = 0; i < 8; i++)
#pragma unroll
                    for (int j = 0; j < 8; j++) facc[i][j] = fmaf(av[i], bv[j], facc[i][j]);
            }
            if (more) { /* the other buffer: every thread finished it before the last step's barrier */
                buf ^= 1;
                As = reinterpret_cast<T *>(A0 + buf * BUF), Bs = reinterpret_cast<T *>(B0 + buf * BUF);
                stash();
            }
            __syncthreads();
        }
        /* out straight from the registers: a thread's 4 consecutive columns
         * of a row are 4 consecutive outputs when they lie in one image
         * plane (one 16-byte store where aligned), else one at a time */
        float *o = reinterpret_cast<float *>(out) + (d.split ? (size_t)blockIdx.z * d.M * d.Ncol : 0);
        const int plane = d.plane;
#pragma unroll
        for (int g = 0; g < 2; g++) {
            const int j = j0 + g * (BN / 2) + tx * 4;
            if (j >= ncol) continue;
            const int n = (int)d.by_plane.div((uint32_t)j), pix = j - n * plane;
            const bool run = j + 3 < ncol && pix + 3 < plane;
#pragma unroll
            for (int i = 0; i < 8; i++) {
                const int m = m0 + (i / 4) * (BM / 2) + ty * 4 + i % 4;
                if (m >= d.M) continue;
                const float v0 = facc[i][g * 4], v1 = facc[i][g * 4 + 1], v2 = facc[i][g * 4 + 2], v3 = facc[i][g * 4 + 3];
                if (run) {
                    float *p = o + (n * d.M + m) * plane + pix;
                    if (((uintptr_t)p & 15) == 0) *reinterpret_cast<float4 *>(p) = make_float4(v0, v1, v2, v3);
                    else p[0] = v0, p[1] = v1, p[2] = v2, p[3] = v3;
                } else {
                    const float v[4] = {v0, v1, v2, v3};
#pragma unroll
                    for (int e = 0; e < 4; e++) {
                        const int je = j + e;
                        if (je >= ncol) break;
                        const int ne = (int)d.by_plane.div((uint32_t)je);
                        o[(ne * d.M + m) * plane + je - ne * plane] = v[e];
                    }
                }
            }
        }
    } else {
        for (int k0 = kbeg; k0 < kend; k0 += BK) {
            if (k0 == kbeg) load(k0);
            __syncthreads();
            stash();
            __syncthreads();
            if (k0 + BK < kend) load(k0 + BK); /* in flight while this tile multiplies */
            if constexpr (BF) {
                const __nv_bfloat16 *Ab = reinterpret_cast<const __nv_bfloat16 *>(As);
                const __nv_bfloat16 *Bb = reinterpret_cast<const __nv_bfloat16 *>(Bs);
#pragma unroll
                for (int kk = 0; kk < BK; kk += 16) {
                    afrag fa[FM];
                    bfrag fb[FN];
#pragma unroll
                    for (int i = 0; i < FM; i++) wmma::load_matrix_sync(fa[i], Ab + ((wm * FM + i) * 16) * A_LD + kk, A_LD);
#pragma unroll
                    for (int j = 0; j < FN; j++)
                        wmma::load_matrix_sync(fb[j], BCOL ? Bb + ((wn * FN + j) * 16) * B_LD + kk : Bb + kk * B_LD + (wn * FN + j) * 16,
                                               B_LD);
#pragma unroll
                    for (int i = 0; i < FM; i++)
#pragma unroll
                        for (int j = 0; j < FN; j++) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
                }
            } else {
                const float *Af = reinterpret_cast<const float *>(As), *Bf = reinterpret_cast<const float *>(Bs);
#pragma unroll
                for (int kq = 0; kq < BK / KS; kq++) {
                    const int kk = gk * (BK / KS) + kq;
                    float4 a4 = *reinterpret_cast<const float4 *>(Af + kk * A_LD + ty * 4);
                    float av[4] = {a4.x, a4.y, a4.z, a4.w};
#pragma unroll
                    for (int g = 0; g < NG; g++) {
                        float4 b4 = *reinterpret_cast<const float4 *>(Bf + kk * B_LD + g * (BN / NG) + tx * 4);
                        float bv[4] = {b4.x, b4.y, b4.z, b4.w};
#pragma unroll
                        for (int i = 0; i < 4; i++)
#pragma unroll
                            for (int j = 0; j < 4; j++) facc[i][g * 4 + j] = fmaf(av[i], bv[j], facc[i][g * 4 + j]);
                    }
                }
            }
        }

        /* C's tile through shared memory, then out a row of j at a time */
        __syncthreads();
        if constexpr (BF) {
#pragma unroll
            for (int i = 0; i < FM; i++)
#pragma unroll
                for (int j = 0; j < FN; j++)
                    wmma::store_matrix_sync(Cs + ((wm * FM + i) * 16) * C_LD + (wn * FN + j) * 16, acc[i][j], C_LD,
                                            wmma::mem_row_major);
        } else {
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int g = 0; g < NG; g++)
#pragma unroll
                    for (int j = 0; j < 4; j++) Cs[(gk * BM + ty * 4 + i) * C_LD + g * (BN / NG) + tx * 4 + j] = facc[i][g * 4 + j];
        }
        __syncthreads();
        for (int e = tid; e < BM * BN; e += IG_THREADS) {
            int ml = e / BN, jl = e - ml * BN, m = m0 + ml, j = j0 + jl;
            if (m >= d.M || j >= ncol) continue;
            float v = Cs[ml * C_LD + jl];
#pragma unroll
            for (int g = 1; g < KS; g++) v += Cs[(g * BM + ml) * C_LD + jl]; /* the k groups in order */
            if (MODE == IG_WGRAD) {
                reinterpret_cast<float *>(out)[(size_t)blockIdx.z * d.M * d.Ncol + m * d.Ncol + j] = v;
            } else if (MODE == IG_DGRAD) {
                int n = (int)ph.by_hsws.div((uint32_t)j), ij = j - n * ph.hs * ph.ws;
                int i = (int)ph.by_ws.div((uint32_t)ij), jj = ij - i * ph.ws;
                int o = (n * d.M + m) * d.plane + (ph.a + d.stride * i) * d.W + ph.b + d.stride * jj;
                if (d.split) reinterpret_cast<float *>(out)[(size_t)blockIdx.z * d.M * d.Ncol + o] = v;
                else reinterpret_cast<T *>(out)[o] = from_f<T>(v);
            } else {
                int n = (int)d.by_plane.div((uint32_t)j), pix = j - n * d.plane, o = (n * d.M + m) * d.plane + pix;
                if (d.split) reinterpret_cast<float *>(out)[(size_t)blockIdx.z * d.M * d.Ncol + o] = v;
                else reinterpret_cast<T *>(out)[o] = from_f<T>(v);
            }
        }
    }
}

/* dw[i] = the parts' partials added in part order, rounded once. */
template <typename T> __global__ void k_igemm_combine(const float *__restrict__ part, T *__restrict__ dw, int n, int parts)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float s = 0;
        for (int p = 0; p < parts; p++) s += part[(size_t)p * n + i];
        dw[i] = from_f<T>(s);
    }
}

/*--- Launch -------------------------------------------------------------------*/

static ig_dims dims_of(const mgpu_nn_args *a)
{
    ig_dims d{};
    d.N = (int)a->n[0], d.C = (int)a->n[1], d.H = (int)a->n[2], d.W = (int)a->n[3], d.R = (int)a->n[4];
    d.P = (int)a->n[5], d.Q = (int)a->n[6], d.stride = a->i[0], d.pad = a->i[1], d.K = a->i[2];
    int crr = d.C * d.R * d.R, krr = d.K * d.R * d.R;
    if (a->op == MGPU_NNK_CONV2D) d.M = d.K, d.Ncol = d.N * d.P * d.Q, d.Kred = crr, d.plane = d.P * d.Q;
    else if (a->op == MGPU_NNK_CONV2D_DGRAD) d.M = d.C, d.Ncol = d.N * d.H * d.W, d.Kred = krr, d.plane = d.H * d.W;
    else d.M = d.K, d.Ncol = crr, d.Kred = d.N * d.P * d.Q, d.plane = crr;
    d.chunk = d.Kred;
    d.by_pq = nn_div<uint32_t>((size_t)d.P * d.Q), d.by_q = nn_div<uint32_t>((size_t)d.Q);
    d.by_hw = nn_div<uint32_t>((size_t)d.H * d.W), d.by_w = nn_div<uint32_t>((size_t)d.W);
    d.by_rr = nn_div<uint32_t>((size_t)d.R * d.R), d.by_r = nn_div<uint32_t>((size_t)d.R);
    d.by_plane = nn_div<uint32_t>((size_t)d.plane);
    return d;
}

static int tile_m(int M) { return mgpu_nn_conv_tile_m((size_t)M); }

/* The data gradient's phases first .. first+IG_PHASES-1 (of stride^2) into
 * d.ph; returns how many, and d.Ncol their largest column count. */
static int set_phases(ig_dims &d, int first)
{
    int S = d.stride, n = S * S - first < IG_PHASES ? S * S - first : IG_PHASES;
    d.Ncol = 0;
    for (int z = 0; z < n; z++) {
        ig_phase &p = d.ph[z];
        p.a = (first + z) / S, p.b = (first + z) % S;
        p.hs = d.H > p.a ? (d.H - p.a + S - 1) / S : 0, p.ws = d.W > p.b ? (d.W - p.b + S - 1) / S : 0;
        p.r0 = (p.a + d.pad) % S, p.s0 = (p.b + d.pad) % S;
        p.tr = mgpu_nn_conv_phase_taps(d.R, d.pad, S, p.a), p.ts = mgpu_nn_conv_phase_taps(d.R, d.pad, S, p.b);
        p.pa = (p.a + d.pad - p.r0) / S, p.qa = (p.b + d.pad - p.s0) / S;
        p.ncol = d.N * p.hs * p.ws, p.kred = d.K * p.tr * p.ts;
        p.by_taps = nn_div<uint32_t>((size_t)(p.tr * p.ts)), p.by_ts = nn_div<uint32_t>((size_t)p.ts);
        p.by_hsws = nn_div<uint32_t>((size_t)(p.hs * p.ws)), p.by_ws = nn_div<uint32_t>((size_t)p.ws);
        if (p.ncol > d.Ncol) d.Ncol = p.ncol;
    }
    return n;
}

/* The tiles and parts of op's GEMM (nn_ops.h, mgpu_nn_conv_plan_of): the
 * weight gradient's parts enough blocks for about two waves of 132 SMs;
 * the forward's and the stride-1 data grad's when they have few tiles - a
 * function of the shape only, so every run adds the same partials in the
 * same order. */
static mgpu_nn_conv_plan conv_plan(const mgpu_nn_args *a, const ig_dims &d)
{
    return mgpu_nn_conv_plan_of(a->op, (size_t)d.M, (size_t)d.Ncol, (size_t)d.Kred, a->dtype == MGPU_BF16, d.stride);
}

template <typename T, int MODE, int RT, int BM, bool TAP, int BNN = 0, int TM = 4>
static void launch_mode(cudaStream_t st, const mgpu_nn_args *a, ig_dims d, void *ws)
{
    /* mgpu_nn_conv_tile_k, or the narrow tile's; the deep tile's 256 columns
     * (IG_DEEP_BK=8, a bench variant, halves its steps: the plan's chunks
     * and tap-major condition hold for 16, so for 8 too) */
    constexpr int BK = TM == 8 ? IG_DEEP_BK : BNN ? MGPU_NN_CONV_NARROW_BK : sizeof(T) == 2 && BM == 64 ? 32 : 16,
                  BN = TM == 8 ? 256 : BNN ? BNN : ig_tile<BM>::BN;
    dim3 grid((unsigned)((d.Ncol + BN - 1) / BN), (unsigned)((d.M + BM - 1) / BM), 1);
    mgpu_nn_conv_plan pl = conv_plan(a, d);
    int parts = (int)pl.parts;
    if (MODE == IG_WGRAD || parts > 1) {
        d.chunk = (int)pl.chunk, d.split = MODE != IG_WGRAD;
        if (MODE == IG_DGRAD) set_phases(d, 0); /* stride 1: the one phase, the whole GEMM */
        grid.z = (unsigned)parts;
        k_igemm<T, MODE, RT, BM, BK, TAP, BNN, TM><<<grid, IG_THREADS, 0, st>>>((const T *)a->t[0], (const T *)a->t[1], ws, d);
        int n = d.M * d.Ncol;
        k_igemm_combine<T><<<nn_blocks((size_t)n), NN_THREADS, 0, st>>>((const float *)ws, (T *)a->t[2], n, parts);
        return;
    }
    if (MODE == IG_DGRAD) { /* every phase in one launch (stride <= 4) */
        for (int first = 0; first < d.stride * d.stride; first += IG_PHASES) {
            grid.z = (unsigned)set_phases(d, first);
            grid.x = (unsigned)((d.Ncol + BN - 1) / BN);
            if (grid.x == 0) continue;
            k_igemm<T, MODE, RT, BM, BK, TAP, BNN, TM><<<grid, IG_THREADS, 0, st>>>((const T *)a->t[0], (const T *)a->t[1], a->t[2], d);
        }
        return;
    }
    k_igemm<T, MODE, RT, BM, BK, TAP, BNN, TM><<<grid, IG_THREADS, 0, st>>>((const T *)a->t[0], (const T *)a->t[1], a->t[2], d);
}

/* The f32 weight grad's narrow tiles, BM x BN as the plan says. */
template <int RT, int BM> static void launch_narrow(cudaStream_t st, const mgpu_nn_args *a, const ig_dims &d, void *ws, int bn)
{
    if (bn == 16) launch_mode<float, IG_WGRAD, RT, BM, false, 16>(st, a, d, ws);
    else if (bn == 32) launch_mode<float, IG_WGRAD, RT, BM, false, 32>(st, a, d, ws);
    else launch_mode<float, IG_WGRAD, RT, BM, false, 64>(st, a, d, ws);
}

template <typename T, int MODE, int RT> static void launch_bm(cudaStream_t st, const mgpu_nn_args *a, const ig_dims &d, void *ws)
{
    if constexpr (MODE == IG_WGRAD && sizeof(T) == 4) {
        mgpu_nn_conv_plan pl = conv_plan(a, d);
        if (pl.narrow) {
            if (pl.bm == 16) launch_narrow<RT, 16>(st, a, d, ws, pl.bn);
            else if (pl.bm == 32) launch_narrow<RT, 32>(st, a, d, ws, pl.bn);
            else launch_narrow<RT, 64>(st, a, d, ws, pl.bn);
            return;
        }
    }
    /* Forward and data grad: the reduction tap-major when a tap's channels
     * (C, or dy's K) fill whole BK-deep chunks. */
    int bm = tile_m(d.M), bk = mgpu_nn_conv_tile_k(bm, sizeof(T) == 2), red = MODE == IG_FWD ? d.C : d.K;
    bool tap = MODE != IG_WGRAD && red % bk == 0;
    if constexpr (MODE == IG_FWD && sizeof(T) == 4) {
        if (conv_plan(a, d).deep) { /* many tiles: 64 x 256, 8 x 8 a thread */
            if (tap) launch_mode<T, MODE, RT, 64, true, 0, 8>(st, a, d, ws);
            else launch_mode<T, MODE, RT, 64, false, 0, 8>(st, a, d, ws);
            return;
        }
    }
    switch (bm) {
    case 16:
        if (tap) launch_mode<T, MODE, RT, 16, MODE != IG_WGRAD>(st, a, d, ws);
        else launch_mode<T, MODE, RT, 16, false>(st, a, d, ws);
        break;
    case 32:
        if (tap) launch_mode<T, MODE, RT, 32, MODE != IG_WGRAD>(st, a, d, ws);
        else launch_mode<T, MODE, RT, 32, false>(st, a, d, ws);
        break;
    default:
        if (tap) launch_mode<T, MODE, RT, 64, MODE != IG_WGRAD>(st, a, d, ws);
        else launch_mode<T, MODE, RT, 64, false>(st, a, d, ws);
        break;
    }
}

template <typename T, int MODE> static void launch_r(cudaStream_t st, const mgpu_nn_args *a, const ig_dims &d, void *ws)
{
    if (d.R == 3) launch_bm<T, MODE, 3>(st, a, d, ws);
    else launch_bm<T, MODE, 0>(st, a, d, ws);
}

template <typename T> static void launch_t(cudaStream_t st, const mgpu_nn_args *a, void *ws)
{
    ig_dims d = dims_of(a);
    if (int lgw = halo_lgw(a, d); lgw >= 0) return launch_halo(st, a, d, lgw);
    if (int lgw = halo_wgrad_lgw(a, d); lgw >= 0) return launch_halo_wgrad(st, a, d, lgw, ws);
    if (a->op == MGPU_NNK_CONV2D) launch_r<T, IG_FWD>(st, a, d, ws);
    else if (a->op == MGPU_NNK_CONV2D_DGRAD) launch_r<T, IG_DGRAD>(st, a, d, ws);
    else launch_r<T, IG_WGRAD>(st, a, d, ws);
}

int cuda_nn_is_conv_igemm(mgpu_nn_kernel op)
{
    return op == MGPU_NNK_CONV2D || op == MGPU_NNK_CONV2D_DGRAD || op == MGPU_NNK_CONV2D_WGRAD;
}

size_t cuda_nn_conv_igemm_scratch(const mgpu_nn_args *a)
{
    ig_dims d = dims_of(a);
    size_t parts = conv_plan(a, d).parts;
    int chunk;
    size_t general = a->op != MGPU_NNK_CONV2D_WGRAD && parts == 1 ? 0 : parts * (size_t)d.M * (size_t)d.Ncol * sizeof(float);
    /* the halo weight grad's partials, [part][tap][k][c]; enough for the
     * general kernel too, which runs when the pointers are not aligned */
    if (halo_wgrad_lgw(a, d, false) >= 0) {
        size_t halo = (size_t)halo_wgrad_parts(d, &chunk) * 9 * d.K * d.C * sizeof(float);
        return halo > general ? halo : general;
    }
    return general;
}

cudaError_t cuda_nn_conv_igemm(cudaStream_t st, const mgpu_nn_args *a, void *ws)
{
    ig_dims d = dims_of(a);
    if (d.M == 0 || d.Ncol == 0) return cudaSuccess;
    if (d.Kred == 0) /* no images: a zero weight gradient */
        return cudaMemsetAsync(a->t[2], 0, (size_t)d.M * d.Ncol * mgpu_dtype_size(a->dtype), st);
    if (a->dtype == MGPU_BF16) launch_t<uint16_t>(st, a, ws);
    else launch_t<float>(st, a, ws);
    return cudaGetLastError();
}
