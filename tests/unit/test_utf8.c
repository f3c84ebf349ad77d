/* test_utf8.c - mgpu_utf8_seq_len and mgpu_utf8_scrub: Hangul kept, a
 * character cut in half (a verdict trimmed at a byte count) becomes '?'
 * for its stray bytes only. */
#include "mgpu/utf8.h"
#include "tap.h"
#include <string.h>

int main(void)
{
    const unsigned char han[] = "\xed\x95\x9c"; /* 한 */
    CHECK(mgpu_utf8_seq_len(han, 3) == 3);
    CHECK(mgpu_utf8_seq_len(han, 2) == 0);                                   /* truncated */
    CHECK(mgpu_utf8_seq_len((const unsigned char *)"\xed\xa0\x80", 3) == 0); /* a surrogate */
    CHECK(mgpu_utf8_seq_len((const unsigned char *)"\xc0\xaf", 2) == 0);     /* overlong '/' */
    CHECK(mgpu_utf8_seq_len((const unsigned char *)"\xf4\x90\x80\x80", 4) == 0); /* past U+10FFFF */
    CHECK(mgpu_utf8_seq_len((const unsigned char *)"\xf0\x9f\x98\x80", 4) == 4);
    CHECK(mgpu_utf8_seq_len((const unsigned char *)"\x80", 1) == 0);

    char a[] = "통과 check 18 \xea\xb0"; /* the last letter cut after 2 of its 3 bytes */
    mgpu_utf8_scrub(a);
    CHECKF(strcmp(a, "통과 check 18 ??") == 0, "got %s", a);
    char b[] = "all good: 한국어 and ASCII";
    mgpu_utf8_scrub(b);
    CHECK(strcmp(b, "all good: 한국어 and ASCII") == 0);
    char c[] = "\xff\xfe";
    mgpu_utf8_scrub(c);
    CHECK(strcmp(c, "??") == 0);
    return tap_done();
}
