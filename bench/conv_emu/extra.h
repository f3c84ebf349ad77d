/* extra.h for bench/conv_emu: what the igemm and halo files use beyond the shim. */
#pragma once
#include <type_traits>
#include <algorithm>
using std::min;
struct uint4 { unsigned x, y, z, w; };
struct alignas(8) uint2 { unsigned x, y; };
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }
struct alignas(16) float4 { float x, y, z, w; };
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
#define cudaSuccess 0
inline int cudaMemsetAsync(void *p, int v, size_t n, void *) { memset(p, v, n); return 0; }
/* dynamic shared memory: a static array of the launch's size (one block
 * runs at a time), so that ASan sees an index past it */
#define HW_SMEM_DECL(name, bytes) static __attribute__((aligned(128))) uint4 name[(bytes) / sizeof(uint4)]
enum { cudaFuncAttributeMaxDynamicSharedMemorySize = 8, cudaFuncAttributePreferredSharedMemoryCarveout = 9 };
enum { cudaSharedmemCarveoutMaxShared = 100 };
template <class F> inline int cudaFuncSetAttribute(F, int, int) { return 0; }
