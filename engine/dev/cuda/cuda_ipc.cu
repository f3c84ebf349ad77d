/* cuda_ipc.cu - the cuda backend's interprocess memory: cudaIpcGetMemHandle
 * on export, cudaIpcOpenMemHandle (lazy peer access) on open,
 * cudaIpcCloseMemHandle on close. CUDA decides what a stale handle does;
 * we pass its answer on, with the likely cause. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dev/cuda/cuda_ipc.h"

static_assert(sizeof(cudaIpcMemHandle_t) <= sizeof(((mgpu_ipc_wire *)0)->payload), "IPC handle fits");

/* buf->impl of an opened buffer (cudaMalloc'd device buffers have none). */
struct cuda_import {
    unsigned magic;
    void *base;    /* what cudaIpcOpenMemHandle returned */
    int open_dev;  /* the device (context) it was opened in */
};
#define IMPORT_MAGIC 0x49504331u

int cuda_ipc_is_import(const mgpu_buffer *buf)
{
    const struct cuda_import *im = (const struct cuda_import *)buf->impl;
    return buf->kind == MGPU_MEM_DEVICE && im && im->magic == IMPORT_MAGIC;
}

int cuda_ipc_open_device(const mgpu_buffer *buf)
{
    return cuda_ipc_is_import(buf) ? ((const struct cuda_import *)buf->impl)->open_dev : -1;
}

mgpu_result cuda_ipc_export(mgpu_buffer *buf, size_t off, size_t bytes, mgpu_ipc_wire *w)
{
    if (cuda_ipc_is_import(buf))
        return mgpu_fail(MGPU_ERR_INVALID,
                         "IPC export: this buffer was itself opened from an IPC handle; only the "
                         "process that allocated memory can export it (cudaIpcGetMemHandle refuses "
                         "imported memory): pass the original handle on instead");
    CUDA_ON_DEVICE(buf->device);
    cudaIpcMemHandle_t h;
    CUDA_TRY(cudaIpcGetMemHandle(&h, buf->ptr), buf->device,
             "exporting %zu bytes of device memory (cudaIpcGetMemHandle)", buf->bytes);
    memcpy(w->payload, &h, sizeof h);
    w->backend = MGPU_IPC_BACKEND_CUDA;
    w->device = buf->device;
    /* The handle names the whole cudaMalloc allocation (a caching
     * allocator's segment); the block is a range of it. */
    w->offset = off;
    w->bytes = bytes;
    w->host = 0;
    return MGPU_OK;
}

mgpu_result cuda_ipc_open(mgpu_backend *be, int dev, const mgpu_ipc_wire *w, mgpu_buffer *buf)
{
    (void)be;
    char by[48];
    mgpu_ipc_wire_who(w, by, sizeof by);
    cudaIpcMemHandle_t h;
    memcpy(&h, w->payload, sizeof h);
    struct cuda_import *im = (struct cuda_import *)calloc(1, sizeof *im);
    if (!im) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory");
    CUDA_ON_DEVICE(dev);
    void *p = NULL;
    cudaError_t e = cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess);
    if (e != cudaSuccess) {
        free(im);
        mgpu_result code = cuda_fail(e, dev, "opening %s's IPC handle of %llu bytes (cudaIpcOpenMemHandle)", by,
                                     (unsigned long long)w->bytes);
        /* CUDA does not say "stale"; name the causes a learner can check. */
        char *msg = strdup(mgpu_error_message());
        mgpu_fail(code,
                  "%s. A handle stops working when its exporter frees the buffer or exits; it also "
                  "fails across containers without a shared IPC namespace, and when device %d "
                  "cannot peer-access the memory's GPU",
                  msg ? msg : "cudaIpcOpenMemHandle failed", dev);
        free(msg);
        mgpu_error_breadcrumb(__FILE__, __LINE__, __func__);
        return code;
    }
    /* The memory's own device, in this process's numbering (its
     * CUDA_VISIBLE_DEVICES may differ from the exporter's). */
    cudaPointerAttributes a;
    memset(&a, 0, sizeof a);
    if (cudaPointerGetAttributes(&a, p) == cudaSuccess && a.type == cudaMemoryTypeDevice) buf->device = a.device;
    else {
        (void)cudaGetLastError();
        buf->device = dev;
    }
    im->magic = IMPORT_MAGIC;
    im->base = p;
    im->open_dev = dev;
    buf->ptr = (char *)p + w->offset;
    buf->impl = im;
    return MGPU_OK;
}

void cuda_ipc_release(mgpu_buffer *buf)
{
    struct cuda_import *im = (struct cuda_import *)buf->impl;
    cuda_device_guard guard;
    if (cudaSetDevice(im->open_dev) == cudaSuccess) (void)cudaIpcCloseMemHandle(im->base);
    (void)cudaGetLastError();
    im->magic = 0;
    free(im);
    buf->impl = NULL;
    buf->ptr = NULL;
}

mgpu_result cuda_ipc_close(mgpu_buffer *buf)
{
    if (!cuda_ipc_is_import(buf))
        return mgpu_fail(MGPU_ERR_INVALID, "IPC close: this buffer was not opened from an IPC handle; free it instead");
    struct cuda_import *im = (struct cuda_import *)buf->impl;
    {
        CUDA_ON_DEVICE(im->open_dev);
        CUDA_TRY(cudaIpcCloseMemHandle(im->base), im->open_dev, "closing an IPC mapping (cudaIpcCloseMemHandle)");
    }
    im->magic = 0;
    free(im);
    buf->impl = NULL;
    buf->ptr = NULL;
    return MGPU_OK;
}
