/* watch.c - inotify on the exercises' directories, mtime polling as the
 * fallback; a change counts only when the file's (mtime, size, inode)
 * differs, so the several events of one editor save re-run once. */
#include "watch.h"
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FILES 64

typedef struct wfile {
    char *path, *base;
    int wd;             /* inotify watch of its directory, -1 = polled */
    struct timespec mtime;
    off_t size;
    ino_t ino;
    int exists;
    int flagged;        /* inotify said something happened to it */
} wfile;

struct shell_watch {
    int fd;             /* inotify, -1 when unavailable */
    int nfiles;
    wfile files[MAX_FILES];
};

shell_watch *watch_open(void)
{
    shell_watch *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    return w;
}

static void clear_files(shell_watch *w)
{
    for (int i = 0; i < w->nfiles; i++) {
        /* several files share a directory watch: remove each wd once */
        int wd = w->files[i].wd, seen = 0;
        for (int k = 0; k < i; k++) seen |= w->files[k].wd == wd;
        if (wd >= 0 && !seen && w->fd >= 0) inotify_rm_watch(w->fd, wd);
        free(w->files[i].path);
    }
    w->nfiles = 0;
}

void watch_close(shell_watch *w)
{
    if (!w) return;
    clear_files(w);
    if (w->fd >= 0) close(w->fd);
    free(w);
}

static void take_state(wfile *f)
{
    struct stat st;
    f->exists = stat(f->path, &st) == 0;
    if (f->exists) {
        f->mtime = st.st_mtim;
        f->size = st.st_size;
        f->ino = st.st_ino;
    }
}

/* 1 when the file differs from its baseline (which then moves on). */
static int changed(wfile *f)
{
    wfile old = *f;
    take_state(f);
    /* deleted, between an editor's unlink and rename, or just created (the
     * lab framework copies an exercise into the workspace on first use):
     * only a change to a file that was there is the learner's save */
    if (!f->exists || !old.exists) return 0;
    return old.mtime.tv_sec != f->mtime.tv_sec || old.mtime.tv_nsec != f->mtime.tv_nsec ||
           old.size != f->size || old.ino != f->ino;
}

void watch_set(shell_watch *w, const char *const *paths, int n)
{
    clear_files(w);
    for (int i = 0; i < n && w->nfiles < MAX_FILES; i++) {
        wfile *f = &w->files[w->nfiles++];
        memset(f, 0, sizeof *f);
        f->wd = -1;
        if (!paths[i]) continue;
        f->path = strdup(paths[i]);
        if (!f->path) continue;
        char *slash = strrchr(f->path, '/');
        f->base = slash ? slash + 1 : f->path;
        take_state(f);
        if (w->fd >= 0 && slash) {
            *slash = 0;
            f->wd = inotify_add_watch(w->fd, slash == f->path ? "/" : f->path,
                                      IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_ATTRIB);
            *slash = '/';
        }
    }
}

int watch_fd(const shell_watch *w) { return w ? w->fd : -1; }

int watch_timeout_ms(const shell_watch *w)
{
    if (!w) return -1;
    for (int i = 0; i < w->nfiles; i++)
        if (w->files[i].path && w->files[i].wd < 0) return 1000;
    return -1;
}

static void read_events(shell_watch *w)
{
    char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t n = read(w->fd, buf, sizeof buf);
        if (n <= 0) return;
        for (char *p = buf; p < buf + n;) {
            struct inotify_event *ev = (struct inotify_event *)p;
            for (int i = 0; i < w->nfiles; i++) {
                wfile *f = &w->files[i];
                if (f->path && f->wd == ev->wd && ev->len && strcmp(ev->name, f->base) == 0) f->flagged = 1;
            }
            p += sizeof *ev + ev->len;
        }
    }
}

int watch_changed(shell_watch *w)
{
    if (!w) return -1;
    if (w->fd >= 0) read_events(w);
    for (int i = 0; i < w->nfiles; i++) {
        wfile *f = &w->files[i];
        if (!f->path) continue;
        if (f->wd >= 0 && !f->flagged) continue;
        f->flagged = 0;
        if (changed(f)) return i;
    }
    return -1;
}

void watch_rebase(shell_watch *w)
{
    if (!w) return;
    for (int i = 0; i < w->nfiles; i++)
        if (w->files[i].path) take_state(&w->files[i]);
}
