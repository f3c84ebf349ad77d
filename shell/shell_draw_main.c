/* shell_draw_main.c - the main area: the step text (rendered Markdown,
 * scrollable) and the active pane in its own window (the verdict box is
 * shell_verdict.c). */
#include "shell_draw_main.h"
#include "shell_box.h"
#include "shell_strings.h"
#include "text.h"
#include "theme.h"
#include "mgpu/file.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*--- the text ---------------------------------------------------------------*/

/* The step's text: a regular file of at most 4 MiB (a link to /dev/zero or
 * a FIFO is refused, never streamed); NULL when it cannot be shown. */
static char *read_file(const char *path, size_t *len)
{
    char *buf = NULL;
    if (mgpu_file_read(path, (size_t)4 << 20, &buf, len) != MGPU_OK) {
        mgpu_error_clear();
        return NULL;
    }
    return buf;
}

/* Append printf output to a growing Markdown buffer. */
static void mdf(char **buf, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void mdf(char **buf, size_t *len, const char *fmt, ...)
{
    char tmp[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof tmp) n = sizeof tmp - 1;
    char *b = realloc(*buf, *len + (size_t)n + 1);
    if (!b) return;
    memcpy(b + *len, tmp, (size_t)n + 1);
    *buf = b;
    *len += (size_t)n;
}

/* The Markdown for what is selected: a step's text file plus its
 * questions, a lab's summary, or why there is nothing. */
static char *compose(const shell_app *a, int lab, int step, size_t *len)
{
    char *md = NULL;
    *len = 0;
    if (!a->loaded) {
        mdf(&md, len, "%s\n", tr("Loading the labs..."));
        return md;
    }
    if (a->load_error[0]) {
        mdf(&md, len, "# %s\n\n```\n%s\n```\n", tr("No labs"), a->load_error);
        return md;
    }
    const snap_lab *l = app_lab(a, lab);
    if (!l) return md;
    if (l->load_error) {
        mdf(&md, len, tr("# %s did not load\n\n```\n%s\n```\n"), l->id, l->load_error);
        return md;
    }
    const snap_step *st = app_step(a, lab, step);
    if (!st) {
        mdf(&md, len, tr("# %d. %s\n\n%s\n\n*Runs on:* %s\n\n"), l->number, l->title ? l->title : l->id,
            l->summary ? l->summary : "", l->backends ? l->backends : tr("every backend"));
        for (int k = 0; k < l->nsteps; k++)
            mdf(&md, len, "%d. %s %s\n", k + 1, l->steps[k].title ? l->steps[k].title : l->steps[k].id,
                l->steps[k].state == MGPU_STEP_PASSED ? tr("(passed)") : l->steps[k].state == MGPU_STEP_READ ? tr("(read)") : "");
        mdf(&md, len, "%s", tr("\nPress **Enter** to open the lab.\n"));
        return md;
    }
    size_t n = 0;
    /* no Korean text in this lab: the English, and a line that says so */
    if (st->text_missing) mdf(&md, len, "*%s*\n\n", MGPU_LAB_TEXT_MISSING_KO);
    char *body = st->text_path ? read_file(st->text_path, &n) : NULL;
    if (body) {
        char *b = realloc(md, *len + n + 1);
        if (b) {
            memcpy(b + *len, body, n);
            b[*len + n] = 0;
            md = b;
            *len += n;
        }
        free(body);
    } else {
        mdf(&md, len, "# %s\n\n", st->title ? st->title : st->id);
        if (st->text_path) mdf(&md, len, tr("*(cannot read %s)*\n"), st->text_path);
    }
    if (st->exercise) mdf(&md, len, tr("\n\n---\n\n**Exercise:** `%s` (press **e** to edit; saving re-runs the check)\n"), st->exercise);
    if (st->nquestions > 0) {
        mdf(&md, len, "%s", tr("\n\n## Questions (press a to answer)\n\n"));
        for (int q = 0; q < st->nquestions; q++)
            mdf(&md, len, tr("- %s  \n  answer: %s\n"), st->questions[q].ask ? st->questions[q].ask : st->questions[q].id,
                st->questions[q].answer ? st->questions[q].answer : tr("*(none yet)*"));
    }
    return md;
}

/* A step's text when its lab is open and selected, else the summary of
 * the lab under the cursor. */
static void text_target(const shell_app *a, int *lab, int *step)
{
    int open = a->lab_open >= 0 && a->lab_sel == a->lab_open;
    *lab = open ? a->lab_open : a->lab_sel;
    *step = open ? a->step_sel : -1;
}

static void ensure_text(shell_app *a)
{
    int lab, step;
    text_target(a, &lab, &step);
    int width = a->r_text.w - 4;
    if (width < 10) width = 10;
    if (a->text_lab == lab && a->text_step == step && a->text_width == width && a->text.lines) return;
    if (a->text_lab != lab || a->text_step != step) a->text_scroll = 0;
    a->text_lab = lab;
    a->text_step = step;
    a->text_width = width;
    size_t len = 0;
    char *md = compose(a, lab, step, &len);
    if (md_render(md ? md : "", len, width, &a->text) != MGPU_OK) status_set(a, "%s", mgpu_error_message());
    free(md);
}

static attr_t style_attr(int s)
{
    attr_t at = A_NORMAL;
    if (s & MD_S_HEADING) at = theme_attr(TH_HEADING);
    else if (s & MD_S_CODE) at = theme_attr(TH_CODE);
    else if (s & MD_S_LINK) at = theme_attr(TH_LINK);
    else if (s & MD_S_STRONG) at = theme_attr(TH_STRONG);
    else if (s & MD_S_EMPH) at = theme_attr(TH_EMPH);
    if (s & MD_S_STRONG) at |= A_BOLD;
    if (s & MD_S_EMPH) at |= A_UNDERLINE;
    return at;
}

void draw_text(shell_app *a)
{
    const rect *r = &a->r_text;
    if (r->h < 3) return;
    ensure_text(a);
    const snap_step *st = app_step(a, a->text_lab, a->text_step);
    char title[320];
    snprintf(title, sizeof title, "%s", st ? (st->title ? st->title : st->id) : tr("About"));
    text_trim_partial(title);
    int rows = r->h - 2;
    int maxs = a->text.n - rows;
    if (a->text_scroll > maxs) a->text_scroll = maxs;
    if (a->text_scroll < 0) a->text_scroll = 0;
    if (a->text.n > rows) {
        /* the position stays in sight: a long title gives way, cut with
         * the ellipsis by display width (a Hangul title takes two columns
         * a character) */
        char more[64], cut[240];
        snprintf(more, sizeof more, " %d-%d/%d ", a->text_scroll + 1,
                 a->text_scroll + rows < a->text.n ? a->text_scroll + rows : a->text.n, a->text.n);
        int room = r->w - 4 - 3 - 1 - text_width(more, -1); /* the frame, " > " and " " around the title */
        text_cut(cut, sizeof cut, title, room);
        snprintf(title, sizeof title, "%s %s", cut, more);
    }
    draw_box(r, title, a->focus == FOCUS_TEXT);
    for (int i = 0; i < rows && a->text_scroll + i < a->text.n; i++) {
        const md_line *l = &a->text.lines[a->text_scroll + i];
        int x = r->x + 2, room = r->w - 4;
        for (int k = 0; k < l->nseg && room > 0; k++) {
            int used = text_put(stdscr, r->y + 1 + i, x, l->segs[k].text, room, style_attr(l->segs[k].style));
            x += used;
            room -= used;
        }
    }
}

/*--- the pane ---------------------------------------------------------------*/

/* A pane's title in the current language. */
static const char *pane_title(const pane_class *pc) { return tr(pc->title); }

void draw_pane(shell_app *a)
{
    const rect *r = &a->r_pane;
    if (r->h < 3 || r->w < 10) return;
    draw_box(r, NULL, a->focus == FOCUS_PANE);
    /* the titles of every pane on the top edge; the active one stands out.
     * Where they do not all fit, the others shrink to their hotkey. */
    int x = r->x + 2, full = 0;
    for (int i = 0; i < a->npanes; i++) full += text_width(pane_title(shell_panes[i]), -1) + 5;
    int compact = full > r->w - 4;
    for (int i = 0; i < a->npanes; i++) {
        char t[64];
        if (compact && i != a->pane_cur) snprintf(t, sizeof t, " %c ", shell_panes[i]->hotkey);
        else snprintf(t, sizeof t, i == a->pane_cur && a->focus == FOCUS_PANE ? " > %c %s " : " %c %s ",
                      shell_panes[i]->hotkey, pane_title(shell_panes[i]));
        int tw = text_width(t, -1);
        a->tab_x[i] = x;
        a->tab_w[i] = 0;
        if (x + tw > r->x + r->w - 2) continue;
        attr_t at = theme_attr(TH_FRAME);
        if (i == a->pane_cur) at = a->focus == FOCUS_PANE ? theme_attr(TH_SELECTED) | A_BOLD : A_BOLD | A_REVERSE;
        text_put(stdscr, r->y, x, t, tw, at);
        a->tab_w[i] = tw;
        x += tw + 1;
    }
    wnoutrefresh(stdscr);
    if (a->npanes == 0) {
        text_put(stdscr, r->y + 1, r->x + 2, tr("no panes are built into this shell"), r->w - 4, theme_attr(TH_DIM));
        return;
    }
    int h = r->h - 2, w = r->w - 2;
    if (a->pane_win) {
        int cy, cx, ch, cw;
        getbegyx(a->pane_win, cy, cx);
        getmaxyx(a->pane_win, ch, cw);
        if (cy != r->y + 1 || cx != r->x + 1 || ch != h || cw != w) {
            delwin(a->pane_win);
            a->pane_win = NULL;
        }
    }
    if (!a->pane_win) a->pane_win = newwin(h, w, r->y + 1, r->x + 1);
    if (!a->pane_win) return;
    werase(a->pane_win);
    const pane_class *pc = shell_panes[a->pane_cur];
    if (pc->draw) pc->draw(a->pane_self[a->pane_cur], a->pane_win, a->focus == FOCUS_PANE);
    wnoutrefresh(a->pane_win);
}
