/* coord.c - the coordinator (mgpu_rt_run): launch the ranks, serve their
 * connections in one poll() loop (hello, job, all-gather relay, messages,
 * captured output), watch heartbeats, process exits and the caller's cancel
 * flag, and on the first failure abort the others, gather their flight
 * recorders and leave no process behind. It never opens a device backend. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "mgpu/clock.h"
#include "mgpu/log.h"
#include "rt/capture.h"
#include "rt/coord_setup.h"
#include "rt/protocol.h"
#include "rt/rt_internal.h"

#define MAX_STRANGERS 64          /* unauthenticated connections at once beyond the ranks still to say hello */
#define HELLO_MAX 16384           /* largest frame before a good hello (a hello is ~200 bytes) */
#define HELLO_GRACE_S 5.0         /* an unauthenticated connection must say hello by then */
#define STRANGER_BYTES_MAX (1u << 20) /* buffered by unauthenticated connections, beyond MGPU_PROTO_FIRST_BUF each */
#define ACCEPTS_PER_TURN 64       /* a flood of connections cannot keep the loop from reading */
#define EOF_GRACE_S 0.5           /* wait this long for a dead worker's exit status */
#define ABORT_WINDOW_S 2.0        /* flight dumps are collected this long after a failure */
#define ABORT_WINDOW_LAUNCHER_S 1.5 /* mpirun/srun: less, their SIGTERM takes up to 0.4 s more */
#define CANCEL_WINDOW_S 0.5       /* a cancelled run waits this long for the ranks to abort */

typedef struct conn {
    int fd, rank;                 /* rank -1 until a good hello */
    mgpu_proto_reader rd;
    char *out;                    /* queued frames not yet written */
    size_t out_len, out_off;
    uint64_t since_ns;
    unsigned long frames;         /* messages dispatched (drain_rank's progress) */
} conn;

typedef struct rank_state {
    conn *c;                      /* NULL before hello and after close */
    int hello, done, closed;
    uint64_t last_ns, eof_ns;
    long long pid;
    uint64_t ag_seq;              /* last all-gather seq received */
    unsigned char *ag;
    size_t ag_len;
    char *flight;                 /* the rank's flight dump (JSON text) */
    /* what the rank was doing, for a missing flight record (absent_why) */
    int late;                     /* said hello after the run had failed: it got no job */
    int exited, exit_status;      /* reaped during the run, and how it ended */
    int exited_after_fail;
    int stopped;                  /* seen stopped (SIGSTOP, a debugger) */
} rank_state;

typedef struct coord {
    const mgpu_rt_config *cfg;
    mgpu_rt_report *rep;
    mgpu_rt_on_msg on_msg;
    void *ctx;
    int size, local;
    double timeout_s;
    char token[MGPU_PROTO_TOKEN_HEX + 1];
    rt_listener lis;
    conn *conns[MAX_STRANGERS + 8192];
    int nconns;
    int nhello;                   /* ranks that said hello */
    int npending;                 /* connections that have not said hello */
    size_t pending_bytes;         /* their read buffers' size, together */
    rank_state *ranks;
    rt_proc *procs;
    int nprocs;
    json_t *job;
    uint64_t t0, abort_deadline;
    int failed, hung_rank, ndone;
    uint64_t ag_seq;              /* the all-gather being collected */
    int ag_count;
    rt_pipe *pipes;               /* capture_output: every process's stdout and stderr */
    int npipes;
} coord;

static double secs(uint64_t ns) { return (double)ns / 1e9; }
/* Seconds from t to now; 0 when t is later (stamped after `now` was read). */
static double age(uint64_t now, uint64_t t) { return t > now ? 0.0 : secs(now - t); }

static void event(coord *c, int rank, const char *type, json_t *body)
{
    if (c->on_msg) {
        mgpu_rt_msg m = {.rank = rank, .type = type, .body = body};
        c->on_msg(c->ctx, &m);
    }
    json_decref(body);
}

/*--- Connections -------------------------------------------------------*/

static void conn_flush(conn *k)
{
    while (k->fd >= 0 && k->out_off < k->out_len) {
        ssize_t n = send(k->fd, k->out + k->out_off, k->out_len - k->out_off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return; /* EAGAIN: poll for POLLOUT; errors show up as EOF on read */
        k->out_off += (size_t)n;
    }
    if (k->out_off == k->out_len) k->out_off = k->out_len = 0;
}

/* Queue a message (steals the reference) and write what the socket takes. */
static void conn_queue(conn *k, json_t *msg)
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
    conn_flush(k);
}

