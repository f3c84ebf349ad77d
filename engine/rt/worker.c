/* worker.c - a rank worker (`mgpulab worker`): connect back to the
 * coordinator, take the job, open the device backend, run the handler, and
 * report. An I/O thread sends heartbeats, receives all-gather replies and
 * acts on "abort" even while the job is blocked in a collective. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "mgpu/cleanup.h"
#include "mgpu/clock.h"
#include "mgpu/telemetry.h"
#include "rt/protocol.h"
#include "rt/worker_internal.h"

#define HEARTBEAT_MS 500
#define HELLO_ATTEMPTS 4 /* connections closed before the job comes */
#define ABORT_GRACE_NS 1000000000ull /* after an abort, the job gets 1 s to return */

/*--- Connecting ---------------------------------------------------------*/

static mgpu_result connect_unix(const char *path, int *fd)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sa.sun_path) return mgpu_fail(MGPU_ERR_INVALID, "MGPU_COORD: socket path too long");
    memcpy(sa.sun_path, path, strlen(path) + 1);
    *fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (*fd < 0) return mgpu_fail(MGPU_ERR_IO, "socket failed: %s", strerror(errno));
    if (connect(*fd, (struct sockaddr *)&sa, sizeof sa) == 0) return MGPU_OK;
    int e = errno;
    close(*fd);
    *fd = -1;
    return mgpu_fail(MGPU_ERR_IO, "cannot reach the coordinator at unix:%s: %s", path, strerror(e));
}

static mgpu_result connect_tcp(const char *hostport, int *fd)
{
    char host[256];
    const char *colon = strrchr(hostport, ':');
    if (!colon || colon == hostport || (size_t)(colon - hostport) >= sizeof host)
        return mgpu_fail(MGPU_ERR_INVALID, "MGPU_COORD='tcp:%s' is not tcp:HOST:PORT", hostport);
    snprintf(host, sizeof host, "%.*s", (int)(colon - hostport), hostport);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai = NULL;
    int g = getaddrinfo(host, colon + 1, &hints, &ai);
    if (g) return mgpu_fail(MGPU_ERR_IO, "cannot resolve the coordinator's host '%s': %s", host, gai_strerror(g));
    int e = 0;
    for (struct addrinfo *a = ai; a; a = a->ai_next) {
        *fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (*fd < 0) continue;
        if (connect(*fd, a->ai_addr, a->ai_addrlen) == 0) {
            freeaddrinfo(ai);
            return MGPU_OK;
        }
        e = errno;
        close(*fd);
        *fd = -1;
    }
    freeaddrinfo(ai);
    return mgpu_fail(MGPU_ERR_IO, "cannot reach the coordinator at tcp:%s: %s (a firewall, or MGPU_COORD_HOST names "
                     "an address this host cannot reach?)", hostport, strerror(e));
}

static mgpu_result connect_coord(const char *addr, int *fd)
{
    /* The coordinator listens before it launches; a few retries cover a
     * slow network between hosts. */
    mgpu_result r = MGPU_ERR_IO;
    for (int attempt = 0; attempt < 20; attempt++) {
        if (strncmp(addr, "unix:", 5) == 0) r = connect_unix(addr + 5, fd);
        else if (strncmp(addr, "tcp:", 4) == 0) r = connect_tcp(addr + 4, fd);
        else return mgpu_fail(MGPU_ERR_INVALID, "MGPU_COORD='%s' is neither unix:PATH nor tcp:HOST:PORT", addr);
        if (r == MGPU_OK || mgpu_error_code() == MGPU_ERR_INVALID) return r;
        usleep(100000);
    }
    return r;
}

/*--- Sending ------------------------------------------------------------*/

static mgpu_result send_msg(mgpu_worker *w, json_t *msg)
{
    pthread_mutex_lock(&w->send_lock);
    mgpu_result r = w->fd >= 0 ? mgpu_proto_send(w->fd, msg) : mgpu_fail(MGPU_ERR_IO, "not connected");
    pthread_mutex_unlock(&w->send_lock);
    json_decref(msg);
    return r;
}

mgpu_result mgpu_worker_send(mgpu_worker *w, const char *type, json_t *body)
{
    if (!w || !type || !*type) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_worker_send: no worker or type");
    json_t *msg = json_pack("{s:s, s:i, s:o}", "type", type, "rank", w->env.rank, "body",
                            body ? json_incref(body) : json_object());
    if (!msg) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory sending a '%s' message", type);
    return send_msg(w, msg);
}

mgpu_result mgpu_worker_log(mgpu_worker *w, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    json_t *body = json_pack("{s:s}", "text", line);
    mgpu_result r = mgpu_worker_send(w, "log", body);
    json_decref(body);
    return r;
}

