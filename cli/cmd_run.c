/* cmd_run.c - `mgpulab run LAB [--step N]`: run a lab's steps headless and
 * print each verdict (the same framework the shell uses). */
#include "mgpu/file.h"
#include "cmd_lab.h"
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: mgpulab run LAB [--step N] [--answer ID=VALUE ...] [--text] [--json]\n"
    "\n"
    "Run the steps of LAB (a number such as 2, an id such as 02-allreduce, or a name such\n"
    "as allreduce), or only step N (its number or id): each step's run calls the engine on\n"
    "rank workers, then its check judges the result. For each step this prints\n"
    "\"== Lab 2 step 1/3: TITLE\", the run's log lines (\"[rank K] ...\", \"[lab] ...\"), then\n"
    "the verdict: PASS, FAIL or ERROR with its message and, where the check gives them,\n"
    "\"saw:\", \"wanted:\" and \"where:\" lines; a lab error adds the Lua traceback.\n"
    "Exercises are the files in your workspace ($XDG_STATE_HOME/mgpulab/work/LAB/);\n"
    "progress is saved after every step.\n"
    "\n";

static const char epilog[] =
    "\n"
    "Global options that matter here: --backend, --machine, --fault, --launcher, --ranks\n"
    "(override the lab's choice), --timeout. Ctrl-C cancels the running step.\n"
    "\n"
    "Examples:\n"
    "  mgpulab run 2 --backend sim --machine dgx-h100\n"
    "  mgpulab run topology --step 1 --answer link01=NV18\n"
    "\n"
    "Exit status: 0 when every step ran (passed, or failed its check: your work is not\n"
    "done yet), 1 when a step hit a lab error, was cancelled or is locked by the class's\n"
    "pacing (LOCKED and why: an earlier step not done, a lab not opened yet), 2 for bad\n"
    "arguments.\n";

typedef struct run_args {
    const char *lab, *step;
    const char **answers;
    int nanswers, text, json;
} run_args;

static mgpu_result answer_value(const mgpu_opt *opt, const char *text, mgpu_opt_value *v)
{
    (void)opt;
    (void)v;
    const char *eq = strchr(text, '=');
    if (!eq || eq == text) return mgpu_fail(MGPU_ERR_INVALID, "--answer '%s': write ID=VALUE", text);
    return MGPU_OK;
}

enum { O_STEP, O_ANSWER, O_TEXT, O_JSON };
static const mgpu_opt options[] = {
    [O_STEP] = {.name = "--step", .short_name = 's', .kind = MGPU_OPT_STRING, .value_name = "N",
                .help = "only this step (number from 1, or the step's id)"},
    [O_ANSWER] = {.name = "--answer", .kind = MGPU_OPT_STRING, .value_name = "ID=VALUE", .flags = MGPU_OPT_REPEAT,
                  .parse = answer_value,
                  .help = "answer a step's question before running (repeatable);\nthe answer is saved and the check reads it"},
    [O_TEXT] = {.name = "--text", .help = "print each step's text (Markdown) before running it"},
    [O_JSON] = {.name = "--json", .short_name = 'j',
                .help = "one JSON object: {lab, steps: [{state, message, saw,\nwanted, where, traceback, seconds, measurements, logs,\nresults}], ok}"},
    MGPU_OPT_END,
};

static int parse(int argc, char **argv, run_args *a)
{
    mgpu_opt_args o;
    int rc = mgpu_opts_parse("run", options, argc, argv, 0, &o);
    if (rc) return rc;
    a->step = o.v[O_STEP].text;
    for (int k = 0; k < o.v[O_ANSWER].count; k++) a->answers[a->nanswers++] = o.v[O_ANSWER].texts[k];
    a->text |= o.v[O_TEXT].count > 0;
    a->json |= o.v[O_JSON].count > 0;
    if (o.noperands > 1)
        rc = mgpu_cli_usage_error("run", "unexpected argument '%s' (one LAB at a time; --step N for a step)", o.operands[1]);
    else if (o.noperands == 0) rc = mgpu_cli_usage_error("run", "which lab? give LAB (`mgpulab list` shows them)");
    else a->lab = o.operands[0];
    mgpu_opts_free(&o);
    return rc;
}

/* Save each --answer on its step: the given --step, else the step that asks it. */
static int save_answers(mgpu_lab_catalog *cat, int lab, int only_step, const run_args *a)
{
    const mgpu_lab_info *l = mgpu_lab_get(cat, lab);
    for (int i = 0; i < a->nanswers; i++) {
        const char *eq = strchr(a->answers[i], '=');
        char id[128];
        snprintf(id, sizeof id, "%.*s", (int)(eq - a->answers[i]), a->answers[i]);
        int step = only_step;
        for (int s = 0; step < 0 && s < l->nsteps; s++)
            for (int q = 0; q < l->steps[s].nquestions; q++)
                if (strcmp(l->steps[s].questions[q].id, id) == 0) step = s;
        if (step < 0) return mgpu_cli_usage_error("run", "--answer %s: no step of lab %s asks a question '%s'", a->answers[i], l->id, id);
        if (mgpu_lab_answer(cat, lab, step, id, eq + 1) != MGPU_OK) {
            if (mgpu_error_code() == MGPU_ERR_INVALID) return mgpu_cli_usage_error("run", "--answer: %s", mgpu_error_message());
            return mgpu_cli_error("run");
        }
    }
    return 0;
}