static void conn_close(coord *c, int i)
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

static void refuse(coord *c, int i, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void refuse(coord *c, int i, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    MGPU_INFO("coordinator: refused a connection: %s", why);
    event(c, -1, "refused", json_pack("{s:s, s:s}", "type", "refused", "reason", why));
    conn_close(c, i);
}

/* Strangers must never starve the ranks. When the connections waiting to
 * say hello fill their table, or together buffer more than their budget,
 * one of them goes: the one holding the most bytes, the oldest among equals.
 * A rank sends its hello (~200 bytes) as soon as it connects, so it holds
 * the least and is read within a turn of the loop; a stranger that holds a
 * connection open, or trickles a frame, is what gets closed - not the
 * newcomer, who may be a rank (refusing newcomers let 200 held connections
 * keep a 32-rank run from starting). */
static int evict_stranger(coord *c, const char *why)
{
    int pick = -1;
    for (int i = 0; i < c->nconns; i++) {
        conn *k = c->conns[i];
        if (k->rank >= 0) continue;
        conn *p = pick >= 0 ? c->conns[pick] : NULL;
        if (!p || k->rd.cap > p->rd.cap || (k->rd.cap == p->rd.cap && k->since_ns < p->since_ns)) pick = i;
    }
    if (pick < 0) return 0;
    refuse(c, pick, "%s", why);
    return 1;
}

/* Room for every rank still to say hello plus MAX_STRANGERS others. */
static int pending_cap(const coord *c) { return c->size - c->nhello + MAX_STRANGERS; }

/* Bytes the pending connections may hold: a first buffer each for the
 * ranks still to connect and the strangers' share, plus STRANGER_BYTES_MAX
 * for frames that needed more (a stranger's, in practice). */
static size_t pending_budget(const coord *c)
{
    return (size_t)pending_cap(c) * MGPU_PROTO_FIRST_BUF + STRANGER_BYTES_MAX;
}

static void enforce_pending_budget(coord *c)
{
    while (c->pending_bytes > pending_budget(c))
        if (!evict_stranger(c, "the connections waiting to say hello held more than their memory budget; the "
                               "largest was closed"))
            break;
}

/*--- Failure -----------------------------------------------------------*/

static void fail(coord *c, int rank, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(coord *c, int rank, const char *fmt, ...)
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
            conn_queue(c->ranks[r].c, json_pack("{s:s, s:s}", "type", "abort", "reason", c->rep->reason));
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
        return refuse(c, i, "the first message was not a well-formed hello");
    if (!mgpu_proto_token_equal(token, c->token)) return refuse(c, i, "wrong token (claimed rank %lld)", (long long)rank);
    if (size != c->size)
        return refuse(c, i, "rank %lld says the world has %lld ranks; this run has %d", (long long)rank,
                      (long long)size, c->size);
    if (rank < 0 || rank >= c->size) return refuse(c, i, "rank %lld is not in 0..%d", (long long)rank, c->size - 1);
    rank_state *rs = &c->ranks[rank];
    if (rs->hello) return refuse(c, i, "a second connection claims rank %lld", (long long)rank);
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
    if (c->failed) conn_queue(k, json_pack("{s:s, s:s}", "type", "abort", "reason", c->rep->reason));
    else conn_queue(k, json_incref(c->job));
}

static void on_allgather(coord *c, int r, json_t *msg)
{
    rank_state *rs = &c->ranks[r];
    json_int_t seq = 0;
    const char *data = NULL;
    if (json_unpack(msg, "{s:I, s:s}", "seq", &seq, "data", &data) != 0)
        return fail(c, r, "rank %d sent a malformed all-gather message (a bug in mgpulab)", r);
    if ((uint64_t)seq != rs->ag_seq + 1 || (uint64_t)seq != c->ag_seq + 1)
        return fail(c, r, "rank %d joined bootstrap all-gather #%lld while the others are at #%llu", r,
                    (long long)seq, (unsigned long long)c->ag_seq + 1);
    unsigned char *bytes;
    size_t len;
    if (mgpu_base64_decode(data, &bytes, &len) != MGPU_OK)
        return fail(c, r, "rank %d sent bad all-gather data: %s", r, mgpu_error_message());
    for (int o = 0; o < c->size; o++)
        if (o != r && c->ranks[o].ag_seq == (uint64_t)seq && c->ranks[o].ag_len != len) {
            free(bytes);
            return fail(c, r, "rank %d sent %zu bytes to bootstrap all-gather #%lld; rank %d sent %zu", r, len,
                        (long long)seq, o, c->ranks[o].ag_len);
        }
    rs->ag_seq = (uint64_t)seq;
    rs->ag = bytes;
    rs->ag_len = len;
    if (++c->ag_count < c->size) return;
    /* Everyone is in: reply with the concatenation in rank order. */
    unsigned char *all = malloc(len * (size_t)c->size + 1);
    if (!all) return fail(c, r, "coordinator: out of memory relaying a %zu-byte all-gather", len * (size_t)c->size);
    for (int o = 0; o < c->size; o++) {
        memcpy(all + (size_t)o * len, c->ranks[o].ag, len);
        free(c->ranks[o].ag);
        c->ranks[o].ag = NULL;
    }
    char *b64 = mgpu_base64_encode(all, len * (size_t)c->size);
    free(all);
    if (!b64) return fail(c, r, "coordinator: out of memory relaying an all-gather");
    c->ag_seq = (uint64_t)seq;
    c->ag_count = 0;
    for (int o = 0; o < c->size; o++)
        if (c->ranks[o].c)
            conn_queue(c->ranks[o].c, json_pack("{s:s, s:I, s:s}", "type", "allgather", "seq", seq, "data", b64));
    free(b64);
}

static void on_rank_msg(coord *c, int r, json_t *msg)
{
    rank_state *rs = &c->ranks[r];
    const char *type = mgpu_proto_type(msg);
    rs->last_ns = mgpu_now_ns();
    if (strcmp(type, "heartbeat") == 0) return;
    if (strcmp(type, "allgather") == 0) return on_allgather(c, r, msg);
    if (strcmp(type, "hello") == 0) return fail(c, r, "rank %d said hello twice (a bug in mgpulab)", r);
    json_t *body = json_object_get(msg, "body");
    body = body ? json_incref(body) : json_object();
    if (strcmp(type, "error") == 0) {
        const char *m = json_string_value(json_object_get(body, "message"));
        fail(c, r, "rank %d: %s", r, m && *m ? m : "failed without a message");
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
    event(c, r, type, body);
}

/* Read and dispatch what connection i has; returns 0 when it was closed. */
static int conn_read(coord *c, int i)
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
                refuse(c, i, "%s", mgpu_error_message());
                return 0;
            }
            fail(c, k->rank, "rank %d sent a malformed message: %s", k->rank, mgpu_error_message());
            conn_close(c, i);
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
        conn_close(c, i);
        return 0;
    }
    return 1;
}

