/* sim_model.c - prices of copies, fills, checksums and loads on a modelled
 * machine, from its topology and one table of measured constants, and of
 * the training ops' kernels (conv2d's in sim_conv_price.c). */
#include "dev/sim/sim_model.h"
#include "dev/sim/sim_conv_price.h"
#include "mgpu/nn_ops.h"
#include <math.h>
#include <stdlib.h>

/*--- Constants ---------------------------------------------------------*
 * Every number the model uses, with where it comes from. Efficiencies are
 * "achieved / nominal" so the same factor scales to other GPUs and links.
 * Sources: the figures of docs/gpu-results.md, measured on an H200 (PCIe gen5 x16) with torch
 * 2.11; nvbandwidth runs on DGX H100 published by NVIDIA and users; NCCL's
 * topology model for latencies. docs/sim-model.md explains each. */
/* Nominal PCIe gen5 x16 bandwidth per direction as the topology reports it
 * (pcie_gbs: 32 GT/s x 16 lanes, 128b/130b = 63.0 GB/s); measured rates are
 * divided by it to give efficiencies, so the H200 preset reproduces them. */
#define PCIE_GEN5_X16_GBS (32.0 * 16.0 / 8.0 * 128.0 / 130.0)

static const struct {
    double h2d_pinned_eff;      /* 55.3 GB/s measured pinned H2D on H200 (/ nominal) */
    double d2h_pinned_eff;      /* 55.2 GB/s measured pinned D2H on H200 */
    double h2d_pageable_eff;    /* 17.6 GB/s measured pageable H2D on H200 */
    double d2h_pageable_eff;    /* 13.4 GB/s measured pageable D2H on H200 */
    double sm_pcie_factor;      /* SM vs CE over PCIe: no reliable published split */
    double hbm_copy_eff;        /* 4.02 TB/s read+write of 4.8 TB/s spec, H200 D2D */
    double nvlink_ce_eff;       /* ~382 GB/s of 450 (NV18) nvbandwidth CE on DGX H100 */
    double nvlink_sm_eff;       /* SM copy kernels: same as CE within published noise */
    double pcie_p2p_eff;        /* GPU-to-GPU over PCIe switches: as pinned H2D */
    double staged_factor;       /* staged peer copy: two hops through a bounce buffer */
    double host_memcpy_gbs;     /* host-to-host copy by the driver, one CPU thread */
    double pcie_latency_ns;     /* one PCIe transaction, host <-> GPU */
    double hbm_latency_ns;      /* one HBM access (pointer chase beyond L2) */
    double local_copy_latency_ns; /* fixed cost of a local D2D copy or fill */
    double host_latency_ns;     /* host memcpy start */
    double host_load_latency_ns; /* a GPU load from pinned host memory, round trip */
    double default_nvlink_latency_ns; /* when topo gives no latency */
    double kernel_floor_ns;     /* a kernel's launch, ramp and tail, back to back on a stream */
    double gemm_tile;           /* rows and cols of C one SM's tile computes */
    double gemm_f32_tile;       /* the same for f32 GEMMs on the FMA units */
    double gemm_f32_eff;        /* f32 GEMMs (FMA units, no TF32): achieved / f32 peak */
    double eff_flops[MGPU_NN_CLASS_COUNT]; /* achieved / peak FLOP/s per op class */
    double eff_bytes[MGPU_NN_CLASS_COUNT]; /* achieved / spec HBM bandwidth per op class */
    double reduce_gbs_per_sm;   /* row reductions: the SMs' rate, when it is below eff_bytes x HBM */
} K = {
    .h2d_pinned_eff = 55.3 / PCIE_GEN5_X16_GBS,
    .d2h_pinned_eff = 55.2 / PCIE_GEN5_X16_GBS,
    .h2d_pageable_eff = 17.6 / PCIE_GEN5_X16_GBS,
    .d2h_pageable_eff = 13.4 / PCIE_GEN5_X16_GBS,
    .sm_pcie_factor = 1.0,
    .hbm_copy_eff = 4020.0 / 4800.0,
    .nvlink_ce_eff = 0.85,
    .nvlink_sm_eff = 0.85,
    .pcie_p2p_eff = 55.3 / PCIE_GEN5_X16_GBS,
    .staged_factor = 0.5,
    .host_memcpy_gbs = 10.0,
    .pcie_latency_ns = 1000.0,
    .hbm_latency_ns = 500.0,
    .local_copy_latency_ns = 500.0,
    .host_latency_ns = 200.0,
    .host_load_latency_ns = 1500.0,
    .default_nvlink_latency_ns = 700.0,
    /* Training ops: calibrated on the H200 (docs/gpu-results.md, 2026-12-03
     * fourth session: mgpulab's times by CUDA events, and each kernel's
     * duration by Nsight Compute, gpu__time_duration, in the same lease).
     * Floor: the smallest kernels (a 1-block fill, the combine of a
     * two-stage reduction) ran 1.5-2.2 us each under ncu, and a 1024^3
     * GEMM's 7.1 us kernel took 8.6 us between events: ~2.5 us a kernel
     * back to back. It is charged once per kernel the op launches on cuda
     * (batch norm: 3, cross-entropy: 2, ...), since every one of them pays it. */
    .kernel_floor_ns = 2500.0,
    /* GEMMs: cuBLAS reached 820-834 TFLOP/s bf16 at 4096^3 and
     * 8192x28672x8192 (0.85 of the 989 dense peak on the SMs the tiles
     * fill), 735 at 2048x8192x2048 (0.77): 0.83 keeps all three within 5 %.
     * A GEMM's output is cut in 128x128 tiles, one per SM at a time: 1024^3
     * has 64 tiles, half of the H200's 132 SMs, and ran at 250 TFLOP/s -
     * wave quantization (gemm_overhead). f32 (no TF32, FMA units): 50.5 of
     * 67 TFLOP/s at 4096^3, whose 96-row tiles fill 14 waves and a sliver:
     * 0.81 on the filled SMs. The f32 tile is fitted: the f32 GEMM kernels
     * of a ResNet-8 step (thin: 16-64 output channels) summed 1.95 ms under
     * ncu; 64-row tiles predict 1.14 ms, 128-row 2.47, 96-row 1.57. */
    .gemm_tile = 128.0,
    .gemm_f32_tile = 96.0,
    .gemm_f32_eff = 0.81,
    /* Streaming kernels (relu, add, swap12): ~85 % of HBM as the D2D copy
     * does (relu and add measured 3.6 and 4.1 TB/s). Row reductions
     * (norms, pooling, batch norm) read a row more than once: layernorm and
     * rmsnorm moved 1.8 and 2.1 TB/s of their bytes: 0.42 of HBM puts both
     * within 10 %. Gathers (GATHER: im2col, col2im, and the causal softmax,
     * whose row limit cuts 16-byte packs) load one element per thread and
     * are bound by element accesses, not bytes (nn_conv.c and nn_attn.c
     * count them, with a cost per block for im2col and col2im): k_im2col made 990 accesses a
     * ns (a load and a store per column; bf16 and f32 alike, ncu), the
     * causal softmax 740, which its count carries (mgpu_nn_softmax_accesses):
     * the model prices an access at 1/990 ns on the H200, expressed as a
     * share of the f32 peak so that it scales with another GPU's SMs and
     * clock: 990 / 67,000. (It was one rate between the two, 900, which
     * priced the conv 13.5 % slow on the H200 and 15.5 % on an H100.) */
    .eff_flops = {0.83, 0.50, 0.50, 990.0 / 67000.0, 0.2}, /* CONV's: unused, sim_conv_ns prices it */
    .eff_bytes = {0.85, 0.85, 0.85, 1.0, 0.85},
    /* Row reductions are bound by the SMs, not by HBM (the memory-pass
     * kernels: the norms whose row cuda holds in registers are priced as
     * streaming, nn_norm.c, since the fourteenth session): on an H100 (3.35
     * TB/s HBM3) layernorm and rmsnorm moved 1.77 and 2.02 TB/s, the same
     * as on the H200 (4.8 TB/s HBM3e: 1.8 and 2.1), both with 132 SMs
     * (docs/gpu-results.md, 2026-12-06). Priced as 0.42 of the H200's HBM
     * before - right there, 30-45 % slow on the H100. Now the SMs' rate,
     * which keeps the H200's figure: 2016 GB/s over 132 SMs. */
    .reduce_gbs_per_sm = 0.42 * 4800.0 / 132.0,
};

