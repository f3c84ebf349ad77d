/* text.c - UTF-8 widths and clipped drawing for curses windows. */
#include "text.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

/* One character: its byte length and columns (invalid bytes count as one
 * byte, one column, so broken input never stalls the loop). */
static int next_char(const char *s, int len, int *cols)
{
    mbstate_t st;
    memset(&st, 0, sizeof st);
    wchar_t wc;
    size_t n = mbrtowc(&wc, s, (size_t)len, &st);
    if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
        *cols = 1;
        return 1;
    }
    int w = wcwidth(wc);
    *cols = w < 0 ? 1 : w;
    return (int)n;
}

int text_width(const char *s, int len)
{
    if (len < 0) len = (int)strlen(s);
    int cols = 0;
    for (int i = 0; i < len;) {
        int c;
        i += next_char(s + i, len - i, &c);
        cols += c;
    }
    return cols;
}

int text_fit(const char *s, int len, int cols)
{
    if (len < 0) len = (int)strlen(s);
    int used = 0, i = 0;
    while (i < len) {
        int c, n = next_char(s + i, len - i, &c);
        if (used + c > cols) break;
        used += c;
        i += n;
    }
    return i;
}

int text_char_len(const char *s, int len)
{
    if (len <= 0) return 0;
    int c;
    return next_char(s, len, &c);
}

void text_trim_partial(char *s)
{
    size_t len = strlen(s), start = len;
    /* back over the continuation bytes (10xxxxxx) to the lead byte */
    while (start > 0 && len - start < 4 && ((unsigned char)s[start - 1] & 0xC0) == 0x80) start--;
    if (start == 0) return;
    unsigned char lead = (unsigned char)s[start - 1];
    size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (len - (start - 1) < need) s[start - 1] = 0;
}

int text_is_particle(const char *s, int len)
{
    static const char *const particles[] = {
        "은", "는", "이", "가", "을", "를", "의", "에", "에서", "에게", "로", "으로", "와", "과", "도", "만",
        "까지", "부터", "보다", "처럼", "이다", "이고", "이며", "이나", "이라는", "라는", "에는", "에서는",
        "로는", "으로는", "와는", "과는", "이든", "마다", "끼리", "한테", "이라", "이면", "인데", "이지만",
        "씩", "쯤", "뿐", "밖에", "조차", "마저", "이랑", "랑", "에도", "로도", "으로도", "만큼", "대로",
        /* counters after a number ("GPU 8 개를", "2 배") read as one word with it */
        "개", "개가", "개를", "개의", "개는", "개로", "개씩", "개만", "개와", "개에", "개이다", "개면",
        "번", "번째", "배", "배로", "배가", "배의", "배는",
    };
    while (len > 0 && strchr(".,:;!?)]'\"", s[len - 1])) len--; /* "로." "다:" */
    if (len <= 0 || len > 12) return 0;
    for (size_t i = 0; i < sizeof particles / sizeof particles[0]; i++)
        if ((int)strlen(particles[i]) == len && memcmp(particles[i], s, (size_t)len) == 0) return 1;
    return 0;
}

int text_break_keep_particle(const char *p, int len, int b)
{
    if (b <= 0 || b >= len || p[b] != ' ' || (unsigned char)p[b - 1] >= 0x80) return b;
    int e = b + 1;
    while (e < len && p[e] != ' ') e++;
    if (!text_is_particle(p + b + 1, e - b - 1)) return b;
    int b2 = b - 1;
    while (b2 > 0 && p[b2] != ' ') b2--;
    return b2 > 0 ? b2 : b;
}

static int ellipsis_utf8;
void text_use_unicode(int on) { ellipsis_utf8 = on; }
const char *text_ellipsis(void) { return ellipsis_utf8 ? "\xe2\x80\xa6" : "~"; }