/*--- Processes ---------------------------------------------------------*/

static void drain_all(coord *c)
{
    for (int i = c->nconns - 1; i >= 0; i--)
        if (i < c->nconns) conn_read(c, i);
}

/* Everything an exited rank sent before it went: its connection read until
 * it closes. One read stops after a complete frame (so a chatty peer cannot
 * starve the others), and a rank's last span batch, flight record and
 * "done" can all be waiting when its exit is reaped: reading once left the
 * "done" behind and failed a run that had finished ("exited (status 0)
 * without finishing its job", seen with 8 ranks of lab 5 under --trace).
 * Stops when a read brings nothing new (the socket still open elsewhere). */
static void drain_rank(coord *c, int rank)
{
    for (;;) {
        conn *k = c->ranks[rank].c;
        int i = 0;
        while (k && i < c->nconns && c->conns[i] != k) i++;
        if (!k || i >= c->nconns) return;
        unsigned long frames = k->frames;
        size_t len = k->rd.len;
        if (!conn_read(c, i)) return; /* closed: everything was read */
        if (c->ranks[rank].c != k || (k->frames == frames && k->rd.len == len)) return;
    }
}

static void on_exit_proc(coord *c, rt_proc *p)
{
    drain_all(c); /* a "done" or "error" may still sit in the socket */
    if (p->rank >= 0 && p->rank < c->size) drain_rank(c, p->rank);
    char how[128];
    rt_describe_status(p->status, how, sizeof how);
    if (p->rank >= 0) {
        rank_state *rs = &c->ranks[p->rank];
        rs->exited = 1;
        rs->exit_status = p->status;
        rs->exited_after_fail = c->failed;
        if (rs->done && WIFEXITED(p->status) && WEXITSTATUS(p->status) == 0) return;
        if (rs->done) fail(c, p->rank, "rank %d finished its job but then %s", p->rank, how);
        else if (!rs->hello) fail(c, p->rank, "rank %d %s before connecting (its output above says why)", p->rank, how);
        else if (WIFEXITED(p->status) && WEXITSTATUS(p->status) == 0)
            fail(c, p->rank, "rank %d exited (status 0) without finishing its job", p->rank);
        else fail(c, p->rank, "rank %d %s", p->rank, how);
        return;
    }
    if (c->ndone == c->size) return;
    int first = 0;
    while (first < c->size && c->ranks[first].done) first++;
    const char *name = c->cfg->launcher == MGPU_LAUNCH_MPIRUN ? "mpirun" : "srun";
    fail(c, first, "%s %s before rank %d finished (%d of %d ranks done; its output above may say more)", name, how,
         first, c->ndone, c->size);
}