/* A GPU the table does not know: A100-class compute, as the HBM fallback. */
#define FALLBACK_BF16_TFLOPS 312.0
#define FALLBACK_F32_TFLOPS 19.5
#define FALLBACK_SMS 108

/* Fallbacks when the topology does not know a GPU's figures (an imported
 * XML of an unknown GPU): PCIe gen4 x16 and A100-class HBM. Said in the
 * docs; the model never refuses to price an operation. */
#define FALLBACK_PCIE_GBS 32.0
#define FALLBACK_HBM_GBS 2000.0

/*--- Model -------------------------------------------------------------*/

/* One GPU's figures from the topology, with the fallbacks above. */
static void gpu_figures(const mgpu_topo *t, int gi, sim_model_gpu *out)
{
    const mgpu_topo_gpu *g = mgpu_topo_gpu_at(t, gi);
    out->topo_index = gi;
    out->pcie_gbs = g->pcie_gbs > 0 ? g->pcie_gbs : FALLBACK_PCIE_GBS;
    out->hbm_gbs = g->hbm_gbs > 0 ? g->hbm_gbs : FALLBACK_HBM_GBS;
    const mgpu_gpu_model *gm = mgpu_gpu_model_by_name(g->name);
    out->bf16_tflops = gm && gm->bf16_tflops > 0 ? gm->bf16_tflops : FALLBACK_BF16_TFLOPS;
    out->f32_tflops = gm && gm->f32_tflops > 0 ? gm->f32_tflops : FALLBACK_F32_TFLOPS;
    out->sms = gm && gm->sm_count > 0 ? gm->sm_count : FALLBACK_SMS;
}

