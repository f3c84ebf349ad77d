/* cuda_nn_elementwise.cu - the cuda backend's elementwise training ops:
 * activations and their gradients, SwiGLU, add, bias add, the optimizer
 * updates, gradient clipping's scale, avgpool's backward and the embedding
 * lookup. One small kernel per op, templated on the element type (no dtype
 * branch per element); each thread takes a 16-byte pack of every tensor
 * (8 bf16 or 4 f32) when the pointers allow, which is what it takes to
 * stream at memory bandwidth. Per-element arithmetic is the sim's
 * (sim_nn.c), in f32, so results agree to the last bits of expf/tanhf. */
#include <math.h>
#include "dev/cuda/cuda_nn.h"

#define SQRT_2_OVER_PI 0.7978845608028654f

__device__ __forceinline__ float act_f(int act, float x)
{
    if (act == 0) return x > 0 ? x : 0;
    if (act == 1) return 0.5f * x * (1 + tanhf(SQRT_2_OVER_PI * (x + 0.044715f * x * x * x)));
    return x / (1 + expf(-x));
}

__device__ __forceinline__ float act_grad(int act, float x)
{
    if (act == 0) return x > 0 ? 1.f : 0.f;
    if (act == 1) {
        float u = SQRT_2_OVER_PI * (x + 0.044715f * x * x * x), t = tanhf(u);
        return 0.5f * (1 + t) + 0.5f * x * (1 - t * t) * SQRT_2_OVER_PI * (1 + 3 * 0.044715f * x * x);
    }
    float sg = 1 / (1 + expf(-x));
    return sg * (1 + x * (1 - sg));
}

/* The flat arguments every op here reads; a plain struct of the kernel's
 * parameters so one kernel template serves all ops. */
struct ew_args {
    void *t[5];
    size_t n, cols, vocab;
    float f[7];
    int act;
};

/* Element i..i+K of op OP. T: the float tensors' type; f32 state (momenta)
 * is always float. */
template <int OP, typename T, int K> struct ew_op;

#define EW_LOAD(j, v) float v[K]; load_k<K>((const T *)a.t[j], i, v)
#define EW_LOADF(j, v) float v[K]; load_k<K>((const float *)a.t[j], i, v)

template <typename T, int K> struct ew_op<MGPU_NNK_ACT, T, K> {
    static __device__ __forceinline__ void run(const ew_args &a, size_t i)
    {
        EW_LOAD(0, x);
        float y[K];
#pragma unroll
        for (int k = 0; k < K; k++) y[k] = act_f(a.act, x[k]);
        store_k<K>((T *)a.t[1], i, y);
    }
};

template <typename T, int K> struct ew_op<MGPU_NNK_ACT_BACKWARD, T, K> {
    static __device__ __forceinline__ void run(const ew_args &a, size_t i)
    {
        EW_LOAD(0, x);
        EW_LOAD(1, dy);
        float dx[K];
#pragma unroll
        for (int k = 0; k < K; k++) dx[k] = dy[k] * act_grad(a.act, x[k]);
        store_k<K>((T *)a.t[2], i, dx);
    }
};

template <typename T, int K> struct ew_op<MGPU_NNK_SWIGLU, T, K> {
    static __device__ __forceinline__ void run(const ew_args &a, size_t i)
    {
        EW_LOAD(0, g);
        EW_LOAD(1, u);
        float y[K];
#pragma unroll
        for (int k = 0; k < K; k++) y[k] = act_f(2, g[k]) * u[k];
        store_k<K>((T *)a.t[2], i, y);
    }
};

template <typename T, int K> struct ew_op<MGPU_NNK_SWIGLU_BACKWARD, T, K> {
    static __device__ __forceinline__ void run(const ew_args &a, size_t i)
    {
        EW_LOAD(0, g);
        EW_LOAD(1, u);
        EW_LOAD(2, dy);
        float dg[K], du[K];
#pragma unroll
        for (int k = 0; k < K; k++) {
            dg[k] = dy[k] * u[k] * act_grad(2, g[k]);
            du[k] = dy[k] * act_f(2, g[k]);
        }
        store_k<K>((T *)a.t[3], i, dg);
        store_k<K>((T *)a.t[4], i, du);
    }
};

