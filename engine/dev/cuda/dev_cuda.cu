/* dev_cuda.cu - the cuda device backend: devices, memory, streams, events
 * and peer access on the CUDA runtime; the ops table. Copies, fills, gates
 * and latency live in cuda_work.cu and cuda_gate.cu. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dev/cuda/cuda_internal.h"
#include "dev/cuda/cuda_ipc.h"
#include "dev/mem/mem_dev.h"
#include "mgpu/size.h"
#include "dev/cuda/cuda_kernels.h"
#include "mgpu/topo.h"

/*--- Open and close ---------------------------------------------------*/

static void cuda_close(mgpu_backend *be)
{
    struct cuda_backend *cb = cuda_be(be);
    if (!cb) return;
    /* Peer access is context state that outlives us; undo what we enabled
     * so a later open starts from what its table says. */
    if (cb->peer_on) {
        cuda_device_guard guard;
        for (int d = 0; d < cb->ndev; d++)
            for (int p = 0; p < cb->ndev; p++)
                if (cb->peer_on[d * cb->ndev + p] && cudaSetDevice(d) == cudaSuccess)
                    (void)cudaDeviceDisablePeerAccess(p);
        (void)cudaGetLastError();
    }
    cuda_gate_pages_free(cb);
    cuda_blas_free(cb);
    for (int i = 0; i < cb->npageable; i++) free(cb->pageable[i].ptr);
    free(cb->pageable);
    free(cb->peer_on);
    free(cb->phantom_used);
    free(cb->props);
    pthread_mutex_destroy(&cb->lock);
    free(cb);
    be->impl = NULL;
}

static mgpu_result cuda_open(mgpu_backend *be, const mgpu_backend_config *cfg)
{
    (void)cfg; /* the machine is what discovery finds; --machine is sim's */
    int n = 0;
    CUDA_TRY(cudaGetDeviceCount(&n), -1, "counting GPUs (cudaGetDeviceCount)");
    if (n <= 0)
        return mgpu_fail(MGPU_ERR_NO_DEVICE,
                         "the NVIDIA driver reports no GPU; check nvidia-smi and "
                         "CUDA_VISIBLE_DEVICES, or use --backend sim");

    struct cuda_backend *cb = (struct cuda_backend *)calloc(1, sizeof *cb);
    if (!cb) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory opening the cuda backend");
    pthread_mutex_init(&cb->lock, NULL);
    be->impl = cb; /* from here on dev.c closes us on failure */
    cb->ndev = n;
    cb->props = (cudaDeviceProp *)calloc((size_t)n, sizeof *cb->props);
    cb->peer_on = (unsigned char *)calloc((size_t)n * (size_t)n, 1);
    cb->phantom_used = (uint64_t *)calloc((size_t)n, sizeof *cb->phantom_used);
    if (!cb->props || !cb->peer_on || !cb->phantom_used) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory opening the cuda backend");

    cuda_device_guard guard;
    for (int d = 0; d < n; d++) {
        CUDA_TRY(cudaGetDeviceProperties(&cb->props[d], d), d, "reading device properties");
        CUDA_TRY(cudaSetDevice(d), d, "selecting device %d", d);
        /* Creates the context now and loads our kernels, so neither happens
         * later behind a held stream gate. */
        CUDA_TRY(cuda_kernels_preload(), d, "loading the mgpulab kernels (built for sm_90 + PTX)");
    }
    MGPU_CHECK(cuda_gate_pages_init(cb));
    /* be->topo stays NULL: dev.c discovers this machine once the backend
     * is open (the sim builds its own) */
    return MGPU_OK;
}

static mgpu_result cuda_device_count(mgpu_backend *be, int *count)
{
    *count = cuda_be(be)->ndev;
    return MGPU_OK;
}

/*--- Devices ----------------------------------------------------------*/

