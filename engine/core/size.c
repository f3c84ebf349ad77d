/* size.c - parsing sizes, counts and seconds from user text, strictly:
 * "-5", "1e99", "12Q", "" and overflow are errors that quote the input. */
#include "mgpu/size.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MGPU_SIZE_MAX (1ull << 62)

mgpu_result mgpu_parse_size(const char *text, const char *what, uint64_t *out)
{
    const char *name = what ? what : "size";
    if (!text || !*text) return mgpu_fail(MGPU_ERR_INVALID, "%s: empty value; expected e.g. 8, 64K, 256M, 1G", name);
    const char *p = text;
    if (!isdigit((unsigned char)*p))
        return mgpu_fail(MGPU_ERR_INVALID,
                         "%s: '%s' is not a size; expected digits with an optional K, M, G or T "
                         "suffix (powers of 1024), e.g. 256M",
                         name, text);
    uint64_t v = 0;
    for (; isdigit((unsigned char)*p); p++) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (MGPU_SIZE_MAX - d) / 10)
            return mgpu_fail(MGPU_ERR_INVALID, "%s: '%s' is too large (at most 4E bytes)", name, text);
        v = v * 10 + d;
    }
    unsigned shift = 0;
    switch (*p) {
    case 'k': case 'K': shift = 10; p++; break;
    case 'm': case 'M': shift = 20; p++; break;
    case 'g': case 'G': shift = 30; p++; break;
    case 't': case 'T': shift = 40; p++; break;
    default: break;
    }
    if (shift && *p == 'i') p++;
    if (*p == 'B' || *p == 'b') p++;
    if (*p)
        return mgpu_fail(MGPU_ERR_INVALID,
                         "%s: '%s' is not a size; expected digits with an optional K, M, G or T "
                         "suffix (powers of 1024), e.g. 256M",
                         name, text);
    if (shift && v > (MGPU_SIZE_MAX >> shift))
        return mgpu_fail(MGPU_ERR_INVALID, "%s: '%s' is too large (at most 4E bytes)", name, text);
    *out = v << shift;
    return MGPU_OK;
}

mgpu_result mgpu_parse_count(const char *text, const char *what, long long min, long long max,
                             long long *out)
{
    const char *name = what ? what : "value";
    if (!text || !*text) return mgpu_fail(MGPU_ERR_INVALID, "%s: empty value", name);
    const char *p = text;
    if (*p == '-' || *p == '+') p++;
    if (!isdigit((unsigned char)*p))
        return mgpu_fail(MGPU_ERR_INVALID, "%s: '%s' is not a whole number", name, text);
    errno = 0;
    char *end = NULL;
    long long v = strtoll(text, &end, 10);
    if (*end) return mgpu_fail(MGPU_ERR_INVALID, "%s: '%s' is not a whole number", name, text);
    if (errno == ERANGE || v < min || v > max)
        return mgpu_fail(MGPU_ERR_INVALID, "%s: %s is out of range (%lld..%lld)", name, text, min, max);
    *out = v;
    return MGPU_OK;
}

mgpu_result mgpu_parse_seconds(const char *text, const char *what, double max, double *out)
{
    const char *name = what ? what : "seconds";
    if (!text || !*text) return mgpu_fail(MGPU_ERR_INVALID, "%s: empty value", name);
    for (const char *p = text; *p; p++)
        if (!isdigit((unsigned char)*p) && *p != '.')
            return mgpu_fail(MGPU_ERR_INVALID, "%s: '%s' is not a number of seconds (e.g. 30 or 0.5)",
                             name, text);
    char *end = NULL;
    double v = strtod(text, &end);
    if (*end || !isfinite(v) || v <= 0 || v > max)
        return mgpu_fail(MGPU_ERR_INVALID, "%s: '%s' must be above 0 and at most %g", name, text, max);
    *out = v;
    return MGPU_OK;
}

const char *mgpu_format_size(uint64_t bytes, char *buf, size_t len)
{
    static const char suffix[] = {'T', 'G', 'M', 'K'};
    static const unsigned shifts[] = {40, 30, 20, 10};
    for (int i = 0; i < 4; i++) {
        uint64_t unit = 1ull << shifts[i];
        if (bytes >= unit && bytes % unit == 0) {
            snprintf(buf, len, "%llu%c", (unsigned long long)(bytes / unit), suffix[i]);
            return buf;
        }
    }
    snprintf(buf, len, "%llu", (unsigned long long)bytes);
    return buf;
}

const char *mgpu_human_bytes(uint64_t bytes, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 6) v /= 1024.0, u++;
    if (u == 0) snprintf(buf, len, "%llu B", (unsigned long long)bytes);
    else snprintf(buf, len, "%.2f %s", v, unit[u]);
    return buf;
}
