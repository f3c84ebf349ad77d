/* cmd_verify.c - `mgpulab verify [LAB ...]`: run every check, rustlings
 * style: one row per step (lab, step, state, message). */
#include "cmd_lab.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: mgpulab verify [LAB ...] [--json]\n"
    "\n"
    "Run every step of the given labs (all labs when none is given) and print one row\n"
    "per step: lab, step, state (passed, failed, awaiting - its questions wait for\n"
    "answers -, error) and the check's message, then a count. A lab that does not\n"
    "load is one \"error\" row. A step that passed on another machine and not on this\n"
    "one is followed by a line naming that machine and the options that check it\n"
    "there (its answers may depend on the machine). Progress is saved as with\n"
    "`mgpulab run`. The run's log lines are not shown; `mgpulab run LAB --step N` shows\n"
    "them for one step.\n"
    "\n";

static const char epilog[] =
    "\n"
    "Exit status: 0 only when every check passed and no step hit an error (a reading\n"
    "step's run that broke, or did not finish, counts too), 1 otherwise, 2 for an\n"
    "unknown lab or bad options.\n";

static const mgpu_opt options[] = {
    {.name = "--json", .short_name = 'j',
     .help = "one JSON object: {labs: [...], steps: [{lab, step, id,\ntitle, state, message, machine, passed_on (when it\npassed elsewhere), ...}], passed, total, ok}"},
    MGPU_OPT_END,
};

static void row(const char *lab, const char *step, const char *state, const char *msg)
{
    const char *nl = strchr(msg, '\n');
    /* padded by columns: the state and a step in Korean are wider than their bytes */
    cli_print_padded(stdout, lab, 22);
    printf(" ");
    cli_print_padded(stdout, step, 22);
    printf(" ");
    cli_print_padded(stdout, state, 9);
    printf(" %.*s\n", nl ? (int)(nl - msg) : (int)strlen(msg), msg);
    fflush(stdout);
}

/* The options that pick the machine a key names: "sim P" -> "--backend sim
 * --machine P", "sim P fault F" -> "... --fault F", "cuda host H" -> run on
 * H with --backend cuda. */
static void machine_options(const char *key, char *out, size_t len)
{
    char preset[128] = "", fault[128] = "";
    if (sscanf(key, "sim %127s fault %127s", preset, fault) >= 1)
        snprintf(out, len, "--backend sim --machine %s%s%s", preset, fault[0] ? " --fault " : "", fault);
    else snprintf(out, len, "--backend cuda");
}

/* A step that passed on another machine and not here: its answers (lab 7's
 * crash rank, lab 1's link) may be right there only. Say where it passed
 * and how to check it there. */
static void passed_elsewhere(const mgpu_lab_info *l, const char *passed_on, const mgpu_lab_verdict *v)
{
    char opts[300];
    machine_options(passed_on, opts, sizeof opts);
    const char *host = strncmp(passed_on, "cuda host ", 10) == 0 ? passed_on + 10 : NULL;
    printf("%-22s ", "");
    printf(cli_tr("passed on %s, not on this machine (%s): its verdict depends on the machine - mgpulab verify %s %s%s%s\n"),
           passed_on, v->machine, l->id, opts, cli_tr(host ? " on " : " checks it there"), host ? host : "");
}

