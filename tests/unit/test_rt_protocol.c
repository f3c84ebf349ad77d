/* test_rt_protocol.c - framing of the worker protocol: round trips over a
 * socket pair, byte-at-a-time delivery, hostile frames, base64, tokens. */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "rt/protocol.h"
#include "tap.h"

static void test_roundtrip(void)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    json_t *m = json_pack("{s:s, s:i, s:s}", "type", "hello", "rank", 3, "host", "h\xc3\xa9");
    CHECK_OK(mgpu_proto_send(sv[0], m));
    json_t *got = NULL;
    CHECK_OK(mgpu_proto_recv(sv[1], 1000, &got));
    CHECK(got && json_equal(m, got));
    json_decref(got);
    /* Nothing more: a timeout, not a hang. */
    CHECK(mgpu_proto_recv(sv[1], 50, &got) == MGPU_ERR_TIMEOUT);
    /* Not an object with a type: refused on both ends. */
    json_t *bad = json_pack("[i]", 1);
    char *buf;
    size_t len;
    CHECK(mgpu_proto_encode(bad, &buf, &len) == MGPU_ERR_INTERNAL);
    json_decref(bad);
    const char frame[] = "\0\0\0\x02{}";
    CHECK(write(sv[0], frame, 6) == 6);
    CHECK(mgpu_proto_recv(sv[1], 1000, &got) == MGPU_ERR_PARSE);
    const char notjson[] = "\0\0\0\x03{x}";
    CHECK(write(sv[0], notjson, 7) == 7);
    CHECK(mgpu_proto_recv(sv[1], 1000, &got) == MGPU_ERR_PARSE);
    const char huge[] = "\x01\0\0\x01";
    CHECK(write(sv[0], huge, 4) == 4);
    CHECK(mgpu_proto_recv(sv[1], 1000, &got) == MGPU_ERR_PARSE);
    CHECK(strstr(mgpu_error_message(), "16 MiB") != NULL);
    close(sv[0]);
    CHECK(mgpu_proto_recv(sv[1], 1000, &got) == MGPU_ERR_IO);
    CHECK(strstr(mgpu_error_message(), "closed") != NULL);
    close(sv[1]);
    json_decref(m);
    /* A message over the limit says which, how large, and the limit (it
     * said only "a message of 48948905 bytes is over the 16 MiB limit") */
    char *big = malloc((17u << 20) + 1);
    memset(big, 'a', 17u << 20);
    big[17u << 20] = '\0';
    json_t *huge_msg = json_pack("{s:s, s:s}", "type", "result", "text", big);
    CHECK(mgpu_proto_encode(huge_msg, &buf, &len) == MGPU_ERR_UNSUPPORTED);
    CHECKF(strstr(mgpu_error_message(), "a 'result' message of 17825") &&
               strstr(mgpu_error_message(), "(17.0 MiB) is over the 16 MiB limit of one message between a worker and "
                                            "the coordinator"),
           "got: %s", mgpu_error_message());
    json_decref(huge_msg);
    free(big);
}

/* The coordinator's reader: frames split at every byte, and two frames in
 * one read, come out whole and in order. */
static void test_reader(void)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    json_t *a = json_pack("{s:s, s:i}", "type", "a", "n", 1), *b = json_pack("{s:s, s:s}", "type", "b", "s", "xyz");
    char *fa, *fb;
    size_t la, lb;
    CHECK_OK(mgpu_proto_encode(a, &fa, &la));
    CHECK_OK(mgpu_proto_encode(b, &fb, &lb));
    mgpu_proto_reader rd = {0};
    json_t *out = NULL;
    int eof = 0, seen = 0;
    for (size_t i = 0; i < la; i++) {
        CHECK(write(sv[0], fa + i, 1) == 1);
        CHECK_OK(mgpu_proto_reader_fill(&rd, sv[1], &eof));
        CHECK_OK(mgpu_proto_reader_next(&rd, &out));
        if (out) {
            seen++;
            CHECK(i == la - 1 && json_equal(out, a));
            json_decref(out);
        }
    }
    CHECK(seen == 1);
    CHECK(write(sv[0], fa, la) == (ssize_t)la && write(sv[0], fb, lb) == (ssize_t)lb);
    CHECK_OK(mgpu_proto_reader_fill(&rd, sv[1], &eof));
    CHECK_OK(mgpu_proto_reader_next(&rd, &out));
    CHECK(out && json_equal(out, a));
    json_decref(out);
    CHECK_OK(mgpu_proto_reader_fill(&rd, sv[1], &eof));
    CHECK_OK(mgpu_proto_reader_next(&rd, &out));
    CHECK(out && json_equal(out, b));
    json_decref(out);
    CHECK_OK(mgpu_proto_reader_next(&rd, &out));
    CHECK(out == NULL);
    close(sv[0]);
    CHECK(mgpu_proto_reader_fill(&rd, sv[1], &eof) == MGPU_ERR_IO && eof == 1);
    /* A zero-length frame is an error, not an empty message. */
    mgpu_proto_reader z = {.buf = calloc(1, 8), .len = 4, .cap = 8};
    CHECK(mgpu_proto_reader_next(&z, &out) == MGPU_ERR_PARSE);
    mgpu_proto_reader_free(&z);
    mgpu_proto_reader_free(&rd);
    close(sv[1]);
    free(fa);
    free(fb);
    json_decref(a);
    json_decref(b);
}

