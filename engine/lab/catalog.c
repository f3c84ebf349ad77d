/* catalog.c - every lab found under labs/, with the learner's progress:
 * open, look up, answers and hints. */
#include "lab/lab_internal.h"
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

static void add_warning(mgpu_lab_catalog *cat, const char *w)
{
    size_t n = strlen(cat->warning);
    snprintf(cat->warning + n, sizeof cat->warning - n, "%s%s", n ? "\n" : "", w);
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sorted file names in dir passing keep(); NULL-terminated, caller frees. */
static char **list_dir(const char *dir, int (*keep)(const char *dir, const char *name), int *n)
{
    DIR *d = opendir(dir);
    *n = 0;
    if (!d) return NULL;
    char **v = NULL;
    int cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !keep(dir, e->d_name)) continue;
        if (*n + 1 >= cap) {
            cap = cap ? 2 * cap : 16;
            char **nv = realloc(v, (size_t)cap * sizeof *v);
            if (!nv) break;
            v = nv;
        }
        v[(*n)++] = strdup(e->d_name);
        v[*n] = NULL;
    }
    closedir(d);
    if (v) qsort(v, (size_t)*n, sizeof *v, cmp_names);
    return v;
}

static void free_list(char **v, int n)
{
    for (int i = 0; i < n; i++) free(v[i]);
    free(v);
}

static int is_lua(const char *dir, const char *name)
{
    (void)dir;
    size_t n = strlen(name);
    return n > 4 && strcmp(name + n - 4, ".lua") == 0;
}

/* NN-name with a lab.lua in it */
static int is_lab_dir(const char *dir, const char *name)
{
    if (!isdigit((unsigned char)name[0])) return 0;
    const char *p = name;
    while (isdigit((unsigned char)*p)) p++;
    if (*p != '-' || !p[1]) return 0;
    char path[PATH_MAX * 2];
    snprintf(path, sizeof path, "%s/%s/lab.lua", dir, name);
    /* exists is enough: reading it later refuses a FIFO or device with a
     * load error (fopen here would block on a FIFO) */
    struct stat st;
    return stat(path, &st) == 0;
}

/* Read every checks/NAME.lua once; each lab's sandbox runs them. A file that
 * does not compile or return a table is a warning: labs that use it will
 * fail at their check with a clear Lua error. */
static mgpu_result read_checks(mgpu_lab_catalog *cat)
{
    int n = 0;
    char **names = list_dir(cat->checks_dir, is_lua, &n);
    mgpu_lua *probe = NULL;
    mgpu_lua_config lc = {.mem_limit = LAB_MEM_LIMIT, .time_limit_s = LAB_LOAD_BUDGET_S, .cpu_time = 1};
    if (n > 0) MGPU_CHECK(mgpu_lua_open(&lc, &probe));
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX * 2], chunk[PATH_MAX], w[1024];
        snprintf(path, sizeof path, "%s/%s", cat->checks_dir, names[i]);
        char *text = NULL;
        size_t len = 0;
        if (lab_read_file(path, &text, &len) != MGPU_OK) {
            snprintf(w, sizeof w, "checks/%s: %s", names[i], mgpu_error_message());
            add_warning(cat, w);
            continue;
        }
        snprintf(chunk, sizeof chunk, "@checks/%s", names[i]);
        int top = lua_gettop(mgpu_lua_state(probe));
        if (mgpu_lua_run(probe, text, len, chunk, 1) != MGPU_OK || !lua_istable(mgpu_lua_state(probe), -1)) {
            snprintf(w, sizeof w, "checks/%s did not load: %s", names[i],
                     lua_gettop(mgpu_lua_state(probe)) > top ? "it must return a table of check functions"
                                                              : mgpu_lua_error_message(probe));
            add_warning(cat, w);
        }
        lua_settop(mgpu_lua_state(probe), top);
        size_t nl = strlen(names[i]) + 1, need = cat->checks_len + nl + len + 1;
        char *grown = realloc(cat->checks_text, need);
        if (!grown) {
            free(text);
            break;
        }
        cat->checks_text = grown;
        memcpy(grown + cat->checks_len, names[i], nl);
        memcpy(grown + cat->checks_len + nl, text, len + 1);
        cat->checks_len = need;
        free(text);
    }
    if (probe) mgpu_lua_close(probe);
    free_list(names, n);
    return MGPU_OK;
}

