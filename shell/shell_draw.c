/* shell_draw.c - one frame: the top bar, the lab and step lists, the
 * region frames, the status line (progress while work runs) and the
 * too-small screen; the text, verdict and pane are in shell_draw_main.c. */
#include "mgpu/classcfg.h"
#include "app.h"
#include "shell_strings.h"
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
        /* a title too long for the frame ends with the ellipsis (by display
         * width: a Hangul title takes two columns a character); the space
         * after it goes first */
        char t[320], cut[300];
        int lead = focused ? 3 : 1;
        text_cut(cut, sizeof cut, title, r->w - 4 - lead);
        snprintf(t, sizeof t, focused ? " > %s " : " %s ", cut);
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
    const char *keys = tr(" Enter run  c cancel  e edit  h hint  ? help  q quit ");
    int kw = text_width(keys, -1);
    char line[300];
    snprintf(line, sizeof line, " %s ", a->backend_line);
    /* the banner matters more than the hints (the status line has them) */
    x += text_put(stdscr, 0, x, line, r->w - x - 1, a->simulated ? theme_attr(TH_BANNER) : bar | A_BOLD);
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

/* Keep the selected item visible in a list of `rows` rows whose item i
 * takes height[i] rows: adjust *top (the first item shown). */
static void follow(int sel, int rows, const int *height, int *top)
{
    if (rows <= 0) return;
    if (sel < *top) *top = sel;
    for (;;) { /* the rows from *top through sel must fit */
        int used = 0;
        for (int i = *top; i <= sel; i++) used += height[i];
        if (used <= rows || *top >= sel) break;
        (*top)++;
    }
    if (*top < 0) *top = 0;
}

#define MAX_TITLE_ROWS 4

/* A list row's title wrapped in at most `wrap` rows (the last one cut
 * where the row ends): `w` columns on its first row, `w_rest` on the
 * others (the lab list's progress " 2/4" stands on the first row only).
 * Its rows. */
static int title_rows(const char *title, int w, int w_rest, int wrap, const char **starts, int *lens)
{
    if (wrap > MAX_TITLE_ROWS) wrap = MAX_TITLE_ROWS;
    if (wrap <= 1 || w < 8) {
        starts[0] = title;
        lens[0] = (int)strlen(title);
        return 1;
    }
    /* break at a space or after a hyphen ("collective-" / "mismatch") */
    int n = 0;
    const char *p = title;
    while (*p && n < wrap) {
        int seg = (int)strlen(p), k = text_fit(p, seg, n ? w_rest : w);
        if (k <= 0) k = text_char_len(p, seg); /* a whole character, never a byte of one */
        if (k < seg) {
            int b = k;
            while (b > 0 && p[b] != ' ' && p[b - 1] != '-') b--;
            b = text_break_keep_particle(p, seg, b); /* "PyTorch 가" stays on one row */
            if (b > 0) k = b;
        }
        starts[n] = p;
        lens[n] = k;
        while (lens[n] > 0 && p[lens[n] - 1] == ' ') lens[n]--;
        n++;
        p += k;
        while (*p == ' ') p++;
    }
    if (*p && n > 0) lens[n - 1] = (int)strlen(starts[n - 1]); /* the rest, cut where the row ends */
    return n > 0 ? n : 1;
}

/* A list that does not fit its box scrolls (the selection stays in view):
 * its frame says how many items are above and below, so none is lost from
 * sight. */
static void list_more_marks(const rect *r, int top, int n, int rows, const int *height)
{
    int used = 0, last = top;
    while (last < n && used + height[last] <= rows) used += height[last++];
    char t[96];
    if (top > 0 && last < n) snprintf(t, sizeof t, tr(" %d above, %d below "), top, n - last);
    else if (top > 0) snprintf(t, sizeof t, tr(" %d more above "), top);
    else if (last < n) snprintf(t, sizeof t, tr(" %d more below "), n - last);
    else return;
    int tw = text_width(t, -1);
    if (tw > r->w - 2) return;
    text_put(stdscr, r->y + r->h - 1, r->x + r->w - 1 - tw, t, tw, theme_attr(TH_DIM) | A_BOLD);
}

/* The prefix of a lab's row ("[x]  2 ") and its progress (" 2/4"). */
static void lab_parts(const snap_lab *l, char *prefix, size_t plen, char *prog, size_t glen)
{
    snprintf(prefix, plen, "%s%2d ", snap_lab_mark(l), l->number);
    snprintf(prog, glen, " %d/%d", l->passed, l->nchecked); /* reading steps are not passed */
}

int list_lab_rows(const shell_app *a, int inner_w, int wrap)
{
    int total = 0;
    for (int i = 0; i < a->snap.nlabs; i++) {
        const snap_lab *l = &a->snap.labs[i];
        char prefix[32], prog[32];
        const char *st[MAX_TITLE_ROWS];
        int ln[MAX_TITLE_ROWS];
        lab_parts(l, prefix, sizeof prefix, prog, sizeof prog);
        int xw = text_width(prefix, -1);
        total += title_rows(l->title ? l->title : l->id, inner_w - xw - (int)strlen(prog), inner_w - xw, wrap, st, ln);
    }
    return total;
}

