/* size.h - byte sizes as users write them: "8", "256M", "1G" (K/M/G are
 * powers of 1024, as in nccl-tests), and their formatting. */
#ifndef MGPU_SIZE_H
#define MGPU_SIZE_H
#include <stddef.h>
#include <stdint.h>
#include "mgpu/err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parse a size. Accepts digits with an optional K/M/G/T suffix (either case,
 * an optional trailing "B" or "iB"). Rejects empty strings, signs, fractions,
 * exponents, junk and values above 2^62; the error message quotes the input
 * and says what is allowed. `what` names the option in the message. */
mgpu_result mgpu_parse_size(const char *text, const char *what, uint64_t *out);

/* Parse a non-negative integer count (no suffix) within [min, max]. */
mgpu_result mgpu_parse_count(const char *text, const char *what, long long min,
                             long long max, long long *out);

/* Parse a positive finite decimal (e.g. a timeout in seconds) within (0, max]. */
mgpu_result mgpu_parse_seconds(const char *text, const char *what, double max,
                               double *out);

/* "1.50 GiB", "512 B" - rounded, for messages (out-of-memory and the like). */
const char *mgpu_human_bytes(uint64_t bytes, char *buf, size_t len);

/* "256M", "1G", "8" - exact power-of-1024 form when possible, else bytes. */
const char *mgpu_format_size(uint64_t bytes, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