static mgpu_result cuda_device_info(mgpu_backend *be, int dev, mgpu_device_info *out)
{
    const cudaDeviceProp *p = &cuda_be(be)->props[dev];
    out->index = dev;
    snprintf(out->name, sizeof out->name, "%.*s", (int)sizeof out->name - 1, p->name);
    char bus[32] = "";
    CUDA_TRY(cudaDeviceGetPCIBusId(bus, (int)sizeof bus, dev), dev, "reading the PCI bus id");
    for (char *c = bus; *c; c++) *c = (char)tolower((unsigned char)*c);
    snprintf(out->pci_bus_id, sizeof out->pci_bus_id, "%s", bus);
    const unsigned char *u = (const unsigned char *)p->uuid.bytes;
    snprintf(out->uuid, sizeof out->uuid,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    out->total_mem = p->totalGlobalMem;
    out->sm_count = p->multiProcessorCount;
    out->cc_major = p->major;
    out->cc_minor = p->minor;
    out->async_engines = p->asyncEngineCount;
    out->can_map_host_memory = p->canMapHostMemory;
    out->unified_addressing = p->unifiedAddressing;
    /* The host NUMA node nearest the GPU; older drivers do not know it. */
    int numa = -1;
    if (cudaDeviceGetAttribute(&numa, cudaDevAttrHostNumaId, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        numa = -1;
    }
    out->numa_node = numa < 0 ? -1 : numa;
    return MGPU_OK;
}

static mgpu_result cuda_mem_info(mgpu_backend *be, int dev, uint64_t *free_b, uint64_t *total_b)
{
    CUDA_ON_DEVICE(dev);
    size_t f = 0, t = 0;
    CUDA_TRY(cudaMemGetInfo(&f, &t), dev, "reading free memory (cudaMemGetInfo)");
    /* phantom memory (asked for explicitly) is counted as in use */
    struct cuda_backend *cb = cuda_be(be);
    pthread_mutex_lock(&cb->lock);
    uint64_t ph = cb->phantom_used[dev];
    pthread_mutex_unlock(&cb->lock);
    *free_b = f > ph ? f - ph : 0;
    *total_b = t;
    return MGPU_OK;
}

static mgpu_result cuda_device_synchronize(mgpu_backend *be, int dev)
{
    (void)be;
    CUDA_ON_DEVICE(dev);
    CUDA_TRY(cudaDeviceSynchronize(), dev, "synchronising the device");
    return MGPU_OK;
}

/*--- Memory -----------------------------------------------------------*/

static mgpu_result pageable_register(struct cuda_backend *cb, char *ptr, size_t bytes)
{
    mgpu_result r = MGPU_OK;
    pthread_mutex_lock(&cb->lock);
    if (cb->npageable == cb->cap_pageable) {
        int cap = cb->cap_pageable ? cb->cap_pageable * 2 : 16;
        void *grown = realloc(cb->pageable, (size_t)cap * sizeof *cb->pageable);
        if (!grown) r = mgpu_fail(MGPU_ERR_NOMEM, "out of host memory");
        else {
            cb->pageable = (struct cuda_pageable *)grown;
            cb->cap_pageable = cap;
        }
    }
    if (r == MGPU_OK) cb->pageable[cb->npageable++] = (struct cuda_pageable){ptr, bytes};
    pthread_mutex_unlock(&cb->lock);
    return r;
}

static void pageable_unregister(struct cuda_backend *cb, const char *ptr)
{
    pthread_mutex_lock(&cb->lock);
    for (int i = 0; i < cb->npageable; i++)
        if (cb->pageable[i].ptr == ptr) {
            cb->pageable[i] = cb->pageable[--cb->npageable];
            break;
        }
    pthread_mutex_unlock(&cb->lock);
}

static int pageable_contains(struct cuda_backend *cb, const void *p, void **base)
{
    int found = 0;
    pthread_mutex_lock(&cb->lock);
    for (int i = 0; i < cb->npageable && !found; i++) {
        const char *b = cb->pageable[i].ptr;
        if ((const char *)p >= b && (const char *)p < b + cb->pageable[i].bytes) {
            found = 1;
            *base = (void *)b;
        }
    }
    pthread_mutex_unlock(&cb->lock);
    return found;
}

/* Phantom memory on a GPU (asked for explicitly): address space only,
 * counted against the device's free memory. */
static mgpu_result alloc_phantom(mgpu_backend *be, mgpu_buffer *buf)
{
    uint64_t fr = 0, tot = 0;
    MGPU_CHECK(cuda_mem_info(be, buf->device, &fr, &tot));
    if ((uint64_t)buf->bytes > fr)
        return mgpu_fail(MGPU_ERR_DEVICE_OOM, "device %d: no room for %zu phantom bytes", buf->device, buf->bytes);
    MGPU_CHECK(mgpu_phantom_va_reserve(buf->bytes, &buf->ptr));
    struct cuda_backend *cb = cuda_be(be);
    pthread_mutex_lock(&cb->lock);
    cb->phantom_used[buf->device] += buf->bytes;
    pthread_mutex_unlock(&cb->lock);
    return MGPU_OK;
}

static mgpu_result alloc_device(mgpu_backend *be, mgpu_buffer *buf)
{
    int dev = buf->device;
    if (buf->phantom) return alloc_phantom(be, buf);
    CUDA_ON_DEVICE(dev);
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, buf->bytes);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        size_t f = 0, t = 0;
        (void)cudaMemGetInfo(&f, &t);
        char want[32], fr[32], tot[32];
        return mgpu_fail(MGPU_ERR_DEVICE_OOM, "device %d: cannot allocate %s: %s free of %s; free buffers or ask for less",
                         dev, mgpu_human_bytes(buf->bytes, want, sizeof want),
                         mgpu_human_bytes(f, fr, sizeof fr), mgpu_human_bytes(t, tot, sizeof tot));
    }
    CUDA_TRY(e, dev, "allocating %zu bytes of device memory (cudaMalloc)", buf->bytes);
    (void)be;
    buf->ptr = p;
    return MGPU_OK;
}

