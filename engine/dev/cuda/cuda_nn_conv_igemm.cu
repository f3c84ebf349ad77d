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
 * 64-channel stages) take the halo kernels further down instead, which
 * stage each input row once and read all nine taps from shared memory.
 * Every index is 32-bit: nn_conv.c takes this path only when each tensor
 * has fewer than 2^31 elements. */
#include <cuda_bf16.h>
#include <mma.h>
#include <cuda_pipeline.h>
#include <type_traits>
#include "dev/cuda/cuda_nn.h"

using namespace nvcuda;

#define IG_THREADS 256

enum { IG_FWD = 0, IG_DGRAD = 1, IG_WGRAD = 2 };

/* One output phase (a, b) of the data gradient: its pixels h = a + S*i
 * (i < hs), w = b + S*j (j < ws); its taps r = r0 + S*t (t < tr), s = s0 +
 * S*u (u < ts), which read dy at p = i + pa - t, q = j + qa - u. */
struct ig_phase {
    int a, b, hs, ws, r0, s0, tr, ts, pa, qa, ncol, kred;
    nn_div<uint32_t> by_taps, by_ts, by_hsws, by_ws;
};
#define IG_PHASES 16 /* stride up to 4 in one launch; a larger stride launches 16 phases at a time */

struct ig_dims {
    int N, C, H, W, K, R, P, Q, stride, pad;
    int M, Ncol, Kred; /* the GEMM (the data grad: its largest phase's) */
    int chunk;         /* reduction elements per part, a multiple of BK (DGRAD uncut: d.Kred) */
    int split;         /* FWD, DGRAD: cut in parts, f32 partials to the scratch */
    nn_div<uint32_t> by_pq, by_q, by_hw, by_w, by_rr, by_r, by_plane; /* by_plane: j per output plane */
    int plane;         /* output elements per (image, m): P*Q, H*W, or Ncol for dw */
    ig_phase ph[IG_PHASES]; /* DGRAD: blockIdx.z's phase */
};

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

/*--- bf16 3x3 stride 1: the image tile once, the nine taps from shared memory ---
 * The general kernel above gathers each tap's B tile from global memory,
 * so every x element is loaded nine times (once a tap) and a thread's
 * index math and loads, not the tensor cores, bind the wide bf16 layers
 * (256x64x32x32: 31 TFLOP/s, cuDNN 150). Here a block owns 64 output
 * channels by 256 output pixels, whole rows of one image (TH = 256 / W
 * rows of W = 16, 32 or 64 pixels); for each 16-channel slice of the
 * reduction it stages the TH+2 input rows it reads (the halo; the
 * columns left and right of the image are the padding and stay zero) in
 * shared memory as [pixel][channel], and the slice's weights for all
 * nine taps as [tap][m][channel]. Each tap is then a GEMM step read
 * straight from those: tap (r, s) of output pixel (y, x) is halo pixel
 * (y + r, x + s), and 16 pixels of one row are 16 consecutive halo
 * pixels of 32 bytes each - a col-major wmma B fragment with ldm 16, so
 * no tap is gathered twice. Each warp holds 32 x 64 of accumulators (2 x
 * 4 fragments: 6 fragment loads feed 8 mma; BM 32: 2 x 2). The next slice's loads are
 * in registers while this one multiplies, as above. The data gradient at
 * stride 1 is the same convolution of dy with the weights transposed
 * (c <-> k) and flipped (r, s -> 2 - r, 2 - s). Taken when M (the output
 * channels) is a multiple of 32 (BM = 64 rows a block where M allows,
 * else 32 with 1 x 8 warps of 32 x 32), the reduction's channels of 16, W is
 * 16, 32 or 64 and TH divides H, pad 1 (same-size output), and the
 * grid has at least HL_MIN_BLOCKS blocks. The sum is in a fixed order:
 * the same bits on every run. */
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
static int halo_lgw(const mgpu_nn_args *a, const ig_dims &d)
{
    if (a->dtype != MGPU_BF16 || (a->op != MGPU_NNK_CONV2D && a->op != MGPU_NNK_CONV2D_DGRAD)) return -1;
    int lgw = mgpu_nn_conv_halo(1, a->op == MGPU_NNK_CONV2D_DGRAD, d.N, d.C, d.H, d.W, d.K, d.R, d.stride, d.pad, d.P, d.Q,
                                HL_MIN_BLOCKS);
    if (lgw < 0) return -1;
    /* 8-byte (BM 64) or 4-byte weight loads, 16-byte stores */
    if (((uintptr_t)a->t[1] & 7) || ((uintptr_t)a->t[2] & 15)) return -1;
    return lgw;
}

static void launch_halo(cudaStream_t st, const mgpu_nn_args *a, const ig_dims &d, int lgw)
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
static int halo_wgrad_parts(const ig_dims &d, int *chunk)
{
    size_t ch, parts = mgpu_nn_conv_halo_wgrad_parts(d.N, d.C, d.H, d.W, d.K, &ch); /* nn_ops.h */
    *chunk = (int)ch;
    return (int)parts;
}

/* The halo weight grad's conditions (above), or -1; its log2 W when met. */
static int halo_wgrad_lgw(const mgpu_nn_args *a, const ig_dims &d, bool ptrs = true)
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

static void launch_halo_wgrad(cudaStream_t st, const mgpu_nn_args *a, const ig_dims &d, int lgw, void *ws)
{
    int chunk, parts = halo_wgrad_parts(d, &chunk);
    dim3 grid((unsigned)(d.C / HW_BC), (unsigned)(d.K / HL_BM), (unsigned)parts);
    const uint16_t *x = (const uint16_t *)a->t[0], *dy = (const uint16_t *)a->t[1];
    if (lgw == 4) launch_halo_wgrad_w<4>(st, grid, x, dy, (float *)ws, d, chunk);
    else launch_halo_wgrad_w<5>(st, grid, x, dy, (float *)ws, d, chunk);
    k_halo_wgrad_combine<<<nn_blocks((size_t)d.K * d.C * 9), NN_THREADS, 0, st>>>((const float *)ws, (uint16_t *)a->t[2], d.K, d.C,
                                                                                   parts);
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