static void reap_all(coord *c)
{
    for (int i = 0; i < c->nprocs; i++)
        if (!c->procs[i].exited && rt_proc_reap(&c->procs[i], 0)) on_exit_proc(c, &c->procs[i]);
}

/* Everything still running gets SIGKILL (mpirun/srun a SIGTERM first, so
 * they take their remote ranks down), then is reaped. */
static void kill_all(coord *c)
{
    if (!c->local) {
        for (int i = 0; i < c->nprocs; i++) rt_proc_kill(&c->procs[i], SIGTERM);
        uint64_t until = mgpu_now_ns() + 400000000ull;
        int left = 1;
        while (left && mgpu_now_ns() < until) {
            left = 0;
            for (int i = 0; i < c->nprocs; i++) left |= !rt_proc_reap(&c->procs[i], 0);
            if (left) usleep(10000);
        }
    }
    for (int i = 0; i < c->nprocs; i++) rt_proc_kill(&c->procs[i], SIGKILL);
    for (int i = 0; i < c->nprocs; i++) rt_proc_reap(&c->procs[i], 1);
}

/*--- Captured output ---------------------------------------------------*/

static void on_line(void *ctx, int rank, const char *stream, const char *text, size_t len)
{
    coord *c = ctx;
    json_t *line = rt_line_json(text, len);
    if (rank >= c->size) rank = -1; /* a launcher's tag we cannot trust */
    if (line) event(c, rank, "log", json_pack("{s:o, s:s}", "line", line, "stream", stream));
}


/*--- The loop ----------------------------------------------------------*/

/* The worker process of a rank (local launchers), or NULL. */
static const rt_proc *rank_proc(const coord *c, int rank)
{
    for (int i = 0; i < c->nprocs; i++)
        if (c->procs[i].rank == rank) return &c->procs[i];
    return NULL;
}


static void check_timers(coord *c, uint64_t now)
{
    double start_limit = c->timeout_s > 15 ? c->timeout_s : 15;
    /* While ranks are still to say hello, one that connected may be slow to
     * (100 ranks starting on two busy cores): its connection waits as long
     * as the start does. Strangers are bounded meanwhile by count and by
     * HELLO_MAX bytes each; once every rank is in, 5 s is plenty. */
    double grace = c->nhello < c->size ? start_limit : HELLO_GRACE_S;
    for (int i = c->nconns - 1; i >= 0; i--)
        if (c->conns[i]->rank < 0 && age(now, c->conns[i]->since_ns) > grace)
            refuse(c, i, "no hello within %.0f s", grace);
    if (c->failed) return;
    for (int r = 0; r < c->size; r++) {
        rank_state *rs = &c->ranks[r];
        if (rs->done) continue;
        if (!rs->hello && age(now, c->t0) > start_limit) {
            return fail(c, r, "rank %d never connected within %.1f s (is `%s worker` reachable from the launcher?)", r,
                        start_limit, c->cfg->self_exe ? c->cfg->self_exe : "mgpulab");
        }
        if (rs->hello && !rs->closed && age(now, rs->last_ns) > c->timeout_s) {
            c->hung_rank = r;
            const rt_proc *p = rank_proc(c, r);
            rs->stopped = p && rt_proc_stopped(p);
            return fail(c, r, "rank %d hung: no heartbeat for %.1f s%s", r, age(now, rs->last_ns),
                        rs->stopped ? " (the process is stopped: SIGSTOP, Ctrl-Z or a debugger)" : "");
        }
        /* A closed connection: wait briefly for the exit status (local),
         * which names the signal; otherwise say what we know. */
        if (rs->closed && (!c->local || age(now, rs->eof_ns) > EOF_GRACE_S))
            return fail(c, r, "rank %d closed its connection before finishing (the process died or was killed%s)", r,
                        c->local ? "" : "; the launcher's output above may name the signal");
    }
}

