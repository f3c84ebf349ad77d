/* runner.c - a catalog's steps run in a child process (mgpu_lab_catalog_isolate),
 * so that a step stuck where its time budget cannot reach it (a string
 * pattern backtracking inside C, which only the runaway watch can stop, by
 * ending the process) takes the child down and not the shell: the caller's
 * step ends with an error verdict that says what happened, the attempt is
 * recorded, and the next step starts a new child.
 *
 * The child is this program again (`mgpulab __lab-runner`, a clean process:
 * no threads or locks of the shell's come with it). It opens the same labs
 * and keeps their states from step to step, as the caller's own catalog did
 * (a kept run that an answer judges again). Lines of JSON go both ways over
 * a socket (fd 3 in the child): the parent sends "open" and then one "step"
 * with the step's environment per run; the child sends the step's events
 * (log, progress, result, span) and then "done" with the verdict. The
 * child's stdout and stderr come to the parent on a pipe: the runaway
 * watch's last words become the verdict of a step whose child died. A
 * cancel reaches the child as SIGUSR1 carrying the step's number (one
 * that comes before the child read the step cancels it as it starts; one
 * for a step already over touches no other); a cancel the child does not
 * answer within CANCEL_GRACE_S stops it (SIGTERM, then SIGKILL). Progress
 * goes through the file, as between any two commands: the child saves the
 * step, the parent reads it back.
 *
 * This file is the parent's side; the child's is runner_child.c, and what
 * both ends speak (lines of JSON, the verdict as JSON) is runner_wire.c. */
#include "lab/lab_internal.h"
#include "lab/runner_wire.h"
#include "mgpu/clock.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* A cancel the child does not act on within this long stops it. */
#define CANCEL_GRACE_S 5.0
/* and one that SIGTERM does not end within this long is killed */
#define TERM_GRACE_S 2.0
/* A child whose channel closed is given this long to exit (and its output
 * to end) before it is killed. */
#define EXIT_WAIT_S 2.0
/* An idle child asked to end gets this long (a sanitizer's leak report at
 * its exit takes a while). */
#define CLOSE_WAIT_S 30.0

struct lab_runner {
    pid_t pid;
    int seq;             /* the step's number, which its cancel carries */
    int sock;            /* commands out, events in */
    int err;             /* the child's stdout and stderr */
};


static void runner_stop(lab_runner *r, int kill_it)
{
    if (!r) return;
    if (r->sock >= 0) close(r->sock);
    if (r->err >= 0) close(r->err);
    if (r->pid > 0) {
        if (kill_it) kill(r->pid, SIGKILL);
        int st;
        while (waitpid(r->pid, &st, 0) < 0 && errno == EINTR) {}
    }
    free(r);
}

/* The idle child's end: its channel closes and it exits. What it says on
 * the way out (a sanitizer's leak report) goes to this process's stderr,
 * and an exit that is not clean is said there; under the sanitizers this
 * process then aborts as the child did, so that a leak or error in a
 * step's code fails the command as it did when steps ran in-process. */
void lab_runner_close(mgpu_lab_catalog *cat)
{
    lab_runner *r = cat->runner;
    cat->runner = NULL;
    if (!r) return;
    close(r->sock);
    r->sock = -1;
    char buf[4096];
    uint64_t until = mgpu_now_ns() + (uint64_t)(CLOSE_WAIT_S * 1e9);
    struct pollfd p = {.fd = r->err, .events = POLLIN};
    for (;;) {
        uint64_t now = mgpu_now_ns();
        if (now >= until || poll(&p, 1, (int)((until - now) / 1000000) + 1) <= 0) break;
        ssize_t n = read(r->err, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        ssize_t w = write(2, buf, (size_t)n);
        (void)w;
    }
    int status = 0;
    pid_t w = 0;
    while ((w = waitpid(r->pid, &status, WNOHANG)) == 0 && mgpu_now_ns() < until) usleep(20000);
    if (w == 0) { /* still busy after its channel closed: stopped */
        kill(r->pid, SIGKILL);
        while (waitpid(r->pid, &status, 0) < 0 && errno == EINTR) {}
    } else if (w == r->pid && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        if (WIFEXITED(status)) fprintf(stderr, "mgpulab: the step runner ended with exit status %d\n", WEXITSTATUS(status));
        else if (WIFSIGNALED(status)) fprintf(stderr, "mgpulab: the step runner ended by signal %d\n", WTERMSIG(status));
#ifdef __SANITIZE_ADDRESS__
        abort();
#endif
    }
    r->pid = 0;
    runner_stop(r, 0);
}

mgpu_result mgpu_lab_catalog_isolate(mgpu_lab_catalog *cat, const char *exe)
{
    if (!cat) return mgpu_fail(MGPU_ERR_INVALID, "no catalog");
    char self[PATH_MAX];
    if (!exe) {
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0) return mgpu_fail(MGPU_ERR_IO, "cannot find this program to run steps in: %s", strerror(errno));
        self[n] = '\0';
        exe = self;
    }
    if (strlen(exe) >= sizeof cat->runner_exe) return mgpu_fail(MGPU_ERR_INVALID, "program path too long");
    snprintf(cat->runner_exe, sizeof cat->runner_exe, "%s", exe);
    return MGPU_OK;
}

