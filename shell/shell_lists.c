/* shell_lists.c - the lab list and the open lab's steps on the left: their
 * titles wrapped to the rows the layout gives them (the layout asks how
 * many they need), the selection kept in view, the rows recorded for the
 * mouse. */
#include "shell_lists.h"
#include "shell_box.h"
#include "shell_strings.h"
#include "text.h"
#include "theme.h"
#include <stdio.h>
#include <string.h>

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

void draw_labs(shell_app *a)
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

void draw_steps(shell_app *a)
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
