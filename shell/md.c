/* md.c - Markdown to wrapped, styled terminal lines (md4c callbacks build
 * one flat block of text with a style per byte; leaving the block wraps it). */
#include "md.h"
#include "md_out.h"
#include "md_table.h"
#include "text.h"
#include <md4c.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 32

typedef struct mdr {
    md_lines *out;
    int width;
    char *buf;            /* the current block's text */
    unsigned char *sty;   /* one md_style per byte of buf */
    size_t len, cap;
    int emph, strong, code, link; /* span nesting */
    int heading;          /* level of the open heading, 0 none */
    int in_code, in_html;
    int indent;           /* container indent in columns */
    int indents[MAX_DEPTH], nindents;
    struct { int ordered; unsigned next; } lists[MAX_DEPTH];
    int nlists;
    char bullet[16];      /* the list mark for the next block's first line */
    int need_blank;
    md_table *table;      /* the open table, its cells collected until it ends */
    int in_thead, in_th;  /* in the table's header rows, in a header cell */
    int oom;
} mdr;

/*--- output lines (md_out.c) ----------------------------------------------*/

static md_line *new_line(mdr *r) { return md_out_line(r->out, &r->oom); }

static void add_seg(mdr *r, md_line *l, int style, const char *s, size_t n) { md_out_seg(l, style, s, n, &r->oom); }

static void add_spaces(mdr *r, md_line *l, int n) { md_out_spaces(l, n, &r->oom); }

/* A bytes range of the block, split where the style changes. */
static void add_range(mdr *r, md_line *l, size_t a, size_t b) { md_out_range(l, r->buf, r->sty, a, b, &r->oom); }

/*--- the current block -----------------------------------------------------*/

static int cur_style(const mdr *r)
{
    int s = 0;
    if (r->emph) s |= MD_S_EMPH;
    if (r->strong) s |= MD_S_STRONG;
    if (r->code || r->in_code) s |= MD_S_CODE;
    if (r->link) s |= MD_S_LINK;
    if (r->heading) s |= MD_S_HEADING;
    if (r->in_th) s |= MD_S_STRONG;
    return s;
}

static void append(mdr *r, const char *s, size_t n, int style)
{
    if (r->len + n + 1 > r->cap) {
        size_t cap = (r->len + n + 1) * 2;
        char *b = realloc(r->buf, cap);
        if (!b) {
            r->oom = 1;
            return;
        }
        r->buf = b;
        unsigned char *st = realloc(r->sty, cap);
        if (!st) {
            r->oom = 1;
            return;
        }
        r->sty = st;
        r->cap = cap;
    }
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        /* Tabs and other control bytes would move the cursor: spaces. */
        if (c == '\t') c = ' ';
        else if (c != '\n' && (unsigned char)c < 0x20) c = ' ';
        r->buf[r->len] = c;
        r->sty[r->len] = (unsigned char)style;
        r->len++;
    }
}

static void blank_if_needed(mdr *r)
{
    md_lines *o = r->out;
    if (r->need_blank && o->n > 0 && o->lines[o->n - 1].nseg > 0) new_line(r);
    r->need_blank = 0;
}

/* A new output line with the container indent (and the list mark on the
 * block's first line). */
static md_line *begin_line(mdr *r, int *first)
{
    md_line *l = new_line(r);
    if (*first && r->bullet[0]) {
        int bw = text_width(r->bullet, -1);
        add_spaces(r, l, r->indent - bw);
        add_seg(r, l, MD_S_MARK, r->bullet, strlen(r->bullet));
        r->bullet[0] = 0;
    } else {
        add_spaces(r, l, r->indent);
    }
    *first = 0;
    return l;
}

