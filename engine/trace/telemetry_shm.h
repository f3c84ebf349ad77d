/* telemetry_shm.h - the sim telemetry table in shared memory: written by
 * the rank workers (telemetry_publish.c), read by the coordinator's sampler
 * (telemetry.c). Each GPU has one rate and one expiry per link kind and
 * direction, stored as atomics, so a reader never waits for a writer. */
#ifndef MGPU_TELEMETRY_SHM_H
#define MGPU_TELEMETRY_SHM_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define TEL_MAGIC 0x4c54474du    /* "MGTL" */
#define TEL_VERSION 2u             /* 2: the network (NIC) share per GPU */
#define TEL_MAX_GPUS 4096
#define TEL_ENV "MGPU_TELEMETRY"

typedef struct tel_rate {
    _Atomic uint64_t bps_bits;   /* the rate, a double's bits */
    _Atomic uint64_t until_ns;   /* CLOCK_MONOTONIC (mgpu_now_ns), system-wide */
} tel_rate;

typedef struct tel_gpu {
    tel_rate r[3][2];            /* [mgpu_link_kind][0 = tx, 1 = rx] */
} tel_gpu;

typedef struct tel_table {
    uint32_t magic, version, ngpus, pad_;
    tel_gpu gpu[];
} tel_table;

static inline size_t tel_size(uint32_t ngpus) { return sizeof(tel_table) + (size_t)ngpus * sizeof(tel_gpu); }

/* The rate r shows at `now` (mgpu_now_ns): its bytes/s, or 0 once expired. */
static inline double tel_live_rate(tel_rate *r, uint64_t now)
{
    uint64_t until = atomic_load_explicit(&r->until_ns, memory_order_acquire);
    if (until <= now) return 0;
    uint64_t bits = atomic_load_explicit(&r->bps_bits, memory_order_relaxed);
    double bps;
    memcpy(&bps, &bits, sizeof bps);
    return bps > 0 ? bps : 0;
}

#endif
