/* cuda_nn_reduce.cu - the cuda backend's reducing training ops: batch norm,
 * column sums (bias gradient, the norms' dgamma/dbeta), the sum of squares,
 * the row ops (softmax, LayerNorm/RMSNorm, avgpool) and cross-entropy.
 *
 * A reduction over more values than one block should take runs in two
 * stages: many blocks each sum a fixed chunk (the chunks depend only on the
 * shapes) into a scratch buffer, then one pass combines the partials in a
 * fixed order. No atomics anywhere, so the same inputs give the same bits
 * on every run. The scratch comes from the caller (cuda_nn.cu allocates
 * cuda_nn_scratch_bytes on the stream). Element types are templated, and
 * each thread loads a 16-byte pack when the shapes and pointers allow. */
#include <math.h>
#include "dev/cuda/cuda_nn.h"

/* Values per first-stage block of batch norm and sumsq (a multiple of every pack). */
#define CHUNK 4096
/* Rows per first-stage block of the column sums (at least; more when
 * there are more than 65535 chunks). */
#define COL_ROWS 64
#define SUMSQ_BLOCKS 1024

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

/*--- Batch norm --------------------------------------------------------------------*/

/* x [N, C, HW]: channel c's value k (k < N*HW) sits at ((k/HW)*C + c)*HW + k%HW. */
struct bn_dims {
    size_t N, C, HW, cnt, J; /* J chunks of CHUNK values per channel */
};

static bn_dims bn_of(const mgpu_nn_args *a)
{
    bn_dims d = {a->n[0], a->n[1], a->n[2], a->n[0] * a->n[2], 0};
    d.J = ceil_div(d.cnt, CHUNK);
    return d;
}

template <typename I> __device__ __forceinline__ I bn_at(const bn_dims &d, const nn_div<I> &by_hw, I c, I k)
{
    I n = by_hw.div(k);
    return (n * (I)d.C + c) * (I)d.HW + (k - n * (I)d.HW);
}

/* Stage 1. Forward: each chunk's mean and sum of squared deviations from it
 * (two passes over the chunk, the second from cache), combined by Chan's
 * formula in stage 2. Backward: each chunk's sum dy and sum dy*xhat.
 * part[(c*J + j)*2 + 0/1]. Block b = c*J + j. */
template <typename T, typename I, int K>
__global__ void k_bn_partial(const T *__restrict__ x, const T *__restrict__ dy, const float *__restrict__ mean,
                             const float *__restrict__ invstd, float *__restrict__ part, bn_dims d, nn_div<I> by_hw)
{
    I c = (I)(blockIdx.x / d.J), j = (I)(blockIdx.x - (size_t)c * d.J);
    I k0 = j * (I)CHUNK, k1 = k0 + (I)CHUNK < (I)d.cnt ? k0 + (I)CHUNK : (I)d.cnt;
    float s1 = 0, s2 = 0;
    if (!dy) {
        for (I k = k0 + threadIdx.x * K; k < k1; k += blockDim.x * K) {
            float v[K];
            load_k<K>(x, bn_at(d, by_hw, c, k), v);
#pragma unroll
            for (int e = 0; e < K; e++) s1 += v[e];
        }
        float m = nn_block_sum(s1) / (float)(k1 - k0);
        for (I k = k0 + threadIdx.x * K; k < k1; k += blockDim.x * K) {
            float v[K];
            load_k<K>(x, bn_at(d, by_hw, c, k), v);
#pragma unroll
            for (int e = 0; e < K; e++) s2 += (v[e] - m) * (v[e] - m);
        }
        s2 = nn_block_sum(s2);
        s1 = m;
    } else {
        float mu = mean[c], inv = invstd[c];
        for (I k = k0 + threadIdx.x * K; k < k1; k += blockDim.x * K) {
            I at = bn_at(d, by_hw, c, k);
            float v[K], g[K];
            load_k<K>(x, at, v);
            load_k<K>(dy, at, g);
#pragma unroll
            for (int e = 0; e < K; e++) {
                s1 += g[e];
                s2 += g[e] * (v[e] - mu) * inv;
            }
        }
        s1 = nn_block_sum(s1);
        s2 = nn_block_sum(s2);
    }
    if (threadIdx.x == 0) {
        part[blockIdx.x * (size_t)2] = s1;
        part[blockIdx.x * (size_t)2 + 1] = s2;
    }
}

/* Stage 2, one thread per channel, chunks in order, in double. Forward:
 * the statistics, saves and running averages. Backward: dgamma, dbeta, and
 * their f32 values in tot[c*2] for stage 3. */
template <typename T>
__global__ void k_bn_combine(const float *__restrict__ part, bn_dims d, int backward, float *save_mean,
                             float *save_invstd, float *run_mean, float *run_var, float momentum, float eps,
                             T *dgamma, T *dbeta, float *tot)
{
    size_t c = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (c >= d.C) return;
    const float *p = part + c * d.J * 2;
    if (backward) {
        double sdy = 0, sdyx = 0;
        for (size_t j = 0; j < d.J; j++) sdy += p[2 * j], sdyx += p[2 * j + 1];
        dgamma[c] = from_f<T>((float)sdyx);
        dbeta[c] = from_f<T>((float)sdy);
        tot[2 * c] = (float)sdy;
        tot[2 * c + 1] = (float)sdyx;
        return;
    }
    double n = 0, mean = 0, m2 = 0;
    for (size_t j = 0; j < d.J; j++) {
        double nb = (double)((j + 1) * CHUNK < d.cnt ? CHUNK : d.cnt - j * CHUNK), delta = p[2 * j] - mean;
        double nt = n + nb;
        mean += delta * nb / nt;
        m2 += p[2 * j + 1] + delta * delta * n * nb / nt;
        n = nt;
    }
    float fm = (float)mean, inv = (float)(1 / sqrt(m2 / (double)d.cnt + eps));
    save_mean[c] = fm;
    save_invstd[c] = inv;
    run_mean[c] = (1 - momentum) * run_mean[c] + momentum * fm;
    run_var[c] = (1 - momentum) * run_var[c] + momentum * (float)(m2 / (double)(d.cnt - 1));
}

