/* shell_keys.c - keys and mouse to actions: lists, focus, panes, steps. */
#include "shell_keys.h"
#include "shell_actions.h"
#include "shell_dialog.h"
#include "shell_verdict.h"
#include "shell_strings.h"

static int in_rect(const rect *r, int y, int x)
{
    return r->h > 0 && y >= r->y && y < r->y + r->h && x >= r->x && x < r->x + r->w;
}

static int pane_key(shell_app *a, int ch)
{
    if (a->npanes == 0) return 0;
    const pane_class *pc = shell_panes[a->pane_cur];
    return pc->key ? pc->key(a->pane_self[a->pane_cur], ch) : 0;
}

static void move_sel(shell_app *a, int delta)
{
    switch (a->focus) {
    case FOCUS_LABS:
        if (a->snap.nlabs == 0) return;
        a->lab_sel += delta;
        if (a->lab_sel < 0) a->lab_sel = 0;
        if (a->lab_sel >= a->snap.nlabs) a->lab_sel = a->snap.nlabs - 1;
        break;
    case FOCUS_STEPS: act_select_step(a, a->step_sel + delta); break;
    case FOCUS_TEXT: a->text_scroll += delta; break;
    case FOCUS_PANE:
        for (int i = 0; i < (delta < 0 ? -delta : delta); i++) pane_key(a, delta < 0 ? KEY_UP : KEY_DOWN);
        break;
    default: break;
    }
}

/* One key map (the ? help lists it): a letter means one thing everywhere
 * (c cancels, a answers, + and - size the pane, whatever has focus); the
 * pane's own letters (g, b, s, i, o, f, [, ]) are none of those. What
 * depends on focus is only where the arrows go: Up/Down move in the
 * focused list or scroll the focused text or pane; Left/Right move focus
 * between the lists and the text, and scroll the pane sideways when it has
 * focus. Tab / Shift-Tab move focus round; Esc goes back one level (pane
 * or text -> steps -> labs). */

/* 1-5 show a pane and give it the keys: the learner who asked for it is
 * about to scroll it. */
static void show_pane(shell_app *a, int i)
{
    if (i < 0 || i >= a->npanes) return;
    a->pane_cur = i;
    a->pane_picked = 1; /* a run's results do not take its place */
    a->focus = FOCUS_PANE;
    a->dirty = 1;
}

static void focus_step(shell_app *a, int dir, int wrap)
{
    int f = (int)a->focus;
    for (int tries = 0; tries < FOCUS_COUNT; tries++) {
        if (!wrap && (f + dir < 0 || f + dir >= FOCUS_COUNT)) return; /* arrows stop at the ends */
        f = (f + dir + FOCUS_COUNT) % FOCUS_COUNT;
        if (f == FOCUS_STEPS && a->lab_open < 0) continue;
        if (f != FOCUS_PANE && a->pane_max) continue; /* the maximised pane is all there is */
        break;
    }
    a->focus = (focus_area)f;
}

static void enter(shell_app *a)
{
    if (a->focus == FOCUS_LABS) act_open_lab(a, a->lab_sel);
    else if (a->focus == FOCUS_STEPS) act_run(a, a->lab_open, a->step_sel);
    else if (a->focus == FOCUS_PANE) pane_key(a, '\n');
}

