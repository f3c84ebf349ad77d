/* protocol.c - framing of the coordinator <-> worker protocol (protocol.h):
 * length-prefixed JSON objects, blocking and incremental readers, base64. */
#include "rt/protocol.h"
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "mgpu/clock.h"

/*--- Encoding ----------------------------------------------------------*/

mgpu_result mgpu_proto_encode(json_t *msg, char **out, size_t *len)
{
    if (!json_is_object(msg) || !json_is_string(json_object_get(msg, "type")))
        return mgpu_fail(MGPU_ERR_INTERNAL, "protocol: a message must be an object with a string \"type\"");
    char *text = json_dumps(msg, JSON_COMPACT);
    if (!text) return mgpu_fail(MGPU_ERR_NOMEM, "protocol: could not encode a message (out of memory?)");
    size_t n = strlen(text);
    if (n == 0 || n > MGPU_PROTO_MAX) {
        free(text);
        return mgpu_fail(MGPU_ERR_UNSUPPORTED, "a '%s' message of %zu bytes (%.1f MiB) is over the %u MiB limit of one "
                         "message between a worker and the coordinator", json_string_value(json_object_get(msg, "type")),
                         n, (double)n / (1 << 20), MGPU_PROTO_MAX >> 20);
    }
    char *buf = malloc(n + 4);
    if (!buf) {
        free(text);
        return mgpu_fail(MGPU_ERR_NOMEM, "protocol: out of memory framing a %zu-byte message", n);
    }
    buf[0] = (char)((n >> 24) & 0xff);
    buf[1] = (char)((n >> 16) & 0xff);
    buf[2] = (char)((n >> 8) & 0xff);
    buf[3] = (char)(n & 0xff);
    memcpy(buf + 4, text, n);
    free(text);
    *out = buf;
    *len = n + 4;
    return MGPU_OK;
}

mgpu_result mgpu_proto_send_all(int fd, const char *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t k = send(fd, buf + done, len - done, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            poll(&p, 1, 100);
            continue;
        }
        if (k <= 0) return mgpu_fail(MGPU_ERR_IO, "protocol: the connection closed while sending (%s)", strerror(errno));
        done += (size_t)k;
    }
    return MGPU_OK;
}

mgpu_result mgpu_proto_send(int fd, json_t *msg)
{
    char *buf;
    size_t len;
    MGPU_CHECK(mgpu_proto_encode(msg, &buf, &len));
    mgpu_result r = mgpu_proto_send_all(fd, buf, len);
    free(buf);
    return r;
}

/*--- Decoding ----------------------------------------------------------*/

