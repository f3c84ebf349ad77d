/* chart.c - clipped text, ASCII sparklines and a log2-x chart for the panes. */
#include "chart.h"
#include "text.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int chart_text(WINDOW *w, int y, int x, int maxw, attr_t attr, const char *s)
{
    int h = getmaxy(w), wd = getmaxx(w);
    if (!s || y < 0 || y >= h || x < 0 || x >= wd) return 0;
    int room = wd - x;
    if (maxw > 0 && maxw < room) room = maxw;
    /* the bottom-right cell scrolls some terminals: leave it alone */
    if (y == h - 1 && x + room == wd) room--;
    return text_put(w, y, x, s, room, attr); /* UTF-8 aware, control characters blanked */
}

int chart_text_wrapped(WINDOW *w, int y, int x, attr_t attr, const char *s)
{
    int h = getmaxy(w), wd = getmaxx(w) - x;
    if (!s || wd < 2 || y >= h) return 0;
    enum { MAXR = 32 };
    const char *starts[MAXR];
    int lens[MAXR];
    int n = text_wrap(s, wd, starts, lens, MAXR), used = 0;
    for (int i = 0; i < n && y + i < h; i++, used++) {
        char line[1024];
        snprintf(line, sizeof line, "%.*s", lens[i], starts[i]);
        chart_text(w, y + i, x, 0, attr, line);
    }
    return used;
}

int chart_textf(WINDOW *w, int y, int x, int maxw, attr_t attr, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return chart_text(w, y, x, maxw, attr, buf);
}

static const char RAMP[] = " .:-=+*#%@";
/* U+2581..U+2588, one eighth to a full block: a bar chart in one row */
static const char *const BLOCKS[] = {" ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588"};
static int use_blocks;

void chart_use_blocks(int on) { use_blocks = on; }

/* The ramp level of v in [0, max]: 0 for none, any traffic at least 1. */
static int spark_level(double v, double max, int levels)
{
    if (!(max > 0) || !(v > 0)) return 0;
    int i = (int)ceil(v / max * (levels - 1));
    if (i < 1) i = 1; /* any traffic at all is visible */
    if (i > levels - 1) i = levels - 1;
    return i;
}

char chart_spark_char(double v, double max) { return RAMP[spark_level(v, max, (int)sizeof RAMP - 1)]; }

const char *chart_spark_glyph(double v, double max)
{
    if (use_blocks) return BLOCKS[spark_level(v, max, (int)(sizeof BLOCKS / sizeof BLOCKS[0]))];
    static char one[sizeof RAMP][2];
    int i = spark_level(v, max, (int)sizeof RAMP - 1);
    one[i][0] = RAMP[i];
    return one[i];
}

void chart_sparkline(WINDOW *w, int y, int x, int width, const double *vals, int n, double max, attr_t attr)
{
    char buf[256 * 3 + 1];
    if (width <= 0) return;
    if (width > 256) width = 256;
    int first = n > width ? n - width : 0, pad = width - (n - first);
    size_t len = 0;
    for (int i = 0; i < pad; i++) buf[len++] = ' ';
    for (int i = first; i < n; i++) {
        const char *g = chart_spark_glyph(vals[i], max);
        size_t k = strlen(g);
        memcpy(buf + len, g, k);
        len += k;
    }
    buf[len] = 0;
    chart_text(w, y, x, width, attr, buf);
}

const char *chart_size(double bytes, char *buf, size_t len)
{
    static const char *const units[] = {"", "K", "M", "G", "T"};
    int u = 0;
    while (bytes >= 1024 && u < 4) bytes /= 1024, u++;
    if (bytes == floor(bytes)) snprintf(buf, len, "%.0f%s", bytes, units[u]);
    else snprintf(buf, len, "%.1f%s", bytes, units[u]);
    return buf;
}

/* Put a character only inside the window (the chart may be clipped). */
static void put(WINDOW *w, int y, int x, chtype c)
{
    if (y >= 0 && y < getmaxy(w) && x >= 0 && x < getmaxx(w) && !(y == getmaxy(w) - 1 && x == getmaxx(w) - 1))
        mvwaddch(w, y, x, c);
}

