/* cleanup.h - what a process leaves in shared places (the coordinator's
 * socket and its private directory under /tmp, the telemetry table in
 * /dev/shm) removed also when it is killed by SIGINT, SIGTERM or SIGHUP,
 * not only on its normal way out. A process registers a path while the
 * thing exists and forgets it when it removes it itself. */
#ifndef MGPU_CLEANUP_H
#define MGPU_CLEANUP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Remove `path` (a file or socket; an empty directory with `dir`) if this
 * process dies of one of those signals. Returns a slot for
 * mgpu_cleanup_forget, or -1 when the table is full or the path too long
 * (then nothing is promised; the normal way out still cleans up). */
int mgpu_cleanup_register(const char *path, int dir);

/* The normal way out removed it: no longer ours to remove. -1 is ignored. */
void mgpu_cleanup_forget(int slot);

/* Install the handlers for SIGINT, SIGTERM, SIGHUP, SIGQUIT and the other
 * signals that end a process by default, where their action
 * is still the default (a command that handles SIGINT itself, like `run`
 * cancelling a step, keeps its own). The handler removes what this process
 * registered (a forked child never removes its parent's), then dies of the
 * signal as it would have. At exit() too, what is still registered was
 * not removed by the way out the process took (an error path) and goes.
 * Idempotent. */
void mgpu_cleanup_install(void);

/* Remove what this process registered now: a process about to _exit()
 * (which runs no atexit handler) calls it. */
void mgpu_cleanup_now(void);

/* The start of a name in /dev/shm that process `pid` makes: "/KIND-PID-",
 * or "/KIND-TAG-PID-" when MGPU_SHM_TAG holds 1-16 letters and digits (the
 * test suite sets it, so it can tell what its own runs left behind from
 * other runs on the machine). Returns snprintf's count. */
int mgpu_shm_prefix(const char *kind, int pid, char *out, size_t len);

/* Remove what process `pid` made in /dev/shm under `kind` ("mgpu-sim"):
 * a parent calls it for a child that is gone, which may have been killed
 * (SIGKILL) between creating an entry and removing it. */
void mgpu_cleanup_shm_of(const char *kind, int pid);

/* Remove what processes that no longer exist made in /dev/shm under `kind`
 * (this user's regular files only): a process killed by SIGKILL - which no
 * handler sees - leaves its entries, and the next one to start takes them. */
void mgpu_cleanup_shm_stale(const char *kind);

#ifdef __cplusplus
}
#endif
#endif
