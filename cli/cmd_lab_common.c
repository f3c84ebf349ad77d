/* cmd_lab_common.c - the catalog, run environment and verdict printing that
 * the headless lab commands share (cmd_lab.h). */
#include "cmd_lab.h"
#include "mgpu/topo.h"
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

mgpu_lab_catalog *lab_cli_open(const char *cmd)
{
    char labs[PATH_MAX], checks[PATH_MAX], state[PATH_MAX];
    mgpu_lab_catalog *cat = NULL;
    if (mgpu_lab_default_dirs(labs, sizeof labs, checks, sizeof checks) != MGPU_OK ||
        mgpu_lab_state_dir(state, sizeof state) != MGPU_OK ||
        mgpu_lab_catalog_open_class(labs, checks, state, &cat) != MGPU_OK) {
        mgpu_cli_error(cmd);
        return NULL;
    }
    const char *w = mgpu_lab_catalog_warning(cat);
    if (w) fprintf(stderr, "mgpulab %s: warning: %s\n", cmd, w);
    return cat;
}

int lab_cli_find(const char *cmd, mgpu_lab_catalog *cat, const char *name)
{
    int i = mgpu_lab_find(cat, name);
    if (i >= 0) return i;
    char list[1024] = "";
    size_t used = 0;
    for (int k = 0; k < mgpu_lab_count(cat) && used < sizeof list; k++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", k ? ", " : "", mgpu_lab_get(cat, k)->id);
    mgpu_cli_usage_error(cmd, "no lab '%s'; the labs are: %s", name, used ? list : "(none found)");
    return -1;
}

int lab_cli_step(const char *cmd, mgpu_lab_catalog *cat, int lab, const char *arg, int *step)
{
    const mgpu_lab_info *li = mgpu_lab_get(cat, lab);
    *step = mgpu_lab_find_step(cat, lab, arg);
    if (*step >= 0) return 0;
    return mgpu_cli_usage_error(cmd, "--step '%s': lab %s has steps 1..%d (or their ids)", arg, li->id, li->nsteps);
}

/*--- Events -------------------------------------------------------------------*/

static volatile int cancel_flag;
static void on_sigint(int sig)
{
    (void)sig;
    cancel_flag = 1;
}

static void ev_log(void *ctx, int rank, const char *line)
{
    lab_cli_out *o = ctx;
    if (o->json) {
        if (o->keeping) mgpu_log_keep_add(&o->logs, rank, line);
        return;
    }
    /* one tag per line of a multi-line text */
    for (const char *p = line; p && *p;) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        if (rank >= 0) printf("[rank %d] %.*s\n", rank, n, p);
        else printf("[lab] %.*s\n", n, p);
        p = nl ? nl + 1 : NULL;
    }
    fflush(stdout);
}

/* A cell as text: strings as they are, numbers short. */
static void cell_text(json_t *v, char *buf, size_t len)
{
    if (json_is_string(v)) snprintf(buf, len, "%s", json_string_value(v));
    else if (json_is_integer(v)) snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_number(v)) snprintf(buf, len, "%.4g", json_number_value(v));
    else if (json_is_array(v) || json_is_object(v)) mgpu_lab_cell_text(v, buf, len); /* as words, not JSON */
    else snprintf(buf, len, "%s", json_is_true(v) ? "true" : json_is_false(v) ? "false" : "-");
    /* a cut text ends at a whole UTF-8 character, never inside a Hangul one */
    size_t n = strlen(buf);
    if (n + 1 == len) {
        size_t k = n;
        while (k > 0 && ((unsigned char)buf[k - 1] & 0xC0) == 0x80) k--;
        if (k > 0 && (unsigned char)buf[k - 1] >= 0xC0) {
            unsigned char lead = (unsigned char)buf[k - 1];
            size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
            if (n - (k - 1) < need) buf[k - 1] = '\0';
        }
    }
}

/* lab.table{title, columns, rows} as aligned text columns: every column
 * (a 16-column cap cut lab 1's matrix after NIC6); a cell wider than W
 * display columns is cut, with "...", at a character (Hangul is two
 * columns a letter, so a byte cap cut Korean cells to a third). */
static void table_cell(json_t *v, char *buf, size_t len)
{
    enum { W = 48 };
    cell_text(v, buf, len);
    if (cli_text_width(buf) > W && cli_text_cut(buf, W - 3)) strcat(buf, "...");
}