/* Stage 3 over every element: y = (x - mean) * invstd * gamma + beta, or
 * dx = gamma * invstd * (dy - sdy/cnt - xhat * sdyx/cnt). eval: mean and
 * var are the running ones. A pack stays in one row (HW % K == 0). */
template <typename T, typename I, int K>
__global__ void k_bn_apply(const T *__restrict__ x, const T *__restrict__ gamma, const T *__restrict__ beta,
                           const float *__restrict__ mean, const float *__restrict__ var_or_invstd, int eval,
                           float eps, const T *__restrict__ dy, const float *__restrict__ tot, T *__restrict__ y,
                           bn_dims d, nn_div<I> by_hw, nn_div<I> by_c)
{
    I total = (I)(d.cnt * d.C);
    for (I v = (I)(blockIdx.x * blockDim.x + threadIdx.x); v < total / K; v += (I)(gridDim.x * blockDim.x)) {
        I i = v * K, row = by_hw.div(i), c = row - by_c.div(row) * (I)d.C;
        float mu = mean[c], inv = eval ? rsqrtf(var_or_invstd[c] + eps) : var_or_invstd[c], g = to_f(gamma[c]);
        float xv[K], out[K];
        load_k<K>(x, i, xv);
        if (!dy) {
            float b = to_f(beta[c]);
#pragma unroll
            for (int e = 0; e < K; e++) out[e] = (xv[e] - mu) * inv * g + b;
        } else {
            float gv[K], cnt = (float)d.cnt, sdy = tot[2 * c], sdyx = tot[2 * c + 1];
            load_k<K>(dy, i, gv);
#pragma unroll
            for (int e = 0; e < K; e++) {
                float xh = (xv[e] - mu) * inv;
                out[e] = g * inv * (gv[e] - sdy / cnt - xh * sdyx / cnt);
            }
        }
        store_k<K>(y, i, out);
    }
}

static size_t bn_scratch(const mgpu_nn_args *a)
{
    bn_dims d = bn_of(a);
    if (a->op == MGPU_NNK_BATCHNORM && !a->i[0]) return 0;
    return (d.C * d.J * 2 + d.C * 2) * sizeof(float);
}

template <typename T, typename I, int K> static void bn_launch(cudaStream_t st, const mgpu_nn_args *a, float *ws, int sms)
{
    bn_dims d = bn_of(a);
    nn_div<I> by_hw(d.HW), by_c(d.C);
    const T *x = (const T *)a->t[0];
    bool back = a->op == MGPU_NNK_BATCHNORM_BACKWARD, train = back || a->i[0];
    float *part = ws, *tot = ws ? ws + d.C * d.J * 2 : NULL;
    unsigned cb = (unsigned)ceil_div(d.C, NN_THREADS), apply = nn_blocks(d.cnt * d.C / K);
    unsigned cap = (unsigned)(sms > 0 ? sms * 16 : 2048);
    if (apply > cap) apply = cap;
    if (!back) {
        if (train) {
            k_bn_partial<T, I, K><<<(unsigned)(d.C * d.J), NN_THREADS, 0, st>>>(x, NULL, NULL, NULL, part, d, by_hw);
            k_bn_combine<T><<<cb, NN_THREADS, 0, st>>>(part, d, 0, (float *)a->t[5], (float *)a->t[6],
                                                       (float *)a->t[3], (float *)a->t[4], a->f[0], a->f[1], NULL,
                                                       NULL, NULL);
        }
        const float *mean = (const float *)(train ? a->t[5] : a->t[3]), *v = (const float *)(train ? a->t[6] : a->t[4]);
        k_bn_apply<T, I, K><<<apply, NN_THREADS, 0, st>>>(x, (const T *)a->t[1], (const T *)a->t[2], mean, v, !train,
                                                           a->f[1], NULL, NULL, (T *)a->t[7], d, by_hw, by_c);
        return;
    }
    const float *mean = (const float *)a->t[2], *inv = (const float *)a->t[3];
    k_bn_partial<T, I, K><<<(unsigned)(d.C * d.J), NN_THREADS, 0, st>>>(x, (const T *)a->t[4], mean, inv, part, d,
                                                                         by_hw);
    k_bn_combine<T><<<cb, NN_THREADS, 0, st>>>(part, d, 1, NULL, NULL, NULL, NULL, 0, 0, (T *)a->t[6], (T *)a->t[7],
                                               tot);
    k_bn_apply<T, I, K><<<apply, NN_THREADS, 0, st>>>(x, (const T *)a->t[1], NULL, mean, inv, 0, 0,
                                                       (const T *)a->t[4], tot, (T *)a->t[5], d, by_hw, by_c);
}

