/* telemetry.h - live per-GPU link traffic for the bandwidth pane: NVLink and
 * PCIe TX/RX in bytes per second, sampled by the coordinator about 10 times
 * a second while work runs.
 *
 * Sources, behind this one interface:
 *  - cuda: NVML loaded with dlopen (no CUDA context in the coordinator):
 *    NVLink throughput field values (NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX/RX,
 *    counters in KiB, differenced between samples) and
 *    nvmlDeviceGetPcieThroughput (KB/s over NVML's own 20 ms window);
 *  - sim: the modelled load. Workers of a run publish, per GPU and link kind,
 *    the modelled rate of the operation they are executing (bytes on the
 *    link / modelled duration) into a small shared-memory table the
 *    coordinator created; the sampler reads it. Workers find the table
 *    through the MGPU_TELEMETRY environment variable (mgpu_telemetry_env).
 *  - none: no driver, or NVML without the fields (says why).
 * Sampling must stay cheap: the panes may cost < 2 % of a benchmark.
 * Code: engine/trace/telemetry.c (the interface, the sim table),
 * telemetry_nvml.c, telemetry_publish.c (the worker side). */
#ifndef MGPU_TELEMETRY_H
#define MGPU_TELEMETRY_H
#include "mgpu/dev.h"
#include "mgpu/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mgpu_link_sample {
    int gpu;                      /* sim: the machine's GPU index (topology "gpus"[]);
                                     cuda: NVML's index (PCI bus order) */
    char busid[20];               /* "0000:19:00.0": match it with the topology's GPUs */
    double nvlink_tx, nvlink_rx;  /* bytes/s over the last interval */
    double pcie_tx, pcie_rx;      /* bytes/s */
    int has_nvlink, has_pcie;     /* the source gives these numbers */
    /* between nodes (sim, a machine of several hosts): this GPU's share of
     * the network, through its nearest NIC - NIC `nic` of its host, as the
     * topology and NCCL number them ("NET/IB/3"). That traffic crosses the
     * GPU's PCIe link to the NIC too, so pcie_* include it. */
    double net_tx, net_rx;        /* bytes/s */
    int has_net, nic;             /* nic: -1 when has_net is 0 */
} mgpu_link_sample;

typedef struct mgpu_telemetry mgpu_telemetry;

/* Open the source that matches the backend config (sim: a table for the
 * machine's GPUs; cuda/auto: NVML, or "none" with the reason). Never fails
 * for a missing driver: the source is then "none". */
mgpu_result mgpu_telemetry_open(const mgpu_backend_config *cfg, mgpu_telemetry **out);
void mgpu_telemetry_close(mgpu_telemetry *t);
/* "NVML", "modelled (SIMULATED dgx-h100)", "none: libnvidia-ml.so.1 not found" */
const char *mgpu_telemetry_source(const mgpu_telemetry *t);
int mgpu_telemetry_gpus(const mgpu_telemetry *t);
/* Rates since the previous call, one per GPU, into out[0..max); *n = count. */
mgpu_result mgpu_telemetry_sample(mgpu_telemetry *t, mgpu_link_sample *out, int max, int *n);
/* How often to sample while work runs, in ms: 100 (10 Hz), or 50 when the
 * driver's PCIe byte counters are 32-bit and there are at most 4 GPUs - such
 * a counter wraps every 4 GiB, so at 10 Hz any rate above 43 GB/s (a full
 * PCIe Gen5 copy) would read low; at 20 Hz the bound is 86 GB/s. Beyond 4
 * GPUs the NVML cost (0.2-0.6 ms per GPU per sample) keeps it at 10 Hz. */
int mgpu_telemetry_interval_ms(const mgpu_telemetry *t);
/* "MGPU_TELEMETRY=..." for the workers of a run (sim), or NULL. */
const char *mgpu_telemetry_env(const mgpu_telemetry *t);

/*--- Worker side (sim) -----------------------------------------------------*/

/* The link kinds are mgpu/dev.h's mgpu_link_kind. Publish that `gpu` (the machine's GPU index, as the sampler reports it)
 * moves tx/rx bytes per second over `kind` for the next `seconds` of wall
 * time (a modelled operation in progress). A rate <= 0 leaves that
 * direction as it was, so a copy's receiving GPU does not wipe what it
 * sends; a later rate for the same GPU, kind and direction replaces the
 * earlier one. No-op when the process has no MGPU_TELEMETRY table (mapped
 * lazily on the first call). Cheap: a few atomic stores. A rank worker
 * hands it to mgpu_link_load_set_hook, where the sim's copies and
 * collectives report their load. */
void mgpu_telemetry_publish(int gpu, mgpu_link_kind kind, double tx_bps, double rx_bps, double seconds);

#ifdef __cplusplus
}
#endif
#endif