static void print_text(const char *path, int missing)
{
    if (missing) printf("%s", cli_tr("(the step's Korean text is missing: the English follows)\n"));
    /* a step text is a regular file of at most 4 MiB (load.c checked it lies
     * inside the lab); anything else is named, not streamed */
    char *text = NULL;
    size_t n = 0;
    if (mgpu_file_read(path, (size_t)4 << 20, &text, &n) != MGPU_OK) {
        fprintf(stderr, "mgpulab run: the step's text: %s\n", mgpu_error_message());
        mgpu_error_clear();
    } else {
        fwrite(text, 1, n, stdout);
        free(text);
    }
    printf("\n");
}

static int run(const mgpu_cli_globals *g, int argc, char **argv)
{
    run_args a = {0};
    a.answers = calloc((size_t)argc + 1, sizeof *a.answers);
    if (!a.answers) return 1;
    a.json = g->json;
    int rc = parse(argc, argv, &a);
    mgpu_lab_catalog *cat = rc ? NULL : lab_cli_open("run");
    if (!cat) {
        free(a.answers);
        return rc ? rc : 1;
    }
    /* a step stuck where its budget cannot reach ends its own process, not
     * this one: its verdict is printed and its attempt recorded */
    if (mgpu_lab_catalog_isolate(cat, NULL) != MGPU_OK) mgpu_error_clear();
    int lab = lab_cli_find("run", cat, a.lab), only = -1;
    const mgpu_lab_info *l = lab >= 0 ? mgpu_lab_get(cat, lab) : NULL;
    if (lab < 0) rc = 2;
    else if (l->load_error) {
        fprintf(stderr, "mgpulab run: lab %s did not load:\n%s\n", l->id, l->load_error);
        rc = 1;
    } else if (a.step && lab_cli_step("run", cat, lab, a.step, &only)) rc = 2;
    else rc = save_answers(cat, lab, only, &a);
    if (rc) goto out;

    lab_cli_out out = {.json = a.json};
    mgpu_lab_env env;
    lab_cli_env(g, &out, &env);
    if (!a.json) lab_cli_banner(g, stdout);
    json_t *steps = json_array();
    int first = only >= 0 ? only : 0, last = only >= 0 ? only : l->nsteps - 1;
    for (int s = first; s <= last; s++) {
        const mgpu_lab_step_info *si = &l->steps[s];
        char why[400];
        if (mgpu_lab_step_locked(cat, lab, s, why, sizeof why)) { /* the class's pacing: stop here */
            if (a.json) json_array_append_new(steps, json_pack("{s:s, s:i, s:s, s:s, s:s}", "lab", l->id, "step", s + 1,
                                                               "id", si->id, "state", "locked", "message", why));
            else printf("== Lab %d step %d/%d: %s\n%s %s\n", l->number, s + 1, l->nsteps, si->title_local,
                        cli_tr("LOCKED"), why);
            rc = 1;
            break;
        }
        if (!a.json) {
            printf("== Lab %d step %d/%d: %s\n", l->number, s + 1, l->nsteps, si->title_local);
            if (a.text && si->text_path_local) print_text(si->text_path_local, si->text_missing);
            fflush(stdout);
        } else {
            mgpu_log_keep_init(&out.logs);
            out.keeping = 1;
            out.results = json_array();
        }
        mgpu_lab_verdict v;
        if (mgpu_lab_run_step(cat, lab, s, &env, &v) != MGPU_OK) {
            mgpu_cli_error("run"); /* the progress could not be saved: say so, go on */
            rc = 1;
        }
        if (a.json) json_array_append_new(steps, lab_cli_verdict_json(l, s, &v, &out));
        else lab_cli_print_verdict(l, s, &v);
        if (out.keeping) mgpu_log_keep_free(&out.logs);
        out.keeping = 0;
        json_decref(out.results);
        out.results = NULL;
        if (v.state == MGPU_STEP_ERROR || v.state == MGPU_STEP_CANCELLED) rc = 1;
        int cancelled = v.state == MGPU_STEP_CANCELLED;
        mgpu_lab_verdict_clear(&v);
        if (cancelled) break;
    }
    if (a.json) {
        json_t *doc = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:b}", "tool", "mgpulab run", "lang",
                                mgpu_lang_name(mgpu_lang_get()), "lab", l->id, "title", l->title, "title_local",
                                l->title_local ? l->title_local : l->title, "steps", steps, "ok", rc == 0);
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        printf("\n");
        json_decref(doc);
    } else {
        json_decref(steps);
    }
out:
    mgpu_lab_catalog_close(cat);
    free(a.answers);
    return rc;
}

const mgpu_cmd mgpu_cmd_run = {
    .name = "run",
    .summary = "run a lab's steps and print the verdicts",
    .usage = usage,
    .options = options,
    .epilog = epilog,
    .run = run,
};