void keys_handle(shell_app *a, int ch)
{
    a->dirty = 1;
    if (ch == KEY_RESIZE) return; /* the next frame lays out for the new size */
    if (ch == KEY_MOUSE) {
        mouse_handle(a);
        return;
    }
    dialog_outcome d;
    if (dialog_key(a, ch, &d)) {
        if (d.kind == DIALOG_CONFIRMED) act_confirmed(a, d.action, d.lab, d.step);
        else if (d.kind == DIALOG_ENTERED) act_answer_next(a);
        return;
    }
    int text_page = a->r_text.h > 4 ? a->r_text.h - 3 : 1;
    switch (ch) {
    case 'q':
        if (app_busy(a)) dialog_confirm(a, CONFIRM_QUIT, tr("A step is running. Cancel it and quit?"));
        else act_quit(a);
        return;
    case '?': dialog_help(a); return;
    case '\t': focus_step(a, +1, 1); return;
    case KEY_BTAB: focus_step(a, -1, 1); return;
    case '+': case '=': case '-': case '_':
        if (a->pane_rows <= 0) a->pane_rows = a->r_pane.h; /* from the default, as shown */
        a->pane_rows += ch == '+' || ch == '=' ? 1 : -1;
        a->pane_max = 0;
        return;
    case 'z':
        a->pane_max = !a->pane_max;
        if (a->pane_max) a->focus = FOCUS_PANE; /* its keys: the lists are hidden */
        return;
    case 'r':
        if (a->lab_open < 0 || a->lab_sel != a->lab_open) act_open_lab(a, a->lab_sel);
        else act_run(a, a->lab_open, a->step_sel);
        return;
    case 'c': act_cancel(a); return;
    case 'e': act_edit(a); return;
    case 'h': act_hint(a); return;
    case 'S': act_ask_solution(a); return;
    case 'a': act_answer(a); return;
    case 'v': verdict_show_all(a); return;
    case 'n': act_next(a); return;
    case 'L': act_lang(a); return;
    case 'x': {
        const snap_lab *l = app_lab(a, a->lab_open >= 0 ? a->lab_open : a->lab_sel);
        if (!l) return;
        if (app_busy(a)) { /* the running step would write its record back over the reset */
            dialog_message(a, tr("Reset"), tr("A step is running: its record would be written over the reset. "
                                       "c cancels it, then x resets."));
            return;
        }
        dialog_confirm(a, CONFIRM_RESET,
                       tr("Reset lab %s? Its exercise files go back to the originals (your copies are kept as "
                       "FILE.bak) and its progress is forgotten."), l->id);
        return;
    }
    case KEY_LEFT: case KEY_RIGHT:
        if (a->focus == FOCUS_PANE) pane_key(a, ch); /* sideways; Tab or Esc leave the pane */
        else focus_step(a, ch == KEY_LEFT ? -1 : +1, 0);
        return;
    case '\n': case '\r': case KEY_ENTER: enter(a); return;
    case 27:
        a->pane_max = 0; /* back to the lists */
        if ((a->focus == FOCUS_PANE || a->focus == FOCUS_TEXT) && a->lab_open >= 0) a->focus = FOCUS_STEPS;
        else a->focus = FOCUS_LABS;
        return;
    case KEY_UP: case 'k': move_sel(a, -1); return;
    case KEY_DOWN: case 'j': move_sel(a, +1); return;
    case KEY_PPAGE:
        if (a->focus == FOCUS_PANE && pane_key(a, ch)) return;
        a->text_scroll -= text_page;
        return;
    case KEY_NPAGE: case ' ':
        if (a->focus == FOCUS_PANE && pane_key(a, ch)) return;
        a->text_scroll += text_page;
        return;
    case KEY_HOME:
        if (a->focus == FOCUS_PANE && pane_key(a, ch)) return;
        /* in a list: its first entry; elsewhere the text's top */
        if (a->focus == FOCUS_LABS || a->focus == FOCUS_STEPS) move_sel(a, -(1 << 20));
        else a->text_scroll = 0;
        return;
    case KEY_END:
        if (a->focus == FOCUS_PANE && pane_key(a, ch)) return;
        if (a->focus == FOCUS_LABS || a->focus == FOCUS_STEPS) move_sel(a, 1 << 20);
        else a->text_scroll = 1 << 20; /* clamped when drawn */
        return;
    default:
        for (int i = 0; i < a->npanes; i++)
            if (ch == shell_panes[i]->hotkey) {
                show_pane(a, i);
                return;
            }
        if (ch >= '1' && ch <= '9') return; /* digits are pane keys, even with no pane there */
        if (a->focus == FOCUS_PANE) pane_key(a, ch);
        return;
    }
}

/* The wheel scrolls the region under the pointer, a click selects. */
void mouse_handle(shell_app *a)
{
    MEVENT me;
    if (getmouse(&me) != OK || a->too_small || a->modal.kind != MODAL_NONE) return;
    int wheel = 0;
    if (me.bstate & BUTTON4_PRESSED) wheel = -1;
#ifdef BUTTON5_PRESSED
    else if (me.bstate & BUTTON5_PRESSED) wheel = +1;
#endif
    if (wheel) {
        focus_area keep = a->focus;
        if (in_rect(&a->r_labs, me.y, me.x)) a->focus = FOCUS_LABS;
        else if (in_rect(&a->r_steps, me.y, me.x)) a->focus = FOCUS_STEPS;
        else if (in_rect(&a->r_text, me.y, me.x)) a->focus = FOCUS_TEXT;
        else if (in_rect(&a->r_pane, me.y, me.x)) a->focus = FOCUS_PANE;
        else return;
        move_sel(a, wheel * (a->focus == FOCUS_TEXT || a->focus == FOCUS_PANE ? 3 : 1));
        a->focus = keep;
        return;
    }
    if (!(me.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED))) return;
    if (in_rect(&a->r_labs, me.y, me.x)) {
        /* a wrapped title takes several rows: the row's item, as drawn */
        int y = me.y - a->r_labs.y - 1, row = y >= 0 && y < 256 ? a->lab_at_row[y] : -1;
        if (row >= 0 && row < a->snap.nlabs) act_open_lab(a, row);
        else a->focus = FOCUS_LABS;
    } else if (in_rect(&a->r_steps, me.y, me.x)) {
        const snap_lab *l = app_lab(a, a->lab_open);
        int y = me.y - a->r_steps.y - 1, row = y >= 0 && y < 256 ? a->step_at_row[y] : -1;
        if (l && row >= 0 && row < l->nsteps) {
            a->lab_sel = a->lab_open;
            act_select_step(a, row);
            a->focus = FOCUS_STEPS;
        }
    } else if (in_rect(&a->r_pane, me.y, me.x)) {
        a->focus = FOCUS_PANE;
        if (me.y == a->r_pane.y)
            for (int i = 0; i < a->npanes; i++)
                if (a->tab_w[i] > 0 && me.x >= a->tab_x[i] && me.x < a->tab_x[i] + a->tab_w[i]) show_pane(a, i);
    } else if (in_rect(&a->r_text, me.y, me.x)) {
        a->focus = FOCUS_TEXT;
    }
}