template <typename T, typename I> static void bn_t(cudaStream_t st, const mgpu_nn_args *a, float *ws, int sms)
{
    constexpr int P = pack_of<T>();
    bool vec = a->n[2] % P == 0;
    for (int j = 0; j < 8; j++)
        if (a->t[j] && (j == 0 || j == 4 || j == 5 || j == 7) && !nn_aligned16(a->t[j])) vec = false;
    if (a->op == MGPU_NNK_BATCHNORM && !nn_aligned16(a->t[7])) vec = false;
    if (vec) bn_launch<T, I, P>(st, a, ws, sms);
    else bn_launch<T, I, 1>(st, a, ws, sms);
}

/*--- Column sums: bias gradient, the norms' dgamma and dbeta --------------------*/

static size_t col_rows(size_t rows)
{
    size_t rc = COL_ROWS, chunks = ceil_div(rows, rc);
    if (chunks > 65535) rc = ceil_div(rows, 65535);
    return rc;
}

/* Stage 1: block (32 threads of K columns each) x (8 row lanes) sums rows
 * [y*rc, (y+1)*rc) of its columns; a fixed tree over the 8 lanes.
 * BIAS_GRAD: part[y*cols + c] = sum dy. NORM_BACKWARD: also sum dy*xhat,
 * at part[(chunks + y)*cols + c]. K > 1 (a 16-byte pack of columns) when
 * cols is a multiple of it and the tensors are aligned. */
template <typename T, int K>
__global__ void k_col_partial(const T *__restrict__ dy, const T *__restrict__ x, const float *__restrict__ mean,
                              const float *__restrict__ rstd, size_t rows, size_t cols, size_t rc, int norm,
                              float *__restrict__ part)
{
    __shared__ float sh[2][8][32 * K + 1];
    size_t c = (blockIdx.x * (size_t)32 + threadIdx.x) * K, r0 = blockIdx.y * rc, r1 = r0 + rc < rows ? r0 + rc : rows;
    float s[K] = {}, sx[K] = {};
    if (c < cols)
        for (size_t r = r0 + threadIdx.y; r < r1; r += 8) {
            float g[K];
            load_k<K>(dy, r * cols + c, g);
            if (norm) {
                float v[K], m = mean ? mean[r] : 0.f, rs = rstd[r];
                load_k<K>(x, r * cols + c, v);
#pragma unroll
                for (int e = 0; e < K; e++) sx[e] += g[e] * (v[e] - m) * rs;
            }
#pragma unroll
            for (int e = 0; e < K; e++) s[e] += g[e];
        }
#pragma unroll
    for (int e = 0; e < K; e++) {
        sh[0][threadIdx.y][threadIdx.x * K + e] = s[e];
        sh[1][threadIdx.y][threadIdx.x * K + e] = sx[e];
    }
    __syncthreads();
    for (unsigned h = 4; h > 0; h >>= 1) {
        if (threadIdx.y < h)
#pragma unroll
            for (int e = 0; e < K; e++) {
                sh[0][threadIdx.y][threadIdx.x * K + e] += sh[0][threadIdx.y + h][threadIdx.x * K + e];
                sh[1][threadIdx.y][threadIdx.x * K + e] += sh[1][threadIdx.y + h][threadIdx.x * K + e];
            }
        __syncthreads();
    }
    if (threadIdx.y == 0 && c < cols)
#pragma unroll
        for (int e = 0; e < K; e++) {
            part[blockIdx.y * cols + c + e] = sh[0][0][threadIdx.x * K + e];
            if (norm) part[(gridDim.y + blockIdx.y) * cols + c + e] = sh[1][0][threadIdx.x * K + e];
        }
}

/* Stage 2: one thread per column, chunks in order, in double. */
template <typename T>
__global__ void k_col_combine(const float *__restrict__ part, size_t cols, size_t chunks, int norm, float beta,
                              T *out, T *dgamma, T *dbeta)
{
    size_t c = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (c >= cols) return;
    double s = 0, sx = 0;
    for (size_t y = 0; y < chunks; y++) {
        s += part[y * cols + c];
        if (norm) sx += part[(chunks + y) * cols + c];
    }
    if (!norm) {
        out[c] = from_f<T>(beta != 0 ? beta * to_f(out[c]) + (float)s : (float)s);
        return;
    }
    dgamma[c] = from_f<T>((float)sx);
    if (dbeta) dbeta[c] = from_f<T>((float)s);
}

static size_t col_scratch(const mgpu_nn_args *a)
{
    size_t chunks = ceil_div(a->n[0], col_rows(a->n[0]));
    return (chunks < 1 ? 1 : chunks) * a->n[1] * (a->op == MGPU_NNK_NORM_BACKWARD ? 2 : 1) * sizeof(float);
}

template <typename T> static void col_launch(cudaStream_t st, const mgpu_nn_args *a, float *ws)
{
    size_t rows = a->n[0], cols = a->n[1], rc = col_rows(rows), chunks = ceil_div(rows, rc);
    int norm = a->op == MGPU_NNK_NORM_BACKWARD;
    constexpr int P = pack_of<T>();
    const T *dy = (const T *)(norm ? a->t[4] : a->t[0]), *x = norm ? (const T *)a->t[0] : NULL;
    bool vec = cols % P == 0 && nn_aligned16(dy) && (!x || nn_aligned16(x));
    unsigned span = vec ? 32 * P : 32; /* columns per block */
    dim3 grid((unsigned)ceil_div(cols, span), (unsigned)(chunks < 1 ? 1 : chunks)), block(32, 8);
    if (rows == 0) chunks = 0;
    const float *mean = norm ? (const float *)a->t[2] : NULL, *rstd = norm ? (const float *)a->t[3] : NULL;
    if (vec) k_col_partial<T, P><<<grid, block, 0, st>>>(dy, x, mean, rstd, rows, cols, rc, norm, ws);
    else k_col_partial<T, 1><<<grid, block, 0, st>>>(dy, x, mean, rstd, rows, cols, rc, norm, ws);
    k_col_combine<T><<<(unsigned)ceil_div(cols, NN_THREADS), NN_THREADS, 0, st>>>(
        ws, cols, chunks, norm, a->f[0], norm ? NULL : (T *)a->t[1], norm ? (T *)a->t[6] : NULL,
        norm ? (T *)a->t[7] : NULL);
}

