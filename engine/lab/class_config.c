/* class_config.c - the class configuration (classcfg.h): one JSON file,
 * checked member by member, read once per process. */
#include "mgpu/classcfg.h"
#include "mgpu/file.h"
#include "mgpu/lab.h"
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CLASS_CONFIG_MAX ((size_t)1 << 20) /* a roster of 512 is 40 KiB */

static mgpu_result bad(const char *path, const char *what)
{
    return mgpu_fail(MGPU_ERR_INVALID, "class configuration %s: %s", path, what);
}

/* Names and settings are printed in reports and the shell: ESC, BEL, CR
 * and the rest of C0 (and DEL) would act on the terminal (issue 34). */
static int has_control(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) return 1;
    return 0;
}

static mgpu_result get_str(const char *path, json_t *doc, const char *key, char *dst, size_t len)
{
    json_t *v = json_object_get(doc, key);
    if (!v) return MGPU_OK;
    char why[160];
    if (!json_is_string(v)) {
        snprintf(why, sizeof why, "\"%s\" must be a string", key);
        return bad(path, why);
    }
    if (snprintf(dst, len, "%s", json_string_value(v)) >= (int)len) {
        snprintf(why, sizeof why, "\"%s\" is too long", key);
        return bad(path, why);
    }
    if (has_control(dst)) {
        snprintf(why, sizeof why, "\"%s\" holds a control character (an escape sequence would reach the terminal)",
                 key);
        return bad(path, why);
    }
    return MGPU_OK;
}

/* "roster": a list of ids ("ada") or {"id": "ada", "name": "Ada Lovelace"};
 * an id twice is refused (one learner, one row). */
static mgpu_result get_roster(const char *path, json_t *roster, mgpu_class_config *c)
{
    if (!roster) return MGPU_OK;
    if (!json_is_array(roster) || json_array_size(roster) > MGPU_CLASS_MAX_ROSTER)
        return bad(path, "\"roster\" must be a list of learners (at most 512): ids, or {\"id\": ..., \"name\": ...}");
    size_t i;
    json_t *v;
    json_array_foreach(roster, i, v) {
        json_t *id = json_is_object(v) ? json_object_get(v, "id") : v, *name = json_object_get(v, "name");
        const char *k;
        json_t *x;
        int extra = 0;
        if (json_is_object(v)) json_object_foreach(v, k, x) extra |= strcmp(k, "id") && strcmp(k, "name");
        char why[200];
        if (!json_is_string(id) || !*json_string_value(id) || strlen(json_string_value(id)) >= sizeof c->roster[0].id ||
            (name && (!json_is_string(name) || strlen(json_string_value(name)) >= sizeof c->roster[0].name)) || extra ||
            has_control(json_string_value(id)) || (name && has_control(json_string_value(name)))) {
            snprintf(why, sizeof why, "\"roster\" entry %zu must be an id (a string of at most 63 bytes, no control characters) or "
                     "{\"id\": ..., \"name\": ...}", i + 1);
            return bad(path, why);
        }
        for (int j = 0; j < c->nroster; j++)
            if (strcmp(c->roster[j].id, json_string_value(id)) == 0) {
                snprintf(why, sizeof why, "\"roster\" lists the id \"%.60s\" twice", json_string_value(id));
                return bad(path, why);
            }
        mgpu_class_member *m = &c->roster[c->nroster++];
        snprintf(m->id, sizeof m->id, "%s", json_string_value(id));
        snprintf(m->name, sizeof m->name, "%s", name ? json_string_value(name) : "");
    }
    return MGPU_OK;
}

