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
    "\n"
    "Options:\n"
    "  --solution   show the reference solution of the step's exercise instead: a line\n"
    "               saying what it is, then the file. Your progress records that you\n"
    "               saw it (\"solution_shown\"), and `mgpulab report` shows it.\n"
    "\n"
    "Exit status: 0, 1 when the solution cannot be read or the record not saved, or 2\n"
    "for an unknown lab or step.\n";

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
    const char *name = NULL, *step_arg = NULL;
    int solution = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--solution") == 0) solution = 1;
        else if (strcmp(argv[i], "--step") == 0 || strcmp(argv[i], "-s") == 0) {
            if (i + 1 >= argc) return mgpu_cli_usage_error("hint", "--step needs a value");
            step_arg = argv[++i];
        } else if (strncmp(argv[i], "--step=", 7) == 0) step_arg = argv[i] + 7;
        else if (argv[i][0] == '-') return mgpu_cli_usage_error("hint", "unknown option '%s'", argv[i]);
        else if (!name) name = argv[i];
        else return mgpu_cli_usage_error("hint", "unexpected argument '%s'", argv[i]);
    }
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
    .run = run,
};
