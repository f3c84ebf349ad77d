/* test_rt_cancel.c - the caller's cancel flag ends a long run within about a
 * second with "cancelled by the user" and no process left; captured output
 * arrives line by line with the rank that wrote it, and none of it reaches
 * the coordinator's own stdout/stderr (sim backend, local and emulate). */
#include <pthread.h>
#include <sys/stat.h>
#include "rt/capture.h"
#include "test_rt_common.h"

typedef struct canceller {
    volatile int flag;
    double after_s;
    uint64_t set_ns;
} canceller;

static void *cancel_later(void *arg)
{
    canceller *k = arg;
    usleep((useconds_t)(k->after_s * 1e6));
    k->set_ns = mgpu_now_ns();
    k->flag = 1;
    return NULL;
}

static mgpu_result run_cfg(mgpu_launcher launcher, int ranks, const char *params_json, volatile int *cancel,
                           int capture, mgpu_rt_on_msg on_msg, void *ctx, mgpu_rt_report *rep)
{
    static int serial;
    snprintf(rt_marker_env, sizeof rt_marker_env, "MGPU_TEST_MARKER=rtc-%d-%d", (int)getpid(), ++serial);
    const char *extra[] = {rt_marker_env, NULL};
    mgpu_rt_config cfg = {.jobs = mgpu_jobs, .launcher = launcher,
                          .ranks = ranks,
                          .backend = {.kind = MGPU_BACKEND_SIM, .machine = "dgx-h100"},
                          .timeout_s = 30,
                          .self_exe = MGPU_BINARY_DIR "/mgpulab",
                          .extra_env = extra,
                          .cancel = cancel,
                          .capture_output = capture};
    json_t *params = json_loads(params_json, 0, NULL);
    mgpu_result r = mgpu_rt_run(&cfg, "selftest", params, on_msg, ctx, rep);
    json_decref(params);
    return r;
}

static void test_cancel(const char *what, const char *params, double after_s)
{
    canceller k = {.after_s = after_s};
    pthread_t th;
    pthread_create(&th, NULL, cancel_later, &k);
    rt_capture cap = {0};
    mgpu_rt_report rep;
    CHECK_OK(run_cfg(MGPU_LAUNCH_LOCAL, 3, params, &k.flag, 0, rt_capture_msg, &cap, &rep));
    uint64_t end = mgpu_now_ns();
    pthread_join(th, NULL);
    double after = (double)(end - k.set_ns) / 1e9;
    CHECKF(!rep.ok, "%s: a cancelled run was reported ok", what);
    CHECKF(rep.failed_rank == -1, "%s: failed_rank %d, expected -1", what, rep.failed_rank);
    CHECKF(strcmp(rep.reason, "cancelled by the user") == 0, "%s: reason '%s'", what, rep.reason);
    CHECKF(after < 1.5, "%s: the run ended %.2f s after the cancel", what, after);
    CHECKF(cap.dones == 0, "%s: %d ranks finished a cancelled job", what, cap.dones);
    int left = rt_leftovers();
    CHECKF(left == 0, "%s: %d worker processes left behind", what, left);
    printf("# %s: ended %.2f s after the cancel (wall %.2f s)\n", what, after, rep.wall_s);
    rt_capture_free(&cap);
}

/*--- Output capture ----------------------------------------------------*/

typedef struct lines {
    int out[RT_MAX_RANKS], err[RT_MAX_RANKS], wrong, other;
} lines;

static void on_line_msg(void *ctx, const mgpu_rt_msg *m)
{
    lines *l = ctx;
    const char *line = json_string_value(json_object_get(m->body, "line"));
    const char *stream = json_string_value(json_object_get(m->body, "stream"));
    if (strcmp(m->type, "log") != 0 || !line) return;
    int r = -1;
    char which[16] = "";
    if (sscanf(line, "selftest: rank %d on %15s", &r, which) != 2) {
        l->other++;
        return;
    }
    /* the rank in the text is the writer's own: it must match the message's */
    if (r != m->rank || r < 0 || r >= RT_MAX_RANKS || strcmp(which, stream ? stream : "?") != 0) {
        l->wrong++;
        return;
    }
    if (strcmp(which, "stdout") == 0) l->out[r]++;
    else l->err[r]++;
}

/* Our own stdout and stderr point at files for the run, so anything that
 * slipped past the pipes is seen. */
