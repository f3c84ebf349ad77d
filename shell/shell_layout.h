/* shell_layout.h - where every region of the screen goes for the terminal's size (shell_layout.c). */
#ifndef MGPU_SHELL_SHELL_LAYOUT_H
#define MGPU_SHELL_SHELL_LAYOUT_H
#include "app.h"

void layout_compute(shell_app *a);

#endif
