/* test_shell_hangul.c - the shell lays Korean out by display width (issue
 * 29): Hangul takes two columns a character, so wrapping, tables, cutting
 * with the ellipsis and padding must count columns, never bytes or
 * characters, and never split a character. And the shell's own strings:
 * every tr() literal of shell/ has its Korean, with the same placeholders
 * in the same order. Needs no terminal (C.UTF-8 suffices for wcwidth). */
#include "tap.h"
#include "md.h"
#include "shell_strings.h"
#include "text.h"
#include <ctype.h>
#include <dirent.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* 1 when s is whole UTF-8 characters (no character cut in half). */
static int utf8_whole(const char *s)
{
    mbstate_t st;
    memset(&st, 0, sizeof st);
    size_t len = strlen(s);
    while (len > 0) {
        wchar_t wc;
        size_t n = mbrtowc(&wc, s, len, &st);
        if (n == (size_t)-1 || n == (size_t)-2 || n == 0) return 0;
        s += n;
        len -= n;
    }
    return 1;
}

static void line_text(const md_line *l, char *out, size_t len)
{
    out[0] = 0;
    for (int k = 0; k < l->nseg; k++) strncat(out, l->segs[k].text, len - strlen(out) - 1);
}

/* The Hangul syllables of s, in order (what wrapping must keep, all of it). */
static void hangul_only(const char *s, char *out, size_t len)
{
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && o + 4 < len;) {
        /* U+AC00..U+D7A3: 0xEA 0xB0 0x80 .. 0xED 0x9E 0xA3 */
        if (*p >= 0xEA && *p <= 0xED && p[1] && p[2]) {
            memcpy(out + o, p, 3);
            o += 3;
            p += 3;
        } else {
            p++;
        }
    }
    out[o] = 0;
}

static const char *para =
    "이 단계는 한글 문장이 화면 폭에 맞게 줄바꿈되는지 확인한다. 한글 한 글자는 터미널에서 두 칸을 "
    "차지하므로 글자 수가 아니라 표시 폭으로 줄을 나누어야 한다. all-reduce, DDP, FSDP, NCCL 같은 "
    "용어는 Latin 문자로 남는다. 띄어쓰기없이아주길게이어지는한글낱말이줄보다길면글자단위로나누어야한다.";

static void test_wrap(void)
{
    char doc[4096], want[4096], got[8192], buf[1024];
    snprintf(doc, sizeof doc, "# 한글 제목: 표와 긴 줄\n\n%s\n\n- 목록 항목도 %s\n\n```\n코드 안의 한글 주석: %s\n```\n", para,
             para, para);
    hangul_only(doc, want, sizeof want);
    md_lines m = {0};
    for (int w = 12; w <= 118; w++) {
        CHECK_OK(md_render(doc, strlen(doc), w, &m));
        got[0] = 0;
        int bad = 0;
        for (int i = 0; i < m.n && !bad; i++) {
            line_text(&m.lines[i], buf, sizeof buf);
            for (int k = 0; k < m.lines[i].nseg; k++)
                if (!utf8_whole(m.lines[i].segs[k].text)) {
                    CHECKF(0, "width %d, line %d: a segment cuts a character: '%s'", w, i, m.lines[i].segs[k].text);
                    bad = 1;
                }
            /* the code gutter's mark (2 columns) stands in the width too */
            if (text_width(buf, -1) > w) {
                CHECKF(0, "width %d, line %d is %d columns: '%s'", w, i, text_width(buf, -1), buf);
                bad = 1;
            }
            strncat(got, buf, sizeof got - strlen(got) - 1);
        }
        char have[8192];
        hangul_only(got, have, sizeof have);
        CHECKF(strcmp(have, want) == 0, "width %d: Hangul lost or reordered in wrapping", w);
    }
    md_lines_free(&m);
}

/* The display columns where the bars of a table line stand ('|' in rows,
 * '+' in the rule): a list ending with -1. */
static void bar_columns(const char *line, int *cols, int max)
{
    int n = 0;
    for (const char *p = line; *p && n < max - 1; p++)
        if (*p == '|' || *p == '+') cols[n++] = text_width(line, (int)(p - line));
    cols[n] = -1;
}

