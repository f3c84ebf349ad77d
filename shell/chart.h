/* chart.h - drawing helpers the panes share: clipped text, sparklines and an
 * x/y chart with a log2 x axis, all into a curses WINDOW and never outside it. */
#ifndef MGPU_SHELL_CHART_H
#define MGPU_SHELL_CHART_H
#include <curses.h>

/* Text at (y, x), cut at the window's right edge and at `maxw` columns
 * (maxw <= 0: no extra limit). Returns the columns written. */
int chart_text(WINDOW *w, int y, int x, int maxw, attr_t attr, const char *s);
/* `s` wrapped at spaces to the window's width from column x, from row y
 * down to the window's last row: a pane's one-sentence message whole (in
 * Korean it is twice as wide as in English). Returns the rows used. */
int chart_text_wrapped(WINDOW *w, int y, int x, attr_t attr, const char *s);
int chart_textf(WINDOW *w, int y, int x, int maxw, attr_t attr, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* A sparkline of the last `width` of vals[0..n) (oldest first) scaled to
 * [0, max]: block characters (U+2581..U+2588) once chart_use_blocks(1)
 * (a UTF-8 terminal), else the ASCII ramp " .:-=+*#%@". */
void chart_sparkline(WINDOW *w, int y, int x, int width, const double *vals, int n, double max, attr_t attr);
void chart_use_blocks(int on);
/* The ASCII ramp character for v in [0, max]: exposed for the tests. */
char chart_spark_char(double v, double max);
/* The glyph the sparkline draws for v (a block or the ASCII character). */
const char *chart_spark_glyph(double v, double max);

typedef struct chart_series {
    const char *label;     /* legend text: "busbw" */
    char mark;             /* the point character: '*' */
    attr_t attr;
    const double *x, *y;   /* n points; x > 0 (plotted on log2) */
    int n;
} chart_series;

/* A chart in the box (y, x, h, w): y axis 0..max of all series with a
 * labelled scale, x axis log2 from the smallest to the largest x with size
 * labels ("8", "1K", "256M"), one legend line on top. Needs h >= 6 and
 * w >= 24; smaller boxes get a one-line "too small" note. */
void chart_xy(WINDOW *w, int y, int x, int h, int wd, const chart_series *series, int nseries, const char *y_unit);

/* A scrolled view: content lines numbered from 0 are drawn into the rows
 * [top, bottom) of the window, shifted up by sy lines and left by sx
 * columns; what falls outside is skipped. Panes write their content top to
 * bottom through it and read `line` back as the content height. */
typedef struct chart_view {
    WINDOW *w;
    int top, bottom;       /* window rows used */
    int sy, sx;            /* scroll offsets */
    int line;              /* the content line being written */
} chart_view;
void chart_view_put(chart_view *v, int col, attr_t attr, const char *s);
void chart_view_putf(chart_view *v, int col, attr_t attr, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void chart_view_ch(chart_view *v, int col, chtype c);   /* one (ACS) character */
void chart_view_nl(chart_view *v);
/* The window row of the current line, or -1 when it is scrolled away. */
int chart_view_row(const chart_view *v);
/* The scrolling keys of a view that scrolls both ways (arrows, PgUp/PgDn by
 * a page less one line, Home, End, Left/Right by 8 columns), clamped to the
 * content height and to max_sx columns. 1 when ch was one of them. */
int chart_view_scroll_key(int ch, int *sy, int *sx, int content_h, int page, int max_sx);

/* Tones the panes colour things by. With colours allowed (pane_context.color)
 * they are colour pairs CHART_PAIR_BASE.. (set up by chart_colors_init);
 * without, a monochrome attribute stands in (bold, underline, dim). */
#define CHART_PAIR_BASE 40
typedef enum chart_tone {
    CHART_GOOD = 0,  /* green: NVLink, passed */
    CHART_WARN,      /* yellow: PCIe through a host bridge, waits */
    CHART_BAD,       /* red: across NUMA / network, failures */
    CHART_INFO,      /* cyan: PCIe switch, copies */
    CHART_ACCENT,    /* magenta: collectives */
    CHART_PLAIN,     /* blue: kernels */
    CHART_NTONES
} chart_tone;
void chart_colors_init(void);
attr_t chart_tone_attr(int color, chart_tone t);

/* "8", "4K", "256M": compact power-of-1024 sizes for axes and tables. */
const char *chart_size(double bytes, char *buf, size_t len);

#endif
