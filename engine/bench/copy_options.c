/* copy_options.c - the copy benchmark's options and its sample statistic
 * (median or mean): what the patterns (copy_bench.c) and the measuring
 * method (copy_dispatch.c) both use, so neither calls back into the other. */
#include "mgpu/copybench.h"
#include <string.h>

void mgpu_copy_options_default(mgpu_copy_options *o)
{
    memset(o, 0, sizeof *o);
    o->buffer_bytes = MGPU_COPY_DEFAULT_BUFFER;
    o->loop_count = MGPU_COPY_DEFAULT_LOOPS;
    o->samples = MGPU_COPY_DEFAULT_SAMPLES;
}

mgpu_result mgpu_copy_options_check(const mgpu_copy_options *o)
{
    if (o->buffer_bytes < 16 || o->buffer_bytes % 16)
        return mgpu_fail(MGPU_ERR_INVALID,
                         "buffer size %llu bytes must be a positive multiple of 16 bytes (copy kernels "
                         "move 16-byte vectors)", (unsigned long long)o->buffer_bytes);
    if (o->buffer_bytes > (1ull << 40))
        return mgpu_fail(MGPU_ERR_INVALID, "buffer size %llu bytes is above 1 TiB; no GPU has that much memory",
                         (unsigned long long)o->buffer_bytes);
    if (o->loop_count < 1 || o->loop_count > 1000000)
        return mgpu_fail(MGPU_ERR_INVALID, "loop count %llu is out of range (1..1000000)",
                         (unsigned long long)o->loop_count);
    if (o->samples < 1 || o->samples > 1000)
        return mgpu_fail(MGPU_ERR_INVALID, "sample count %u is out of range (1..1000)", o->samples);
    return MGPU_OK;
}

double mgpu_copy_statistic(double *v, unsigned n, int use_mean)
{
    if (n == 0) return 0.0;
    if (use_mean) {
        double s = 0;
        for (unsigned i = 0; i < n; i++) s += v[i];
        return s / n;
    }
    for (unsigned i = 1; i < n; i++) /* insertion sort: n is a handful of samples */
        for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}
