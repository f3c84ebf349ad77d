/* shell_draw.h - one full frame (shell_draw.c). */
#ifndef MGPU_SHELL_SHELL_DRAW_H
#define MGPU_SHELL_SHELL_DRAW_H
#include "app.h"

/* One full frame (stdscr, the pane window, then any dialog). */
void draw_frame(shell_app *a);

#endif
