/* export.c - the learner's progress as the document an instructor collects
 * (`mgpulab report --export`, and the class's shared folder after every
 * step): per lab and step the state, attempts, hints, when it was opened,
 * passed and last run, the machine it ran on, the answers and how each was
 * judged, and the learner's exercise file (for `report --class --verify`).
 * docs/classroom.md describes the format. */
#include "lab/lab_internal.h"
#include "mgpu/classcfg.h"
#include "mgpu/file.h"
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Exercise files larger than this are cut in the export (a learner's
 * exercise is a page of Lua; the cut is said in the document). */
#define EXPORT_MAX_EXERCISE ((size_t)256 << 10)

static json_t *copy_or(json_t *v, json_t *dflt)
{
    if (v) {
        json_decref(dflt);
        return json_deep_copy(v);
    }
    return dflt;
}

/* The learner's exercise file: {file, text} (text cut when huge), or
 * {file, missing: why} when it cannot be read. */
static json_t *exercise_json(const lab_entry *e, const mgpu_lab_step_info *st)
{
    /* its path in the lab's workspace, as lab.lua names it ("hello.lua") */
    size_t w = strlen(e->info.workspace);
    const char *base = strncmp(st->exercise, e->info.workspace, w) == 0 && st->exercise[w] == '/' ? st->exercise + w + 1
                                                                                                  : st->exercise;
    char *text = NULL;
    size_t n = 0;
    if (mgpu_file_read(st->exercise, LAB_MAX_FILE, &text, &n) != MGPU_OK) {
        json_t *o = json_pack("{s:s, s:s}", "file", base, "missing", mgpu_error_message());
        mgpu_error_clear();
        return o;
    }
    int cut = n > EXPORT_MAX_EXERCISE;
    json_t *s = json_stringn(text, cut ? EXPORT_MAX_EXERCISE : n); /* NULL when not UTF-8 */
    free(text);
    if (!s) return json_pack("{s:s, s:s}", "file", base, "missing", "the file is not UTF-8 text");
    json_t *o = json_pack("{s:s, s:o}", "file", base, "text", s);
    if (cut) json_object_set_new(o, "cut", json_true());
    return o;
}

