/* sha256.h - SHA-256 and HMAC-SHA256 for the progress file's keyed digest
 * (engine/lab/progress.c), over Debian's nettle (nettle-dev): a
 * well-kept library rather than our own rounds. */
#ifndef MGPU_SHA256_H
#define MGPU_SHA256_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* out = SHA-256(data). */
void mgpu_sha256(const void *data, size_t n, unsigned char out[32]);
/* out = HMAC-SHA256(key, data) (RFC 2104). */
void mgpu_hmac_sha256(const void *key, size_t keylen, const void *data, size_t n, unsigned char out[32]);
/* 32 bytes as 64 lower-case hex digits and a NUL. */
void mgpu_sha256_hex(const unsigned char d[32], char out[65]);

#ifdef __cplusplus
}
#endif
#endif
