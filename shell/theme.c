/* theme.c - colour pairs or the monochrome fallback (NO_COLOR, no colours). */
#include "theme.h"
#include <stdlib.h>

static int use_color;
static attr_t attrs[TH_COUNT];

/* Monochrome: only attributes every terminal has, so the screen stays
 * readable on a vt100 and under NO_COLOR (https://no-color.org). */
static void mono(void)
{
    for (int i = 0; i < TH_COUNT; i++) attrs[i] = A_NORMAL;
    attrs[TH_TOPBAR] = A_REVERSE;
    attrs[TH_BANNER] = A_REVERSE | A_BOLD;
    attrs[TH_SELECTED] = A_REVERSE;
    attrs[TH_SELECTED_DIM] = A_UNDERLINE;
    attrs[TH_PASS] = A_BOLD;
    attrs[TH_FAIL] = A_BOLD | A_UNDERLINE;
    attrs[TH_ERROR] = A_BOLD | A_REVERSE;
    attrs[TH_CANCELLED] = A_UNDERLINE;
    attrs[TH_HEADING] = A_BOLD | A_UNDERLINE;
    attrs[TH_EMPH] = A_UNDERLINE;
    attrs[TH_STRONG] = A_BOLD;
    attrs[TH_LINK] = A_UNDERLINE;
    attrs[TH_FRAME_FOCUS] = A_BOLD;
    attrs[TH_PROGRESS] = A_REVERSE;
    attrs[TH_DIALOG] = A_NORMAL;
}

void theme_init(void)
{
    const char *nc = getenv("NO_COLOR");
    mono();
    use_color = has_colors() && !(nc && *nc);
    if (!use_color) return;
    start_color();
    use_default_colors();
    /* pair numbers: 1.. in the order below; -1 = the terminal's default */
    static const struct { theme_role role; short fg, bg; attr_t extra; } map[] = {
        {TH_TOPBAR, COLOR_WHITE, COLOR_BLUE, A_NORMAL},
        {TH_BANNER, COLOR_BLACK, COLOR_YELLOW, A_BOLD},
        {TH_SELECTED, COLOR_BLACK, COLOR_CYAN, A_NORMAL},
        {TH_PASS, COLOR_GREEN, -1, A_BOLD},
        {TH_FAIL, COLOR_YELLOW, -1, A_BOLD},
        {TH_ERROR, COLOR_RED, -1, A_BOLD},
        {TH_CANCELLED, COLOR_MAGENTA, -1, A_NORMAL},
        {TH_HEADING, COLOR_CYAN, -1, A_BOLD},
        {TH_CODE, COLOR_GREEN, -1, A_NORMAL},
        {TH_LINK, COLOR_BLUE, -1, A_UNDERLINE},
        {TH_FRAME_FOCUS, COLOR_CYAN, -1, A_BOLD},
        {TH_PROGRESS, COLOR_BLACK, COLOR_GREEN, A_NORMAL},
        {TH_DIALOG, COLOR_WHITE, COLOR_BLUE, A_NORMAL},
    };
    short pair = 1;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++, pair++) {
        init_pair(pair, map[i].fg, map[i].bg);
        attrs[map[i].role] = COLOR_PAIR(pair) | map[i].extra;
    }
    attrs[TH_DIM] = A_DIM;
}

int theme_color(void) { return use_color; }

attr_t theme_attr(theme_role role)
{
    return (role >= 0 && role < TH_COUNT) ? attrs[role] : A_NORMAL;
}