mgpu_result sim_model_init(sim_model *m, const mgpu_topo *t, int host)
{
    m->topo = t;
    m->ndev = 0;
    m->gpu = NULL;
    int n = 0;
    for (int i = 0; i < mgpu_topo_gpu_count(t); i++)
        if (mgpu_topo_gpu_at(t, i)->host == host) n++;
    if (n == 0)
        return mgpu_fail(MGPU_ERR_NO_DEVICE, "the simulated machine '%s' has no GPU on host %d",
                         mgpu_topo_machine_name(t), host);
    m->gpu = calloc((size_t)n, sizeof *m->gpu);
    if (!m->gpu) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory building the sim model");
    for (int d = 0; d < n; d++) {
        int gi = mgpu_topo_gpu_index(t, host, d);
        if (gi < 0) {
            free(m->gpu);
            m->gpu = NULL;
            return mgpu_fail(MGPU_ERR_INVALID,
                             "the simulated machine '%s' has %d GPUs on host %d but no GPU with "
                             "ordinal %d; GPU ordinals must run 0..%d",
                             mgpu_topo_machine_name(t), n, host, d, n - 1);
        }
        gpu_figures(t, gi, &m->gpu[d]);
    }
    m->ndev = n;
    return MGPU_OK;
}

void sim_model_free(sim_model *m)
{
    free(m->gpu);
    m->gpu = NULL;
    m->ndev = 0;
}

int sim_model_res_count(const sim_model *m) { return m->ndev * SIM_RES_KINDS + 1; }

