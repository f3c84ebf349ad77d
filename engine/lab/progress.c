/* progress.c - the progress file: atomic writes, damaged files kept aside. */
#include "lab/progress.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TMP_PREFIX "progress.json.tmp-"

static json_t *empty_doc(void) { return json_pack("{s:i, s:{}}", "version", 1, "labs"); }

/* A doc we can use: an object whose "labs" is an object of objects. */
static int shape_ok(json_t *doc)
{
    json_t *labs = json_object_get(doc, "labs");
    if (!json_is_object(doc) || !json_is_object(labs)) return 0;
    const char *k;
    json_t *v;
    json_object_foreach(labs, k, v) {
        json_t *steps = json_object_get(v, "steps");
        if (!json_is_object(v) || (steps && !json_is_object(steps))) return 0;
    }
    return 1;
}

/* Writers that were SIGKILLed leave progress.json.tmp-PID behind; remove
 * those whose process is gone (a live one may be writing right now). */
static void remove_stale_temps(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, TMP_PREFIX, strlen(TMP_PREFIX)) != 0) continue;
        long pid = strtol(e->d_name + strlen(TMP_PREFIX), NULL, 10);
        if (pid > 0 && (kill((pid_t)pid, 0) == 0 || errno != ESRCH)) continue;
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path) unlink(path);
    }
    closedir(d);
}

mgpu_result lab_progress_load(lab_progress *p, const char *state_dir)
{
    memset(p, 0, sizeof *p);
    if (snprintf(p->path, sizeof p->path, "%s/progress.json", state_dir) >= (int)sizeof p->path)
        return mgpu_fail(MGPU_ERR_INVALID, "state directory path too long: %s", state_dir);
    remove_stale_temps(state_dir);
    json_error_t jerr;
    json_t *doc = json_load_file(p->path, 0, &jerr);
    if (doc && shape_ok(doc)) {
        p->doc = doc;
        return MGPU_OK;
    }
    json_decref(doc);
    if (access(p->path, F_OK) != 0 && errno == ENOENT) {
        p->doc = empty_doc();
        return p->doc ? MGPU_OK : mgpu_fail(MGPU_ERR_NOMEM, "out of memory");
    }
    /* Damaged: keep it for the learner (or us) to look at, start afresh. */
    char aside[PATH_MAX + 64], stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    if (strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm) == 0) snprintf(stamp, sizeof stamp, "%ld", (long)now);
    snprintf(aside, sizeof aside, "%s.damaged-%.20s", p->path, stamp);
    for (int i = 1; access(aside, F_OK) == 0 && i < 100; i++)
        snprintf(aside, sizeof aside, "%s.damaged-%.20s-%d", p->path, stamp, i);
    if (rename(p->path, aside) != 0)
        return mgpu_fail(MGPU_ERR_IO, "%s is damaged (%s) and could not be moved aside: %s", p->path,
                         doc ? "not the progress shape" : jerr.text, strerror(errno));
    snprintf(p->warning, sizeof p->warning,
             "the progress file %.300s was damaged (%.200s, line %d); it was kept as %.400s and progress starts afresh",
             p->path, jerr.text[0] ? jerr.text : "not the progress shape", jerr.line, aside);
    p->doc = empty_doc();
    return p->doc ? MGPU_OK : mgpu_fail(MGPU_ERR_NOMEM, "out of memory");
}

static mgpu_result write_all(int fd, const char *buf, size_t n, const char *path)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return mgpu_fail(MGPU_ERR_IO, "cannot write %s: %s", path, strerror(errno));
        buf += w;
        n -= (size_t)w;
    }
    return MGPU_OK;
}

mgpu_result lab_progress_save(const lab_progress *p)
{
    char *text = json_dumps(p->doc, JSON_INDENT(1) | JSON_SORT_KEYS);
    if (!text) return mgpu_fail(MGPU_ERR_NOMEM, "cannot serialise the progress");
    char dir[PATH_MAX], tmp[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s", p->path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
    snprintf(tmp, sizeof tmp, "%s/" TMP_PREFIX "%ld", dir, (long)getpid());
    mgpu_result r = MGPU_OK;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        free(text);
        return mgpu_fail(MGPU_ERR_IO, "cannot write the progress file %s: %s", tmp, strerror(errno));
    }
    r = write_all(fd, text, strlen(text), tmp);
    if (r == MGPU_OK) r = write_all(fd, "\n", 1, tmp);
    free(text);
    /* fsync before rename: after a crash the name points at complete data */
    if (r == MGPU_OK && fsync(fd) != 0) r = mgpu_fail(MGPU_ERR_IO, "cannot sync %s: %s", tmp, strerror(errno));
    if (close(fd) != 0 && r == MGPU_OK) r = mgpu_fail(MGPU_ERR_IO, "cannot close %s: %s", tmp, strerror(errno));
    if (r == MGPU_OK && rename(tmp, p->path) != 0)
        r = mgpu_fail(MGPU_ERR_IO, "cannot replace %s: %s", p->path, strerror(errno));
    if (r != MGPU_OK) {
        unlink(tmp);
        return r;
    }
    /* and the directory, so the rename itself survives a power loss */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return MGPU_OK;
}

void lab_progress_free(lab_progress *p)
{
    json_decref(p->doc);
    p->doc = NULL;
}

static json_t *get_or_add(json_t *parent, const char *key, int create)
{
    json_t *o = json_object_get(parent, key);
    if (json_is_object(o) || !create) return json_is_object(o) ? o : NULL;
    o = json_object();
    json_object_set_new(parent, key, o);
    return o;
}

json_t *lab_progress_step(lab_progress *p, const char *lab, const char *step, int create)
{
    json_t *labs = get_or_add(p->doc, "labs", create);
    json_t *l = labs ? get_or_add(labs, lab, create) : NULL;
    json_t *steps = l ? get_or_add(l, "steps", create) : NULL;
    return steps ? get_or_add(steps, step, create) : NULL;
}

json_t *lab_progress_step_obj(lab_progress *p, const char *lab, const char *step, const char *member)
{
    json_t *s = lab_progress_step(p, lab, step, 1);
    return s ? get_or_add(s, member, 1) : NULL;
}

void lab_progress_forget_lab(lab_progress *p, const char *lab)
{
    json_object_del(json_object_get(p->doc, "labs"), lab);
}
