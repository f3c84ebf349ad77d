/* runner_child.c - the step runner's child, `mgpulab __lab-runner` (see
 * runner.c for the parent and the protocol): it opens the labs the parent
 * names, runs each step it is sent with the caller's catalog code
 * (mgpu_lab_run_step, in-process here) and sends the step's events and its
 * verdict back. A cancel is SIGUSR1 carrying the step's number, or Ctrl-C. */
#include "lab/lab_internal.h"
#include "lab/runner_wire.h"
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *watch_parent(void *arg)
{
    pid_t parent = *(pid_t *)arg;
    while (getppid() == parent) usleep(200000);
    kill(getpid(), SIGTERM); /* the cleanup handler's paths go, then the process */
    return NULL;
}

/* The parent's cancel names its step (cancel_seq): a cancel that comes
 * before the child read that step cancels it as it starts, one for a step
 * already over does not touch the next. Ctrl-C at the terminal cancels the
 * step running now. */
static volatile int child_cancel;
static volatile sig_atomic_t step_seq, cancel_seq = -1;
static void on_cancel(int sig, siginfo_t *info, void *uc)
{
    (void)uc;
    if (sig == SIGUSR1 && info->si_code == SI_QUEUE) {
        cancel_seq = info->si_value.sival_int;
        if (cancel_seq == step_seq) child_cancel = 1;
    } else {
        child_cancel = 1;
    }
}

static void ev_log(void *ctx, int rank, const char *line)
{
    (void)lab_wire_send(*(int *)ctx, json_pack("{s:{s:i, s:o}}", "log", "rank", rank, "line", lab_wire_str(line)));
}
static void ev_progress(void *ctx, double fraction, const char *what)
{
    (void)lab_wire_send(*(int *)ctx, json_pack("{s:{s:f, s:o}}", "progress", "fraction", fraction, "what", lab_wire_str(what)));
}
static void ev_result(void *ctx, const char *kind, json_t *doc)
{
    (void)lab_wire_send(*(int *)ctx, json_pack("{s:{s:o, s:O?}}", "result", "kind", lab_wire_str(kind), "doc", doc));
}
static void ev_span(void *ctx, json_t *span)
{
    if (span) (void)lab_wire_send(*(int *)ctx, json_pack("{s:O}", "span", span));
}

static mgpu_result child_open(json_t *m, mgpu_lab_catalog **cat)
{
    json_t *ids = json_object_get(m, "ids");
    size_t n = json_array_size(ids);
    const char **only = calloc(n + 1, sizeof *only);
    if (!only) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) only[i] = json_string_value(json_array_get(ids, i));
    mgpu_result r = mgpu_lab_catalog_open_selected(lab_wire_get(m, "labs") ?: "", lab_wire_get(m, "checks") ?: "",
                                                   lab_wire_get(m, "state") ?: "", only, (int)n, cat);
    free(only);
    return r;
}