int sim_model_res(const sim_model *m, int dev, sim_res_kind kind)
{
    if (dev < 0) return m->ndev * SIM_RES_KINDS; /* host memory */
    return dev * SIM_RES_KINDS + (int)kind;
}

static void cost_set(sim_cost *c, double lat_ns, double bw, const char *route)
{
    c->latency_ns = lat_ns;
    c->bw_gbs = bw;
    c->nres = 0;
    c->route = route;
}

static void cost_use(const sim_model *m, sim_cost *c, int dev, sim_res_kind kind)
{
    if (c->nres < SIM_COST_MAX_RES) c->res[c->nres++] = sim_model_res(m, dev, kind);
}

static double min2(double a, double b) { return a < b ? a : b; }

static double path_latency_ns(const mgpu_topo_path *p, double fallback)
{
    return p->latency_us > 0 ? p->latency_us * 1000.0 : fallback;
}

/* Host -> device dev over its PCIe link. */
static void price_h2d(const sim_model *m, int dev, int pinned, int sm, sim_cost *c)
{
    double eff = pinned ? K.h2d_pinned_eff : K.h2d_pageable_eff;
    if (sm) eff *= K.sm_pcie_factor;
    cost_set(c, K.pcie_latency_ns, m->gpu[dev].pcie_gbs * eff, pinned ? "pcie" : "pcie (pageable, staged)");
    cost_use(m, c, dev, SIM_RES_PCIE_H2D);
}

static void price_d2h(const sim_model *m, int dev, int pinned, int sm, sim_cost *c)
{
    double eff = pinned ? K.d2h_pinned_eff : K.d2h_pageable_eff;
    if (sm) eff *= K.sm_pcie_factor;
    cost_set(c, K.pcie_latency_ns, m->gpu[dev].pcie_gbs * eff, pinned ? "pcie" : "pcie (pageable, staged)");
    cost_use(m, c, dev, SIM_RES_PCIE_D2H);
}

/* Device a -> device b, a != b. */
static void price_peer(const sim_model *m, int a, int b, int direct, int sm, sim_cost *c)
{
    mgpu_topo_path p = mgpu_topo_gpu_path(m->topo, m->gpu[a].topo_index, m->gpu[b].topo_index);
    double pcie_ab = min2(m->gpu[a].pcie_gbs, m->gpu[b].pcie_gbs);
    if (direct && p.type == MGPU_PATH_NV && p.bw_gbs > 0) {
        cost_set(c, path_latency_ns(&p, K.default_nvlink_latency_ns),
                 p.bw_gbs * (sm ? K.nvlink_sm_eff : K.nvlink_ce_eff), "nvlink");
        cost_use(m, c, a, SIM_RES_NVL_TX);
        cost_use(m, c, b, SIM_RES_NVL_RX);
    } else if (direct) {
        double bw = p.bw_gbs > 0 ? min2(p.bw_gbs, pcie_ab) : pcie_ab;
        cost_set(c, path_latency_ns(&p, K.pcie_latency_ns), bw * K.pcie_p2p_eff * (sm ? K.sm_pcie_factor : 1.0),
                 "pcie p2p");
        cost_use(m, c, a, SIM_RES_PCIE_D2H);
        cost_use(m, c, b, SIM_RES_PCIE_H2D);
    } else {
        /* No peer access: the driver copies GPU a -> pinned bounce buffer ->
         * GPU b in chunks; both PCIe hops are busy for the whole copy. */
        double bw = min2(m->gpu[a].pcie_gbs * K.d2h_pinned_eff, m->gpu[b].pcie_gbs * K.h2d_pinned_eff);
        cost_set(c, 2.0 * K.pcie_latency_ns, bw * K.staged_factor, "staged via host");
        cost_use(m, c, a, SIM_RES_PCIE_D2H);
        cost_use(m, c, b, SIM_RES_PCIE_H2D);
    }
}

