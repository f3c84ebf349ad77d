/* rt_internal.h - what the coordinator (coord.c) and the launchers
 * (launch.c) share inside engine/rt. */
#ifndef MGPU_RT_INTERNAL_H
#define MGPU_RT_INTERNAL_H
#include <sys/types.h>
#include "mgpu/rt.h"

/* One process the coordinator started: a worker (local launchers) or the
 * launcher program (mpirun, srun). */
typedef struct rt_proc {
    pid_t pid;        /* also its process group id (setpgid(0, 0) in the child) */
    int pidfd;        /* pidfd_open, or -1 (then waitpid is polled) */
    int rank;         /* the worker's rank, -1 for mpirun/srun */
    int exited;       /* reaped */
    int status;       /* waitpid status once exited */
    int out_fd, err_fd; /* capture_output: read ends of its stdout/stderr pipes, else -1 */
} rt_proc;

typedef struct rt_launch {
    mgpu_launcher kind;
    int size;
    const char *self_exe;
    const char *coord;             /* MGPU_COORD value */
    const char *token;             /* MGPU_TOKEN value */
    const char *const *extra_env;  /* cfg->extra_env */
    int sim_gpus_per_host;         /* > 0: give local ranks MGPU_SIM_HOST = rank / this */
    int sim_hosts;
    int capture;                   /* stdout/stderr into pipes (mpirun/srun: tagged per rank) */
} rt_launch;

/* Start the processes: `size` workers (local, emulate) or one mpirun/srun.
 * With L->capture each gets pipes for stdout and stderr (rt_proc out_fd,
 * err_fd; the caller takes them). *procs is allocated; on failure everything started is killed and reaped. */
mgpu_result rt_launch_start(const rt_launch *L, rt_proc **procs, int *nprocs);
/* SIGKILL a process group (workers and anything they started). */
void rt_proc_kill(rt_proc *p, int sig);
/* Reap without blocking (block = 0) or blocking; returns 1 when it has exited. */
int rt_proc_reap(rt_proc *p, int block);
void rt_procs_free(rt_proc *procs, int n);
/* 1 when the process is stopped (SIGSTOP, SIGTSTP, a debugger): it can
 * neither beat nor answer an abort. Linux /proc; 0 when unknown. */
int rt_proc_stopped(const rt_proc *p);

/* "killed by signal 9 (SIGKILL)", "exited with status 3". */
void rt_describe_status(int status, char *buf, size_t len);

#endif
