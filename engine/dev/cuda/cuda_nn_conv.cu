/* cuda_nn_conv.cu - conv2d's data movement on the cuda backend: im2col,
 * col2im and the dim swap (SWAP12) that conv2d's backward uses to turn dy
 * [N, K, PQ] into [K, N*PQ]. Each block works on one "plane" (an image's
 * column row, or an image channel) so the plane's coordinates are worked
 * out once per thread, and only p, q (or h, w) per element, by a multiply
 * and shift (nn_div) rather than the 64-bit divide; 32-bit indices unless
 * a tensor passes 2^31 elements. Element types are templated, so no dtype
 * branch runs per element. */
#include "dev/cuda/cuda_nn.h"

/* Elements per thread in a plane: enough to amortise the plane's own index
 * math, few enough to keep a 32x32 plane in one block. */
#define PLANE_EPT 4

struct conv_dims {
    size_t N, C, H, W, R, P, Q;
    int stride, pad, by_row;
};

static conv_dims dims_of(const mgpu_nn_args *a)
{
    return conv_dims{a->n[0], a->n[1], a->n[2], a->n[3], a->n[4], a->n[5], a->n[6],
                     a->i[0], a->i[1], a->i[2] == MGPU_NN_COL_BY_ROW};
}

/* Where plane (n, row) of the column matrix starts, in elements. */
template <typename I> __device__ __forceinline__ I col_plane(const conv_dims &d, I n, I row)
{
    I crr = (I)(d.C * d.R * d.R), pq = (I)(d.P * d.Q);
    return (d.by_row ? row * (I)d.N + n : n * crr + row) * pq;
}

/* grid.x walks the column matrix's planes in memory order, grid.y splits a
 * plane longer than a block's share; threads walk p*Q + q. */
template <typename T, typename I>
__global__ void k_im2col(const T *__restrict__ x, T *__restrict__ col, conv_dims d, nn_div<I> by_q, nn_div<I> by_crr,
                         nn_div<I> by_n, nn_div<I> by_rr, nn_div<I> by_r)
{
    I plane = (I)blockIdx.x, n, row;
    if (d.by_row) {
        row = by_n.div(plane);
        n = plane - row * (I)d.N;
    } else {
        n = by_crr.div(plane);
        row = plane - n * (I)(d.C * d.R * d.R);
    }
    I c = by_rr.div(row), rs = row - c * (I)(d.R * d.R), r = by_r.div(rs), s = rs - r * (I)d.R;
    const T *xc = x + (n * (I)d.C + c) * (I)(d.H * d.W);
    T *out = col + col_plane(d, n, row);
    I pq = (I)(d.P * d.Q);
    for (I e = blockIdx.y * blockDim.x + threadIdx.x; e < pq; e += gridDim.y * blockDim.x) {
        I p = by_q.div(e), q = e - p * (I)d.Q;
        long h = (long)p * d.stride - d.pad + (long)r, w = (long)q * d.stride - d.pad + (long)s;
        bool inside = h >= 0 && w >= 0 && h < (long)d.H && w < (long)d.W;
        out[e] = inside ? xc[(I)h * (I)d.W + (I)w] : from_f<T>(0.f);
    }
}

/* The adjoint as a gather (no atomics): each x element sums, in (r, s)
 * order as the sim does, the columns that read it; only the taps with
 * p = (h + pad - r) / stride exact are visited. grid.x: image channels. */
template <typename T, typename I>
__global__ void k_col2im(T *__restrict__ x, const T *__restrict__ col, conv_dims d, nn_div<I> by_w, nn_div<I> by_c,
                         nn_div<I> by_stride)
{
    I plane = (I)blockIdx.x, n = by_c.div(plane), c = plane - n * (I)d.C, hw = (I)(d.H * d.W);
    T *xc = x + plane * hw;
    I R = (I)d.R, st = (I)d.stride;
    for (I e = blockIdx.y * blockDim.x + threadIdx.x; e < hw; e += gridDim.y * blockDim.x) {
        I h = by_w.div(e), w = e - h * (I)d.W;
        I hp = h + (I)d.pad, wp = w + (I)d.pad;
        I ph0 = by_stride.div(hp), r0 = hp - ph0 * st, qw0 = by_stride.div(wp), s0 = wp - qw0 * st;
        float sum = 0;
        /* r = r0 + k*stride reads p = ph0 - k, while r < R and p >= 0 */
        for (I r = r0, p = ph0; r < R; r += st, p--) {
            if (p >= (I)d.P) continue;
            for (I s = s0, q = qw0; s < R; s += st, q--) {
                if (q < (I)d.Q) sum += to_f(col[col_plane(d, n, (c * R + r) * R + s) + p * (I)d.Q + q]);
                if (q == 0) break;
            }
            if (p == 0) break;
        }
        xc[e] = from_f<T>(sum);
    }
}

/* y [A, C, B, D] = x [A, B, C, D], K elements a thread (K = a pack when D
 * allows): one y row of D at a time, its source row found by division once
 * per K elements. */
