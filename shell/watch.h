/* watch.h - watch mode: notice when the learner saves an exercise file.
 * inotify on the files' directories (editors save by rename, so the
 * directory is watched, not the file); where inotify is unavailable or a
 * directory does not exist yet, the files' mtimes are polled once a second. */
#ifndef MGPU_SHELL_WATCH_H
#define MGPU_SHELL_WATCH_H

typedef struct shell_watch shell_watch;

shell_watch *watch_open(void); /* never NULL unless out of memory */
void watch_close(shell_watch *w);
/* Watch exactly these files (replaces the earlier set); NULL entries are
 * skipped, and an entry keeps its index for watch_changed. */
void watch_set(shell_watch *w, const char *const *paths, int n);
/* fd to poll for POLLIN, or -1. */
int watch_fd(const shell_watch *w);
/* poll(2) timeout the watch needs: 1000 ms while some file is polled, else -1. */
int watch_timeout_ms(const shell_watch *w);
/* Read pending notifications / compare mtimes; returns the index of one
 * file whose content changed since the last call (each change reported
 * once), or -1. Call until it returns -1. */
int watch_changed(shell_watch *w);
/* The file at index i was just changed by us or seen: take its current state
 * as the baseline (after a reset put the original back, say). */
void watch_rebase(shell_watch *w);

#endif