/* "share", "stuck_minutes", "pacing": the live class. */
static mgpu_result get_live(const char *path, json_t *doc, mgpu_class_config *c)
{
    char share[PATH_MAX] = "";
    MGPU_CHECK(get_str(path, doc, "share", share, sizeof share));
    if (share[0] == '/') {
        snprintf(c->share, sizeof c->share, "%s", share);
    } else if (share[0]) { /* beside the configuration file */
        const char *slash = strrchr(path, '/');
        int n = slash ? (int)(slash - path) : 1;
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%.*s", n, slash ? path : ".");
        char abs[PATH_MAX] = "";
        if (dir[0] != '/' && getcwd(abs, sizeof abs)) strncat(abs, "/", sizeof abs - strlen(abs) - 1);
        if (snprintf(c->share, sizeof c->share, "%s%s/%s", abs, dir, share) >= (int)sizeof c->share)
            return bad(path, "\"share\" is too long");
    }
    json_t *v = json_object_get(doc, "stuck_minutes");
    c->stuck_minutes = 10;
    if (v) {
        if (!json_is_number(v) || json_number_value(v) <= 0 || json_number_value(v) > 1440)
            return bad(path, "\"stuck_minutes\" must be a number of minutes, more than 0 and at most 1440");
        c->stuck_minutes = json_number_value(v);
    }
    json_t *pacing = json_object_get(doc, "pacing");
    if (!pacing) return MGPU_OK;
    if (!json_is_object(pacing)) return bad(path, "\"pacing\" must be an object");
    const char *k;
    json_object_foreach(pacing, k, v) {
        int *dst = strcmp(k, "steps_in_order") == 0 ? &c->steps_in_order
                 : strcmp(k, "labs_opened_by_instructor") == 0 ? &c->labs_by_instructor : NULL;
        char why[200];
        if (!dst || !json_is_boolean(v)) {
            snprintf(why, sizeof why, "pacing \"%.40s\" is unknown or not true/false (known: steps_in_order, "
                     "labs_opened_by_instructor)", k);
            return bad(path, why);
        }
        *dst = json_is_true(v);
    }
    if (c->labs_by_instructor && !c->share[0])
        return bad(path, "pacing \"labs_opened_by_instructor\" needs a \"share\": the instructor opens labs there");
    return MGPU_OK;
}

/* The file's JSON document; mgpu_file_read: MGPULAB_CLASS naming a FIFO
 * waited for ever (issue 34). */
static mgpu_result read_doc(const char *path, json_t **out)
{
    char *text = NULL;
    size_t len = 0;
    if (mgpu_file_read(path, CLASS_CONFIG_MAX, &text, &len) != MGPU_OK) {
        char why[300];
        snprintf(why, sizeof why, "%s", mgpu_error_message());
        return bad(path, why);
    }
    json_error_t err;
    *out = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    free(text);
    if (!*out) {
        char why[300];
        snprintf(why, sizeof why, "line %d column %d: %s", err.line, err.column, err.text);
        return bad(path, why);
    }
    return MGPU_OK;
}

/* One object, of known members only. */
static mgpu_result check_members(const char *path, json_t *doc)
{
    static const char *const known[] = {"name", "backend", "machine", "fault", "labs", "options", "export_solutions",
                                        "roster", "share", "stuck_minutes", "pacing", "lang", "draw_seed", NULL};
    const char *key;
    json_t *v;
    if (!json_is_object(doc)) return bad(path, "the file must hold one JSON object");
    json_object_foreach(doc, key, v) {
        int k = 0;
        while (known[k] && strcmp(known[k], key)) k++;
        if (!known[k]) {
            char why[240];
            snprintf(why, sizeof why, "unknown member \"%.60s\" (known: name, backend, machine, fault, labs, "
                     "options, export_solutions, roster, share, stuck_minutes, pacing, lang, draw_seed)", key);
            return bad(path, why);
        }
    }
    return MGPU_OK;
}

/* The strings: the class's name, where it runs (backend, machine, fault),
 * its language and the draw seed. */
static mgpu_result get_settings(const char *path, json_t *doc, mgpu_class_config *c)
{
    MGPU_CHECK(get_str(path, doc, "name", c->name, sizeof c->name));
    MGPU_CHECK(get_str(path, doc, "backend", c->backend, sizeof c->backend));
    MGPU_CHECK(get_str(path, doc, "machine", c->machine, sizeof c->machine));
    MGPU_CHECK(get_str(path, doc, "fault", c->fault, sizeof c->fault));
    MGPU_CHECK(get_str(path, doc, "lang", c->lang, sizeof c->lang));
    MGPU_CHECK(get_str(path, doc, "draw_seed", c->draw_seed, sizeof c->draw_seed));
    /* the instructor pins the language of the class; --lang still wins */
    if (c->lang[0] && strcmp(c->lang, "en") && strcmp(c->lang, "ko"))
        return bad(path, "\"lang\" must be \"en\" or \"ko\"");
    if (c->backend[0] && strcmp(c->backend, "auto") && strcmp(c->backend, "cuda") && strcmp(c->backend, "sim"))
        return bad(path, "\"backend\" must be auto, cuda or sim");
    return MGPU_OK;
}

/* "labs": the labs the class opens, by name. */
static mgpu_result get_labs(const char *path, json_t *labs, mgpu_class_config *c)
{
    if (!labs) return MGPU_OK;
    if (!json_is_array(labs) || json_array_size(labs) > MGPU_CLASS_MAX_LABS)
        return bad(path, "\"labs\" must be a list of lab names (at most 64)");
    size_t i;
    json_t *v;
    json_array_foreach(labs, i, v) {
        if (!json_is_string(v) || !*json_string_value(v) || strlen(json_string_value(v)) >= sizeof c->labs[0])
            return bad(path, "every entry of \"labs\" must be a lab name such as \"02-allreduce\"");
        snprintf(c->labs[c->nlabs++], sizeof c->labs[0], "%s", json_string_value(v));
    }
    return MGPU_OK;
}