/* Does directory name `dir` ("02-allreduce") answer to `want` ("02-allreduce",
 * "02", "2" or "allreduce")? */
static int names_lab(const char *dir, const char *want)
{
    if (strcmp(dir, want) == 0) return 1;
    const char *dash = strchr(dir, '-');
    if (dash && strcmp(dash + 1, want) == 0) return 1;
    char *end;
    long num = strtol(want, &end, 10);
    return *end == '\0' && end != want && num == atol(dir);
}

/* The names of `only` in its order, from the directory's `names`. */
static mgpu_result select_names(const char *labs_dir, char **names, int n, const char *const *only, int nonly,
                                char ***out, int *nout)
{
    char **sel = calloc((size_t)nonly + 1, sizeof *sel);
    if (!sel) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory");
    for (int k = 0; k < nonly; k++) {
        int hit = -1;
        for (int i = 0; i < n && hit < 0; i++)
            if (names_lab(names[i], only[k])) hit = i;
        if (hit < 0 || !(sel[k] = strdup(names[hit]))) {
            free_list(sel, k);
            if (hit >= 0) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory");
            return mgpu_fail(MGPU_ERR_INVALID, "the class configuration names lab '%s', which is not among the labs in "
                             "%s", only[k], labs_dir);
        }
    }
    *out = sel;
    *nout = nonly;
    return MGPU_OK;
}

mgpu_result mgpu_lab_catalog_open(const char *labs_dir, const char *checks_dir, const char *state_dir,
                                  mgpu_lab_catalog **out)
{
    return mgpu_lab_catalog_open_selected(labs_dir, checks_dir, state_dir, NULL, 0, out);
}