template <typename T, int K> struct ew_op<MGPU_NNK_ADD, T, K> {
    static __device__ __forceinline__ void run(const ew_args &a, size_t i)
    {
        EW_LOAD(0, x);
        float y[K];
        if (a.f[1] != 0) {
            EW_LOAD(1, b);
#pragma unroll
            for (int k = 0; k < K; k++) y[k] = a.f[0] * x[k] + a.f[1] * b[k];
        } else {
#pragma unroll
            for (int k = 0; k < K; k++) y[k] = a.f[0] * x[k] + 0.f;
        }
        store_k<K>((T *)a.t[2], i, y);
    }
};

template <typename T, int K> struct ew_op<MGPU_NNK_SGD, T, K> {
    static __device__ __forceinline__ void run(const ew_args &a, size_t i)
    {
        EW_LOAD(0, p);
        EW_LOAD(1, g);
        EW_LOADF(2, m);
#pragma unroll
        for (int k = 0; k < K; k++) {
            m[k] = a.f[1] * m[k] + g[k] + a.f[2] * p[k];
            p[k] = p[k] - a.f[0] * m[k];
        }
        store_k<K>((float *)a.t[2], i, m);
        store_k<K>((T *)a.t[0], i, p);
    }
};

template <typename T, int K> struct ew_op<MGPU_NNK_ADAMW, T, K> {
    static __device__ __forceinline__ void run(const ew_args &a, size_t i)
    {
        EW_LOAD(0, p);
        EW_LOAD(1, g);
        EW_LOADF(2, m);
        EW_LOADF(3, v);
        float b1 = a.f[1], b2 = a.f[2];
#pragma unroll
        for (int k = 0; k < K; k++) {
            m[k] = b1 * m[k] + (1 - b1) * g[k];
            v[k] = b2 * v[k] + (1 - b2) * g[k] * g[k];
            p[k] *= 1 - a.f[0] * a.f[4];
            p[k] -= a.f[0] * (m[k] / a.f[5]) / (sqrtf(v[k] / a.f[6]) + a.f[3]);
        }
        store_k<K>((float *)a.t[2], i, m);
        store_k<K>((float *)a.t[3], i, v);
        store_k<K>((T *)a.t[0], i, p);
    }
};

template <typename T, int K> struct ew_op<MGPU_NNK_CLIP_SCALE, T, K> {
    static __device__ __forceinline__ void run(const ew_args &a, size_t i)
    {
        float s = a.f[0] / (sqrtf(((const float *)a.t[1])[0]) + 1e-6f);
        if (!(s < 1)) return; /* within the norm: left alone, as on the sim */
        EW_LOAD(0, g);
#pragma unroll
        for (int k = 0; k < K; k++) g[k] *= s;
        store_k<K>((T *)a.t[0], i, g);
    }
};

/* y[r, c] = x[r, c] + bias[c]: a pack never crosses a row when cols is a
 * multiple of it, so c is found once per pack. */
template <typename T, int K> struct ew_op<MGPU_NNK_BIAS_ADD, T, K> {
    static __device__ __forceinline__ void run(const ew_args &a, size_t i)
    {
        EW_LOAD(0, x);
        size_t c = i % a.cols;
        float b[K];
        load_k<K>((const T *)a.t[1], c, b);
#pragma unroll
        for (int k = 0; k < K; k++) x[k] += b[k];
        store_k<K>((T *)a.t[2], i, x);
    }
};

/* dx[r, j] = dy[r] / cols */
template <typename T, int K> struct ew_op<MGPU_NNK_AVGPOOL_BACKWARD, T, K> {
    static __device__ __forceinline__ void run(const ew_args &a, size_t i)
    {
        float v = to_f(((const T *)a.t[0])[i / a.cols]) / (float)a.cols, y[K];
#pragma unroll
        for (int k = 0; k < K; k++) y[k] = v;
        store_k<K>((T *)a.t[1], i, y);
    }
};

/* out[r, j] = table[id_r, j], the id clamped (no fault on a bad id) */
template <typename T, int K> struct ew_op<MGPU_NNK_EMBEDDING, T, K> {
    static __device__ __forceinline__ void run(const ew_args &a, size_t i)
    {
        size_t r = i / a.cols, j = i - r * a.cols;
        long id = ((const int32_t *)a.t[0])[r], vocab = (long)a.vocab;
        id = id < 0 ? 0 : id >= vocab ? vocab - 1 : id;
        float v[K];
        load_k<K>((const T *)a.t[1], (size_t)id * a.cols + j, v);
        store_k<K>((T *)a.t[2], i, v);
    }
};

#undef EW_LOAD
#undef EW_LOADF

