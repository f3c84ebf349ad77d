/* nccl_dl.c - load NCCL with dlopen at first use (own declarations in
 * nccl_dl.h, as topo/nvml_dl.c does for NVML): the binary must start, and
 * the sim backend work, on machines without NCCL. */
#include "comm/nccl_dl.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static mgpu_nccl_api api;
static int api_ok;
static char load_error[512];

static int sym(void *h, const char *name, void **dst)
{
    *dst = dlsym(h, name);
    if (*dst) return 1;
    snprintf(load_error, sizeof load_error, "symbol %s is missing from libnccl.so.2 (NCCL older than 2.18?)", name);
    return 0;
}

static void load(void)
{
    /* MGPU_NCCL_LIBRARY picks another NCCL build (e.g. the one a torch
     * install ships), so a comparison can run both on the same library. */
    const char *path = getenv("MGPU_NCCL_LIBRARY");
    if (!path || !*path) path = "libnccl.so.2";
    void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(load_error, sizeof load_error, "%s", e ? e : "dlopen failed");
        return;
    }
    /* Cast through void** one pointer at a time: ISO C has no function-to-
     * object pointer conversion, POSIX guarantees this one works. */
    if (!sym(h, "ncclGetVersion", (void **)&api.GetVersion) ||
        !sym(h, "ncclGetErrorString", (void **)&api.GetErrorString) ||
        !sym(h, "ncclGetLastError", (void **)&api.GetLastError) ||
        !sym(h, "ncclGetUniqueId", (void **)&api.GetUniqueId) ||
        !sym(h, "ncclCommInitRankConfig", (void **)&api.CommInitRankConfig) ||
        !sym(h, "ncclCommSplit", (void **)&api.CommSplit) ||
        !sym(h, "ncclCommFinalize", (void **)&api.CommFinalize) ||
        !sym(h, "ncclCommDestroy", (void **)&api.CommDestroy) ||
        !sym(h, "ncclCommAbort", (void **)&api.CommAbort) ||
        !sym(h, "ncclCommGetAsyncError", (void **)&api.CommGetAsyncError) ||
        !sym(h, "ncclCommCount", (void **)&api.CommCount) || !sym(h, "ncclCommUserRank", (void **)&api.CommUserRank) ||
        !sym(h, "ncclAllReduce", (void **)&api.AllReduce) || !sym(h, "ncclAllGather", (void **)&api.AllGather) ||
        !sym(h, "ncclReduceScatter", (void **)&api.ReduceScatter) ||
        !sym(h, "ncclBroadcast", (void **)&api.Broadcast) || !sym(h, "ncclReduce", (void **)&api.Reduce) ||
        !sym(h, "ncclSend", (void **)&api.Send) || !sym(h, "ncclRecv", (void **)&api.Recv) ||
        !sym(h, "ncclGroupStart", (void **)&api.GroupStart) || !sym(h, "ncclGroupEnd", (void **)&api.GroupEnd)) {
        dlclose(h);
        return;
    }
    int v = 0;
    if (api.GetVersion(&v) != ncclSuccess) {
        snprintf(load_error, sizeof load_error, "ncclGetVersion failed");
        dlclose(h);
        return;
    }
    api.version = v;
    api_ok = 1; /* the handle stays open for the process's life */
}

mgpu_result mgpu_nccl_check_env(void)
{
    /* Multicast (NVLS) can take this workplace's GPUs out of service: keep
     * it off unless the user explicitly set it, and refuse if they did. */
    const char *v = getenv("NCCL_NVLS_ENABLE");
    if (!v) {
        setenv("NCCL_NVLS_ENABLE", "0", 0);
        v = getenv("NCCL_NVLS_ENABLE");
    }
    if (!v || strcmp(v, "0") != 0)
        return mgpu_fail(MGPU_ERR_INVALID,
                         "NCCL_NVLS_ENABLE=%s: NVLink multicast (NVLS) must stay off on this workplace (it can "
                         "take the host's GPUs out of service); unset NCCL_NVLS_ENABLE or set it to 0",
                         v ? v : "");
    return MGPU_OK;
}

mgpu_result mgpu_nccl_load(const mgpu_nccl_api **out)
{
    *out = NULL;
    MGPU_CHECK(mgpu_nccl_check_env());
    pthread_once(&load_once, load);
    if (!api_ok)
        return mgpu_fail(MGPU_ERR_UNSUPPORTED,
                         "NCCL (libnccl.so.2) could not be loaded: %s; install NCCL (libnccl2) or put it on "
                         "LD_LIBRARY_PATH, or use --backend sim",
                         load_error);
    *out = &api;
    return MGPU_OK;
}

