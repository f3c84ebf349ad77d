/* cmd_worker.c - `mgpulab worker`: a rank process. Started by the
 * coordinator's launcher (never by hand); all it needs is in the
 * environment (engine/rt/protocol.h). */
#include "cmd.h"
#include "mgpu/jobs.h"

static int run(const mgpu_cli_globals *g, int argc, char **argv)
{
    (void)g; /* the backend and timeout come with the job, not the command line */
    if (argc > 1) return mgpu_cli_usage_error("worker", "takes no arguments (its settings come from the environment)");
    return mgpu_worker_main(argc, argv, mgpu_jobs);
}

const mgpu_cmd mgpu_cmd_worker = {
    .name = "worker",
    .summary = "a rank process (started by launchers, not by hand)",
    .usage = "usage: mgpulab worker\n"
             "\n"
             "A rank worker. The coordinator (bench, spmd, the shell) starts one per rank\n"
             "through a launcher (--launcher local|emulate|mpirun|srun). The worker reads its\n"
             "rank from the launcher's environment (MGPU_RANK/MGPU_SIZE, OMPI_COMM_WORLD_*,\n"
             "SLURM_PROCID/SLURM_NTASKS, or torchrun's RANK/WORLD_SIZE/LOCAL_RANK), connects\n"
             "back to MGPU_COORD with MGPU_TOKEN, runs its job and reports. See docs/runtime.md.\n",
    .run = run,
};