/* The streaming ops (activation and its gradient, add, bias add) split in
 * two halves, so a thread can issue the loads of U packs before it stores
 * any: each pack's load and store in one function would serialise them (y
 * may alias x), leaving one 16-byte load per thread in flight - not enough
 * to stream at HBM's rate. load() reads a pack's inputs raw into in[] (4
 * registers a pack: converted to float only when used, or bf16 packs would
 * take 8 registers each and cost the kernel its occupancy), store()
 * computes and writes it. The arithmetic is ew_op's. Packed only (K = the
 * pack). */
template <typename T> __device__ __forceinline__ nn_pack<T> pack_at(const void *base, size_t i)
{
    return reinterpret_cast<const nn_pack<T> *>((const T *)base + i)[0];
}

template <int OP, typename T> struct ew_split;

template <typename T> struct ew_split<MGPU_NNK_ACT, T> {
    static constexpr int NIN = 1, K = pack_of<T>();
    static __device__ __forceinline__ void load(const ew_args &a, size_t i, nn_pack<T> (&in)[NIN])
    {
        in[0] = pack_at<T>(a.t[0], i);
    }
    static __device__ __forceinline__ void store(const ew_args &a, size_t i, const nn_pack<T> (&in)[NIN])
    {
        float x[K];
        unpack(in[0], x);
        if (a.act == 0) { /* relu apart: the unrolled loop would inline GELU's and SiLU's code U x K times */
#pragma unroll
            for (int k = 0; k < K; k++) x[k] = x[k] > 0 ? x[k] : 0;
        } else {
#pragma unroll
            for (int k = 0; k < K; k++) x[k] = act_f(a.act, x[k]);
        }
        store_k<K>((T *)a.t[1], i, x);
    }
};

template <typename T> struct ew_split<MGPU_NNK_ACT_BACKWARD, T> {
    static constexpr int NIN = 2, K = pack_of<T>();
    static __device__ __forceinline__ void load(const ew_args &a, size_t i, nn_pack<T> (&in)[NIN])
    {
        in[0] = pack_at<T>(a.t[0], i);
        in[1] = pack_at<T>(a.t[1], i);
    }
    static __device__ __forceinline__ void store(const ew_args &a, size_t i, const nn_pack<T> (&in)[NIN])
    {
        float x[K], dy[K];
        unpack(in[0], x);
        unpack(in[1], dy);
        if (a.act == 0) {
#pragma unroll
            for (int k = 0; k < K; k++) x[k] = dy[k] * (x[k] > 0 ? 1.f : 0.f);
        } else {
#pragma unroll
            for (int k = 0; k < K; k++) x[k] = dy[k] * act_grad(a.act, x[k]);
        }
        store_k<K>((T *)a.t[2], i, x);
    }
};

template <typename T> struct ew_split<MGPU_NNK_ADD, T> {
    static constexpr int NIN = 2, K = pack_of<T>();
    static __device__ __forceinline__ void load(const ew_args &a, size_t i, nn_pack<T> (&in)[NIN])
    {
        in[0] = pack_at<T>(a.t[0], i);
        if (a.f[1] != 0) in[1] = pack_at<T>(a.t[1], i);
    }
    static __device__ __forceinline__ void store(const ew_args &a, size_t i, const nn_pack<T> (&in)[NIN])
    {
        float x[K], b[K];
        unpack(in[0], x);
        if (a.f[1] != 0) {
            unpack(in[1], b);
#pragma unroll
            for (int k = 0; k < K; k++) x[k] = a.f[0] * x[k] + a.f[1] * b[k];
        } else {
#pragma unroll
            for (int k = 0; k < K; k++) x[k] = a.f[0] * x[k] + 0.f;
        }
        store_k<K>((T *)a.t[2], i, x);
    }
};

/* The bias's column: a 32-bit remainder when the tensor's indices fit (a
 * 64-bit one is a long software routine, once per pack). */
template <typename T> struct ew_split<MGPU_NNK_BIAS_ADD, T> {
    static constexpr int NIN = 2, K = pack_of<T>();
    static __device__ __forceinline__ void load(const ew_args &a, size_t i, nn_pack<T> (&in)[NIN])
    {
        size_t c = a.n < ((size_t)1 << 32) ? (size_t)((uint32_t)i % (uint32_t)a.cols) : i % a.cols;
        in[0] = pack_at<T>(a.t[0], i);
        in[1] = pack_at<T>(a.t[1], c);
    }
    static __device__ __forceinline__ void store(const ew_args &a, size_t i, const nn_pack<T> (&in)[NIN])
    {
        float x[K], b[K];
        unpack(in[0], x);
        unpack(in[1], b);
#pragma unroll
        for (int k = 0; k < K; k++) x[k] += b[k];
        store_k<K>((T *)a.t[2], i, x);
    }
};