/* "options": the runs' launcher, ranks and timeout. */
static mgpu_result get_options(const char *path, json_t *opt, mgpu_class_config *c)
{
    if (!opt) return MGPU_OK;
    if (!json_is_object(opt)) return bad(path, "\"options\" must be an object");
    const char *key;
    json_t *v;
    json_object_foreach(opt, key, v) {
        if (strcmp(key, "launcher") == 0 && json_is_string(v) && strlen(json_string_value(v)) < sizeof c->launcher)
            snprintf(c->launcher, sizeof c->launcher, "%s", json_string_value(v));
        else if (strcmp(key, "ranks") == 0 && json_is_integer(v) && json_integer_value(v) >= 1 &&
                 json_integer_value(v) <= 4096)
            c->ranks = (int)json_integer_value(v);
        else if (strcmp(key, "timeout") == 0 && json_is_number(v) && json_number_value(v) > 0 &&
                 json_number_value(v) <= 86400)
            c->timeout_s = json_number_value(v);
        else {
            char why[200];
            snprintf(why, sizeof why, "option \"%.40s\" is unknown or out of range (launcher: a name, ranks: "
                     "1-4096, timeout: seconds)", key);
            return bad(path, why);
        }
    }
    return MGPU_OK;
}

mgpu_result mgpu_class_config_load(const char *path, mgpu_class_config *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s", path);
    json_t *doc = NULL;
    mgpu_result r = read_doc(path, &doc);
    if (r != MGPU_OK) return r;
    if ((r = check_members(path, doc)) != MGPU_OK || (r = get_settings(path, doc, c)) != MGPU_OK ||
        (r = get_labs(path, json_object_get(doc, "labs"), c)) != MGPU_OK ||
        (r = get_options(path, json_object_get(doc, "options"), c)) != MGPU_OK)
        goto out;
    json_t *v = json_object_get(doc, "export_solutions");
    if (v && !json_is_boolean(v)) {
        r = bad(path, "\"export_solutions\" must be true or false");
        goto out;
    }
    c->export_solutions = v ? json_is_true(v) : 1; /* the learner's work goes with an export unless refused */
    if ((r = get_roster(path, json_object_get(doc, "roster"), c)) != MGPU_OK) goto out;
    if ((r = get_live(path, doc, c)) != MGPU_OK) goto out;
out:
    json_decref(doc);
    MGPU_CHECK(r);
    return MGPU_OK;
}

mgpu_result mgpu_class_config_active(const mgpu_class_config **out)
{
    static mgpu_class_config cfg;
    static int state; /* 0 unread, 1 none, 2 loaded, 3 failed */
    static char failure[1024];
    *out = NULL;
    if (state == 0) {
        const char *env = getenv("MGPULAB_CLASS"), *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
        char path[PATH_MAX] = "";
        int named = env && *env;
        if (named) snprintf(path, sizeof path, "%s", env);
        else if (xdg && xdg[0] == '/') snprintf(path, sizeof path, "%s/mgpulab/class.json", xdg);
        else if (home && home[0] == '/') snprintf(path, sizeof path, "%s/.config/mgpulab/class.json", home);
        struct stat st;
        if (!path[0] || (!named && stat(path, &st) != 0 && errno == ENOENT)) {
            state = 1;
        } else if (mgpu_class_config_load(path, &cfg) == MGPU_OK) {
            state = 2;
        } else {
            snprintf(failure, sizeof failure, "%s%s", mgpu_error_message(),
                     named ? " (named by MGPULAB_CLASS)" : "");
            state = 3;
        }
    }
    if (state == 3) return mgpu_fail(MGPU_ERR_INVALID, "%s", failure);
    if (state == 2) *out = &cfg;
    return MGPU_OK;
}

mgpu_result mgpu_lab_catalog_open_class(const char *labs_dir, const char *checks_dir, const char *state_dir,
                                        mgpu_lab_catalog **out)
{
    const mgpu_class_config *c;
    MGPU_CHECK(mgpu_class_config_active(&c));
    const char *ids[MGPU_CLASS_MAX_LABS];
    int n = c ? c->nlabs : 0;
    for (int i = 0; i < n; i++) ids[i] = c->labs[i];
    MGPU_CHECK(mgpu_lab_catalog_open_selected(labs_dir, checks_dir, state_dir, n ? ids : NULL, n, out));
    return MGPU_OK;
}