/* Every communicator's flight recorder, for the analyser. */
static void send_flight(mgpu_worker *w)
{
    char *dump = mgpu_comm_flight_dump_all_json();
    if (!dump) return;
    json_t *body = json_pack("{s:s}", "dump", dump);
    free(dump);
    if (body) mgpu_worker_send(w, "flight", body);
    json_decref(body);
}

/*--- The I/O thread -----------------------------------------------------*/

static void on_abort(mgpu_worker *w, json_t *msg)
{
    const char *why = json_string_value(json_object_get(msg, "reason"));
    pthread_mutex_lock(&w->lock);
    if (w->aborted) {
        pthread_mutex_unlock(&w->lock);
        return;
    }
    w->aborted = 1;
    w->abort_ns = mgpu_now_ns();
    snprintf(w->abort_reason, sizeof w->abort_reason, "%s", why ? why : "another rank failed");
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
    /* Dump before aborting: the dump shows where each collective stood. A
     * rank that already finished sent its final dump, with the world still
     * alive: an empty one now must not replace it. */
    if (!w->flight_sent) send_flight(w);
    mgpu_comm_abort_all();
}

/* _exit without tearing down, but with what this rank made in shared places
 * (a sim segment not yet unlinked) removed: no atexit handler runs. */
static void gone(int rc)
{
    mgpu_cleanup_now();
    _exit(rc);
}

