/* cuda_nn_norm_back.cu - the LayerNorm/RMSNorm backward in one pass over x
 * and dy, for the rows mgpu_nn_norm_back_one_pass (nn_ops.h) takes: 129 to
 * 512 16-byte packs, at most 4096 columns (1032-4096 bf16, 516-4096 f32).
 * Other rows take cuda_nn_reduce.cu's row kernel and column sums, which
 * read x and dy twice. */
#include "dev/cuda/cuda_nn.h"

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

/* dx and dgamma/dbeta from one read of x and dy (3 tensors' bytes, not the
 * 5 of the row kernel plus the column sums). A block of G threads takes a
 * row at a time (each thread NP 16-byte packs of it, held raw: a bf16 pack
 * is 4 registers, converted when used), and walks a chunk of rc rows in
 * order, adding each row's dy * xhat and dy into per-thread column sums for
 * its packs; at the chunk's end they go out as the chunk's partials, which
 * a second kernel adds in chunk order. The next row's packs are loaded
 * before this row's sums (software-pipelined), so a block's loads stay in
 * flight across its row sum. Chunks depend on the shape alone
 * (mgpu_nn_norm_back_chunks), so the bits are the same on every GPU and
 * every run. */

/* Tuning knobs (-D in a timing harness). NB_PREFETCH loads the next row
 * while this one sums (an H100, 16384 x 4096 bf16 rmsnorm: 0.152 ms with,
 * 0.179 without). NB_ACC_SHARED 0 keeps both column sums in registers, 1
 * both in shared memory, 2 the dbeta sums only: layernorm's 8 more
 * registers of bf16 spilled at 64 a thread and took it to 0.301 ms (0.197
 * with both sums shared and a smaller spill); 2 is chosen from ptxas's
 * count (64 registers, no spill), its time not yet measured. NB_OPAQUE
 * makes the second pass convert the raw packs again. */
#ifndef NB_PREFETCH
#define NB_PREFETCH 1
#endif
#ifndef NB_ACC_SHARED
#define NB_ACC_SHARED 2
#endif
#ifndef NB_OPAQUE
#define NB_OPAQUE 1
#endif
#ifndef NB_MINB /* blocks a SM the registers are capped for */
#define NB_MINB 2
#endif

/* Rows a chunk (the last may have fewer): ceil_div(rows, this) is
 * mgpu_nn_norm_back_chunks(rows), the chunks the scratch holds. */
static size_t nb_rows_per_chunk(size_t rows) { return rows ? ceil_div(rows, MGPU_NN_NORM_BACK_CHUNKS) : 1; }

/* Hide a pack's value from the compiler, so the second pass over a row
 * converts the raw pack again rather than keep the first pass's floats
 * alive across the row sum (twice the registers: spills, or fewer blocks). */
template <typename T> __device__ __forceinline__ void nb_opaque(nn_pack<T> &p)
{
    uint4 u;
    memcpy(&u, &p, 16);
    asm volatile("" : "+r"(u.x), "+r"(u.y), "+r"(u.z), "+r"(u.w));
    memcpy(&p, &u, 16);
}

/* part[c*cols + j]: chunk c's sum of dy * xhat over its rows, column j;
 * part[(chunks + c)*cols + j]: its sum of dy (layernorm only). Thread t
 * holds packs t, t + G, ... of a row (has[q]: pack q is inside it). */