static void print_table(json_t *doc)
{
    enum { W = 512 };
    const char *title = json_string_value(json_object_get(doc, "title"));
    json_t *cols = json_object_get(doc, "columns"), *rows = json_object_get(doc, "rows");
    size_t nc = json_array_size(cols);
    for (size_t r = 0; r < json_array_size(rows); r++)
        if (json_array_size(json_array_get(rows, r)) > nc) nc = json_array_size(json_array_get(rows, r));
    int *width = calloc(nc ? nc : 1, sizeof *width);
    if (!width) {
        printf("  %s: (no memory to lay the table out)\n", title ? title : "table");
        return;
    }
    char buf[W + 1];
    for (size_t r = 0; r <= json_array_size(rows); r++)
        for (size_t c = 0; c < nc; c++) {
            json_t *v = r == 0 ? json_array_get(cols, c) : json_array_get(json_array_get(rows, r - 1), c);
            table_cell(v, buf, sizeof buf);
            if (cli_text_width(buf) > width[c]) width[c] = cli_text_width(buf);
        }
    if (title) printf("  %s\n", title);
    for (size_t r = 0; r <= json_array_size(rows); r++) {
        printf(" ");
        for (size_t c = 0; c < nc; c++) {
            json_t *v = r == 0 ? json_array_get(cols, c) : json_array_get(json_array_get(rows, r - 1), c);
            table_cell(v, buf, sizeof buf);
            printf(" ");
            cli_print_padded(stdout, buf, c + 1 < nc ? width[c] : 0); /* by columns: Hangul is two wide */
        }
        printf("\n");
    }
    free(width);
}

static void ev_result(void *ctx, const char *kind, json_t *doc)
{
    lab_cli_out *o = ctx;
    if (o->json) {
        json_array_append_new(o->results, json_pack("{s:s, s:O}", "kind", kind, "doc", doc));
        return;
    }
    if (strcmp(kind, "table") == 0) print_table(doc);
    else if (strcmp(kind, "bench") == 0)
        printf(cli_tr("[result] bench %s: %zu rows, average busbw %.2f GB/s\n"),
               json_string_value(json_object_get(doc, "collective")), json_array_size(json_object_get(doc, "rows")),
               json_number_value(json_object_get(doc, "avg_bus_bw")));
    else if (strcmp(kind, "copy") == 0)
        printf(cli_tr("[result] copy: %zu testcase%s\n"), json_array_size(json_object_get(doc, "testcases")),
               json_array_size(json_object_get(doc, "testcases")) == 1 || mgpu_lang_get() == MGPU_LANG_KO ? "" : "s");
    else if (strcmp(kind, "topo") == 0)
        printf(cli_tr("[result] topology of %s: %zu GPUs\n"), json_string_value(json_object_get(doc, "machine")),
               json_array_size(json_object_get(doc, "gpus")));
    else if (strcmp(kind, "spmd") == 0) {
        const char *whatif = json_string_value(json_object_get(doc, "whatif"));
        printf("[result] spmd %s%s%s%s: %s\n", json_string_value(json_object_get(doc, "script")),
               whatif ? cli_tr(" (what-if on the SIMULATED ") : "", whatif ? whatif : "", whatif ? ")" : "",
               cli_tr(json_is_true(json_object_get(doc, "ok")) ? "every rank finished" : "failed"));
    }
    fflush(stdout);
}

void lab_cli_env(const mgpu_cli_globals *g, lab_cli_out *out, mgpu_lab_env *env)
{
    memset(env, 0, sizeof *env);
    env->backend = g->backend;
    env->launcher = g->launcher;
    env->ranks = g->ranks;
    env->timeout_s = g->timeout_s;
    env->cancel = &cancel_flag;
    /* Ctrl-C always ends the command: a step stuck inside a C library call
     * (a pattern backtracking over a long text) is stopped with the process */
    env->cancel_stops_process_s = 2.0;
    env->events.ctx = out;
    env->events.log = ev_log;
    env->events.result = ev_result;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, NULL);
}

void lab_cli_banner(const mgpu_cli_globals *g, FILE *f)
{
    /* the coordinator never opens a device backend: the sim's machine is
     * named by its model, in the words of mgpu_backend_describe */
    if (!mgpu_backend_config_is_sim(&g->backend)) return;
    mgpu_topo *t = NULL;
    if (mgpu_backend_config_sim_topo(&g->backend, &t) != MGPU_OK) {
        fprintf(f, "# SIMULATED machine %s\n", g->backend.machine ? g->backend.machine : "dgx-h100");
        mgpu_error_clear();
        return;
    }
    fprintf(f, "# SIMULATED machine %s (sim backend requested)\n", mgpu_topo_machine_name(t));
    mgpu_topo_free(t);
}

/*--- Verdicts -------------------------------------------------------------------*/

