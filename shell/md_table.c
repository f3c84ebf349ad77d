/* md_table.c - Markdown tables as aligned terminal columns. A cell keeps
 * its styles (code, emphasis); a column too wide for the screen wraps its
 * cells at word boundaries (a word wider than the column is split, so no
 * character is lost). */
#include "md_table.h"
#include "md_out.h"
#include "text.h"
#include <stdlib.h>
#include <string.h>

#define SEP " | "
#define SEP_W 3
#define RULE_SEP "-+-"
#define MIN_COL 4 /* a column shrinks no further while others are wider */

typedef struct cell {
    char *text;
    unsigned char *sty;
    size_t len;
    enum md_table_align align;
} cell;

typedef struct row {
    int header;
    int n, cap;
    cell *cells;
} row;

struct md_table {
    int n, cap;
    row *rows;
};

md_table *md_table_new(void) { return calloc(1, sizeof(md_table)); }

void md_table_free(md_table *t)
{
    if (!t) return;
    for (int i = 0; i < t->n; i++) {
        for (int c = 0; c < t->rows[i].n; c++) {
            free(t->rows[i].cells[c].text);
            free(t->rows[i].cells[c].sty);
        }
        free(t->rows[i].cells);
    }
    free(t->rows);
    free(t);
}

int md_table_row(md_table *t, int header)
{
    if (t->n == t->cap) {
        int cap = t->cap ? t->cap * 2 : 8;
        row *r = realloc(t->rows, (size_t)cap * sizeof *r);
        if (!r) return -1;
        t->rows = r;
        t->cap = cap;
    }
    t->rows[t->n++] = (row){.header = header};
    return 0;
}

int md_table_cell(md_table *t, const char *text, const unsigned char *sty, size_t len, enum md_table_align align)
{
    if (t->n == 0 && md_table_row(t, 0) != 0) return -1;
    row *r = &t->rows[t->n - 1];
    if (r->n == r->cap) {
        int cap = r->cap ? r->cap * 2 : 4;
        cell *c = realloc(r->cells, (size_t)cap * sizeof *c);
        if (!c) return -1;
        r->cells = c;
        r->cap = cap;
    }
    /* a cell is one line of text: trim the spaces around it */
    while (len > 0 && (text[0] == ' ' || text[0] == '\n')) text++, sty++, len--;
    while (len > 0 && (text[len - 1] == ' ' || text[len - 1] == '\n')) len--;
    cell c = {.text = malloc(len + 1), .sty = malloc(len + 1), .len = len, .align = align};
    if (!c.text || !c.sty) {
        free(c.text);
        free(c.sty);
        return -1;
    }
    for (size_t i = 0; i < len; i++) c.text[i] = text[i] == '\n' ? ' ' : text[i];
    c.text[len] = 0;
    memcpy(c.sty, sty, len);
    r->cells[r->n++] = c;
    return 0;
}

/*--- layout -------------------------------------------------------------------*/

typedef struct span { size_t a, b; } span;

/* The cell's text wrapped to `w` columns: the byte spans of its lines.
 * Returns the number of lines; fills `out` (when not NULL) up to `max`. */
static int wrap_cell(const cell *c, int w, span *out, int max)
{
    int n = 0;
    size_t pos = 0;
    while (pos < c->len) {
        while (pos < c->len && c->text[pos] == ' ') pos++;
        if (pos >= c->len) break;
        size_t start = pos, end = pos;
        for (;;) { /* extend the line word by word */
            size_t we = end;
            while (we < c->len && c->text[we] == ' ') we++;
            size_t ws = we;
            while (we < c->len && c->text[we] != ' ') we++;
            if (ws == we) break;
            if (text_width(c->text + start, (int)(we - start)) > w) {
                if (end == start) { /* one word wider than the column: split it (whole characters) */
                    int k = text_fit(c->text + start, (int)(we - start), w);
                    end = start + (size_t)(k > 0 ? k : text_char_len(c->text + start, (int)(we - start)));
                }
                break;
            }
            end = we;
        }
        if (out && n < max) out[n] = (span){start, end};
        n++;
        pos = end;
    }
    return n ? n : 1; /* an empty cell still takes its row */
}

static int cell_width(const cell *c) { return text_width(c->text, (int)c->len); }

/* The widest character of a cell: a column never gets narrower than it, or
 * a Hangul character (two columns) in a column of one would overflow it and
 * push every bar after it out of line. */
static int widest_char(const cell *c)
{
    int w = 1;
    for (size_t i = 0; i < c->len;) {
        int n = text_char_len(c->text + i, (int)(c->len - i)), cw = text_width(c->text + i, n);
        if (cw > w) w = cw;
        i += (size_t)n;
    }
    return w;
}