mgpu_result mgpu_lab_catalog_open_selected(const char *labs_dir, const char *checks_dir, const char *state_dir,
                                           const char *const *only, int nonly, mgpu_lab_catalog **out)
{
    *out = NULL;
    if (!labs_dir || !state_dir) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_lab_catalog_open: no labs or state directory");
    mgpu_lab_catalog *cat = calloc(1, sizeof *cat);
    if (!cat) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory");
    snprintf(cat->labs_dir, sizeof cat->labs_dir, "%s", labs_dir);
    snprintf(cat->checks_dir, sizeof cat->checks_dir, "%s", checks_dir ? checks_dir : "");
    snprintf(cat->state_dir, sizeof cat->state_dir, "%s", state_dir);
    mgpu_result r;
    MGPU_CHECKGOTO(lab_progress_load(&cat->progress, state_dir), r, fail);
    if (cat->progress.warning[0]) add_warning(cat, cat->progress.warning);
    if (checks_dir && *checks_dir) MGPU_CHECKGOTO(read_checks(cat), r, fail);
    if (checks_dir && *checks_dir) {
        char w[1200];
        MGPU_CHECKGOTO(lab_lang_read_checks_catalog(cat, w, sizeof w), r, fail);
        if (w[0]) add_warning(cat, w);
    }
    int n = 0;
    char **names = list_dir(labs_dir, is_lab_dir, &n);
    if (only && nonly > 0) {
        char **sel = NULL;
        int ns = 0;
        r = select_names(labs_dir, names, n, only, nonly, &sel, &ns);
        free_list(names, n);
        if (r != MGPU_OK) goto fail;
        names = sel;
        n = ns;
    }
    cat->labs = calloc((size_t)n + 1, sizeof *cat->labs);
    if (!cat->labs) {
        free_list(names, n);
        r = mgpu_fail(MGPU_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (int i = 0; i < n; i++) {
        lab_entry *e = &cat->labs[cat->nlabs++];
        char path[PATH_MAX * 2];
        e->cat = cat;
        e->info.id = lab_keep(e, names[i]);
        e->info.number = atoi(names[i]);
        snprintf(path, sizeof path, "%s/%s", labs_dir, names[i]);
        e->info.dir = lab_keep(e, path);
        snprintf(path, sizeof path, "%s/work/%s", state_dir, names[i]);
        e->info.workspace = lab_keep(e, path);
        e->info.title = e->info.id;
        MGPU_CHECKGOTO(lab_load(cat, e), r, fail_names);
        lab_lang_point(e, mgpu_lang_get());
        for (int s = 0; s < e->info.nsteps; s++)
            if (lab_workspace_prepare(e, s) != MGPU_OK) add_warning(cat, mgpu_error_message());
        lab_sync_progress(cat, e);
    }
    free_list(names, n);
    *out = cat;
    return MGPU_OK;
fail_names:
    free_list(names, n);
fail:
    mgpu_lab_catalog_close(cat);
    return r;
}

void mgpu_lab_catalog_close(mgpu_lab_catalog *cat)
{
    if (!cat) return;
    lab_runner_close(cat);
    for (int i = 0; i < cat->nlabs; i++) lab_entry_free(&cat->labs[i]);
    free(cat->labs);
    free(cat->checks_text);
    free(cat->checks_ko_text);
    lab_progress_free(&cat->progress);
    free(cat);
}

int mgpu_lab_count(const mgpu_lab_catalog *cat) { return cat ? cat->nlabs : 0; }

const mgpu_lab_info *mgpu_lab_get(const mgpu_lab_catalog *cat, int index)
{
    if (!cat || index < 0 || index >= cat->nlabs) return NULL;
    cat->labs[index].info.steps = cat->labs[index].steps;
    lab_lang_follow(&cat->labs[index]); /* the language may have changed since */
    return &cat->labs[index].info;
}

int mgpu_lab_find(const mgpu_lab_catalog *cat, const char *name)
{
    if (!cat || !name || !*name) return -1;
    char *end;
    long num = strtol(name, &end, 10);
    for (int i = 0; i < cat->nlabs; i++) {
        const char *id = cat->labs[i].info.id, *dash = strchr(id, '-');
        if (strcmp(id, name) == 0) return i;
        if (*end == '\0' && end != name && cat->labs[i].info.number == num) return i;
        if (dash && strcmp(dash + 1, name) == 0) return i;
    }
    return -1;
}

const char *mgpu_lab_catalog_warning(const mgpu_lab_catalog *cat)
{
    return cat && cat->warning[0] ? cat->warning : NULL;
}

const char *mgpu_lab_progress_path(const mgpu_lab_catalog *cat) { return cat ? cat->progress.path : NULL; }

mgpu_result mgpu_lab_open_step(mgpu_lab_catalog *cat, int lab, int step)
{
    if (!cat || lab < 0 || lab >= cat->nlabs || step < 0 || step >= cat->labs[lab].info.nsteps)
        return mgpu_fail(MGPU_ERR_INVALID, "no such lab or step");
    lab_entry *e = &cat->labs[lab];
    json_t *p = lab_progress_step(&cat->progress, e->info.id, e->steps[step].id, 0);
    if (json_is_number(json_object_get(p, "opened"))) return MGPU_OK;
    p = lab_progress_step(&cat->progress, e->info.id, e->steps[step].id, 1);
    json_object_set_new(p, "opened", json_real((double)time(NULL)));
    mgpu_result r = lab_progress_save(&cat->progress);
    lab_sync_all_progress(cat);
    return r;
}

int mgpu_lab_find_step(const mgpu_lab_catalog *cat, int lab, const char *name)
{
    if (!cat || lab < 0 || lab >= cat->nlabs || !name || !*name) return -1;
    const lab_entry *e = &cat->labs[lab];
    char *end;
    long n = strtol(name, &end, 10);
    if (*end == '\0' && end != name) return n >= 1 && n <= e->info.nsteps ? (int)n - 1 : -1;
    for (int i = 0; i < e->info.nsteps; i++)
        if (strcmp(e->steps[i].id, name) == 0) return i;
    return -1;
}

int mgpu_lab_next_step(const mgpu_lab_catalog *cat, int lab)
{
    if (!cat || lab < 0 || lab >= cat->nlabs) return 0;
    const lab_entry *e = &cat->labs[lab];
    for (int i = 0; i < e->info.nsteps; i++)
        if (e->steps[i].state != MGPU_STEP_PASSED && e->steps[i].state != MGPU_STEP_READ) return i;
    return e->info.nsteps;
}

static mgpu_result check_step(const mgpu_lab_catalog *cat, int lab, int step)
{
    if (!cat || lab < 0 || lab >= cat->nlabs) return mgpu_fail(MGPU_ERR_INVALID, "no lab number %d", lab);
    const lab_entry *e = &cat->labs[lab];
    if (e->info.load_error) return mgpu_fail(MGPU_ERR_INVALID, "lab %s did not load: %s", e->info.id, e->info.load_error);
    if (step < 0 || step >= e->info.nsteps)
        return mgpu_fail(MGPU_ERR_INVALID, "lab %s has steps 1..%d, not %d", e->info.id, e->info.nsteps, step + 1);
    return MGPU_OK;
}

mgpu_result mgpu_lab_answer(mgpu_lab_catalog *cat, int lab, int step, const char *question_id, const char *answer)
{
    MGPU_CHECK(check_step(cat, lab, step));
    lab_entry *e = &cat->labs[lab];
    const mgpu_lab_step_info *s = &e->steps[step];
    int q = 0;
    while (q < s->nquestions && strcmp(s->questions[q].id, question_id ? question_id : "") != 0) q++;
    if (q == s->nquestions) {
        char ids[512] = "";
        size_t used = 0;
        for (int k = 0; k < s->nquestions && used < sizeof ids; k++)
            used += (size_t)snprintf(ids + used, sizeof ids - used, "%s%s", k ? ", " : "", s->questions[k].id);
        return mgpu_fail(MGPU_ERR_INVALID, "step %d (%s) of lab %s has no question '%s'%s%s", step + 1, s->id,
                         e->info.id, question_id ? question_id : "", s->nquestions ? "; its questions: " : " (it asks none)",
                         ids);
    }
    if (!answer) return mgpu_fail(MGPU_ERR_INVALID, "no answer given for question '%s'", question_id);
    json_t *a = json_string(answer);
    if (!a) return mgpu_fail(MGPU_ERR_INVALID, "the answer to '%s' is not UTF-8 text", question_id);
    json_object_set_new(lab_progress_step_obj(&cat->progress, e->info.id, s->id, "answers"), question_id, a);
    mgpu_result r = lab_progress_save(&cat->progress);
    lab_sync_all_progress(cat); /* the save may have merged other labs' news */
    return r;
}

const char *mgpu_lab_hint(mgpu_lab_catalog *cat, int lab, int step)
{
    if (check_step(cat, lab, step) != MGPU_OK) return NULL;
    lab_entry *e = &cat->labs[lab];
    lab_lang_follow(e);
    const mgpu_lab_step_info *s = &e->steps[step];
    if (s->nhints == 0) return NULL;
    const char *h = s->hints_local[s->hints_taken % s->nhints];
    json_t *p = lab_progress_step(&cat->progress, e->info.id, s->id, 1);
    json_object_set_new(p, "hints_taken", json_integer(s->hints_taken + 1));
    /* a hint that could not be counted is still worth showing; the error
     * stays for the caller to tell the learner */
    mgpu_error_clear();
    if (lab_progress_save(&cat->progress) == MGPU_OK) mgpu_error_clear();
    lab_sync_all_progress(cat);
    return h;
}

mgpu_result mgpu_lab_solution(mgpu_lab_catalog *cat, int lab, int step, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    MGPU_CHECK(check_step(cat, lab, step));
    lab_entry *e = &cat->labs[lab];
    const mgpu_lab_step_info *s = &e->steps[step];
    if (!s->exercise_src)
        return mgpu_fail(MGPU_ERR_INVALID, "step %d (%s) of lab %s has no exercise, so no solution to show", step + 1,
                         s->id, e->info.id);
    if (!s->solution) {
        /* a learners' install leaves every lab's solutions/ out */
        char dir[PATH_MAX + 16];
        struct stat st;
        snprintf(dir, sizeof dir, "%s/solutions", e->info.dir);
        if (stat(dir, &st) != 0)
            return mgpu_fail(MGPU_ERR_INVALID, "the reference solutions are not installed here (the learners' package "
                             "leaves them out; the instructor has them in mgpulab-instructor): ask your instructor");
        return mgpu_fail(MGPU_ERR_INVALID, "step %d (%s) of lab %s has no reference solution in the lab", step + 1,
                         s->id, e->info.id);
    }
    MGPU_CHECK(lab_read_file(s->solution, text, len));
    /* recorded as asked for: a passed step whose solution was shown is not
     * the same achievement, and the report says so */
    json_t *p = lab_progress_step(&cat->progress, e->info.id, s->id, 1);
    json_object_set_new(p, "solution_shown", json_true());
    mgpu_result r = lab_progress_save(&cat->progress);
    lab_sync_all_progress(cat);
    return r;
}
