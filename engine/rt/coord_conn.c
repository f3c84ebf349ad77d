/* coord_conn.c - the coordinator's connections: frames queued and written
 * without blocking, hellos checked (token, world size, rank), strangers kept
 * from starving the ranks, the bootstrap all-gather relayed, the ranks'
 * messages dispatched to the caller; and the first failure, which tells the
 * ranks to abort. The poll loop that drives them is coord.c's. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "mgpu/clock.h"
#include "mgpu/log.h"
#include "rt/coord_internal.h"

#define STRANGER_BYTES_MAX (1u << 20) /* buffered by unauthenticated connections, beyond MGPU_PROTO_FIRST_BUF each */
#define ABORT_WINDOW_S 2.0        /* flight dumps are collected this long after a failure */
#define ABORT_WINDOW_LAUNCHER_S 1.5 /* mpirun/srun: less, their SIGTERM takes up to 0.4 s more */

void coord_event(coord *c, int rank, const char *type, json_t *body)
{
    if (c->on_msg) {
        mgpu_rt_msg m = {.rank = rank, .type = type, .body = body};
        c->on_msg(c->ctx, &m);
    }
    json_decref(body);
}

/*--- Connections -------------------------------------------------------*/

void coord_conn_flush(conn *k)
{
    while (k->fd >= 0 && k->out_off < k->out_len) {
        ssize_t n = send(k->fd, k->out + k->out_off, k->out_len - k->out_off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return; /* EAGAIN: poll for POLLOUT; errors show up as EOF on read */
        k->out_off += (size_t)n;
    }
    if (k->out_off == k->out_len) k->out_off = k->out_len = 0;
}

void coord_conn_queue(conn *k, json_t *msg)
{
    char *buf;
    size_t len;
    if (mgpu_proto_encode(msg, &buf, &len) == MGPU_OK) {
        char *nb = realloc(k->out, k->out_len + len);
        if (nb) {
            memcpy(nb + k->out_len, buf, len);
            k->out = nb;
            k->out_len += len;
        }
        free(buf);
    }
    json_decref(msg);
    coord_conn_flush(k);
}

void coord_conn_close(coord *c, int i)
{
    conn *k = c->conns[i];
    if (k->rank < 0) {
        c->npending--;
        c->pending_bytes -= k->rd.cap;
    }
    if (k->rank >= 0 && c->ranks[k->rank].c == k) {
        c->ranks[k->rank].c = NULL;
        c->ranks[k->rank].closed = 1;
        c->ranks[k->rank].eof_ns = mgpu_now_ns();
    }
    close(k->fd);
    mgpu_proto_reader_free(&k->rd);
    free(k->out);
    free(k);
    c->conns[i] = c->conns[--c->nconns];
}

void coord_refuse(coord *c, int i, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    MGPU_INFO("coordinator: refused a connection: %s", why);
    coord_event(c, -1, "refused", json_pack("{s:s, s:s}", "type", "refused", "reason", why));
    coord_conn_close(c, i);
}

/* Strangers must never starve the ranks. When the connections waiting to
 * say hello fill their table, or together buffer more than their budget,
 * one of them goes: the one holding the most bytes, the oldest among equals.
 * A rank sends its hello (~200 bytes) as soon as it connects, so it holds
 * the least and is read within a turn of the loop; a stranger that holds a
 * connection open, or trickles a frame, is what gets closed - not the
 * newcomer, who may be a rank (refusing newcomers let 200 held connections
 * keep a 32-rank run from starting). */
int coord_evict_stranger(coord *c, const char *why)
{
    int pick = -1;
    for (int i = 0; i < c->nconns; i++) {
        conn *k = c->conns[i];
        if (k->rank >= 0) continue;
        conn *p = pick >= 0 ? c->conns[pick] : NULL;
        if (!p || k->rd.cap > p->rd.cap || (k->rd.cap == p->rd.cap && k->since_ns < p->since_ns)) pick = i;
    }
    if (pick < 0) return 0;
    coord_refuse(c, pick, "%s", why);
    return 1;
}

int coord_pending_cap(const coord *c) { return c->size - c->nhello + MAX_STRANGERS; }

/* Bytes the pending connections may hold: a first buffer each for the
 * ranks still to connect and the strangers' share, plus STRANGER_BYTES_MAX
 * for frames that needed more (a stranger's, in practice). */
static size_t pending_budget(const coord *c)
{
    return (size_t)coord_pending_cap(c) * MGPU_PROTO_FIRST_BUF + STRANGER_BYTES_MAX;
}

static void enforce_pending_budget(coord *c)
{
    while (c->pending_bytes > pending_budget(c))
        if (!coord_evict_stranger(c, "the connections waiting to say hello held more than their memory budget; the "
                               "largest was closed"))
            break;
}

/*--- Failure -----------------------------------------------------------*/

void coord_fail(coord *c, int rank, const char *fmt, ...)
{
    if (c->failed) return;
    c->failed = 1;
    c->rep->ok = 0;
    c->rep->failed_rank = rank;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->rep->reason, sizeof c->rep->reason, fmt, ap);
    va_end(ap);
    c->abort_deadline = mgpu_now_ns() + (uint64_t)((c->local ? ABORT_WINDOW_S : ABORT_WINDOW_LAUNCHER_S) * 1e9);
    for (int r = 0; r < c->size; r++)
        if (c->ranks[r].c && r != c->hung_rank)
            coord_conn_queue(c->ranks[r].c, json_pack("{s:s, s:s}", "type", "abort", "reason", c->rep->reason));
}

