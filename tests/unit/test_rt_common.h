/* test_rt_common.h - shared by the runtime tests: run a selftest job on N
 * sim ranks, collect every message, and look for leftover processes. */
#ifndef TEST_RT_COMMON_H
#define TEST_RT_COMMON_H
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mgpu/clock.h"
#include "mgpu/jobs.h"
#include "mgpu/rt.h"
#include "tap.h"

#define RT_MAX_RANKS 16

typedef struct rt_capture {
    json_t *result[RT_MAX_RANKS];   /* each rank's last "result" body */
    char error[RT_MAX_RANKS][512];  /* each rank's "error" message */
    int flights, dones, refused, logs;
    char address[320];              /* from the "listening" event */
    void (*on_listen)(struct rt_capture *cap); /* optional hook, runs on the coordinator's thread */
    void *user;
} rt_capture;

static void rt_capture_msg(void *ctx, const mgpu_rt_msg *m)
{
    rt_capture *cap = ctx;
    if (m->rank < 0) {
        if (strcmp(m->type, "listening") == 0) {
            snprintf(cap->address, sizeof cap->address, "%s", json_string_value(json_object_get(m->body, "address")));
            if (cap->on_listen) cap->on_listen(cap);
        }
        if (strcmp(m->type, "refused") == 0) cap->refused++;
        return;
    }
    if (m->rank >= RT_MAX_RANKS) return;
    if (strcmp(m->type, "result") == 0) {
        json_decref(cap->result[m->rank]);
        cap->result[m->rank] = json_incref(m->body);
    } else if (strcmp(m->type, "error") == 0) {
        const char *s = json_string_value(json_object_get(m->body, "message"));
        snprintf(cap->error[m->rank], sizeof cap->error[m->rank], "%s", s ? s : "");
    } else if (strcmp(m->type, "flight") == 0) {
        cap->flights++;
    } else if (strcmp(m->type, "done") == 0) {
        cap->dones++;
    } else if (strcmp(m->type, "log") == 0) {
        cap->logs++;
    }
}

static void rt_capture_free(rt_capture *cap)
{
    for (int i = 0; i < RT_MAX_RANKS; i++) json_decref(cap->result[i]);
    memset(cap, 0, sizeof *cap);
}

/* A marker in every worker's environment, unique to this test process and
 * run, so leftovers can be found in /proc. */
static char rt_marker_env[96];

static mgpu_result rt_run_selftest(mgpu_launcher launcher, int ranks, double timeout_s, const char *params_json,
                                   rt_capture *cap, mgpu_rt_report *rep)
{
    static int serial;
    snprintf(rt_marker_env, sizeof rt_marker_env, "MGPU_TEST_MARKER=rt-%d-%d", (int)getpid(), ++serial);
    const char *extra[] = {rt_marker_env, NULL};
    mgpu_rt_config cfg = {.jobs = mgpu_jobs, .launcher = launcher,
                          .ranks = ranks,
                          .backend = {.kind = MGPU_BACKEND_SIM, .machine = "dgx-h100"},
                          .timeout_s = timeout_s,
                          .self_exe = MGPU_BINARY_DIR "/mgpulab",
                          .extra_env = extra};
    json_error_t err;
    json_t *params = json_loads(params_json, 0, &err);
    if (!params) return mgpu_fail(MGPU_ERR_PARSE, "test params: %s", err.text);
    mgpu_result r = mgpu_rt_run(&cfg, "selftest", params, rt_capture_msg, cap, rep);
    json_decref(params);
    return r;
}

/* How many live processes carry the last run's marker (zombies have an
 * empty environ and do not count: they run nothing). */
static int rt_leftovers(void)
{
    int n = 0;
    DIR *d = opendir("/proc");
    if (!d) return -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char path[300], buf[65536];
        snprintf(path, sizeof path, "/proc/%s/environ", e->d_name);
        int fd = open(path, O_RDONLY);
        if (fd < 0) continue;
        ssize_t k = read(fd, buf, sizeof buf - 1);
        close(fd);
        for (ssize_t i = 0; i < k;) {
            const char *s = buf + i;
            size_t len = strnlen(s, (size_t)(k - i));
            if (len == strlen(rt_marker_env) && memcmp(s, rt_marker_env, len) == 0) {
                n++;
                break;
            }
            i += (ssize_t)len + 1;
        }
    }
    closedir(d);
    return n;
}

#endif