static void wrap_text(mdr *r)
{
    int avail = r->width - r->indent;
    if (avail < 8) avail = 8;
    int first = 1, col = 0;
    md_line *l = begin_line(r, &first);
    size_t pos = 0;
    while (pos < r->len && !r->oom) {
        if (r->buf[pos] == '\n') {
            l = begin_line(r, &first);
            col = 0;
            pos++;
            continue;
        }
        if (r->buf[pos] == ' ') {
            pos++;
            continue;
        }
        size_t end = pos;
        while (end < r->len && r->buf[end] != ' ' && r->buf[end] != '\n') end++;
        int w = text_width(r->buf + pos, (int)(end - pos));
        /* a particle written apart ("GPU A 에서") goes on the row of the
         * word before it: the pair moves to the next row together */
        int unit = w;
        if (end + 1 < r->len && r->buf[end] == ' ' && (unsigned char)r->buf[end - 1] < 0x80) {
            size_t ps = end + 1, pe = ps;
            while (pe < r->len && r->buf[pe] != ' ' && r->buf[pe] != '\n') pe++;
            if (text_is_particle(r->buf + ps, (int)(pe - ps))) unit += 1 + text_width(r->buf + ps, (int)(pe - ps));
        }
        if (col > 0 && col + 1 + (unit <= avail ? unit : w) > avail) {
            l = begin_line(r, &first);
            col = 0;
        } else if (col > 0) {
            /* keep the style across the gap inside one styled phrase */
            int s = r->sty[pos] == r->sty[pos - 1] ? r->sty[pos] : MD_S_NORMAL;
            add_seg(r, l, s, " ", 1);
            col++;
        }
        while (w > avail - col && !r->oom) { /* a word wider than the line */
            int k = text_fit(r->buf + pos, (int)(end - pos), avail - col);
            if (k <= 0) k = text_char_len(r->buf + pos, (int)(end - pos)); /* whole characters */
            add_range(r, l, pos, pos + (size_t)k);
            pos += (size_t)k;
            l = begin_line(r, &first);
            col = 0;
            w = text_width(r->buf + pos, (int)(end - pos));
        }
        add_range(r, l, pos, end);
        col += w;
        pos = end;
    }
}

/* A code line wider than the text is wrapped, never cut (code must not
 * lose characters), and every row it continues on starts with a mark in
 * the code's 2-column gutter: "↪" where the terminal is UTF-8, else "> "
 * (the shell's own continuation prompt, PS2). So a wrapped line reads as
 * one line, and a reader who copies it knows where the real breaks are. */
static int code_marks_utf8;
void md_use_unicode(int on) { code_marks_utf8 = on; }

static void wrap_code(mdr *r)
{
    int avail = r->width - r->indent - 2;
    if (avail < 8) avail = 8;
    int first = 1;
    size_t pos = 0, len = r->len;
    if (len > 0 && r->buf[len - 1] == '\n') len--; /* md4c ends code with a newline */
    while (pos <= len && !r->oom) {
        size_t end = pos;
        while (end < len && r->buf[end] != '\n') end++;
        int cont = 0;
        do {
            md_line *l = begin_line(r, &first);
            if (cont) add_seg(r, l, MD_S_MARK, code_marks_utf8 ? "\xe2\x86\xaa " : "> ", code_marks_utf8 ? 4 : 2);
            else add_spaces(r, l, 2);
            cont = 1;
            int k = text_fit(r->buf + pos, (int)(end - pos), avail);
            if (k <= 0 && pos < end) k = text_char_len(r->buf + pos, (int)(end - pos));
            /* break after a space in the row's second half, so that words
             * stay whole; the space stays, on the row it ends */
            if (pos + (size_t)k < end)
                for (int b = k; b > k / 2; b--)
                    if (r->buf[pos + (size_t)b - 1] == ' ') {
                        k = b;
                        break;
                    }
            add_seg(r, l, MD_S_CODE, r->buf + pos, (size_t)k);
            pos += (size_t)k;
        } while (pos < end && !r->oom);
        pos = end + 1;
    }
}

static void flush(mdr *r)
{
    if (r->len == 0 && !r->bullet[0]) return;
    blank_if_needed(r);
    if (r->in_code) wrap_code(r);
    else wrap_text(r);
    if (r->heading && r->heading <= 2 && r->len > 0) { /* underline H1/H2 */
        int w = text_width(r->buf, (int)r->len), avail = r->width - r->indent;
        if (w > avail) w = avail;
        md_line *l = new_line(r);
        add_spaces(r, l, r->indent);
        for (int i = 0; i < w; i++) add_seg(r, l, MD_S_MARK | MD_S_HEADING, r->heading == 1 ? "=" : "-", 1);
    }
    r->len = 0;
}

static void push_indent(mdr *r, int add)
{
    if (r->nindents < MAX_DEPTH) r->indents[r->nindents++] = r->indent;
    r->indent += add;
}