void chart_xy(WINDOW *w, int y, int x, int h, int wd, const chart_series *series, int nseries, const char *y_unit)
{
    if (h < 6 || wd < 24) {
        chart_text(w, y, x, wd, 0, "(chart: window too small)");
        return;
    }
    double xmin = INFINITY, xmax = -INFINITY, ymax = 0;
    for (int s = 0; s < nseries; s++)
        for (int i = 0; i < series[s].n; i++) {
            if (!(series[s].x[i] > 0)) continue;
            double lx = log2(series[s].x[i]);
            if (lx < xmin) xmin = lx;
            if (lx > xmax) xmax = lx;
            if (series[s].y[i] > ymax) ymax = series[s].y[i];
        }
    if (xmin > xmax) {
        chart_text(w, y, x, wd, 0, "(no points to chart)");
        return;
    }
    if (!(ymax > 0)) ymax = 1;
    /* legend line */
    int lx = x;
    for (int s = 0; s < nseries; s++) {
        char item[64];
        snprintf(item, sizeof item, "%c %s  ", series[s].mark, series[s].label);
        lx += chart_text(w, y, lx, x + wd - lx, series[s].attr, item);
    }
    chart_textf(w, y, lx, x + wd - lx, 0, "(%s, x: size, log2)", y_unit);
    int label_w = 8;                      /* "  365.8 " */
    int top = y + 1, plot_h = h - 3;      /* legend, plot, axis, labels */
    int left = x + label_w, plot_w = wd - label_w - 1;
    /* y axis with three labels: max, half, 0 */
    for (int r = 0; r < plot_h; r++) put(w, top + r, left, ACS_VLINE);
    double marks[3] = {ymax, ymax / 2, 0};
    int rows[3] = {top, top + (plot_h - 1) / 2, top + plot_h - 1};
    for (int i = 0; i < 3; i++) chart_textf(w, rows[i], x, label_w - 1, 0, "%7.1f", marks[i]);
    /* x axis */
    int axis = top + plot_h;
    put(w, axis, left, ACS_LLCORNER);
    for (int c = 1; c <= plot_w; c++) put(w, axis, left + c, ACS_HLINE);
    double span = xmax - xmin > 0 ? xmax - xmin : 1;
    /* size labels at about every 10 columns, on whole powers of two */
    int last_end = -1;
    for (int c = 0; c < plot_w; c++) {
        double lv = xmin + span * c / (plot_w > 1 ? plot_w - 1 : 1);
        double p2 = round(lv);
        int col = (int)lround((p2 - xmin) / span * (plot_w > 1 ? plot_w - 1 : 1));
        if (col != c || left + 1 + c <= last_end + 1) continue;
        char buf[16];
        chart_size(pow(2, p2), buf, sizeof buf);
        int start = left + 1 + c;
        if (start + (int)strlen(buf) > x + wd) break;
        put(w, axis, start, ACS_BTEE);
        chart_text(w, axis + 1, start, x + wd - start, 0, buf);
        last_end = start + (int)strlen(buf) + 2;
    }
    /* points: later series draw over earlier ones */
    for (int s = 0; s < nseries; s++)
        for (int i = 0; i < series[s].n; i++) {
            if (!(series[s].x[i] > 0)) continue;
            int c = (int)lround((log2(series[s].x[i]) - xmin) / span * (plot_w > 1 ? plot_w - 1 : 1));
            double fy = series[s].y[i] / ymax;
            if (fy < 0) fy = 0;
            int r = plot_h - 1 - (int)lround(fy * (plot_h - 1));
            put(w, top + r, left + 1 + c, (chtype)(unsigned char)series[s].mark | series[s].attr);
        }
}

int chart_view_row(const chart_view *v)
{
    int r = v->top + v->line - v->sy;
    return (v->line >= v->sy && r < v->bottom) ? r : -1;
}

void chart_view_put(chart_view *v, int col, attr_t attr, const char *s)
{
    int r = chart_view_row(v);
    if (r < 0 || !s) return;
    int x = col - v->sx;
    if (x < 0) { /* scrolled sideways: skip whole characters by their columns */
        int skip = -x, n = (int)strlen(s), k = text_fit(s, n, skip), used = text_width(s, k);
        if (k < n && used < skip) { /* a wide character across the edge: its half is blank */
            int c = text_char_len(s + k, n - k);
            used += text_width(s + k, c);
            k += c;
        }
        if (k >= n) return;
        s += k;
        x = used - skip;
    }
    chart_text(v->w, r, x, 0, attr, s);
}

void chart_view_putf(chart_view *v, int col, attr_t attr, const char *fmt, ...)
{
    if (chart_view_row(v) < 0) return; /* scrolled away: skip the formatting */
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    chart_view_put(v, col, attr, buf);
}

void chart_view_ch(chart_view *v, int col, chtype c)
{
    int r = chart_view_row(v);
    if (r >= 0) put(v->w, r, col - v->sx, c);
}

void chart_view_nl(chart_view *v)
{
    v->line++;
}

void chart_colors_init(void)
{
    static const short fg[CHART_NTONES] = {COLOR_GREEN, COLOR_YELLOW, COLOR_RED, COLOR_CYAN, COLOR_MAGENTA, COLOR_BLUE};
    if (!has_colors()) return;
    for (int t = 0; t < CHART_NTONES; t++)
        /* -1 (the terminal's own background) needs use_default_colors */
        if (init_pair((short)(CHART_PAIR_BASE + t), fg[t], -1) == ERR)
            init_pair((short)(CHART_PAIR_BASE + t), fg[t], COLOR_BLACK);
}

attr_t chart_tone_attr(int color, chart_tone t)
{
    static const attr_t mono[CHART_NTONES] = {A_BOLD, A_UNDERLINE, A_BOLD | A_UNDERLINE, 0, A_BOLD, A_DIM};
    if (t < 0 || t >= CHART_NTONES) return 0;
    return color ? (attr_t)COLOR_PAIR(CHART_PAIR_BASE + t) : mono[t];
}

int chart_view_scroll_key(int ch, int *sy, int *sx, int content_h, int page, int max_sx)
{
    int step = page > 1 ? page - 1 : 1;
    switch (ch) {
    case KEY_UP: (*sy)--; break;
    case KEY_DOWN: (*sy)++; break;
    case KEY_PPAGE: *sy -= step; break;
    case KEY_NPAGE: *sy += step; break;
    case KEY_HOME: *sy = *sx = 0; break;
    case KEY_END: *sy = content_h - page; break;
    case KEY_LEFT: *sx -= 8; break;
    case KEY_RIGHT: *sx += 8; break;
    default: return 0;
    }
    if (*sy > content_h - page) *sy = content_h - page;
    if (*sy < 0) *sy = 0;
    if (*sx > max_sx) *sx = max_sx;
    if (*sx < 0) *sx = 0;
    return 1;
}
