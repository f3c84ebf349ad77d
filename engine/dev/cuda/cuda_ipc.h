/* cuda_ipc.h - the cuda backend's IPC ops (cuda_ipc.cu), for the ops table
 * and the memory code in dev_cuda.cu. CUDA C++ only. */
#ifndef MGPU_CUDA_IPC_H
#define MGPU_CUDA_IPC_H
#include "dev/cuda/cuda_internal.h"

mgpu_result cuda_ipc_export(mgpu_buffer *buf, size_t off, size_t bytes, mgpu_ipc_wire *w);
mgpu_result cuda_ipc_open(mgpu_backend *be, int dev, const mgpu_ipc_wire *w, mgpu_buffer *buf);
mgpu_result cuda_ipc_close(mgpu_buffer *buf);

/* 1 when buf was opened from a handle (its impl is the import record). */
int cuda_ipc_is_import(const mgpu_buffer *buf);
/* The device an opened buffer was mapped on (kernels there may touch it:
 * cudaIpcMemLazyEnablePeerAccess), -1 for other buffers. */
int cuda_ipc_open_device(const mgpu_buffer *buf);
/* Unmap an opened buffer without reporting (mem_free cannot fail). */
void cuda_ipc_release(mgpu_buffer *buf);

#endif