int text_cut(char *dst, size_t n, const char *s, int cols)
{
    if (n == 0) return 0;
    dst[0] = 0;
    if (!s || cols <= 0) return 0;
    int len = (int)strlen(s), k = len;
    if (text_width(s, len) > cols) k = text_fit(s, len, cols - 1); /* the ellipsis takes one column */
    if ((size_t)k + 4 > n) /* the buffer is the limit: room for the ellipsis and the NUL */
        k = n > 4 ? text_fit(s, (int)(n - 4), cols - 1) : 0;
    memcpy(dst, s, (size_t)k);
    dst[k] = 0;
    if (k < len && strlen(dst) + 4 <= n) strcat(dst, text_ellipsis());
    return text_width(dst, -1);
}

void text_pad(char *dst, size_t n, const char *s, int cols, int right)
{
    char cut[1024];
    int w = text_cut(cut, sizeof cut, s ? s : "", cols);
    int pad = cols - w;
    if (pad < 0) pad = 0;
    snprintf(dst, n, "%*s%s%*s", right ? pad : 0, "", cut, right ? 0 : pad, "");
}

int text_put(WINDOW *w, int y, int x, const char *s, int cols, attr_t attr)
{
    if (!s || cols <= 0) return 0;
    int len = (int)strlen(s), used = 0;
    wattr_set(w, attr, PAIR_NUMBER(attr), NULL);
    wmove(w, y, x);
    for (int i = 0; i < len;) {
        int c, n = next_char(s + i, len - i, &c);
        if (used + c > cols) break;
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            waddch(w, ' ');
        else
            waddnstr(w, s + i, n);
        used += c;
        i += n;
    }
    wattr_set(w, A_NORMAL, 0, NULL);
    return used;
}

int text_put_cut(WINDOW *w, int y, int x, const char *s, int cols, attr_t attr)
{
    if (!s || cols <= 0) return 0;
    if (text_width(s, -1) <= cols) return text_put(w, y, x, s, cols, attr);
    int k = text_fit(s, (int)strlen(s), cols - 1);
    int used = 0;
    if (k > 0) {
        char buf[4096];
        if (k >= (int)sizeof buf) k = text_fit(s, (int)sizeof buf - 1, cols - 1);
        memcpy(buf, s, (size_t)k);
        buf[k] = 0;
        used = text_put(w, y, x, buf, cols - 1, attr);
    }
    return used + text_put(w, y, x + used, text_ellipsis(), 1, attr);
}

void text_put_cut_pad(WINDOW *w, int y, int x, const char *s, int cols, attr_t attr)
{
    int used = text_put_cut(w, y, x, s ? s : "", cols, attr);
    wattr_set(w, attr, PAIR_NUMBER(attr), NULL);
    for (; used < cols; used++) mvwaddch(w, y, x + used, ' ');
    wattr_set(w, A_NORMAL, 0, NULL);
}

void text_put_pad(WINDOW *w, int y, int x, const char *s, int cols, attr_t attr)
{
    int used = text_put(w, y, x, s ? s : "", cols, attr);
    wattr_set(w, attr, PAIR_NUMBER(attr), NULL);
    for (; used < cols; used++) mvwaddch(w, y, x + used, ' ');
    wattr_set(w, A_NORMAL, 0, NULL);
}

int text_putf(WINDOW *w, int y, int x, int cols, attr_t attr, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return text_put(w, y, x, buf, cols, attr);
}

int text_wrap(const char *s, int w, const char **starts, int *lens, int max)
{
    int n = 0;
    const char *p = s;
    while (*p && n < max) {
        const char *nl = strchr(p, '\n');
        int seg = nl ? (int)(nl - p) : (int)strlen(p);
        do {
            int k = text_fit(p, seg, w);
            if (k <= 0 && seg > 0) k = text_char_len(p, seg); /* a whole character, never a byte of one */
            /* break at the last space when the line goes on */
            if (k < seg) {
                int b = k;
                while (b > 0 && p[b] != ' ') b--;
                b = text_break_keep_particle(p, seg, b);
                if (b > 0) k = b;
            }
            starts[n] = p;
            lens[n] = k;
            n++;
            p += k;
            seg -= k;
            while (seg > 0 && *p == ' ') p++, seg--;
        } while (seg > 0 && n < max);
        if (nl) p = nl + 1;
        else break;
    }
    return n;
}
