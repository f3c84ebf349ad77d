/* report_verify.c - `mgpulab report --class DIR --verify`: every pass a
 * learner's export claims is run again here, as nbgrader's autograder
 * does, from the export's evidence: the learner's exercise files and
 * answers go into a scratch state directory, and the lab's steps run in
 * order (a later step may read an earlier one's measurements) on the
 * machine the step passed on - the sim reproduces any preset and fault, so
 * an answer right on the learner's machine is judged there. Each claim
 * ends verified, failed on re-run (with the verdict), or unverifiable
 * (why: no exercise file in the export, a GPU this machine does not have,
 * a lab that does not load). The learner's code runs in the lab sandbox,
 * as on their own machine. */
#include "report.h"
#include "class_model.h"
#include "cmd_lab.h"
#include "mgpu/file.h"
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *js(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

/* mkdir -p of the directories above `file`. */
static int parent_dirs(const char *file)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", file);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0700) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return 0;
}

/* Does the cell claim something a re-run can confirm? A pass of a checked
 * step, also when a progress file changed outside mgpulab claims it. */
static int claims_pass(const class_model *m, const class_cell *c, int col)
{
    if (m->cols[col].reading || !c->step) return 0;
    if (c->state == CLASS_PASSED) return 1;
    return (c->state == CLASS_EDITED || c->state == CLASS_ELSEWHERE) && strcmp(js(c->step, "state"), "passed") == 0;
}

static void note(class_cell *c, class_verify v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(class_cell *c, class_verify v, const char *fmt, ...)
{
    c->verify = v;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->verify_note, sizeof c->verify_note, fmt, ap);
    va_end(ap);
}

/* The options of the machine a claim was made on: "sim P[ fault F]" ->
 * the sim with that preset and fault; "" -> this command's; cuda ->
 * 0 when this command does not run on a GPU. */
static int claim_machine(const char *on, const mgpu_cli_globals *g, mgpu_backend_config *bc, char *preset,
                         char *fault, size_t len)
{
    *bc = g->backend;
    if (!*on) return 1;
    if (strncmp(on, "sim ", 4) == 0) {
        preset[0] = fault[0] = '\0';
        const char *sp = strstr(on + 4, " fault ");
        snprintf(preset, len, "%.*s", sp ? (int)(sp - on - 4) : (int)strlen(on + 4), on + 4);
        if (sp) snprintf(fault, len, "%s", sp + 7);
        bc->kind = MGPU_BACKEND_SIM;
        bc->machine = preset;
        bc->fault = fault[0] ? fault : NULL;
        return 1;
    }
    return g->backend.kind == MGPU_BACKEND_CUDA;
}