static int settled(coord *c)
{
    if (!c->failed) {
        if (c->ndone < c->size) return 0;
        for (int i = 0; i < c->nprocs; i++)
            if (!c->procs[i].exited) return 0;
        return 1;
    }
    for (int r = 0; r < c->size; r++)
        if (c->ranks[r].c && r != c->hung_rank) return 0;
    return 1;
}

static void check_cancel(coord *c, uint64_t now)
{
    if (!c->cfg->cancel || !*c->cfg->cancel || c->failed) return;
    fail(c, -1, "cancelled by the user");
    uint64_t soon = now + (uint64_t)(CANCEL_WINDOW_S * 1e9);
    if (soon < c->abort_deadline) c->abort_deadline = soon;
}

/* Take the connections waiting on the listening socket, at most
 * ACCEPTS_PER_TURN a turn so that a flood cannot keep the loop from reading
 * the hellos already in. A full table of pending connections makes room by
 * closing a stranger (evict_stranger), never by turning the newcomer away. */
static void accept_new(coord *c)
{
    for (int n = 0; n < ACCEPTS_PER_TURN; n++) {
        int fd = accept4(c->lis.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) return;
        if (c->npending >= pending_cap(c))
            evict_stranger(c, "too many connections waiting to say hello; the one holding the most (or the oldest) "
                              "was closed");
        conn *k = c->nconns < MAX_STRANGERS + 8192 ? calloc(1, sizeof *k) : NULL;
        if (!k) {
            close(fd);
            continue;
        }
        int one = 1;
        if (c->lis.tcp) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        k->fd = fd;
        k->rank = -1;
        k->rd.limit = HELLO_MAX;
        k->since_ns = mgpu_now_ns();
        c->conns[c->nconns++] = k;
        c->npending++;
    }
}

static void run_loop(coord *c)
{
    struct pollfd *pf = calloc((size_t)(1 + MAX_STRANGERS + 8192 + c->nprocs + c->npipes), sizeof *pf);
    uint64_t done_deadline = 0;
    while (pf) {
        uint64_t now = mgpu_now_ns();
        check_cancel(c, now);
        reap_all(c);
        check_timers(c, now);
        if (settled(c)) break;
        if (c->failed && now >= c->abort_deadline) break;
        if (!c->failed && c->ndone == c->size) {
            /* Everyone finished: processes get a moment to exit cleanly. */
            if (!done_deadline) done_deadline = now + 2000000000ull;
            else if (now >= done_deadline) break;
        }
        int n = 0;
        pf[n++] = (struct pollfd){.fd = c->lis.fd, .events = POLLIN};
        for (int i = 0; i < c->nconns; i++)
            pf[n++] = (struct pollfd){.fd = c->conns[i]->fd,
                                      .events = (short)(POLLIN | (c->conns[i]->out_len ? POLLOUT : 0))};
        int nc = c->nconns;
        for (int i = 0; i < c->npipes; i++) pf[n++] = (struct pollfd){.fd = c->pipes[i].fd, .events = POLLIN};
        for (int i = 0; i < c->nprocs; i++)
            if (c->procs[i].pidfd >= 0 && !c->procs[i].exited)
                pf[n++] = (struct pollfd){.fd = c->procs[i].pidfd, .events = POLLIN};
        int pr = poll(pf, (nfds_t)n, 50);
        if (pr < 0 && errno != EINTR) break;
        if (pr <= 0) continue;
        for (int i = nc - 1; i >= 0; i--) {
            if (i >= c->nconns || c->conns[i]->fd != pf[1 + i].fd) continue;
            if (pf[1 + i].revents & POLLOUT) conn_flush(c->conns[i]);
            if (pf[1 + i].revents & (POLLIN | POLLHUP | POLLERR)) conn_read(c, i);
        }
        for (int i = 0; i < c->npipes; i++)
            if (pf[1 + nc + i].revents & (POLLIN | POLLHUP | POLLERR)) rt_pipe_read(&c->pipes[i], on_line, c);
        if (pf[0].revents & POLLIN) accept_new(c);
    }
    free(pf);
}