static void test_table(void)
{
    const char *doc = "| 링크 | 경로 | 한 방향 대역폭 |\n|---|---|---|\n"
                      "| NV18 | NVSwitch를 거치는 18개의 NVLink | 18 x 25 = 450 GB/s |\n"
                      "| PCIe | 호스트 브리지를 거치는 경로, CPU 소켓 사이에서는 더 느리다 | 64 GB/s |\n"
                      "| NET | 다른호스트로가는아주긴한글낱말하나 | NDR 400 |\n";
    char want[4096], got[8192], buf[1024];
    hangul_only(doc, want, sizeof want);
    md_lines m = {0};
    for (int w = 16; w <= 118; w++) {
        CHECK_OK(md_render(doc, strlen(doc), w, &m));
        int first[16], cols[16], ok = 1;
        got[0] = 0;
        for (int i = 0; i < m.n && ok; i++) {
            line_text(&m.lines[i], buf, sizeof buf);
            strncat(got, buf, sizeof got - strlen(got) - 1);
            if (!utf8_whole(buf)) {
                ok = 0;
                CHECKF(0, "width %d: a cell cuts a character: '%s'", w, buf);
            }
            if (text_width(buf, -1) > w) {
                ok = 0;
                CHECKF(0, "width %d: '%s' is %d columns", w, buf, text_width(buf, -1));
            }
            bar_columns(buf, i ? cols : first, 16);
            /* every row and the rule have their bars where the header has them */
            for (int k = 0; i && k < 16 && ok; k++) {
                if (cols[k] != first[k]) {
                    ok = 0;
                    CHECKF(0, "width %d: line %d's bars are not the header's: '%s'", w, i, buf);
                }
                if (cols[k] < 0 || first[k] < 0) break;
            }
        }
        if (ok) tap_passed++;
        char have[8192];
        hangul_only(got, have, sizeof have);
        CHECKF(strcmp(have, want) == 0, "width %d: a cell lost Hangul", w);
    }
    md_lines_free(&m);
}

/* A particle written apart ("GPU A 에서") never starts a row: it moves
 * with the word before it, in the step text and in the boxes. */
static void test_particles(void)
{
    CHECK(text_is_particle("에서", (int)strlen("에서")));
    CHECK(text_is_particle("로.", (int)strlen("로.")));
    CHECK(!text_is_particle("GPU", 3));
    CHECK(!text_is_particle("에서는가나다", (int)strlen("에서는가나다")));
    /* after Hangul "이" is "this", the word after's: it may start a row */
    const char *det = "가나 다라마바사 이 단계는 끝난다";
    md_lines d = {0};
    CHECK_OK(md_render(det, strlen(det), 16, &d));
    char first[256];
    line_text(&d.lines[0], first, sizeof first);
    CHECKF(strcmp(first, "가나 다라마바사") == 0, "'%s'", first);
    md_lines_free(&d);
    const char *doc = "이 명령은 과정 전체가 걸린 질문에 답한다 — GPU A 에서 GPU B 로 byte 가 어느 path 로 가는가? "
                      "rank 2 의 보고는 stream 이 기다린 뒤에 온다.";
    md_lines m = {0};
    char buf[1024];
    for (int w = 12; w <= 60; w++) {
        CHECK_OK(md_render(doc, strlen(doc), w, &m));
        for (int i = 1; i < m.n; i++) { /* the first row starts the paragraph ("이 명령은": "this") */
            line_text(&m.lines[i], buf, sizeof buf);
            const char *p = buf;
            while (*p == ' ') p++;
            const char *e = strchr(p, ' ');
            int len = e ? (int)(e - p) : (int)strlen(p);
            CHECKF(!text_is_particle(p, len), "width %d, row %d starts with a particle: '%s'", w, i, buf);
        }
        const char *st[64];
        int ln[64];
        int n = text_wrap(doc, w, st, ln, 64);
        for (int i = 1; i < n; i++) {
            const char *e = memchr(st[i], ' ', (size_t)ln[i]);
            int len = e ? (int)(e - st[i]) : ln[i];
            CHECKF(!text_is_particle(st[i], len), "text_wrap %d, row %d starts with a particle: '%.*s'", w, i, ln[i], st[i]);
            CHECKF(text_width(st[i], ln[i]) <= w, "text_wrap %d, row %d too wide", w, i);
        }
    }
    md_lines_free(&m);
}

