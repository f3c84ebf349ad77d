/* test_rt_comm.c - the runtime with communicators: the world communicator
 * bootstrapped through the coordinator (sim), a rank killed in the middle of
 * a collective (reported within timeout + 2 s, nothing left), and a
 * mismatched collective caught and named from the flight recorders. */
#include "test_rt_common.h"

static void test_world_ok(int ranks)
{
    rt_capture cap = {0};
    mgpu_rt_report rep;
    CHECK_OK(rt_run_selftest(MGPU_LAUNCH_LOCAL, ranks, 20,
                             "{\"action\": \"world_allreduce\", \"count\": 4099, \"iters\": 3}", &cap, &rep));
    CHECKF(rep.ok, "reason: %s", rep.reason);
    for (int r = 0; r < ranks; r++) {
        json_t *res = cap.result[r];
        CHECKF(res && json_is_true(json_object_get(res, "ok")), "rank %d: %lld wrong values", r,
               res ? (long long)json_integer_value(json_object_get(res, "wrong")) : -1LL);
        CHECK(json_real_value(json_object_get(res, "value")) == ranks * (ranks + 1) / 2.0);
    }
    printf("# world all_reduce x%d: %.2f s\n", ranks, rep.wall_s);
    rt_capture_free(&cap);
}

static void test_killed_mid_collective(void)
{
    rt_capture cap = {0};
    mgpu_rt_report rep;
    const double timeout = 5;
    CHECK_OK(rt_run_selftest(MGPU_LAUNCH_LOCAL, 4, timeout,
                             "{\"action\": \"world_allreduce\", \"iters\": 3, \"at\": 1, \"rank\": 2, "
                             "\"mismatch\": \"crash\"}",
                             &cap, &rep));
    CHECK(!rep.ok);
    CHECK(rep.failed_rank == 2);
    CHECKF(strstr(rep.reason, "rank 2 was killed by signal 9 (SIGKILL)") != NULL, "reason: %s", rep.reason);
    /* the reason (the signal, not the watchdog) says how it was found; the
     * wall time only catches a hang (a busy machine is slow to start ranks) */
    CHECKF(rep.wall_s < timeout + 60, "took %.2f s", rep.wall_s);
    CHECK(rt_leftovers() == 0);
    CHECKF(cap.flights >= 3, "%d flight dumps from the 3 survivors", cap.flights);
    printf("# killed mid-collective: \"%s\" in %.2f s, %d flight dumps; analysis: \"%s\"\n", rep.reason, rep.wall_s,
           cap.flights, rep.analysis);
    rt_capture_free(&cap);
}

/* Rank 3 enters broadcast where the others enter all_reduce: the
 * communicators' watchdog fires (the sim never completes a mismatch), and
 * the analyser names rank 3 from the dumps. */
static void test_mismatch_named(void)
{
    rt_capture cap = {0};
    mgpu_rt_report rep;
    const double timeout = 3;
    CHECK_OK(rt_run_selftest(MGPU_LAUNCH_LOCAL, 4, timeout,
                             "{\"action\": \"world_allreduce\", \"iters\": 2, \"at\": 1, \"rank\": 3, "
                             "\"mismatch\": \"broadcast\", \"count\": 1024}",
                             &cap, &rep));
    CHECK(!rep.ok);
    CHECKF(rep.wall_s < timeout + 60, "took %.2f s (a hang?)", rep.wall_s);
    CHECK(rt_leftovers() == 0);
    CHECKF(strstr(rep.analysis, "rank 3") && strstr(rep.analysis, "broadcast"), "analysis: \"%s\" (reason: %s)",
           rep.analysis, rep.reason);
    printf("# mismatch: \"%s\" in %.2f s; analysis: \"%s\"\n", rep.reason, rep.wall_s, rep.analysis);
    rt_capture_free(&cap);
}

int main(void)
{
    test_world_ok(4);
    test_world_ok(3);
    test_killed_mid_collective();
    test_mismatch_named();
    return tap_done();
}