/* dtable[id_r, c] += dout[r, c] in token order: one thread per column. */
template <typename T>
__global__ void k_embedding_backward(const int32_t *ids, const T *dout, T *dtable, size_t rows, size_t cols,
                                     size_t vocab)
{
    for (size_t c = blockIdx.x * (size_t)blockDim.x + threadIdx.x; c < cols; c += (size_t)gridDim.x * blockDim.x)
        for (size_t r = 0; r < rows; r++) {
            int id = ids[r];
            if (id < 0 || (size_t)id >= vocab) continue;
            size_t k = (size_t)id * cols + c;
            dtable[k] = from_f<T>(to_f(dtable[k]) + to_f(dout[r * cols + c]));
        }
}

/*--- Sum of squares -----------------------------------------------------------------*/

/* Stage 1: block b sums x^2 over its fixed chunk into part[b]. */
template <typename T, int K>
__global__ void k_sumsq_partial(const T *__restrict__ x, size_t n, size_t chunk, float *__restrict__ part)
{
    size_t k0 = blockIdx.x * chunk, k1 = k0 + chunk < n ? k0 + chunk : n;
    float s = 0;
    for (size_t k = k0 + threadIdx.x * (size_t)K; k < k1; k += (size_t)blockDim.x * K) {
        float v[K];
        load_k<K>(x, k, v);
#pragma unroll
        for (int e = 0; e < K; e++) s += v[e] * v[e];
    }
    s = nn_block_sum(s);
    if (threadIdx.x == 0) part[blockIdx.x] = s;
}

/* Stage 2, one block: thread t sums partials t, t+256, ... then a tree. */
static __global__ void k_sumsq_combine(const float *__restrict__ part, unsigned blocks, int accumulate, float *acc)
{
    float s = 0;
    for (unsigned b = threadIdx.x; b < blocks; b += blockDim.x) s += part[b];
    s = nn_block_sum(s);
    if (threadIdx.x == 0) acc[0] = (accumulate ? acc[0] : 0) + s;
}

/* The chunk per block: a multiple of every pack, at least CHUNK. */
static size_t sumsq_chunk(size_t n)
{
    size_t c = ceil_div(n, SUMSQ_BLOCKS);
    c = ceil_div(c, 8) * 8;
    return c < CHUNK ? CHUNK : c;
}

template <typename T> static void sumsq_launch(cudaStream_t st, const mgpu_nn_args *a, float *ws)
{
    size_t n = a->n[0], chunk = sumsq_chunk(n);
    unsigned blocks = (unsigned)ceil_div(n, chunk);
    if (blocks < 1) blocks = 1;
    constexpr int P = pack_of<T>();
    if (nn_aligned16(a->t[0]) && n % P == 0) /* no pack past the end */
        k_sumsq_partial<T, P><<<blocks, NN_THREADS, 0, st>>>((const T *)a->t[0], n, chunk, ws);
    else
        k_sumsq_partial<T, 1><<<blocks, NN_THREADS, 0, st>>>((const T *)a->t[0], n, chunk, ws);
    k_sumsq_combine<<<1, NN_THREADS, 0, st>>>(ws, blocks, a->i[0], (float *)a->t[1]);
}

/*--- Row ops: one block per row ------------------------------------------------------*/

__device__ __forceinline__ float block_max(float v)
{
    __shared__ float sh[NN_THREADS];
    __syncthreads();
    sh[threadIdx.x] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sh[threadIdx.x] = fmaxf(sh[threadIdx.x], sh[threadIdx.x + s]);
        __syncthreads();
    }
    return sh[0];
}

/* Loop j over a row of `cols` in packs of K, v[] holding row[j..j+K). */
#define ROW_LOOP(j, cols) for (size_t j = threadIdx.x * (size_t)K; j < (cols); j += (size_t)blockDim.x * K)