template <typename T, int G, int NP, bool LN>
__global__ void __launch_bounds__(G, NB_MINB)
    k_norm_back_1pass(mgpu_nn_args a, size_t rc, float *__restrict__ part)
{
    constexpr int K = pack_of<T>(), W = G / 32;
    /* NB_ACC_SHARED 1: both column sums in shared memory, 2: the dbeta sums only */
    constexpr bool FIT = 2 * NP * K * G * 4 + NP * G * 16 <= 44 * 1024;
    constexpr bool SHG = NB_ACC_SHARED == 1 && FIT, SHB = NB_ACC_SHARED >= 1 && LN && FIT;
    typedef nn_pack<T> pk;
    __shared__ float sh[2][W][2];
    __shared__ float accg[SHG ? NP * K : 1][SHG ? G : 1], accb[SHB ? NP * K : 1][SHB ? G : 1];
    size_t rows = a.n[0], cols = a.n[1], packs = cols / K;
    size_t r0 = blockIdx.x * rc, r1 = r0 + rc < rows ? r0 + rc : rows;
    int t = threadIdx.x;
    /* Pack indices fit 32 bits (mgpu_nn_norm_back_one_pass checks), and
     * the tensors' addresses stay kernel parameters: no 64-bit pointers
     * held a thread. at: this thread's first pack of the row; a row on is
     * step packs on. */
    const pk *xp = reinterpret_cast<const pk *>(a.t[0]), *dp = reinterpret_cast<const pk *>(a.t[4]);
    pk *op = reinterpret_cast<pk *>(a.t[5]);
    uint32_t at = (uint32_t)(r0 * packs) + t, step = (uint32_t)packs;
    const float *mp = LN ? (const float *)a.t[2] + r0 : NULL, *rp = (const float *)a.t[3] + r0; /* uniform */
    bool has[NP];
    pk cx[NP], cd[NP];
    __shared__ pk gm[NP][G]; /* gamma's packs, read at every row: shared, not registers */
    float ag[NP][K], ab[NP][K], cm = 0, cr = 0;
#pragma unroll
    for (int q = 0; q < NP; q++) {
        has[q] = (size_t)(t + q * G) < packs;
        if (has[q]) gm[q][t] = reinterpret_cast<const pk *>(a.t[1])[t + q * G];
#pragma unroll
        for (int e = 0; e < K; e++) {
            ag[q][e] = ab[q][e] = 0;
            if (SHG) accg[q * K + e][t] = 0;
            if (SHB) accb[q * K + e][t] = 0;
        }
    }
    int n = (int)(r1 > r0 ? r1 - r0 : 0);
    if (n > 0) {
#pragma unroll
        for (int q = 0; q < NP; q++)
            if (has[q]) cx[q] = xp[at + q * G], cd[q] = dp[at + q * G];
        cm = LN ? mp[0] : 0.f;
        cr = rp[0];
    }
#pragma unroll 1
    for (int i = 0; i < n; i++) {
        pk nx[NP], nd[NP];
        float nm = 0, nr = 0;
        if (NB_PREFETCH && i + 1 < n) { /* the next row's loads fly while this row sums */
#pragma unroll
            for (int q = 0; q < NP; q++)
                if (has[q]) nx[q] = xp[at + step + q * G], nd[q] = dp[at + step + q * G];
            nm = LN ? mp[i + 1] : 0.f;
            nr = rp[i + 1];
        }
        float s1 = 0, s2 = 0;
#pragma unroll
        for (int q = 0; q < NP; q++)
            if (has[q]) {
                float xv[K], dv[K], gv[K];
                unpack(cx[q], xv);
                unpack(cd[q], dv);
                unpack(gm[q][t], gv);
#pragma unroll
                for (int e = 0; e < K; e++) {
                    float xh = (xv[e] - cm) * cr, gdy = dv[e] * gv[e];
                    s1 += gdy;
                    s2 += gdy * xh;
                    if (SHG) accg[q * K + e][t] += dv[e] * xh;
                    else ag[q][e] += dv[e] * xh;
                    if (SHB) accb[q * K + e][t] += dv[e];
                    else if (LN) ab[q][e] += dv[e];
                }
            }
        /* The row's two sums: a butterfly in each warp, then the warps in
         * order. Two buffers by row parity: a warp can reach row i+2's
         * write only after every warp passed row i+1's barrier, so after
         * row i's reads. */
#pragma unroll
        for (int m = 16; m > 0; m >>= 1) {
            s1 += __shfl_xor_sync(0xffffffffu, s1, m);
            s2 += __shfl_xor_sync(0xffffffffu, s2, m);
        }
        if ((t & 31) == 0) {
            sh[i & 1][t >> 5][0] = s1;
            sh[i & 1][t >> 5][1] = s2;
        }
        __syncthreads();
        s1 = s2 = 0;
#pragma unroll
        for (int w = 0; w < W; w++) {
            s1 += sh[i & 1][w][0];
            s2 += sh[i & 1][w][1];
        }
        float m1 = LN ? s1 / (float)cols : 0, m2 = s2 / (float)cols;
#pragma unroll
        for (int q = 0; q < NP; q++)
            if (has[q]) {
                if (NB_OPAQUE) nb_opaque(cx[q]), nb_opaque(cd[q]);
                float xv[K], dv[K], gv[K];
                unpack(cx[q], xv);
                unpack(cd[q], dv);
                unpack(gm[q][t], gv);
#pragma unroll
                for (int e = 0; e < K; e++) xv[e] = cr * (dv[e] * gv[e] - m1 - (xv[e] - cm) * cr * m2);
                store_k<K>(reinterpret_cast<T *>(op + at + q * G), 0, xv);
            }
        if (NB_PREFETCH) {
#pragma unroll
            for (int q = 0; q < NP; q++) cx[q] = nx[q], cd[q] = nd[q];
            cm = nm, cr = nr;
        } else if (i + 1 < n) {
#pragma unroll
            for (int q = 0; q < NP; q++)
                if (has[q]) cx[q] = xp[at + step + q * G], cd[q] = dp[at + step + q * G];
            cm = LN ? mp[i + 1] : 0.f;
            cr = rp[i + 1];
        }
        at += step;
    }
#pragma unroll
    for (int q = 0; q < NP; q++)
        if (has[q]) {
            size_t j = (size_t)(t + q * G) * K;
#pragma unroll
            for (int e = 0; e < K; e++) {
                if (SHG) ag[q][e] = accg[q * K + e][t];
                if (SHB) ab[q][e] = accb[q * K + e][t];
            }
            store_k<K>(part, blockIdx.x * cols + j, ag[q]);
            if (LN) store_k<K>(part, (gridDim.x + blockIdx.x) * cols + j, ab[q]);
        }
}