static mgpu_result alloc_pinned(mgpu_backend *be, mgpu_buffer *buf)
{
    (void)be;
    cuda_device_guard guard;
    void *p = NULL;
    /* Portable: pinned for every device's context; Mapped: kernels (SM
     * copies, latency) can address it through its device pointer. */
    cudaError_t e = cudaHostAlloc(&p, buf->bytes, cudaHostAllocPortable | cudaHostAllocMapped);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        char want[32];
        return mgpu_fail(MGPU_ERR_NOMEM, "cannot pin %s of host memory (cudaHostAlloc); use less, or pageable memory",
                         mgpu_human_bytes(buf->bytes, want, sizeof want));
    }
    CUDA_TRY(e, -1, "allocating %zu bytes of pinned host memory (cudaHostAlloc)", buf->bytes);
    void *dptr = NULL;
    e = cudaHostGetDevicePointer(&dptr, p, 0);
    if (e != cudaSuccess) {
        (void)cudaFreeHost(p);
        CUDA_TRY(e, -1, "mapping pinned host memory for the GPUs (cudaHostGetDevicePointer)");
    }
    buf->ptr = p;
    buf->impl = dptr;
    return MGPU_OK;
}

static mgpu_result alloc_pageable(mgpu_backend *be, mgpu_buffer *buf)
{
    void *p = NULL;
    /* Page-aligned, as large mallocs are: the copy bench's pageable numbers
     * should not depend on where in a page the buffer starts. */
    if (posix_memalign(&p, 4096, buf->bytes) != 0 || !p) {
        char want[32];
        return mgpu_fail(MGPU_ERR_NOMEM, "cannot allocate %s of pageable host memory",
                         mgpu_human_bytes(buf->bytes, want, sizeof want));
    }
    mgpu_result r = pageable_register(cuda_be(be), (char *)p, buf->bytes);
    if (r != MGPU_OK) {
        free(p);
        return r;
    }
    buf->ptr = p;
    return MGPU_OK;
}

static mgpu_result cuda_mem_alloc(mgpu_backend *be, mgpu_buffer *buf)
{
    switch (buf->kind) {
    case MGPU_MEM_DEVICE: MGPU_CHECK(alloc_device(be, buf)); return MGPU_OK;
    case MGPU_MEM_PINNED: MGPU_CHECK(alloc_pinned(be, buf)); return MGPU_OK;
    case MGPU_MEM_PAGEABLE: MGPU_CHECK(alloc_pageable(be, buf)); return MGPU_OK;
    default: return mgpu_fail(MGPU_ERR_INVALID, "cannot allocate memory of kind %d", (int)buf->kind);
    }
}