static void pop_indent(mdr *r)
{
    if (r->nindents > 0) r->indent = r->indents[--r->nindents];
}

/*--- md4c callbacks --------------------------------------------------------*/

static int enter_block(MD_BLOCKTYPE type, void *detail, void *ud)
{
    mdr *r = ud;
    switch (type) {
    case MD_BLOCK_UL:
    case MD_BLOCK_OL:
        flush(r); /* text of the item that holds this list */
        if (r->nlists < MAX_DEPTH) {
            r->lists[r->nlists].ordered = type == MD_BLOCK_OL;
            r->lists[r->nlists].next = type == MD_BLOCK_OL ? ((MD_BLOCK_OL_DETAIL *)detail)->start : 0;
            r->nlists++;
        }
        if (r->nlists == 1) blank_if_needed(r);
        break;
    case MD_BLOCK_LI: {
        flush(r);
        int ordered = r->nlists > 0 && r->lists[r->nlists - 1].ordered;
        if (ordered) snprintf(r->bullet, sizeof r->bullet, "%u. ", r->lists[r->nlists - 1].next++);
        else snprintf(r->bullet, sizeof r->bullet, "%s", r->nlists > 1 ? "- " : "* ");
        push_indent(r, text_width(r->bullet, -1));
        break;
    }
    case MD_BLOCK_QUOTE:
        flush(r);
        push_indent(r, 2);
        break;
    case MD_BLOCK_H:
        flush(r);
        r->heading = (int)((MD_BLOCK_H_DETAIL *)detail)->level;
        r->need_blank = 1;
        break;
    case MD_BLOCK_CODE:
        flush(r);
        r->in_code = 1;
        r->need_blank = 1;
        break;
    case MD_BLOCK_HTML: r->in_html = 1; break;
    case MD_BLOCK_P: flush(r); break;
    case MD_BLOCK_TABLE:
        flush(r);
        md_table_free(r->table);
        r->table = md_table_new();
        if (!r->table) r->oom = 1;
        break;
    case MD_BLOCK_THEAD: r->in_thead = 1; break;
    case MD_BLOCK_TR:
        if (r->table && md_table_row(r->table, r->in_thead) != 0) r->oom = 1;
        break;
    case MD_BLOCK_TH:
    case MD_BLOCK_TD:
        r->len = 0;
        r->in_th = type == MD_BLOCK_TH;
        break;
    case MD_BLOCK_HR: {
        flush(r);
        r->need_blank = 1;
        blank_if_needed(r);
        md_line *l = new_line(r);
        add_spaces(r, l, r->indent);
        for (int i = r->indent; i < r->width; i++) add_seg(r, l, MD_S_MARK, "-", 1);
        r->need_blank = 1;
        break;
    }
    default: break;
    }
    return r->oom ? -1 : 0;
}

static enum md_table_align table_align(const MD_BLOCK_TD_DETAIL *d)
{
    return d->align == MD_ALIGN_RIGHT ? MD_TABLE_RIGHT : d->align == MD_ALIGN_CENTER ? MD_TABLE_CENTER : MD_TABLE_LEFT;
}

static int leave_block(MD_BLOCKTYPE type, void *detail, void *ud)
{
    mdr *r = ud;
    switch (type) {
    case MD_BLOCK_P:
        flush(r);
        /* tight list items keep their lines together */
        r->need_blank = 1;
        break;
    case MD_BLOCK_H:
        flush(r);
        r->heading = 0;
        r->need_blank = 1;
        break;
    case MD_BLOCK_CODE:
        flush(r);
        r->in_code = 0;
        r->need_blank = 1;
        break;
    case MD_BLOCK_HTML: r->in_html = 0; break;
    case MD_BLOCK_THEAD: r->in_thead = 0; break;
    case MD_BLOCK_TH:
    case MD_BLOCK_TD:
        if (r->table && md_table_cell(r->table, r->buf, r->sty, r->len, table_align(detail)) != 0) r->oom = 1;
        r->len = 0;
        r->in_th = 0;
        break;
    case MD_BLOCK_TABLE:
        if (r->table) {
            r->need_blank = 1;
            blank_if_needed(r);
            md_table_render(r->table, r->out, r->indent, r->width, &r->oom);
            md_table_free(r->table);
            r->table = NULL;
        }
        r->need_blank = 1;
        break;
    case MD_BLOCK_LI:
        flush(r);
        r->bullet[0] = 0;
        pop_indent(r);
        r->need_blank = 0;
        break;
    case MD_BLOCK_UL:
    case MD_BLOCK_OL:
        if (r->nlists > 0) r->nlists--;
        r->need_blank = 1;
        break;
    case MD_BLOCK_QUOTE:
        flush(r);
        pop_indent(r);
        r->need_blank = 1;
        break;
    default: break;
    }
    return r->oom ? -1 : 0;
}

