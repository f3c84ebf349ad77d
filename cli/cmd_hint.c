/* cmd_hint.c - `mgpulab hint LAB [--step N] [--solution]`: the next hint
 * of a step, or - asked for explicitly - its reference solution. */
#include "cmd_lab.h"
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: mgpulab hint LAB [--step N] [--solution]\n"
    "\n"
    "The next hint for the first step of LAB you have not passed (or step N: its number\n"
    "or id). Asking again shows the next hint, cycling through them; the hints taken are\n"
    "counted in your progress. The last hint stops short of the code.\n"
    "\n";

static const char epilog[] =
    "\n"
    "Exit status: 0, 1 when the solution cannot be read or the record not saved, or 2\n"
    "for an unknown lab or step.\n";

enum { O_STEP, O_SOLUTION };
static const mgpu_opt options[] = {
    [O_STEP] = {.name = "--step", .short_name = 's', .kind = MGPU_OPT_STRING, .value_name = "N",
                .help = "this step (number from 1, or the step's id) instead\nof the first one not passed"},
    [O_SOLUTION] = {.name = "--solution",
                    .help = "show the reference solution of the step's exercise\ninstead: a line saying what it is, then the file. Your\nprogress records that you saw it (\"solution_shown\"),\nand `mgpulab report` shows it."},
    MGPU_OPT_END,
};

/* The step's reference solution, after a line that says what it is and
 * that progress keeps the asking. */
static int show_solution(mgpu_lab_catalog *cat, int lab, int step)
{
    const mgpu_lab_info *l = mgpu_lab_get(cat, lab);
    const mgpu_lab_step_info *s = &l->steps[step];
    if (!s->exercise_src) {
        printf(cli_tr("Lab %d step %d/%d (%s) has no exercise, so no solution to show.\n"), l->number, step + 1,
               l->nsteps, s->title_local);
        return 0;
    }
    char *text = NULL;
    size_t len = 0;
    mgpu_result r = mgpu_lab_solution(cat, lab, step, &text, &len);
    if (!text) {
        fprintf(stderr, "mgpulab hint: %s\n", mgpu_error_message());
        return 1;
    }
    const char *file = strrchr(s->exercise_src, '/');
    printf(cli_tr("The reference solution of step %d (%s), %s - %s:\n"), step + 1, s->id,
           file ? file + 1 : s->exercise_src,
           cli_tr(r == MGPU_OK ? "recorded in your progress as shown" : "shown, but not recorded in your progress"));
    fwrite(text, 1, len, stdout);
    if (len && text[len - 1] != '\n') putchar('\n');
    free(text);
    if (r != MGPU_OK) {
        fprintf(stderr, "mgpulab hint: the solution could not be recorded in your progress: %s\n", mgpu_error_message());
        return 1;
    }
    return 0;
}

static int run(const mgpu_cli_globals *g, int argc, char **argv)
{
    (void)g;
    mgpu_opt_args o;
    int orc = mgpu_opts_parse("hint", options, argc, argv, 0, &o);
    if (orc) return orc;
    const char *name = o.noperands ? o.operands[0] : NULL, *step_arg = o.v[O_STEP].text;
    int solution = o.v[O_SOLUTION].count > 0;
    if (o.noperands > 1) orc = mgpu_cli_usage_error("hint", "unexpected argument '%s'", o.operands[1]);
    mgpu_opts_free(&o);
    if (orc) return orc;
    if (!name) return mgpu_cli_usage_error("hint", "which lab? give LAB");
    mgpu_lab_catalog *cat = lab_cli_open("hint");
    if (!cat) return 1;
    int rc = 2, lab = lab_cli_find("hint", cat, name), step = -1;
    if (lab < 0) goto out;
    const mgpu_lab_info *l = mgpu_lab_get(cat, lab);
    if (l->load_error) {
        fprintf(stderr, "mgpulab hint: lab %s did not load:\n%s\n", l->id, l->load_error);
        rc = 1;
        goto out;
    }
    if (step_arg) {
        if (lab_cli_step("hint", cat, lab, step_arg, &step)) goto out;
    } else {
        step = mgpu_lab_next_step(cat, lab);
        if (step >= l->nsteps) {
            printf(cli_tr("every step of lab %s is passed; `mgpulab hint %s --step N` shows a step's hints\n"), l->id,
                   name);
            rc = 0;
            goto out;
        }
    }
    if (solution) {
        rc = show_solution(cat, lab, step);
        goto out;
    }
    const mgpu_lab_step_info *s = &l->steps[step];
    int k = s->hints_taken;
    const char *h = mgpu_lab_hint(cat, lab, step);
    if (!h) printf(cli_tr("Lab %d step %d/%d (%s) has no hints.\n"), l->number, step + 1, l->nsteps, s->title_local);
    else {
        printf("Lab %d step %d/%d: %s\n", l->number, step + 1, l->nsteps, s->title_local);
        printf(cli_tr("hint %d of %d: %s\n"), k % s->nhints + 1, s->nhints, h);
    }
    rc = 0;
    if (h && mgpu_error_code() != MGPU_OK) {
        fprintf(stderr, "mgpulab hint: the hint could not be counted in your progress: %s\n", mgpu_error_message());
        rc = 1;
    }
out:
    mgpu_lab_catalog_close(cat);
    return rc;
}

const mgpu_cmd mgpu_cmd_hint = {
    .name = "hint",
    .summary = "the next hint for a lab's step (--solution: its reference solution)",
    .usage = usage,
    .options = options,
    .epilog = epilog,
    .run = run,
};
