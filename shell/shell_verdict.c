/* shell_verdict.c - the verdict of the selected step: a box under the text
 * with as much as fits, and the whole verdict (every check with what it
 * saw, wanted and where to look, the diagnosis, the traceback) in a
 * scrollable view on `v`. A verdict cut to the box's width hides exactly
 * the part a learner needs (the "why", the line number), so the box says
 * when it is cut and the view never cuts. */
#include "shell_verdict.h"
#include "shell_box.h"
#include "shell_dialog.h"
#include "shell_strings.h"
#include "text.h"
#include "theme.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *state_label(mgpu_step_state s)
{
    switch (s) {
    case MGPU_STEP_PASSED: return tr("PASS");
    case MGPU_STEP_FAILED: return tr("FAIL");
    case MGPU_STEP_ERROR: return tr("ERROR");
    case MGPU_STEP_CANCELLED: return tr("CANCELLED");
    case MGPU_STEP_READ: return tr("READ");
    case MGPU_STEP_AWAITING: return tr("AWAITING");
    default: return tr("NOT RUN");
    }
}

/* The column the labels "saw:", "wanted:", "where:" take, one space after
 * the widest of them in the current language. */
static int label_width(void)
{
    int w = text_width(tr("saw:"), -1);
    if (text_width(tr("wanted:"), -1) > w) w = text_width(tr("wanted:"), -1);
    if (text_width(tr("where:"), -1) > w) w = text_width(tr("where:"), -1);
    return w + 1 < 8 ? 8 : w + 1;
}

static theme_role state_role(mgpu_step_state s)
{
    switch (s) {
    case MGPU_STEP_PASSED: return TH_PASS;
    case MGPU_STEP_FAILED: return TH_FAIL;
    case MGPU_STEP_ERROR: return TH_ERROR;
    case MGPU_STEP_CANCELLED: return TH_CANCELLED;
    default: return TH_NORMAL;
    }
}

/* The live verdict of the selected step, or NULL. */
static const shell_verdict *selected_verdict(const shell_app *a)
{
    const shell_verdict *v = &a->verdict;
    return v->valid && v->lab == a->lab_open && v->step == a->step_sel ? v : NULL;
}

/* The engine's verdict in it, or NULL. */
static const mgpu_lab_verdict *verdict_of(const shell_verdict *sv)
{
    return sv ? &sv->v : NULL;
}

/* Questions of the verdict wait for the learner's answers: the box says how
 * to answer them here (the message is the engine's, the same headless). */
static int verdict_waits(const mgpu_lab_verdict *v)
{
    size_t i;
    json_t *c;
    json_array_foreach(v->checks, i, c) if (json_is_true(json_object_get(c, "unanswered"))) return 1;
    return v->state == MGPU_STEP_AWAITING;
}

/*--- the box -----------------------------------------------------------------*/

enum { BOX_ROWS = 64 };

typedef struct box_rows {
    const char *label[BOX_ROWS];
    const char *start[BOX_ROWS];
    int len[BOX_ROWS];
    int n;
} box_rows;

/* `s` wrapped to w columns after `label` (continuation rows indented). */
static void add_wrapped(box_rows *b, const char *label, const char *s, int w)
{
    if (!s || !*s) return;
    int lw = label ? text_width(label, -1) : 0;
    const char *st[BOX_ROWS];
    int ln[BOX_ROWS];
    int n = text_wrap(s, w - lw, st, ln, BOX_ROWS - b->n);
    for (int i = 0; i < n && b->n < BOX_ROWS; i++, b->n++) {
        b->label[b->n] = label ? (i == 0 ? label : "") : NULL;
        b->start[b->n] = st[i];
        b->len[b->n] = ln[i];
    }
}