/*--- Messages ----------------------------------------------------------*/

static void on_hello(coord *c, int i, json_t *msg)
{
    conn *k = c->conns[i];
    json_int_t rank = -1, size = -1, lrank = -1, pid = 0;
    const char *token = NULL, *host = "?";
    if (strcmp(mgpu_proto_type(msg), "hello") != 0 ||
        json_unpack(msg, "{s:I, s:I, s?I, s?I, s?s, s:s}", "rank", &rank, "size", &size, "local_rank", &lrank, "pid",
                    &pid, "host", &host, "token", &token) != 0)
        return coord_refuse(c, i, "the first message was not a well-formed hello");
    if (!mgpu_proto_token_equal(token, c->token))
        return coord_refuse(c, i, "wrong token (claimed rank %lld)", (long long)rank);
    if (size != c->size)
        return coord_refuse(c, i, "rank %lld says the world has %lld ranks; this run has %d", (long long)rank,
                            (long long)size, c->size);
    if (rank < 0 || rank >= c->size)
        return coord_refuse(c, i, "rank %lld is not in 0..%d", (long long)rank, c->size - 1);
    rank_state *rs = &c->ranks[rank];
    if (rs->hello) return coord_refuse(c, i, "a second connection claims rank %lld", (long long)rank);
    k->rank = (int)rank;
    c->npending--;
    c->pending_bytes -= k->rd.cap;
    k->rd.limit = 0; /* a rank of this run: full-size frames from now on */
    rs->c = k;
    rs->hello = 1;
    c->nhello++;
    rs->pid = pid;
    rs->late = c->failed;
    rs->last_ns = mgpu_now_ns();
    MGPU_DEBUG("coordinator: rank %lld connected (pid %lld on %s)", (long long)rank, (long long)pid, host);
    if (c->failed) coord_conn_queue(k, json_pack("{s:s, s:s}", "type", "abort", "reason", c->rep->reason));
    else coord_conn_queue(k, json_incref(c->job));
}

