/* cuda_nn.cu - the cuda backend's training ops (nn_ops.h): GEMMs through
 * cuBLAS (cuda_blas.cu; f32 compute for f32 and bf16), every other op as a
 * plain kernel of ours. Values are loaded and stored through dtype.h's
 * conversions, so bf16 rounds exactly as on the sim, and every reduction
 * is a fixed tree in one block (or a fixed loop in one thread): no atomics,
 * so the same inputs give the same bits on every run. */
#include <math.h>
#include "dev/cuda_blas.h"
#include "dev/nn_ops.h"

#define THREADS 256

__device__ __forceinline__ float ld(const void *p, mgpu_dtype dt, size_t i)
{
    return dt == MGPU_BF16 ? mgpu_bf16_to_f32(((const uint16_t *)p)[i]) : ((const float *)p)[i];
}

__device__ __forceinline__ void st(void *p, mgpu_dtype dt, size_t i, float v)
{
    if (dt == MGPU_BF16) ((uint16_t *)p)[i] = mgpu_f32_to_bf16(v);
    else ((float *)p)[i] = v;
}

#define FOR_EACH(i, n) for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n); i += (size_t)gridDim.x * blockDim.x)

static unsigned blocks_for(size_t n)
{
    size_t b = (n + THREADS - 1) / THREADS;
    return (unsigned)(b < 1 ? 1 : b > 65535 ? 65535 : b);
}

/* Sum of v over the block (every thread gets it); a fixed tree. */
__device__ float block_sum(float v)
{
    __shared__ float sh[THREADS];
    __syncthreads();
    sh[threadIdx.x] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    return sh[0];
}

__device__ float block_max(float v)
{
    __shared__ float sh[THREADS];
    __syncthreads();
    sh[threadIdx.x] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sh[threadIdx.x] = fmaxf(sh[threadIdx.x], sh[threadIdx.x + s]);
        __syncthreads();
    }
    return sh[0];
}

#define SQRT_2_OVER_PI 0.7978845608028654f

__device__ float act_f(int act, float x)
{
    if (act == 0) return x > 0 ? x : 0;
    if (act == 1) return 0.5f * x * (1 + tanhf(SQRT_2_OVER_PI * (x + 0.044715f * x * x * x)));
    return x / (1 + expf(-x));
}

__device__ float act_grad(int act, float x)
{
    if (act == 0) return x > 0 ? 1.f : 0.f;
    if (act == 1) {
        float u = SQRT_2_OVER_PI * (x + 0.044715f * x * x * x), t = tanhf(u);
        return 0.5f * (1 + t) + 0.5f * x * (1 - t * t) * SQRT_2_OVER_PI * (1 + 3 * 0.044715f * x * x);
    }
    float sg = 1 / (1 + expf(-x));
    return sg * (1 + x * (1 - sg));
}

/*--- Elementwise ----------------------------------------------------------*/