void sim_model_copy(const sim_model *m, sim_place dst, sim_place src, int direct, int sm, sim_cost *out)
{
    if (src.dev < 0 && dst.dev < 0) {
        /* Host to host: the driver memcpys on the CPU. An SM copy between
         * two pinned buffers is priced the same (kept simple; documented). */
        cost_set(out, K.host_latency_ns, K.host_memcpy_gbs, "host memcpy");
        cost_use(m, out, -1, SIM_RES_HBM);
        return;
    }
    if (src.dev < 0) {
        price_h2d(m, dst.dev, src.kind == MGPU_MEM_PINNED, sm, out);
        return;
    }
    if (dst.dev < 0) {
        price_d2h(m, src.dev, dst.kind == MGPU_MEM_PINNED, sm, out);
        return;
    }
    if (src.dev == dst.dev) {
        /* A local copy reads and writes every byte: HBM carries 2x bytes. */
        cost_set(out, K.local_copy_latency_ns, m->gpu[src.dev].hbm_gbs * K.hbm_copy_eff / 2.0, "hbm");
        cost_use(m, out, src.dev, SIM_RES_HBM);
        return;
    }
    price_peer(m, src.dev, dst.dev, direct, sm, out);
}

void sim_model_touch(const sim_model *m, int exec_dev, sim_place where, int write, sim_cost *out)
{
    if (where.dev == exec_dev) {
        cost_set(out, K.local_copy_latency_ns, m->gpu[exec_dev].hbm_gbs * K.hbm_copy_eff, "hbm");
        cost_use(m, out, exec_dev, SIM_RES_HBM);
    } else if (where.dev >= 0) {
        /* A peer's memory: writes travel exec -> peer, reads peer -> exec. */
        if (write) price_peer(m, exec_dev, where.dev, 1, 1, out);
        else price_peer(m, where.dev, exec_dev, 1, 1, out);
    } else if (where.kind == MGPU_MEM_PINNED) {
        if (write) price_d2h(m, exec_dev, 1, 1, out);
        else price_h2d(m, exec_dev, 1, 1, out);
    } else {
        /* Pageable memory: the sim does it on the CPU. */
        cost_set(out, K.host_latency_ns, K.host_memcpy_gbs, "host memory");
        cost_use(m, out, -1, SIM_RES_HBM);
    }
}

double sim_model_load_latency_ns(const sim_model *m, int exec_dev, sim_place where)
{
    if (where.dev == exec_dev) return K.hbm_latency_ns;
    if (where.dev >= 0) {
        mgpu_topo_path p = mgpu_topo_gpu_path(m->topo, m->gpu[exec_dev].topo_index, m->gpu[where.dev].topo_index);
        double link = p.type == MGPU_PATH_NV ? path_latency_ns(&p, K.default_nvlink_latency_ns)
                                             : path_latency_ns(&p, K.pcie_latency_ns);
        return K.hbm_latency_ns + link;
    }
    return K.host_load_latency_ns;
}

/* The FLOPs a GEMM's SMs spend, over the FLOPs it asks for: C is cut in
 * tiles of K.gemm_tile x K.gemm_tile, a part-full edge tile costs a full
 * one (tile quantization: a conv with 16 output channels computes 128
 * rows), and the tiles run in waves of one per SM, the last wave maybe
 * part full (wave quantization). A GEMM with fewer tiles than SMs and a
 * deep k (a conv's weight gradient: k = images x pixels) is split along k
 * so the slices fill the SMs, as cuBLAS's split-K kernels do. 1 when the
 * shape is not known (a planner's large GEMMs). */
static double gemm_overhead(const sim_model_gpu *g, const mgpu_nn_work *w, int bf16)
{
    if (w->m == 0 || w->n == 0) return 1.0;
    double T = bf16 ? K.gemm_tile : K.gemm_f32_tile, batch = (double)(w->batch ? w->batch : 1);
    double m = (double)w->m, n = (double)w->n, k = w->flops / (2.0 * m * n * batch);
    double mt = ceil(m / T), nt = ceil(n / T), tiles = mt * nt * batch, sms = g->sms, splits = 1;
    if (tiles < sms && k > mt * T && k > nt * T) {
        splits = floor(sms / tiles);
        if (splits > ceil(k / T)) splits = ceil(k / T);
    }
    double slices = tiles * splits, waves = ceil(slices / sms);
    return (mt * T * nt * T) / (m * n) * (waves * sms / slices);
}

