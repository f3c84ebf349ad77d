/* shell.h - the interactive shell (ncurses): `mgpulab` with no command.
 * A layer over the engine's lab framework (mgpu/lab.h) and telemetry
 * (mgpu/telemetry.h); it never calls CUDA and holds no lab logic. */
#ifndef MGPU_SHELL_H
#define MGPU_SHELL_H
#include "mgpu/dev.h"

/* What the shell takes from the command line (main.c fills it from its
 * global options; the shell sits below cli/ and never includes it). */
typedef struct mgpu_shell_options {
    mgpu_backend_config backend;  /* --backend, --machine, --fault */
    const char *launcher;         /* --launcher */
    int ranks;                    /* --ranks N, 0 = default */
    double timeout_s;             /* --timeout SECONDS, 0 = default */
} mgpu_shell_options;

/* Run the shell until the user quits; returns the process exit status.
 * On a terminal that is not a terminal (stdout not a tty) it says so and
 * returns 2. */
int mgpu_shell_run(const mgpu_shell_options *g);

#endif