template <typename T, int K> __global__ void k_rows(mgpu_nn_args a)
{
    const T *x = (const T *)a.t[0];
    size_t cols = a.n[1];
    for (size_t r = blockIdx.x; r < a.n[0]; r += gridDim.x) {
        size_t o = r * cols;
        switch (a.op) {
        case MGPU_NNK_SOFTMAX: { /* K is 1: the causal limit cuts packs */
            size_t lim = a.i[0] ? r % cols + 1 : cols;
            float sc = a.f[0], mx = -INFINITY, s = 0;
            for (size_t j = threadIdx.x; j < lim; j += blockDim.x) mx = fmaxf(mx, sc * to_f(x[o + j]));
            mx = block_max(mx);
            for (size_t j = threadIdx.x; j < lim; j += blockDim.x) s += expf(sc * to_f(x[o + j]) - mx);
            s = nn_block_sum(s);
            T *y = (T *)a.t[1];
            for (size_t j = threadIdx.x; j < cols; j += blockDim.x)
                y[o + j] = from_f<T>(j < lim ? expf(sc * to_f(x[o + j]) - mx) / s : 0.f);
            break;
        }
        case MGPU_NNK_SOFTMAX_BACKWARD: {
            const T *dp = (const T *)a.t[1];
            float dot = 0;
            ROW_LOOP(j, cols)
            {
                float p[K], d[K];
                load_k<K>(x, o + j, p);
                load_k<K>(dp, o + j, d);
#pragma unroll
                for (int e = 0; e < K; e++) dot += p[e] * d[e];
            }
            dot = nn_block_sum(dot);
            ROW_LOOP(j, cols)
            {
                float p[K], d[K];
                load_k<K>(x, o + j, p);
                load_k<K>(dp, o + j, d);
#pragma unroll
                for (int e = 0; e < K; e++) d[e] = a.f[0] * p[e] * (d[e] - dot);
                store_k<K>((T *)a.t[2], o + j, d);
            }
            break;
        }
        case MGPU_NNK_AVGPOOL: {
            float s = 0;
            ROW_LOOP(j, cols)
            {
                float v[K];
                load_k<K>(x, o + j, v);
#pragma unroll
                for (int e = 0; e < K; e++) s += v[e];
            }
            s = nn_block_sum(s);
            if (threadIdx.x == 0) ((T *)a.t[1])[r] = from_f<T>(s / (float)cols);
            break;
        }
        case MGPU_NNK_NORM: {
            int layer = a.i[0];
            const T *gamma = (const T *)a.t[1], *beta = (const T *)a.t[2];
            float s = 0, s2 = 0;
            if (layer) {
                ROW_LOOP(j, cols)
                {
                    float v[K];
                    load_k<K>(x, o + j, v);
#pragma unroll
                    for (int e = 0; e < K; e++) s += v[e];
                }
                s = nn_block_sum(s);
            }
            float mean = layer ? s / (float)cols : 0;
            ROW_LOOP(j, cols)
            {
                float v[K];
                load_k<K>(x, o + j, v);
#pragma unroll
                for (int e = 0; e < K; e++) s2 += (v[e] - mean) * (v[e] - mean);
            }
            s2 = nn_block_sum(s2);
            float rstd = rsqrtf(s2 / (float)cols + a.f[0]);
            if (threadIdx.x == 0) {
                if (layer) ((float *)a.t[4])[r] = mean;
                ((float *)a.t[5])[r] = rstd;
            }
            ROW_LOOP(j, cols)
            {
                float v[K], g[K], b[K];
                load_k<K>(x, o + j, v);
                load_k<K>(gamma, j, g);
                if (beta) load_k<K>(beta, j, b);
#pragma unroll
                for (int e = 0; e < K; e++) v[e] = (v[e] - mean) * rstd * g[e] + (beta ? b[e] : 0.f);
                store_k<K>((T *)a.t[3], o + j, v);
            }
            break;
        }
        case MGPU_NNK_NORM_BACKWARD: { /* dx; dgamma and dbeta are column sums */
            int layer = a.i[0];
            const T *gamma = (const T *)a.t[1], *dy = (const T *)a.t[4];
            float mean = layer ? ((const float *)a.t[2])[r] : 0, rstd = ((const float *)a.t[3])[r];
            float s1 = 0, s2 = 0;
            ROW_LOOP(j, cols)
            {
                float v[K], g[K], d[K];
                load_k<K>(x, o + j, v);
                load_k<K>(gamma, j, g);
                load_k<K>(dy, o + j, d);
#pragma unroll
                for (int e = 0; e < K; e++) {
                    float gdy = d[e] * g[e];
                    s1 += gdy;
                    s2 += gdy * (v[e] - mean) * rstd;
                }
            }
            s1 = nn_block_sum(s1);
            s2 = nn_block_sum(s2);
            ROW_LOOP(j, cols)
            {
                float v[K], g[K], d[K];
                load_k<K>(x, o + j, v);
                load_k<K>(gamma, j, g);
                load_k<K>(dy, o + j, d);
#pragma unroll
                for (int e = 0; e < K; e++) {
                    float xh = (v[e] - mean) * rstd, gdy = d[e] * g[e];
                    v[e] = rstd * (gdy - (layer ? s1 / (float)cols : 0) - xh * s2 / (float)cols);
                }
                store_k<K>((T *)a.t[5], o + j, v);
            }
            break;
        }
        default: break;
        }
    }
}

/*--- Row ops held in registers -----------------------------------------------------
 * The norms and the softmax (forward and backward) when a row fits in
 * registers: G threads take a row (a warp for narrow rows, the whole block
 * for wide ones), each thread up to NP 16-byte packs of it, so the row is
 * read from memory once and written once; the row's sums are warp shuffles
 * (a fixed butterfly, so every lane gets the same bits on every run) and,
 * for G = 256, a fixed-order sum over the block's 8 warps. The variance is
 * taken about the mean from the registers (two passes over registers, none
 * over memory), as exact as the memory version. The kernel above remains
 * for rows too wide for NP packs and for unaligned or unpackable shapes. */

#define ROW_MAX_NP 4

/* Sum over the G threads of a row (G 32 or NN_THREADS; every thread of the
 * row gets it). */
template <int G> __device__ __forceinline__ float row_sum(float v)
{
#pragma unroll
    for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
    if constexpr (G > 32) {
        __shared__ float sh[NN_THREADS / 32];
        __syncthreads(); /* the previous call's readers are done */
        if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
        __syncthreads();
        v = 0;
#pragma unroll
        for (int w = 0; w < G / 32; w++) v += sh[w];
    }
    return v;
}

