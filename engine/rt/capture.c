/* capture.c - workers' output read line by line from pipes (capture.h). */
#include "rt/capture.h"
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mgpu/clock.h"

static int digits(const char *s, size_t len, size_t *i, int *value)
{
    size_t start = *i;
    long v = 0;
    while (*i < len && s[*i] >= '0' && s[*i] <= '9' && v < 100000000) v = v * 10 + (s[(*i)++] - '0');
    *value = (int)v;
    return *i > start;
}

int rt_untag(mgpu_launcher kind, const char **text, size_t *len, int *rank, const char **stream)
{
    const char *s = *text;
    size_t n = *len, i = 0;
    int job = 0, r = 0;
    if (kind == MGPU_LAUNCH_MPIRUN) {
        if (n < 1 || s[0] != '[') return 0;
        i = 1;
        if (!digits(s, n, &i, &job) || i >= n || s[i++] != ',' || !digits(s, n, &i, &r) || i >= n || s[i++] != ']')
            return 0;
        const char *tags[] = {"<stdout>:", "<stderr>:"};
        int which = -1;
        for (int k = 0; k < 2; k++)
            if (n - i >= strlen(tags[k]) && memcmp(s + i, tags[k], strlen(tags[k])) == 0) which = k;
        if (which < 0) return 0;
        i += strlen(tags[which]);
        if (i < n && s[i] == ' ') i++; /* Open MPI 5 puts a space after the colon */
        *stream = which ? "stderr" : "stdout";
    } else if (kind == MGPU_LAUNCH_SRUN) {
        while (i < n && s[i] == ' ') i++; /* srun pads the rank to a common width */
        if (!digits(s, n, &i, &r) || n - i < 2 || s[i] != ':' || s[i + 1] != ' ') return 0;
        i += 2;
    } else {
        return 0;
    }
    *rank = r;
    *text = s + i;
    *len = n - i;
    return 1;
}

json_t *rt_line_json(const char *text, size_t len)
{
    json_t *j = json_stringn(text, len);
    if (j) return j;
    char *copy = malloc(len + 1);
    if (!copy) return NULL;
    for (size_t i = 0; i < len; i++) copy[i] = (unsigned char)text[i] < 0x80 && text[i] ? text[i] : '?';
    j = json_stringn(copy, len);
    free(copy);
    return j;
}

static void deliver(rt_pipe *p, const char *text, size_t len, rt_line_fn fn, void *ctx)
{
    if (len && text[len - 1] == '\r') len--;
    int rank = p->rank;
    const char *stream = p->is_err ? "stderr" : "stdout";
    if (p->rank < 0) rt_untag(p->kind, &text, &len, &rank, &stream);
    fn(ctx, rank, stream, text, len);
}

/* Deliver every complete line in the buffer; keep the rest at the front. */
static void split(rt_pipe *p, rt_line_fn fn, void *ctx)
{
    size_t start = 0;
    for (size_t i = 0; i < p->len; i++)
        if (p->buf[i] == '\n') {
            deliver(p, p->buf + start, i - start, fn, ctx);
            start = i + 1;
        }
    if (start == 0 && p->len == sizeof p->buf) { /* one very long line: hand it over in pieces */
        deliver(p, p->buf, p->len, fn, ctx);
        start = p->len;
    }
    memmove(p->buf, p->buf + start, p->len - start);
    p->len -= start;
}

int rt_pipe_read(rt_pipe *p, rt_line_fn fn, void *ctx)
{
    /* A bounded number of reads, so a worker that never stops writing
     * cannot starve the coordinator's other connections. */
    for (int rounds = 0; p->fd >= 0 && rounds < 16; rounds++) {
        ssize_t k = read(p->fd, p->buf + p->len, sizeof p->buf - p->len);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 1;
        if (k <= 0) { /* EOF, or an error that ends the pipe just the same */
            rt_pipe_close(p, fn, ctx);
            return 0;
        }
        p->len += (size_t)k;
        split(p, fn, ctx);
    }
    return p->fd >= 0;
}

void rt_pipe_close(rt_pipe *p, rt_line_fn fn, void *ctx)
{
    if (p->len) deliver(p, p->buf, p->len, fn, ctx);
    p->len = 0;
    if (p->fd >= 0) close(p->fd);
    p->fd = -1;
}

mgpu_result rt_pipes_take(rt_proc *procs, int nprocs, mgpu_launcher kind, rt_pipe **out, int *n)
{
    *out = calloc((size_t)nprocs * 2 + 1, sizeof **out);
    *n = 0;
    if (!*out) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory for the workers' output pipes");
    for (int i = 0; i < nprocs; i++)
        for (int e = 0; e < 2; e++) {
            int *fd = e ? &procs[i].err_fd : &procs[i].out_fd;
            (*out)[(*n)++] = (rt_pipe){.fd = *fd, .rank = procs[i].rank, .is_err = e, .kind = kind};
            *fd = -1;
        }
    return MGPU_OK;
}

void rt_pipes_drain(rt_pipe *p, int n, rt_line_fn fn, void *ctx)
{
    uint64_t until = mgpu_now_ns() + 200000000ull;
    for (int i = 0; i < n; i++) {
        while (rt_pipe_read(&p[i], fn, ctx) && mgpu_now_ns() < until) {
            struct pollfd pf = {.fd = p[i].fd, .events = POLLIN};
            poll(&pf, 1, 10);
        }
        rt_pipe_close(&p[i], fn, ctx);
    }
}
