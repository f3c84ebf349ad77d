/* cuda_vmm.cu - expandable segments on a GPU through the CUDA virtual
 * memory API, as PyTorch's expandable_segments does: reserve address space
 * as large as the device (cuMemAddressReserve), then back it page by page
 * (cuMemCreate + cuMemMap + cuMemSetAccess) as the caching allocator grows
 * it, and give pages back (cuMemUnmap + cuMemRelease) when it shrinks.
 * Driver entry points come through cudart (cudaGetDriverEntryPointByVersion):
 * the binary links no libcuda, so it still starts without a driver. */
#include <cuda.h>
#include <stdlib.h>
#include <string.h>
#include "dev/cuda/cuda_internal.h"

#define VMM_MAGIC 0x564d4d31u /* not cuda_ipc.cu's import magic */

struct cuda_vmm {
    unsigned magic;
    int dev;
    CUdeviceptr base;
    size_t len, gran;
    CUmemGenericAllocationHandle *page; /* [len / gran]; 0 = unmapped */
};

typedef CUresult (*reserve_fn)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
typedef CUresult (*free_fn)(CUdeviceptr, size_t);
typedef CUresult (*create_fn)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long);
typedef CUresult (*release_fn)(CUmemGenericAllocationHandle);
typedef CUresult (*map_fn)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
typedef CUresult (*unmap_fn)(CUdeviceptr, size_t);
typedef CUresult (*access_fn)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
typedef CUresult (*gran_fn)(size_t *, const CUmemAllocationProp *, CUmemAllocationGranularity_flags);

static struct {
    int loaded, ok;
    reserve_fn reserve;
    free_fn addr_free;
    create_fn create;
    release_fn release;
    map_fn map;
    unmap_fn unmap;
    access_fn access;
    gran_fn gran;
} drv;

static void *entry(const char *name)
{
    void *fn = NULL;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return fn;
}

static int load(void)
{
    if (drv.loaded) return drv.ok;
    drv.loaded = 1;
    drv.reserve = (reserve_fn)entry("cuMemAddressReserve");
    drv.addr_free = (free_fn)entry("cuMemAddressFree");
    drv.create = (create_fn)entry("cuMemCreate");
    drv.release = (release_fn)entry("cuMemRelease");
    drv.map = (map_fn)entry("cuMemMap");
    drv.unmap = (unmap_fn)entry("cuMemUnmap");
    drv.access = (access_fn)entry("cuMemSetAccess");
    drv.gran = (gran_fn)entry("cuMemGetAllocationGranularity");
    drv.ok = drv.reserve && drv.addr_free && drv.create && drv.release && drv.map && drv.unmap && drv.access && drv.gran;
    return drv.ok;
}

static CUmemAllocationProp prop_of(int dev)
{
    CUmemAllocationProp p;
    memset(&p, 0, sizeof p);
    p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = dev;
    return p;
}

static mgpu_result drv_fail(CUresult r, int dev, const char *what)
{
    if (r == CUDA_ERROR_OUT_OF_MEMORY) return mgpu_fail(MGPU_ERR_DEVICE_OOM, "device %d: out of memory (%s)", dev, what);
    return mgpu_fail(MGPU_ERR_CUDA, "device %d: %s failed (CUresult %d)", dev, what, (int)r);
}

