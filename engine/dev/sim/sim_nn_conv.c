/* sim_nn_conv.c - the sim's reference for conv2d's implicit-GEMM ops
 * (nn_ops.h, MGPU_NNK_CONV2D*): image by image, the columns in f32
 * (sim_nn_im2col_f32) and one sgemm. Every sum stays in f32 until the
 * result is rounded once, as cuda's implicit GEMM accumulates its tiles
 * in f32 and rounds once (cuda_nn_conv_igemm.cu); only the order of the
 * f32 sums differs (gpu_nn_parity's tolerances). */
#include "dev/sim/sim_nn.h"
#include "mgpu/dtype.h"
#include <cblas.h>
#include <stdlib.h>
#include <string.h>

/* p's n elements as f32: p itself (f32) or a widened copy to free. */
static float *as_f32(const void *p, mgpu_dtype dt, size_t n, float **owned)
{
    *owned = NULL;
    if (dt != MGPU_BF16) return (float *)p;
    float *f = malloc(n * sizeof *f + 1);
    if (f)
        for (size_t i = 0; i < n; i++) f[i] = mgpu_bf16_to_f32(((const uint16_t *)p)[i]);
    *owned = f;
    return f;
}

static void store(void *p, mgpu_dtype dt, const float *v, size_t n)
{
    if (dt == MGPU_BF16)
        for (size_t i = 0; i < n; i++) ((uint16_t *)p)[i] = mgpu_f32_to_bf16(v[i]);
    else
        memcpy(p, v, n * sizeof *v);
}

mgpu_result sim_nn_conv_igemm(const mgpu_nn_args *a)
{
    size_t N = a->n[0], C = a->n[1], H = a->n[2], W = a->n[3], R = a->n[4], P = a->n[5], Q = a->n[6];
    size_t K = (size_t)a->i[2], crr = C * R * R, pq = P * Q, img = C * H * W;
    mgpu_dtype dt = a->dtype;
    int fwd = a->op == MGPU_NNK_CONV2D, dgrad = a->op == MGPU_NNK_CONV2D_DGRAD;
    sim_nn_blas_init();
    /* t0: x (forward, weight grad) or dy (data grad); t1: w, or dy (weight grad) */
    float *own0, *own1;
    const float *in0 = as_f32(a->t[0], dt, N * (dgrad ? K * pq : img), &own0);
    const float *in1 = as_f32(a->t[1], dt, a->op == MGPU_NNK_CONV2D_WGRAD ? N * K * pq : K * crr, &own1);
    size_t acc_n = fwd ? K * pq : dgrad ? img : K * crr;
    float *col = malloc(crr * pq * sizeof *col + 1), *acc = calloc(acc_n + 1, sizeof *acc);
    mgpu_result r = MGPU_OK;
    if (!in0 || !in1 || !col || !acc) {
        r = mgpu_fail(MGPU_ERR_NOMEM, "conv2d: out of host memory for the sim's columns");
        goto done;
    }
    mgpu_nn_args one = *a; /* one image's columns, laid out [CRR, PQ] */
    one.op = MGPU_NNK_IM2COL;
    one.n[0] = 1;
    one.i[2] = MGPU_NN_COL_BY_IMAGE;
    one.t[1] = col;
    for (size_t n = 0; n < N; n++) {
        if (fwd) { /* y[n] [K, PQ] = w [K, CRR] @ col [CRR, PQ] */
            one.t[0] = (void *)(in0 + n * img);
            sim_nn_im2col_f32(&one, 0);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)K, (int)pq, (int)crr, 1.f, in1, (int)crr, col,
                        (int)pq, 0.f, acc, (int)pq);
            store((char *)a->t[2] + n * K * pq * mgpu_dtype_size(dt), dt, acc, K * pq);
        } else if (dgrad) { /* col = w^T [CRR, K] @ dy[n] [K, PQ], then summed into dx[n] */
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)crr, (int)pq, (int)K, 1.f, in1, (int)crr,
                        in0 + n * K * pq, (int)pq, 0.f, col, (int)pq);
            one.t[0] = acc;
            sim_nn_im2col_f32(&one, 1);
            store((char *)a->t[2] + n * img * mgpu_dtype_size(dt), dt, acc, img);
        } else { /* dw [K, CRR] += dy[n] [K, PQ] @ col^T [PQ, CRR] */
            one.t[0] = (void *)(in0 + n * img);
            sim_nn_im2col_f32(&one, 0);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)K, (int)crr, (int)pq, 1.f, in1 + n * K * pq,
                        (int)pq, col, (int)pq, n ? 1.f : 0.f, acc, (int)crr);
        }
    }
    if (a->op == MGPU_NNK_CONV2D_WGRAD) store(a->t[2], dt, acc, K * crr); /* N = 0: zeros */
done:
    free(own0);
    free(own1);
    free(col);
    free(acc);
    return r;
}
