/* copy_dispatch.h - one dispatch of the copy benchmark: a set of concurrent
 * copies, measured with nvbandwidth's method (copy_dispatch.c). */
#ifndef MGPU_COPY_DISPATCH_H
#define MGPU_COPY_DISPATCH_H
#include "mgpu/copybench.h"

/* One copy of a dispatch. Host memory is pinned (nvbandwidth allocates with
 * cuMemHostAlloc); `issue_dev` is the GPU whose stream runs the copy. */
typedef struct copy_spec {
    int src_dev, dst_dev;  /* -1 = pinned host memory */
    int issue_dev;
    size_t bytes;
} copy_spec;

typedef enum { REPORT_FIRST, REPORT_EACH, REPORT_TOTAL } report_mode;

typedef struct dispatch {
    int n;
    copy_spec spec[64];
} dispatch;

void copy_dispatch_add(dispatch *d, int src_dev, int dst_dev, int issue_dev, size_t bytes);

/* Measure a dispatch: out[0] is the first copy's bandwidth (REPORT_FIRST),
 * the total (REPORT_TOTAL), or out[i] each copy's (REPORT_EACH), in GB/s. */
mgpu_result copy_measure(mgpu_backend *be, const dispatch *d, const mgpu_copy_options *o,
                           mgpu_copy_engine how, report_mode mode, double *out);

#endif
