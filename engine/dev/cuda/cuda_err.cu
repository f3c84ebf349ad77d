/* cuda_err.cu - CUDA errors as mgpu results with messages a user can act on. */
#include <stdarg.h>
#include <stdio.h>
#include "dev/cuda/cuda_internal.h"

/* Errors after which the context is unusable: every later call returns the
 * same error until the process exits (CUDA's "sticky" errors). */
static int is_sticky(cudaError_t e)
{
    switch (e) {
    case cudaErrorECCUncorrectable:
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
        return 1;
    default:
        return 0;
    }
}

/* Why no driver answered: the driver version tells "none" from "too old". */
static mgpu_result no_device(cudaError_t e, const char *what)
{
    int drv = 0, rt = 0;
    (void)cudaDriverGetVersion(&drv);
    (void)cudaRuntimeGetVersion(&rt);
    if (e == cudaErrorNoDevice)
        return mgpu_fail(MGPU_ERR_NO_DEVICE,
                         "no GPU visible (%s: %s): the NVIDIA driver is loaded but reports no "
                         "device; check nvidia-smi and CUDA_VISIBLE_DEVICES, or use --backend sim",
                         what, cudaGetErrorName(e));
    if (drv == 0)
        return mgpu_fail(MGPU_ERR_NO_DEVICE,
                         "no NVIDIA driver (libcuda.so.1) or no GPU visible (%s: %s); install the "
                         "NVIDIA driver on a machine with a GPU, or use --backend sim",
                         what, cudaGetErrorName(e));
    return mgpu_fail(MGPU_ERR_NO_DEVICE,
                     "the NVIDIA driver supports CUDA %d.%d but this build needs CUDA %d.%d (%s: "
                     "%s); update the driver, or use --backend sim",
                     drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10, what, cudaGetErrorName(e));
}

mgpu_result cuda_fail(cudaError_t e, int dev, const char *what_fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, what_fmt);
    vsnprintf(what, sizeof what, what_fmt, ap);
    va_end(ap);
    /* Non-sticky errors are also kept as the runtime's "last error"; clear it
     * so the next kernel launch check does not report this one again. */
    if (!is_sticky(e)) (void)cudaGetLastError();

    char on[32] = "";
    if (dev >= 0) snprintf(on, sizeof on, "device %d: ", dev);

    switch (e) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorStubLibrary:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorCallRequiresNewerDriver:
        return no_device(e, what);
    case cudaErrorDevicesUnavailable:
        return mgpu_fail(MGPU_ERR_NO_DEVICE,
                         "%s%s: the GPU is busy or unavailable (exclusive compute mode or held by "
                         "another process: %s); free it or use --backend sim",
                         on, what, cudaGetErrorName(e));
    case cudaErrorMemoryAllocation:
        return mgpu_fail(MGPU_ERR_DEVICE_OOM, "%sout of device memory while %s (%s); free buffers or use smaller sizes",
                         on, what, cudaGetErrorName(e));
    case cudaErrorPeerAccessAlreadyEnabled:
        return mgpu_fail(MGPU_ERR_PEER, "%s%s: peer access is already enabled (%s)", on, what, cudaGetErrorName(e));
    case cudaErrorPeerAccessNotEnabled:
        return mgpu_fail(MGPU_ERR_PEER, "%s%s: peer access is not enabled (%s); enable it first",
                         on, what, cudaGetErrorName(e));
    case cudaErrorPeerAccessUnsupported:
        return mgpu_fail(MGPU_ERR_PEER,
                         "%s%s: peer access is not supported between these GPUs (%s): no NVLink or "
                         "PCIe P2P path (or P2P disabled by ACS/IOMMU); copy-engine copies still "
                         "work, staged through the host",
                         on, what, cudaGetErrorName(e));
    default:
        break;
    }
    if (is_sticky(e))
        return mgpu_fail(MGPU_ERR_CUDA,
                         "%s%s: %s (%s); this is a sticky error: an earlier kernel or copy on this "
                         "device faulted, and the CUDA context stays unusable until the process "
                         "exits; restart it (compute-sanitizer finds the faulting access)",
                         on, what, cudaGetErrorName(e), cudaGetErrorString(e));
    return mgpu_fail(MGPU_ERR_CUDA, "%s%s: %s (%s)", on, what, cudaGetErrorName(e), cudaGetErrorString(e));
}