static mgpu_result runner_start(mgpu_lab_catalog *cat, lab_runner **out)
{
    *out = NULL;
    int sv[2], ep[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return mgpu_fail(MGPU_ERR_IO, "cannot start the step runner: %s", strerror(errno));
    if (pipe2(ep, O_CLOEXEC) != 0) {
        int e = errno;
        close(sv[0]), close(sv[1]);
        return mgpu_fail(MGPU_ERR_IO, "cannot start the step runner: %s", strerror(e));
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, ep[1], 1);
    posix_spawn_file_actions_adddup2(&fa, ep[1], 2);
    posix_spawn_file_actions_adddup2(&fa, sv[1], RUNNER_FD);
    /* a signal mask or ignored signals of the caller's thread are not the child's */
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    /* a cancel or Ctrl-C before the child set up its handler waits for it
     * rather than killing it (SIGUSR1's default action) */
    sigaddset(&none, SIGUSR1);
    sigaddset(&none, SIGINT);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &all);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    char *argv[] = {cat->runner_exe, "__lab-runner", NULL};
    /* the child speaks the caller's language from the start (its catalog's
     * texts); each step then names the language current at that moment */
    size_t nenv = 0;
    while (environ[nenv]) nenv++;
    char **envp = calloc(nenv + 2, sizeof *envp);
    char lang_var[32];
    snprintf(lang_var, sizeof lang_var, "MGPU_LANG=%s", mgpu_lang_name(mgpu_lang_get()));
    size_t ne = 0;
    for (size_t i = 0; envp && i < nenv; i++)
        if (strncmp(environ[i], "MGPU_LANG=", 10) != 0) envp[ne++] = environ[i];
    if (envp) envp[ne] = lang_var;
    pid_t pid = 0;
    int rc = envp ? posix_spawn(&pid, cat->runner_exe, &fa, &at, argv, envp) : ENOMEM;
    free(envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(sv[1]);
    close(ep[1]);
    if (rc != 0) {
        close(sv[0]), close(ep[0]);
        return mgpu_fail(MGPU_ERR_IO, "cannot start the step runner %s: %s", cat->runner_exe, strerror(rc));
    }
    lab_runner *r = calloc(1, sizeof *r);
    if (!r) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        close(sv[0]), close(ep[0]);
        return mgpu_fail(MGPU_ERR_NOMEM, "out of memory");
    }
    r->pid = pid;
    r->sock = sv[0];
    r->err = ep[0];
    json_t *ids = json_array();
    for (int i = 0; i < cat->nlabs; i++) json_array_append_new(ids, lab_wire_str(cat->labs[i].info.id));
    mgpu_result res = lab_wire_send(r->sock, json_pack("{s:s, s:s, s:s, s:s, s:o}", "cmd", "open", "labs", cat->labs_dir,
                                                   "checks", cat->checks_dir, "state", cat->state_dir, "ids", ids));
    if (res != MGPU_OK) {
        runner_stop(r, 1);
        return res;
    }
    *out = r;
    return MGPU_OK;
}

