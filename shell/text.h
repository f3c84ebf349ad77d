/* text.h - UTF-8 text on the terminal: display widths and drawing clipped
 * to a number of columns (the shell's strings are UTF-8; wide characters
 * take two columns). */
#ifndef MGPU_SHELL_TEXT_H
#define MGPU_SHELL_TEXT_H
#include <curses.h>
#include <stddef.h>

/* Columns that the first `len` bytes of `s` take (len < 0: up to NUL). */
int text_width(const char *s, int len);
/* Bytes of `s` that fit in `cols` columns without splitting a character. */
int text_fit(const char *s, int len, int cols);
/* Draw `s` at (y, x) with `attr`, clipped to `cols` columns; returns the
 * columns used. Control characters are shown as spaces. */
int text_put(WINDOW *w, int y, int x, const char *s, int cols, attr_t attr);
/* Like text_put, then pads with spaces up to `cols` (a full-width bar). */
void text_put_pad(WINDOW *w, int y, int x, const char *s, int cols, attr_t attr);
/* printf into a buffer, then text_put. */
int text_putf(WINDOW *w, int y, int x, int cols, attr_t attr, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Split `s` into rows of at most w columns, breaking at the last space
 * where a line goes on and at every newline: starts[i] / lens[i] (bytes)
 * for at most `max` rows; returns the number of rows. */
int text_wrap(const char *s, int w, const char **starts, int *lens, int max);

#endif
