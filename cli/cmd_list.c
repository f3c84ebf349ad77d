/* cmd_list.c - `mgpulab list`: the labs, their steps passed, what they run on. */
#include "cmd_lab.h"
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: mgpulab list [--json]\n"
    "\n"
    "The labs found (labs/NN-name/lab.lua, or $MGPULAB_LABS), with the steps you have\n"
    "passed and the backends each runs on. A lab that does not load is listed with its\n"
    "error; the others are usable. Progress is read from $XDG_STATE_HOME/mgpulab\n"
    "(default ~/.local/state/mgpulab).\n"
    "\n";

static const char epilog[] =
    "\n"
    "Exit status: 0, or 1 when no labs directory was found, 2 for bad options.\n";

static const mgpu_opt options[] = {
    {.name = "--json", .short_name = 'j',
     .help = "one JSON object: {labs: [{id, number, title, summary,\nbackends, passed, steps: [{id, title, state, exercise,\n...}], load_error}], progress_file}"},
    MGPU_OPT_END,
};

static json_t *lab_json(const mgpu_lab_info *l)
{
    json_t *steps = json_array();
    for (int i = 0; i < l->nsteps; i++) {
        const mgpu_lab_step_info *s = &l->steps[i];
        json_t *qs = json_array();
        for (int q = 0; q < s->nquestions; q++)
            json_array_append_new(qs, json_pack("{s:s, s:s, s:s?, s:s?}", "id", s->questions[q].id, "ask",
                                                s->questions[q].ask, "ask_local", s->questions[q].ask_local, "answer",
                                                s->questions[q].answer));
        json_t *hints = json_array();
        for (int h = 0; h < s->nhints; h++) json_array_append_new(hints, json_string(s->hints_local[h]));
        json_array_append_new(steps, json_pack("{s:s, s:s, s:s, s:s?, s:s?, s:s?, s:i, s:o, s:f, s:f, s:s?, s:b}", "id",
                                               s->id, "title", s->title, "state", mgpu_step_state_name(s->state),
                                               "exercise", s->exercise, "solution", s->solution, "text", s->text_path,
                                               "hints", s->nhints, "questions", qs, "last_run", s->last_run, "seconds",
                                               s->seconds, "message", s->last_message, "check", s->has_check));
        /* the current language's texts beside the English (ids stay English) */
        json_t *st = json_array_get(steps, json_array_size(steps) - 1);
        json_object_set_new(st, "title_local", json_string(s->title_local ? s->title_local : s->title));
        if (s->text_path_local) json_object_set_new(st, "text_local", json_string(s->text_path_local));
        json_object_set_new(st, "text_missing", json_boolean(s->text_missing));
        json_object_set_new(st, "hints_local", hints);
    }
    json_t *o = json_pack("{s:s, s:i, s:s, s:s?, s:s?, s:s, s:i, s:i, s:i, s:o, s:s?}", "id", l->id, "number",
                          l->number, "title", l->title, "summary", l->summary, "backends", l->backends, "dir", l->dir,
                          "ranks", l->ranks, "passed", l->passed, "nsteps", l->nsteps, "steps", steps, "load_error",
                          l->load_error);
    json_object_set_new(o, "title_local", json_string(l->title_local ? l->title_local : l->title));
    if (l->summary_local) json_object_set_new(o, "summary_local", json_string(l->summary_local));
    if (l->backends_local) json_object_set_new(o, "backends_local", json_string(l->backends_local));
    return o;
}

static int run(const mgpu_cli_globals *g, int argc, char **argv)
{
    mgpu_opt_args o;
    int rc = mgpu_opts_parse("list", options, argc, argv, 0, &o);
    if (rc) return rc;
    int json = g->json || o.v[0].count;
    if (o.noperands) rc = mgpu_cli_usage_error("list", "unexpected argument '%s'", o.operands[0]);
    mgpu_opts_free(&o);
    if (rc) return rc;
    mgpu_lab_catalog *cat = lab_cli_open("list");
    if (!cat) return 1;
    int n = mgpu_lab_count(cat);
    if (json) {
        json_t *labs = json_array();
        for (int i = 0; i < n; i++) json_array_append_new(labs, lab_json(mgpu_lab_get(cat, i)));
        json_t *doc = json_pack("{s:s, s:s, s:o, s:s, s:s?}", "tool", "mgpulab list", "lang",
                                mgpu_lang_name(mgpu_lang_get()), "labs", labs, "progress_file",
                                mgpu_lab_progress_path(cat), "warning", mgpu_lab_catalog_warning(cat));
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        printf("\n");
        json_decref(doc);
    } else {
        if (n == 0) printf("%s", cli_tr("no labs found\n"));
        for (int i = 0; i < n; i++) {
            const mgpu_lab_info *l = mgpu_lab_get(cat, i);
            if (l->load_error) {
                const char *nl = strchr(l->load_error, '\n');
                printf("%2d  %-28s %s  %.*s\n", l->number, l->id, cli_tr("BROKEN"),
                       nl ? (int)(nl - l->load_error) : (int)strlen(l->load_error), l->load_error);
                continue;
            }
            /* checked steps passed; reading steps read, apart */
            int checked = 0, reading = 0, read = 0;
            for (int k = 0; k < l->nsteps; k++) {
                checked += l->steps[k].has_check;
                reading += !l->steps[k].has_check;
                read += !l->steps[k].has_check && l->steps[k].state == MGPU_STEP_READ;
            }
            /* the title padded by its columns: a Hangul title is wider than its bytes say */
            printf("%2d  ", l->number);
            cli_print_padded(stdout, l->title_local, 28);
            printf(" ");
            printf(cli_tr("%d/%d passed, %d/%d read"), l->passed, checked, read, reading);
            printf("  %s\n", l->summary_local ? l->summary_local : "");
            if (l->backends_local) printf(cli_tr("    runs on: %s\n"), l->backends_local);
        }
    }
    mgpu_lab_catalog_close(cat);
    return 0;
}

const mgpu_cmd mgpu_cmd_list = {
    .name = "list",
    .summary = "the labs and your progress",
    .usage = usage,
    .options = options,
    .epilog = epilog,
    .run = run,
};
