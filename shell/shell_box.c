/* shell_box.c - the frame every region of the screen is drawn in: a box
 * around a rect with its title in the top edge, focus shown in the frame. */
#include "shell_box.h"
#include "text.h"
#include "theme.h"
#include <stdio.h>

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
