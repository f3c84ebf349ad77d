/* shell_panes.h - the panes' lifetimes, dirtiness and telemetry feed (shell_panes.c). */
#ifndef MGPU_SHELL_SHELL_PANES_H
#define MGPU_SHELL_SHELL_PANES_H
#include "app.h"

void panes_create(shell_app *a);
void panes_destroy(shell_app *a);
void panes_telemetry(shell_app *a);
int panes_dirty(shell_app *a);

#endif