/* U packs of K a thread per round: all U loaded, then all U stored; a
 * block's round covers U * blockDim.x consecutive packs, coalesced. Two,
 * not four: on an H100 relu and relu backward 64M bf16 took 0.0926 and
 * 0.1350 ms with two against 0.0933 and 0.1356 with four, eight 0.0946 and
 * 0.1364 (twice the blocks, each done sooner; 16 KB a block in flight is
 * still enough to keep HBM busy). */
#ifndef EW_UNROLL
#define EW_UNROLL 2
#endif

template <int OP, typename T, int K> __global__ void k_ew_unrolled(ew_args a)
{
    typedef ew_split<OP, T> S;
    size_t packs = a.n / K, per = (size_t)blockDim.x * EW_UNROLL;
    for (size_t base = blockIdx.x * per; base < packs; base += (size_t)gridDim.x * per) {
        nn_pack<T> in[EW_UNROLL][S::NIN];
#pragma unroll
        for (int u = 0; u < EW_UNROLL; u++) {
            size_t v = base + (size_t)u * blockDim.x + threadIdx.x;
            if (v < packs) S::load(a, v * K, in[u]);
        }
#pragma unroll
        for (int u = 0; u < EW_UNROLL; u++) {
            size_t v = base + (size_t)u * blockDim.x + threadIdx.x;
            if (v < packs) S::store(a, v * K, in[u]);
        }
    }
    size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x, step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = packs * K + tid; i < a.n; i += step) ew_op<OP, T, 1>::run(a, i);
}

/* Packs of K elements over [0, n / K * K), then the tail one by one. The
 * ops with a row structure (cols) take K > 1 only when cols is a multiple
 * of K, so 64-bit / and % run once per pack. */
template <int OP, typename T, int K> __global__ void k_ew(ew_args a)
{
    size_t packs = a.n / K, tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x, step = (size_t)gridDim.x * blockDim.x;
    for (size_t v = tid; v < packs; v += step) ew_op<OP, T, K>::run(a, v * K);
    if constexpr (K > 1)
        for (size_t i = packs * K + tid; i < a.n; i += step) ew_op<OP, T, 1>::run(a, i);
}

/* The streaming ops, packed: one round of EW_UNROLL packs per thread for
 * every element (no grid-stride rounds unless the grid would pass the
 * limit), as many blocks as that takes. */
template <int OP, typename T> static void launch_unrolled(cudaStream_t st, const ew_args &a)
{
    constexpr int P = pack_of<T>();
    k_ew_unrolled<OP, T, P><<<nn_blocks(a.n / P / EW_UNROLL + 1), NN_THREADS, 0, st>>>(a);
}

template <int OP, typename T> static void launch_op(cudaStream_t st, const ew_args &a, bool vec, int sms)
{
    constexpr int P = pack_of<T>();
    if constexpr (OP == MGPU_NNK_ACT || OP == MGPU_NNK_ACT_BACKWARD || OP == MGPU_NNK_ADD || OP == MGPU_NNK_BIAS_ADD)
        if (vec) {
            launch_unrolled<OP, T>(st, a);
            return;
        }
    size_t work = vec ? a.n / P + 1 : a.n;
    unsigned blocks = nn_blocks(work);
    unsigned cap = (unsigned)(sms > 0 ? sms * 16 : 2048); /* enough to fill the GPU; the loop does the rest */
    if (blocks > cap) blocks = cap;
    if (vec) k_ew<OP, T, P><<<blocks, NN_THREADS, 0, st>>>(a);
    else k_ew<OP, T, 1><<<blocks, NN_THREADS, 0, st>>>(a);
}