__global__ void k_elementwise(mgpu_nn_args a)
{
    mgpu_dtype dt = a.dtype;
    switch (a.op) {
    case MGPU_NNK_BIAS_ADD:
        FOR_EACH(i, a.n[0] * a.n[1]) st(a.t[2], dt, i, ld(a.t[0], dt, i) + ld(a.t[1], dt, i % a.n[1]));
        break;
    case MGPU_NNK_ACT: FOR_EACH(i, a.n[0]) st(a.t[1], dt, i, act_f(a.i[0], ld(a.t[0], dt, i))); break;
    case MGPU_NNK_ACT_BACKWARD:
        FOR_EACH(i, a.n[0]) st(a.t[2], dt, i, ld(a.t[1], dt, i) * act_grad(a.i[0], ld(a.t[0], dt, i)));
        break;
    case MGPU_NNK_SWIGLU: FOR_EACH(i, a.n[0]) st(a.t[2], dt, i, act_f(2, ld(a.t[0], dt, i)) * ld(a.t[1], dt, i)); break;
    case MGPU_NNK_SWIGLU_BACKWARD:
        FOR_EACH(i, a.n[0])
        {
            float g = ld(a.t[0], dt, i), u = ld(a.t[1], dt, i), dy = ld(a.t[2], dt, i);
            st(a.t[3], dt, i, dy * u * act_grad(2, g));
            st(a.t[4], dt, i, dy * act_f(2, g));
        }
        break;
    case MGPU_NNK_ADD:
        FOR_EACH(i, a.n[0])
        st(a.t[2], dt, i, a.f[0] * ld(a.t[0], dt, i) + (a.f[1] != 0 ? a.f[1] * ld(a.t[1], dt, i) : 0.f));
        break;
    case MGPU_NNK_SGD:
        FOR_EACH(i, a.n[0])
        {
            float *m = (float *)a.t[2], p = ld(a.t[0], dt, i);
            m[i] = a.f[1] * m[i] + ld(a.t[1], dt, i) + a.f[2] * p;
            st(a.t[0], dt, i, p - a.f[0] * m[i]);
        }
        break;
    case MGPU_NNK_ADAMW:
        FOR_EACH(i, a.n[0])
        {
            float *m = (float *)a.t[2], *v = (float *)a.t[3], p = ld(a.t[0], dt, i), g = ld(a.t[1], dt, i);
            float b1 = a.f[1], b2 = a.f[2];
            m[i] = b1 * m[i] + (1 - b1) * g;
            v[i] = b2 * v[i] + (1 - b2) * g * g;
            p *= 1 - a.f[0] * a.f[4];
            p -= a.f[0] * (m[i] / a.f[5]) / (sqrtf(v[i] / a.f[6]) + a.f[3]);
            st(a.t[0], dt, i, p);
        }
        break;
    case MGPU_NNK_CLIP_SCALE: {
        float k = a.f[0] / (sqrtf(((const float *)a.t[1])[0]) + 1e-6f);
        if (k < 1) FOR_EACH(i, a.n[0]) st(a.t[0], dt, i, ld(a.t[0], dt, i) * k);
        break;
    }
    case MGPU_NNK_AVGPOOL_BACKWARD:
        FOR_EACH(i, a.n[0] * a.n[1]) st(a.t[1], dt, i, ld(a.t[0], dt, i / a.n[1]) / (float)a.n[1]);
        break;
    case MGPU_NNK_EMBEDDING:
        FOR_EACH(i, a.n[0] * a.n[1])
        {
            int id = ((const int32_t *)a.t[0])[i / a.n[1]];
            id = id < 0 ? 0 : id >= (int)a.n[2] ? (int)a.n[2] - 1 : id; /* clamped: no fault */
            st(a.t[2], dt, i, ld(a.t[1], dt, (size_t)id * a.n[1] + i % a.n[1]));
        }
        break;
    case MGPU_NNK_SWAP12: {
        size_t B = a.n[1], C = a.n[2], D = a.n[3];
        FOR_EACH(i, a.n[0] * B * C * D)
        { /* i indexes y [A, C, B, D] */
            size_t d = i % D, b = i / D % B, c = i / (D * B) % C, x = i / (D * B * C);
            size_t src = ((x * B + b) * C + c) * D + d;
            if (dt == MGPU_BF16) ((uint16_t *)a.t[1])[i] = ((const uint16_t *)a.t[0])[src];
            else ((float *)a.t[1])[i] = ((const float *)a.t[0])[src];
        }
        break;
    }
    case MGPU_NNK_IM2COL: {
        size_t C = a.n[1], H = a.n[2], W = a.n[3], R = a.n[4], P = a.n[5], Q = a.n[6];
        long stride = a.i[0], pad = a.i[1];
        FOR_EACH(i, a.n[0] * C * R * R * P * Q)
        {
            /* i walks col in its layout: [N, CRR, PQ] or [CRR, N, PQ] */
            size_t q = i % Q, p = i / Q % P, row, n;
            if (a.i[2] == MGPU_NN_COL_BY_ROW) n = i / (P * Q) % a.n[0], row = i / (P * Q * a.n[0]);
            else row = i / (P * Q) % (C * R * R), n = i / (P * Q * C * R * R);
            size_t c = row / (R * R), r = row / R % R, s = row % R;
            long h = (long)p * stride - pad + (long)r, w = (long)q * stride - pad + (long)s;
            int inside = h >= 0 && w >= 0 && h < (long)H && w < (long)W;
            st(a.t[1], dt, i, inside ? ld(a.t[0], dt, ((n * C + c) * H + (size_t)h) * W + (size_t)w) : 0.f);
        }
        break;
    }
    case MGPU_NNK_COL2IM: {
        /* gather: each image element sums the columns that read it */
        size_t C = a.n[1], H = a.n[2], W = a.n[3], R = a.n[4], P = a.n[5], Q = a.n[6];
        long stride = a.i[0], pad = a.i[1];
        FOR_EACH(i, a.n[0] * C * H * W)
        {
            size_t w = i % W, h = i / W % H, c = i / (W * H) % C, n = i / (W * H * C);
            float sum = 0;
            for (size_t r = 0; r < R; r++) {
                long ph = (long)h + pad - (long)r;
                if (ph < 0 || ph % stride || ph / stride >= (long)P) continue;
                for (size_t s = 0; s < R; s++) {
                    long qw = (long)w + pad - (long)s;
                    if (qw < 0 || qw % stride || qw / stride >= (long)Q) continue;
                    size_t row = (c * R + r) * R + s;
                    size_t at = a.i[2] == MGPU_NN_COL_BY_ROW ? row * a.n[0] + n : n * C * R * R + row;
                    sum += ld(a.t[1], dt, (at * P + (size_t)(ph / stride)) * Q + (size_t)(qw / stride));
                }
            }
            st(a.t[0], dt, i, sum);
        }
        break;
    }
    default: break;
    }
}

