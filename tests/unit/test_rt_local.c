/* test_rt_local.c - the rank runtime on the local and emulate launchers
 * (sim backend): a good run, the all-gather relay, a slow rank that keeps
 * its heartbeat, per-rank environment. */
#include "test_rt_common.h"

static void test_ok(mgpu_launcher l, int ranks)
{
    rt_capture cap = {0};
    mgpu_rt_report rep;
    CHECK_OK(rt_run_selftest(l, ranks, 10, "{\"action\": \"ok\"}", &cap, &rep));
    CHECKF(rep.ok, "reason: %s", rep.reason);
    CHECK(rep.failed_rank == -1);
    CHECK(cap.dones == ranks);
    for (int r = 0; r < ranks; r++) {
        json_t *res = cap.result[r];
        CHECKF(res && json_is_true(json_object_get(res, "ok")), "rank %d sent no ok result", r);
        CHECK(json_integer_value(json_object_get(res, "size")) == ranks);
        CHECK(json_integer_value(json_object_get(res, "local_rank")) == r);
        CHECK(json_integer_value(json_object_get(res, "device")) == r % 8); /* dgx-h100: 8 GPUs */
        CHECK(res && strcmp(json_string_value(json_object_get(res, "backend")) ?: "", "sim") == 0);
        const char *nvls = json_string_value(json_object_get(res, "NCCL_NVLS_ENABLE"));
        CHECKF(nvls && strcmp(nvls, "0") == 0, "rank %d runs with NCCL_NVLS_ENABLE=%s", r, nvls ? nvls : "(unset)");
        const char *hostid = json_string_value(json_object_get(res, "NCCL_HOSTID"));
        const char *ifname = json_string_value(json_object_get(res, "NCCL_SOCKET_IFNAME"));
        if (l == MGPU_LAUNCH_EMULATE) {
            char want[64];
            snprintf(want, sizeof want, "mgpulab-emu-%d", r);
            CHECKF(hostid && strcmp(hostid, want) == 0, "rank %d: NCCL_HOSTID=%s", r, hostid ? hostid : "(unset)");
            CHECK(ifname && strcmp(ifname, "lo") == 0);
        }
    }
    CHECK(rt_leftovers() == 0);
    printf("# %s x%d: ok in %.2f s\n", l == MGPU_LAUNCH_EMULATE ? "emulate" : "local", ranks, rep.wall_s);
    rt_capture_free(&cap);
}

static void test_allgather(int ranks, int bytes, int rounds)
{
    rt_capture cap = {0};
    mgpu_rt_report rep;
    char params[128];
    snprintf(params, sizeof params, "{\"action\": \"allgather\", \"bytes\": %d, \"rounds\": %d}", bytes, rounds);
    CHECK_OK(rt_run_selftest(MGPU_LAUNCH_LOCAL, ranks, 10, params, &cap, &rep));
    CHECKF(rep.ok, "reason: %s", rep.reason);
    for (int r = 0; r < ranks; r++) {
        json_t *res = cap.result[r];
        CHECKF(res && json_is_true(json_object_get(res, "ok")), "rank %d: data wrong (first bad byte %lld)", r,
               res ? (long long)json_integer_value(json_object_get(res, "first_bad")) : -1LL);
        json_t *seen = json_object_get(res, "ranks_seen");
        CHECK(json_array_size(seen) == (size_t)ranks);
        for (int o = 0; o < ranks; o++)
            CHECKF(json_integer_value(json_array_get(seen, (size_t)o)) == o, "rank %d saw block %d from rank %lld",
                   r, o, (long long)json_integer_value(json_array_get(seen, (size_t)o)));
    }
    printf("# allgather x%d, %d bytes, %d rounds: %.2f s\n", ranks, bytes, rounds, rep.wall_s);
    rt_capture_free(&cap);
}

/* A rank that is busy (sleeping) but alive keeps its heartbeat: it must not
 * be called hung even though it is silent for longer than the timeout. */
static void test_slow_not_hung(void)
{
    rt_capture cap = {0};
    mgpu_rt_report rep;
    CHECK_OK(rt_run_selftest(MGPU_LAUNCH_LOCAL, 2, 1.0, "{\"action\": \"sleep\", \"rank\": 1, \"seconds\": 2.5}", &cap,
                             &rep));
    CHECKF(rep.ok, "reason: %s", rep.reason);
    CHECK(rep.wall_s >= 2.5);
    rt_capture_free(&cap);
}

static void test_bad_input(void)
{
    mgpu_rt_report rep;
    mgpu_rt_config cfg = {.jobs = mgpu_jobs, .launcher = MGPU_LAUNCH_LOCAL, .ranks = 2, .backend = {.kind = MGPU_BACKEND_SIM}};
    CHECK(mgpu_rt_run(&cfg, "no-such-job", NULL, NULL, NULL, &rep) == MGPU_ERR_INVALID);
    CHECK(strstr(mgpu_error_message(), "no-such-job") != NULL);
    cfg.backend.machine = "no-such-machine";
    CHECK(mgpu_rt_run(&cfg, "selftest", NULL, NULL, NULL, &rep) != MGPU_OK);
    cfg.backend.machine = NULL;
    cfg.self_exe = "/nonexistent/mgpulab";
    CHECK(mgpu_rt_run(&cfg, "selftest", NULL, NULL, NULL, &rep) == MGPU_ERR_IO);
    CHECK(strstr(mgpu_error_message(), "/nonexistent/mgpulab") != NULL);
    /* A program that starts but never connects: named, with its exit. */
    cfg.self_exe = "/bin/false";
    CHECK_OK(mgpu_rt_run(&cfg, "selftest", NULL, NULL, NULL, &rep));
    CHECK(!rep.ok && rep.failed_rank >= 0);
    CHECKF(strstr(rep.reason, "exited with status 1 before connecting") != NULL, "reason: %s", rep.reason);
    mgpu_launcher l;
    CHECK(mgpu_launcher_parse("emulate", &l) == MGPU_OK && l == MGPU_LAUNCH_EMULATE);
    CHECK(mgpu_launcher_parse("ssh", &l) == MGPU_ERR_INVALID);
    /* Bad params reach the ranks and come back as a clear error. */
    rt_capture cap = {0};
    CHECK_OK(rt_run_selftest(MGPU_LAUNCH_LOCAL, 2, 10, "{\"action\": \"dance\"}", &cap, &rep));
    CHECK(!rep.ok);
    CHECKF(strstr(rep.reason, "'dance' is not") != NULL, "reason: %s", rep.reason);
    CHECK(rt_leftovers() == 0);
    rt_capture_free(&cap);
}

int main(void)
{
    /* A worker must never inherit NVLink multicast on, whatever we have. */
    setenv("NCCL_NVLS_ENABLE", "1", 1);
    test_ok(MGPU_LAUNCH_LOCAL, 4);
    test_ok(MGPU_LAUNCH_EMULATE, 3);
    test_ok(MGPU_LAUNCH_LOCAL, 1);
    test_allgather(4, 16, 3);
    test_allgather(3, 100000, 2);
    test_slow_not_hung();
    test_bad_input();
    return tap_done();
}