void draw_verdict(shell_app *a)
{
    const rect *r = &a->r_verdict;
    if (r->h < 3) return;
    int running = app_busy(a) && a->work.lab == a->lab_open && a->work.step == a->step_sel;
    const shell_verdict *sv = selected_verdict(a);
    const mgpu_lab_verdict *v = verdict_of(sv);
    const snap_step *st = app_step(a, a->lab_open, a->step_sel);
    /* a verdict made in the other language stays as it was made (the run's
     * language): the frame says which, so a switch does not look broken */
    char title[160];
    snprintf(title, sizeof title, "%s%s%s",
             running ? tr("Verdict (running...)") : (v || (st && st->last_message)) ? tr("Verdict  v: all of it") : tr("Verdict"),
             sv && sv->lang != mgpu_lang_get() ? "  " : "",
             sv && sv->lang != mgpu_lang_get() ? (sv->lang == MGPU_LANG_KO ? tr("(in Korean)") : tr("(in English)")) : "");
    draw_box(r, title, 0);
    int y = r->y + 1, maxy = r->y + r->h - 1, x = r->x + 2, w = r->w - 4;
    mgpu_step_state state = v ? v->state : st ? st->state : MGPU_STEP_NEW;
    if (!v && !st) return;
    int lx = x + text_put(stdscr, y, x, state_label(state), 12, theme_attr(state_role(state)) | A_BOLD);
    if (v) lx += text_putf(stdscr, y, lx, w - (lx - x), A_NORMAL, tr("  (%.1f s)"), v->seconds);
    else if (st->last_run > 0) lx += text_putf(stdscr, y, lx, w - (lx - x), A_NORMAL, tr("  (last run, %.1f s)"), st->seconds);
    if (v ? verdict_waits(v) : st->state == MGPU_STEP_AWAITING)
        lx += text_put(stdscr, y, lx, tr("   press a to answer"), w - (lx - x), A_BOLD);
    /* the best result stays: say so beside the latest attempt */
    if (st && st->state == MGPU_STEP_PASSED && state != MGPU_STEP_PASSED)
        text_put(stdscr, y, lx, tr("   the step stays passed (its best result)"), w - (lx - x), theme_attr(TH_PASS));
    else if (!v && st && st->state == MGPU_STEP_PASSED && st->last_attempt != MGPU_STEP_NEW)
        text_putf(stdscr, y, lx, w - (lx - x), A_NORMAL, tr("   latest attempt: %s"), tr(mgpu_step_state_name(st->last_attempt)));
    y++;
    box_rows b = {.n = 0};
    char saw[64], wanted[64], where[64]; /* the rows point at them until drawn */
    if (v) {
        /* the labels in one column, as wide as the widest in this language */
        int lw = label_width();
        text_pad(saw, sizeof saw, tr("saw:"), lw, 0);
        text_pad(wanted, sizeof wanted, tr("wanted:"), lw, 0);
        text_pad(where, sizeof where, tr("where:"), lw, 0);
        add_wrapped(&b, NULL, v->message, w);
        add_wrapped(&b, saw, v->saw, w);
        add_wrapped(&b, wanted, v->wanted, w);
        add_wrapped(&b, where, v->where, w);
        if (v->state == MGPU_STEP_ERROR) add_wrapped(&b, NULL, v->traceback, w);
    } else if (st->last_message) {
        add_wrapped(&b, NULL, st->last_message, w);
    }
    int rows = maxy - y, cut = b.n > rows;
    for (int i = 0; i < b.n && i < rows; i++) {
        int cx = x;
        if (cut && i == rows - 1) {
            text_put_cut(stdscr, y + i, x, tr("... more: press v for the whole verdict"), w, theme_attr(TH_DIM) | A_BOLD);
            break;
        }
        if (b.label[i]) /* a continuation row: blank under the label (every label is label_width() wide) */
            cx += b.label[i][0] ? text_put(stdscr, y + i, x, b.label[i], w, A_BOLD) : (label_width() < w ? label_width() : w);
        char line[1024];
        snprintf(line, sizeof line, "%.*s", b.len[i], b.start[i]);
        text_put(stdscr, y + i, cx, line, w - (cx - x), A_NORMAL);
    }
}

/*--- the whole verdict ---------------------------------------------------------*/

