/* shell_draw.c - one frame: the top bar, the lab and step lists, the
 * region frames, the status line (progress while work runs) and the
 * too-small screen; the text, verdict and pane are in shell_draw_main.c. */
#include "mgpu/classcfg.h"
#include "app.h"
#include "text.h"
#include "theme.h"
#include <stdio.h>
#include <string.h>

/* A frame around r with a title in its top edge. */
void draw_box(const rect *r, const char *title, int focused)
{
    if (r->h < 2 || r->w < 4) return;
    attr_t fa = theme_attr(TH_FRAME);
    /* focus shows in the frame (bold, the focus colour) and, for NO_COLOR
     * and monochrome terminals, as a "> " before the title */
    attrset(focused ? theme_attr(TH_FRAME_FOCUS) | A_BOLD : fa);
    mvhline(r->y, r->x + 1, ACS_HLINE, r->w - 2);
    mvhline(r->y + r->h - 1, r->x + 1, ACS_HLINE, r->w - 2);
    mvvline(r->y + 1, r->x, ACS_VLINE, r->h - 2);
    mvvline(r->y + 1, r->x + r->w - 1, ACS_VLINE, r->h - 2);
    mvaddch(r->y, r->x, ACS_ULCORNER);
    mvaddch(r->y, r->x + r->w - 1, ACS_URCORNER);
    mvaddch(r->y + r->h - 1, r->x, ACS_LLCORNER);
    mvaddch(r->y + r->h - 1, r->x + r->w - 1, ACS_LRCORNER);
    attrset(A_NORMAL);
    if (title) {
        char t[256];
        snprintf(t, sizeof t, focused ? " > %s " : " %s ", title);
        text_put(stdscr, r->y, r->x + 2, t, r->w - 4, focused ? theme_attr(TH_FRAME_FOCUS) | A_BOLD : fa);
    }
}

static void draw_top(shell_app *a)
{
    const rect *r = &a->r_top;
    attr_t bar = theme_attr(TH_TOPBAR);
    text_put_pad(stdscr, r->y, 0, "", r->w, bar);
    int x = text_put(stdscr, 0, 0, " mgpulab ", r->w, bar | A_BOLD);
    const mgpu_class_config *cc = NULL;
    if (mgpu_class_config_active(&cc) == MGPU_OK && cc) {
        /* every learner sees that the instructor's setting is in force */
        char cls[160];
        snprintf(cls, sizeof cls, "[class: %s] ", cc->name[0] ? cc->name : "configured");
        x += text_put(stdscr, 0, x, cls, r->w - x, bar | A_BOLD);
    } else {
        mgpu_error_clear();
    }
    static const char keys[] = " Enter run  c cancel  e edit  h hint  ? help  q quit ";
    int kw = (int)strlen(keys);
    int room = r->w - x - kw - 1;
    if (room < 20) room = r->w - x - 1; /* narrow: the banner matters more than the hints */
    char line[300];
    snprintf(line, sizeof line, " %s ", a->backend_line);
    x += text_put(stdscr, 0, x, line, room, a->simulated ? theme_attr(TH_BANNER) : bar | A_BOLD);
    if (r->w - x >= kw) text_put(stdscr, 0, r->w - kw, keys, kw, bar);
}

static attr_t state_attr(mgpu_step_state st)
{
    switch (st) {
    case MGPU_STEP_PASSED: return theme_attr(TH_PASS);
    case MGPU_STEP_FAILED: return theme_attr(TH_FAIL);
    case MGPU_STEP_ERROR: return theme_attr(TH_ERROR);
    case MGPU_STEP_CANCELLED: return theme_attr(TH_CANCELLED);
    default: return A_NORMAL;
    }
}

/* Keep the selected row visible: adjust *top for a list of `rows` rows. */
static void follow(int sel, int rows, int *top)
{
    if (rows <= 0) return;
    if (sel < *top) *top = sel;
    if (sel >= *top + rows) *top = sel - rows + 1;
    if (*top < 0) *top = 0;
}

static void draw_labs(shell_app *a)
{
    const rect *r = &a->r_labs;
    draw_box(r, "Labs", a->focus == FOCUS_LABS);
    int rows = r->h - 2, w = r->w - 2;
    if (!a->loaded) {
        text_put(stdscr, r->y + 1, r->x + 1, "loading labs...", w, theme_attr(TH_DIM));
        return;
    }
    if (a->snap.nlabs == 0) {
        text_put(stdscr, r->y + 1, r->x + 1, "no labs found", w, theme_attr(TH_ERROR));
        return;
    }
    follow(a->lab_sel, rows, &a->lab_top);
    for (int i = 0; i < rows && a->lab_top + i < a->snap.nlabs; i++) {
        int li = a->lab_top + i;
        const snap_lab *l = &a->snap.labs[li];
        char prog[32];
        snprintf(prog, sizeof prog, " %d/%d", l->passed, l->nchecked); /* reading steps are not passed */
        int pw = (int)strlen(prog);
        char row[256];
        snprintf(row, sizeof row, "%s%2d %s", snap_lab_mark(l), l->number, l->title ? l->title : l->id);
        attr_t at = A_NORMAL;
        if (li == a->lab_sel) at = theme_attr(a->focus == FOCUS_LABS ? TH_SELECTED : TH_SELECTED_DIM);
        text_put_pad(stdscr, r->y + 1 + i, r->x + 1, row, w - pw, at | (li == a->lab_open ? A_BOLD : 0));
        text_put_pad(stdscr, r->y + 1 + i, r->x + 1 + w - pw, prog, pw, at);
    }
}

