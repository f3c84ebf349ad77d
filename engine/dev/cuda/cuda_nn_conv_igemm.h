/* cuda_nn_conv_igemm.h - what conv2d's two kernel files share (CUDA C++
 * only): cuda_nn_conv_igemm.cu (the general implicit-GEMM kernels and the
 * launch that picks a kernel for a shape) and cuda_nn_conv_halo.cu (the
 * bf16 halo kernels of 3x3 stride-1 layers). The launch's dimensions
 * (ig_dims) are every kernel's argument, so both files must see the one
 * struct; the launch calls the halo kernels' conditions and launchers. */
#ifndef MGPU_CUDA_NN_CONV_IGEMM_H
#define MGPU_CUDA_NN_CONV_IGEMM_H
#include "dev/cuda/cuda_nn.h"

#define IG_THREADS 256

enum { IG_FWD = 0, IG_DGRAD = 1, IG_WGRAD = 2 };

/* One output phase (a, b) of the data gradient: its pixels h = a + S*i
 * (i < hs), w = b + S*j (j < ws); its taps r = r0 + S*t (t < tr), s = s0 +
 * S*u (u < ts), which read dy at p = i + pa - t, q = j + qa - u. */
struct ig_phase {
    int a, b, hs, ws, r0, s0, tr, ts, pa, qa, ncol, kred;
    nn_div<uint32_t> by_taps, by_ts, by_hsws, by_ws;
};
#define IG_PHASES 16 /* stride up to 4 in one launch; a larger stride launches 16 phases at a time */

struct ig_dims {
    int N, C, H, W, K, R, P, Q, stride, pad;
    int M, Ncol, Kred; /* the GEMM (the data grad: its largest phase's) */
    int chunk;         /* reduction elements per part, a multiple of BK (DGRAD uncut: d.Kred) */
    int split;         /* FWD, DGRAD: cut in parts, f32 partials to the scratch */
    nn_div<uint32_t> by_pq, by_q, by_hw, by_w, by_rr, by_r, by_plane; /* by_plane: j per output plane */
    int plane;         /* output elements per (image, m): P*Q, H*W, or Ncol for dw */
    ig_phase ph[IG_PHASES]; /* DGRAD: blockIdx.z's phase */
};

/*--- The halo kernels (cuda_nn_conv_halo.cu), for cuda_nn_conv_igemm.cu's launch ---*/

/* The forward's and data grad's halo kernel: log2 W when the shape and
 * pointers meet its conditions (nn_ops.h, mgpu_nn_conv_halo), else -1. */
int halo_lgw(const mgpu_nn_args *a, const ig_dims &d);
void launch_halo(cudaStream_t st, const mgpu_nn_args *a, const ig_dims &d, int lgw);
/* The halo weight grad: log2 W when met (nn_ops.h, mgpu_nn_conv_halo_wgrad;
 * ptrs false: the shape alone, for the scratch's size), else -1; its parts
 * and their pixel steps (*chunk each); its launch, with `ws` holding
 * parts x 9 x K x C floats of partials. */
int halo_wgrad_lgw(const mgpu_nn_args *a, const ig_dims &d, bool ptrs = true);
int halo_wgrad_parts(const ig_dims &d, int *chunk);
void launch_halo_wgrad(cudaStream_t st, const mgpu_nn_args *a, const ig_dims &d, int lgw, void *ws);

#endif