/* Frees cannot report errors; a failing free means the context is already
 * broken (a sticky error), which the next checked call reports. */
static void cuda_mem_free(mgpu_backend *be, mgpu_buffer *buf)
{
    if (!buf->ptr) return;
    if (cuda_ipc_is_import(buf)) {
        cuda_ipc_release(buf);
        return;
    }
    if (buf->kind == MGPU_MEM_DEVICE && buf->phantom) {
        struct cuda_backend *cb = cuda_be(be);
        pthread_mutex_lock(&cb->lock);
        cb->phantom_used[buf->device] -= buf->bytes;
        pthread_mutex_unlock(&cb->lock);
        mgpu_phantom_va_release(buf->ptr, buf->bytes);
        buf->ptr = NULL;
        return;
    }
    cuda_device_guard guard;
    switch (buf->kind) {
    case MGPU_MEM_DEVICE:
        if (cudaSetDevice(buf->device) == cudaSuccess) (void)cudaFree(buf->ptr);
        break;
    case MGPU_MEM_PINNED: (void)cudaFreeHost(buf->ptr); break;
    case MGPU_MEM_PAGEABLE:
        pageable_unregister(cuda_be(be), (const char *)buf->ptr);
        free(buf->ptr);
        break;
    default: break;
    }
    buf->ptr = NULL;
}

static mgpu_result cuda_pointer_attributes(mgpu_backend *be, const void *ptr, mgpu_ptr_attr *out)
{
    cudaPointerAttributes a;
    memset(&a, 0, sizeof a);
    cudaError_t e = cudaPointerGetAttributes(&a, ptr);
    if (e == cudaErrorInvalidValue) {
        /* Old runtimes answered "invalid value" for unregistered host memory. */
        (void)cudaGetLastError();
        a.type = cudaMemoryTypeUnregistered;
    } else {
        CUDA_TRY(e, -1, "reading pointer attributes of %p (cudaPointerGetAttributes)", ptr);
    }
    switch (a.type) {
    case cudaMemoryTypeDevice:
        out->kind = MGPU_MEM_DEVICE;
        out->device = a.device;
        out->device_ptr = a.devicePointer;
        out->host_ptr = NULL;
        break;
    case cudaMemoryTypeHost:
        out->kind = MGPU_MEM_PINNED;
        out->device = -1;
        out->device_ptr = a.devicePointer;
        out->host_ptr = a.hostPointer;
        break;
    case cudaMemoryTypeManaged: /* not ours: we never allocate managed memory */
        out->kind = MGPU_MEM_UNKNOWN;
        out->device = a.device;
        out->device_ptr = a.devicePointer;
        out->host_ptr = a.hostPointer;
        break;
    default: {
        void *base = NULL;
        if (pageable_contains(cuda_be(be), ptr, &base)) {
            out->kind = MGPU_MEM_PAGEABLE;
            out->host_ptr = (void *)ptr;
        } else {
            out->kind = MGPU_MEM_UNKNOWN;
        }
        out->device = -1;
        out->device_ptr = NULL;
        break;
    }
    }
    return MGPU_OK;
}

