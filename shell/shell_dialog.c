/* shell_dialog.c - modal boxes over the screen: help, messages (hints,
 * warnings, errors), y/n confirmations and one-line prompts. The main loop
 * keeps running under them (events still arrive); keys go to the dialog. */
#include "shell_dialog.h"
#include "shell_strings.h"
#include "text.h"
#include "theme.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static void set_text(modal *m, const char *text)
{
    free(m->text);
    m->text = strdup(text ? text : "");
    m->scroll = 0;
}

void dialog_close(shell_app *a)
{
    free(a->modal.text);
    memset(&a->modal, 0, sizeof a->modal);
    a->dirty = 1;
}

void dialog_help(shell_app *a)
{
    dialog_close(a);
    a->modal.kind = MODAL_HELP;
    snprintf(a->modal.title, sizeof a->modal.title, "%s", tr("Help: keys (j/k, PgUp/PgDn scroll; other keys close)"));
    set_text(&a->modal, tr(shell_help_text));
}

void dialog_message(shell_app *a, const char *title, const char *fmt, ...)
{
    char buf[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    dialog_text(a, title, buf);
}

void dialog_text(shell_app *a, const char *title, const char *text)
{
    dialog_close(a);
    a->modal.kind = MODAL_MESSAGE;
    snprintf(a->modal.title, sizeof a->modal.title, "%s", title);
    text_trim_partial(a->modal.title);
    set_text(&a->modal, text);
}

void dialog_confirm(shell_app *a, confirm_action act, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    dialog_close(a);
    a->modal.kind = MODAL_CONFIRM;
    a->modal.action = act;
    snprintf(a->modal.title, sizeof a->modal.title, "%s", tr("Confirm (y/n)"));
    set_text(&a->modal, buf);
}

void dialog_draw(shell_app *a)
{
    modal *m = &a->modal;
    if (m->kind == MODAL_NONE) return;
    int w = COLS - 8 < 78 ? COLS - 8 : 78;
    if (w < 20) w = COLS;
    enum { MAXR = 400 };
    const char *starts[MAXR];
    int lens[MAXR];
    int n = text_wrap(m->text ? m->text : "", w - 4, starts, lens, MAXR);
    int extra = m->kind == MODAL_PROMPT ? 2 : (m->kind == MODAL_CONFIRM ? 2 : 0);
    int h = n + extra + 2;
    if (h > LINES - 2) h = LINES - 2;
    if (h < 3) h = 3;
    int rows = h - 2 - extra;
    if (m->scroll > n - rows) m->scroll = n - rows;
    if (m->scroll < 0) m->scroll = 0;
    WINDOW *win = newwin(h, w, (LINES - h) / 2, (COLS - w) / 2);
    if (!win) return;
    wbkgd(win, theme_attr(TH_DIALOG));
    werase(win);
    box(win, 0, 0);
    char title[400];
    snprintf(title, sizeof title, " %s ", m->title);
    text_put_cut(win, 0, 2, title, w - 4, theme_attr(TH_DIALOG) | A_BOLD);
    for (int i = 0; i < rows && m->scroll + i < n; i++) {
        char line[1024];
        snprintf(line, sizeof line, "%.*s", lens[m->scroll + i], starts[m->scroll + i]);
        text_put(win, 1 + i, 2, line, w - 4, theme_attr(TH_DIALOG));
    }
    if (n > rows) text_putf(win, h - 1, w - 16, 14, theme_attr(TH_DIALOG), " %d/%d ", m->scroll + rows, n);
    if (m->kind == MODAL_CONFIRM) text_put(win, h - 2, 2, tr("y: yes    n / Esc: no"), w - 4, theme_attr(TH_DIALOG) | A_BOLD);
    if (m->kind == MODAL_PROMPT) {
        int room = w - 8;
        const char *shown = m->input;
        while (text_width(shown, -1) > room) shown += text_char_len(shown, (int)strlen(shown)); /* the end of a long answer, whole characters */
        attr_t at = theme_attr(TH_DIALOG) | A_BOLD;
        int x = 2 + text_put(win, h - 2, 2, "> ", w - 4, at);
        if (m->input_old) {
            /* the saved answer, selected (reverse video, also in NO_COLOR):
             * the row above says what the keys do with it */
            text_put(win, h - 2, x, shown, w - 2 - x, at | A_REVERSE);
            text_put(win, h - 3, 2, tr("your last answer: Enter keeps it, typing replaces it, End edits it"),
                     w - 4, theme_attr(TH_DIALOG));
        } else {
            x += text_put(win, h - 2, x, shown, w - 2 - x, at);
            text_put(win, h - 2, x, "_", w - 2 - x, at);
        }
    }
    wnoutrefresh(win);
    delwin(win);
}

/* The saved answer comes up selected (input_old): Enter keeps it, the
 * first character typed replaces it, Backspace or ^U clear it, Right or
 * End keep it for editing at its end. Once edited, the keys are a
 * terminal's: Backspace drops one character, ^U clears the line. */
static void prompt_key(shell_app *a, int ch, dialog_outcome *out)
{
    modal *m = &a->modal;
    if (m->input_old && ch != 27 && ch != '\n' && ch != '\r' && ch != KEY_ENTER && ch != KEY_RESIZE &&
        ch != KEY_MOUSE) {
        m->input_old = 0;
        if (ch == KEY_RIGHT || ch == KEY_END) return;
        if (ch == KEY_BACKSPACE || ch == 127 || ch == 8 || ch == 21 ||
            (ch >= 0x20 && ch < 0x100 && ch != 0x7f)) {
            m->input_len = 0; /* a selection is replaced by what is typed, or deleted */
            m->input[0] = 0;
            if (ch == KEY_BACKSPACE || ch == 127 || ch == 8 || ch == 21) return;
        }
    }
    if (ch == 27) {
        dialog_close(a);
        status_set(a, tr("answer not saved"));
    } else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        out->kind = DIALOG_ENTERED; /* the caller saves it (the dialog stays open for that) */
    } else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        /* drop one UTF-8 character: continuation bytes are 10xxxxxx */
        while (m->input_len > 0) {
            unsigned char c = (unsigned char)m->input[--m->input_len];
            if ((c & 0xC0) != 0x80) break;
        }
        m->input[m->input_len] = 0;
    } else if (ch == 21) { /* ^U clears, as in a terminal */
        m->input_len = 0;
        m->input[0] = 0;
    } else if (ch >= 0x20 && ch < 0x100 && ch != 0x7f && m->input_len < (int)sizeof m->input - 1) {
        m->input[m->input_len++] = (char)ch;
        m->input[m->input_len] = 0;
    }
}