/* Any check of the verdict waiting for the learner's answer? */
static int waits_for_answers(const mgpu_lab_verdict *v)
{
    size_t i;
    json_t *c;
    json_array_foreach(v->checks, i, c) if (json_is_true(json_object_get(c, "unanswered"))) return 1;
    return v->state == MGPU_STEP_AWAITING;
}

/* Headless, a question is answered with --answer (the shell's key a means
 * nothing here): the command to type, and the questions still open. */
static void print_how_to_answer(const mgpu_lab_info *lab, int step)
{
    const mgpu_lab_step_info *s = lab && step >= 0 && step < lab->nsteps ? &lab->steps[step] : NULL;
    if (!s) {
        printf("%s", cli_tr("  answer: --answer ID=VALUE\n"));
        return;
    }
    printf(cli_tr("  answer: mgpulab run %s --step %d --answer ID=VALUE"), lab->id, step + 1);
    int open = 0;
    for (int q = 0; q < s->nquestions; q++)
        if (!s->questions[q].answer) printf("%s%s", open++ ? ", " : cli_tr(" (waiting: "), s->questions[q].id);
    printf("%s\n", open ? ")" : "");
}

void lab_cli_print_verdict(const mgpu_lab_info *lab, int step, const mgpu_lab_verdict *v)
{
    static const char *const word[] = {"NEW", "PASS", "FAIL", "ERROR", "CANCELLED", "READ", "AWAITING"};
    printf("%s %s\n", cli_tr(word[v->state <= MGPU_STEP_AWAITING ? v->state : 0]), v->message);
    if (v->saw[0]) printf("  saw: %s\n", v->saw);
    if (v->wanted[0]) printf("  wanted: %s\n", v->wanted);
    if (v->where[0]) printf("  where: %s\n", v->where);
    if (waits_for_answers(v)) print_how_to_answer(lab, step);
    /* saw/wanted/where above are the first failure's (with none, the first
     * unanswered question's); the others in full. An unanswered question
     * waits, it did not fail. */
    size_t nfail = 0, nwait = 0, i;
    json_t *c;
    int failures = 0;
    json_array_foreach(v->checks, i, c)
        failures += !json_is_true(json_object_get(c, "ok")) && !json_is_true(json_object_get(c, "unanswered"));
    json_array_foreach(v->checks, i, c) {
        if (json_is_true(json_object_get(c, "ok"))) continue;
        int waits = json_is_true(json_object_get(c, "unanswered"));
        if (waits ? nwait++ == 0 && !failures : nfail++ == 0) continue;
        printf("  %s: %s\n", cli_tr(waits ? "also waits for an answer" : "also failed"),
               json_string_value(json_object_get(c, "msg")));
        static const char *const k[] = {"saw", "wanted", "where"};
        for (int j = 0; j < 3; j++) {
            const char *s = json_string_value(json_object_get(c, k[j]));
            if (s && *s) printf("    %s: %s\n", k[j], s);
        }
    }
    if (v->traceback[0]) {
        for (const char *p = v->traceback; *p;) {
            const char *nl = strchr(p, '\n');
            int n = nl ? (int)(nl - p) : (int)strlen(p);
            printf("  %.*s\n", n, p);
            p = nl ? nl + 1 : p + n;
        }
    }
    fflush(stdout);
}

json_t *lab_cli_verdict_json(const mgpu_lab_info *lab, int step, const mgpu_lab_verdict *v, lab_cli_out *out)
{
    const mgpu_lab_step_info *s = lab->nsteps > step ? &lab->steps[step] : NULL;
    json_t *o = json_pack("{s:s, s:i, s:s?, s:s?, s:s, s:s, s:s, s:s, s:s, s:s, s:f}", "lab", lab->id, "step",
                          step + 1, "id", s ? s->id : NULL, "title", s ? s->title : NULL, "state",
                          mgpu_step_state_name(v->state), "message", v->message, "saw", v->saw, "wanted", v->wanted,
                          "where", v->where, "traceback", v->traceback, "seconds", v->seconds);
    if (!o) o = json_pack("{s:s, s:i, s:s}", "lab", lab->id, "step", step + 1, "state", mgpu_step_state_name(v->state));
    if (s) json_object_set_new(o, "title_local", json_string(s->title_local ? s->title_local : s->title));
    json_object_set_new(o, "lang", json_string(mgpu_lang_name(mgpu_lang_get())));
    json_object_set_new(o, "measurements", v->measurements ? json_incref(v->measurements) : json_object());
    json_object_set_new(o, "checks", v->checks ? json_incref(v->checks) : json_array());
    if (out && out->keeping) json_object_set_new(o, "logs", mgpu_log_keep_json(&out->logs));
    if (out && out->results) json_object_set(o, "results", out->results);
    return o;
}