/*--- Per-column loops (one thread per column, rows in order) ---------------*/

__global__ void k_columns(mgpu_nn_args a)
{
    mgpu_dtype dt = a.dtype;
    size_t cols = a.n[1];
    FOR_EACH(c, cols)
    {
        if (a.op == MGPU_NNK_BIAS_GRAD) {
            float s = 0;
            for (size_t r = 0; r < a.n[0]; r++) s += ld(a.t[0], dt, r * cols + c);
            st(a.t[1], dt, c, a.f[0] != 0 ? a.f[0] * ld(a.t[1], dt, c) + s : s);
        } else if (a.op == MGPU_NNK_EMBEDDING_BACKWARD) {
            for (size_t r = 0; r < a.n[0]; r++) {
                int id = ((const int32_t *)a.t[0])[r];
                if (id < 0 || id >= (int)a.n[2]) continue;
                size_t k = (size_t)id * cols + c;
                st(a.t[2], dt, k, ld(a.t[2], dt, k) + ld(a.t[1], dt, r * cols + c));
            }
        } else if (a.op == MGPU_NNK_NORM_BACKWARD) { /* dgamma, dbeta */
            float dg = 0, db = 0;
            int layer = a.i[0];
            for (size_t r = 0; r < a.n[0]; r++) {
                float mean = layer ? ((const float *)a.t[2])[r] : 0, rstd = ((const float *)a.t[3])[r];
                float dy = ld(a.t[4], dt, r * cols + c);
                dg += dy * (ld(a.t[0], dt, r * cols + c) - mean) * rstd;
                db += dy;
            }
            st(a.t[6], dt, c, dg);
            if (a.t[7]) st(a.t[7], dt, c, db);
        }
    }
}

/*--- Row reductions (one block per row) -------------------------------------*/