template <int G> __device__ __forceinline__ float row_max(float v)
{
#pragma unroll
    for (int m = 16; m > 0; m >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, m));
    if constexpr (G > 32) {
        __shared__ float sh[NN_THREADS / 32];
        __syncthreads();
        if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
        __syncthreads();
        v = -INFINITY;
#pragma unroll
        for (int w = 0; w < G / 32; w++) v = fmaxf(v, sh[w]);
    }
    return v;
}

/* Thread `lane` of a row holds packs lane, lane + G, ... (coalesced: the G
 * threads read G consecutive packs at a time). */
#define RP_LOOP(q) _Pragma("unroll") for (int q = 0; q < NP; q++)

/* OP is a template parameter so each op's kernel holds only its own
 * registers (the softmax backward's two row copies would otherwise cost
 * the norms their occupancy). */
template <int OP, typename T, int G, int NP> __global__ void __launch_bounds__(NN_THREADS) k_rows_reg(mgpu_nn_args a)
{
    constexpr int K = pack_of<T>(), RPB = NN_THREADS / G; /* rows per block */
    const T *x = (const T *)a.t[0];
    size_t rows = a.n[0], cols = a.n[1], packs = cols / K;
    int lane = (int)(threadIdx.x % G);
    /* All threads of a block run the same number of iterations (the row
     * sums synchronize the block when G = NN_THREADS). */
    for (size_t r0 = (size_t)blockIdx.x * RPB; r0 < rows; r0 += (size_t)gridDim.x * RPB) {
        size_t r = r0 + threadIdx.x / G;
        bool live = r < rows; /* only for G = 32: a block's last rows may be past the end */
        size_t o = r * cols;
        float v[NP][K];
        bool has[NP];
        RP_LOOP(q) has[q] = live && (size_t)(lane + q * G) < packs;
        switch (OP) {
        case MGPU_NNK_SOFTMAX: {
            size_t lim = a.i[0] ? r % cols + 1 : cols;
            float sc = a.f[0], mx = -INFINITY;
            RP_LOOP(q)
            {
                size_t j = (size_t)(lane + q * G) * K;
                bool need = has[q] && j < lim; /* a pack wholly past the causal limit is never read */
                if (need) load_k<K>(x, o + j, v[q]);
#pragma unroll
                for (int e = 0; e < K; e++) {
                    v[q][e] = need && j + e < lim ? sc * v[q][e] : -INFINITY;
                    mx = fmaxf(mx, v[q][e]);
                }
            }
            mx = row_max<G>(mx);
            float s = 0;
            RP_LOOP(q)
#pragma unroll
                for (int e = 0; e < K; e++) {
                    v[q][e] = v[q][e] == -INFINITY ? 0.f : expf(v[q][e] - mx);
                    s += v[q][e];
                }
            s = row_sum<G>(s);
            RP_LOOP(q)
            {
#pragma unroll
                for (int e = 0; e < K; e++) v[q][e] = v[q][e] / s;
                if (has[q]) store_k<K>((T *)a.t[1], o + (size_t)(lane + q * G) * K, v[q]);
            }
            break;
        }
        case MGPU_NNK_SOFTMAX_BACKWARD: {
            const T *dp = (const T *)a.t[1];
            float d[NP][K], dot = 0;
            RP_LOOP(q)
            {
                size_t j = (size_t)(lane + q * G) * K;
                if (has[q]) {
                    load_k<K>(x, o + j, v[q]);
                    load_k<K>(dp, o + j, d[q]);
                }
#pragma unroll
                for (int e = 0; e < K; e++) dot += has[q] ? v[q][e] * d[q][e] : 0.f;
            }
            dot = row_sum<G>(dot);
            RP_LOOP(q)
            {
#pragma unroll
                for (int e = 0; e < K; e++) d[q][e] = a.f[0] * v[q][e] * (d[q][e] - dot);
                if (has[q]) store_k<K>((T *)a.t[2], o + (size_t)(lane + q * G) * K, d[q]);
            }
            break;
        }
        case MGPU_NNK_NORM: {
            int layer = a.i[0];
            const T *gamma = (const T *)a.t[1], *beta = (const T *)a.t[2];
            float s = 0;
            RP_LOOP(q)
            {
                if (has[q]) load_k<K>(x, o + (size_t)(lane + q * G) * K, v[q]);
#pragma unroll
                for (int e = 0; e < K; e++) s += has[q] ? v[q][e] : 0.f;
            }
            float mean = 0;
            if (layer) mean = row_sum<G>(s) / (float)cols;
            float s2 = 0;
            RP_LOOP(q)
#pragma unroll
                for (int e = 0; e < K; e++) s2 += has[q] ? (v[q][e] - mean) * (v[q][e] - mean) : 0.f;
            s2 = row_sum<G>(s2);
            float rstd = rsqrtf(s2 / (float)cols + a.f[0]);
            if (live && lane == 0) {
                if (layer) ((float *)a.t[4])[r] = mean;
                ((float *)a.t[5])[r] = rstd;
            }
            RP_LOOP(q)
            {
                if (!has[q]) continue;
                size_t j = (size_t)(lane + q * G) * K;
                float g[K], b[K];
                load_k<K>(gamma, j, g);
                if (beta) load_k<K>(beta, j, b);
#pragma unroll
                for (int e = 0; e < K; e++) v[q][e] = (v[q][e] - mean) * rstd * g[e] + (beta ? b[e] : 0.f);
                store_k<K>((T *)a.t[3], o + j, v[q]);
            }
            break;
        }
        case MGPU_NNK_NORM_BACKWARD: { /* dx; dgamma and dbeta are column sums */
            int layer = a.i[0];
            const T *gamma = (const T *)a.t[1], *dy = (const T *)a.t[4];
            float mean = live && layer ? ((const float *)a.t[2])[r] : 0, rstd = live ? ((const float *)a.t[3])[r] : 0;
            float d[NP][K], s1 = 0, s2 = 0;
            RP_LOOP(q)
            {
                if (!has[q]) continue;
                size_t j = (size_t)(lane + q * G) * K;
                float g[K];
                load_k<K>(x, o + j, v[q]);
                load_k<K>(dy, o + j, d[q]);
                load_k<K>(gamma, j, g);
#pragma unroll
                for (int e = 0; e < K; e++) {
                    d[q][e] *= g[e]; /* d now holds dy * gamma */
                    v[q][e] = (v[q][e] - mean) * rstd; /* v now holds xhat */
                    s1 += d[q][e];
                    s2 += d[q][e] * v[q][e];
                }
            }
            s1 = row_sum<G>(s1);
            s2 = row_sum<G>(s2);
            float m1 = layer ? s1 / (float)cols : 0, m2 = s2 / (float)cols;
            RP_LOOP(q)
            {
                if (!has[q]) continue;
#pragma unroll
                for (int e = 0; e < K; e++) v[q][e] = rstd * (d[q][e] - m1 - v[q][e] * m2);
                store_k<K>((T *)a.t[5], o + (size_t)(lane + q * G) * K, v[q]);
            }
            break;
        }
        default: break;
        }
    }
}

