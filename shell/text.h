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

/* Bytes of the first character of `s` (at least 1 when len > 0): where a
 * row must take something, it takes a whole character, never a byte of one. */
int text_char_len(const char *s, int len);
/* Draw the ellipsis "…" (a UTF-8 terminal) or "~" where a text is cut:
 * text_use_unicode(1) once the locale is known (shell_main.c). */
void text_use_unicode(int on);
const char *text_ellipsis(void);
/* Like text_put, but a text wider than `cols` ends with the ellipsis in
 * its last column (cut by display width: a wide character is never split). */
int text_put_cut(WINDOW *w, int y, int x, const char *s, int cols, attr_t attr);
/* text_put_cut, then pads with spaces up to `cols`. */
void text_put_cut_pad(WINDOW *w, int y, int x, const char *s, int cols, attr_t attr);
/* `s` into `dst` (size n) shortened to at most `cols` display columns,
 * ending with the ellipsis when cut. Returns its display width. */
int text_cut(char *dst, size_t n, const char *s, int cols);
/* `s` into `dst` (size n) as exactly `cols` display columns: cut (with the
 * ellipsis) or padded with spaces, on the right (`right` 0: the text left
 * aligned) or on the left (`right` 1). printf's "%-*s" counts bytes, so a
 * Hangul cell (3 bytes, 2 columns a character) would come out misaligned. */
void text_pad(char *dst, size_t n, const char *s, int cols, int right);

/* Drop an incomplete UTF-8 character at the end of `s` (what snprintf
 * leaves when it cuts a Korean text at its buffer's size). */
void text_trim_partial(char *s);

/* 1 when the word s[0..len) is a Korean particle written apart from the
 * word it belongs to ("rank 2 의", "GPU0 에서", "busbw 가"): the labs' Korean
 * writes a particle after a value or a Latin term with a space, and a row
 * must not start with it, so wrapping keeps it with the word before - only
 * where that word ends in ASCII (a value or a term): after Hangul, "이" is
 * the determiner ("이 단계는") and belongs to the word after it.
 * Counters after a number ("GPU 8 개를", "2 배") count as such particles.
 * Punctuation after it ("로.", "이다:") is allowed. */
int text_is_particle(const char *s, int len);

/* A row break at the space p[b] of p[0..len), moved back to the space
 * before the word in front when the word after is such a particle: the
 * break to use (b itself when there is no earlier space). */
int text_break_keep_particle(const char *p, int len, int b);

/* Split `s` into rows of at most w columns, breaking at the last space
 * where a line goes on and at every newline: starts[i] / lens[i] (bytes)
 * for at most `max` rows; returns the number of rows. */
int text_wrap(const char *s, int w, const char **starts, int *lens, int max);

#endif
