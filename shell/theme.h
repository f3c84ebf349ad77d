/* theme.h - the shell's visual roles mapped to curses attributes: colour
 * pairs when the terminal has colours and NO_COLOR is unset, otherwise
 * only bold / reverse / underline. */
#ifndef MGPU_SHELL_THEME_H
#define MGPU_SHELL_THEME_H
#include <curses.h>

typedef enum theme_role {
    TH_NORMAL = 0,
    TH_TOPBAR,      /* the top bar */
    TH_BANNER,      /* "SIMULATED machine ..." inside the top bar */
    TH_SELECTED,    /* the selected row of the focused list */
    TH_SELECTED_DIM,/* the selected row of a list without focus */
    TH_PASS,
    TH_FAIL,
    TH_ERROR,
    TH_CANCELLED,
    TH_DIM,         /* secondary text */
    TH_HEADING,     /* Markdown headings */
    TH_CODE,        /* Markdown code */
    TH_EMPH,
    TH_STRONG,
    TH_LINK,
    TH_FRAME,       /* box lines */
    TH_FRAME_FOCUS, /* box title of the focused region */
    TH_PROGRESS,    /* the filled part of the progress bar */
    TH_DIALOG,      /* dialog body */
    TH_COUNT
} theme_role;

/* Decide colour or monochrome (after initscr) and set up the pairs. */
void theme_init(void);
/* 1 when colour pairs are in use. */
int theme_color(void);
attr_t theme_attr(theme_role role);

#endif
