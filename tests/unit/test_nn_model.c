/* test_nn_model.c - the structure of the sim's compute-time model
 * (mgpu_nn_model_work_ns, docs/sim-model.md "Training ops"): wave and tile
 * quantization of GEMMs, split-K for a deep thin GEMM, a floor per kernel,
 * element-bound gathers, bf16 elementwise work off the tensor cores, bad
 * input. Ratios and orderings only: the calibrated constants may move,
 * the structure may not (scripts/sim-vs-h200.py checks the figures). */
#include <stdio.h>
#include "mgpu/nn.h"
#include "mgpu/topo.h"
#include "tap.h"

static double gemm_ns(const mgpu_topo *t, int bf16, double m, double n, double k, double batch)
{
    double esz = bf16 ? 2 : 4;
    mgpu_nn_work w = {.cls = MGPU_NN_CLASS_GEMM, .flops = 2 * m * n * k * batch,
                      .bytes = esz * batch * (m * k + k * n + m * n), .m = (size_t)m, .n = (size_t)n,
                      .batch = (size_t)batch, .kernels = 1};
    return mgpu_nn_model_work_ns(t, 0, &w, bf16);
}

int main(void)
{
    mgpu_topo *t = NULL;
    CHECK_OK(mgpu_topo_preset("dgx-h200", &t));
    if (!t) return tap_done();

    /* Wave quantization: 1024^3 fills half the SMs, so per FLOP it is
     * slower than 4096^3 (the H200 measured 250 against 820 TFLOP/s). */
    double small = gemm_ns(t, 1, 1024, 1024, 1024, 1), big = gemm_ns(t, 1, 4096, 4096, 4096, 1);
    double per_small = small / (2.0 * 1024 * 1024 * 1024), per_big = big / (2.0 * 4096 * 4096 * 4096);
    printf("# bf16 1024^3 %.2f us, 4096^3 %.2f us: %.2fx the time per FLOP\n", small / 1e3, big / 1e3,
           per_small / per_big);
    CHECKF(per_small > 1.5 * per_big, "1024^3 %.3g ns/FLOP is not well above 4096^3's %.3g", per_small, per_big);

    /* Tile quantization: a part-full tile costs a full one - 16 rows of C
     * cost what 64 do while FLOPs bound the GEMM. */
    double m16 = gemm_ns(t, 1, 16, 8192, 8192, 1), m64 = gemm_ns(t, 1, 64, 8192, 8192, 1);
    CHECKF(m16 == m64, "m = 16 took %.1f ns but m = 64 %.1f", m16, m64);
    /* ... and more tiles than SMs cost another wave. */
    CHECK(gemm_ns(t, 1, 128 * 12, 128 * 12, 4096, 1) > gemm_ns(t, 1, 128 * 11, 128 * 12, 4096, 1));

    /* Split-K: a conv's weight gradient (K x CRR, k = images x pixels) has
     * two tiles; split along k it still runs near the machine's rate, not
     * on 2 of 132 SMs. Per FLOP of its padded tiles it is within 2x of
     * 4096^3 (on two SMs it would be 66x). */
    mgpu_nn_work deep = {.cls = MGPU_NN_CLASS_GEMM, .flops = 2.0 * 64 * 256 * (1 << 20), .m = 64, .n = 256,
                         .batch = 1, .kernels = 1}; /* no bytes: the FLOP term alone */
    double dw = mgpu_nn_model_work_ns(t, 0, &deep, 1);
    double dw_padded_flops = 2.0 * 128 * 256 * (1 << 20);
    CHECKF(dw / dw_padded_flops < 2 * per_big, "deep-k GEMM %.3g ns per padded FLOP against %.3g", dw / dw_padded_flops,
           per_big);

    /* Unknown shape (a planner's GEMM): no quantization, the plain rate. */
    mgpu_nn_work w = {.cls = MGPU_NN_CLASS_GEMM, .flops = 2.0 * 4096 * 4096 * 4096, .bytes = 0, .kernels = 1};
    CHECK(mgpu_nn_model_work_ns(t, 0, &w, 1) <= big);

    /* A floor per kernel: an op with no work costs one floor per kernel it
     * launches (batch norm's three), and mgpu_nn_model_ns is one kernel. */
    mgpu_nn_work none = {.cls = MGPU_NN_CLASS_REDUCE, .kernels = 1};
    double one = mgpu_nn_model_work_ns(t, 0, &none, 0);
    none.kernels = 3;
    double three = mgpu_nn_model_work_ns(t, 0, &none, 0);
    printf("# floor: %.0f ns a kernel\n", one);
    CHECK(one > 0);
    CHECKF(three > 2.999 * one && three < 3.001 * one, "3 kernels %.0f ns, 1 kernel %.0f ns", three, one);
    none.kernels = 0; /* 0 counts as 1 */
    CHECK(mgpu_nn_model_work_ns(t, 0, &none, 0) == one);
    CHECK(mgpu_nn_model_ns(t, 0, MGPU_NN_CLASS_REDUCE, 0, 0, 0) == one);
    mgpu_nn_work ew = {.cls = MGPU_NN_CLASS_ELEMENTWISE, .flops = 1e6, .bytes = 3e8, .kernels = 1};
    CHECK(mgpu_nn_model_ns(t, 0, MGPU_NN_CLASS_ELEMENTWISE, 1, 1e6, 3e8) == mgpu_nn_model_work_ns(t, 0, &ew, 1));

    /* Only a bf16 GEMM uses the tensor cores: bf16 elementwise arithmetic
     * is f32 on the FMA units, so the dtype does not change its price. */
    mgpu_nn_work math = {.cls = MGPU_NN_CLASS_ELEMENTWISE, .flops = 1e12, .bytes = 1, .kernels = 1};
    CHECK(mgpu_nn_model_work_ns(t, 0, &math, 1) == mgpu_nn_model_work_ns(t, 0, &math, 0));

    /* A gather is priced by its element accesses, not its bytes: the same
     * accesses over twice the bytes cost the same. */
    mgpu_nn_work g = {.cls = MGPU_NN_CLASS_GATHER, .flops = 3.7e7, .bytes = 7.3e7, .kernels = 1};
    double g1 = mgpu_nn_model_work_ns(t, 0, &g, 1);
    g.bytes *= 2;
    CHECK(mgpu_nn_model_work_ns(t, 0, &g, 1) == g1);
    g.flops *= 2;
    CHECK(mgpu_nn_model_work_ns(t, 0, &g, 1) > 1.9 * (g1 - one));

    /* Bad input: -1, not a price. */
    mgpu_nn_work bad = {.cls = MGPU_NN_CLASS_COUNT};
    CHECK(mgpu_nn_model_work_ns(t, 0, &bad, 1) == -1);
    CHECK(mgpu_nn_model_work_ns(t, 0, NULL, 1) == -1);
    CHECK(mgpu_nn_model_work_ns(t, 99, &w, 1) == -1);
    CHECK(mgpu_nn_model_work_ns(NULL, 0, &w, 1) == -1);

    mgpu_topo_free(t);
    return tap_done();
}
