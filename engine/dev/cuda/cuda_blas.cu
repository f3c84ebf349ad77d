/* cuda_blas.cu - cuBLAS through dlopen, one handle per device: the cuda
 * backend's GEMMs (cuda_nn.cu). Loaded at the first GEMM, not at start, so
 * the program still starts where the toolkit's libraries are missing (the
 * sim needs none of it); the error then says which library was looked for.
 * $MGPU_CUBLAS_LIBRARY picks another build (torch's wheel ships one). */
#include "dev/cuda/cuda_blas.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static struct {
    pthread_once_t once;
    char error[512];
    decltype(&cublasCreate_v2) Create;
    decltype(&cublasDestroy_v2) Destroy;
    decltype(&cublasSetStream_v2) SetStream;
    decltype(&cublasSetMathMode) SetMathMode;
    /* the C entry point (cublas_api.h also declares C++ overloads) */
    cublasStatus_t (*GemmStridedBatchedEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                           const void *, const void *, cudaDataType, int, long long, const void *,
                                           cudaDataType, int, long long, const void *, void *, cudaDataType, int,
                                           long long, int, cublasComputeType_t, cublasGemmAlgo_t);
} api = {PTHREAD_ONCE_INIT};

static int sym(void *h, const char *name, void **out)
{
    *out = dlsym(h, name);
    if (*out) return 1;
    snprintf(api.error, sizeof api.error, "symbol %s is missing from cuBLAS", name);
    return 0;
}

static void load(void)
{
    const char *env = getenv("MGPU_CUBLAS_LIBRARY");
    const char *names[] = {env && *env ? env : "libcublas.so.13", "libcublas.so.12",
                           "/usr/local/cuda/lib64/libcublas.so.13", "/usr/local/cuda/lib64/libcublas.so.12"};
    void *h = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !h; i++) h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(api.error, sizeof api.error, "cuBLAS could not be loaded (%s); set MGPU_CUBLAS_LIBRARY to a libcublas.so",
                 e ? e : "dlopen failed");
        return;
    }
    if (!sym(h, "cublasCreate_v2", (void **)&api.Create) || !sym(h, "cublasDestroy_v2", (void **)&api.Destroy) ||
        !sym(h, "cublasSetStream_v2", (void **)&api.SetStream) ||
        !sym(h, "cublasSetMathMode", (void **)&api.SetMathMode) ||
        !sym(h, "cublasGemmStridedBatchedEx", (void **)&api.GemmStridedBatchedEx)) {
        api.Create = NULL;
        return;
    }
    api.error[0] = '\0';
}

mgpu_result cuda_blas_handle(struct cuda_backend *cb, int dev, cudaStream_t st, cublasHandle_t *out)
{
    pthread_once(&api.once, load);
    if (!api.Create) return mgpu_fail(MGPU_ERR_UNSUPPORTED, "gemm on GPU %d: %s", dev, api.error);
    pthread_mutex_lock(&cb->lock);
    mgpu_result r = MGPU_OK;
    if (!cb->blas) cb->blas = (void **)calloc((size_t)cb->ndev, sizeof *cb->blas);
    if (!cb->blas) r = mgpu_fail(MGPU_ERR_NOMEM, "out of host memory for cuBLAS handles");
    else if (!cb->blas[dev]) {
        cublasHandle_t h = NULL;
        cublasStatus_t e = api.Create(&h);
        if (e != CUBLAS_STATUS_SUCCESS)
            r = mgpu_fail(MGPU_ERR_CUDA, "cublasCreate on GPU %d failed (status %d)", dev, (int)e);
        else {
            /* f32 stays f32 (no TF32), as torch.matmul by default; and a
             * bf16 GEMM's split-K partial sums stay f32 (by default cuBLAS
             * may reduce them in the bf16 output type: a conv2d weight
             * gradient with k = 3200 came out 22 bf16 ulps from the sim's
             * f32-accumulated, once-rounded result on the H200) */
            api.SetMathMode(h, (cublasMath_t)(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION));
            cb->blas[dev] = h;
        }
    }
    if (r == MGPU_OK) {
        *out = (cublasHandle_t)cb->blas[dev];
        cublasStatus_t e = api.SetStream(*out, st);
        if (e != CUBLAS_STATUS_SUCCESS) r = mgpu_fail(MGPU_ERR_CUDA, "cublasSetStream failed (status %d)", (int)e);
    }
    pthread_mutex_unlock(&cb->lock);
    return r;
}

cublasStatus_t cuda_blas_gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                              const float *alpha, const void *a, cudaDataType at, int lda, long long sa, const void *b,
                              cudaDataType bt, int ldb, long long sb, const float *beta, void *c, cudaDataType ct,
                              int ldc, long long sc, int batch)
{
    return api.GemmStridedBatchedEx(h, ta, tb, m, n, k, alpha, a, at, lda, sa, b, bt, ldb, sb, beta, c, ct, ldc, sc,
                                    batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

void cuda_blas_free(struct cuda_backend *cb)
{
    if (!cb->blas) return;
    for (int d = 0; d < cb->ndev; d++)
        if (cb->blas[d] && api.Destroy) {
            cuda_device_guard g;
            if (cudaSetDevice(d) == cudaSuccess) api.Destroy((cublasHandle_t)cb->blas[d]);
        }
    free(cb->blas);
    cb->blas = NULL;
}
