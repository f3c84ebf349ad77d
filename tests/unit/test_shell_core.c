/* test_shell_core.c - the shell core's pieces that need no terminal: the
 * Markdown renderer (wrapping, styles, lists, code), UTF-8 widths, the
 * event queue and its wake-up pipe across threads, and the watch. */
#include "tap.h"
#include "evq.h"
#include "md.h"
#include "text.h"
#include "watch.h"
#include <locale.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One rendered line as plain text. */
static void line_text(const md_line *l, char *out, size_t len)
{
    out[0] = 0;
    for (int k = 0; k < l->nseg; k++) strncat(out, l->segs[k].text, len - strlen(out) - 1);
}

static int line_has_style(const md_line *l, const char *text, int style)
{
    for (int k = 0; k < l->nseg; k++)
        if (strstr(l->segs[k].text, text) && (l->segs[k].style & style) == style) return 1;
    return 0;
}

static int find_line(const md_lines *m, const char *needle)
{
    char buf[512];
    for (int i = 0; i < m->n; i++) {
        line_text(&m->lines[i], buf, sizeof buf);
        if (strstr(buf, needle)) return i;
    }
    return -1;
}

static void test_markdown(void)
{
    const char *doc = "# Title\n\nSome **bold** and *soft* text with `code` in it, long enough to wrap "
                      "at thirty columns.\n\n- one\n- two\n  1. inner\n\n```\nx = 1\n    y = 2\n```\n";
    md_lines m = {0};
    CHECK_OK(md_render(doc, strlen(doc), 30, &m));
    char buf[512];
    int t = find_line(&m, "Title");
    CHECK(t == 0);
    CHECK(t >= 0 && line_has_style(&m.lines[t], "Title", MD_S_HEADING));
    /* H1 is underlined with '=' */
    line_text(&m.lines[1], buf, sizeof buf);
    CHECKF(strncmp(buf, "=====", 5) == 0, "line after the title: '%s'", buf);
    int b = find_line(&m, "bold");
    CHECK(b >= 0 && line_has_style(&m.lines[b], "bold", MD_S_STRONG));
    CHECK(b >= 0 && line_has_style(&m.lines[b], "soft", MD_S_EMPH));
    int c = find_line(&m, "code");
    CHECK(c >= 0 && line_has_style(&m.lines[c], "code", MD_S_CODE));
    /* every line fits the width */
    for (int i = 0; i < m.n; i++) {
        line_text(&m.lines[i], buf, sizeof buf);
        CHECKF(text_width(buf, -1) <= 30, "line %d is %d wide: '%s'", i, text_width(buf, -1), buf);
    }
    /* the paragraph wrapped: "columns." is on a later line than "Some" */
    CHECK(find_line(&m, "columns.") > find_line(&m, "Some"));
    int one = find_line(&m, "one"), inner = find_line(&m, "inner");
    CHECK(one >= 0 && inner > one);
    line_text(&m.lines[one], buf, sizeof buf);
    CHECKF(strcmp(buf, "* one") == 0, "list item: '%s'", buf);
    line_text(&m.lines[inner], buf, sizeof buf);
    CHECKF(strcmp(buf, "  1. inner") == 0, "nested item: '%s'", buf);
    /* code keeps its indentation and its own lines */
    int y = find_line(&m, "y = 2");
    CHECK(y >= 0 && line_has_style(&m.lines[y], "y = 2", MD_S_CODE));
    line_text(&m.lines[y], buf, sizeof buf);
    CHECKF(strcmp(buf, "      y = 2") == 0, "code line: '%s'", buf);
    CHECK(find_line(&m, "x = 1") == y - 1);

    /* a word longer than the width is split, nothing is lost */
    const char *lw = "aaaaaaaaaabbbbbbbbbbccccccccccdddddddddd";
    CHECK_OK(md_render(lw, strlen(lw), 12, &m));
    char all[256] = "";
    for (int i = 0; i < m.n; i++) {
        line_text(&m.lines[i], buf, sizeof buf);
        CHECK(text_width(buf, -1) <= 12);
        strcat(all, buf);
    }
    CHECKF(strcmp(all, lw) == 0, "split word: '%s'", all);
    /* a code line wider than the text wraps with a continuation mark in
     * its gutter ("> " in ASCII), breaking after a space; nothing is lost */
    const char *cb = "```\nlocal x = mgpu.tensor(1024)   -- floats on this rank\n```\n";
    CHECK_OK(md_render(cb, strlen(cb), 30, &m));
    char code[256] = "";
    int conts = 0;
    for (int i = 0; i < m.n; i++) {
        line_text(&m.lines[i], buf, sizeof buf);
        if (!buf[0]) continue;
        CHECKF(text_width(buf, -1) <= 30, "code row %d is too wide: '%s'", i, buf);
        CHECKF(strncmp(buf, i == 0 ? "  " : "> ", 2) == 0, "code row %d starts '%.2s'", i, buf);
        conts += i > 0;
        strcat(code, buf + 2);
    }
    CHECKF(conts >= 1 && strcmp(code, "local x = mgpu.tensor(1024)   -- floats on this rank") == 0, "wrapped code: '%s'", code);
    line_text(&m.lines[0], buf, sizeof buf);
    CHECKF(strcmp(buf, "  local x = mgpu.tensor(1024) ") == 0, "the break is after a space: '%s'", buf);
    /* too narrow is an error, not a crash */
    CHECK(md_render("x", 1, 3, &m) == MGPU_ERR_INVALID);
    md_lines_free(&m);
}

