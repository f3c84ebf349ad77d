/* facts.h - the per-GPU health facts an onboarding engineer reads with
 * `nvidia-smi -q` and `nvidia-smi nvlink -s`: each NVLink's state and speed,
 * PCIe generation and width (current, the link's maximum, the GPU's own),
 * ECC error counts, clocks and the reasons they are held down, power.
 *
 * On the cuda backend they come from NVML (dlopen'd; engine/topo/nvml_dl.c);
 * on sim from the machine model (link state under faults, the XML's PCIe
 * link), and what the model does not know is not reported. A fact NVML or
 * the model cannot give is JSON null: "not reported", never a made-up 0. */
#ifndef MGPU_FACTS_H
#define MGPU_FACTS_H
#include <jansson.h>
#include "mgpu/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One object per GPU of host 0 (the backend's devices), in topology order:
 * {gpu, busid, source: "nvml"|"model"|"none", why (when a source is
 *  missing), nvlink: {links, up, per_link: [{link, state: "up"|"down",
 *  speed_mbps}]}, pcie: {gen, gen_max, gen_gpu_max, width, width_max,
 *  width_gpu_max}, ecc: {corrected_volatile, uncorrected_volatile,
 *  corrected_aggregate, uncorrected_aggregate}, retired_pages: {multiple_sbe, dbe},
 *  remapped_rows: {corrected, uncorrected, pending, failed}, temperature_c,
 *  pcie_replays, xid_errors, clocks: {sm_mhz, sm_max_mhz, mem_mhz,
 *  mem_max_mhz}, throttle: [reason names] | null, power: {draw_w, limit_w}}.
 * simulated: the model's facts (sim backend), else NVML's. A new reference;
 * never NULL (an empty array when the model has no GPU). */
json_t *mgpu_gpu_facts_json(int simulated, const mgpu_topo *t);

/* XID events during a run, on the GPUs NVML sees on this host: start the
 * watch before the work (NULL when NVML cannot: the reason is the error
 * message), end it after. The end drains the queued events and frees the
 * watch: {watched: [busid], unwatched: [{busid, why}], events: [{busid, xid,
 * count}], error (when the drain failed)}. A new reference; NULL for NULL. */
typedef struct mgpu_xid_watch mgpu_xid_watch;
mgpu_xid_watch *mgpu_xid_watch_start(void);
json_t *mgpu_xid_watch_end(mgpu_xid_watch *w);

/* The PCIe generation of an NCCL XML link_speed ("32.0 GT/s PCIe" -> 5,
 * "8.0 GT/s PCIe" -> 3); 0 when it is not one. */
int mgpu_pcie_gen_of_speed(const char *link_speed);

#ifdef __cplusplus
}
#endif
#endif