mgpu_result cuda_reach(mgpu_backend *be, int dev, const mgpu_buffer *buf, size_t off,
                       const char *what, char **out)
{
    switch (buf->kind) {
    case MGPU_MEM_DEVICE:
        /* opened IPC memory is mapped for the device it was opened on */
        if (buf->device != dev && !cuda_peer_enabled(be, dev, buf->device) && cuda_ipc_open_device(buf) != dev)
            return mgpu_fail(MGPU_ERR_PEER,
                             "%s on device %d cannot reach device %d's memory: peer access %d->%d is "
                             "not enabled; enable it first (peer enable %d %d), or use a copy-engine copy",
                             what, dev, buf->device, dev, buf->device, dev, buf->device);
        *out = (char *)buf->ptr + off;
        return MGPU_OK;
    case MGPU_MEM_PINNED:
        *out = (char *)(buf->impl ? buf->impl : buf->ptr) + off;
        return MGPU_OK;
    case MGPU_MEM_PAGEABLE:
        return mgpu_fail(MGPU_ERR_UNSUPPORTED,
                         "%s on device %d cannot touch pageable host memory: a GPU reads only pinned, "
                         "mapped host memory; use a pinned buffer",
                         what, dev);
    default:
        return mgpu_fail(MGPU_ERR_INVALID, "%s: buffer of unknown memory kind", what);
    }
}

/*--- Streams and events -----------------------------------------------*/

static mgpu_result cuda_stream_create(mgpu_backend *be, mgpu_stream *s)
{
    (void)be;
    if (s->legacy_default) {
        /* The per-device legacy stream; the guard makes it this device's. */
        s->impl = (void *)cudaStreamLegacy;
        return MGPU_OK;
    }
    CUDA_ON_DEVICE(s->device);
    cudaStream_t st = NULL;
    CUDA_TRY(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), s->device, "creating a stream");
    s->impl = (void *)st;
    return MGPU_OK;
}

static void cuda_stream_destroy(mgpu_backend *be, mgpu_stream *s)
{
    (void)be;
    if (s->legacy_default || !s->impl) return;
    cuda_device_guard guard;
    if (cudaSetDevice(s->device) == cudaSuccess) (void)cudaStreamDestroy(cuda_stream_of(s));
    (void)cudaGetLastError();
}

static mgpu_result cuda_stream_synchronize(mgpu_stream *s)
{
    CUDA_ON_DEVICE(s->device);
    CUDA_TRY(cudaStreamSynchronize(cuda_stream_of(s)), s->device, "synchronising a stream");
    return MGPU_OK;
}

static void *cuda_stream_native(mgpu_stream *s) { return (void *)cuda_stream_of(s); }

static mgpu_result cuda_stream_query(mgpu_stream *s, int *done)
{
    CUDA_ON_DEVICE(s->device);
    cudaError_t e = cudaStreamQuery(cuda_stream_of(s));
    *done = e == cudaSuccess;
    if (e == cudaErrorNotReady) {
        (void)cudaGetLastError();
        return MGPU_OK;
    }
    CUDA_TRY(e, s->device, "querying a stream");
    return MGPU_OK;
}

static mgpu_result cuda_event_create(mgpu_backend *be, mgpu_event *e)
{
    (void)be;
    unsigned flags = cudaEventDefault;
    if (!(e->flags & MGPU_EVENT_TIMING)) flags |= cudaEventDisableTiming;
    if (e->flags & MGPU_EVENT_INTERPROCESS) flags |= cudaEventInterprocess | cudaEventDisableTiming;
    if (e->flags & MGPU_EVENT_BLOCKING_SYNC) flags |= cudaEventBlockingSync;
    CUDA_ON_DEVICE(e->device);
    cudaEvent_t ev = NULL;
    CUDA_TRY(cudaEventCreateWithFlags(&ev, flags), e->device, "creating an event");
    e->impl = (void *)ev;
    return MGPU_OK;
}

static void cuda_event_destroy(mgpu_backend *be, mgpu_event *e)
{
    (void)be;
    if (!e->impl) return;
    cuda_device_guard guard;
    if (cudaSetDevice(e->device) == cudaSuccess) (void)cudaEventDestroy((cudaEvent_t)e->impl);
    (void)cudaGetLastError();
}

static mgpu_result cuda_event_record(mgpu_event *e, mgpu_stream *s)
{
    CUDA_ON_DEVICE(s->device);
    CUDA_TRY(cudaEventRecord((cudaEvent_t)e->impl, cuda_stream_of(s)), s->device, "recording an event");
    return MGPU_OK;
}

