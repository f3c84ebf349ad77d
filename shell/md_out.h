/* md_out.h - appending styled segments to rendered Markdown lines; shared
 * by the block renderer (md.c) and the table layout (md_table.c). Each call
 * sets *oom on a failed allocation and does nothing once it is set. */
#ifndef MGPU_SHELL_MD_OUT_H
#define MGPU_SHELL_MD_OUT_H
#include "md.h"

/* A new empty line at the end of `o`; NULL when out of memory. */
md_line *md_out_line(md_lines *o, int *oom);
/* `n` bytes of `s` in `style`, merged into the last segment when it has
 * the same style. */
void md_out_seg(md_line *l, int style, const char *s, size_t n, int *oom);
void md_out_spaces(md_line *l, int n, int *oom);
/* Bytes [a, b) of `buf`, one segment per run of equal `sty` bytes. */
void md_out_range(md_line *l, const char *buf, const unsigned char *sty, size_t a, size_t b, int *oom);

#endif
