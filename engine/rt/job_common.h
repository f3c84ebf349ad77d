/* job_common.h - small helpers the device jobs (topo, copy) share: the
 * one-line description of a worker's backend. */
#ifndef MGPU_RT_JOB_COMMON_H
#define MGPU_RT_JOB_COMMON_H
#include <stddef.h>
#include "mgpu/dev.h"

/* "SIMULATED machine dgx-h100 (sim backend requested)" or
 * "cuda: 8 GPUs (NVIDIA H200)" - the same words `mgpulab` prints in its
 * banners, made where the backend is (in the worker). */
void rt_backend_line(mgpu_backend *be, char *buf, size_t len);

#endif