/* The one formula both the sim's streams and mgpu_nn_model_work_ns use.
 * Only a bf16 GEMM runs on the tensor cores; every other op's arithmetic
 * is f32 on the FMA units. */
static double compute_parts(const sim_model_gpu *g, const mgpu_nn_work *w, int bf16, double *floor_ns,
                            double *flops_ns, double *bytes_ns)
{
    int gemm = w->cls == MGPU_NN_CLASS_GEMM, conv = w->cls == MGPU_NN_CLASS_CONV;
    double peak = ((gemm || conv) && bf16 ? g->bf16_tflops : g->f32_tflops) * 1e3; /* FLOP per ns */
    double eff = gemm && !bf16 ? K.gemm_f32_eff : K.eff_flops[w->cls];
    double q = gemm ? gemm_overhead(g, w, bf16) : 1.0;
    double t_flops = conv && w->m && w->n ? sim_conv_ns(g, w, bf16, K.eff_bytes[MGPU_NN_CLASS_CONV])
                                          : w->flops * q / (peak * eff);
    double bw = g->hbm_gbs * K.eff_bytes[w->cls];
    if (w->cls == MGPU_NN_CLASS_REDUCE && g->sms * K.reduce_gbs_per_sm < bw) bw = g->sms * K.reduce_gbs_per_sm;
    double t_bytes = w->bytes / bw;
    int kernels = w->kernels > 1 ? w->kernels : 1;
    *floor_ns = kernels * K.kernel_floor_ns;
    *flops_ns = t_flops;
    *bytes_ns = t_bytes;
    return *floor_ns + (t_flops > t_bytes ? t_flops : t_bytes);
}

static double compute_ns(const sim_model_gpu *g, const mgpu_nn_work *w, int bf16)
{
    double f, a, b;
    return compute_parts(g, w, bf16, &f, &a, &b);
}

void sim_model_compute(const sim_model *m, int dev, const mgpu_nn_work *w, int bf16, sim_cost *out)
{
    cost_set(out, compute_ns(&m->gpu[dev], w, bf16), 0, "sm");
    cost_use(m, out, dev, SIM_RES_SM);
}

void sim_model_compute_parts(const sim_model *m, int dev, const mgpu_nn_work *w, int bf16, sim_cost *out,
                             double *floor_ns, double *flops_ns, double *bytes_ns)
{
    cost_set(out, compute_parts(&m->gpu[dev], w, bf16, floor_ns, flops_ns, bytes_ns), 0, "sm");
    cost_use(m, out, dev, SIM_RES_SM);
}

double mgpu_nn_model_work_ns(const mgpu_topo *t, int gpu, const mgpu_nn_work *w, int bf16)
{
    if (!t || !w || gpu < 0 || gpu >= mgpu_topo_gpu_count(t) || (unsigned)w->cls >= MGPU_NN_CLASS_COUNT) return -1;
    sim_model_gpu g;
    gpu_figures(t, gpu, &g);
    return compute_ns(&g, w, bf16);
}

double mgpu_nn_model_ns(const mgpu_topo *t, int gpu, mgpu_nn_class cls, int bf16, double flops, double bytes)
{
    mgpu_nn_work w = {.cls = cls, .flops = flops, .bytes = bytes, .kernels = 1};
    return mgpu_nn_model_work_ns(t, gpu, &w, bf16);
}

double sim_cost_ns(const sim_cost *c, double bytes)
{
    return c->latency_ns + (c->bw_gbs > 0 ? bytes / c->bw_gbs : 0.0);
}