__global__ void k_rows(mgpu_nn_args a)
{
    mgpu_dtype dt = a.dtype;
    size_t cols = a.n[1];
    for (size_t r = blockIdx.x; r < a.n[0]; r += gridDim.x) {
        size_t o = r * cols;
        switch (a.op) {
        case MGPU_NNK_SOFTMAX: {
            size_t lim = a.i[0] ? r % cols + 1 : cols;
            float sc = a.f[0], mx = -INFINITY;
            for (size_t j = threadIdx.x; j < lim; j += blockDim.x) mx = fmaxf(mx, sc * ld(a.t[0], dt, o + j));
            mx = block_max(mx);
            float s = 0;
            for (size_t j = threadIdx.x; j < lim; j += blockDim.x) s += expf(sc * ld(a.t[0], dt, o + j) - mx);
            s = block_sum(s);
            for (size_t j = threadIdx.x; j < cols; j += blockDim.x)
                st(a.t[1], dt, o + j, j < lim ? expf(sc * ld(a.t[0], dt, o + j) - mx) / s : 0.f);
            break;
        }
        case MGPU_NNK_SOFTMAX_BACKWARD: {
            float dot = 0;
            for (size_t j = threadIdx.x; j < cols; j += blockDim.x) dot += ld(a.t[0], dt, o + j) * ld(a.t[1], dt, o + j);
            dot = block_sum(dot);
            for (size_t j = threadIdx.x; j < cols; j += blockDim.x)
                st(a.t[2], dt, o + j, a.f[0] * ld(a.t[0], dt, o + j) * (ld(a.t[1], dt, o + j) - dot));
            break;
        }
        case MGPU_NNK_AVGPOOL: {
            float s = 0;
            for (size_t j = threadIdx.x; j < cols; j += blockDim.x) s += ld(a.t[0], dt, o + j);
            s = block_sum(s);
            if (threadIdx.x == 0) st(a.t[1], dt, r, s / (float)cols);
            break;
        }
        case MGPU_NNK_NORM: {
            int layer = a.i[0];
            float s = 0;
            if (layer) {
                for (size_t j = threadIdx.x; j < cols; j += blockDim.x) s += ld(a.t[0], dt, o + j);
                s = block_sum(s);
            }
            float mean = layer ? s / (float)cols : 0, s2 = 0;
            for (size_t j = threadIdx.x; j < cols; j += blockDim.x) {
                float d = ld(a.t[0], dt, o + j) - mean;
                s2 += d * d;
            }
            s2 = block_sum(s2);
            float rstd = rsqrtf(s2 / (float)cols + a.f[0]);
            if (threadIdx.x == 0) {
                if (layer) ((float *)a.t[4])[r] = mean;
                ((float *)a.t[5])[r] = rstd;
            }
            for (size_t j = threadIdx.x; j < cols; j += blockDim.x) {
                float v = (ld(a.t[0], dt, o + j) - mean) * rstd * ld(a.t[1], dt, j);
                if (a.t[2]) v += ld(a.t[2], dt, j);
                st(a.t[3], dt, o + j, v);
            }
            break;
        }
        case MGPU_NNK_NORM_BACKWARD: { /* dx; dgamma/dbeta in k_columns */
            int layer = a.i[0];
            float mean = layer ? ((const float *)a.t[2])[r] : 0, rstd = ((const float *)a.t[3])[r];
            float s1 = 0, s2 = 0;
            for (size_t j = threadIdx.x; j < cols; j += blockDim.x) {
                float xh = (ld(a.t[0], dt, o + j) - mean) * rstd, gdy = ld(a.t[4], dt, o + j) * ld(a.t[1], dt, j);
                s1 += gdy;
                s2 += gdy * xh;
            }
            s1 = block_sum(s1);
            s2 = block_sum(s2);
            for (size_t j = threadIdx.x; j < cols; j += blockDim.x) {
                float xh = (ld(a.t[0], dt, o + j) - mean) * rstd, gdy = ld(a.t[4], dt, o + j) * ld(a.t[1], dt, j);
                st(a.t[5], dt, o + j, rstd * (gdy - (layer ? s1 / (float)cols : 0) - xh * s2 / (float)cols));
            }
            break;
        }
        case MGPU_NNK_CROSS_ENTROPY: break; /* k_cross_entropy */
        default: break;
        }
    }
}

/* Softmax cross-entropy with its gradient: one block walks the rows (a
 * batch), so the mean loss is summed in row order by one thread. */
__global__ void k_cross_entropy(mgpu_nn_args a)
{
    mgpu_dtype dt = a.dtype;
    size_t rows = a.n[0], cls = a.n[1];
    float loss = 0, right = 0; /* kept by thread 0 */
    for (size_t r = 0; r < rows; r++) {
        size_t o = r * cls;
        float mx = -INFINITY;
        for (size_t j = threadIdx.x; j < cls; j += blockDim.x) mx = fmaxf(mx, ld(a.t[0], dt, o + j));
        mx = block_max(mx);
        float s = 0;
        for (size_t j = threadIdx.x; j < cls; j += blockDim.x) s += expf(ld(a.t[0], dt, o + j) - mx);
        s = block_sum(s);
        int y = ((const int32_t *)a.t[1])[r];
        y = y < 0 ? 0 : y >= (int)cls ? (int)cls - 1 : y;
        if (threadIdx.x == 0) {
            float xy = ld(a.t[0], dt, o + (size_t)y);
            loss += logf(s) - (xy - mx);
        }
        /* right when the label is the first maximum, as argmax picks */
        float first = INFINITY;
        for (size_t j = threadIdx.x; j < cls; j += blockDim.x)
            if (ld(a.t[0], dt, o + j) == mx) first = fminf(first, (float)j);
        first = -block_max(-first);
        if (threadIdx.x == 0) right += first == (float)y;
        if (a.t[3])
            for (size_t j = threadIdx.x; j < cls; j += blockDim.x)
                st(a.t[3], dt, o + j, (expf(ld(a.t[0], dt, o + j) - mx) / s - (j == (size_t)y ? 1.f : 0.f)) / (float)rows);
    }
    if (threadIdx.x == 0) {
        ((float *)a.t[2])[0] = loss / (float)rows;
        ((float *)a.t[2])[1] = right;
    }
}