int list_step_rows(const shell_app *a, int inner_w, int wrap)
{
    const snap_lab *l = app_lab(a, a->lab_open);
    int total = 0;
    for (int i = 0; l && i < l->nsteps; i++) {
        char prefix[32];
        const char *st[MAX_TITLE_ROWS];
        int ln[MAX_TITLE_ROWS];
        snprintf(prefix, sizeof prefix, "[ ] %d ", i + 1);
        int tw = inner_w - text_width(prefix, -1);
        total += title_rows(l->steps[i].title ? l->steps[i].title : l->steps[i].id, tw, tw, wrap, st, ln);
    }
    return total;
}

static void draw_labs(shell_app *a)
{
    const rect *r = &a->r_labs;
    draw_box(r, tr("Labs"), a->focus == FOCUS_LABS);
    int rows = r->h - 2, w = r->w - 2;
    if (!a->loaded) {
        text_put(stdscr, r->y + 1, r->x + 1, tr("loading labs..."), w, theme_attr(TH_DIM));
        return;
    }
    if (a->snap.nlabs == 0) {
        text_put(stdscr, r->y + 1, r->x + 1, tr("no labs found"), w, theme_attr(TH_ERROR));
        return;
    }
    int n = a->snap.nlabs, height[n];
    const char *st[MAX_TITLE_ROWS];
    int ln[MAX_TITLE_ROWS];
    char prefix[32], prog[32];
    for (int i = 0; i < n; i++) {
        lab_parts(&a->snap.labs[i], prefix, sizeof prefix, prog, sizeof prog);
        int xw = text_width(prefix, -1);
        height[i] = title_rows(a->snap.labs[i].title ? a->snap.labs[i].title : a->snap.labs[i].id,
                               w - xw - (int)strlen(prog), w - xw, a->labs_wrap, st, ln);
    }
    follow(a->lab_sel, rows, height, &a->lab_top);
    list_more_marks(r, a->lab_top, n, rows, height);
    for (int y = 0; y < (int)(sizeof a->lab_at_row / sizeof a->lab_at_row[0]); y++) a->lab_at_row[y] = -1;
    int y = 0;
    for (int li = a->lab_top; li < n && y < rows; li++) {
        const snap_lab *l = &a->snap.labs[li];
        lab_parts(l, prefix, sizeof prefix, prog, sizeof prog);
        int pw = (int)strlen(prog), xw = text_width(prefix, -1);
        int k = title_rows(l->title ? l->title : l->id, w - xw - pw, w - xw, a->labs_wrap, st, ln);
        attr_t at = A_NORMAL;
        if (li == a->lab_sel) at = theme_attr(a->focus == FOCUS_LABS ? TH_SELECTED : TH_SELECTED_DIM);
        for (int j = 0; j < k && y < rows; j++, y++) {
            char row[256];
            /* continuation rows are indented under the title */
            snprintf(row, sizeof row, "%s%.*s", j ? "" : prefix, ln[j], st[j]);
            text_trim_partial(row);
            int x = j ? xw : 0;
            if (j) text_put_pad(stdscr, r->y + 1 + y, r->x + 1, "", x, at);
            /* continuation rows run under the progress column too */
            text_put_cut_pad(stdscr, r->y + 1 + y, r->x + 1 + x, row, w - (j ? 0 : pw) - x, at | (li == a->lab_open ? A_BOLD : 0));
            if (!j) text_put_pad(stdscr, r->y + 1 + y, r->x + 1 + w - pw, prog, pw, at);
            if (y < (int)(sizeof a->lab_at_row / sizeof a->lab_at_row[0])) a->lab_at_row[y] = li;
        }
    }
}