/* Tables (issue 10, item 5): aligned columns, a rule under the header,
 * wrapped cells when the table is wider than the screen - not run-on text
 * with the pipes in it. */
static void test_table(void)
{
    const char *doc = "Before.\n\n| cell | path | one direction |\n|---|---|---|\n"
                      "| `NV#` | # bonded NVLinks (through NVSwitch on a DGX) | # x 25 GB/s (NVLink 4) |\n"
                      "| `SYS` | across CPU sockets | often no P2P at all |\n\nAfter.\n";
    md_lines m = {0};
    char buf[512], row[512];
    CHECK_OK(md_render(doc, strlen(doc), 100, &m));
    int h = find_line(&m, "cell");
    CHECK(h >= 0);
    line_text(&m.lines[h], buf, sizeof buf);
    CHECKF(strstr(buf, "|---") == NULL && strchr(buf, '|') != NULL, "header: '%s'", buf);
    CHECK(h >= 0 && line_has_style(&m.lines[h], "cell", MD_S_STRONG));
    /* the rule under the header, then the rows with their columns aligned */
    line_text(&m.lines[h + 1], buf, sizeof buf);
    CHECKF(strncmp(buf, "-----", 5) == 0 && strstr(buf, "-+-"), "rule: '%s'", buf);
    int nv = find_line(&m, "NV#"), sys = find_line(&m, "SYS");
    CHECK(nv == h + 2 && sys == nv + 1);
    line_text(&m.lines[nv], row, sizeof row);
    line_text(&m.lines[sys], buf, sizeof buf);
    CHECKF(strstr(row, "| # x 25") - row == strstr(buf, "| often") - buf, "columns not aligned:\n'%s'\n'%s'", row, buf);
    CHECK(line_has_style(&m.lines[nv], "NV#", MD_S_CODE));
    CHECK(find_line(&m, "Before.") < h && find_line(&m, "After.") > sys);
    CHECK(find_line(&m, "|---|") < 0);

    /* at 40 columns the widest column wraps; every line fits, no word is lost */
    CHECK_OK(md_render(doc, strlen(doc), 40, &m));
    char all[2048] = "";
    for (int i = 0; i < m.n; i++) {
        line_text(&m.lines[i], buf, sizeof buf);
        CHECKF(text_width(buf, -1) <= 40, "line %d is %d wide: '%s'", i, text_width(buf, -1), buf);
        strcat(all, buf);
        strcat(all, "\n");
    }
    const char *words[] = {"bonded", "NVLinks", "NVSwitch", "DGX)", "(NVLink", "4)", "often", "P2P", "all"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) CHECKF(strstr(all, words[i]), "'%s' lost:\n%s", words[i], all);
    nv = find_line(&m, "NV#");
    sys = find_line(&m, "SYS");
    CHECKF(sys > nv + 1, "the NV# row did not wrap:\n%s", all);
    /* a continuation line keeps the column bars */
    line_text(&m.lines[nv + 1], buf, sizeof buf);
    CHECKF(strstr(buf, " | ") != NULL, "continuation: '%s'", buf);
    md_lines_free(&m);
}