/* Column widths that fit `avail` columns of text: natural widths when
 * they fit, else the widest column gives up a column at a time. */
static void column_widths(const md_table *t, int ncols, int avail, int *w)
{
    int total = 0, least[ncols];
    for (int c = 0; c < ncols; c++) {
        w[c] = 1;
        least[c] = 1;
        for (int i = 0; i < t->n; i++) {
            if (c >= t->rows[i].n) continue;
            if (cell_width(&t->rows[i].cells[c]) > w[c]) w[c] = cell_width(&t->rows[i].cells[c]);
            if (widest_char(&t->rows[i].cells[c]) > least[c]) least[c] = widest_char(&t->rows[i].cells[c]);
        }
        total += w[c];
    }
    for (int floor = MIN_COL; floor >= 1 && total > avail; floor--) {
        while (total > avail) {
            int widest = -1;
            for (int c = 0; c < ncols; c++)
                if (w[c] > least[c] && (widest < 0 || w[c] > w[widest])) widest = c;
            if (widest < 0 || w[widest] <= floor) break;
            w[widest]--;
            total--;
        }
    }
}

static void put_rule(md_lines *out, int indent, const int *w, int ncols, int sep_w, int *oom)
{
    md_line *l = md_out_line(out, oom);
    md_out_spaces(l, indent, oom);
    for (int c = 0; c < ncols; c++) {
        if (c > 0) md_out_seg(l, MD_S_MARK, sep_w == SEP_W ? RULE_SEP : "+", (size_t)sep_w, oom);
        for (int k = 0; k < w[c]; k++) md_out_seg(l, MD_S_MARK, "-", 1, oom);
    }
}

static void put_row(md_lines *out, const row *r, int indent, const int *w, int ncols, int sep_w, int *oom)
{
    span *spans[ncols];
    int nl[ncols], lines = 1;
    for (int c = 0; c < ncols; c++) {
        spans[c] = NULL;
        nl[c] = 0;
        if (c >= r->n) continue;
        nl[c] = wrap_cell(&r->cells[c], w[c], NULL, 0);
        spans[c] = malloc((size_t)nl[c] * sizeof(span));
        if (!spans[c]) {
            *oom = 1;
            nl[c] = 0;
            continue;
        }
        nl[c] = wrap_cell(&r->cells[c], w[c], spans[c], nl[c]);
        if (nl[c] > lines) lines = nl[c];
    }
    for (int i = 0; i < lines && !*oom; i++) {
        md_line *l = md_out_line(out, oom);
        md_out_spaces(l, indent, oom);
        int pending = 0; /* padding owed to the previous column */
        for (int c = 0; c < ncols; c++) {
            if (c > 0) {
                md_out_spaces(l, pending, oom);
                md_out_seg(l, MD_S_MARK, sep_w == SEP_W ? SEP : "|", (size_t)sep_w, oom);
            }
            int used = 0, pad_left = 0;
            const cell *ce = c < r->n ? &r->cells[c] : NULL;
            if (ce && i < nl[c] && spans[c][i].b > spans[c][i].a) {
                span s = spans[c][i];
                used = text_width(ce->text + s.a, (int)(s.b - s.a));
                if (ce->align == MD_TABLE_RIGHT) pad_left = w[c] - used;
                else if (ce->align == MD_TABLE_CENTER) pad_left = (w[c] - used) / 2;
                if (pad_left < 0) pad_left = 0;
                md_out_spaces(l, pad_left, oom);
                md_out_range(l, ce->text, ce->sty, s.a, s.b, oom);
            }
            pending = w[c] - used - pad_left;
            if (pending < 0) pending = 0;
        }
    }
    for (int c = 0; c < ncols; c++) free(spans[c]);
}

void md_table_render(const md_table *t, md_lines *out, int indent, int width, int *oom)
{
    int ncols = 0;
    for (int i = 0; i < t->n; i++)
        if (t->rows[i].n > ncols) ncols = t->rows[i].n;
    if (ncols == 0) return;
    int avail = width - indent;
    int sep_w = SEP_W;
    if (ncols * MIN_COL + (ncols - 1) * SEP_W > avail) sep_w = 1; /* a narrow screen: "|" alone */
    int w[ncols];
    column_widths(t, ncols, avail - (ncols - 1) * sep_w, w);
    for (int i = 0; i < t->n && !*oom; i++) {
        put_row(out, &t->rows[i], indent, w, ncols, sep_w, oom);
        if (t->rows[i].header && (i + 1 >= t->n || !t->rows[i + 1].header)) put_rule(out, indent, w, ncols, sep_w, oom);
    }
}
