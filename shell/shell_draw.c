/* shell_draw.c - one frame: the top bar, the status line (progress while
 * work runs) and the too-small screen; the lists are shell_lists.c, the
 * text and pane shell_draw_main.c, the verdict box shell_verdict.c. */
#include "mgpu/classcfg.h"
#include "shell_draw.h"
#include "shell_dialog.h"
#include "shell_draw_main.h"
#include "shell_layout.h"
#include "shell_lists.h"
#include "shell_verdict.h"
#include "shell_strings.h"
#include "text.h"
#include "theme.h"
#include <stdio.h>
#include <string.h>

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