__global__ void k_sumsq(mgpu_nn_args a)
{
    float s = 0;
    for (size_t i = threadIdx.x; i < a.n[0]; i += blockDim.x) {
        float v = ld(a.t[0], a.dtype, i);
        s += v * v;
    }
    s = block_sum(s);
    if (threadIdx.x == 0) ((float *)a.t[1])[0] = (a.i[0] ? ((float *)a.t[1])[0] : 0) + s;
}

/* Batch norm: one block per channel. */
__global__ void k_batchnorm(mgpu_nn_args a)
{
    mgpu_dtype dt = a.dtype;
    size_t N = a.n[0], C = a.n[1], HW = a.n[2], cnt = N * HW;
    size_t c = blockIdx.x;
    if (c >= C) return;
#define BN_IDX(k) (((k) / HW * C + c) * HW + (k) % HW)
    float mean, invstd;
    if (a.op == MGPU_NNK_BATCHNORM) {
        if (a.i[0]) {
            float s = 0;
            for (size_t k = threadIdx.x; k < cnt; k += blockDim.x) s += ld(a.t[0], dt, BN_IDX(k));
            mean = block_sum(s) / (float)cnt;
            float s2 = 0;
            for (size_t k = threadIdx.x; k < cnt; k += blockDim.x) {
                float d = ld(a.t[0], dt, BN_IDX(k)) - mean;
                s2 += d * d;
            }
            s2 = block_sum(s2);
            invstd = rsqrtf(s2 / (float)cnt + a.f[1]);
            if (threadIdx.x == 0) {
                float *rm = (float *)a.t[3], *rv = (float *)a.t[4], mom = a.f[0];
                ((float *)a.t[5])[c] = mean;
                ((float *)a.t[6])[c] = invstd;
                rm[c] = (1 - mom) * rm[c] + mom * mean;
                rv[c] = (1 - mom) * rv[c] + mom * s2 / (float)(cnt - 1);
            }
        } else {
            mean = ((const float *)a.t[3])[c];
            invstd = rsqrtf(((const float *)a.t[4])[c] + a.f[1]);
        }
        float g = ld(a.t[1], dt, c), b = ld(a.t[2], dt, c);
        for (size_t k = threadIdx.x; k < cnt; k += blockDim.x)
            st(a.t[7], dt, BN_IDX(k), (ld(a.t[0], dt, BN_IDX(k)) - mean) * invstd * g + b);
    } else { /* backward */
        mean = ((const float *)a.t[2])[c];
        invstd = ((const float *)a.t[3])[c];
        float g = ld(a.t[1], dt, c), sdy = 0, sdyx = 0;
        for (size_t k = threadIdx.x; k < cnt; k += blockDim.x) {
            float dy = ld(a.t[4], dt, BN_IDX(k));
            sdy += dy;
            sdyx += dy * (ld(a.t[0], dt, BN_IDX(k)) - mean) * invstd;
        }
        sdy = block_sum(sdy);
        sdyx = block_sum(sdyx);
        if (threadIdx.x == 0) {
            st(a.t[6], dt, c, sdyx);
            st(a.t[7], dt, c, sdy);
        }
        for (size_t k = threadIdx.x; k < cnt; k += blockDim.x) {
            float xh = (ld(a.t[0], dt, BN_IDX(k)) - mean) * invstd;
            st(a.t[5], dt, BN_IDX(k), g * invstd * (ld(a.t[4], dt, BN_IDX(k)) - sdy / (float)cnt - xh * sdyx / (float)cnt));
        }
    }
#undef BN_IDX
}

/*--- The ops table -------------------------------------------------------------*/