static void test_text(void)
{
    CHECK(text_width("abc", -1) == 3);
    CHECK(text_width("\xe2\x94\x80x", -1) == 2); /* a box line and x */
    CHECK(text_width("\xe6\x97\xa5", -1) == 2);   /* a wide CJK character */
    CHECK(text_fit("\xe6\x97\xa5\xe6\x97\xa5", -1, 3) == 3); /* one wide char fits in 3 columns */
    CHECK(text_fit("abc", -1, 2) == 2);
}

typedef struct { shell_evq *q; int n; } pusher;

static void *push_many(void *arg)
{
    pusher *p = arg;
    for (int i = 0; i < p->n; i++) {
        shell_event *ev = evq_new(EV_LOG);
        ev->rank = i;
        ev->text = strdup("line");
        evq_push(p->q, ev);
    }
    return NULL;
}

static void test_evq(void)
{
    shell_evq *q;
    CHECK_OK(evq_open(&q));
    CHECK(evq_take(q) == NULL);
    pusher p = {q, 5000};
    pthread_t th;
    pthread_create(&th, NULL, push_many, &p);
    int got = 0, last = -1, ordered = 1;
    while (got < p.n) {
        struct pollfd pfd = {.fd = evq_fd(q), .events = POLLIN};
        if (poll(&pfd, 1, 5000) <= 0) break; /* the pipe must wake us */
        for (shell_event *ev = evq_take(q), *next; ev; ev = next) {
            next = ev->next;
            ev->next = NULL;
            if (ev->rank != last + 1) ordered = 0;
            last = ev->rank;
            got++;
            evq_event_free(ev);
        }
    }
    pthread_join(th, NULL);
    CHECKF(got == p.n, "received %d of %d events", got, p.n);
    CHECK(ordered);
    /* nothing left: the pipe is quiet again */
    struct pollfd pfd = {.fd = evq_fd(q), .events = POLLIN};
    CHECK(poll(&pfd, 1, 0) == 0);
    evq_close(q);
}

static void test_watch(void)
{
    char dir[] = "/tmp/mgpu-watch-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char a[256], b[256], tmp[256];
    snprintf(a, sizeof a, "%s/a.lua", dir);
    snprintf(b, sizeof b, "%s/b.lua", dir);
    snprintf(tmp, sizeof tmp, "%s/.a.lua.swp", dir);
    FILE *f = fopen(a, "w");
    fputs("return 0\n", f);
    fclose(f);
    shell_watch *w = watch_open();
    const char *paths[] = {a, b};
    watch_set(w, paths, 2);
    CHECK(watch_changed(w) == -1);
    /* b appearing (a lab copying an exercise) is not a save */
    f = fopen(b, "w");
    fputs("x\n", f);
    fclose(f);
    CHECK(watch_changed(w) == -1);
    /* an editor's save: write a temporary file, rename it over a */
    f = fopen(tmp, "w");
    fputs("return 42\n", f);
    fclose(f);
    CHECK(rename(tmp, a) == 0);
    int seen = watch_changed(w);
    if (seen == -1 && watch_timeout_ms(w) >= 0) seen = watch_changed(w); /* polled */
    CHECKF(seen == 0, "watch_changed gave %d after a save of a.lua", seen);
    CHECK(watch_changed(w) == -1); /* reported once */
    /* a change then rebase (a reset putting the original back): not a save */
    f = fopen(a, "w");
    fputs("return 0 -- original\n", f);
    fclose(f);
    watch_rebase(w);
    CHECK(watch_changed(w) == -1);
    watch_close(w);
    unlink(a);
    unlink(b);
    rmdir(dir);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    test_markdown();
    test_table();
    test_text();
    test_evq();
    test_watch();
    return tap_done();
}
