/* md_out.c - rendered Markdown lines built segment by segment. */
#include "md_out.h"
#include <stdlib.h>
#include <string.h>

md_line *md_out_line(md_lines *o, int *oom)
{
    if (*oom) return NULL;
    if (o->n == o->cap) {
        int cap = o->cap ? o->cap * 2 : 64;
        md_line *nl = realloc(o->lines, (size_t)cap * sizeof *nl);
        if (!nl) {
            *oom = 1;
            return NULL;
        }
        o->lines = nl;
        o->cap = cap;
    }
    md_line *l = &o->lines[o->n++];
    l->nseg = 0;
    l->segs = NULL;
    return l;
}

void md_out_seg(md_line *l, int style, const char *s, size_t n, int *oom)
{
    if (!l || n == 0 || *oom) return;
    if (l->nseg > 0 && l->segs[l->nseg - 1].style == style) {
        md_seg *g = &l->segs[l->nseg - 1];
        size_t old = strlen(g->text);
        char *t = realloc(g->text, old + n + 1);
        if (!t) {
            *oom = 1;
            return;
        }
        memcpy(t + old, s, n);
        t[old + n] = 0;
        g->text = t;
        return;
    }
    md_seg *segs = realloc(l->segs, (size_t)(l->nseg + 1) * sizeof *segs);
    char *t = malloc(n + 1);
    if (!segs || !t) {
        if (segs) l->segs = segs;
        free(t);
        *oom = 1;
        return;
    }
    memcpy(t, s, n);
    t[n] = 0;
    l->segs = segs;
    l->segs[l->nseg].style = style;
    l->segs[l->nseg].text = t;
    l->nseg++;
}

void md_out_spaces(md_line *l, int n, int *oom)
{
    static const char sp[] = "                                                                ";
    while (n > 0) {
        int k = n > 64 ? 64 : n;
        md_out_seg(l, MD_S_NORMAL, sp, (size_t)k, oom);
        n -= k;
    }
}

void md_out_range(md_line *l, const char *buf, const unsigned char *sty, size_t a, size_t b, int *oom)
{
    while (a < b) {
        size_t e = a;
        while (e < b && sty[e] == sty[a]) e++;
        md_out_seg(l, sty[a], buf + a, e - a, oom);
        a = e;
    }
}
