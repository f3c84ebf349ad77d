/* clock.h - monotonic wall clock for host-side timing. */
#ifndef MGPU_CLOCK_H
#define MGPU_CLOCK_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
/* Nanoseconds from CLOCK_MONOTONIC. */
uint64_t mgpu_now_ns(void);
#ifdef __cplusplus
}
#endif
#endif
