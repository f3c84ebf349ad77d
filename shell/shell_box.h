/* shell_box.h - the frame every region is drawn in (shell_box.c). */
#ifndef MGPU_SHELL_SHELL_BOX_H
#define MGPU_SHELL_SHELL_BOX_H
#include "app.h"

/* A frame around r with a title in its top edge. */
void draw_box(const rect *r, const char *title, int focused);

#endif
