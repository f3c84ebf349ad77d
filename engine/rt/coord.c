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
#include "mgpu/comm.h"
#include "rt/coord_internal.h"

#define HELLO_MAX 16384           /* largest frame before a good hello (a hello is ~200 bytes) */
#define HELLO_GRACE_S 5.0         /* an unauthenticated connection must say hello by then */
#define ACCEPTS_PER_TURN 64       /* a flood of connections cannot keep the loop from reading */
#define EOF_GRACE_S 0.5           /* wait this long for a dead worker's exit status */
#define CANCEL_WINDOW_S 0.5       /* a cancelled run waits this long for the ranks to abort */

static double secs(uint64_t ns) { return (double)ns / 1e9; }
/* Seconds from t to now; 0 when t is later (stamped after `now` was read). */
static double age(uint64_t now, uint64_t t) { return t > now ? 0.0 : secs(now - t); }

/*--- Processes ---------------------------------------------------------*/

static void drain_all(coord *c)
{
    for (int i = c->nconns - 1; i >= 0; i--)
        if (i < c->nconns) coord_conn_read(c, i);
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
        if (!coord_conn_read(c, i)) return; /* closed: everything was read */
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
        if (rs->done) coord_fail(c, p->rank, "rank %d finished its job but then %s", p->rank, how);
        else if (!rs->hello)
            coord_fail(c, p->rank, "rank %d %s before connecting (its output above says why)", p->rank, how);
        else if (WIFEXITED(p->status) && WEXITSTATUS(p->status) == 0)
            coord_fail(c, p->rank, "rank %d exited (status 0) without finishing its job", p->rank);
        else coord_fail(c, p->rank, "rank %d %s", p->rank, how);
        return;
    }
    if (c->ndone == c->size) return;
    int first = 0;
    while (first < c->size && c->ranks[first].done) first++;
    const char *name = c->cfg->launcher == MGPU_LAUNCH_MPIRUN ? "mpirun" : "srun";
    coord_fail(c, first, "%s %s before rank %d finished (%d of %d ranks done; its output above may say more)", name,
               how, first, c->ndone, c->size);
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
    if (line) coord_event(c, rank, "log", json_pack("{s:o, s:s}", "line", line, "stream", stream));
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
            coord_refuse(c, i, "no hello within %.0f s", grace);
    if (c->failed) return;
    for (int r = 0; r < c->size; r++) {
        rank_state *rs = &c->ranks[r];
        if (rs->done) continue;
        if (!rs->hello && age(now, c->t0) > start_limit) {
            return coord_fail(c, r,
                              "rank %d never connected within %.1f s (is `%s worker` reachable from the launcher?)", r,
                              start_limit, c->cfg->self_exe ? c->cfg->self_exe : "mgpulab");
        }
        if (rs->hello && !rs->closed && age(now, rs->last_ns) > c->timeout_s) {
            c->hung_rank = r;
            const rt_proc *p = rank_proc(c, r);
            rs->stopped = p && rt_proc_stopped(p);
            return coord_fail(c, r, "rank %d hung: no heartbeat for %.1f s%s", r, age(now, rs->last_ns),
                              rs->stopped ? " (the process is stopped: SIGSTOP, Ctrl-Z or a debugger)" : "");
        }
        /* A closed connection: wait briefly for the exit status (local),
         * which names the signal; otherwise say what we know. */
        if (rs->closed && (!c->local || age(now, rs->eof_ns) > EOF_GRACE_S))
            return coord_fail(c, r,
                              "rank %d closed its connection before finishing (the process died or was killed%s)", r,
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
    coord_fail(c, -1, "cancelled by the user");
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
        if (c->npending >= coord_pending_cap(c))
            coord_evict_stranger(c, "too many connections waiting to say hello; the one holding the most (or the "
                                    "oldest) was closed");
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
            if (pf[1 + i].revents & POLLOUT) coord_conn_flush(c->conns[i]);
            if (pf[1 + i].revents & (POLLIN | POLLHUP | POLLERR)) coord_conn_read(c, i);
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

/* Everything about a run that can be refused before anything starts: a
 * command calls it before its banner, so "1024 ranks" is never printed just
 * above the refusal of that many (issue 34, second hostile pass). */
mgpu_result mgpu_rt_check_config(const mgpu_rt_config *cfg, const char *job_type)
{
    if ((unsigned)cfg->launcher > MGPU_LAUNCH_SRUN) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_rt_run: bad launcher");
    if (!cfg->jobs) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_rt_run: no job table (mgpu_jobs)");
    if (!mgpu_job_find(cfg->jobs, job_type)) return mgpu_fail(MGPU_ERR_INVALID, "no job type '%s' in this build", job_type);
    if (cfg->ranks < 0 || cfg->ranks > 4096)
        return mgpu_fail(MGPU_ERR_INVALID, "--ranks %d is out of range (1..4096)", cfg->ranks);
    if (cfg->timeout_s < 0) return mgpu_fail(MGPU_ERR_INVALID, "a negative timeout (%g s) makes no sense", cfg->timeout_s);
    int hosts, per_host, total;
    MGPU_CHECK(mgpu_rt_sim_layout(&cfg->backend, &hosts, &per_host, &total));
    MGPU_CHECK(mgpu_rt_check_sim_faults(&cfg->backend,
                                        cfg->ranks > 0 ? cfg->ranks : mgpu_rt_default_ranks(cfg->launcher, total)));

    /* The sim's communicator holds at most MGPU_SIM_MAX_RANKS ranks: said before
     * any worker starts (1024 ranks were refused by the communicator after
     * every one of them had started, 34 s later, issue 34). Every launcher
     * (spmd, bench, a lab's runs) comes through here. */
    int nranks = cfg->ranks > 0 ? cfg->ranks : mgpu_rt_default_ranks(cfg->launcher, total);
    if (mgpu_backend_config_is_sim(&cfg->backend) && nranks > MGPU_SIM_MAX_RANKS)
        return mgpu_fail(MGPU_ERR_INVALID, "--ranks %d: the sim runs at most %d ranks (its communicator's shared "
                         "memory holds %d); choose %d or fewer", nranks, MGPU_SIM_MAX_RANKS, MGPU_SIM_MAX_RANKS, MGPU_SIM_MAX_RANKS);

    return MGPU_OK;
}

mgpu_result mgpu_rt_run(const mgpu_rt_config *cfg, const char *job_type, json_t *params, mgpu_rt_on_msg on_msg,
                        void *ctx, mgpu_rt_report *report)
{
    if (!cfg || !job_type || !report) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_rt_run: missing config, job or report");
    memset(report, 0, sizeof *report);
    report->failed_rank = -1;
    MGPU_CHECK(mgpu_rt_check_config(cfg, job_type));
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
    coord_event(c, -1, "listening", json_pack("{s:s, s:s}", "type", "listening", "address", c->lis.address));

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
    if (!c->failed && c->ndone < c->size) coord_fail(c, -1, "the coordinator stopped before every rank finished");
    for (int i = 0; i < c->nprocs; i++) /* before they are killed: who could not answer */
        if (c->procs[i].rank >= 0 && c->procs[i].rank < c->size && rt_proc_stopped(&c->procs[i]))
            c->ranks[c->procs[i].rank].stopped = 1;
    kill_all(c);
    rt_pipes_drain(c->pipes, c->npipes, on_line, c);
    if (c->failed) analyse(c);
    report->ok = !c->failed;
out:
    report->wall_s = secs(mgpu_now_ns() - c->t0);
    while (c->nconns) coord_conn_close(c, c->nconns - 1);
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