static mgpu_result cuda_stream_wait_event(mgpu_stream *s, mgpu_event *e)
{
    CUDA_ON_DEVICE(s->device);
    CUDA_TRY(cudaStreamWaitEvent(cuda_stream_of(s), (cudaEvent_t)e->impl, 0), s->device,
             "making a stream wait on an event of device %d", e->device);
    return MGPU_OK;
}

static mgpu_result cuda_event_synchronize(mgpu_event *e)
{
    CUDA_ON_DEVICE(e->device);
    CUDA_TRY(cudaEventSynchronize((cudaEvent_t)e->impl), e->device, "waiting for an event");
    return MGPU_OK;
}

static mgpu_result cuda_event_query(mgpu_event *e, int *done)
{
    CUDA_ON_DEVICE(e->device);
    cudaError_t r = cudaEventQuery((cudaEvent_t)e->impl);
    *done = r == cudaSuccess;
    if (r == cudaErrorNotReady) {
        (void)cudaGetLastError();
        return MGPU_OK;
    }
    CUDA_TRY(r, e->device, "querying an event");
    return MGPU_OK;
}

static mgpu_result cuda_event_elapsed_ms(mgpu_event *start, mgpu_event *end, double *ms)
{
    CUDA_ON_DEVICE(end->device);
    /* The contract wants both completed; waiting here turns a caller's race
     * into a correct answer instead of cudaErrorNotReady. */
    CUDA_TRY(cudaEventSynchronize((cudaEvent_t)start->impl), start->device, "waiting for the start event");
    CUDA_TRY(cudaEventSynchronize((cudaEvent_t)end->impl), end->device, "waiting for the end event");
    float f = 0;
    CUDA_TRY(cudaEventElapsedTime(&f, (cudaEvent_t)start->impl, (cudaEvent_t)end->impl), end->device,
             "measuring the time between events of devices %d and %d", start->device, end->device);
    *ms = f;
    return MGPU_OK;
}

/*--- Peer access ------------------------------------------------------*/

int cuda_peer_enabled(mgpu_backend *be, int dev, int peer)
{
    struct cuda_backend *cb = cuda_be(be);
    pthread_mutex_lock(&cb->lock);
    int on = cb->peer_on[dev * cb->ndev + peer];
    pthread_mutex_unlock(&cb->lock);
    return on;
}

static void peer_set(mgpu_backend *be, int dev, int peer, int on)
{
    struct cuda_backend *cb = cuda_be(be);
    pthread_mutex_lock(&cb->lock);
    cb->peer_on[dev * cb->ndev + peer] = (unsigned char)on;
    pthread_mutex_unlock(&cb->lock);
}

static mgpu_result cuda_peer_can_access(mgpu_backend *be, int dev, int peer, int *can)
{
    (void)be;
    CUDA_TRY(cudaDeviceCanAccessPeer(can, dev, peer), dev, "asking whether device %d can access device %d",
             dev, peer);
    return MGPU_OK;
}

static mgpu_result cuda_peer_attributes(mgpu_backend *be, int dev, int peer, mgpu_p2p_attr *out)
{
    (void)be;
    CUDA_TRY(cudaDeviceGetP2PAttribute(&out->access_supported, cudaDevP2PAttrAccessSupported, dev, peer),
             dev, "reading P2P attributes %d->%d", dev, peer);
    CUDA_TRY(cudaDeviceGetP2PAttribute(&out->native_atomic_supported, cudaDevP2PAttrNativeAtomicSupported,
                                       dev, peer),
             dev, "reading P2P attributes %d->%d", dev, peer);
    CUDA_TRY(cudaDeviceGetP2PAttribute(&out->performance_rank, cudaDevP2PAttrPerformanceRank, dev, peer),
             dev, "reading P2P attributes %d->%d", dev, peer);
    CUDA_TRY(cudaDeviceGetP2PAttribute(&out->cuda_array_access_supported,
                                       cudaDevP2PAttrCudaArrayAccessSupported, dev, peer),
             dev, "reading P2P attributes %d->%d", dev, peer);
    return MGPU_OK;
}