static int span(MD_SPANTYPE type, int delta, mdr *r)
{
    switch (type) {
    case MD_SPAN_EM: r->emph += delta; break;
    case MD_SPAN_STRONG: r->strong += delta; break;
    case MD_SPAN_CODE: r->code += delta; break;
    case MD_SPAN_A: r->link += delta; break;
    default: break;
    }
    return 0;
}

static int enter_span(MD_SPANTYPE type, void *detail, void *ud) { (void)detail; return span(type, 1, ud); }
static int leave_span(MD_SPANTYPE type, void *detail, void *ud) { (void)detail; return span(type, -1, ud); }

static const char *entity(const char *s, size_t n)
{
    static const struct { const char *name, *text; } map[] = {
        {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&nbsp;", " "},
        {"&times;", "\xc3\x97"}, {"&rarr;", "\xe2\x86\x92"}, {"&mdash;", "\xe2\x80\x94"},
        {"&ndash;", "\xe2\x80\x93"}, {"&ge;", "\xe2\x89\xa5"}, {"&le;", "\xe2\x89\xa4"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strlen(map[i].name) == n && memcmp(map[i].name, s, n) == 0) return map[i].text;
    return NULL;
}

static int text_cb(MD_TEXTTYPE type, const MD_CHAR *s, MD_SIZE n, void *ud)
{
    mdr *r = ud;
    if (r->in_html) return 0; /* raw HTML blocks (comments, mostly) are not shown */
    int st = cur_style(r);
    switch (type) {
    case MD_TEXT_BR: append(r, "\n", 1, st); break;
    case MD_TEXT_SOFTBR: append(r, " ", 1, st); break;
    case MD_TEXT_NULLCHAR: append(r, "?", 1, st); break;
    case MD_TEXT_ENTITY: {
        const char *e = entity(s, n);
        if (e) append(r, e, strlen(e), st);
        else append(r, s, n, st);
        break;
    }
    case MD_TEXT_CODE:
        /* inside an inline code span md4c turns line ends into spaces itself */
        append(r, s, n, st);
        break;
    default: append(r, s, n, st); break;
    }
    return r->oom ? -1 : 0;
}

/*--- entry points ----------------------------------------------------------*/

void md_lines_free(md_lines *l)
{
    for (int i = 0; i < l->n; i++) {
        for (int k = 0; k < l->lines[i].nseg; k++) free(l->lines[i].segs[k].text);
        free(l->lines[i].segs);
    }
    free(l->lines);
    l->lines = NULL;
    l->n = l->cap = 0;
}

mgpu_result md_render(const char *text, size_t len, int width, md_lines *out)
{
    md_lines_free(out);
    if (width < 10) return mgpu_fail(MGPU_ERR_INVALID, "text area of %d columns is too narrow", width);
    mdr r = {.out = out, .width = width};
    MD_PARSER p = {0};
    p.flags = MD_FLAG_STRIKETHROUGH | MD_FLAG_PERMISSIVEAUTOLINKS | MD_FLAG_TABLES;
    p.enter_block = enter_block;
    p.leave_block = leave_block;
    p.enter_span = enter_span;
    p.leave_span = leave_span;
    p.text = text_cb;
    int rc = md_parse(text, (MD_SIZE)len, &p, &r);
    if (!r.oom) flush(&r);
    md_table_free(r.table); /* a parse that stopped inside a table */
    free(r.buf);
    free(r.sty);
    if (r.oom) {
        md_lines_free(out);
        return mgpu_fail(MGPU_ERR_NOMEM, "out of memory rendering the step text");
    }
    if (rc != 0) return mgpu_fail(MGPU_ERR_PARSE, "the step text could not be parsed as Markdown");
    return MGPU_OK;
}