static void test_capture(mgpu_launcher launcher, const char *name, int ranks)
{
    char path[] = "/tmp/mgpu-capture-XXXXXX";
    int fd = mkstemp(path);
    fflush(stdout);
    fflush(stderr);
    int save_out = dup(1), save_err = dup(2);
    dup2(fd, 1);
    dup2(fd, 2);
    lines l = {0};
    mgpu_rt_report rep;
    mgpu_result r = run_cfg(launcher, ranks, "{\"action\": \"print\"}", NULL, 1, on_line_msg, &l, &rep);
    fflush(stdout);
    fflush(stderr);
    dup2(save_out, 1);
    dup2(save_err, 2);
    close(save_out);
    close(save_err);
    struct stat st;
    fstat(fd, &st);
    close(fd);
    unlink(path);
    CHECKF(r == MGPU_OK && rep.ok, "%s: the print run failed: %s", name, r == MGPU_OK ? rep.reason : mgpu_error_message());
    for (int k = 0; k < ranks; k++)
        CHECKF(l.out[k] == 1 && l.err[k] == 1, "%s: rank %d: %d stdout and %d stderr lines, expected 1 and 1", name, k,
               l.out[k], l.err[k]);
    CHECKF(l.wrong == 0, "%s: %d lines arrived with the wrong rank or stream", name, l.wrong);
    CHECKF(st.st_size == 0, "%s: %lld bytes reached the coordinator's terminal", name, (long long)st.st_size);
    printf("# %s: %d ranks' lines captured (%d other lines)\n", name, ranks, l.other);
}

static void test_untagged_default(void)
{
    /* Without capture the workers inherit stdout: the lines do not come as messages. */
    lines l = {0};
    mgpu_rt_report rep;
    char path[] = "/tmp/mgpu-nocapture-XXXXXX";
    int fd = mkstemp(path);
    fflush(stdout);
    int save_out = dup(1), save_err = dup(2);
    dup2(fd, 1);
    dup2(fd, 2);
    mgpu_result r = run_cfg(MGPU_LAUNCH_LOCAL, 2, "{\"action\": \"print\"}", NULL, 0, on_line_msg, &l, &rep);
    dup2(save_out, 1);
    dup2(save_err, 2);
    close(save_out);
    close(save_err);
    char buf[4096] = "";
    ssize_t k = pread(fd, buf, sizeof buf - 1, 0);
    close(fd);
    unlink(path);
    CHECKF(r == MGPU_OK && rep.ok, "no capture: the run failed");
    CHECKF(l.out[0] + l.err[0] + l.out[1] + l.err[1] == 0, "no capture: lines came as messages");
    CHECKF(k > 0 && strstr(buf, "selftest: rank 1 on stdout"), "no capture: the workers' output is not where it was");
}

static void untag_case(mgpu_launcher kind, const char *line, int want_tag, int want_rank, const char *want_stream,
                       const char *want_text)
{
    const char *t = line, *stream = "stdout";
    size_t n = strlen(line);
    int rank = -1;
    int tagged = rt_untag(kind, &t, &n, &rank, &stream);
    CHECKF(tagged == want_tag && rank == want_rank && strcmp(stream, want_stream) == 0 && n == strlen(want_text) &&
               memcmp(t, want_text, n) == 0,
           "untag '%s': tagged %d rank %d stream %s text '%.*s'", line, tagged, rank, stream, (int)n, t);
}

int main(void)
{
    /* rank 0 sleeps, the others wait in an all-gather it never joins... */
    test_cancel("cancel while sleeping", "{\"action\": \"sleep\", \"rank\": -1, \"seconds\": 30}", 0.8);
    /* ... and a cancel at once, while the workers start */
    test_cancel("cancel at start", "{\"action\": \"sleep\", \"rank\": -1, \"seconds\": 30}", 0.0);
    test_capture(MGPU_LAUNCH_LOCAL, "local", 3);
    test_capture(MGPU_LAUNCH_EMULATE, "emulate", 2);
    test_untagged_default();
    /* a flag that stays 0 changes nothing */
    {
        rt_capture cap = {0};
        mgpu_rt_report rep;
        CHECK_OK(rt_run_selftest(MGPU_LAUNCH_LOCAL, 2, 30, "{\"action\": \"ok\"}", &cap, &rep));
        CHECKF(rep.ok && cap.dones == 2, "a run without cancel failed: %s", rep.reason);
        rt_capture_free(&cap);
    }

    /* the launchers' tags */
    untag_case(MGPU_LAUNCH_MPIRUN, "[1,3]<stderr>: hello", 1, 3, "stderr", "hello");
    untag_case(MGPU_LAUNCH_MPIRUN, "[7,12]<stdout>:NCCL INFO x", 1, 12, "stdout", "NCCL INFO x");
    untag_case(MGPU_LAUNCH_MPIRUN, "[1,3]<stdin>: no", 0, -1, "stdout", "[1,3]<stdin>: no");
    untag_case(MGPU_LAUNCH_MPIRUN, "plain line", 0, -1, "stdout", "plain line");
    untag_case(MGPU_LAUNCH_SRUN, " 5: text", 1, 5, "stdout", "text");
    untag_case(MGPU_LAUNCH_SRUN, "12:no space", 0, -1, "stdout", "12:no space");
    untag_case(MGPU_LAUNCH_LOCAL, "0: local lines are never tagged", 0, -1, "stdout", "0: local lines are never tagged");
    return tap_done();
}
