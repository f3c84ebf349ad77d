/* md_table.h - a Markdown table laid out for the terminal: md.c collects
 * the cells (styled text) while md4c parses the table, then this lays the
 * columns out to fit a width (natural widths when they fit, else the
 * widest columns shrink and their cells wrap), with " | " between columns
 * and a rule under the header row. */
#ifndef MGPU_SHELL_MD_TABLE_H
#define MGPU_SHELL_MD_TABLE_H
#include "md.h"

typedef struct md_table md_table;

enum md_table_align { MD_TABLE_LEFT, MD_TABLE_CENTER, MD_TABLE_RIGHT };

/* NULL when out of memory. */
md_table *md_table_new(void);
void md_table_free(md_table *t);
/* Start a row; `header` rows are followed by the rule. 0, or -1 out of memory. */
int md_table_row(md_table *t, int header);
/* Add a cell to the current row: `len` bytes of `text` with one md_style
 * per byte in `sty` (copied). 0, or -1 out of memory. */
int md_table_cell(md_table *t, const char *text, const unsigned char *sty, size_t len, enum md_table_align align);
/* Append the table's lines to `out`, each starting with `indent` spaces
 * and at most `width` columns wide. Sets *oom on a failed allocation. */
void md_table_render(const md_table *t, md_lines *out, int indent, int width, int *oom);

#endif
