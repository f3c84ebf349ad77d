/* results_store.c - one JSON file per step with its last run's results. */
#include "results_store.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int plain(const char *id) { return id && *id && !strchr(id, '/') && strcmp(id, ".") && strcmp(id, ".."); }

static mgpu_result mkdir_p(const char *dir)
{
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) return mgpu_fail(MGPU_ERR_IO, "cannot create %s: %s", dir, strerror(errno));
    return MGPU_OK;
}

mgpu_result results_store_save(const char *state_dir, const char *lab, const char *step, json_t *results)
{
    if (!plain(lab) || !plain(step) || !json_is_array(results))
        return mgpu_fail(MGPU_ERR_INVALID, "results store: bad step '%s/%s'", lab ? lab : "?", step ? step : "?");
    char dir[4352], path[4608], tmp[4620];
    snprintf(dir, sizeof dir, "%s/results", state_dir);
    MGPU_CHECK(mkdir_p(dir));
    snprintf(dir, sizeof dir, "%s/results/%s", state_dir, lab);
    MGPU_CHECK(mkdir_p(dir));
    snprintf(path, sizeof path, "%s/%s.json", dir, step);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    char when[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(when, sizeof when, "%Y-%m-%d %H:%M", localtime_r(&now, &tm));
    json_t *doc = json_pack("{s:s, s:O}", "saved", when, "results", results);
    if (!doc) return mgpu_fail(MGPU_ERR_NOMEM, "results store: out of memory");
    int rc = json_dump_file(doc, tmp, JSON_COMPACT);
    json_decref(doc);
    if (rc != 0 || rename(tmp, path) != 0) {
        unlink(tmp);
        return mgpu_fail(MGPU_ERR_IO, "cannot write %s", path);
    }
    return MGPU_OK;
}

json_t *results_store_load(const char *state_dir, const char *lab, const char *step)
{
    if (!plain(lab) || !plain(step)) return NULL;
    char path[4608];
    snprintf(path, sizeof path, "%s/results/%s/%s.json", state_dir, lab, step);
    json_t *doc = json_load_file(path, 0, NULL);
    if (doc && (!json_is_array(json_object_get(doc, "results")) || !json_is_string(json_object_get(doc, "saved")))) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}
