/* test_rt_mpirun.c - the mpirun launcher with Debian's Open MPI (openmpi-bin,
 * listed in scripts/deps): ranks from OMPI_COMM_WORLD_*, TCP with the token,
 * the all-gather relay, and a killed rank cleaned up. Fails, saying why,
 * when mpirun is missing: it is a declared dependency. */
#include "test_rt_common.h"

static void run_ok(int ranks)
{
    rt_capture cap = {0};
    mgpu_rt_report rep;
    CHECK_OK(rt_run_selftest(MGPU_LAUNCH_MPIRUN, ranks, 30, "{\"action\": \"ok\"}", &cap, &rep));
    CHECKF(rep.ok, "reason: %s", rep.reason);
    CHECK(strncmp(cap.address, "tcp:127.0.0.1:", 14) == 0);
    for (int r = 0; r < ranks; r++) {
        json_t *res = cap.result[r];
        CHECKF(res && json_is_true(json_object_get(res, "ok")), "rank %d sent no ok result", r);
        CHECK(json_integer_value(json_object_get(res, "size")) == ranks);
        CHECK(json_integer_value(json_object_get(res, "local_rank")) == r); /* OMPI_COMM_WORLD_LOCAL_RANK */
    }
    CHECK(rt_leftovers() == 0);
    printf("# mpirun x%d ok: %.2f s\n", ranks, rep.wall_s);
    rt_capture_free(&cap);
}

static void run_allgather(int ranks)
{
    rt_capture cap = {0};
    mgpu_rt_report rep;
    CHECK_OK(rt_run_selftest(MGPU_LAUNCH_MPIRUN, ranks, 30, "{\"action\": \"allgather\", \"bytes\": 64, \"rounds\": 2}",
                             &cap, &rep));
    CHECKF(rep.ok, "reason: %s", rep.reason);
    for (int r = 0; r < ranks; r++) {
        json_t *seen = json_object_get(cap.result[r], "ranks_seen");
        CHECK(json_is_true(json_object_get(cap.result[r], "ok")));
        for (int o = 0; o < ranks; o++) CHECK(json_integer_value(json_array_get(seen, (size_t)o)) == o);
    }
    printf("# mpirun x%d allgather: %.2f s\n", ranks, rep.wall_s);
    rt_capture_free(&cap);
}

static void run_crash(void)
{
    rt_capture cap = {0};
    mgpu_rt_report rep;
    CHECK_OK(rt_run_selftest(MGPU_LAUNCH_MPIRUN, 3, 10, "{\"action\": \"crash\", \"rank\": 1}", &cap, &rep));
    CHECK(!rep.ok);
    CHECKF(rep.failed_rank == 1, "failed rank %d (%s)", rep.failed_rank, rep.reason);
    CHECKF(rep.wall_s < 10 + 60, "took %.2f s (a hang? the limit only catches one)", rep.wall_s);
    CHECK(rt_leftovers() == 0);
    printf("# mpirun crash: \"%s\" in %.2f s\n", rep.reason, rep.wall_s);
    rt_capture_free(&cap);
}

int main(void)
{
    setenv("MGPU_COORD_HOST", "127.0.0.1", 1);
    if (system("command -v mpirun >/dev/null 2>&1") != 0) {
        printf("# mpirun is not on PATH: install Open MPI (apt-get install openmpi-bin; scripts/deps lists it)\n");
        CHECK(!"mpirun available");
        return tap_done();
    }
    run_ok(2);
    run_allgather(4);
    run_crash();
    return tap_done();
}
