/* shell_draw_main.h - the main area: the step text and the active pane (shell_draw_main.c). */
#ifndef MGPU_SHELL_SHELL_DRAW_MAIN_H
#define MGPU_SHELL_SHELL_DRAW_MAIN_H
#include "app.h"

void draw_text(shell_app *a);
void draw_pane(shell_app *a);

#endif