static void test_cut_pad(void)
{
    text_use_unicode(1);
    char out[256];
    /* fits: unchanged */
    CHECK(text_cut(out, sizeof out, "한글 abc", 8) == 8 && strcmp(out, "한글 abc") == 0);
    /* cut by columns, the ellipsis in the last one; a wide character that
     * would need the last column goes whole, never in half */
    for (int cols = 1; cols <= 12; cols++) {
        int w = text_cut(out, sizeof out, "가나다라마바사", cols);
        CHECKF(w <= cols && utf8_whole(out), "cut to %d: '%s' (%d columns)", cols, out, w);
        CHECKF(strstr(out, "\xe2\x80\xa6") != NULL, "cut to %d has no ellipsis: '%s'", cols, out);
    }
    CHECK(text_cut(out, sizeof out, "가나다라마바사", 6) == 5 && strcmp(out, "가나\xe2\x80\xa6") == 0);
    /* padded to exact columns, left and right */
    text_pad(out, sizeof out, "본 값:", 8, 0);
    CHECKF(text_width(out, -1) == 8 && strncmp(out, "본 값:", strlen("본 값:")) == 0, "'%s'", out);
    text_pad(out, sizeof out, "12.5", 8, 1);
    CHECK(strcmp(out, "    12.5") == 0);
    text_pad(out, sizeof out, "가나다라마", 6, 0);
    CHECKF(text_width(out, -1) == 6 && utf8_whole(out), "'%s'", out);
    /* a wrap of one column takes whole characters */
    const char *st[16];
    int ln[16];
    int n = text_wrap("가나다", 1, st, ln, 16);
    CHECK(n == 3 && ln[0] == 3 && ln[1] == 3 && ln[2] == 3);
    CHECK(text_char_len("한", 3) == 3 && text_char_len("a", 1) == 1);
    /* what snprintf leaves of a Korean text cut at its buffer's size */
    char cut[16];
    memcpy(cut, "가나다", 5); /* one character and two bytes of the next */
    cut[5] = 0;
    text_trim_partial(cut);
    CHECK(strcmp(cut, "가") == 0);
    snprintf(cut, sizeof cut, "%s", "ab가");
    text_trim_partial(cut);
    CHECK(strcmp(cut, "ab가") == 0);
    memcpy(cut, "ab가", 3);
    cut[3] = 0;
    text_trim_partial(cut);
    CHECK(strcmp(cut, "ab") == 0);
    text_use_unicode(0);
    text_cut(out, sizeof out, "가나다라", 5);
    CHECK(strcmp(out, "가나~") == 0); /* a terminal that is not UTF-8 */
}

/*--- the catalog ----------------------------------------------------------------*/

/* The printf conversions of fmt ("%d", "%.1f", "%zu" ...), "%%" left out,
 * joined: two texts of one format must give the same. */
static void conversions(const char *fmt, char *out, size_t len)
{
    size_t o = 0;
    out[0] = 0;
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') continue;
        if (p[1] == '%') {
            p++;
            continue;
        }
        const char *q = p + 1;
        while (*q && strchr("-+ #0123456789.*hlzjt", *q)) q++;
        if (!*q) break;
        size_t n = (size_t)(q - p) + 1;
        if (o + n + 2 < len) {
            memcpy(out + o, p, n);
            o += n;
            out[o++] = ' ';
            out[o] = 0;
        }
        p = q;
    }
}

static void test_catalog_placeholders(void)
{
    char a[256], b[256];
    for (size_t i = 0; i < shell_strings_ko_count; i++) {
        const mgpu_tr_entry *e = &shell_strings_ko[i];
        CHECKF(e->ko && *e->ko, "entry %zu ('%.40s') has no Korean", i, e->en);
        if (!e->ko) continue;
        conversions(e->en, a, sizeof a);
        conversions(e->ko, b, sizeof b);
        CHECKF(strcmp(a, b) == 0, "'%.50s': placeholders '%s' in English, '%s' in Korean", e->en, a, b);
        CHECKF(utf8_whole(e->ko), "entry %zu: Korean is not whole UTF-8", i);
        for (size_t k = i + 1; k < shell_strings_ko_count; k++)
            CHECKF(strcmp(e->en, shell_strings_ko[k].en) != 0, "'%.50s' is in the table twice", e->en);
    }
}