/* One learner: the scratch state, the labs with a claim, their steps in order. */
static void verify_learner(class_model *m, class_learner *l, const mgpu_cli_globals *g, const char *labs_dir,
                           const char *checks_dir)
{
    char dir[] = "/tmp/mgpulab-verify-XXXXXX";
    if (!mkdtemp(dir)) {
        for (int c = 0; c < m->ncols; c++)
            if (claims_pass(m, &l->cells[c], c))
                note(&l->cells[c], VERIFY_UNVERIFIABLE, "no scratch directory: %s", strerror(errno));
        return;
    }
    /* the evidence: answers into a fresh progress file, exercise files into the workspace */
    json_t *prog = json_pack("{s:i, s:{}}", "version", 1, "labs"), *labs = json_object_get(prog, "labs");
    const char *ids[MGPU_CLASS_MAX_LABS];
    int nids = 0;
    for (int c = 0; c < m->ncols; c++) {
        class_cell *cell = &l->cells[c];
        const class_col *col = &m->cols[c];
        if (!cell->step) continue;
        json_t *answers = json_object_get(cell->step, "answers");
        if (json_object_size(answers)) {
            json_t *lab = json_object_get(labs, col->lab);
            if (!lab) json_object_set_new(labs, col->lab, lab = json_pack("{s:{}}", "steps"));
            json_object_set_new(json_object_get(lab, "steps"), col->step, json_pack("{s:O}", "answers", answers));
        }
        json_t *ex = json_object_get(cell->step, "exercise");
        const char *file = js(ex, "file");
        /* the export names the file: a hostile name must not write outside the scratch dir */
        if (json_is_string(json_object_get(ex, "text")) && mgpu_file_relpath_inside(file) &&
            !json_is_true(json_object_get(ex, "cut"))) {
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%s/work/%s/%s", dir, col->lab, file);
            const char *text = js(ex, "text");
            if (parent_dirs(path) != 0 || mgpu_file_write_atomic(path, text, strlen(text)) != MGPU_OK) mgpu_error_clear();
        }
        int seen = 0;
        for (int k = 0; k < nids; k++) seen |= strcmp(ids[k], col->lab) == 0;
        if (!seen && claims_pass(m, cell, c) && nids < MGPU_CLASS_MAX_LABS) ids[nids++] = col->lab;
    }
    char ppath[PATH_MAX];
    snprintf(ppath, sizeof ppath, "%s/progress.json", dir);
    json_dump_file(prog, ppath, JSON_COMPACT);
    json_decref(prog);

    mgpu_lab_catalog *cat = NULL;
    if (nids && mgpu_lab_catalog_open_selected(labs_dir, checks_dir, dir, ids, nids, &cat) != MGPU_OK) {
        for (int c = 0; c < m->ncols; c++)
            if (claims_pass(m, &l->cells[c], c))
                note(&l->cells[c], VERIFY_UNVERIFIABLE, "the labs did not open here: %s", mgpu_error_message());
        mgpu_error_clear();
        cat = NULL;
    }
    /* a learner's stuck exercise ends its own process, not the instructor's report */
    if (cat && mgpu_lab_catalog_isolate(cat, NULL) != MGPU_OK) mgpu_error_clear();
    lab_cli_out out = {.json = 1};
    mgpu_lab_env env;
    lab_cli_env(g, &out, &env);
    env.instructor_rerun = 1; /* no pacing, nothing written to the class's shared folder */
    env.events.log = NULL; /* the learners' runs are not the instructor's log */
    env.events.result = NULL;
    for (int li = 0; cat && li < mgpu_lab_count(cat); li++) {
        const mgpu_lab_info *lab = mgpu_lab_get(cat, li);
        int last = -1; /* the last column of this lab with a claim */
        for (int c = 0; c < m->ncols; c++)
            if (strcmp(m->cols[c].lab, lab->id) == 0 && claims_pass(m, &l->cells[c], c)) last = c;
        for (int c = 0; c <= last; c++) {
            const class_col *col = &m->cols[c];
            class_cell *cell = &l->cells[c];
            if (strcmp(col->lab, lab->id) != 0) continue;
            int claim = claims_pass(m, cell, c);
            if (lab->load_error) {
                if (claim) note(cell, VERIFY_UNVERIFIABLE, "lab %s does not load here", lab->id);
                continue;
            }
            const mgpu_lab_step_info *st = &lab->steps[col->step_index];
            json_t *ex = json_object_get(cell->step, "exercise");
            if (claim && st->exercise && !json_is_string(json_object_get(ex, "text"))) {
                note(cell, VERIFY_UNVERIFIABLE, "the export carries no exercise file (%s)",
                     json_is_true(json_object_get(ex, "cut")) ? "cut: too large"
                     : *js(ex, "missing")                     ? js(ex, "missing")
                                                              : "\"export_solutions\": false");
                continue;
            }
            if (claim && st->exercise && !mgpu_file_relpath_inside(js(ex, "file"))) {
                note(cell, VERIFY_UNVERIFIABLE, "the export names its exercise file '%.100s', not a path inside the "
                     "lab's workspace", js(ex, "file"));
                continue;
            }
            const char *on = cell->step ? js(cell->step, "passed_on") : "";
            if (!*on && cell->step) on = js(cell->step, "ran_on");
            char preset[200], fault[200];
            if (!claim_machine(on, g, &env.backend, preset, fault, sizeof preset)) {
                if (claim)
                    note(cell, VERIFY_UNVERIFIABLE, "passed on a GPU (%s); this re-run is not on one: its numbers "
                         "are that machine's (run --verify there with --backend cuda)", on);
                continue;
            }
            mgpu_lab_verdict v;
            if (mgpu_lab_run_step(cat, li, col->step_index, &env, &v) != MGPU_OK) mgpu_error_clear();
            if (claim) {
                if (v.state == MGPU_STEP_PASSED) note(cell, VERIFY_OK, "passed again on %s", v.machine);
                else if (v.state == MGPU_STEP_CANCELLED) note(cell, VERIFY_UNVERIFIABLE, "the re-run was cancelled");
                else
                    note(cell, VERIFY_FAILED, "%s on %s: %.300s", mgpu_step_state_name(v.state),
                         v.machine[0] ? v.machine : "this machine", v.message);
            }
            mgpu_lab_verdict_clear(&v);
        }
    }
    mgpu_lab_catalog_close(cat);
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int class_model_verify(class_model *m, const mgpu_cli_globals *g)
{
    char labs[PATH_MAX], checks[PATH_MAX];
    if (mgpu_lab_default_dirs(labs, sizeof labs, checks, sizeof checks) != MGPU_OK) return mgpu_cli_error("report");
    for (int k = 0; k < m->nlearners; k++) {
        class_learner *l = &m->learners[k];
        int any = 0;
        for (int c = 0; c < m->ncols; c++) any |= claims_pass(m, &l->cells[c], c);
        if (!l->doc || !any) continue;
        fprintf(stderr, "mgpulab report: --verify: re-running %s's steps\n", l->label);
        verify_learner(m, l, g, labs, checks);
    }
    return 0;
}