#undef RP_LOOP

template <typename T, int G, int NP> static void rows_reg_launch(cudaStream_t st, const mgpu_nn_args *a, int sms)
{
    size_t groups = ceil_div(a->n[0], NN_THREADS / G);
    /* Enough blocks to fill every SM several times over; the loop takes the rest. */
    size_t cap = (size_t)(sms > 0 ? sms : 132) * 32;
    unsigned blocks = (unsigned)(groups < 1 ? 1 : groups > cap ? cap : groups);
    switch (a->op) {
    case MGPU_NNK_SOFTMAX: k_rows_reg<MGPU_NNK_SOFTMAX, T, G, NP><<<blocks, NN_THREADS, 0, st>>>(*a); break;
    case MGPU_NNK_SOFTMAX_BACKWARD:
        k_rows_reg<MGPU_NNK_SOFTMAX_BACKWARD, T, G, NP><<<blocks, NN_THREADS, 0, st>>>(*a);
        break;
    case MGPU_NNK_NORM: k_rows_reg<MGPU_NNK_NORM, T, G, NP><<<blocks, NN_THREADS, 0, st>>>(*a); break;
    case MGPU_NNK_NORM_BACKWARD: k_rows_reg<MGPU_NNK_NORM_BACKWARD, T, G, NP><<<blocks, NN_THREADS, 0, st>>>(*a); break;
    default: break;
    }
}

/* 1 when the op ran from registers: rows packable and aligned, and a row's
 * packs within G * ROW_MAX_NP. */
template <typename T> static bool rows_reg_try(cudaStream_t st, const mgpu_nn_args *a, bool vec, int sms)
{
    if (!vec || a->op == MGPU_NNK_AVGPOOL || a->n[0] == 0) return false;
    size_t packs = a->n[1] / pack_of<T>();
    if (packs == 0) return false;
    if (packs <= 32) rows_reg_launch<T, 32, 1>(st, a, sms);
    else if (packs <= 64) rows_reg_launch<T, 32, 2>(st, a, sms);
    else if (packs <= 128) rows_reg_launch<T, 32, 4>(st, a, sms);
    else if (packs <= NN_THREADS) rows_reg_launch<T, NN_THREADS, 1>(st, a, sms);
    else if (packs <= 2 * NN_THREADS) rows_reg_launch<T, NN_THREADS, 2>(st, a, sms);
    else if (packs <= ROW_MAX_NP * NN_THREADS) rows_reg_launch<T, NN_THREADS, ROW_MAX_NP>(st, a, sms);
    else return false;
    return true;
}

template <typename T> static void rows_launch(cudaStream_t st, const mgpu_nn_args *a, int sms)
{
    size_t rows = a->n[0];
    unsigned blocks = (unsigned)(rows < 1 ? 1 : rows > 65535 * 16 ? 65535 * 16 : rows);
    constexpr int P = pack_of<T>();
    bool vec = a->n[1] % P == 0;
    for (int j = 0; j < 8; j++)
        if (a->t[j] && !nn_aligned16(a->t[j])) vec = false;
    if (rows_reg_try<T>(st, a, vec, sms)) return;
    if (a->op == MGPU_NNK_SOFTMAX) vec = false; /* the memory kernel's causal limit cuts packs */
    if (vec) k_rows<T, P><<<blocks, NN_THREADS, 0, st>>>(*a);
    else k_rows<T, 1><<<blocks, NN_THREADS, 0, st>>>(*a);
}

/*--- Cross-entropy ---------------------------------------------------------------------*/

/* Stage 1, one block per row: the row's loss and whether its label is the
 * first maximum (as argmax picks), into part[2r], part[2r+1]; dlogits. */