template <typename T, typename I, int K>
__global__ void k_swap12(const T *__restrict__ x, T *__restrict__ y, I total, I B, I C, nn_div<I> by_d, nn_div<I> by_b,
                         nn_div<I> by_c)
{
    for (I v = (I)(blockIdx.x * blockDim.x + threadIdx.x); v < total / K; v += (I)(gridDim.x * blockDim.x)) {
        I i = v * K, row = by_d.div(i), dd = i - row * by_d.d; /* row of y: (a, c, b) */
        I rest = by_b.div(row), b = row - rest * B, a = by_c.div(rest), c = rest - a * C;
        I src = ((a * B + b) * C + c) * by_d.d + dd;
        if constexpr (K == 1) {
            y[i] = x[src];
        } else {
            *reinterpret_cast<nn_pack<T> *>(y + i) = *reinterpret_cast<const nn_pack<T> *>(x + src);
        }
    }
}

/* Threads a block for planes of `len` elements: a warp multiple, up to
 * NN_THREADS; and how many blocks split one plane. */
static void plane_grid(size_t planes, size_t len, dim3 *grid, unsigned *threads)
{
    size_t t = (len + 31) / 32 * 32;
    if (t > NN_THREADS) t = NN_THREADS;
    size_t per_block = t * PLANE_EPT, y = (len + per_block - 1) / per_block;
    *threads = (unsigned)t;
    *grid = dim3((unsigned)planes, (unsigned)(y < 1 ? 1 : y > 65535 ? 65535 : y), 1);
}

template <typename T, typename I> static void launch_conv(cudaStream_t st, const mgpu_nn_args *a)
{
    conv_dims d = dims_of(a);
    size_t crr = d.C * d.R * d.R;
    dim3 grid;
    unsigned threads;
    if (a->op == MGPU_NNK_IM2COL) {
        plane_grid(d.N * crr, d.P * d.Q, &grid, &threads);
        k_im2col<T, I><<<grid, threads, 0, st>>>((const T *)a->t[0], (T *)a->t[1], d, nn_div<I>(d.Q), nn_div<I>(crr),
                                                 nn_div<I>(d.N), nn_div<I>(d.R * d.R), nn_div<I>(d.R));
    } else {
        plane_grid(d.N * d.C, d.H * d.W, &grid, &threads);
        k_col2im<T, I><<<grid, threads, 0, st>>>((T *)a->t[0], (const T *)a->t[1], d, nn_div<I>(d.W), nn_div<I>(d.C),
                                                 nn_div<I>((size_t)d.stride));
    }
}

template <typename T, typename I> static void launch_swap(cudaStream_t st, const mgpu_nn_args *a)
{
    size_t A = a->n[0], B = a->n[1], C = a->n[2], D = a->n[3], total = A * B * C * D;
    constexpr int P = pack_of<T>();
    bool vec = D % P == 0 && nn_aligned16(a->t[0]) && nn_aligned16(a->t[1]);
    nn_div<I> by_d(D), by_b(B), by_c(C);
    if (vec)
        k_swap12<T, I, P><<<nn_blocks(total / P), NN_THREADS, 0, st>>>((const T *)a->t[0], (T *)a->t[1], (I)total,
                                                                          (I)B, (I)C, by_d, by_b, by_c);
    else
        k_swap12<T, I, 1><<<nn_blocks(total), NN_THREADS, 0, st>>>((const T *)a->t[0], (T *)a->t[1], (I)total, (I)B,
                                                                      (I)C, by_d, by_b, by_c);
}

template <typename T> static void launch_t(cudaStream_t st, const mgpu_nn_args *a, bool small)
{
    if (a->op == MGPU_NNK_SWAP12) {
        if (small) launch_swap<T, uint32_t>(st, a);
        else launch_swap<T, size_t>(st, a);
    } else {
        if (small) launch_conv<T, uint32_t>(st, a);
        else launch_conv<T, size_t>(st, a);
    }
}

cudaError_t cuda_nn_conv(cudaStream_t st, const mgpu_nn_args *a)
{
    size_t biggest;
    if (a->op == MGPU_NNK_SWAP12) {
        biggest = a->n[0] * a->n[1] * a->n[2] * a->n[3];
    } else {
        size_t img = a->n[0] * a->n[1] * a->n[2] * a->n[3];
        size_t col = a->n[0] * a->n[1] * a->n[4] * a->n[4] * a->n[5] * a->n[6];
        /* h and w are computed past the image by up to pad + R: keep headroom */
        biggest = (img > col ? img : col) + 2 * (a->n[2] + a->n[3] + a->n[4]) + 2 * (size_t)a->i[1] + 64;
    }
    bool small = nn_fits32(biggest);
    if (a->dtype == MGPU_BF16) launch_t<uint16_t>(st, a, small);
    else launch_t<float>(st, a, small);
    return cudaGetLastError();
}
