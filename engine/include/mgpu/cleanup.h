/* cleanup.h - what a process leaves in shared places (the coordinator's
 * socket and its private directory under /tmp, the telemetry table in
 * /dev/shm) removed also when it is killed by SIGINT, SIGTERM or SIGHUP,
 * not only on its normal way out. A process registers a path while the
 * thing exists and forgets it when it removes it itself. */
#ifndef MGPU_CLEANUP_H
#define MGPU_CLEANUP_H

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

/* Install the handlers for SIGINT, SIGTERM and SIGHUP where their action
 * is still the default (a command that handles SIGINT itself, like `run`
 * cancelling a step, keeps its own). The handler removes what this process
 * registered (a forked child never removes its parent's), then dies of the
 * signal as it would have. Idempotent. */
void mgpu_cleanup_install(void);

#ifdef __cplusplus
}
#endif
#endif
