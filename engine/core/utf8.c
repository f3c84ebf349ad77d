/* utf8.c - well-formed UTF-8 (RFC 3629), byte by byte. */
#include "mgpu/utf8.h"
#include <string.h>

size_t mgpu_utf8_seq_len(const unsigned char *s, size_t len)
{
    if (len == 0) return 0;
    unsigned c = s[0];
    if (c < 0x80) return 1;
    size_t n;
    unsigned lo = 0x80, hi = 0xBF; /* the range of the second byte */
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;      /* no overlong forms */
        if (c == 0xED) hi = 0x9F;      /* no surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;      /* nothing past U+10FFFF */
    } else
        return 0;
    if (len < n || s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    return n;
}

void mgpu_utf8_scrub(char *s)
{
    size_t len = strlen(s);
    unsigned char *p = (unsigned char *)s;
    for (size_t i = 0; i < len;) {
        size_t n = mgpu_utf8_seq_len(p + i, len - i);
        if (n == 0) {
            p[i++] = '?';
            continue;
        }
        i += n;
    }
}