static void on_allgather(coord *c, int r, json_t *msg)
{
    rank_state *rs = &c->ranks[r];
    json_int_t seq = 0;
    const char *data = NULL;
    if (json_unpack(msg, "{s:I, s:s}", "seq", &seq, "data", &data) != 0)
        return coord_fail(c, r, "rank %d sent a malformed all-gather message (a bug in mgpulab)", r);
    if ((uint64_t)seq != rs->ag_seq + 1 || (uint64_t)seq != c->ag_seq + 1)
        return coord_fail(c, r, "rank %d joined bootstrap all-gather #%lld while the others are at #%llu", r,
                          (long long)seq, (unsigned long long)c->ag_seq + 1);
    unsigned char *bytes;
    size_t len;
    if (mgpu_base64_decode(data, &bytes, &len) != MGPU_OK)
        return coord_fail(c, r, "rank %d sent bad all-gather data: %s", r, mgpu_error_message());
    for (int o = 0; o < c->size; o++)
        if (o != r && c->ranks[o].ag_seq == (uint64_t)seq && c->ranks[o].ag_len != len) {
            free(bytes);
            return coord_fail(c, r, "rank %d sent %zu bytes to bootstrap all-gather #%lld; rank %d sent %zu", r, len,
                              (long long)seq, o, c->ranks[o].ag_len);
        }
    rs->ag_seq = (uint64_t)seq;
    rs->ag = bytes;
    rs->ag_len = len;
    if (++c->ag_count < c->size) return;
    /* Everyone is in: reply with the concatenation in rank order. */
    unsigned char *all = malloc(len * (size_t)c->size + 1);
    if (!all)
        return coord_fail(c, r, "coordinator: out of memory relaying a %zu-byte all-gather", len * (size_t)c->size);
    for (int o = 0; o < c->size; o++) {
        memcpy(all + (size_t)o * len, c->ranks[o].ag, len);
        free(c->ranks[o].ag);
        c->ranks[o].ag = NULL;
    }
    char *b64 = mgpu_base64_encode(all, len * (size_t)c->size);
    free(all);
    if (!b64) return coord_fail(c, r, "coordinator: out of memory relaying an all-gather");
    c->ag_seq = (uint64_t)seq;
    c->ag_count = 0;
    for (int o = 0; o < c->size; o++)
        if (c->ranks[o].c)
            coord_conn_queue(c->ranks[o].c, json_pack("{s:s, s:I, s:s}", "type", "allgather", "seq", seq, "data", b64));
    free(b64);
}

static void on_rank_msg(coord *c, int r, json_t *msg)
{
    rank_state *rs = &c->ranks[r];
    const char *type = mgpu_proto_type(msg);
    rs->last_ns = mgpu_now_ns();
    if (strcmp(type, "heartbeat") == 0) return;
    if (strcmp(type, "allgather") == 0) return on_allgather(c, r, msg);
    if (strcmp(type, "hello") == 0) return coord_fail(c, r, "rank %d said hello twice (a bug in mgpulab)", r);
    json_t *body = json_object_get(msg, "body");
    body = body ? json_incref(body) : json_object();
    if (strcmp(type, "error") == 0) {
        const char *m = json_string_value(json_object_get(body, "message"));
        coord_fail(c, r, "rank %d: %s", r, m && *m ? m : "failed without a message");
    } else if (strcmp(type, "flight") == 0) {
        const char *d = json_string_value(json_object_get(body, "dump"));
        if (d) {
            free(rs->flight);
            rs->flight = strdup(d);
        }
    } else if (strcmp(type, "done") == 0 && !rs->done) {
        rs->done = 1;
        c->ndone++;
    }
    coord_event(c, r, type, body);
}

int coord_conn_read(coord *c, int i)
{
    conn *k = c->conns[i];
    int eof = 0;
    size_t cap = k->rd.cap;
    mgpu_result rr = mgpu_proto_reader_fill(&k->rd, k->fd, &eof);
    if (k->rank < 0) {
        c->pending_bytes += k->rd.cap - cap;
        if (c->pending_bytes > pending_budget(c)) {
            enforce_pending_budget(c);
            if (i >= c->nconns || c->conns[i] != k) return 0; /* it was the one closed */
        }
    }
    for (;;) {
        json_t *msg = NULL;
        if (mgpu_proto_reader_next(&k->rd, &msg) != MGPU_OK) {
            if (k->rank < 0) {
                coord_refuse(c, i, "%s", mgpu_error_message());
                return 0;
            }
            coord_fail(c, k->rank, "rank %d sent a malformed message: %s", k->rank, mgpu_error_message());
            coord_conn_close(c, i);
            return 0;
        }
        if (!msg) break;
        k->frames++;
        int unauth = k->rank < 0;
        if (unauth) on_hello(c, i, msg);
        else on_rank_msg(c, k->rank, msg);
        json_decref(msg);
        if (unauth && (i >= c->nconns || c->conns[i] != k)) return 0; /* refused */
    }
    if (rr != MGPU_OK || eof) {
        coord_conn_close(c, i);
        return 0;
    }
    return 1;
}