/*--- Entry -------------------------------------------------------------*/

static json_t *make_job(const mgpu_rt_config *cfg, const char *type, json_t *params, double timeout_s)
{
    const mgpu_backend_config *b = &cfg->backend;
    json_t *backend = json_pack("{s:s, s:s?, s:s?}", "kind", mgpu_backend_kind_name(b->kind),
                                "machine", b->machine, "fault", b->fault);
    return json_pack("{s:s, s:s, s:O, s:o, s:f}", "type", "job", "job", type, "params", params ? params : json_null(),
                     "backend", backend, "timeout_s", timeout_s);
}

/* Why rank r sent no flight record, in a few words the analyser puts after
 * "sent no flight record": what the coordinator saw of it. "It died" was
 * said of every such rank, also of one that was stopped, that connected
 * after the failure, or that was still working when the run ended. */
static void absent_why(const coord *c, int r, char *buf, size_t len)
{
    const rank_state *rs = &c->ranks[r];
    char how[128];
    const char *h = how;
    if (rs->exited) {
        rt_describe_status(rs->exit_status, how, sizeof how);
        if (strncmp(h, "was ", 4) == 0) h += 4; /* "killed by signal 9 (SIGKILL)" */
    }
    if (!rs->hello) snprintf(buf, len, "never connected");
    else if (rs->late) snprintf(buf, len, "connected after the run had failed, so never started");
    else if (rs->stopped) snprintf(buf, len, "stopped: SIGSTOP, Ctrl-Z or a debugger");
    else if (r == c->hung_rank) snprintf(buf, len, "hung: no heartbeat for %.1f s", c->timeout_s);
    else if (rs->exited && !rs->exited_after_fail) snprintf(buf, len, "%s%s", h, rs->done ? " after finishing its job" : "");
    else if (rs->exited) snprintf(buf, len, "%s after the abort, without sending one", h);
    else if (c->local) snprintf(buf, len, "still running when the run ended: it did not answer the abort");
    else if (rs->closed) snprintf(buf, len, "its connection closed; the launcher's output may say why");
    else snprintf(buf, len, "it did not answer the abort before the run ended");
}

static void analyse(coord *c)
{
    const char **dumps = calloc((size_t)c->size, sizeof *dumps);
    char **why = calloc((size_t)c->size, sizeof *why);
    int any = 0;
    for (int r = 0; dumps && why && r < c->size; r++) {
        any |= (dumps[r] = c->ranks[r].flight) != NULL;
        if (!dumps[r] && (why[r] = malloc(256))) absent_why(c, r, why[r], 256);
    }
    if (any && why &&
        mgpu_flight_analyse_why(dumps, (const char *const *)why, c->size, c->rep->analysis, sizeof c->rep->analysis) !=
            MGPU_OK)
        snprintf(c->rep->analysis, sizeof c->rep->analysis, "(the flight recorders could not be analysed: %s)",
                 mgpu_error_message());
    for (int r = 0; why && r < c->size; r++) free(why[r]);
    free(why);
    free(dumps);
}

