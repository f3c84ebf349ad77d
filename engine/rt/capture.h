/* capture.h - output capture (mgpu_rt_config.capture_output): the workers'
 * stdout and stderr read from pipes, split into lines, and each line given
 * a rank - the pipe's own (local launchers) or the one mpirun's
 * --tag-output / srun's --label put in front of it. */
#ifndef MGPU_RT_CAPTURE_H
#define MGPU_RT_CAPTURE_H
#include <stddef.h>
#include <jansson.h>
#include "mgpu/rt.h"
#include "rt/rt_internal.h"

#define RT_LINE_MAX 4096 /* longer lines are delivered in pieces */

typedef struct rt_pipe {
    int fd;                 /* read end (non-blocking), -1 once at EOF */
    int rank;               /* the writer's rank; -1: mpirun/srun (lines are tagged) */
    int is_err;             /* stderr */
    mgpu_launcher kind;     /* which tags to expect */
    char buf[RT_LINE_MAX];
    size_t len;
} rt_pipe;

/* Called once per line: text without the newline (nor the launcher's tag),
 * rank -1 when unknown, stream "stdout" or "stderr". */
typedef void (*rt_line_fn)(void *ctx, int rank, const char *stream, const char *text, size_t len);

/* Read what the pipe has and deliver its complete lines. Returns 0 once the
 * pipe reached EOF (the rest delivered, fd closed), 1 while it stays open. */
int rt_pipe_read(rt_pipe *p, rt_line_fn fn, void *ctx);
/* Deliver what is left (a last line without newline) and close. */
void rt_pipe_close(rt_pipe *p, rt_line_fn fn, void *ctx);

/* The stdout/stderr pipes rt_launch_start made (rt_proc out_fd, err_fd)
 * become a new array of 2 x nprocs rt_pipe (the procs' fds are set to -1). */
mgpu_result rt_pipes_take(rt_proc *procs, int nprocs, mgpu_launcher kind, rt_pipe **out, int *n);
/* After every process was reaped: deliver what is left in the pipes, up to
 * EOF (bounded to 0.2 s, in case a stray descendant holds one open), and
 * close them. */
void rt_pipes_drain(rt_pipe *p, int n, rt_line_fn fn, void *ctx);

/* Take a launcher's tag off the front of a line: Open MPI's
 * "[1,3]<stdout>:" (Open MPI 4) or with a space after the colon (5), Slurm's "3: ".
 * Moves *text and *len past the tag and sets *rank (and *stream for mpirun);
 * returns 0 when the line has no tag. */
int rt_untag(mgpu_launcher kind, const char **text, size_t *len, int *rank, const char **stream);

/* A JSON string of the line; bytes that are not UTF-8 become '?'. */
json_t *rt_line_json(const char *text, size_t len);

#endif