/* The dialog only says what the learner chose (out): acting on it is the
 * caller's (shell_keys.c), so a dialog never calls the actions that open it. */
int dialog_key(shell_app *a, int ch, dialog_outcome *out)
{
    modal *m = &a->modal;
    *out = (dialog_outcome){.kind = DIALOG_KEPT};
    if (m->kind == MODAL_NONE) return 0;
    a->dirty = 1;
    switch (m->kind) {
    case MODAL_PROMPT: prompt_key(a, ch, out); break;
    case MODAL_CONFIRM:
        if (ch == 'y' || ch == 'Y') {
            *out = (dialog_outcome){.kind = DIALOG_CONFIRMED, .action = m->action, .lab = m->lab, .step = m->step};
            dialog_close(a);
        } else if (ch == 'n' || ch == 'N' || ch == 27 || ch == 'q') {
            dialog_close(a);
        }
        break;
    default:
        if (ch == KEY_DOWN || ch == 'j') m->scroll++;
        else if (ch == KEY_UP || ch == 'k') m->scroll--;
        else if (ch == KEY_NPAGE || ch == ' ') m->scroll += 10;
        else if (ch == KEY_PPAGE) m->scroll -= 10;
        else if (ch != KEY_RESIZE && ch != KEY_MOUSE) dialog_close(a);
        break;
    }
    return 1;
}
