/* sim_nn.h - what the sim's training-op files share: the column builder and
 * BLAS set-up (sim_nn_cols.c, below both) and conv2d's implicit-GEMM ops
 * (sim_nn_conv.c). */
#ifndef MGPU_SIM_NN_H
#define MGPU_SIM_NN_H
#include "mgpu/nn_ops.h"

/* Where image n's P*Q columns of row `row` start in the column matrix. */
size_t sim_nn_col_at(const mgpu_nn_args *a, size_t n, size_t row);
/* IM2COL (back 0) or COL2IM (back 1) on f32 host memory, whatever a->dtype
 * says (nn_ops.h's arguments). */
void sim_nn_im2col_f32(const mgpu_nn_args *a, int back);
/* OpenBLAS on one thread (each rank is its own process already). */
void sim_nn_blas_init(void);
/* MGPU_NNK_CONV2D, _DGRAD, _WGRAD computed on the host. */
mgpu_result sim_nn_conv_igemm(const mgpu_nn_args *a);

#endif