static void draw_steps(shell_app *a)
{
    const rect *r = &a->r_steps;
    const snap_lab *l = app_lab(a, a->lab_open);
    char title[128];
    snprintf(title, sizeof title, "%s%s%s", tr("Steps"), l ? ": " : "", l ? l->id : "");
    draw_box(r, title, a->focus == FOCUS_STEPS);
    int rows = r->h - 2, w = r->w - 2;
    if (!l) {
        if (a->loaded && a->snap.nlabs > 0)
            text_put_cut(stdscr, r->y + 1, r->x + 1, tr("Enter opens the selected lab"), w, theme_attr(TH_DIM));
        return;
    }
    if (l->load_error) {
        text_put_cut(stdscr, r->y + 1, r->x + 1, tr("this lab did not load"), w, theme_attr(TH_ERROR));
        return;
    }
    int n = l->nsteps, height[n > 0 ? n : 1];
    const char *ts[MAX_TITLE_ROWS];
    int ln[MAX_TITLE_ROWS];
    char prefix[32];
    for (int i = 0; i < n; i++) {
        snprintf(prefix, sizeof prefix, "[ ] %d ", i + 1);
        int tw = w - text_width(prefix, -1);
        height[i] = title_rows(l->steps[i].title ? l->steps[i].title : l->steps[i].id, tw, tw, a->steps_wrap, ts, ln);
    }
    follow(a->step_sel, rows, height, &a->step_top);
    list_more_marks(r, a->step_top, n, rows, height);
    for (int y = 0; y < (int)(sizeof a->step_at_row / sizeof a->step_at_row[0]); y++) a->step_at_row[y] = -1;
    int y = 0;
    for (int si = a->step_top; si < n && y < rows; si++) {
        const snap_step *st = &l->steps[si];
        int running = app_busy(a) && a->work.lab == a->lab_open && a->work.step == si;
        snprintf(prefix, sizeof prefix, "%s %d ", running ? "[>]" : snap_step_mark(st), si + 1);
        int xw = text_width(prefix, -1);
        int k = title_rows(st->title ? st->title : st->id, w - xw, w - xw, a->steps_wrap, ts, ln);
        attr_t at = si == a->step_sel ? theme_attr(a->focus == FOCUS_STEPS ? TH_SELECTED : TH_SELECTED_DIM)
                                      : A_NORMAL;
        for (int j = 0; j < k && y < rows; j++, y++) {
            char row[256];
            snprintf(row, sizeof row, "%s%.*s", j ? "" : prefix, ln[j], ts[j]);
            text_trim_partial(row);
            int x = j ? xw : 0;
            if (j) text_put_pad(stdscr, r->y + 1 + y, r->x + 1, "", x, at);
            text_put_cut_pad(stdscr, r->y + 1 + y, r->x + 1 + x, row, w - x, at);
            /* the mark in the state's colour, unless the row is highlighted */
            if (!j && si != a->step_sel && !running)
                text_put(stdscr, r->y + 1 + y, r->x + 1, snap_step_mark(st), 3, state_attr(st->state));
            if (y < (int)(sizeof a->step_at_row / sizeof a->step_at_row[0])) a->step_at_row[y] = si;
        }
    }
}

static void draw_status(shell_app *a)
{
    const rect *r = &a->r_status;
    move(r->y, 0);
    clrtoeol();
    if (!app_busy(a)) {
        /* the language key on the right, in the language it switches to,
         * so a learner who cannot read the current one finds it */
        char lang[64];
        snprintf(lang, sizeof lang, " L %s", shell_lang_other_name());
        int lw = text_width(lang, -1);
        if (!a->status[0] && r->w > lw + 20) text_put(stdscr, r->y, r->w - lw, lang, lw, A_BOLD);
        text_put_cut(stdscr, r->y, 0, a->status[0] ? a->status :
                     tr("Enter open/run  v verdict  e edit  h hint  a answer  Tab focus  ? help"),
                     a->status[0] ? r->w : r->w - lw, A_NORMAL);
        return;
    }
    const shell_work *w = &a->work;
    const snap_step *st = app_step(a, w->lab, w->step);
    char head[400];
    snprintf(head, sizeof head, " %s %s ", w->cancel ? tr("cancelling") : tr("running"), st && st->title ? st->title : tr("step"));
    int x = text_put_cut(stdscr, r->y, 0, head, r->w / 3, A_BOLD);
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
    snprintf(tail, sizeof tail, tr("  %.1f s   c cancel "), shell_now() - w->started);
    int tw = text_width(tail, -1);
    text_put(stdscr, r->y, x, w->what, r->w - x - tw, A_NORMAL);
    if (r->w - tw > x) text_put(stdscr, r->y, r->w - tw, tail, tw, A_BOLD);
}

/* Below the minimum: only the message, centred and wrapped so it fits
 * even a terminal a few columns wide. */
static void draw_too_small(void)
{
    char msg[256];
    snprintf(msg, sizeof msg, tr("mgpulab needs at least %dx%d; this terminal is %dx%d"), SHELL_MIN_W, SHELL_MIN_H,
             COLS, LINES);
    const char *words[16];
    int nw = 0;
    for (char *t = strtok(msg, " "); t && nw < 16; t = strtok(NULL, " ")) words[nw++] = t;
    char lines[16][128];
    int nl = 0;
    lines[0][0] = 0;
    for (int i = 0; i < nw; i++) {
        int cur = (int)strlen(lines[nl]), cw = text_width(lines[nl], -1); /* bytes, columns */
        if (cur > 0 && cw + 1 + text_width(words[i], -1) > COLS && nl < 15) lines[++nl][0] = 0, cur = 0;
        snprintf(lines[nl] + cur, sizeof lines[nl] - (size_t)cur, "%s%s", cur ? " " : "", words[i]);
    }
    nl++;
    int y0 = (LINES - nl) / 2;
    if (y0 < 0) y0 = 0;
    for (int i = 0; i < nl && y0 + i < LINES; i++) {
        int x = (COLS - text_width(lines[i], -1)) / 2;
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
    if (!a->pane_max) { /* a maximised pane has the width */
        draw_labs(a);
        draw_steps(a);
    }
    draw_text(a);
    draw_verdict(a);
    draw_status(a);
    wnoutrefresh(stdscr);
    draw_pane(a); /* its own window, over stdscr */
    dialog_draw(a);
    doupdate();
}
