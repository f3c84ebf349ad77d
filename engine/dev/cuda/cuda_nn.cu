/* cuda_nn.cu - the cuda backend's training ops (nn_ops.h): GEMMs through
 * cuBLAS (cuda_blas.cu; f32 compute for f32 and bf16), every other op as
 * kernels of ours, by kind: cuda_nn_elementwise.cu, cuda_nn_conv.cu
 * (im2col, col2im, the dim swap), cuda_nn_conv_igemm.cu (conv2d as an
 * implicit GEMM) and cuda_nn_reduce.cu (two-stage
 * reductions). Values are loaded and stored through dtype.h's conversions,
 * so bf16 rounds exactly as on the sim, and every reduction has a fixed
 * order: no atomics, so the same inputs give the same bits on every run. */
#include "dev/cuda/cuda_blas.h"
#include "dev/cuda/cuda_nn.h"
#include "mgpu/mem.h"

static int sm_count(mgpu_stream *s) { return cuda_be(s->be)->props[s->device].multiProcessorCount; }

static mgpu_result cuda_nn_kernel(mgpu_stream *s, const mgpu_nn_args *a)
{
    int dev = s->device;
    CUDA_ON_DEVICE(dev);
    cudaStream_t st = cuda_stream_of(s);
    const char *name = a->cost.name ? a->cost.name : "training op";
    cudaError_t e;
    if (cuda_nn_is_elementwise(a->op)) {
        e = cuda_nn_elementwise(st, a, sm_count(s));
    } else if (a->op == MGPU_NNK_IM2COL || a->op == MGPU_NNK_COL2IM || a->op == MGPU_NNK_SWAP12) {
        e = cuda_nn_conv(st, a);
    } else if (cuda_nn_is_conv_igemm(a->op)) {
        /* The f32 partials of a reduction cut in parts (the weight gradient,
         * a forward with few tiles), freed as the reductions' are */
        size_t bytes = cuda_nn_conv_igemm_scratch(a);
        mgpu_buffer *ws = NULL;
        if (bytes) MGPU_CHECK(mgpu_mem_alloc_stream(s, bytes, &ws));
        e = cuda_nn_conv_igemm(st, a, ws ? ws->ptr : NULL);
        mgpu_mem_free(ws);
    } else if (cuda_nn_is_reduce(a->op)) {
        /* The partial sums' scratch, from the caching allocator in this
         * stream's order: freed right after the launches, it is reused only
         * by work queued later on this stream. */
        size_t bytes = cuda_nn_scratch_bytes(a);
        mgpu_buffer *ws = NULL;
        if (bytes) MGPU_CHECK(mgpu_mem_alloc_stream(s, bytes, &ws));
        e = cuda_nn_reduce(st, a, ws ? ws->ptr : NULL, sm_count(s));
        mgpu_mem_free(ws);
    } else {
        return mgpu_fail(MGPU_ERR_INVALID, "cuda: unknown training op %d (%s)", (int)a->op, name);
    }
    CUDA_TRY(e, dev, "launching the %s kernel", name);
    return MGPU_OK;
}

static mgpu_result cuda_nn_gemm(mgpu_stream *s, const mgpu_nn_gemm_args *g)
{
    int dev = s->device;
    CUDA_ON_DEVICE(dev);
    if (g->m > INT32_MAX || g->n > INT32_MAX || g->k > INT32_MAX || g->batch > INT32_MAX)
        return mgpu_fail(MGPU_ERR_INVALID, "gemm: a dim above 2^31 is more than cuBLAS takes");
    cublasHandle_t h;
    MGPU_CHECK(cuda_blas_handle(cuda_be(s->be), dev, cuda_stream_of(s), &h));
    cudaDataType t = g->dtype == MGPU_BF16 ? CUDA_R_16BF : CUDA_R_32F;
    /* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: pass
     * B first, and every matrix is its own transpose's column-major view. */
    int m = (int)g->m, n = (int)g->n, k = (int)g->k;
    cublasStatus_t e = cuda_blas_gemm(h, g->tb ? CUBLAS_OP_T : CUBLAS_OP_N, g->ta ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k,
                                      &g->alpha, g->b, t, g->tb ? k : n, (long long)g->stride_b, g->a, t,
                                      g->ta ? m : k, (long long)g->stride_a, &g->beta, g->c, t, n,
                                      (long long)g->stride_c, (int)g->batch);
    if (e != CUBLAS_STATUS_SUCCESS)
        return mgpu_fail(MGPU_ERR_CUDA, "cuBLAS gemm %dx%dx%d (batch %zu, %s) on GPU %d failed with status %d", m, n,
                         k, g->batch, mgpu_dtype_name(g->dtype), dev, (int)e);
    return MGPU_OK;
}

extern "C" const struct mgpu_nn_ops cuda_nn_ops = {
    .gemm = cuda_nn_gemm,
    .kernel = cuda_nn_kernel,
};
