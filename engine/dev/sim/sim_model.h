/* sim_model.h - the sim backend's timing model: what each copy, fill,
 * checksum and memory load costs on the modelled machine (docs/sim-model.md).
 *
 * The model only prices operations; dev_sim.c owns the clocks. An operation
 * is priced as a fixed latency plus bytes over a bandwidth, and names the
 * link resources it occupies (one direction of one GPU's PCIe link, its
 * NVLink transmit or receive side, its HBM), so that dev_sim.c can
 * serialise operations that share a resource. */
#ifndef MGPU_SIM_MODEL_H
#define MGPU_SIM_MODEL_H
#include "mgpu/dev.h"
#include "mgpu/topo.h"
#include "mgpu/nn_ops.h"

/* Per-GPU resources. Each direction of a link is its own resource, so
 * bidirectional traffic runs at full speed both ways. */
typedef enum sim_res_kind {
    SIM_RES_PCIE_H2D = 0, /* host -> GPU direction of the GPU's PCIe link */
    SIM_RES_PCIE_D2H,     /* GPU -> host direction */
    SIM_RES_HBM,          /* the GPU's own memory (local copies, fills) */
    SIM_RES_NVL_TX,       /* NVLink, data leaving the GPU */
    SIM_RES_NVL_RX,       /* NVLink, data arriving at the GPU */
    SIM_RES_SM,           /* the GPU's SMs: training ops' kernels */
    SIM_RES_KINDS
} sim_res_kind;

#define SIM_COST_MAX_RES 4

/* The price of one operation. */
typedef struct sim_cost {
    double latency_ns;          /* fixed part */
    double bw_gbs;              /* GB/s = bytes per ns */
    int nres;
    int res[SIM_COST_MAX_RES];  /* resource ids, see sim_model_res() */
    const char *route;          /* "pcie", "nvlink", "hbm", "staged via host", ... */
} sim_cost;

/* The machine as the model sees it: the GPUs of one host. */
typedef struct sim_model_gpu {
    int topo_index;     /* global index in the topology */
    double pcie_gbs;    /* nominal per direction */
    double hbm_gbs;     /* spec peak */
    double bf16_tflops, f32_tflops; /* dense compute peaks */
    int sms;            /* multiprocessors: a GEMM's tiles fill them in waves */
} sim_model_gpu;

typedef struct sim_model {
    const mgpu_topo *topo;
    int ndev;
    sim_model_gpu *gpu;
} sim_model;

/* Build the model of host `host` of `t` (which must outlive it). Fails when
 * the host has no GPU or its ordinals have gaps. */
mgpu_result sim_model_init(sim_model *m, const mgpu_topo *t, int host);
void sim_model_free(sim_model *m);

/* Resource ids run 0 .. sim_model_res_count()-1; the last is host memory. */
int sim_model_res_count(const sim_model *m);
int sim_model_res(const sim_model *m, int dev, sim_res_kind kind);

/* Where a buffer lives: dev >= 0 for device memory, -1 for host memory. */
typedef struct sim_place {
    int dev;
    mgpu_mem_kind kind;
} sim_place;

/* A copy of bytes from src to dst. `direct` says a peer copy between two
 * devices may go GPU to GPU (peer access enabled); without it the copy is
 * staged through host memory. `sm` selects the copy-kernel efficiencies. */
void sim_model_copy(const sim_model *m, sim_place dst, sim_place src, int direct, int sm,
                    sim_cost *out);

/* A kernel on `exec_dev` reading (write = 0) or writing every byte of a
 * buffer at `where` once: fills and checksums. The caller has checked that
 * exec_dev may reach it. */
void sim_model_touch(const sim_model *m, int exec_dev, sim_place where, int write, sim_cost *out);

/* Modelled latency of one dependent load from `exec_dev` into memory at
 * `where` (device, peer device or pinned host). */
double sim_model_load_latency_ns(const sim_model *m, int exec_dev, sim_place where);

/* A training op's kernel(s) on `dev` (mgpu_nn_model_work_ns, mgpu/nn.h);
 * it occupies the GPU's SMs. */
void sim_model_compute(const sim_model *m, int dev, const mgpu_nn_work *w, int bf16, sim_cost *out);
/* The same, with the pieces of its time: the kernels' floor, the FLOP time
 * and the byte time (a collective beside it slows the last two apart). */
void sim_model_compute_parts(const sim_model *m, int dev, const mgpu_nn_work *w, int bf16, sim_cost *out,
                             double *floor_ns, double *flops_ns, double *bytes_ns);

/* Nanoseconds the operation takes for `bytes`. */
double sim_cost_ns(const sim_cost *c, double bytes);

#endif