typedef struct sbuf {
    char *s;
    size_t len, cap;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = (b->len + (size_t)n + 1) * 2;
        char *s = realloc(b->s, cap);
        if (!s) return;
        b->s = s;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static void add_field(sbuf *b, const char *label, const char *s)
{
    char l[64];
    text_pad(l, sizeof l, tr(label), label_width(), 0); /* by display width: "%-8s" counts bytes */
    if (s && *s) sb_add(b, "    %s%s\n", l, s);
}

static const char *jstr(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

/* Every check, failed ones first (they are what the learner acts on), then
 * the questions that wait for an answer, then the passed ones. */
static void add_checks(sbuf *b, json_t *checks)
{
    size_t n = json_array_size(checks), failed = 0, waiting = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *c = json_array_get(checks, i);
        int waits = json_is_true(json_object_get(c, "unanswered"));
        failed += !json_is_true(json_object_get(c, "ok")) && !waits;
        waiting += waits;
    }
    if (n == 1) { /* the message above is this check's */
        json_t *c = json_array_get(checks, 0);
        add_field(b, "saw:", jstr(c, "saw"));
        add_field(b, "wanted:", jstr(c, "wanted"));
        add_field(b, "where:", jstr(c, "where"));
        return;
    }
    if (failed) sb_add(b, tr("\nChecks: %zu of %zu failed"), failed, n - waiting);
    else sb_add(b, tr("\nChecks: %zu passed"), n - waiting);
    if (waiting == 1) sb_add(b, "%s", tr("; 1 question waits for your answer (a)"));
    else if (waiting) sb_add(b, tr("; %zu questions wait for your answers (a)"), waiting);
    sb_add(b, "\n");
    for (int group = 0; group < 3; group++) /* failed, waiting, passed */
        for (size_t i = 0; i < n; i++) {
            json_t *c = json_array_get(checks, i);
            int ok = json_is_true(json_object_get(c, "ok"));
            int g = ok ? 2 : json_is_true(json_object_get(c, "unanswered")) ? 1 : 0;
            if (g != group) continue;
            static const char *const tag[] = {"[FAIL]", "[?]   ", "[ok]  "};
            sb_add(b, "\n%s %zu. %s\n", tag[g], i + 1, *jstr(c, "msg") ? jstr(c, "msg") : tr("(no message)"));
            add_field(b, "saw:", jstr(c, "saw"));
            add_field(b, "wanted:", jstr(c, "wanted"));
            add_field(b, "where:", jstr(c, "where"));
        }
}

void verdict_show_all(shell_app *a)
{
    const shell_verdict *sv = selected_verdict(a);
    const mgpu_lab_verdict *v = verdict_of(sv);
    const snap_step *st = app_selected_step(a);
    if (!st) return;
    if (!v && !st->last_message) {
        status_set(a, tr("no verdict yet: r runs the step"));
        return;
    }
    sbuf b = {0};
    /* a save re-runs the check while the learner reads: say which verdict this is */
    if (app_busy(a) && a->work.lab == a->lab_open && a->work.step == a->step_sel)
        sb_add(&b, "%s", tr("(a new run of this step is under way: this is the last verdict; the view\n"
                            " shows the new one when the run ends)\n\n"));
    if (sv && sv->lang != mgpu_lang_get())
        sb_add(&b, "%s", sv->lang == MGPU_LANG_KO ? tr("(this verdict was made in Korean; r runs the step again)\n\n")
                                                 : tr("(this verdict was made in English; r runs the step again)\n\n"));
    if (v) {
        sb_add(&b, "%s (%.1f s)\n", state_label(v->state), v->seconds);
        /* a list's message is a summary of the checks below: not twice */
        if (json_array_size(v->checks) < 2) sb_add(&b, "\n%s\n", v->message);
        if (json_array_size(v->checks) > 0) {
            add_checks(&b, v->checks);
        } else {
            add_field(&b, "saw:", v->saw);
            add_field(&b, "wanted:", v->wanted);
            add_field(&b, "where:", v->where);
        }
        if (v->traceback[0]) sb_add(&b, tr("\nTraceback:\n%s\n"), v->traceback);
    } else {
        sb_add(&b, tr("%s (last run, %.1f s)\n\n%s\n\nRun the step again (r) for every check's details.\n"),
               state_label(st->state), st->seconds, st->last_message);
    }
    char title[384];
    snprintf(title, sizeof title, tr("Verdict: %s (j/k, PgUp/PgDn scroll; other keys close)"), st->title ? st->title : st->id);
    text_trim_partial(title);
    dialog_text(a, title, b.s ? b.s : "");
    a->modal.live_verdict = 1;
    free(b.s);
}

void verdict_view_refresh(shell_app *a)
{
    if (a->modal.kind != MODAL_MESSAGE || !a->modal.live_verdict || !selected_verdict(a)) return;
    int scroll = a->modal.scroll;
    verdict_show_all(a);
    a->modal.scroll = scroll; /* the learner's place, where the new text is as long */
}
