/* telemetry_internal.h - the NVML source of telemetry (telemetry_nvml.c),
 * behind the interface in mgpu/telemetry.h (telemetry.c). */
#ifndef MGPU_TELEMETRY_INTERNAL_H
#define MGPU_TELEMETRY_INTERNAL_H
#include "mgpu/telemetry.h"

typedef struct tel_nvml tel_nvml;

/* Load NVML and find the GPUs. Fails (with the reason) when there is no
 * driver, no GPU, or NVML gives neither NVLink nor PCIe traffic. */
mgpu_result tel_nvml_open(tel_nvml **out, int *ngpus);
void tel_nvml_close(tel_nvml *t);
/* Rates since the previous call (the first call only sets the baseline and
 * reports 0). */
mgpu_result tel_nvml_sample(tel_nvml *t, mgpu_link_sample *out, int max, int *n);
/* 1 once a sample showed a 32-bit PCIe byte counter. */
int tel_nvml_pcie_wraps(const tel_nvml *t);

#endif
