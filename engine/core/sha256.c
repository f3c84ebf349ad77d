/* sha256.c - SHA-256 and HMAC-SHA256 (sha256.h) over nettle;
 * tests/unit/test_sha256.c checks FIPS 180-4's and RFC 4231's vectors. */
#include "mgpu/sha256.h"
#include <nettle/hmac.h>
#include <nettle/sha2.h>
#include <stdio.h>

void mgpu_sha256(const void *data, size_t n, unsigned char out[32])
{
    struct sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, n, data);
    sha256_digest(&c, SHA256_DIGEST_SIZE, out);
}

void mgpu_hmac_sha256(const void *key, size_t keylen, const void *data, size_t n, unsigned char out[32])
{
    struct hmac_sha256_ctx c;
    hmac_sha256_set_key(&c, keylen, key);
    hmac_sha256_update(&c, n, data);
    hmac_sha256_digest(&c, SHA256_DIGEST_SIZE, out);
}

void mgpu_sha256_hex(const unsigned char d[32], char out[65])
{
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", d[i]);
}