static mgpu_result cuda_peer_enable(mgpu_backend *be, int dev, int peer)
{
    int can = 0;
    MGPU_CHECK(cuda_peer_can_access(be, dev, peer, &can));
    if (!can)
        return mgpu_fail(MGPU_ERR_PEER,
                         "device %d cannot access device %d's memory directly (cudaDeviceCanAccessPeer "
                         "= 0: no NVLink or PCIe P2P path between them, or P2P disabled by ACS/IOMMU); "
                         "copy-engine copies still work, staged through the host",
                         dev, peer);
    CUDA_ON_DEVICE(dev);
    cudaError_t e = cudaDeviceEnablePeerAccess(peer, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) peer_set(be, dev, peer, 1); /* true state */
    if (e == cudaErrorPeerAccessAlreadyEnabled)
        return cuda_fail(e, dev, "enabling peer access %d->%d", dev, peer);
    CUDA_TRY(e, dev, "enabling peer access %d->%d (cudaDeviceEnablePeerAccess)", dev, peer);
    peer_set(be, dev, peer, 1);
    return MGPU_OK;
}

static mgpu_result cuda_peer_enabled_op(mgpu_backend *be, int dev, int peer, int *on)
{
    *on = cuda_peer_enabled(be, dev, peer);
    return MGPU_OK;
}

static mgpu_result cuda_peer_disable(mgpu_backend *be, int dev, int peer)
{
    CUDA_ON_DEVICE(dev);
    cudaError_t e = cudaDeviceDisablePeerAccess(peer);
    if (e == cudaSuccess || e == cudaErrorPeerAccessNotEnabled) peer_set(be, dev, peer, 0);
    CUDA_TRY(e, dev, "disabling peer access %d->%d (cudaDeviceDisablePeerAccess)", dev, peer);
    return MGPU_OK;
}

/*--- The table --------------------------------------------------------*/

/* Designated, like the sim's table, in the struct's order (as C++20 wants
 * it; nvcc takes designators as g++ does). Left out, so NULL, which dev.c answers for: stream_model_time and
 * stream_model_advance (a GPU has real time only) and host_view (device
 * memory is not host memory). */
extern "C" const struct mgpu_dev_ops mgpu_dev_cuda_ops = {
    .name = "cuda",
    .open = cuda_open,
    .close = cuda_close,
    .device_count = cuda_device_count,
    .device_info = cuda_device_info,
    .mem_info = cuda_mem_info,
    .device_synchronize = cuda_device_synchronize,
    .mem_alloc = cuda_mem_alloc,
    .mem_free = cuda_mem_free,
    .pointer_attributes = cuda_pointer_attributes,
    .stream_create = cuda_stream_create,
    .stream_destroy = cuda_stream_destroy,
    .stream_synchronize = cuda_stream_synchronize,
    .stream_query = cuda_stream_query,
    .stream_native = cuda_stream_native,
    .event_create = cuda_event_create,
    .event_destroy = cuda_event_destroy,
    .event_record = cuda_event_record,
    .stream_wait_event = cuda_stream_wait_event,
    .event_synchronize = cuda_event_synchronize,
    .event_query = cuda_event_query,
    .event_elapsed_ms = cuda_event_elapsed_ms,
    .gate_hold = cuda_gate_hold,
    .gate_open = cuda_gate_open,
    .copy = cuda_copy,
    .memory_latency = cuda_memory_latency,
    .peer_can_access = cuda_peer_can_access,
    .peer_attributes = cuda_peer_attributes,
    .peer_enable = cuda_peer_enable,
    .peer_disable = cuda_peer_disable,
    .fill = cuda_fill,
    .checksum = cuda_checksum,
    .peer_enabled = cuda_peer_enabled_op,
    .ipc_export = cuda_ipc_export,
    .ipc_open = cuda_ipc_open,
    .ipc_close = cuda_ipc_close,
    .vmm_reserve = cuda_vmm_reserve, /* cuda_vmm.cu */
    .vmm_map = cuda_vmm_map,
    .vmm_unmap = cuda_vmm_unmap,
    .vmm_release = cuda_vmm_release,
    .vmm_granularity = cuda_vmm_granularity,
    .nn = &cuda_nn_ops, /* cuda_nn.cu */
};
