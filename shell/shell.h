/* shell.h - the interactive shell (ncurses): `mgpulab` with no command.
 * A layer over the engine's lab framework (mgpu/lab.h) and telemetry
 * (mgpu/telemetry.h); it never calls CUDA and holds no lab logic. */
#ifndef MGPU_SHELL_H
#define MGPU_SHELL_H
#include "cmd.h"

/* Run the shell until the user quits; returns the process exit status.
 * On a terminal that is not a terminal (stdout not a tty) it says so and
 * returns 2. */
int mgpu_shell_run(const mgpu_cli_globals *g);

#endif
