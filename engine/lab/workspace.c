/* workspace.c - the learner's copies of exercise files, reset, and which
 * paths a lab may read (its own directory and its workspace, nothing else). */
#include "lab/lab_internal.h"
#include "mgpu/file.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

mgpu_result lab_read_file(const char *path, char **text, size_t *len)
{
    /* regular files only, capped: a lab file linked to /dev/zero or a FIFO
     * is refused instead of read forever */
    return mgpu_file_read(path, LAB_MAX_FILE, text, len);
}

mgpu_result lab_copy_file(const char *src, const char *dst)
{
    char *text = NULL;
    size_t n = 0;
    MGPU_CHECK(lab_read_file(src, &text, &n));
    /* atomic, and never over a link or device planted in the workspace */
    mgpu_result r = mgpu_file_write_atomic(dst, text, n);
    free(text);
    return r;
}

/* mkdir -p of the directories above `file` (inside the state dir). */
static mgpu_result parent_dirs(const char *file)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", file);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0700) != 0 && errno != EEXIST)
            return mgpu_fail(MGPU_ERR_IO, "cannot create %s: %s", buf, strerror(errno));
        *p = '/';
    }
    return MGPU_OK;
}

mgpu_result lab_workspace_prepare(lab_entry *e, int step)
{
    const mgpu_lab_step_info *s = &e->steps[step];
    if (!s->exercise || access(s->exercise, F_OK) == 0) return MGPU_OK;
    MGPU_CHECK(parent_dirs(s->exercise));
    /* in Korean the exercise's Korean twin when the lab has one (the same
     * code, its comments in Korean); the learner's copy then stays theirs */
    const char *src = s->exercise_src;
    if (mgpu_lang_get() == MGPU_LANG_KO && e->ko.steps && e->ko.steps[step].exercise_src)
        src = e->ko.steps[step].exercise_src;
    MGPU_CHECK(lab_copy_file(src, s->exercise));
    return MGPU_OK;
}

static int inside(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

mgpu_result lab_own_file(const lab_entry *e, const char *path, const char *what)
{
    char real[PATH_MAX], rlab[PATH_MAX], rroot[PATH_MAX];
    /* the lab's directory first: one that is a link to a folder elsewhere
     * would make every file of that folder "inside the lab" */
    if (!realpath(e->info.dir, rlab)) return mgpu_fail(MGPU_ERR_IO, "lab directory %s: %s", e->info.dir, strerror(errno));
    if (!realpath(e->cat->labs_dir, rroot) || !inside(rlab, rroot) || strcmp(rlab, rroot) == 0)
        return mgpu_fail(MGPU_ERR_INVALID, "lab directory %s leads out of the labs directory (to %s); a lab must lie "
                                           "inside it", e->info.dir, rlab);
    if (!realpath(path, real)) return mgpu_fail(MGPU_ERR_IO, "%s %s: %s", what, path, strerror(errno));
    if (!inside(real, rlab))
        return mgpu_fail(MGPU_ERR_INVALID, "%s %s leads out of the lab directory (to %s); a lab's files must lie "
                                           "inside it", what, path, real);
    struct stat st;
    if (stat(real, &st) != 0 || !S_ISREG(st.st_mode))
        return mgpu_fail(MGPU_ERR_INVALID, "%s %s is %s, not a regular file", what, path,
                         S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a directory" : "a device or socket");
    return MGPU_OK;
}

mgpu_result lab_resolve_path(const lab_entry *e, const char *path, char *out, size_t len)
{
    if (!path || !*path) return mgpu_fail(MGPU_ERR_INVALID, "an empty path");
    char joined[PATH_MAX * 2], real[PATH_MAX], rlab[PATH_MAX], rwork[PATH_MAX];
    if (path[0] == '/') snprintf(joined, sizeof joined, "%s", path);
    else snprintf(joined, sizeof joined, "%s/%s", e->info.dir, path);
    if (!realpath(joined, real))
        return mgpu_fail(MGPU_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    /* compare real paths, so neither ../ nor a symbolic link leads out */
    int ok = realpath(e->info.dir, rlab) && inside(real, rlab);
    if (!ok && e->info.workspace && realpath(e->info.workspace, rwork)) ok = inside(real, rwork);
    if (!ok)
        return mgpu_fail(MGPU_ERR_INVALID, "%s is outside the lab directory and the workspace; a lab may only read "
                                           "its own files and the learner's exercise copies", path);
    if (snprintf(out, len, "%s", real) >= (int)len) return mgpu_fail(MGPU_ERR_INVALID, "path too long: %s", path);
    return MGPU_OK;
}

mgpu_result mgpu_lab_reset(mgpu_lab_catalog *cat, int lab)
{
    if (!cat || lab < 0 || lab >= cat->nlabs) return mgpu_fail(MGPU_ERR_INVALID, "no lab %d", lab);
    lab_entry *e = &cat->labs[lab];
    for (int i = 0; i < e->info.nsteps; i++) {
        const mgpu_lab_step_info *s = &e->steps[i];
        if (!s->exercise) continue;
        if (access(s->exercise, F_OK) == 0) {
            char bak[PATH_MAX + 8];
            snprintf(bak, sizeof bak, "%s.bak", s->exercise);
            if (rename(s->exercise, bak) != 0)
                return mgpu_fail(MGPU_ERR_IO, "cannot keep %s as %s: %s", s->exercise, bak, strerror(errno));
        }
        MGPU_CHECK(lab_workspace_prepare(e, i));
    }
    lab_progress_forget_lab(&cat->progress, e->info.id);
    mgpu_result r = lab_progress_save(&cat->progress);
    lab_sync_all_progress(cat); /* the save may have merged other labs' news */
    return r;
}
