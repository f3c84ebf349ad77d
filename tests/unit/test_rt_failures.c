/* test_rt_failures.c - a rank that crashes, hangs or errs ends the run with
 * the right rank and reason, the others aborted, and no worker process left
 * behind (sim backend, local launcher). How it was found is judged from the
 * reason (a crash's signal, not a missed heartbeat); the wall-time limits
 * only catch a hang, as a busy machine (ASan, load 25 on 2 cores) may take
 * seconds to start and stop the ranks. */
#include <signal.h>
#include "test_rt_common.h"

static void expect_failure(const char *what, const char *params, int ranks, double timeout_s, int want_rank,
                           const char *want_reason, double max_wall_s)
{
    rt_capture cap = {0};
    mgpu_rt_report rep;
    CHECK_OK(rt_run_selftest(MGPU_LAUNCH_LOCAL, ranks, timeout_s, params, &cap, &rep));
    CHECKF(!rep.ok, "%s: the run was reported ok", what);
    CHECKF(rep.failed_rank == want_rank, "%s: failed_rank %d, expected %d (%s)", what, rep.failed_rank, want_rank,
           rep.reason);
    CHECKF(strstr(rep.reason, want_reason) != NULL, "%s: reason '%s' lacks '%s'", what, rep.reason, want_reason);
    CHECKF(rep.wall_s <= max_wall_s, "%s: took %.2f s, limit %.2f s", what, rep.wall_s, max_wall_s);
    int left = rt_leftovers();
    CHECKF(left == 0, "%s: %d worker processes left behind", what, left);
    /* The others were aborted: they saw it and said so (an error naming the
     * abort), or were killed; none finished. */
    CHECKF(cap.dones == 0, "%s: %d ranks finished although rank %d failed", what, cap.dones, want_rank);
    int told = 0;
    for (int r = 0; r < ranks; r++)
        if (r != want_rank && strstr(cap.error[r], "aborted by the coordinator")) told++;
    CHECKF(told == ranks - 1, "%s: %d of %d other ranks reported the abort", what, told, ranks - 1);
    printf("# %s: \"%s\" after %.2f s (analysis: \"%s\")\n", what, rep.reason, rep.wall_s, rep.analysis);
    rt_capture_free(&cap);
}

int main(void)
{
    /* The timeout is long: a crash or error must be seen at once, not by it -
     * the reason names the signal or the error (a timeout would name the
     * missing heartbeat), and it came before the 30 s timeout could fire. */
    expect_failure("crash SIGKILL", "{\"action\": \"crash\", \"rank\": 2}", 4, 30, 2,
                   "rank 2 was killed by signal 9 (SIGKILL)", 29.0);
    expect_failure("crash SIGSEGV", "{\"action\": \"crash\", \"rank\": 1, \"signal\": \"SIGSEGV\"}", 3, 30, 1,
                   "rank 1 was killed by signal 11 (SIGSEGV)", 29.0);
    expect_failure("error", "{\"action\": \"error\", \"rank\": 3}", 4, 30, 3,
                   "rank 3: selftest: rank 3 failed on purpose", 29.0);
    /* A stopped rank sends no heartbeat: found after the timeout (the
     * reason says so); the limit only catches a failure path that hangs. */
    expect_failure("hang", "{\"action\": \"hang\", \"rank\": 1}", 4, 2.0, 1, "rank 1 hung: no heartbeat for", 60.0);
    return tap_done();
}
