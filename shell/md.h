/* md.h - a step's Markdown text rendered for the terminal: md4c parses it,
 * this module wraps it to a width as lines of styled segments (headings,
 * emphasis, inline and block code, lists, quotes, rules). */
#ifndef MGPU_SHELL_MD_H
#define MGPU_SHELL_MD_H
#include <stddef.h>
#include "mgpu/err.h"

enum md_style {
    MD_S_NORMAL = 0,
    MD_S_EMPH = 1,
    MD_S_STRONG = 2,
    MD_S_CODE = 4,
    MD_S_HEADING = 8,
    MD_S_LINK = 16,
    MD_S_MARK = 32, /* list bullets, quote bars, rules */
};

typedef struct md_seg {
    int style;  /* md_style bits */
    char *text; /* UTF-8, no control characters */
} md_seg;

typedef struct md_line {
    int nseg;
    md_seg *segs;
} md_line;

typedef struct md_lines {
    int n, cap;
    md_line *lines;
} md_lines;

/* Render `text` (len bytes) wrapped to `width` columns (>= 10) into `out`
 * (emptied first). Fails for a width too small or out of memory. */
mgpu_result md_render(const char *text, size_t len, int width, md_lines *out);
void md_lines_free(md_lines *l);
/* Mark the continuation rows of a wrapped code line with "↪" (a UTF-8
 * terminal) instead of ASCII "> " (the default). */
void md_use_unicode(int on);

#endif
