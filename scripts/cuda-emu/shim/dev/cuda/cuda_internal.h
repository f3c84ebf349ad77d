/* shim/dev/cuda/cuda_internal.h - stands in for engine/dev/cuda/cuda_internal.h when
 * scripts/cuda-emu/run compiles the cuda backend's training-op kernels
 * (cuda_nn_*.cu) as plain C++ for the host: the CUDA keywords the kernels
 * use, and a launch that runs a grid block after block, each block's
 * threads as std::threads meeting at a barrier for __syncthreads, with
 * __shared__ arrays as statics (one block runs at a time). Slow, but every
 * index, bound and fixed-order sum is the kernels' own. */
#pragma once
#include <cstdint>
#include <cstddef>
#include <cstring>
#include <cmath>
#include <thread>
#include <barrier>
#include <vector>
#include <memory>
#include <cstdio>
#include <cstdlib>
#include "mgpu/dev.h"
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__
#define __align__(n) alignas(n)
#define __shared__ static
#define __launch_bounds__(...)
struct dim3 { unsigned x, y, z; dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
typedef void *cudaStream_t;
typedef int cudaError_t;
inline cudaError_t cudaGetLastError() { return 0; }
extern dim3 gridDim, blockIdx, blockDim;
extern thread_local dim3 threadIdx;
extern std::barrier<> *emu_bar;
inline void __syncthreads() { emu_bar->arrive_and_wait(); }
/* A warp's shuffle: the 32 threads of a warp meet at their own barrier
 * (a kernel may shuffle in one warp only, so the block's barrier would not
 * do), each posts its value, then reads its partner's. */
extern thread_local std::barrier<> *emu_warp_bar;
extern uint64_t emu_shfl_slot[1024];
template <typename T> inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask)
{
    (void)mask;
    static_assert(sizeof(T) <= sizeof(uint64_t), "a shuffle moves at most 8 bytes");
    unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned nt = blockDim.x * blockDim.y * blockDim.z;
    uint64_t w = 0;
    memcpy(&w, &v, sizeof v);
    emu_shfl_slot[t] = w;
    emu_warp_bar->arrive_and_wait();
    unsigned src = (t & ~31u) | ((t & 31u) ^ (unsigned)lane_mask);
    uint64_t r = emu_shfl_slot[src < nt ? src : t];
    emu_warp_bar->arrive_and_wait();
    T out;
    memcpy(&out, &r, sizeof out);
    return out;
}
inline uint32_t __umulhi(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32); }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
template <typename F, typename... A> void emu_launch(dim3 g, dim3 b, int shm, cudaStream_t st, F f, A... a)
{
    (void)shm; (void)st;
    if (g.x == 0 || g.y == 0 || g.z == 0 || b.x == 0 || b.x * b.y * b.z > 1024 || g.y > 65535 || g.z > 65535) {
        fprintf(stderr, "a launch CUDA would refuse: grid %u x %u x %u, block %u x %u x %u\n", g.x, g.y, g.z, b.x,
                b.y, b.z);
        abort();
    }
    gridDim = g; blockDim = b;
    unsigned nt = b.x * b.y * b.z;
    for (unsigned z = 0; z < g.z; z++)
        for (unsigned y = 0; y < g.y; y++)
            for (unsigned x = 0; x < g.x; x++) {
                blockIdx = dim3(x, y, z);
                std::barrier<> bar(nt);
                emu_bar = &bar;
                std::vector<std::unique_ptr<std::barrier<>>> warps;
                for (unsigned w0 = 0; w0 < nt; w0 += 32)
                    warps.emplace_back(std::make_unique<std::barrier<>>(nt - w0 < 32 ? nt - w0 : 32));
                std::vector<std::thread> th;
                for (unsigned t = 0; t < nt; t++)
                    th.emplace_back([&, t] {
                        threadIdx = dim3(t % b.x, t / b.x % b.y, t / (b.x * b.y));
                        emu_warp_bar = warps[t / 32].get();
                        f(a...);
                        emu_warp_bar->arrive_and_drop();
                        emu_bar->arrive_and_drop();
                    });
                for (auto &t : th) t.join();
            }
}