/* A C string literal at p (after its opening quote) unescaped into out;
 * returns the position after the closing quote. */
static const char *read_literal(const char *p, char *out, size_t len, size_t *o)
{
    for (; *p && *p != '"'; p++) {
        char c = *p;
        if (c == '\\' && p[1]) {
            p++;
            c = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
        }
        if (*o + 1 < len) out[(*o)++] = c;
    }
    out[*o] = 0;
    return *p ? p + 1 : p;
}

/* Every tr("...") of one source file (adjacent literals joined) and every
 * pane's .title = "..." has a Korean entry. */
static void check_source(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return;
    static char src[1 << 20];
    size_t n = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    src[n] = 0;
    for (const char *p = src; (p = strstr(p, "tr(")) != NULL; p += 3) {
        if (p > src && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) continue;
        const char *q = p + 3;
        while (isspace((unsigned char)*q)) q++;
        if (*q != '"') continue; /* tr(variable): the help, checked by its address */
        char lit[4096];
        size_t o = 0;
        while (*q == '"') {
            q = read_literal(q + 1, lit, sizeof lit, &o);
            while (isspace((unsigned char)*q)) q++;
        }
        int found = 0;
        for (size_t i = 0; i < shell_strings_ko_count && !found; i++) found = strcmp(shell_strings_ko[i].en, lit) == 0;
        CHECKF(found, "%s: tr(\"%.60s\") has no Korean in shell_strings_ko.c", path, lit);
    }
    for (const char *p = src; (p = strstr(p, ".title = \"")) != NULL; p++) {
        char lit[256];
        size_t o = 0;
        read_literal(p + strlen(".title = \""), lit, sizeof lit, &o);
        int found = 0;
        for (size_t i = 0; i < shell_strings_ko_count && !found; i++) found = strcmp(shell_strings_ko[i].en, lit) == 0;
        CHECKF(found, "%s: pane title \"%s\" has no Korean", path, lit);
    }
}

static void test_catalog_complete(void)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/shell", MGPU_SOURCE_DIR);
    DIR *d = opendir(dir);
    CHECKF(d != NULL, "cannot open %s", dir);
    if (!d) return;
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 3 || strcmp(e->d_name + l - 2, ".c") != 0 || strcmp(e->d_name, "shell_strings_ko.c") == 0) continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        check_source(path);
        files++;
    }
    closedir(d);
    CHECK(files > 10);
}

static void test_lookup(void)
{
    mgpu_lang_set(MGPU_LANG_EN);
    CHECK(strcmp(tr("Labs"), "Labs") == 0);
    CHECK(strcmp(tr(shell_help_text), shell_help_text) == 0);
    CHECK(strcmp(shell_lang_other_name(), "한국어") == 0);
    mgpu_lang_set(MGPU_LANG_KO);
    CHECK(strcmp(tr("Labs"), "Lab 목록") == 0);
    CHECK(strstr(tr(shell_help_text), "도움말") != NULL);
    CHECK(strcmp(shell_lang_other_name(), "English") == 0);
    CHECK(strcmp(tr("a string with no entry"), "a string with no entry") == 0);
    /* the help fits the help dialog (74 columns of text) in both languages,
     * and names the language key */
    for (int lang = 0; lang < 2; lang++) {
        mgpu_lang_set(lang ? MGPU_LANG_KO : MGPU_LANG_EN);
        const char *h = tr(shell_help_text);
        CHECK(strstr(h, "\n  L   ") != NULL);
        for (const char *p = h; *p;) {
            const char *nl = strchr(p, '\n');
            int len = nl ? (int)(nl - p) : (int)strlen(p);
            CHECKF(text_width(p, len) <= 74, "help line of %d columns: '%.*s'", text_width(p, len), len, p);
            p += len + (nl != NULL);
        }
    }
    mgpu_lang_set(MGPU_LANG_EN);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    test_wrap();
    test_table();
    test_particles();
    test_cut_pad();
    test_catalog_placeholders();
    test_catalog_complete();
    test_lookup();
    return tap_done();
}
