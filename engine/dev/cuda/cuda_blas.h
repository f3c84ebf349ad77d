/* cuda_blas.h - cuBLAS for the cuda backend, loaded with dlopen at the
 * first GEMM (cuda_blas.cu). C++ (CUDA) only. */
#ifndef MGPU_CUDA_BLAS_H
#define MGPU_CUDA_BLAS_H
#include <cublas_api.h>
#include "dev/cuda/cuda_internal.h"

/* The device's handle, bound to stream st (created on first use). */
mgpu_result cuda_blas_handle(struct cuda_backend *cb, int dev, cudaStream_t st, cublasHandle_t *out);
/* cublasGemmStridedBatchedEx with f32 compute (column-major, as cuBLAS). */
cublasStatus_t cuda_blas_gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                              const float *alpha, const void *a, cudaDataType at, int lda, long long sa, const void *b,
                              cudaDataType bt, int ldb, long long sb, const float *beta, void *c, cudaDataType ct,
                              int ldc, long long sc, int batch);
/* Destroy the handles (backend close). */
void cuda_blas_free(struct cuda_backend *cb);

#endif