/* A reader limited to small frames (a peer before its hello) holds what a
 * hello needs, and never more than one allowed frame however much a peer
 * sends: the coordinator's budget for strangers counts on it (it held an
 * 80 KiB buffer for each connection that had not said hello). */
static void test_small_reader(void)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    mgpu_proto_reader rd = {.limit = 16384};
    json_t *hello = json_pack("{s:s, s:s}", "type", "hello", "token", "0123456789abcdef0123456789abcdef");
    char *f;
    size_t len;
    CHECK_OK(mgpu_proto_encode(hello, &f, &len));
    CHECK(write(sv[0], f, len) == (ssize_t)len);
    int eof = 0;
    json_t *out = NULL;
    CHECK_OK(mgpu_proto_reader_fill(&rd, sv[1], &eof));
    CHECKF(rd.cap <= MGPU_PROTO_FIRST_BUF, "a hello took a %zu-byte buffer", rd.cap);
    CHECK_OK(mgpu_proto_reader_next(&rd, &out));
    CHECK(out && json_equal(out, hello));
    json_decref(out);
    /* a frame of 16000 bytes announced, 60000 sent: one frame's worth held */
    unsigned char *big = malloc(60004);
    memset(big, ' ', 60004);
    big[0] = 0, big[1] = 0, big[2] = 16000 >> 8, big[3] = 16000 & 0xff;
    CHECK(write(sv[0], big, 60004) == 60004);
    for (int i = 0; i < 8; i++) CHECK_OK(mgpu_proto_reader_fill(&rd, sv[1], &eof));
    CHECKF(rd.cap <= 16384 + 4, "a limited reader grew to %zu bytes", rd.cap);
    free(big);
    free(f);
    json_decref(hello);
    mgpu_proto_reader_free(&rd);
    close(sv[0]);
    close(sv[1]);
}

static void test_base64(void)
{
    const char *in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    const char *want[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        char *e = mgpu_base64_encode(in[i], strlen(in[i]));
        CHECKF(e && strcmp(e, want[i]) == 0, "encode '%s' -> '%s'", in[i], e);
        unsigned char *d = NULL;
        size_t n = 0;
        CHECK_OK(mgpu_base64_decode(want[i], &d, &n));
        CHECK(n == strlen(in[i]) && memcmp(d, in[i], n) == 0);
        free(d);
        free(e);
    }
    unsigned char all[256];
    for (int i = 0; i < 256; i++) all[i] = (unsigned char)i;
    char *e = mgpu_base64_encode(all, 256);
    unsigned char *d = NULL;
    size_t n = 0;
    CHECK_OK(mgpu_base64_decode(e, &d, &n));
    CHECK(n == 256 && memcmp(d, all, 256) == 0);
    free(d);
    free(e);
    const char *bad[] = {"Zg=", "Z===", "Zm9v!A==", "=Zm9", "Zg=a"};
    for (int i = 0; i < 5; i++) {
        d = NULL;
        CHECKF(mgpu_base64_decode(bad[i], &d, &n) == MGPU_ERR_PARSE, "'%s' accepted", bad[i]);
        free(d);
    }
}

int main(void)
{
    test_roundtrip();
    test_reader();
    test_small_reader();
    test_base64();
    CHECK(mgpu_proto_token_equal("abc", "abc"));
    CHECK(!mgpu_proto_token_equal("abc", "abd"));
    CHECK(!mgpu_proto_token_equal("abc", "abcd"));
    CHECK(!mgpu_proto_token_equal(NULL, "abc"));
    return tap_done();
}