static json_t *env_json(int seq, int lab, int step, const mgpu_lab_env *env)
{
    json_t *extra = json_array();
    for (const char *const *e = env->extra_env; e && *e; e++) json_array_append_new(extra, lab_wire_str(*e));
    json_t *o = json_pack("{s:s, s:i, s:i, s:i, s:i, s:f, s:f, s:b, s:b, s:o}", "cmd", "step", "lab", lab, "step", step,
                          "kind", env->backend.kind, "ranks", env->ranks, "timeout_s", env->timeout_s,
                          "cancel_stops_process_s", env->cancel_stops_process_s, "check_only", env->check_only,
                          "instructor_rerun", env->instructor_rerun, "extra_env", extra);
    if (!o) return NULL;
    json_object_set_new(o, "seq", json_integer(seq));
    json_object_set_new(o, "lang", lab_wire_str(mgpu_lang_name(mgpu_lang_get())));
    if (env->backend.machine) json_object_set_new(o, "machine", lab_wire_str(env->backend.machine));
    if (env->backend.fault) json_object_set_new(o, "fault", lab_wire_str(env->backend.fault));
    if (env->backend.alloc_conf) json_object_set_new(o, "alloc_conf", lab_wire_str(env->backend.alloc_conf));
    if (env->launcher) json_object_set_new(o, "launcher", lab_wire_str(env->launcher));
    json_object_set_new(o, "events", json_pack("{s:b, s:b, s:b, s:b}", "log", env->events.log != NULL, "progress",
                                               env->events.progress != NULL, "result", env->events.result != NULL,
                                               "span", env->events.span != NULL));
    return o;
}

/* One event of the child's step, handed to the caller's callbacks. */
static void dispatch(const mgpu_lab_events *ev, json_t *m)
{
    json_t *x;
    if ((x = json_object_get(m, "log")) && ev->log)
        ev->log(ev->ctx, (int)json_integer_value(json_object_get(x, "rank")), lab_wire_get(x, "line") ?: "");
    else if ((x = json_object_get(m, "progress")) && ev->progress)
        ev->progress(ev->ctx, json_number_value(json_object_get(x, "fraction")), lab_wire_get(x, "what") ?: "");
    else if ((x = json_object_get(m, "result")) && ev->result)
        ev->result(ev->ctx, lab_wire_get(x, "kind") ?: "", json_object_get(x, "doc"));
    else if ((x = json_object_get(m, "span")) && ev->span)
        ev->span(ev->ctx, x);
}

/* The child's output: each line to the log (the lab's, rank -1), the last
 * one kept: the reason the child gives when it stops itself. */
static void child_output(const mgpu_lab_events *ev, line_buf *b, char *last, size_t last_len, int flush)
{
    size_t len;
    char *l;
    while ((l = lab_line_next(b, &len))) {
        if (len) {
            snprintf(last, last_len, "%s", l);
            if (ev->log) ev->log(ev->ctx, -1, l);
            else fprintf(stderr, "%s\n", l);
        }
        lab_line_take(b, len);
    }
    if (flush && b->n) {
        b->p[b->n] = '\0';
        snprintf(last, last_len, "%s", b->p);
        if (ev->log) ev->log(ev->ctx, -1, b->p);
        else fprintf(stderr, "%s\n", b->p);
        b->n = 0;
    }
}

