/* test_sha256.c - SHA-256 against FIPS 180-4's examples (and a message of
 * a million 'a's), HMAC-SHA256 against RFC 4231's test cases 1, 2 and 6 (a
 * key longer than a block): what the progress digest is built on. */
#include "mgpu/sha256.h"
#include "tap.h"
#include <string.h>

static int hex_is(const unsigned char d[32], const char *want)
{
    char got[65];
    mgpu_sha256_hex(d, got);
    if (strcmp(got, want) == 0) return 1;
    fprintf(stderr, "  got  %s\n  want %s\n", got, want);
    return 0;
}

int main(void)
{
    unsigned char d[32];
    mgpu_sha256("", 0, d);
    CHECK(hex_is(d, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    mgpu_sha256("abc", 3, d);
    CHECK(hex_is(d, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    mgpu_sha256(two, strlen(two), d);
    CHECK(hex_is(d, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
    static char a[1000000];
    memset(a, 'a', sizeof a);
    mgpu_sha256(a, sizeof a, d);
    CHECK(hex_is(d, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));

    unsigned char key[131];
    memset(key, 0x0b, 20);
    mgpu_hmac_sha256(key, 20, "Hi There", 8, d);
    CHECK(hex_is(d, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"));
    mgpu_hmac_sha256("Jefe", 4, "what do ya want for nothing?", 28, d);
    CHECK(hex_is(d, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"));
    memset(key, 0xaa, sizeof key);
    const char *big = "Test Using Larger Than Block-Size Key - Hash Key First";
    mgpu_hmac_sha256(key, sizeof key, big, strlen(big), d);
    CHECK(hex_is(d, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"));
    return tap_done();
}
