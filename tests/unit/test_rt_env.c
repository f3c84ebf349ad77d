/* test_rt_env.c - a worker's rank from each launcher's environment: ours,
 * Open MPI, Slurm, torchrun; precedence; inconsistent values refused. */
#include <stdlib.h>
#include <string.h>
#include "mgpu/rt.h"
#include "tap.h"

static const char *const all_vars[] = {
    "MGPU_RANK", "MGPU_SIZE", "MGPU_LOCAL_RANK", "MGPU_LOCAL_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
    "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID",
    "SLURM_NTASKS_PER_NODE", "SLURM_TASKS_PER_NODE", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", NULL};

static void clear(void)
{
    for (int i = 0; all_vars[i]; i++) unsetenv(all_vars[i]);
}

/* Set "K=V" pairs from a NULL-terminated list. */
static void set(const char *const *kv)
{
    clear();
    for (int i = 0; kv[i]; i += 2) setenv(kv[i], kv[i + 1], 1);
}

static void expect(const char *const *kv, int rank, int size, int lrank, int lsize, const char *source)
{
    set(kv);
    mgpu_rank_env e;
    mgpu_result r = mgpu_rank_env_detect(&e);
    CHECKF(r == MGPU_OK, "%s: %s", source, mgpu_error_message());
    if (r != MGPU_OK) return;
    CHECKF(e.rank == rank && e.size == size && e.local_rank == lrank && e.local_size == lsize,
           "%s: got %d/%d local %d/%d", source, e.rank, e.size, e.local_rank, e.local_size);
    CHECKF(strcmp(e.source, source) == 0, "source %s, expected %s", e.source, source);
}

static void refuse(const char *const *kv, const char *words)
{
    set(kv);
    mgpu_rank_env e;
    CHECK(mgpu_rank_env_detect(&e) == MGPU_ERR_INVALID);
    CHECKF(strstr(mgpu_error_message(), words) != NULL, "message '%s' lacks '%s'", mgpu_error_message(), words);
}

int main(void)
{
    expect((const char *const[]){"MGPU_RANK", "2", "MGPU_SIZE", "4", "MGPU_LOCAL_RANK", "2", "MGPU_LOCAL_SIZE", "4",
                                 NULL},
           2, 4, 2, 4, "mgpulab");
    expect((const char *const[]){"OMPI_COMM_WORLD_RANK", "5", "OMPI_COMM_WORLD_SIZE", "16",
                                 "OMPI_COMM_WORLD_LOCAL_RANK", "5", "OMPI_COMM_WORLD_LOCAL_SIZE", "8", NULL},
           5, 16, 5, 8, "openmpi");
    expect((const char *const[]){"SLURM_PROCID", "9", "SLURM_NTASKS", "16", "SLURM_LOCALID", "1",
                                 "SLURM_TASKS_PER_NODE", "8(x2)", NULL},
           9, 16, 1, 8, "slurm");
    expect((const char *const[]){"RANK", "3", "WORLD_SIZE", "4", "LOCAL_RANK", "1", "LOCAL_WORLD_SIZE", "2", NULL}, 3,
           4, 1, 2, "torchrun");
    /* No local rank: one host assumed. */
    expect((const char *const[]){"RANK", "3", "WORLD_SIZE", "4", NULL}, 3, 4, 3, 4, "torchrun");
    /* mpirun inside an sbatch script: every process inherits SLURM_PROCID=0;
     * Open MPI's values win and the stale Slurm ones are not an error. */
    expect((const char *const[]){"OMPI_COMM_WORLD_RANK", "3", "OMPI_COMM_WORLD_SIZE", "4", "SLURM_PROCID", "0",
                                 "SLURM_NTASKS", "1", NULL},
           3, 4, 3, 4, "openmpi");
    /* Ours first (the local launcher drops stale copies of its own). */
    expect((const char *const[]){"MGPU_RANK", "1", "MGPU_SIZE", "2", "RANK", "7", "WORLD_SIZE", "8", NULL}, 1, 2, 1, 2,
           "mgpulab");

    refuse((const char *const[]){NULL}, "no rank in the environment");
    refuse((const char *const[]){"MGPU_RANK", "4", "MGPU_SIZE", "4", NULL}, "is not below");
    refuse((const char *const[]){"OMPI_COMM_WORLD_RANK", "1", NULL}, "OMPI_COMM_WORLD_SIZE is not");
    refuse((const char *const[]){"MGPU_SIZE", "4", NULL}, "MGPU_RANK");
    refuse((const char *const[]){"SLURM_PROCID", "x1", "SLURM_NTASKS", "2", NULL}, "SLURM_PROCID='x1'");
    refuse((const char *const[]){"RANK", "-1", "WORLD_SIZE", "2", NULL}, "RANK='-1'");
    refuse((const char *const[]){"RANK", "1", "WORLD_SIZE", "99999999999999999999", NULL}, "WORLD_SIZE=");
    refuse((const char *const[]){"RANK", "1", "WORLD_SIZE", "4", "LOCAL_RANK", "2", NULL}, "is above");
    refuse((const char *const[]){"OMPI_COMM_WORLD_RANK", "3", "OMPI_COMM_WORLD_SIZE", "4",
                                 "OMPI_COMM_WORLD_LOCAL_RANK", "2", "OMPI_COMM_WORLD_LOCAL_SIZE", "2", NULL},
           "not below the local size");
    refuse((const char *const[]){"MGPU_RANK", "0", "MGPU_SIZE", "2", "MGPU_LOCAL_SIZE", "3", NULL},
           "above the world size");
    clear();
    return tap_done();
}