mgpu_result mgpu_rt_run(const mgpu_rt_config *cfg, const char *job_type, json_t *params, mgpu_rt_on_msg on_msg,
                        void *ctx, mgpu_rt_report *report)
{
    if (!cfg || !job_type || !report) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_rt_run: missing config, job or report");
    memset(report, 0, sizeof *report);
    report->failed_rank = -1;
    if ((unsigned)cfg->launcher > MGPU_LAUNCH_SRUN) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_rt_run: bad launcher");
    if (!cfg->jobs) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_rt_run: no job table (mgpu_jobs)");
    if (!mgpu_job_find(cfg->jobs, job_type)) return mgpu_fail(MGPU_ERR_INVALID, "no job type '%s' in this build", job_type);
    if (cfg->ranks < 0 || cfg->ranks > 4096)
        return mgpu_fail(MGPU_ERR_INVALID, "--ranks %d is out of range (1..4096)", cfg->ranks);
    if (cfg->timeout_s < 0) return mgpu_fail(MGPU_ERR_INVALID, "a negative timeout (%g s) makes no sense", cfg->timeout_s);
    int hosts, per_host, total;
    MGPU_CHECK(mgpu_rt_sim_layout(&cfg->backend, &hosts, &per_host, &total));

    coord *c = calloc(1, sizeof *c);
    if (!c) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory starting the coordinator");
    mgpu_result res = MGPU_OK;
    c->cfg = cfg;
    c->rep = report;
    c->on_msg = on_msg;
    c->ctx = ctx;
    c->lis.fd = -1;
    c->hung_rank = -1;
    c->local = cfg->launcher == MGPU_LAUNCH_LOCAL || cfg->launcher == MGPU_LAUNCH_EMULATE;
    c->size = cfg->ranks > 0 ? cfg->ranks : mgpu_rt_default_ranks(cfg->launcher, total);
    c->timeout_s = cfg->timeout_s > 0 ? cfg->timeout_s : 60.0;
    c->t0 = mgpu_now_ns();
    c->ranks = calloc((size_t)c->size, sizeof *c->ranks);
    c->job = make_job(cfg, job_type, params, c->timeout_s);
    if (!c->ranks || !c->job) {
        res = mgpu_fail(MGPU_ERR_NOMEM, "out of memory starting the coordinator");
        goto out;
    }
    MGPU_CHECKGOTO(rt_make_token(c->token), res, out);
    MGPU_CHECKGOTO(rt_listen(cfg->launcher, c->size + 16, &c->lis), res, out);
    event(c, -1, "listening", json_pack("{s:s, s:s}", "type", "listening", "address", c->lis.address));

    char self[4096];
    const char *exe = cfg->self_exe;
    if (!exe) {
        ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
        if (k <= 0) {
            res = mgpu_fail(MGPU_ERR_IO, "cannot find this program's path (/proc/self/exe): %s", strerror(errno));
            goto out;
        }
        self[k] = '\0';
        exe = self;
    }
    rt_launch L = {.kind = cfg->launcher, .size = c->size, .self_exe = exe, .coord = c->lis.address,
                   .token = c->token, .extra_env = cfg->extra_env,
                   .sim_gpus_per_host = c->local && hosts > 1 ? (cfg->ranks_per_host > 0 ? cfg->ranks_per_host : per_host) : 0,
                   .sim_hosts = hosts,
                   .capture = cfg->capture_output};
    MGPU_CHECKGOTO(rt_launch_start(&L, &c->procs, &c->nprocs), res, out);
    if (cfg->capture_output)
        MGPU_CHECKGOTO(rt_pipes_take(c->procs, c->nprocs, cfg->launcher, &c->pipes, &c->npipes), res, out);
    report->ok = 1;
    run_loop(c);
    if (!c->failed && c->ndone < c->size) fail(c, -1, "the coordinator stopped before every rank finished");
    for (int i = 0; i < c->nprocs; i++) /* before they are killed: who could not answer */
        if (c->procs[i].rank >= 0 && c->procs[i].rank < c->size && rt_proc_stopped(&c->procs[i]))
            c->ranks[c->procs[i].rank].stopped = 1;
    kill_all(c);
    rt_pipes_drain(c->pipes, c->npipes, on_line, c);
    if (c->failed) analyse(c);
    report->ok = !c->failed;
out:
    report->wall_s = secs(mgpu_now_ns() - c->t0);
    while (c->nconns) conn_close(c, c->nconns - 1);
    if (c->procs) {
        kill_all(c);
        rt_procs_free(c->procs, c->nprocs);
    }
    for (int r = 0; c->ranks && r < c->size; r++) {
        free(c->ranks[r].ag);
        free(c->ranks[r].flight);
    }
    for (int i = 0; i < c->npipes; i++) rt_pipe_close(&c->pipes[i], on_line, c);
    free(c->pipes);
    free(c->ranks);
    json_decref(c->job);
    rt_listener_close(&c->lis);
    free(c);
    return res;
}