static void child_step(int fd, mgpu_lab_catalog *cat, json_t *m)
{
    mgpu_lab_env env;
    memset(&env, 0, sizeof env);
    env.backend.kind = (mgpu_backend_kind)json_integer_value(json_object_get(m, "kind"));
    env.backend.machine = lab_wire_get(m, "machine");
    env.backend.fault = lab_wire_get(m, "fault");
    env.backend.alloc_conf = lab_wire_get(m, "alloc_conf");
    env.launcher = lab_wire_get(m, "launcher");
    env.ranks = (int)json_integer_value(json_object_get(m, "ranks"));
    env.timeout_s = json_number_value(json_object_get(m, "timeout_s"));
    env.cancel_stops_process_s = json_number_value(json_object_get(m, "cancel_stops_process_s"));
    env.check_only = json_is_true(json_object_get(m, "check_only"));
    env.instructor_rerun = json_is_true(json_object_get(m, "instructor_rerun"));
    json_t *extra = json_object_get(m, "extra_env");
    size_t ne = json_array_size(extra);
    const char **ee = calloc(ne + 1, sizeof *ee);
    for (size_t i = 0; ee && i < ne; i++) ee[i] = json_string_value(json_array_get(extra, i));
    env.extra_env = ne && ee ? ee : NULL;
    /* the number first: a cancel that lands in between sees it */
    step_seq = (int)json_integer_value(json_object_get(m, "seq"));
    child_cancel = cancel_seq == step_seq;
    env.cancel = &child_cancel;
    json_t *want = json_object_get(m, "events");
    static int sock;
    sock = fd;
    env.events.ctx = &sock;
    if (json_is_true(json_object_get(want, "log"))) env.events.log = ev_log;
    if (json_is_true(json_object_get(want, "progress"))) env.events.progress = ev_progress;
    if (json_is_true(json_object_get(want, "result"))) env.events.result = ev_result;
    if (json_is_true(json_object_get(want, "span"))) env.events.span = ev_span;
    /* the language the caller speaks now (the shell switches at run time) */
    mgpu_lang lang;
    if (mgpu_lang_parse(lab_wire_get(m, "lang"), &lang) == 0) mgpu_lab_catalog_set_lang(cat, lang);
    /* what the caller saved since (answers, hints) counts in this run */
    if (lab_progress_refresh(&cat->progress) != MGPU_OK) mgpu_error_clear();
    lab_sync_all_progress(cat);
    mgpu_lab_verdict v;
    mgpu_result rc = mgpu_lab_run_step(cat, (int)json_integer_value(json_object_get(m, "lab")),
                                       (int)json_integer_value(json_object_get(m, "step")), &env, &v);
    json_t *done = json_pack("{s:i, s:o}", "rc", rc, "verdict", lab_verdict_to_json(&v));
    if (rc != MGPU_OK) json_object_set_new(done, "error", lab_wire_str(mgpu_error_message()));
    (void)lab_wire_send(fd, json_pack("{s:o}", "done", done));
    mgpu_lab_verdict_clear(&v);
    free(ee);
}

int mgpu_lab_runner_main(void)
{
    int fd = RUNNER_FD;
    /* a Ctrl-C at the terminal reaches the whole group: here it cancels the
     * step, as the parent's SIGUSR1 does; the parent decides what ends */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_cancel;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigset_t cancels;
    sigemptyset(&cancels);
    sigaddset(&cancels, SIGUSR1);
    sigaddset(&cancels, SIGINT);
    sigprocmask(SIG_UNBLOCK, &cancels, NULL);
    /* the caller gone (killed, crashed): this child too, as the caller's
     * own signal would have taken the step with it. (PR_SET_PDEATHSIG
     * fires when the thread that started the child ends: the shell's work
     * thread does after every step.) */
    static pid_t parent;
    parent = getppid();
    pthread_t watch;
    if (pthread_create(&watch, NULL, watch_parent, &parent) == 0) pthread_detach(watch);
    /* the parent's language before the catalog opens (its *_local texts) */
    mgpu_lang lang;
    if (mgpu_lang_parse(getenv("MGPU_LANG"), &lang) == 0) mgpu_lang_set(lang);
    mgpu_lab_catalog *cat = NULL;
    line_buf in = {0};
    int status = 0;
    while (!in.eof) {
        size_t len;
        char *l = lab_line_next(&in, &len);
        if (!l) {
            struct pollfd p = {.fd = fd, .events = POLLIN};
            if (poll(&p, 1, -1) < 0 && errno != EINTR) break;
            if (p.revents) lab_line_fill(&in, fd);
            continue;
        }
        json_t *m = json_loadb(l, len, 0, NULL);
        lab_line_take(&in, len);
        const char *cmd = lab_wire_get(m, "cmd");
        if (cmd && strcmp(cmd, "open") == 0 && !cat) {
            if (child_open(m, &cat) != MGPU_OK) {
                fprintf(stderr, "mgpulab: the step runner could not open the labs: %s\n", mgpu_error_message());
                status = 1;
                json_decref(m);
                break;
            }
        } else if (cmd && strcmp(cmd, "step") == 0 && cat) {
            child_step(fd, cat, m);
        }
        json_decref(m);
    }
    free(in.p);
    mgpu_lab_catalog_close(cat);
    return status;
}
