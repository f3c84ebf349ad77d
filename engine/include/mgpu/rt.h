/* rt.h - the rank runtime: a coordinator that never touches CUDA, and rank
 * workers (`mgpulab worker`, the same binary) started by a launcher.
 *
 * The coordinator (the shell or a headless command) calls mgpu_rt_run() with
 * a job: a type name and JSON parameters. The launcher starts `size` workers;
 * each connects back (Unix socket locally, TCP with a per-run token across
 * hosts), says hello with its rank, receives the job, opens its device
 * backend, and runs the job handler registered under that type. Handlers
 * talk to the coordinator through their mgpu_worker context: results, log
 * lines and spans go up as messages; an out-of-band all-gather relayed by the
 * coordinator bootstraps communicators. A worker that dies, hangs past the
 * timeout or reports an error ends the run: the coordinator asks the other
 * workers to abort their communicators, then kills the process group, and
 * reports which rank failed and why. The wire protocol is in
 * engine/rt/protocol.h. */
#ifndef MGPU_RT_H
#define MGPU_RT_H
#include <jansson.h>
#include "mgpu/comm.h"
#include "mgpu/dev.h"

#ifdef __cplusplus
extern "C" {
#endif

/*--- Where a worker's rank comes from -----------------------------------*/

typedef struct mgpu_rank_env {
    int rank, size, local_rank, local_size;
    char source[32]; /* "mgpulab", "openmpi", "slurm", "torchrun" */
} mgpu_rank_env;

/* Read the launcher's environment: MGPU_RANK/MGPU_SIZE (ours), then
 * OMPI_COMM_WORLD_RANK/SIZE/LOCAL_RANK/LOCAL_SIZE, SLURM_PROCID/NTASKS/
 * LOCALID, RANK/WORLD_SIZE/LOCAL_RANK. Inconsistent values fail clearly. */
mgpu_result mgpu_rank_env_detect(mgpu_rank_env *out);

/*--- Coordinator --------------------------------------------------------*/

typedef enum mgpu_launcher { MGPU_LAUNCH_LOCAL = 0, MGPU_LAUNCH_EMULATE, MGPU_LAUNCH_MPIRUN,
                             MGPU_LAUNCH_SRUN } mgpu_launcher;
mgpu_result mgpu_launcher_parse(const char *name, mgpu_launcher *out);

/* When the workers will open a sim machine: its hosts and GPUs (zeros
 * otherwise). Fails when the machine cannot be loaded. No backend opened. */
mgpu_result mgpu_rt_sim_layout(const mgpu_backend_config *be, int *hosts, int *gpus_per_host, int *total);
/* ranks when the caller gave 0: SLURM_NTASKS under srun, the sim machine's
 * GPUs, the driver's GPUs (mgpu_driver_gpu_count), or 1. */
int mgpu_rt_default_ranks(mgpu_launcher kind, int sim_total);
/* When the workers will open a sim machine with --fault: the faults checked
 * against that machine and `nranks` (mgpu_topo_check_faults), so a fault on
 * a rank or GPU the run lacks is refused before anything starts. */
mgpu_result mgpu_rt_check_sim_faults(const mgpu_backend_config *be, int nranks);

typedef struct mgpu_job_handler mgpu_job_handler;

typedef struct mgpu_rt_config {
    /* The job types this program knows (NULL-terminated), to refuse an
     * unknown one before anything starts: mgpu_jobs from mgpu/jobs.h. */
    const mgpu_job_handler *const *jobs;
    mgpu_launcher launcher;
    int ranks;                     /* 0 = one per GPU (local), or the backend's device count */
    mgpu_backend_config backend;   /* what each worker opens */
    double timeout_s;              /* a rank silent for this long is hung; 0 = default 60 */
    const char *self_exe;          /* path of mgpulab for the workers; NULL = /proc/self/exe */
    const char *const *extra_env;  /* "K=V" strings added to every worker, NULL-terminated or NULL */
    /* The caller's cancel flag (the shell's cancel key), or NULL. Once
     * *cancel is non-zero the run is aborted as for a failed rank (the
     * ranks' communicators aborted, every process killed) within about a
     * second: report->ok = 0, failed_rank -1, reason "cancelled by the user".
     * Set it from another thread or a signal handler. */
    volatile int *cancel;
    /* 1: the workers' stdout and stderr (NCCL's INFO lines included) go to
     * pipes the coordinator reads, and on_msg gets each line as a "log"
     * message {line, stream: "stdout"|"stderr"} with the rank that wrote it
     * (-1: the launcher itself, or a line mpirun/srun did not tag). Nothing
     * a worker writes reaches the terminal. 0: workers inherit stdout and
     * stderr. */
    int capture_output;
    /* sim machines of several hosts, local launchers: rank r models a GPU of
     * host r / ranks_per_host (2 ranks, 1 per host: one rank on each node);
     * 0 = fill each host's GPUs first. Real launchers place ranks
     * themselves (mpirun --map-by, srun --ntasks-per-node). */
    int ranks_per_host;
} mgpu_rt_config;

typedef struct mgpu_rt_msg {
    int rank;
    const char *type;   /* "result", "log", "span", "flight", "error", ... */
    json_t *body;       /* borrowed for the callback's duration */
} mgpu_rt_msg;

/* Called on the coordinator's thread for every message a worker sends. */
typedef void (*mgpu_rt_on_msg)(void *ctx, const mgpu_rt_msg *m);

typedef struct mgpu_rt_report {
    int ok;                    /* every rank finished its job without error */
    int failed_rank;           /* first failing rank, -1 none */
    char reason[512];          /* "rank 3 was killed by signal 9", "rank 1 hung: no message for 30 s", ... */
    char analysis[512];        /* flight-recorder analyser's sentence when a collective hung/failed, or "" */
    double wall_s;
} mgpu_rt_report;

/* What mgpu_rt_run refuses before it starts anything (the ranks, the
 * timeout, the sim machine, its faults, the sim's rank limit), for a
 * command to call before it prints a banner about the run. */
mgpu_result mgpu_rt_check_config(const mgpu_rt_config *cfg, const char *job_type);

/* Launch, run `job_type` with `params` on every rank, stream messages to
 * on_msg, clean up every process. Returns MGPU_OK when the run happened
 * (look at report->ok for the ranks' verdict); an error when it could not
 * start (bad launcher, no mpirun, ...). */
mgpu_result mgpu_rt_run(const mgpu_rt_config *cfg, const char *job_type, json_t *params, mgpu_rt_on_msg on_msg,
                        void *ctx, mgpu_rt_report *report);

/*--- Worker -------------------------------------------------------------*/

typedef struct mgpu_worker mgpu_worker;

/* The worker process's main (`mgpulab worker`): runs the job it is sent
 * with the handler of that name in `jobs` (NULL-terminated; mgpu_jobs). */
int mgpu_worker_main(int argc, char **argv, const mgpu_job_handler *const *jobs);

int mgpu_worker_rank(const mgpu_worker *w);
int mgpu_worker_size(const mgpu_worker *w);
int mgpu_worker_local_rank(const mgpu_worker *w);
int mgpu_worker_device(const mgpu_worker *w);      /* the device this rank uses */
mgpu_backend *mgpu_worker_backend(mgpu_worker *w);
/* A bootstrap whose all-gather goes through the coordinator. */
const mgpu_bootstrap *mgpu_worker_bootstrap(mgpu_worker *w);
/* The world communicator, created on first use (blocking, name "world"). */
mgpu_result mgpu_worker_world(mgpu_worker *w, mgpu_comm **out);
/* Send a message (takes a reference to body). */
mgpu_result mgpu_worker_send(mgpu_worker *w, const char *type, json_t *body);
mgpu_result mgpu_worker_log(mgpu_worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
double mgpu_worker_timeout_s(const mgpu_worker *w);

/* A job handler runs on every rank. Returning an error reports it to the
 * coordinator (with the engine's message) and fails the run. */
struct mgpu_job_handler {
    const char *type;
    mgpu_result (*run)(mgpu_worker *w, json_t *params);
};

/* The handler named `type` in a NULL-terminated table, or NULL. The runtime
 * knows no job itself: the table (engine/jobs/job_registry.c, mgpu/jobs.h)
 * sits above it and is handed to the worker and the coordinator, as tmux
 * hands its cmd_table[] around. */
const mgpu_job_handler *mgpu_job_find(const mgpu_job_handler *const *jobs, const char *type);

#ifdef __cplusplus
}
#endif
#endif
