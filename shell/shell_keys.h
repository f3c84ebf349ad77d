/* shell_keys.h - keys and mouse to actions (shell_keys.c). */
#ifndef MGPU_SHELL_SHELL_KEYS_H
#define MGPU_SHELL_SHELL_KEYS_H
#include "app.h"

void keys_handle(shell_app *a, int ch);
void mouse_handle(shell_app *a);

#endif
