/* shell_layout.c - where every region of the screen goes for the current
 * terminal size: top bar, lab list and steps on the left, the step text,
 * the verdict box and the active pane on the right, the status line. */
#include "app.h"

static int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Rows the verdict box needs for the selected step (0 when there is
 * nothing to say yet). */
static int verdict_rows(const shell_app *a)
{
    const shell_verdict *v = &a->verdict;
    if (v->valid && v->lab == a->lab_open && v->step == a->step_sel) {
        /* a read step or a pass has one line to say: the text keeps the rows */
        if (v->state == MGPU_STEP_READ) return 3;
        if (v->state == MGPU_STEP_PASSED) return 4;
        return v->state == MGPU_STEP_ERROR && v->traceback[0] ? 10 : 7;
    }
    const snap_step *st = app_step(a, a->lab_open, a->step_sel);
    if (st && (st->state != MGPU_STEP_NEW || st->last_message)) return 4;
    return 0;
}

void layout_compute(shell_app *a)
{
    int H = LINES, W = COLS;
    a->too_small = W < SHELL_MIN_W || H < SHELL_MIN_H;
    if (a->too_small) return;
    a->r_top = (rect){0, 0, 1, W};
    a->r_status = (rect){H - 1, 0, 1, W};
    int body_y = 1, body_h = H - 2;
    int lw = clamp(W / 4, 26, 40);
    int nlabs = a->snap.nlabs > 0 ? a->snap.nlabs : 1;
    /* titles wrap where the boxes have the rows for it, else they are cut:
     * the steps keep room for the open lab's steps, cut */
    const snap_lab *open = app_lab(a, a->lab_open);
    int steps_min = clamp((open ? open->nsteps : 0) + 2, 5, body_h / 2);
    a->labs_wrap = 1;
    for (int k = 3; k > 1 && a->snap.nlabs > 0; k--)
        if (list_lab_rows(a, lw - 2, k) + 2 <= body_h - steps_min) {
            a->labs_wrap = k;
            break;
        }
    int labs_h = a->labs_wrap > 1 ? list_lab_rows(a, lw - 2, a->labs_wrap) + 2 : clamp(nlabs + 2, 5, body_h / 2);
    if (labs_h < 5) labs_h = 5;
    a->r_labs = (rect){body_y, 0, labs_h, lw};
    a->r_steps = (rect){body_y + labs_h, 0, body_h - labs_h, lw};
    a->steps_wrap = 1;
    for (int k = 3; k > 1 && open; k--)
        if (list_step_rows(a, lw - 2, k) <= body_h - labs_h - 2) {
            a->steps_wrap = k;
            break;
        }

    int mx = lw, mw = W - lw, mh = body_h;
    int vh = verdict_rows(a);
    if (vh > mh / 3) vh = mh / 3;
    if (a->pane_max) {
        a->r_text = (rect){body_y, mx, 0, mw};
        a->r_verdict = (rect){body_y, mx, 0, mw};
        a->r_pane = (rect){body_y, mx, mh, mw};
        return;
    }
    int room = mh - vh;          /* text + pane */
    if (a->pane_rows <= 0) a->pane_rows = room / 2;
    a->pane_rows = clamp(a->pane_rows, 5, room - 5);
    int th = room - a->pane_rows;
    a->r_text = (rect){body_y, mx, th, mw};
    a->r_verdict = (rect){body_y + th, mx, vh, mw};
    a->r_pane = (rect){body_y + th + vh, mx, a->pane_rows, mw};
}
