/* emu_dispatch.cc - cuda_nn.cu's dispatch for the host emulation: an op's
 * kernels by kind, with the reductions' scratch from malloc (filled with
 * NaN bits, so a partial sum never written shows in the result). */
#include "dev/cuda/cuda_internal.h"
#undef NULL
#define NULL nullptr
#include "dev/cuda/cuda_nn.h"
dim3 gridDim, blockIdx, blockDim;
thread_local dim3 threadIdx;
std::barrier<> *emu_bar;
thread_local std::barrier<> *emu_warp_bar;
uint64_t emu_shfl_slot[1024];

extern "C" int emu_kernel(const mgpu_nn_args *a)
{
    const int sms = 4; /* grid caps as on a small GPU: the kernels' loops take the rest */
    if (cuda_nn_is_elementwise(a->op)) {
        cuda_nn_elementwise(0, a, sms);
    } else if (a->op == MGPU_NNK_IM2COL || a->op == MGPU_NNK_COL2IM || a->op == MGPU_NNK_SWAP12) {
        cuda_nn_conv(0, a);
    } else if (cuda_nn_is_reduce(a->op)) {
        size_t b = cuda_nn_scratch_bytes(a);
        void *ws = b ? malloc(b) : nullptr;
        if (ws) memset(ws, 0xff, b);
        cuda_nn_reduce(0, a, ws, sms);
        free(ws);
    } else {
        return 1;
    }
    return 0;
}
