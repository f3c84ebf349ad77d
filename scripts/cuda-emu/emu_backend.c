/* emu_backend.c - turns an open sim backend into the "cuda" side of
 * gpu_nn_parity: its training ops table is swapped for one whose kernels
 * run the emulated cuda kernels (emu_dispatch.cc) on the sim's host
 * memory; GEMMs stay the sim's (cuBLAS is not ours to check). */
#include "dev/backend.h"
#include "mgpu/nn_ops.h"
#include <stdlib.h>

int emu_kernel(const mgpu_nn_args *a);
static const struct mgpu_nn_ops *sim_nn;

static mgpu_result emu_op(mgpu_stream *s, const mgpu_nn_args *a)
{
    if (a->phantom) return sim_nn->kernel(s, a);
    mgpu_stream_synchronize(s);
    if (emu_kernel(a)) return mgpu_fail(MGPU_ERR_INVALID, "cuda-emu: op %d is not one of the kernel files'", (int)a->op);
    return MGPU_OK;
}

static mgpu_result emu_gemm(mgpu_stream *s, const mgpu_nn_gemm_args *g) { return sim_nn->gemm(s, g); }

static const struct mgpu_nn_ops emu_ops = {.gemm = emu_gemm, .kernel = emu_op};

void emu_patch(mgpu_backend *be)
{
    struct mgpu_dev_ops *o = malloc(sizeof *o);
    *o = *be->ops;
    sim_nn = o->nn;
    o->nn = &emu_ops;
    be->ops = o;
}