const mgpu_nccl_api *mgpu_nccl_loaded(void) { return api_ok ? &api : NULL; }

void mgpu_nccl_config_init(const mgpu_nccl_api *a, ncclConfig_t *cfg)
{
    int ours = NCCL_VERSION_CODE_OF(2, 28, 9);
    *cfg = (ncclConfig_t){
        .size = sizeof(ncclConfig_t),
        .magic = NCCL_CONFIG_MAGIC,
        /* Never claim a newer layout than the library knows. */
        .version = (unsigned)(a->version > 0 && a->version < ours ? a->version : ours),
        .blocking = NCCL_CONFIG_UNDEF_INT,
        .cgaClusterSize = NCCL_CONFIG_UNDEF_INT,
        .minCTAs = NCCL_CONFIG_UNDEF_INT,
        .maxCTAs = NCCL_CONFIG_UNDEF_INT,
        .netName = NULL,
        .splitShare = NCCL_CONFIG_UNDEF_INT,
        .trafficClass = NCCL_CONFIG_UNDEF_INT,
        .commName = NULL,
        .collnetEnable = NCCL_CONFIG_UNDEF_INT,
        .CTAPolicy = NCCL_CONFIG_UNDEF_INT,
        .shrinkShare = NCCL_CONFIG_UNDEF_INT,
        .nvlsCTAs = NCCL_CONFIG_UNDEF_INT,
        .nChannelsPerNetPeer = NCCL_CONFIG_UNDEF_INT,
        .nvlinkCentricSched = NCCL_CONFIG_UNDEF_INT,
    };
}

mgpu_result mgpu_nccl_fail(const mgpu_nccl_api *a, ncclComm_t comm, ncclResult_t r, const char *what)
{
    const char *s = a->GetErrorString(r);
    const char *last = a->GetLastError(comm);
    if (last && *last)
        return mgpu_fail(MGPU_ERR_NCCL, "%s: NCCL error %d (%s): %s", what, (int)r, s ? s : "?", last);
    return mgpu_fail(MGPU_ERR_NCCL, "%s: NCCL error %d (%s)", what, (int)r, s ? s : "?");
}

/*--- The current device, through the driver API ---*/

typedef int CUresult_t;
typedef int CUdevice_t;
typedef struct CUctx_st *CUcontext_t;

static pthread_once_t cu_once = PTHREAD_ONCE_INIT;
static CUresult_t (*p_cuInit)(unsigned);
static CUresult_t (*p_cuDeviceGet)(CUdevice_t *, int);
static CUresult_t (*p_cuDevicePrimaryCtxRetain)(CUcontext_t *, CUdevice_t);
static CUresult_t (*p_cuCtxSetCurrent)(CUcontext_t);

static void cu_load(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!h) return;
    *(void **)&p_cuInit = dlsym(h, "cuInit");
    *(void **)&p_cuDeviceGet = dlsym(h, "cuDeviceGet");
    *(void **)&p_cuDevicePrimaryCtxRetain = dlsym(h, "cuDevicePrimaryCtxRetain");
    *(void **)&p_cuCtxSetCurrent = dlsym(h, "cuCtxSetCurrent");
    if (p_cuInit && p_cuInit(0) != 0) p_cuInit = NULL;
}

mgpu_result mgpu_nccl_set_device(int dev)
{
    pthread_once(&cu_once, cu_load);
    if (!p_cuInit || !p_cuDeviceGet || !p_cuDevicePrimaryCtxRetain || !p_cuCtxSetCurrent)
        return mgpu_fail(MGPU_ERR_NO_DEVICE, "the CUDA driver (libcuda.so.1) could not be loaded to select device %d "
                         "for NCCL", dev);
    CUdevice_t d;
    CUcontext_t ctx;
    int rc = p_cuDeviceGet(&d, dev);
    /* The primary context is the one the CUDA runtime uses for this device:
     * retaining it is what cudaSetDevice does on first use. The reference
     * is kept for the process's life, like the runtime's. */
    if (rc == 0) rc = p_cuDevicePrimaryCtxRetain(&ctx, d);
    if (rc == 0) rc = p_cuCtxSetCurrent(ctx);
    if (rc != 0) return mgpu_fail(MGPU_ERR_CUDA, "selecting device %d for NCCL failed (CUDA driver error %d)", dev, rc);
    return MGPU_OK;
}