static void draw_steps(shell_app *a)
{
    const rect *r = &a->r_steps;
    const snap_lab *l = app_lab(a, a->lab_open);
    char title[128];
    snprintf(title, sizeof title, "Steps%s%s", l ? ": " : "", l ? l->id : "");
    draw_box(r, title, a->focus == FOCUS_STEPS);
    int rows = r->h - 2, w = r->w - 2;
    if (!l) {
        if (a->loaded && a->snap.nlabs > 0)
            text_put(stdscr, r->y + 1, r->x + 1, "Enter opens the selected lab", w, theme_attr(TH_DIM));
        return;
    }
    if (l->load_error) {
        text_put(stdscr, r->y + 1, r->x + 1, "this lab did not load", w, theme_attr(TH_ERROR));
        return;
    }
    follow(a->step_sel, rows, &a->step_top);
    for (int i = 0; i < rows && a->step_top + i < l->nsteps; i++) {
        int si = a->step_top + i;
        const snap_step *st = &l->steps[si];
        int running = app_busy(a) && a->work.lab == a->lab_open && a->work.step == si;
        char row[256];
        snprintf(row, sizeof row, "%s %d %s", running ? "[>]" : snap_step_mark(st), si + 1,
                 st->title ? st->title : st->id);
        attr_t at = si == a->step_sel ? theme_attr(a->focus == FOCUS_STEPS ? TH_SELECTED : TH_SELECTED_DIM)
                                      : A_NORMAL;
        text_put_pad(stdscr, r->y + 1 + i, r->x + 1, row, w, at);
        /* the mark in the state's colour, unless the row is highlighted */
        if (si != a->step_sel && !running)
            text_put(stdscr, r->y + 1 + i, r->x + 1, snap_step_mark(st), 3, state_attr(st->state));
    }
}

static void draw_status(shell_app *a)
{
    const rect *r = &a->r_status;
    move(r->y, 0);
    clrtoeol();
    if (!app_busy(a)) {
        text_put(stdscr, r->y, 0, a->status[0] ? a->status :
                 "Enter open/run  r run  v verdict  e edit  h hint  a answer  1-5 pane  Tab focus  ? help",
                 r->w, A_NORMAL);
        return;
    }
    const shell_work *w = &a->work;
    const snap_step *st = app_step(a, w->lab, w->step);
    char head[160];
    snprintf(head, sizeof head, " %s %s ", w->cancel ? "cancelling" : "running", st && st->title ? st->title : "step");
    int x = text_put(stdscr, r->y, 0, head, r->w / 3, A_BOLD);
    int bar = 20;
    if (w->fraction >= 0) {
        int filled = (int)(w->fraction * bar + 0.5);
        if (filled > bar) filled = bar;
        mvaddch(r->y, x++, '[');
        for (int i = 0; i < bar; i++)
            text_put(stdscr, r->y, x + i, i < filled ? "#" : ".", 1, i < filled ? theme_attr(TH_PROGRESS) : A_NORMAL);
        x += bar;
        x += text_putf(stdscr, r->y, x, r->w - x, A_NORMAL, "] %3.0f%% ", w->fraction * 100);
    }
    char tail[64];
    snprintf(tail, sizeof tail, "  %.1f s   c cancel ", shell_now() - w->started);
    int tw = (int)strlen(tail);
    text_put(stdscr, r->y, x, w->what, r->w - x - tw, A_NORMAL);
    if (r->w - tw > x) text_put(stdscr, r->y, r->w - tw, tail, tw, A_BOLD);
}

/* Below the minimum: only the message, centred and wrapped so it fits
 * even a terminal a few columns wide. */
static void draw_too_small(void)
{
    char msg[128];
    snprintf(msg, sizeof msg, "mgpulab needs at least %dx%d; this terminal is %dx%d", SHELL_MIN_W, SHELL_MIN_H,
             COLS, LINES);
    const char *words[16];
    int nw = 0;
    for (char *t = strtok(msg, " "); t && nw < 16; t = strtok(NULL, " ")) words[nw++] = t;
    char lines[16][128];
    int nl = 0;
    lines[0][0] = 0;
    for (int i = 0; i < nw; i++) {
        int cur = (int)strlen(lines[nl]);
        if (cur > 0 && cur + 1 + (int)strlen(words[i]) > COLS && nl < 15) lines[++nl][0] = 0, cur = 0;
        snprintf(lines[nl] + cur, sizeof lines[nl] - (size_t)cur, "%s%s", cur ? " " : "", words[i]);
    }
    nl++;
    int y0 = (LINES - nl) / 2;
    if (y0 < 0) y0 = 0;
    for (int i = 0; i < nl && y0 + i < LINES; i++) {
        int len = (int)strlen(lines[i]);
        int x = (COLS - len) / 2;
        if (x < 0) x = 0;
        text_put(stdscr, y0 + i, x, lines[i], COLS - x, A_BOLD);
    }
}

void draw_frame(shell_app *a)
{
    erase();
    layout_compute(a);
    if (a->too_small) {
        draw_too_small();
        wnoutrefresh(stdscr);
        doupdate();
        return;
    }
    draw_top(a);
    draw_labs(a);
    draw_steps(a);
    draw_text(a);
    draw_verdict(a);
    draw_status(a);
    wnoutrefresh(stdscr);
    draw_pane(a); /* its own window, over stdscr */
    dialog_draw(a);
    doupdate();
}