size_t cuda_vmm_granularity(mgpu_backend *be, int dev)
{
    (void)be;
    if (!load()) return 0;
    CUmemAllocationProp p = prop_of(dev);
    size_t g = 0;
    if (drv.gran(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS) return 0;
    return g < ((size_t)2 << 20) ? ((size_t)2 << 20) : g; /* PyTorch's page: 2 MiB */
}

mgpu_result cuda_vmm_reserve(mgpu_backend *be, mgpu_buffer *seg)
{
    if (seg->phantom) /* engine/dev/mem keeps phantom memory out of GPU mappings */
        return mgpu_fail(MGPU_ERR_INTERNAL, "phantom memory cannot live in a mapped (expandable) segment on a GPU");
    size_t gran = cuda_vmm_granularity(be, seg->device);
    if (!gran)
        return mgpu_fail(MGPU_ERR_UNSUPPORTED,
                         "expandable segments need the CUDA virtual memory API (cuMemCreate/cuMemMap), "
                         "which this driver does not offer; set MGPU_ALLOC_CONF=expandable_segments:False");
    struct cuda_vmm *v = (struct cuda_vmm *)calloc(1, sizeof *v);
    size_t len = (seg->bytes + gran - 1) / gran * gran;
    if (v) v->page = (CUmemGenericAllocationHandle *)calloc(len / gran, sizeof *v->page);
    if (!v || !v->page) {
        if (v) free(v->page);
        free(v);
        return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory");
    }
    CUresult r = drv.reserve(&v->base, len, gran, 0, 0);
    if (r != CUDA_SUCCESS) {
        free(v->page);
        free(v);
        return drv_fail(r, seg->device, "reserving address space (cuMemAddressReserve)");
    }
    v->magic = VMM_MAGIC;
    v->dev = seg->device;
    v->len = len;
    v->gran = gran;
    seg->ptr = (void *)v->base;
    seg->impl = v;
    return MGPU_OK;
}

static void unmap_pages(struct cuda_vmm *v, size_t first, size_t last)
{
    for (size_t i = first; i < last; i++) {
        if (!v->page[i]) continue;
        (void)drv.unmap(v->base + i * v->gran, v->gran);
        (void)drv.release(v->page[i]);
        v->page[i] = 0;
    }
}

mgpu_result cuda_vmm_map(mgpu_buffer *seg, size_t off, size_t bytes)
{
    struct cuda_vmm *v = (struct cuda_vmm *)seg->impl;
    CUmemAllocationProp p = prop_of(v->dev);
    size_t first = off / v->gran, last = (off + bytes) / v->gran;
    for (size_t i = first; i < last; i++) {
        CUresult r = drv.create(&v->page[i], v->gran, &p, 0);
        if (r == CUDA_SUCCESS) {
            r = drv.map(v->base + i * v->gran, v->gran, 0, v->page[i], 0);
            if (r != CUDA_SUCCESS) (void)drv.release(v->page[i]);
        }
        if (r != CUDA_SUCCESS) {
            v->page[i] = 0;
            unmap_pages(v, first, i);
            return drv_fail(r, v->dev, "mapping device memory (cuMemCreate/cuMemMap)");
        }
    }
    /* This device reads and writes it; so do the devices that can reach it
     * as peers (copies and kernels across NVLink, NCCL's P2P). */
    CUmemAccessDesc acc[64];
    size_t n = 0;
    int ndev = 0;
    (void)cudaGetDeviceCount(&ndev);
    for (int d = 0; d < ndev && n < 64; d++) {
        int can = d == v->dev;
        if (!can && cudaDeviceCanAccessPeer(&can, d, v->dev) != cudaSuccess) can = 0;
        if (!can) continue;
        acc[n].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        acc[n].location.id = d;
        acc[n].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        n++;
    }
    (void)cudaGetLastError();
    CUresult r = drv.access(v->base + off, bytes, acc, n);
    if (r != CUDA_SUCCESS) {
        unmap_pages(v, first, last);
        return drv_fail(r, v->dev, "granting access to mapped memory (cuMemSetAccess)");
    }
    return MGPU_OK;
}

void cuda_vmm_unmap(mgpu_buffer *seg, size_t off, size_t bytes)
{
    struct cuda_vmm *v = (struct cuda_vmm *)seg->impl;
    /* Work queued on the pages may still run: unmapping under it faults. */
    cuda_device_guard guard;
    if (cudaSetDevice(v->dev) == cudaSuccess) (void)cudaDeviceSynchronize();
    unmap_pages(v, off / v->gran, (off + bytes) / v->gran);
}

void cuda_vmm_release(mgpu_buffer *seg)
{
    struct cuda_vmm *v = (struct cuda_vmm *)seg->impl;
    if (!v) return;
    unmap_pages(v, 0, v->len / v->gran);
    (void)drv.addr_free(v->base, v->len);
    free(v->page);
    free(v);
    seg->impl = NULL;
    seg->ptr = NULL;
}
