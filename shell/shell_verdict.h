/* shell_verdict.h - the verdict box and the whole verdict (v) (shell_verdict.c). */
#ifndef MGPU_SHELL_SHELL_VERDICT_H
#define MGPU_SHELL_SHELL_VERDICT_H
#include "app.h"

void draw_verdict(shell_app *a);
void verdict_show_all(shell_app *a);  /* v: the whole verdict in a scrollable view */
void verdict_view_refresh(shell_app *a); /* a new verdict arrived: an open `v` view of its step shows it */

#endif
