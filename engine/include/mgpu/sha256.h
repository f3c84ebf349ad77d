/* sha256.h - SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), small and
 * self-contained: the progress file's keyed digest (engine/lab/progress.c)
 * needs no crypto library. Not constant-time; not for secrets that matter. */
#ifndef MGPU_SHA256_H
#define MGPU_SHA256_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mgpu_sha256_ctx {
    uint32_t h[8];
    uint64_t len;          /* bytes hashed so far */
    unsigned char buf[64];
    size_t nbuf;
} mgpu_sha256_ctx;

void mgpu_sha256_init(mgpu_sha256_ctx *s);
void mgpu_sha256_update(mgpu_sha256_ctx *s, const void *data, size_t n);
void mgpu_sha256_final(mgpu_sha256_ctx *s, unsigned char out[32]);
/* One call: out = SHA-256(data). */
void mgpu_sha256(const void *data, size_t n, unsigned char out[32]);
/* out = HMAC-SHA256(key, data). */
void mgpu_hmac_sha256(const void *key, size_t keylen, const void *data, size_t n, unsigned char out[32]);
/* 32 bytes as 64 lower-case hex digits and a NUL. */
void mgpu_sha256_hex(const unsigned char d[32], char out[65]);

#ifdef __cplusplus
}
#endif
#endif
