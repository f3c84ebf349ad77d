/* cuda_internal.h - what the cuda backend's files share: its state, the
 * CUDA-error-to-mgpu_result mapping, the device guard and the CUDA_TRY macro.
 * C++ (CUDA) only: included by the files of engine/dev/cuda/ (cuda_*.cu, dev_cuda.cu). */
#ifndef MGPU_CUDA_INTERNAL_H
#define MGPU_CUDA_INTERNAL_H
#include <cuda_runtime.h>
#include <pthread.h>
#include "dev/backend.h"

/* A pageable buffer we allocated: cudaPointerGetAttributes cannot tell an
 * ordinary malloc'd address from any other host address, so we remember
 * ours to answer MGPU_MEM_PAGEABLE rather than MGPU_MEM_UNKNOWN. */
struct cuda_pageable {
    char *ptr;
    size_t bytes;
};

struct cuda_gate_page; /* cuda_gate.cu */

struct cuda_backend {
    int ndev;
    cudaDeviceProp *props;       /* [ndev], read once at open */
    unsigned char *peer_on;      /* [ndev*ndev]: peer access dev->peer enabled by us */
    pthread_mutex_t lock;        /* guards pageable registry, gate pages, peer_on */
    struct cuda_pageable *pageable;
    int npageable, cap_pageable;
    struct cuda_gate_page *gate_pages;
    uint64_t *phantom_used;      /* [ndev]: phantom bytes counted against each GPU */
    void **blas;                 /* [ndev] cuBLAS handles, made at the first GEMM (cuda_blas.cu) */
};

static inline struct cuda_backend *cuda_be(mgpu_backend *be)
{
    return (struct cuda_backend *)be->impl;
}

static inline cudaStream_t cuda_stream_of(const mgpu_stream *s)
{
    return (cudaStream_t)s->impl;
}

/* Turn a CUDA error into an mgpu result with a message naming the device,
 * the operation (printf-style `what`) and CUDA's name and text for the
 * error. Clears the runtime's last error when it is not sticky; sticky
 * errors (a kernel fault) say so, since every later call will fail too. */
mgpu_result cuda_fail(cudaError_t e, int dev, const char *what, ...) __attribute__((format(printf, 3, 4)));

/* "2.0 TiB", "139.2 GiB", "512 B": sizes for messages. */

/* Saves the caller's current device and restores it when the scope ends, as
 * multi-GPU code must (a library must not leave the device switched). */
class cuda_device_guard {
  public:
    cuda_device_guard() : prev_(-1) { (void)cudaGetDevice(&prev_); }
    ~cuda_device_guard()
    {
        if (prev_ >= 0) (void)cudaSetDevice(prev_);
    }
    cuda_device_guard(const cuda_device_guard &) = delete;
    cuda_device_guard &operator=(const cuda_device_guard &) = delete;

  private:
    int prev_;
};

/* Run a CUDA call; on failure return the mapped result from the enclosing
 * function, with the operation described printf-style. */
#define CUDA_TRY(call, dev, ...)                                           \
    do {                                                                   \
        cudaError_t cuda_e_ = (call);                                      \
        if (cuda_e_ != cudaSuccess) {                                      \
            cuda_fail(cuda_e_, (dev), __VA_ARGS__);                        \
            mgpu_error_breadcrumb(__FILE__, __LINE__, __func__);           \
            return mgpu_error_code();                                      \
        }                                                                  \
    } while (0)

/* Switch to `dev` for the rest of the scope (restored by the guard). */
#define CUDA_ON_DEVICE(dev)                                                \
    cuda_device_guard cuda_guard_;                                         \
    CUDA_TRY(cudaSetDevice(dev), (dev), "selecting device %d", (dev))

/* Where buf+off is reachable by kernels on device `dev`: its own memory,
 * pinned host memory through the mapped pointer, or a peer's memory when
 * peer access dev->owner is enabled. Fails with MGPU_ERR_PEER or
 * MGPU_ERR_UNSUPPORTED (pageable, unknown) and a message saying what to do. */
mgpu_result cuda_reach(mgpu_backend *be, int dev, const mgpu_buffer *buf, size_t off,
                       const char *what, char **out);

/* 1 when dev may address peer's memory (peer access enabled by us). */
int cuda_peer_enabled(mgpu_backend *be, int dev, int peer);

/* Gate flag pages: the first at open, freed at close (cuda_gate.cu). */
mgpu_result cuda_gate_pages_init(struct cuda_backend *cb);
void cuda_gate_pages_free(struct cuda_backend *cb);

/* Ops implemented in the work files, referenced by the ops table. */
mgpu_result cuda_gate_hold(mgpu_stream *s, double timeout_ms, mgpu_gate *g);
mgpu_result cuda_gate_open(mgpu_gate *g);
/* cuda_vmm.cu: expandable segments over the CUDA virtual memory API. */
mgpu_result cuda_vmm_reserve(mgpu_backend *be, mgpu_buffer *seg);
mgpu_result cuda_vmm_map(mgpu_buffer *seg, size_t off, size_t bytes);
void cuda_vmm_unmap(mgpu_buffer *seg, size_t off, size_t bytes);
void cuda_vmm_release(mgpu_buffer *seg);
size_t cuda_vmm_granularity(mgpu_backend *be, int dev);
mgpu_result cuda_copy(mgpu_stream *s, mgpu_buffer *dst, size_t dst_off, const mgpu_buffer *src,
                      size_t src_off, size_t bytes, mgpu_copy_engine how);
mgpu_result cuda_memory_latency(mgpu_stream *s, mgpu_buffer *buf, size_t bytes, uint64_t accesses,
                                double *ns);
extern "C" const struct mgpu_nn_ops cuda_nn_ops; /* cuda_nn.cu */
void cuda_blas_free(struct cuda_backend *cb);     /* cuda_blas.cu */
mgpu_result cuda_fill(mgpu_stream *s, mgpu_buffer *buf, size_t off, size_t count, mgpu_dtype dtype,
                      const mgpu_fill_spec *spec);
mgpu_result cuda_checksum(mgpu_stream *s, const mgpu_buffer *buf, size_t off, size_t count,
                          mgpu_dtype dtype, uint64_t *out);

#endif