template <typename T> static void launch_t(cudaStream_t st, const mgpu_nn_args *na, int sms)
{
    ew_args a = {};
    for (int j = 0; j < 5; j++) a.t[j] = na->t[j];
    for (int j = 0; j < 7; j++) a.f[j] = na->f[j];
    a.act = na->i[0];
    a.n = na->n[0];
    constexpr int P = pack_of<T>();
    /* every tensor the op touches element by element, 16-byte aligned */
    int ntensors = 0;
    switch (na->op) {
    case MGPU_NNK_ACT: ntensors = 2; break;
    case MGPU_NNK_ACT_BACKWARD:
    case MGPU_NNK_SWIGLU:
    case MGPU_NNK_ADD:
    case MGPU_NNK_SGD: ntensors = 3; break;
    case MGPU_NNK_SWIGLU_BACKWARD: ntensors = 5; break;
    case MGPU_NNK_ADAMW: ntensors = 4; break;
    case MGPU_NNK_CLIP_SCALE: ntensors = 1; break;
    case MGPU_NNK_BIAS_ADD:
        a.n = na->n[0] * na->n[1];
        a.cols = na->n[1];
        ntensors = 3;
        break;
    case MGPU_NNK_AVGPOOL_BACKWARD:
        a.n = na->n[0] * na->n[1];
        a.cols = na->n[1];
        a.t[0] = na->t[0];
        a.t[2] = NULL;
        ntensors = 0;
        break;
    case MGPU_NNK_EMBEDDING:
        a.n = na->n[0] * na->n[1];
        a.cols = na->n[1];
        a.vocab = na->n[2];
        ntensors = 0;
        break;
    default: break;
    }
    bool vec = true;
    for (int j = 0; j < ntensors; j++)
        if (na->t[j] && !nn_aligned16(na->t[j])) vec = false;
    if (a.cols && a.cols % P) vec = false;
    if (na->op == MGPU_NNK_AVGPOOL_BACKWARD) vec = nn_aligned16(na->t[1]) && a.cols % P == 0;
    if (na->op == MGPU_NNK_EMBEDDING) vec = nn_aligned16(na->t[1]) && nn_aligned16(na->t[2]) && a.cols % P == 0;
    if (na->op == MGPU_NNK_CLIP_SCALE) vec = nn_aligned16(na->t[0]);
    switch (na->op) {
    case MGPU_NNK_ACT: launch_op<MGPU_NNK_ACT, T>(st, a, vec, sms); break;
    case MGPU_NNK_ACT_BACKWARD: launch_op<MGPU_NNK_ACT_BACKWARD, T>(st, a, vec, sms); break;
    case MGPU_NNK_SWIGLU: launch_op<MGPU_NNK_SWIGLU, T>(st, a, vec, sms); break;
    case MGPU_NNK_SWIGLU_BACKWARD: launch_op<MGPU_NNK_SWIGLU_BACKWARD, T>(st, a, vec, sms); break;
    case MGPU_NNK_ADD: launch_op<MGPU_NNK_ADD, T>(st, a, vec, sms); break;
    case MGPU_NNK_SGD: launch_op<MGPU_NNK_SGD, T>(st, a, vec, sms); break;
    case MGPU_NNK_ADAMW: launch_op<MGPU_NNK_ADAMW, T>(st, a, vec, sms); break;
    case MGPU_NNK_CLIP_SCALE: launch_op<MGPU_NNK_CLIP_SCALE, T>(st, a, vec, sms); break;
    case MGPU_NNK_BIAS_ADD: launch_op<MGPU_NNK_BIAS_ADD, T>(st, a, vec, sms); break;
    case MGPU_NNK_AVGPOOL_BACKWARD: launch_op<MGPU_NNK_AVGPOOL_BACKWARD, T>(st, a, vec, sms); break;
    case MGPU_NNK_EMBEDDING: launch_op<MGPU_NNK_EMBEDDING, T>(st, a, vec, sms); break;
    default: break;
    }
}

int cuda_nn_is_elementwise(mgpu_nn_kernel op)
{
    switch (op) {
    case MGPU_NNK_ACT:
    case MGPU_NNK_ACT_BACKWARD:
    case MGPU_NNK_SWIGLU:
    case MGPU_NNK_SWIGLU_BACKWARD:
    case MGPU_NNK_ADD:
    case MGPU_NNK_SGD:
    case MGPU_NNK_ADAMW:
    case MGPU_NNK_CLIP_SCALE:
    case MGPU_NNK_BIAS_ADD:
    case MGPU_NNK_AVGPOOL_BACKWARD:
    case MGPU_NNK_EMBEDDING: return 1;
    default: return 0;
    }
}

cudaError_t cuda_nn_elementwise(cudaStream_t st, const mgpu_nn_args *a, int sms)
{
    if (a->dtype == MGPU_BF16) launch_t<uint16_t>(st, a, sms);
    else launch_t<float>(st, a, sms);
    return cudaGetLastError();
}