static int run(const mgpu_cli_globals *g, int argc, char **argv)
{
    mgpu_opt_args o;
    int orc = mgpu_opts_parse("verify", options, argc, argv, 0, &o);
    if (orc) return orc;
    int json = g->json || o.v[0].count, nnames = o.noperands;
    const char **names = calloc((size_t)argc + 1, sizeof *names);
    for (int i = 0; names && i < nnames; i++) names[i] = o.operands[i];
    mgpu_opts_free(&o);
    if (!names) return 1;
    mgpu_lab_catalog *cat = lab_cli_open("verify");
    if (!cat) {
        free(names);
        return 1;
    }
    if (mgpu_lab_catalog_isolate(cat, NULL) != MGPU_OK) mgpu_error_clear(); /* a stuck step ends its own process */
    int n = nnames ? nnames : mgpu_lab_count(cat), rc = 0;
    int *labs = calloc((size_t)n + 1, sizeof *labs);
    for (int i = 0; labs && i < n; i++) {
        labs[i] = nnames ? lab_cli_find("verify", cat, names[i]) : i;
        if (labs[i] < 0) rc = 2;
    }
    if (rc || !labs) goto out;
    lab_cli_out out = {.json = 0};
    mgpu_lab_env env;
    lab_cli_env(g, &out, &env);
    env.events.log = NULL;   /* a table, not the runs' chatter */
    env.events.result = NULL;
    if (!json) {
        lab_cli_banner(g, stdout);
        row("LAB", "STEP", cli_tr("STATE"), cli_tr("MESSAGE"));
    }
    json_t *rows = json_array();
    /* reading steps count apart; steps waiting for answers are not passed,
     * and are said apart from failures */
    int passed = 0, total = 0, cancelled = 0, read = 0, reading = 0, awaiting = 0, errors = 0;
    for (int i = 0; i < n && !cancelled; i++) {
        const mgpu_lab_info *l = mgpu_lab_get(cat, labs[i]);
        if (l->load_error) {
            total++;
            if (json) json_array_append_new(rows, json_pack("{s:s, s:i, s:s, s:s}", "lab", l->id, "step", 0, "state",
                                                            "error", "message", l->load_error));
            else row(l->id, cli_tr("(did not load)"), cli_tr("error"), l->load_error);
            continue;
        }
        for (int s = 0; s < l->nsteps && !cancelled; s++) {
            /* where it passed before this run (the run may pass and move it) */
            char before[160];
            snprintf(before, sizeof before, "%s", l->steps[s].passed_on ? l->steps[s].passed_on : "");
            mgpu_lab_verdict v;
            if (mgpu_lab_run_step(cat, labs[i], s, &env, &v) != MGPU_OK) mgpu_cli_error("verify");
            int elsewhere = v.state != MGPU_STEP_PASSED && before[0] && v.machine[0] && strcmp(before, v.machine) != 0;
            if (v.state == MGPU_STEP_READ || !l->steps[s].has_check) {
                reading++;
                read += v.state == MGPU_STEP_READ;
            } else {
                total++;
                passed += v.state == MGPU_STEP_PASSED;
                awaiting += v.state == MGPU_STEP_AWAITING;
            }
            cancelled = v.state == MGPU_STEP_CANCELLED;
            /* a reading step that broke (its process stopped: a stuck
             * exercise) is not read, and verify says so in its status */
            errors += v.state == MGPU_STEP_ERROR;
            if (json) {
                json_t *o = lab_cli_verdict_json(l, s, &v, NULL);
                if (v.machine[0]) json_object_set_new(o, "machine", json_string(v.machine));
                if (elsewhere) json_object_set_new(o, "passed_on", json_string(before));
                json_array_append_new(rows, o);
            } else {
                char step[64];
                snprintf(step, sizeof step, "%d %s", s + 1, l->steps[s].id);
                row(l->id, step, cli_tr(mgpu_step_state_name(v.state)), v.message);
                if (elsewhere) passed_elsewhere(l, before, &v);
            }
            mgpu_lab_verdict_clear(&v);
        }
    }
    rc = passed == total && !cancelled && !errors ? 0 : 1;
    if (json) {
        json_t *doc = json_pack("{s:s, s:s, s:o, s:i, s:i, s:i, s:i, s:i, s:b}", "tool", "mgpulab verify", "lang",
                                mgpu_lang_name(mgpu_lang_get()), "steps", rows,
                                "passed", passed, "total", total, "awaiting", awaiting, "read", read, "reading",
                                reading, "ok", rc == 0);
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        printf("\n");
        json_decref(doc);
    } else {
        json_decref(rows);
        char waits[64] = "";
        if (awaiting)
            snprintf(waits, sizeof waits, cli_tr(" (%d wait%s for answers)"), awaiting,
                     mgpu_lang_get() == MGPU_LANG_KO || awaiting != 1 ? "" : "s");
        printf(cli_tr("%d of %d checked steps passed%s; %d of %d reading steps read%s\n"), passed, total, waits, read,
               reading, cancelled ? cli_tr(" (cancelled)") : "");
    }
out:
    free(labs);
    free(names);
    mgpu_lab_catalog_close(cat);
    return rc;
}

const mgpu_cmd mgpu_cmd_verify = {
    .name = "verify",
    .summary = "run every check, one row per step",
    .usage = usage,
    .options = options,
    .epilog = epilog,
    .run = run,
};
