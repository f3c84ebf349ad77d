/* shell_lists.h - the lab list and the open lab's steps (shell_lists.c). */
#ifndef MGPU_SHELL_SHELL_LISTS_H
#define MGPU_SHELL_SHELL_LISTS_H
#include "app.h"

/* The lab list and the open lab's steps. Rows they take at
 * `inner_w` columns, each title wrapped to at most `wrap` rows (the layout
 * asks), and their drawing. */
int list_lab_rows(const shell_app *a, int inner_w, int wrap);
int list_step_rows(const shell_app *a, int inner_w, int wrap);
void draw_labs(shell_app *a);
void draw_steps(shell_app *a);

#endif
