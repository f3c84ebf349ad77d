/* shell_dialog.h - modal boxes: help, messages, confirmations, prompts (shell_dialog.c). */
#ifndef MGPU_SHELL_SHELL_DIALOG_H
#define MGPU_SHELL_SHELL_DIALOG_H
#include "app.h"

/* What a key did in an open dialog. */
typedef struct dialog_outcome {
    enum {
        DIALOG_KEPT,      /* scrolled, typed, closed: nothing more to do */
        DIALOG_CONFIRMED, /* y: do `action` (for lab, step); the dialog is closed */
        DIALOG_ENTERED,   /* Enter in a prompt: its input (a->modal) is to be saved; still open */
    } kind;
    confirm_action action;
    int lab, step;
} dialog_outcome;

void dialog_draw(shell_app *a);
int dialog_key(shell_app *a, int ch, dialog_outcome *out); /* 1 when a dialog took the key */
void dialog_message(shell_app *a, const char *title, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void dialog_confirm(shell_app *a, confirm_action act, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void dialog_text(shell_app *a, const char *title, const char *text); /* a message of any length */
void dialog_help(shell_app *a);
void dialog_close(shell_app *a);

#endif