static void *io_main(void *arg)
{
    mgpu_worker *w = arg;
    uint64_t next_hb = mgpu_now_ns();
    for (;;) {
        uint64_t now = mgpu_now_ns();
        if (now >= next_hb) {
            if (send_msg(w, json_pack("{s:s}", "type", "heartbeat")) != MGPU_OK) gone(1); /* coordinator gone */
            next_hb = now + HEARTBEAT_MS * 1000000ull;
        }
        if (w->aborted && now > w->abort_ns && now - w->abort_ns > ABORT_GRACE_NS) gone(1); /* the job did not notice */
        struct pollfd pf[2] = {{.fd = w->fd, .events = POLLIN}, {.fd = w->stop_pipe[0], .events = POLLIN}};
        int wait = (int)((next_hb - now) / 1000000u) + 1;
        int pr = poll(pf, 2, wait);
        if (pr < 0 && errno != EINTR) break;
        if (pr <= 0) continue;
        if (pf[1].revents) break;
        if (!(pf[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        json_t *msg = NULL;
        if (mgpu_proto_recv(w->fd, 30000, &msg) != MGPU_OK) {
            /* No coordinator: nobody to report to, and no worker may
             * outlive it. Communicators are aborted so peers fail fast. */
            mgpu_comm_abort_all();
            gone(1);
        }
        const char *type = mgpu_proto_type(msg);
        if (strcmp(type, "allgather") == 0) {
            pthread_mutex_lock(&w->lock);
            json_decref(w->ag_reply);
            w->ag_reply = json_incref(msg);
            pthread_cond_broadcast(&w->cond);
            pthread_mutex_unlock(&w->lock);
        } else if (strcmp(type, "abort") == 0) {
            on_abort(w, msg);
        }
        json_decref(msg);
    }
    return NULL;
}

/*--- Bootstrap: all-gather through the coordinator -----------------------*/

static mgpu_result ag_through_coord(void *ctx, const void *mine, void *all, size_t len)
{
    mgpu_worker *w = ctx;
    if (!mine || !all || len == 0 || len > MGPU_PROTO_MAX / 2 / (size_t)w->env.size)
        return mgpu_fail(MGPU_ERR_INVALID, "bootstrap all-gather of %zu bytes per rank: must be 1..%zu", len,
                         (size_t)(MGPU_PROTO_MAX / 2 / (size_t)w->env.size));
    char *b64 = mgpu_base64_encode(mine, len);
    if (!b64) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory for a bootstrap all-gather");
    pthread_mutex_lock(&w->lock);
    uint64_t seq = ++w->ag_seq;
    pthread_mutex_unlock(&w->lock);
    MGPU_CHECK(send_msg(w, json_pack("{s:s, s:I, s:s}", "type", "allgather", "seq", (json_int_t)seq, "data", b64)));
    free(b64);
    pthread_mutex_lock(&w->lock);
    while (!w->aborted && !(w->ag_reply && json_integer_value(json_object_get(w->ag_reply, "seq")) == (json_int_t)seq))
        pthread_cond_wait(&w->cond, &w->lock);
    json_t *reply = w->aborted ? NULL : w->ag_reply;
    w->ag_reply = NULL;
    pthread_mutex_unlock(&w->lock);
    if (!reply) return mgpu_fail(MGPU_ERR_TIMEOUT, "aborted by the coordinator: %s", w->abort_reason);
    unsigned char *bytes = NULL;
    size_t got = 0;
    mgpu_result r = mgpu_base64_decode(json_string_value(json_object_get(reply, "data")) ?: "", &bytes, &got);
    json_decref(reply);
    MGPU_CHECK(r);
    if (got != len * (size_t)w->env.size) {
        free(bytes);
        return mgpu_fail(MGPU_ERR_INTERNAL, "bootstrap all-gather #%llu came back with %zu bytes, expected %zu",
                         (unsigned long long)seq, got, len * (size_t)w->env.size);
    }
    memcpy(all, bytes, got);
    free(bytes);
    return MGPU_OK;
}

/*--- Accessors ------------------------------------------------------------*/

int mgpu_worker_rank(const mgpu_worker *w) { return w->env.rank; }
int mgpu_worker_size(const mgpu_worker *w) { return w->env.size; }
int mgpu_worker_local_rank(const mgpu_worker *w) { return w->env.local_rank; }
int mgpu_worker_device(const mgpu_worker *w) { return w->device; }
mgpu_backend *mgpu_worker_backend(mgpu_worker *w) { return w->be; }
const mgpu_bootstrap *mgpu_worker_bootstrap(mgpu_worker *w) { return &w->bs; }
double mgpu_worker_timeout_s(const mgpu_worker *w) { return w->timeout_s; }

mgpu_result mgpu_worker_world(mgpu_worker *w, mgpu_comm **out)
{
    if (!w->world) {
        mgpu_comm_config cc = {.device = w->device, .blocking = 1, .timeout_s = w->timeout_s, .name = "world"};
        MGPU_CHECK(mgpu_comm_init(w->be, &w->bs, &cc, &w->world));
    }
    *out = w->world;
    return MGPU_OK;
}

/*--- Main -----------------------------------------------------------------*/

static mgpu_result open_job(mgpu_worker *w, const mgpu_job_handler *const *jobs, json_t *job,
                            const mgpu_job_handler **h, json_t **params)
{
    const char *type = json_string_value(json_object_get(job, "job"));
    json_t *b = json_object_get(job, "backend");
    const char *kind = json_string_value(json_object_get(b, "kind"));
    w->timeout_s = json_number_value(json_object_get(job, "timeout_s"));
    if (w->timeout_s <= 0) w->timeout_s = 60;
    if (!(*h = mgpu_job_find(jobs, type)))
        return mgpu_fail(MGPU_ERR_INVALID, "this worker has no job type '%s' (a different mgpulab build?)",
                         type ? type : "(none)");
    *params = json_object_get(job, "params");
    mgpu_backend_config bc = {.machine = json_string_value(json_object_get(b, "machine")),
                              .fault = json_string_value(json_object_get(b, "fault"))};
    MGPU_CHECK(mgpu_backend_kind_parse(kind ? kind : "auto", &bc.kind));
    MGPU_CHECK(mgpu_backend_open(&bc, &w->be));
    int n = 0;
    MGPU_CHECK(mgpu_device_count(w->be, &n));
    if (n <= 0) return mgpu_fail(MGPU_ERR_NO_DEVICE, "rank %d sees no device on %s", w->env.rank, mgpu_backend_name(w->be));
    w->device = w->env.local_rank % n;
    return MGPU_OK;
}

static mgpu_result hello(mgpu_worker *w, const char *token)
{
    char host[256] = "?";
    gethostname(host, sizeof host - 1);
    return send_msg(w, json_pack("{s:s, s:i, s:i, s:i, s:I, s:s, s:s}", "type", "hello", "rank", w->env.rank, "size",
                                 w->env.size, "local_rank", w->env.local_rank, "pid", (json_int_t)getpid(), "host",
                                 host, "token", token));
}

static void report_error(mgpu_worker *w)
{
    json_t *body = json_pack("{s:s, s:s, s:s}", "message", mgpu_error_message(), "trail", mgpu_error_trail(), "code",
                             mgpu_result_name(mgpu_error_code()));
    if (!w->aborted && !w->flight_sent) send_flight(w); /* first, so the coordinator has it with the error; on abort, sent already */
    if (body) mgpu_worker_send(w, "error", body);
    json_decref(body);
}

/* The process set up as a rank and its worker state, or NULL. */
static mgpu_worker *worker_new(void)
{
    /* Under mpirun/srun our parent is their daemon: die with it - by
     * SIGTERM, whose cleanup handler removes what this rank made in
     * /dev/shm (SIGKILL left a sim segment half made). */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    signal(SIGPIPE, SIG_IGN);
    /* stdout may be a pipe the coordinator reads line by line (captured
     * output): whole lines as they are written (NCCL's INFO lines too, which
     * go through this FILE), and nothing lost in a buffer at _exit. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* the sim's copies and collectives report their modelled load into the
     * coordinator's telemetry table (MGPU_TELEMETRY), if it made one */
    mgpu_link_load_set_hook(mgpu_telemetry_publish);
    mgpu_worker *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->fd = w->stop_pipe[0] = w->stop_pipe[1] = -1;
    pthread_mutex_init(&w->lock, NULL);
    pthread_mutex_init(&w->send_lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    return w;
}

int mgpu_worker_main(int argc, char **argv, const mgpu_job_handler *const *jobs)
{
    (void)argc;
    (void)argv;
    mgpu_worker *w = worker_new();
    if (!w) return 1;
    int rc = 1, connected = 0, io = 0;
    json_t *job = NULL;
    const char *coord = getenv("MGPU_COORD"), *token = getenv("MGPU_TOKEN");
    if (mgpu_rank_env_detect(&w->env) != MGPU_OK) goto usage;
    if (!coord || !*coord || !token || !*token) {
        mgpu_fail(MGPU_ERR_INVALID, "MGPU_COORD and MGPU_TOKEN are not set: `mgpulab worker` is started by a "
                                    "coordinator (mgpulab bench/spmd --launcher ...), not by hand");
        goto usage;
    }
    w->bs = (mgpu_bootstrap){.ctx = w, .rank = w->env.rank, .size = w->env.size, .allgather = ag_through_coord};
    /* A coordinator crowded by strangers on its port closes the one that
     * waited longest without a hello; should that be this rank (its hello
     * not read in time on a loaded machine), connect again. */
    mgpu_result got = MGPU_ERR_IO;
    for (int attempt = 1; attempt <= HELLO_ATTEMPTS && got == MGPU_ERR_IO; attempt++) {
        if (attempt > 1) {
            close(w->fd);
            w->fd = -1;
            usleep(100000u * (unsigned)attempt);
        }
        if (connect_coord(coord, &w->fd) != MGPU_OK || hello(w, token) != MGPU_OK) goto fatal;
        got = mgpu_proto_recv(w->fd, 60000, &job);
    }
    connected = 1;
    if (got != MGPU_OK) {
        /* nothing can be reported over a connection that is gone: say it
         * here, where the coordinator shows a rank's output */
        fprintf(stderr, "mgpulab worker (rank %d): the coordinator sent no job after this rank's hello (%s%s)\n",
                w->env.rank, mgpu_error_message(),
                got == MGPU_ERR_IO ? "; it closed the connection each time: a refused hello, or a port crowded "
                                     "by other connections" : "");
        rc = 1;
        goto out;
    }
    if (strcmp(mgpu_proto_type(job), "job") != 0) goto out; /* abort before the start: nothing to report */
    if (pipe2(w->stop_pipe, O_CLOEXEC) < 0 || pthread_create(&w->io, NULL, io_main, w) != 0) {
        mgpu_fail(MGPU_ERR_IO, "rank %d could not start its I/O thread", w->env.rank);
        goto fatal;
    }
    io = 1;
    const mgpu_job_handler *h = NULL;
    json_t *params = NULL;
    mgpu_result r = open_job(w, jobs, job, &h, &params);
    if (r == MGPU_OK) r = h->run(w, params);
    if (r == MGPU_OK) r = mgpu_comm_check_all(); /* an asynchronous failure is still a failure */
    if (r == MGPU_OK) {
        /* Every rank's record reaches the analyser, also one whose side of a
         * mismatch "completed" (a broadcast can, while its peers hang). */
        send_flight(w);
        w->flight_sent = 1;
    }
    if (r == MGPU_OK && w->world) {
        r = mgpu_comm_destroy(w->world);
        w->world = NULL;
    }
    if (r != MGPU_OK) goto fatal;
    rc = mgpu_worker_send(w, "done", NULL) == MGPU_OK ? 0 : 1;
    goto out;
usage:
    fprintf(stderr, "mgpulab worker: %s\n", mgpu_error_message());
    rc = 2;
    goto out;
fatal:
    if (connected) report_error(w);
    else fprintf(stderr, "mgpulab worker (rank %d): %s\n", w->env.rank, mgpu_error_message());
    rc = 1;
out:
    if (io) {
        ssize_t k = write(w->stop_pipe[1], "x", 1);
        (void)k;
        pthread_join(w->io, NULL);
    }
    /* A failed job's communicators may be wedged: exit without tearing
     * them down (the coordinator has what it needs). */
    if (rc != 0) gone(rc);
    if (w->be) mgpu_backend_close(w->be);
    if (w->fd >= 0) close(w->fd);
    if (w->stop_pipe[0] >= 0) close(w->stop_pipe[0]), close(w->stop_pipe[1]);
    json_decref(job);
    json_decref(w->ag_reply);
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->lock);
    pthread_mutex_destroy(&w->send_lock);
    free(w);
    return rc;
}