template <typename T> __global__ void k_ce_rows(mgpu_nn_args a, float *part)
{
    const T *x = (const T *)a.t[0];
    size_t rows = a.n[0], cls = a.n[1];
    for (size_t r = blockIdx.x; r < rows; r += gridDim.x) {
        size_t o = r * cls;
        float mx = -INFINITY, s = 0, first = INFINITY;
        for (size_t j = threadIdx.x; j < cls; j += blockDim.x) mx = fmaxf(mx, to_f(x[o + j]));
        mx = block_max(mx);
        for (size_t j = threadIdx.x; j < cls; j += blockDim.x) s += expf(to_f(x[o + j]) - mx);
        s = nn_block_sum(s);
        int y = ((const int32_t *)a.t[1])[r];
        y = y < 0 ? 0 : y >= (int)cls ? (int)cls - 1 : y;
        for (size_t j = threadIdx.x; j < cls; j += blockDim.x)
            if (to_f(x[o + j]) == mx) first = fminf(first, (float)j);
        first = -block_max(-first);
        if (threadIdx.x == 0) {
            part[2 * r] = logf(s) - (to_f(x[o + (size_t)y]) - mx);
            part[2 * r + 1] = first == (float)y;
        }
        if (a.t[3])
            for (size_t j = threadIdx.x; j < cls; j += blockDim.x)
                ((T *)a.t[3])[o + j] =
                    from_f<T>((expf(to_f(x[o + j]) - mx) / s - (j == (size_t)y ? 1.f : 0.f)) / (float)rows);
    }
}

/* Stage 2, one block: row sums in a fixed order (strided, then a tree). */
static __global__ void k_ce_combine(const float *__restrict__ part, size_t rows, float *loss)
{
    float l = 0, right = 0;
    for (size_t r = threadIdx.x; r < rows; r += blockDim.x) l += part[2 * r], right += part[2 * r + 1];
    l = nn_block_sum(l);
    right = nn_block_sum(right);
    if (threadIdx.x == 0) {
        loss[0] = l / (float)rows;
        loss[1] = right;
    }
}

/*--- Dispatch ----------------------------------------------------------------------------*/

int cuda_nn_is_reduce(mgpu_nn_kernel op)
{
    switch (op) {
    case MGPU_NNK_BATCHNORM:
    case MGPU_NNK_BATCHNORM_BACKWARD:
    case MGPU_NNK_BIAS_GRAD:
    case MGPU_NNK_NORM:
    case MGPU_NNK_NORM_BACKWARD:
    case MGPU_NNK_EMBEDDING_BACKWARD:
    case MGPU_NNK_SUMSQ:
    case MGPU_NNK_SOFTMAX:
    case MGPU_NNK_SOFTMAX_BACKWARD:
    case MGPU_NNK_AVGPOOL:
    case MGPU_NNK_CROSS_ENTROPY: return 1;
    default: return 0;
    }
}

size_t cuda_nn_scratch_bytes(const mgpu_nn_args *a)
{
    switch (a->op) {
    case MGPU_NNK_BATCHNORM:
    case MGPU_NNK_BATCHNORM_BACKWARD: return bn_scratch(a);
    case MGPU_NNK_BIAS_GRAD: return col_scratch(a);
    case MGPU_NNK_NORM_BACKWARD: {
        size_t col = col_scratch(a), one = cuda_nn_norm_back_scratch(a); /* either path may run */
        return one > col ? one : col;
    }
    case MGPU_NNK_SUMSQ: return (ceil_div(a->n[0], sumsq_chunk(a->n[0])) + 1) * sizeof(float);
    case MGPU_NNK_CROSS_ENTROPY: return (a->n[0] * 2 + 1) * sizeof(float);
    default: return 0;
    }
}

template <typename T> static void reduce_t(cudaStream_t st, const mgpu_nn_args *a, float *ws, int sms)
{
    switch (a->op) {
    case MGPU_NNK_BATCHNORM:
    case MGPU_NNK_BATCHNORM_BACKWARD: {
        bn_dims d = bn_of(a);
        if (nn_fits32(d.cnt * d.C + CHUNK)) bn_t<T, uint32_t>(st, a, ws, sms);
        else bn_t<T, size_t>(st, a, ws, sms);
        break;
    }
    case MGPU_NNK_BIAS_GRAD: col_launch<T>(st, a, ws); break;
    case MGPU_NNK_NORM_BACKWARD:
        if (cuda_nn_norm_back_1pass(st, a, ws)) break;
        rows_launch<T>(st, a, sms);
        col_launch<T>(st, a, ws);
        break;
    case MGPU_NNK_EMBEDDING_BACKWARD:
        k_embedding_backward<T><<<nn_blocks(a->n[1]), NN_THREADS, 0, st>>>(
            (const int32_t *)a->t[0], (const T *)a->t[1], (T *)a->t[2], a->n[0], a->n[1], a->n[2]);
        break;
    case MGPU_NNK_SUMSQ: sumsq_launch<T>(st, a, ws); break;
    case MGPU_NNK_SOFTMAX:
    case MGPU_NNK_SOFTMAX_BACKWARD:
    case MGPU_NNK_AVGPOOL:
    case MGPU_NNK_NORM: rows_launch<T>(st, a, sms); break;
    case MGPU_NNK_CROSS_ENTROPY: {
        size_t rows = a->n[0];
        unsigned blocks = (unsigned)(rows < 1 ? 1 : rows > 65535 * 16 ? 65535 * 16 : rows);
        k_ce_rows<T><<<blocks, NN_THREADS, 0, st>>>(*a, ws);
        k_ce_combine<<<1, NN_THREADS, 0, st>>>(ws, rows, (float *)a->t[2]);
        break;
    }
    default: break;
    }
}

cudaError_t cuda_nn_reduce(cudaStream_t st, const mgpu_nn_args *a, void *ws, int sms)
{
    if (a->dtype == MGPU_BF16) reduce_t<uint16_t>(st, a, (float *)ws, sms);
    else reduce_t<float>(st, a, (float *)ws, sms);
    return cudaGetLastError();
}