/* dgamma (blockIdx.y 0) and dbeta (1) from the chunks' partials: thread
 * (x, y) sums column x's chunks y, y + 32, ... in order, then a fixed tree
 * over y. */
template <typename T>
__global__ void __launch_bounds__(1024) k_norm_back_combine(const float *__restrict__ part, size_t cols, size_t chunks,
                                                            T *dgamma, T *dbeta)
{
    __shared__ float sh[32][33];
    size_t c = blockIdx.x * (size_t)32 + threadIdx.x;
    const float *p = part + (blockIdx.y ? chunks * cols : 0);
    float s = 0;
    if (c < cols)
        for (size_t k = threadIdx.y; k < chunks; k += 32) s += p[k * cols + c];
    sh[threadIdx.y][threadIdx.x] = s;
    __syncthreads();
    for (unsigned h = 16; h > 0; h >>= 1) {
        if (threadIdx.y < h) sh[threadIdx.y][threadIdx.x] += sh[threadIdx.y + h][threadIdx.x];
        __syncthreads();
    }
    T *out = blockIdx.y ? dbeta : dgamma;
    if (threadIdx.y == 0 && c < cols && out) out[c] = from_f<T>(sh[0][threadIdx.x]);
}

size_t cuda_nn_norm_back_scratch(const mgpu_nn_args *a)
{
    if (!mgpu_nn_norm_back_one_pass(a->n[0], a->n[1], mgpu_dtype_size(a->dtype))) return 0;
    return 2 * mgpu_nn_norm_back_chunks(a->n[0]) * a->n[1] * sizeof(float);
}

template <typename T> static bool norm_back_1pass_t(cudaStream_t st, const mgpu_nn_args *a, float *ws)
{
    constexpr int P = pack_of<T>();
    if (!mgpu_nn_norm_back_one_pass(a->n[0], a->n[1], sizeof(T)) || !ws) return false;
    for (int j : {0, 1, 4, 5}) /* the packed tensors */
        if (!nn_aligned16(a->t[j])) return false;
    size_t rows = a->n[0], cols = a->n[1], packs = cols / P, rc = nb_rows_per_chunk(rows);
    unsigned chunks = (unsigned)ceil_div(rows, rc);
    /* 256 threads a row up to 256 packs, else 512 with 1 or 2 packs each */
    bool ln = a->i[0];
    if (packs <= 256) ln ? k_norm_back_1pass<T, 256, 1, true><<<chunks, 256, 0, st>>>(*a, rc, ws)
                         : k_norm_back_1pass<T, 256, 1, false><<<chunks, 256, 0, st>>>(*a, rc, ws);
    else if (packs <= 512) ln ? k_norm_back_1pass<T, 512, 1, true><<<chunks, 512, 0, st>>>(*a, rc, ws)
                              : k_norm_back_1pass<T, 512, 1, false><<<chunks, 512, 0, st>>>(*a, rc, ws);
    else if constexpr (P == 4) /* f32 only: 4096 bf16 are 512 packs */
        ln ? k_norm_back_1pass<T, 512, 2, true><<<chunks, 512, 0, st>>>(*a, rc, ws)
           : k_norm_back_1pass<T, 512, 2, false><<<chunks, 512, 0, st>>>(*a, rc, ws);
    dim3 grid((unsigned)ceil_div(cols, 32), a->i[0] ? 2 : 1), block(32, 32);
    k_norm_back_combine<T><<<grid, block, 0, st>>>(ws, cols, chunks, (T *)a->t[6], (T *)a->t[7]);
    return true;
}

bool cuda_nn_norm_back_1pass(cudaStream_t st, const mgpu_nn_args *a, float *ws)
{
    return a->dtype == MGPU_BF16 ? norm_back_1pass_t<uint16_t>(st, a, ws) : norm_back_1pass_t<float>(st, a, ws);
}
