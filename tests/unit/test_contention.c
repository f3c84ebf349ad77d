/* test_contention.c - collectives compete with compute on the sim: a
 * kernel that overlaps a collective on its GPU loses the SMs the
 * collective's CTAs hold (NCCL: one per channel) and the HBM bandwidth it
 * moves (mgpu_stream_model_contend, docs/sim-model.md). A compute-bound
 * bf16 GEMM beside 16 CTAs on the H100's 132 SMs takes 1.165x as long (each
 * CTA takes 1.17 SMs, as measured on an H100); a
 * memory-bound add beside a collective moving 40 % of HBM 1/0.6 as long;
 * half an overlap half the loss; nothing once the collective is over. And
 * the sim communicator records the span: a ring all_reduce of 16 channels,
 * NVLS's 16 channels. Phantom tensors: modelled time only. */
#include <math.h>
#include <stdio.h>
#include "mgpu/collmodel.h"
#include "mgpu/dev.h"
#include "mgpu/mem.h"
#include "mgpu/nn.h"
#include "mgpu/tensor.h"
#include "tap.h"

static mgpu_tensor phantom(mgpu_backend *be, mgpu_dtype dt, size_t rows, size_t cols)
{
    mgpu_tensor t = {0};
    CHECK_OK(mgpu_mem_alloc_phantom(be, 0, NULL, rows * cols * mgpu_dtype_size(dt), 0, &t.buf));
    t.count = rows * cols;
    t.dtype = dt;
    t.ndim = 2;
    t.shape[0] = rows;
    t.shape[1] = cols;
    return t;
}

static double now(mgpu_stream *s)
{
    double ns = 0;
    CHECK_OK(mgpu_stream_model_time(s, &ns));
    return ns;
}

/* The time of one GEMM (or add) on s from its clock now. */
static double gemm(mgpu_stream *s, mgpu_tensor *a, mgpu_tensor *b, mgpu_tensor *c)
{
    double t0 = now(s);
    CHECK_OK(mgpu_nn_gemm(s, a, 0, b, 0, c, 1.0f, 0.0f));
    return now(s) - t0;
}

static double add(mgpu_stream *s, mgpu_tensor *x, mgpu_tensor *y)
{
    double t0 = now(s);
    CHECK_OK(mgpu_nn_add(s, x, x, y, 1.0f, 1.0f));
    return now(s) - t0;
}

int main(void)
{
    mgpu_backend_config cfg = {MGPU_BACKEND_SIM, "dgx-h100", NULL};
    mgpu_backend *be = NULL;
    CHECK_OK(mgpu_backend_open(&cfg, &be));
    if (!be) return tap_done();
    mgpu_stream *s = NULL;
    CHECK_OK(mgpu_stream_create(be, 0, 0, &s));
    mgpu_tensor a = phantom(be, MGPU_BF16, 8192, 8192), b = phantom(be, MGPU_BF16, 8192, 8192),
                c = phantom(be, MGPU_BF16, 8192, 8192);
    mgpu_tensor x = phantom(be, MGPU_F32, 16384, 16384), y = phantom(be, MGPU_F32, 16384, 16384);

    double alone = gemm(s, &a, &b, &c);
    double t = now(s);
    CHECK_OK(mgpu_stream_model_contend(s, t, t + 10 * alone, 16, 0));
    double beside = gemm(s, &a, &b, &c);
    double want = 1.0 / (1.0 - 16 * 1.17 / 132.0); /* 1.165, the H100's measured slowdown */
    printf("# bf16 8192^3 GEMM alone %.1f us, beside 16 CTAs %.1f us: %.3fx (want ~%.3fx)\n", alone / 1e3,
           beside / 1e3, beside / alone, want);
    CHECKF(fabs(beside / alone - want) < 0.01, "GEMM slowdown %.3f, want %.3f", beside / alone, want);
    CHECK_OK(mgpu_stream_model_advance(s, t + 10 * alone)); /* past that collective */

    /* Half the kernel inside the span: about half the loss. */
    t = now(s);
    CHECK_OK(mgpu_stream_model_contend(s, t, t + alone / 2, 16, 0));
    double half = gemm(s, &a, &b, &c);
    printf("# half overlapped: %.3fx\n", half / alone);
    CHECK(half > alone * 1.03 && half < beside);

    /* After the collective: alone again. */
    double after = gemm(s, &a, &b, &c);
    CHECKF(fabs(after - alone) < 1.0, "GEMM after the collective %.1f ns, alone %.1f", after, alone);

    /* A memory-bound add beside a collective moving 40 % of HBM (3.35 TB/s). */
    double add_alone = add(s, &x, &y);
    t = now(s);
    CHECK_OK(mgpu_stream_model_contend(s, t, t + 10 * add_alone, 0, 0.4 * 3350.0));
    double add_beside = add(s, &x, &y);
    printf("# f32 add of 1 GiB alone %.1f us, beside 40 %% of HBM %.1f us: %.3fx\n", add_alone / 1e3,
           add_beside / 1e3, add_beside / add_alone);
    CHECKF(add_beside / add_alone > 1.55 && add_beside / add_alone < 1.7, "add slowdown %.3f", add_beside / add_alone);

    /* What the sim communicator records comes from the model: a ring's
     * CTAs (16 channels on NVLink), NVLS's 16; the ring moves more of HBM
     * per byte (staging buffers) than NVLS (the switch reduces). */
    mgpu_topo *t8 = NULL;
    CHECK_OK(mgpu_topo_preset("dgx-h100", &t8));
    mgpu_coll_prediction ring, nvls;
    mgpu_coll_tuning off = {-1, -1};
    off.nvls = -1;
    CHECK_OK(mgpu_coll_predict_tuned(t8, MGPU_COLL_ALL_REDUCE, (size_t)1 << 30, 8, NULL, &off, &ring));
    CHECK_OK(mgpu_coll_predict(t8, MGPU_COLL_ALL_REDUCE, (size_t)1 << 30, 8, NULL, &nvls));
    printf("# 1 GiB all_reduce: ring %d CTAs, %.0f GB/s of HBM; NVLS %d CTAs, %.0f GB/s of HBM\n", ring.ctas,
           ring.hbm_bytes / (ring.time_us * 1e3), nvls.ctas, nvls.hbm_bytes / (nvls.time_us * 1e3));
    CHECK(ring.ctas == 16 && nvls.ctas == 16 && ring.hbm_bytes > nvls.hbm_bytes);
    mgpu_topo_free(t8);

    mgpu_tensor_free(&a);
    mgpu_tensor_free(&b);
    mgpu_tensor_free(&c);
    mgpu_tensor_free(&x);
    mgpu_tensor_free(&y);
    mgpu_stream_destroy(s);
    mgpu_backend_close(be);
    return tap_done();
}
