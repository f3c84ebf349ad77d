/* cuda_kernels.h - the cuda backend's kernels, behind host launchers that
 * return the launch's cudaError_t (C++/CUDA only). Each launcher queues work
 * on `stream` of the current device; `sm_count` sizes the grid. */
#ifndef MGPU_CUDA_KERNELS_H
#define MGPU_CUDA_KERNELS_H
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>
#include "mgpu/dtype.h"

/* Load every kernel on the current device now. With CUDA's lazy loading a
 * kernel is loaded at its first launch, which can wait for a running spin
 * kernel to finish: a deadlock until the gate's timeout. */
cudaError_t cuda_kernels_preload(void);

/* dst[0, bytes) = src[0, bytes): 16-byte vector loads and stores when both
 * pointers share 16-byte alignment, 4-byte ones when they share 4, bytes
 * otherwise; the unaligned head and tail are copied byte by byte. */
cudaError_t cuda_launch_copy(void *dst, const void *src, size_t bytes, int sm_count,
                             cudaStream_t stream);

/* The deterministic fill of dtype.h, element i at base[i]. */
cudaError_t cuda_launch_fill(void *base, size_t count, mgpu_dtype t, const mgpu_fill_spec *spec,
                             int sm_count, cudaStream_t stream);

/* *acc (device memory, zeroed by the caller) += checksum terms of base[0, count). */
cudaError_t cuda_launch_checksum(const void *base, size_t count, mgpu_dtype t,
                                 unsigned long long *acc, int sm_count, cudaStream_t stream);

/* One thread spins until *flag != 0 or timeout_ns of %globaltimer pass;
 * on timeout it sets *timed_out = 1. */
cudaError_t cuda_launch_spin(volatile int *flag, int *timed_out, unsigned long long timeout_ns,
                             cudaStream_t stream);

/* Writes next[j] (an address) into the 8-byte slot at ring + j*stride. */
cudaError_t cuda_launch_ring_scatter(char *ring, size_t stride, const uint64_t *next, size_t n,
                                     int sm_count, cudaStream_t stream);

/* One thread follows `accesses` dependent loads from `start`, stopping early
 * when limit_ns pass. out[0] = elapsed ns, out[1] = loads done, out[2] = the
 * last address (kept so the chain cannot be optimised away). */
cudaError_t cuda_launch_chase(const uint64_t *start, unsigned long long accesses,
                              unsigned long long limit_ns, unsigned long long *out,
                              cudaStream_t stream);

#endif
