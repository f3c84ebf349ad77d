/* shell_layout.c - where every region of the screen goes for the current
 * terminal size: top bar, lab list and steps on the left, the step text,
 * the verdict box and the active pane on the right, the status line. */
#include "shell_layout.h"
#include "shell_lists.h"

static int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Rows the verdict box needs for the selected step (0 when there is
 * nothing to say yet). */
static int verdict_rows(const shell_app *a)
{
    const shell_verdict *sv = &a->verdict;
    if (sv->valid && sv->lab == a->lab_open && sv->step == a->step_sel) {
        const mgpu_lab_verdict *v = &sv->v;
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
    /* Titles wrap to up to 4 rows, never cut where the box has the rows
     * (at 80 columns a list is 24 wide: "DDP: what PyTorch does for you"
     * was cut to "DDP: what / PyTorch does f"). When the lab list and the
     * open lab's steps do not both fit, the list in use gets the rows it
     * needs - the labs while they have focus or no lab is open, else the
     * steps - and the other one scrolls (its frame says how many items
     * are above and below). */
    const snap_lab *open = app_lab(a, a->lab_open);
    a->labs_wrap = a->steps_wrap = 4; /* "5 CUDA IPC between two processes, and the handle's lifetime" */
    int labs_need = (a->snap.nlabs > 0 ? list_lab_rows(a, lw - 2, 4) : 1) + 2;
    int steps_need = (open && open->nsteps > 0 ? list_step_rows(a, lw - 2, 4) : 1) + 2;
    int labs_h;
    if (labs_need + steps_need <= body_h) labs_h = labs_need;
    else if (a->focus == FOCUS_LABS || !open) labs_h = clamp(labs_need, 5, body_h - 5);
    else labs_h = clamp(body_h - steps_need, 5, body_h - 5);
    a->r_labs = (rect){body_y, 0, labs_h, lw};
    a->r_steps = (rect){body_y + labs_h, 0, body_h - labs_h, lw};

    /* At small sizes the step text is what the learner reads: the verdict
     * box shows its head (v shows all of it) and the pane starts at a
     * third of the room (+ / - and z size it); at 80x24 the text had 9
     * rows, 2 under a failed verdict. */
    int small = body_h < 30;
    int mx = lw, mw = W - lw, mh = body_h;
    int vh = verdict_rows(a);
    if (vh > (small ? 6 : mh / 3)) vh = small ? 6 : mh / 3;
    if (a->pane_max) {
        /* z: the focused pane alone, the whole width - at 80x24 beside the
         * lists it had 54 columns, and lab 8's per-rank flight records and
         * lab 9's fragmentation table need more. The lists are not drawn
         * (nor clicked) until z or Esc gives them back. */
        a->r_labs = (rect){body_y, 0, 0, 0};
        a->r_steps = (rect){body_y, 0, 0, 0};
        a->r_text = (rect){body_y, 0, 0, W};
        a->r_verdict = (rect){body_y, 0, 0, W};
        a->r_pane = (rect){body_y, 0, mh, W};
        return;
    }
    int room = mh - vh;          /* text + pane */
    /* pane_rows <= 0: the default for this size; + and - set it */
    int ph = a->pane_rows > 0 ? a->pane_rows : small ? clamp(room / 3, 6, room) : room / 2;
    ph = clamp(ph, 5, room - 5);
    if (a->pane_rows > 0) a->pane_rows = ph;
    int th = room - ph;
    a->r_text = (rect){body_y, mx, th, mw};
    a->r_verdict = (rect){body_y + th, mx, vh, mw};
    a->r_pane = (rect){body_y + th + vh, mx, ph, mw};
}
