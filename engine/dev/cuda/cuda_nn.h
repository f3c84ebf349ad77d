/* cuda_nn.h - what the cuda backend's training-op kernels share (C++/CUDA
 * only): element types (float, and bf16 stored as uint16_t, converted
 * through dtype.h so bf16 rounds exactly as on the sim), 16-byte packed
 * loads, division by a runtime divisor without the hardware divide, the
 * fixed-tree block sum, and the launchers each kernel file gives the ops
 * table (cuda_nn.cu). Every kernel is deterministic: no atomics, and every
 * sum has an order fixed by the shapes alone. */
#ifndef MGPU_CUDA_NN_H
#define MGPU_CUDA_NN_H
#include <stdint.h>
#include "dev/cuda/cuda_internal.h"
#include "mgpu/nn_ops.h"

#define NN_THREADS 256

/*--- Element types ------------------------------------------------------------*/

__device__ __forceinline__ float to_f(float v) { return v; }
__device__ __forceinline__ float to_f(uint16_t v) { return mgpu_bf16_to_f32(v); }
template <typename T> __device__ __forceinline__ T from_f(float v);
template <> __device__ __forceinline__ float from_f<float>(float v) { return v; }
template <> __device__ __forceinline__ uint16_t from_f<uint16_t>(float v) { return mgpu_f32_to_bf16(v); }

/* 16 bytes of T: 4 floats or 8 bf16, one vector load or store. */
template <typename T> struct __align__(16) nn_pack {
    T v[16 / sizeof(T)];
};
template <typename T> constexpr int pack_of() { return (int)(16 / sizeof(T)); }

/* K elements of p from i into f (K a multiple of the pack when the caller
 * checked p is 16-byte aligned and i a multiple of K; else K may be 1). */
template <int K, typename T, typename I> __device__ __forceinline__ void load_k(const T *p, I i, float (&f)[K])
{
    constexpr int P = pack_of<T>();
    if constexpr (K % P == 0) {
        const nn_pack<T> *q = reinterpret_cast<const nn_pack<T> *>(p + i);
#pragma unroll
        for (int j = 0; j < K / P; j++) {
            nn_pack<T> v = q[j];
#pragma unroll
            for (int k = 0; k < P; k++) f[j * P + k] = to_f(v.v[k]);
        }
    } else {
#pragma unroll
        for (int k = 0; k < K; k++) f[k] = to_f(p[i + k]);
    }
}

template <int K, typename T, typename I> __device__ __forceinline__ void store_k(T *p, I i, const float (&f)[K])
{
    constexpr int P = pack_of<T>();
    if constexpr (K % P == 0) {
        nn_pack<T> *q = reinterpret_cast<nn_pack<T> *>(p + i);
#pragma unroll
        for (int j = 0; j < K / P; j++) {
            nn_pack<T> v;
#pragma unroll
            for (int k = 0; k < P; k++) v.v[k] = from_f<T>(f[j * P + k]);
            q[j] = v;
        }
    } else {
#pragma unroll
        for (int k = 0; k < K; k++) p[i + k] = from_f<T>(f[k]);
    }
}

/* A pack held raw (as loaded) converted to floats when it is used: a raw
 * bf16 pack is 4 registers, its floats 8. */
template <typename T> __device__ __forceinline__ void unpack(const nn_pack<T> &p, float (&f)[pack_of<T>()])
{
#pragma unroll
    for (int k = 0; k < pack_of<T>(); k++) f[k] = to_f(p.v[k]);
}

static inline int nn_aligned16(const void *p) { return ((uintptr_t)p & 15) == 0; }

/*--- Division by a divisor fixed at launch ----------------------------------------*/

/* n / d for 32-bit n < 2^31 and 1 <= d <= 2^31 by a multiply and a shift
 * (the round-up method PyTorch's IntDivider uses); a 64-bit index divides
 * plainly. The kernels take I = uint32_t when every index fits below 2^31. */
template <typename I> struct nn_div {
    I d;
    nn_div() = default;
    explicit nn_div(size_t v) : d((I)(v ? v : 1)) {} /* 0: an empty tensor, no work to divide */
    __device__ __forceinline__ I div(I n) const { return n / d; }
};

template <> struct nn_div<uint32_t> {
    uint32_t d, m, s;
    nn_div() = default;
    explicit nn_div(size_t v) : d((uint32_t)(v ? v : 1)), m(0), s(0)
    {
        v = d;
        while (((uint64_t)1 << s) < v) s++;
        m = (uint32_t)((((uint64_t)1 << 32) * (((uint64_t)1 << s) - v)) / v + 1);
    }
    __device__ __forceinline__ uint32_t div(uint32_t n) const { return (__umulhi(n, m) + n) >> s; }
};

/* 1 when every index below `n` fits the 32-bit kernels. */
static inline int nn_fits32(size_t n) { return n < ((size_t)1 << 31); }

/* Blocks for n work items of NN_THREADS threads, within the grid's limit
 * (the kernels loop when there are more). */
static inline unsigned nn_blocks(size_t n, unsigned threads = NN_THREADS)
{
    size_t b = (n + threads - 1) / threads;
    return (unsigned)(b < 1 ? 1 : b > 65535 * 16 ? 65535 * 16 : b);
}

/*--- Block sum: a fixed tree --------------------------------------------------*/

/* The sum of v over the block (every thread gets it); blockDim.x a power of
 * two up to NN_THREADS. Same inputs, same order, same bits. */
__device__ __forceinline__ float nn_block_sum(float v)
{
    __shared__ float sh[NN_THREADS];
    __syncthreads();
    sh[threadIdx.x] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    return sh[0];
}

/*--- The kernel files' launchers ------------------------------------------------*/

/* Launch op `a` on st; return the launch's CUDA error (cudaGetLastError).
 * Reductions that need a scratch buffer get `ws` of the bytes that
 * cuda_nn_scratch_bytes said (NULL when none). */
cudaError_t cuda_nn_elementwise(cudaStream_t st, const mgpu_nn_args *a, int sms);
cudaError_t cuda_nn_conv(cudaStream_t st, const mgpu_nn_args *a);
/* conv2d's implicit GEMMs (MGPU_NNK_CONV2D*); the weight gradient needs
 * cuda_nn_conv_igemm_scratch bytes of `ws` for its partial sums. */
cudaError_t cuda_nn_conv_igemm(cudaStream_t st, const mgpu_nn_args *a, void *ws);
size_t cuda_nn_conv_igemm_scratch(const mgpu_nn_args *a);
int cuda_nn_is_conv_igemm(mgpu_nn_kernel op);
cudaError_t cuda_nn_reduce(cudaStream_t st, const mgpu_nn_args *a, void *ws, int sms);
size_t cuda_nn_scratch_bytes(const mgpu_nn_args *a);
/* The norm backward in one pass (cuda_nn_norm_back.cu): false when the
 * shape or alignment wants the row kernel and column sums instead; its
 * scratch (0 when the shape never takes it). */
bool cuda_nn_norm_back_1pass(cudaStream_t st, const mgpu_nn_args *a, float *ws);
size_t cuda_nn_norm_back_scratch(const mgpu_nn_args *a);
/* 1 when the op is one of the file's. */
int cuda_nn_is_elementwise(mgpu_nn_kernel op);
int cuda_nn_is_reduce(mgpu_nn_kernel op);

#endif
