/* rank_env.c - a worker's rank, world size and local rank from whichever
 * launcher started it: ours (MGPU_*), Open MPI, Slurm or torchrun.
 *
 * Sources are tried in that order and the first one present wins; lower ones
 * are not compared with it, because they are often inherited and stale (an
 * `mpirun` inside an `sbatch` script sees SLURM_PROCID=0 in every process).
 * Within a source, values must be numbers and agree with each other. */
#include "mgpu/rt.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct env_source {
    const char *name;       /* mgpu_rank_env.source */
    const char *rank, *size, *local_rank, *local_size;
} env_source;

static const env_source sources[] = {
    {"mgpulab", "MGPU_RANK", "MGPU_SIZE", "MGPU_LOCAL_RANK", "MGPU_LOCAL_SIZE"},
    {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
     "OMPI_COMM_WORLD_LOCAL_SIZE"},
    {"slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", NULL},
    {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"},
};

/* -1 when unset; -2 (message set) when not a number in [min, max]. */
static long read_int(const char *var, long min, long max)
{
    const char *v = var ? getenv(var) : NULL;
    if (!v || !*v) return -1;
    char *end = NULL;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end || end == v || x < min || x > max) {
        mgpu_fail(MGPU_ERR_INVALID, "%s='%s' is not a whole number in %ld..%ld; the launcher set it wrongly", var, v,
                  min, max);
        return -2;
    }
    return x;
}

/* Slurm's tasks per node on this node: SLURM_NTASKS_PER_NODE, or the first
 * number of SLURM_TASKS_PER_NODE ("8(x2)" -> 8). 0 when unknown. */
static int slurm_local_size(void)
{
    const char *v = getenv("SLURM_NTASKS_PER_NODE");
    if (!v || !*v) v = getenv("SLURM_TASKS_PER_NODE");
    if (!v || !*v) return 0;
    long x = strtol(v, NULL, 10);
    return x > 0 && x < 1000000 ? (int)x : 0;
}

static mgpu_result from_source(const env_source *s, mgpu_rank_env *out)
{
    long rank = read_int(s->rank, 0, 1 << 24);
    long size = read_int(s->size, 1, 1 << 24);
    long lrank = read_int(s->local_rank, 0, 1 << 24);
    long lsize = read_int(s->local_size, 1, 1 << 24);
    if (rank == -2 || size == -2 || lrank == -2 || lsize == -2) return MGPU_ERR_INVALID;
    if (size < 0)
        return mgpu_fail(MGPU_ERR_INVALID, "%s is set but %s is not: the launcher (%s) gave a rank without a world size",
                         s->rank, s->size, s->name);
    if (rank >= size)
        return mgpu_fail(MGPU_ERR_INVALID, "%s=%ld is not below %s=%ld: inconsistent %s environment", s->rank, rank,
                         s->size, size, s->name);
    if (lrank < 0) lrank = size == 1 ? 0 : rank; /* no local rank: assume one host */
    if (lsize < 0 && strcmp(s->name, "slurm") == 0) lsize = slurm_local_size() ? slurm_local_size() : -1;
    if (lsize < 0) lsize = lrank >= 0 && lrank == rank ? size : lrank + 1;
    if (lrank > rank)
        return mgpu_fail(MGPU_ERR_INVALID, "%s=%ld is above %s=%ld: inconsistent %s environment", s->local_rank, lrank,
                         s->rank, rank, s->name);
    if (lrank >= lsize)
        return mgpu_fail(MGPU_ERR_INVALID, "local rank %ld is not below the local size %ld: inconsistent %s environment",
                         lrank, lsize, s->name);
    if (lsize > size)
        return mgpu_fail(MGPU_ERR_INVALID, "local size %ld is above the world size %ld: inconsistent %s environment",
                         lsize, size, s->name);
    out->rank = (int)rank;
    out->size = (int)size;
    out->local_rank = (int)lrank;
    out->local_size = (int)lsize;
    snprintf(out->source, sizeof out->source, "%s", s->name);
    return MGPU_OK;
}

mgpu_result mgpu_rank_env_detect(mgpu_rank_env *out)
{
    if (!out) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_rank_env_detect: no output");
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < sizeof sources / sizeof sources[0]; i++) {
        const env_source *s = &sources[i];
        const char *r = getenv(s->rank);
        if (!r || !*r) {
            const char *sz = getenv(s->size);
            if (sz && *sz && strcmp(s->name, "torchrun") != 0 && strcmp(s->name, "slurm") != 0)
                return mgpu_fail(MGPU_ERR_INVALID, "%s is set but %s is not: inconsistent %s environment", s->size,
                                 s->rank, s->name);
            continue;
        }
        MGPU_CHECK(from_source(s, out));
        return MGPU_OK;
    }
    return mgpu_fail(MGPU_ERR_INVALID,
                     "no rank in the environment: `mgpulab worker` is started by a launcher (mgpulab bench/spmd "
                     "--launcher local|emulate|mpirun|srun); by hand, set MGPU_RANK and MGPU_SIZE, or run under "
                     "mpirun, srun or torchrun");
}
