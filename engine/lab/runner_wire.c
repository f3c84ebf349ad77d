/* runner_wire.c - the step runner's channel (runner_wire.h): lines of JSON
 * both ways over a socket, and the verdict as JSON. */
#include "lab/runner_wire.h"
#include "mgpu/utf8.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A line past any message's size breaks the channel. */
#define LINE_MAX_BYTES ((size_t)256 << 20)

/* Read what is there (fd is readable); 0 at end of file or on an error. */
int lab_line_fill(line_buf *b, int fd)
{
    if (b->cap - b->n < 65536) {
        size_t cap = b->cap ? b->cap * 2 : 131072;
        char *p = cap <= LINE_MAX_BYTES + 65536 ? realloc(b->p, cap) : NULL;
        if (!p) { /* a line past any message's size: the channel is broken */
            b->eof = 1;
            return 0;
        }
        b->p = p;
        b->cap = cap;
    }
    ssize_t r = read(fd, b->p + b->n, b->cap - b->n - 1);
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) return 1;
    if (r <= 0) {
        b->eof = 1;
        return 0;
    }
    b->n += (size_t)r;
    return 1;
}

/* The next complete line (NUL-terminated, in b), or NULL; `take` drops it. */
char *lab_line_next(line_buf *b, size_t *len)
{
    char *nl = b->n ? memchr(b->p, '\n', b->n) : NULL;
    if (!nl) return NULL;
    *nl = '\0';
    *len = (size_t)(nl - b->p);
    return b->p;
}
void lab_line_take(line_buf *b, size_t len)
{
    memmove(b->p, b->p + len + 1, b->n - len - 1);
    b->n -= len + 1;
}

mgpu_result lab_wire_send(int fd, json_t *doc)
{
    char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    if (!text) return mgpu_fail(MGPU_ERR_NOMEM, "the step runner: cannot serialise a message");
    size_t n = strlen(text);
    text[n] = '\n'; /* over the NUL: the length is kept */
    const char *p = text;
    size_t left = n + 1;
    mgpu_result r = MGPU_OK;
    while (left) {
        ssize_t w = send(fd, p, left, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            r = mgpu_fail(MGPU_ERR_IO, "the step runner's channel is closed (%s)", strerror(errno));
            break;
        }
        p += w;
        left -= (size_t)w;
    }
    free(text);
    return r;
}

/* A JSON string of text, whatever its bytes (a log line need not be UTF-8). */
json_t *lab_wire_str(const char *text)
{
    json_t *s = json_string(text ? text : "");
    if (s) return s;
    /* not well-formed UTF-8 (a message cut inside a character): only the
     * broken bytes become '?', the rest of the text stays as written */
    char *copy = strdup(text);
    if (!copy) return json_string("");
    mgpu_utf8_scrub(copy);
    s = json_string(copy);
    free(copy);
    return s ? s : json_string("");
}

const char *lab_wire_get(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

/*--- The verdict both ways -------------------------------------------------------*/

json_t *lab_verdict_to_json(const mgpu_lab_verdict *v)
{
    json_t *o = json_object();
    json_object_set_new(o, "state", json_integer(v->state));
    json_object_set_new(o, "message", lab_wire_str(v->message));
    json_object_set_new(o, "saw", lab_wire_str(v->saw));
    json_object_set_new(o, "wanted", lab_wire_str(v->wanted));
    json_object_set_new(o, "where", lab_wire_str(v->where));
    json_object_set_new(o, "traceback", lab_wire_str(v->traceback));
    json_object_set_new(o, "machine", lab_wire_str(v->machine));
    json_object_set_new(o, "seconds", json_real(v->seconds));
    if (v->measurements) json_object_set(o, "measurements", v->measurements);
    if (v->checks) json_object_set(o, "checks", v->checks);
    return o;
}

static void copy_str(char *dst, size_t len, const char *src) { snprintf(dst, len, "%s", src ? src : ""); }

void lab_verdict_from_json(json_t *o, mgpu_lab_verdict *v)
{
    v->state = (mgpu_step_state)json_integer_value(json_object_get(o, "state"));
    copy_str(v->message, sizeof v->message, lab_wire_get(o, "message"));
    copy_str(v->saw, sizeof v->saw, lab_wire_get(o, "saw"));
    copy_str(v->wanted, sizeof v->wanted, lab_wire_get(o, "wanted"));
    copy_str(v->where, sizeof v->where, lab_wire_get(o, "where"));
    copy_str(v->traceback, sizeof v->traceback, lab_wire_get(o, "traceback"));
    copy_str(v->machine, sizeof v->machine, lab_wire_get(o, "machine"));
    v->seconds = json_number_value(json_object_get(o, "seconds"));
    json_t *m = json_object_get(o, "measurements"), *c = json_object_get(o, "checks");
    v->measurements = m ? json_incref(m) : NULL;
    v->checks = c ? json_incref(c) : NULL;
}