static uint32_t be32(const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static mgpu_result parse_body(const unsigned char *text, size_t n, json_t **out)
{
    json_error_t err;
    json_t *msg = json_loadb((const char *)text, n, JSON_REJECT_DUPLICATES, &err);
    if (!msg) return mgpu_fail(MGPU_ERR_PARSE, "protocol: a message is not JSON (%s)", err.text);
    if (!json_is_object(msg) || !json_is_string(json_object_get(msg, "type"))) {
        json_decref(msg);
        return mgpu_fail(MGPU_ERR_PARSE, "protocol: a message is not an object with a string \"type\"");
    }
    *out = msg;
    return MGPU_OK;
}

static mgpu_result check_len(uint32_t n)
{
    if (n == 0 || n > MGPU_PROTO_MAX)
        return mgpu_fail(MGPU_ERR_PARSE, "protocol: a frame announces %u bytes (allowed 1..16 MiB)", n);
    return MGPU_OK;
}

/* Read exactly n bytes before the deadline (0 = none). */
static mgpu_result read_exact(int fd, unsigned char *p, size_t n, uint64_t deadline_ns)
{
    size_t got = 0;
    while (got < n) {
        int wait = -1;
        if (deadline_ns) {
            uint64_t now = mgpu_now_ns();
            if (now >= deadline_ns) return mgpu_fail(MGPU_ERR_TIMEOUT, "protocol: no message in time");
            wait = (int)((deadline_ns - now) / 1000000u) + 1;
        }
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        int pr = poll(&pf, 1, wait);
        if (pr < 0 && errno == EINTR) continue;
        if (pr < 0) return mgpu_fail(MGPU_ERR_IO, "protocol: poll failed: %s", strerror(errno));
        if (pr == 0) continue;
        ssize_t k = recv(fd, p + got, n - got, 0);
        if (k < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
        if (k < 0) return mgpu_fail(MGPU_ERR_IO, "protocol: read failed: %s", strerror(errno));
        if (k == 0) return mgpu_fail(MGPU_ERR_IO, "protocol: the connection closed");
        got += (size_t)k;
    }
    return MGPU_OK;
}

mgpu_result mgpu_proto_recv(int fd, int timeout_ms, json_t **out)
{
    uint64_t deadline = timeout_ms < 0 ? 0 : mgpu_now_ns() + (uint64_t)timeout_ms * 1000000u;
    unsigned char hdr[4];
    MGPU_CHECK(read_exact(fd, hdr, 4, deadline));
    uint32_t n = be32(hdr);
    MGPU_CHECK(check_len(n));
    unsigned char *body = malloc(n);
    if (!body) return mgpu_fail(MGPU_ERR_NOMEM, "protocol: out of memory for a %u-byte message", n);
    mgpu_result r = read_exact(fd, body, n, deadline);
    if (r == MGPU_OK) r = parse_body(body, n, out);
    free(body);
    return r;
}

mgpu_result mgpu_proto_reader_fill(mgpu_proto_reader *r, int fd, int *eof)
{
    *eof = 0;
    for (;;) {
        /* A limited reader (a peer before its hello) grows only when full
         * and never past one frame; a rank's reads come in 64 KiB chunks. */
        int small = r->limit && r->limit < 65536;
        if (r->cap - r->len < (small ? 1 : 65536)) {
            size_t cap = r->cap ? r->cap * 2 : small ? MGPU_PROTO_FIRST_BUF : 131072;
            /* Never more than one maximal frame (plus a read's worth). */
            size_t most = small ? r->limit + 4 : (r->limit ? r->limit : MGPU_PROTO_MAX) + 4 + 65536;
            if (cap > most) cap = most;
            if (cap <= r->len) return MGPU_OK; /* full: let next() drain it first */
            unsigned char *nb = realloc(r->buf, cap);
            if (!nb) return mgpu_fail(MGPU_ERR_NOMEM, "protocol: out of memory buffering a message");
            r->buf = nb;
            r->cap = cap;
        }
        ssize_t k = recv(fd, r->buf + r->len, r->cap - r->len, MSG_DONTWAIT);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return MGPU_OK;
        if (k < 0) {
            *eof = 1;
            return mgpu_fail(MGPU_ERR_IO, "protocol: read failed: %s", strerror(errno));
        }
        if (k == 0) {
            *eof = 1;
            return mgpu_fail(MGPU_ERR_IO, "protocol: the connection closed");
        }
        r->len += (size_t)k;
        /* Stop after one frame is complete so a chatty peer cannot starve others. */
        if (r->len >= 4 && r->len >= 4 + (size_t)be32(r->buf)) return MGPU_OK;
    }
}

mgpu_result mgpu_proto_reader_next(mgpu_proto_reader *r, json_t **out)
{
    *out = NULL;
    if (r->len < 4) return MGPU_OK;
    uint32_t n = be32(r->buf);
    MGPU_CHECK(check_len(n));
    if (r->limit && n > r->limit)
        return mgpu_fail(MGPU_ERR_PARSE, "protocol: a frame of %u bytes before the hello (at most %zu until the peer "
                                         "has shown the run's token)", n, r->limit);
    if (r->len < 4 + (size_t)n) return MGPU_OK;
    mgpu_result res = parse_body(r->buf + 4, n, out);
    memmove(r->buf, r->buf + 4 + n, r->len - 4 - n);
    r->len -= 4 + (size_t)n;
    return res;
}

void mgpu_proto_reader_free(mgpu_proto_reader *r)
{
    free(r->buf);
    r->buf = NULL;
    r->len = r->cap = 0;
}

const char *mgpu_proto_type(json_t *msg)
{
    const char *t = json_string_value(json_object_get(msg, "type"));
    return t ? t : "";
}

/*--- Base64 and tokens -------------------------------------------------*/

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *mgpu_base64_encode(const void *data, size_t len)
{
    const unsigned char *p = data;
    size_t olen = 4 * ((len + 2) / 3);
    char *out = malloc(olen + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < len) v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < len) v |= p[i + 2];
        out[o++] = b64[(v >> 18) & 63];
        out[o++] = b64[(v >> 12) & 63];
        out[o++] = i + 1 < len ? b64[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < len ? b64[v & 63] : '=';
    }
    out[o] = '\0';
    return out;
}

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

mgpu_result mgpu_base64_decode(const char *text, unsigned char **out, size_t *len)
{
    size_t n = strlen(text);
    if (n % 4) return mgpu_fail(MGPU_ERR_PARSE, "protocol: base64 of %zu characters (not a multiple of 4)", n);
    size_t pad = 0;
    if (n && text[n - 1] == '=') pad++;
    if (n > 1 && text[n - 2] == '=') pad++;
    size_t olen = n / 4 * 3 - pad;
    unsigned char *buf = malloc(olen ? olen : 1);
    if (!buf) return mgpu_fail(MGPU_ERR_NOMEM, "protocol: out of memory decoding %zu bytes of base64", n);
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        int v[4];
        for (int k = 0; k < 4; k++) {
            char c = text[i + k];
            int last = i + 4 == n;
            if (c == '=' && last && (k == 3 || (k == 2 && text[i + 3] == '='))) v[k] = 0;
            else if ((v[k] = b64_value(c)) < 0) {
                free(buf);
                return mgpu_fail(MGPU_ERR_PARSE, "protocol: bad base64 character at offset %zu", i + (size_t)k);
            }
        }
        uint32_t w = ((uint32_t)v[0] << 18) | ((uint32_t)v[1] << 12) | ((uint32_t)v[2] << 6) | (uint32_t)v[3];
        unsigned char bytes[3] = {(unsigned char)(w >> 16), (unsigned char)(w >> 8), (unsigned char)w};
        for (int k = 0; k < 3 && o < olen; k++) buf[o++] = bytes[k];
    }
    *out = buf;
    *len = olen;
    return MGPU_OK;
}

int mgpu_proto_token_equal(const char *a, const char *b)
{
    if (!a || !b) return 0;
    size_t na = strlen(a), nb = strlen(b);
    unsigned char diff = (unsigned char)(na != nb);
    size_t n = na < nb ? na : nb;
    for (size_t i = 0; i < n; i++) diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}