static const char *json_str(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

json_t *mgpu_lab_export(mgpu_lab_catalog *cat, const char *name, const char *id, int with_work)
{
    json_t *labs = json_array(), *machines = json_array();
    double latest = 0;
    const char *latest_machine = NULL;
    for (int l = 0; l < cat->nlabs; l++) {
        const lab_entry *e = &cat->labs[l];
        json_t *steps = json_array();
        for (int s = 0; s < e->info.nsteps; s++) {
            const mgpu_lab_step_info *st = &e->steps[s];
            json_t *p = lab_progress_step(&cat->progress, e->info.id, st->id, 0);
            const char *state = json_str(p, "state");
            json_t *o = json_pack("{s:s, s:s, s:b, s:s, s:i, s:i, s:b, s:f, s:f}", "id", st->id, "title", st->title,
                                  "reading", !st->has_check, "state", state ? state : "new", "attempts",
                                  (int)json_integer_value(json_object_get(p, "attempts")), "hints_taken",
                                  (int)json_integer_value(json_object_get(p, "hints_taken")), "solution_shown",
                                  json_is_true(json_object_get(p, "solution_shown")), "seconds",
                                  json_number_value(json_object_get(p, "seconds")), "last_run",
                                  json_number_value(json_object_get(p, "last_run")));
            if (!o) continue;
            static const char *const times[] = {"opened", "passed_at"};
            for (int k = 0; k < 2; k++)
                if (json_is_number(json_object_get(p, times[k])))
                    json_object_set_new(o, times[k], json_real(json_number_value(json_object_get(p, times[k]))));
            static const char *const strs[] = {"last_attempt", "ran_on", "passed_on", "message"};
            for (int k = 0; k < 4; k++)
                if (json_str(p, strs[k])) json_object_set_new(o, strs[k], json_string(json_str(p, strs[k])));
            if (json_is_true(json_object_get(p, "untrusted"))) json_object_set_new(o, "edited", json_true());
            json_object_set_new(o, "measurements", copy_or(json_object_get(p, "measurements"), json_object()));
            json_object_set_new(o, "answers", copy_or(json_object_get(p, "answers"), json_object()));
            json_object_set_new(o, "answer_log", copy_or(json_object_get(p, "answer_log"), json_array()));
            if (with_work && st->exercise) json_object_set_new(o, "exercise", exercise_json(e, st));
            json_array_append_new(steps, o);
            const char *ran = json_str(p, "ran_on");
            double t = json_number_value(json_object_get(p, "last_run"));
            if (ran) {
                int seen = 0;
                size_t i;
                json_t *m;
                json_array_foreach(machines, i, m) seen |= strcmp(json_string_value(m), ran) == 0;
                if (!seen) json_array_append_new(machines, json_string(ran));
                if (t >= latest) latest = t, latest_machine = ran;
            }
        }
        json_array_append_new(labs, json_pack("{s:s, s:s, s:o}", "id", e->info.id, "title", e->info.title, "steps", steps));
    }
    /* the backend and machine of the latest run ("sim pcie-4gpu" -> sim,
     * pcie-4gpu; "cuda host NAME" -> cuda, NAME); each step says its own */
    char backend[16] = "", machine[160] = "";
    if (latest_machine) {
        if (strncmp(latest_machine, "sim ", 4) == 0) {
            snprintf(backend, sizeof backend, "sim");
            snprintf(machine, sizeof machine, "%.*s", (int)strcspn(latest_machine + 4, " "), latest_machine + 4);
        } else if (strncmp(latest_machine, "cuda host ", 10) == 0) {
            snprintf(backend, sizeof backend, "cuda");
            snprintf(machine, sizeof machine, "%s", latest_machine + 10);
        }
    }
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    const mgpu_class_config *cc = NULL;
    if (mgpu_class_config_active(&cc) != MGPU_OK) mgpu_error_clear();
    json_t *doc = json_pack("{s:s, s:i, s:I, s:{s:s, s:s}, s:s, s:s, s:s, s:o, s:s, s:b, s:o}", "format",
                            MGPU_LAB_EXPORT_FORMAT, "version", MGPU_LAB_EXPORT_VERSION, "created",
                            (json_int_t)time(NULL), "learner", "name", name, "id", id, "host", host, "backend", backend,
                            "machine", machine, "machines", machines, "class", cc ? cc->name : "", "work", with_work,
                            "labs", labs);
    if (doc) json_object_set_new(doc, "progress_digest", json_string(lab_progress_digest_state(&cat->progress)));
    return doc;
}

void mgpu_lab_learner(mgpu_lab_catalog *cat, const char **name, const char **id, char *nbuf, size_t nlen, char *ibuf,
                      size_t ilen)
{
    /* the identity the learner gave last (report --export --name/--id) */
    json_t *me = json_object_get(cat ? cat->progress.doc : NULL, "learner");
    if (!*id && json_str(me, "id") && *json_str(me, "id")) {
        snprintf(ibuf, ilen, "%s", json_str(me, "id"));
        *id = ibuf;
        if (!*name && json_str(me, "name") && *json_str(me, "name")) {
            snprintf(nbuf, nlen, "%s", json_str(me, "name"));
            *name = nbuf;
        }
    }
    struct passwd *pw = getpwuid(getuid());
    if (!*id) {
        const char *u = getenv("USER");
        snprintf(ibuf, ilen, "%s", u && *u ? u : pw ? pw->pw_name : "unknown");
        *id = ibuf;
    }
    if (!*name) {
        /* the account's full name, when the id is that account's */
        const char *g = pw && pw->pw_gecos && strcmp(pw->pw_name, *id) == 0 ? pw->pw_gecos : "";
        size_t n = strcspn(g, ",");
        if (n) snprintf(nbuf, nlen, "%.*s", (int)n, g);
        else snprintf(nbuf, nlen, "%s", *id);
        *name = nbuf;
    }
}

mgpu_result mgpu_lab_remember_learner(mgpu_lab_catalog *cat, const char *name, const char *id)
{
    json_t *me = json_object_get(cat->progress.doc, "learner");
    if (json_is_object(me) && strcmp(json_str(me, "name") ?: "", name) == 0 && strcmp(json_str(me, "id") ?: "", id) == 0)
        return MGPU_OK;
    json_object_set_new(cat->progress.doc, "learner", json_pack("{s:s, s:s}", "name", name, "id", id));
    mgpu_result r = lab_progress_save(&cat->progress);
    lab_sync_all_progress(cat);
    return r;
}

mgpu_result mgpu_lab_export_write(json_t *doc, const char *path)
{
    char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (!text) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory writing %s", path);
    size_t n = strlen(text);
    text[n] = '\0';
    mgpu_result r = mgpu_file_write_atomic(path, text, n);
    free(text);
    return r;
}
/* "ada@ws01.json": the id and host with anything but letters, digits, '.',
 * '-' and '_' made '_' (one file per learner and machine: two learners
 * with the login "student" on two laptops do not overwrite each other). */
static void share_file_name(const char *id, const char *host, char *out, size_t len)
{
    char raw[320];
    snprintf(raw, sizeof raw, "%s@%s", id, host);
    size_t k = 0;
    for (const char *c = raw; *c && k + 6 < len; c++) {
        int ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' ||
                 *c == '-' || *c == '_' || *c == '@';
        out[k] = ok && !(k == 0 && *c == '.') ? *c : '_'; /* no hidden file */
        k++;
    }
    snprintf(out + k, len - k, ".json");
}

mgpu_result mgpu_lab_export_to_share(mgpu_lab_catalog *cat, char *path, size_t len)
{
    if (path && len) path[0] = '\0';
    const mgpu_class_config *cc = NULL;
    if (mgpu_class_config_active(&cc) != MGPU_OK || !cc || !cc->share[0]) {
        mgpu_error_clear();
        return MGPU_OK;
    }
    char nbuf[256], ibuf[128], host[256] = "", file[400], full[PATH_MAX + 512];
    const char *name = NULL, *id = NULL;
    mgpu_lab_learner(cat, &name, &id, nbuf, sizeof nbuf, ibuf, sizeof ibuf);
    gethostname(host, sizeof host - 1);
    share_file_name(id, host, file, sizeof file);
    snprintf(full, sizeof full, "%s/%s", cc->share, file);
    json_t *doc = mgpu_lab_export(cat, name, id, cc->export_solutions);
    if (!doc) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory building the export");
    mgpu_result r = mgpu_lab_export_write(doc, full);
    json_decref(doc);
    if (r != MGPU_OK)
        return mgpu_fail(mgpu_error_code(), "the class's shared folder: %s", mgpu_error_message());
    if (path && len) snprintf(path, len, "%s", full);
    return MGPU_OK;
}