/* The child ended without a verdict: say what happened. */
static void death_verdict(int status, int cancelled, int killed, const char *last, mgpu_lab_verdict *out)
{
    char why[1024];
    snprintf(why, sizeof why, "%s", strncmp(last, "mgpulab: ", 9) == 0 ? last + 9 : last);
    char *tail = strstr(why, "; stopping this process"); /* the runaway watch's words for its own process */
    if (tail) *tail = '\0';
    char how[96];
    if (WIFEXITED(status)) snprintf(how, sizeof how, "exit status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status)) snprintf(how, sizeof how, "signal %d", WTERMSIG(status));
    else snprintf(how, sizeof how, "status %d", status);
    out->state = cancelled ? MGPU_STEP_CANCELLED : MGPU_STEP_ERROR;
    if (killed)
        snprintf(out->message, sizeof out->message,
                 "cancelled: the step did not stop within %g s of the cancel (stuck where its Lua cannot be "
                 "interrupted), so its process was stopped",
                 CANCEL_GRACE_S);
    else if (why[0])
        snprintf(out->message, sizeof out->message, "the step did not finish: its process stopped (%s): %.800s", how,
                 why);
    else
        snprintf(out->message, sizeof out->message, "the step did not finish: its process stopped (%s)", how);
    snprintf(out->traceback, sizeof out->traceback, "%s", last);
}

mgpu_result lab_runner_step(mgpu_lab_catalog *cat, int lab, int step, const mgpu_lab_env *env, mgpu_lab_verdict *out,
                            int *died)
{
    *died = 0;
    if (!cat->runner) MGPU_CHECK(runner_start(cat, &cat->runner));
    lab_runner *r = cat->runner;
    json_t *cmd = env_json(++r->seq, lab, step, env);
    if (!cmd || lab_wire_send(r->sock, cmd) != MGPU_OK) {
        /* a child that went away since the last step: a new one */
        runner_stop(r, 1);
        cat->runner = NULL;
        MGPU_CHECK(runner_start(cat, &cat->runner));
        r = cat->runner;
        if (lab_wire_send(r->sock, env_json(++r->seq, lab, step, env)) != MGPU_OK) {
            runner_stop(r, 1);
            cat->runner = NULL;
            return mgpu_fail(MGPU_ERR_IO, "the step runner did not take the step: %s", mgpu_error_message());
        }
    }
    line_buf in = {0}, err = {0};
    char last[1024] = "";
    int cancel_sent = 0, killed = 0, done = 0;
    uint64_t cancel_at = 0;
    mgpu_result rc = MGPU_OK;
    while (!done && !in.eof) {
        if (env->cancel && *env->cancel && !cancel_sent) {
            sigqueue(r->pid, SIGUSR1, (union sigval){.sival_int = r->seq});
            cancel_sent = 1;
            cancel_at = mgpu_now_ns();
        }
        /* SIGTERM first: the child's cleanup handler removes what it made
         * in shared places (a coordinator's socket, /dev/shm tables);
         * SIGKILL when even that does not end it */
        if (cancel_sent && killed < 2 &&
            mgpu_now_ns() - cancel_at > (uint64_t)((CANCEL_GRACE_S + killed * TERM_GRACE_S) * 1e9)) {
            kill(r->pid, killed ? SIGKILL : SIGTERM);
            killed++;
        }
        struct pollfd p[2] = {{.fd = r->sock, .events = POLLIN}, {.fd = err.eof ? -1 : r->err, .events = POLLIN}};
        if (poll(p, 2, 100) < 0 && errno != EINTR) break;
        if (p[1].revents) {
            lab_line_fill(&err, r->err);
            child_output(&env->events, &err, last, sizeof last, 0);
        }
        if (!p[0].revents) continue;
        lab_line_fill(&in, r->sock);
        size_t len;
        char *l;
        while (!done && (l = lab_line_next(&in, &len))) {
            json_t *m = json_loadb(l, len, 0, NULL);
            json_t *d = json_object_get(m, "done");
            if (d) {
                done = 1;
                rc = (mgpu_result)json_integer_value(json_object_get(d, "rc"));
                if (rc != MGPU_OK) mgpu_fail(rc, "%s", lab_wire_get(d, "error") ?: "the step runner failed");
                lab_verdict_from_json(json_object_get(d, "verdict"), out);
            } else if (m) {
                dispatch(&env->events, m);
            }
            json_decref(m);
            lab_line_take(&in, len);
        }
    }
    free(in.p);
    if (done) {
        /* what the child's output still holds (it ran on) */
        struct pollfd p = {.fd = r->err, .events = POLLIN};
        while (!err.eof && poll(&p, 1, 0) > 0 && lab_line_fill(&err, r->err)) {}
        child_output(&env->events, &err, last, sizeof last, 1);
        free(err.p);
        return rc;
    }
    /* the child is gone (or stopped): its last words, then its status.
     * Bounded: a process it started may hold the pipe open a moment longer
     * (its workers die with it, but not in the same instant). */
    uint64_t until = mgpu_now_ns() + (uint64_t)(EXIT_WAIT_S * 1e9);
    struct pollfd ep = {.fd = r->err, .events = POLLIN};
    while (!err.eof && mgpu_now_ns() < until && poll(&ep, 1, 100) >= 0)
        if (ep.revents) lab_line_fill(&err, r->err);
    child_output(&env->events, &err, last, sizeof last, 1);
    free(err.p);
    /* a child whose channel closed is exiting: it gets as long to be gone
     * before it is killed (its status says how it ended) */
    int status = 0;
    pid_t w = 0;
    while (r->pid > 0 && (w = waitpid(r->pid, &status, WNOHANG)) == 0 && mgpu_now_ns() < until) usleep(20000);
    if (r->pid > 0 && w == 0) {
        kill(r->pid, SIGKILL); /* its channel broke but it lives on */
        killed = killed || cancel_sent;
        while (waitpid(r->pid, &status, 0) < 0 && errno == EINTR) {}
    }
    r->pid = 0;
    runner_stop(r, 0);
    cat->runner = NULL;
    death_verdict(status, cancel_sent, killed, last, out);
    *died = 1;
    return MGPU_OK;
}