static mgpu_result cuda_nn_kernel(mgpu_stream *s, const mgpu_nn_args *a)
{
    int dev = s->device;
    CUDA_ON_DEVICE(dev);
    cudaStream_t st = cuda_stream_of(s);
    size_t rows = a->n[0];
    unsigned row_blocks = (unsigned)(rows < 1 ? 1 : rows > 65535 ? 65535 : rows);
    switch (a->op) {
    case MGPU_NNK_BIAS_ADD: k_elementwise<<<blocks_for(a->n[0] * a->n[1]), THREADS, 0, st>>>(*a); break;
    case MGPU_NNK_BIAS_GRAD:
    case MGPU_NNK_EMBEDDING_BACKWARD: k_columns<<<blocks_for(a->n[1]), THREADS, 0, st>>>(*a); break;
    case MGPU_NNK_NORM_BACKWARD:
        k_rows<<<row_blocks, THREADS, 0, st>>>(*a);
        k_columns<<<blocks_for(a->n[1]), THREADS, 0, st>>>(*a);
        break;
    case MGPU_NNK_SOFTMAX:
    case MGPU_NNK_SOFTMAX_BACKWARD:
    case MGPU_NNK_AVGPOOL:
    case MGPU_NNK_NORM: k_rows<<<row_blocks, THREADS, 0, st>>>(*a); break;
    case MGPU_NNK_CROSS_ENTROPY: k_cross_entropy<<<1, THREADS, 0, st>>>(*a); break;
    case MGPU_NNK_SUMSQ: k_sumsq<<<1, THREADS, 0, st>>>(*a); break;
    case MGPU_NNK_BATCHNORM:
    case MGPU_NNK_BATCHNORM_BACKWARD: k_batchnorm<<<(unsigned)a->n[1], THREADS, 0, st>>>(*a); break;
    case MGPU_NNK_AVGPOOL_BACKWARD: k_elementwise<<<blocks_for(a->n[0] * a->n[1]), THREADS, 0, st>>>(*a); break;
    case MGPU_NNK_EMBEDDING: k_elementwise<<<blocks_for(a->n[0] * a->n[1]), THREADS, 0, st>>>(*a); break;
    case MGPU_NNK_SWAP12:
        k_elementwise<<<blocks_for(a->n[0] * a->n[1] * a->n[2] * a->n[3]), THREADS, 0, st>>>(*a);
        break;
    case MGPU_NNK_IM2COL:
        k_elementwise<<<blocks_for(a->n[0] * a->n[1] * a->n[4] * a->n[4] * a->n[5] * a->n[6]), THREADS, 0, st>>>(*a);
        break;
    case MGPU_NNK_COL2IM:
        k_elementwise<<<blocks_for(a->n[0] * a->n[1] * a->n[2] * a->n[3]), THREADS, 0, st>>>(*a);
        break;
    default: k_elementwise<<<blocks_for(a->n[0]), THREADS, 0, st>>>(*a); break;
    }
    CUDA_TRY(cudaGetLastError(), dev, "launching the %s kernel", a->cost.name ? a->cost.name : "training op");
    return MGPU_OK;
}

static mgpu_result cuda_nn_gemm(mgpu_stream *s, const mgpu_nn_gemm_args *g)
{
    int dev = s->device;
    CUDA_ON_DEVICE(dev);
    if (g->m > INT32_MAX || g->n > INT32_MAX || g->k > INT32_MAX || g->batch > INT32_MAX)
        return mgpu_fail(MGPU_ERR_INVALID, "gemm: a dim above 2^31 is more than cuBLAS takes");
    cublasHandle_t h;
    MGPU_CHECK(cuda_blas_handle(cuda_be(s->be), dev, cuda_stream_of(s), &h));
    cudaDataType t = g->dtype == MGPU_BF16 ? CUDA_R_16BF : CUDA_R_32F;
    /* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: pass
     * B first, and every matrix is its own transpose's column-major view. */
    int m = (int)g->m, n = (int)g->n, k = (int)g->k;
    cublasStatus_t e = cuda_blas_gemm(h, g->tb ? CUBLAS_OP_T : CUBLAS_OP_N, g->ta ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k,
                                      &g->alpha, g->b, t, g->tb ? k : n, (long long)g->stride_b, g->a, t,
                                      g->ta ? m : k, (long long)g->stride_a, &g->beta, g->c, t, n,
                                      (long long)g->stride_c, (int)g->batch);
    if (e != CUBLAS_STATUS_SUCCESS)
        return mgpu_fail(MGPU_ERR_CUDA, "cuBLAS gemm %dx%dx%d (batch %zu, %s) on GPU %d failed with status %d", m, n,
                         k, g->batch, mgpu_dtype_name(g->dtype), dev, (int)e);
    return MGPU_OK;
}

extern "C" const struct mgpu_nn_ops cuda_nn_ops = {
    .gemm = cuda_nn_gemm,
    .kernel = cuda_nn_kernel,
};
