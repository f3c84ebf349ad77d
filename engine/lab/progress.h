/* progress.h - the learner's progress file (<state>/progress.json): one
 * JSON document, written atomically, a damaged one kept aside.
 *
 * Shape: {"version": 1, "labs": {"02-allreduce": {"steps": {"sweep": {
 *   "state": "passed", "last_run": unix time, "seconds": s, "attempts": n,
 *   "hints_taken": n, "solution_shown": true (asked to see it), "answers":
 *   {id: text}, "measurements": {key: value}, "by_machine": {machine: {key:
 *   value}}, "passed_on": machine of the latest pass, "message": "...",
 *   "untrusted": true (the file's digest did not match)}}}},
 *   "learner": {name, id}, "digest": "hmac-sha256:HEX"}
 * Keyed by the lab's directory name and the step's id, so renumbering
 * steps in a lab does not move a learner's work to another step. */
#ifndef MGPU_LAB_PROGRESS_H
#define MGPU_LAB_PROGRESS_H
#include <jansson.h>
#include <limits.h>
#include "mgpu/err.h"

typedef struct lab_progress {
    char path[PATH_MAX];
    json_t *doc;
    json_t *base;       /* the document as last read from or written to disk */
    char warning[1024]; /* "" or what happened to a damaged file */
} lab_progress;

/* Read <state_dir>/progress.json. Missing: empty progress. Unparsable or of
 * the wrong shape: renamed to progress.json.damaged-YYYYmmdd-HHMMSS, empty
 * progress, and p->warning says so. Fails only when the damaged file cannot
 * be moved aside (then nothing is overwritten later either). Temporary files
 * left by a writer that was killed are removed. */
mgpu_result lab_progress_load(lab_progress *p, const char *state_dir);
/* Save under a lock (progress.json.lock): first merge into p->doc what
 * other commands saved since this one read the file (every lab, step and
 * step member this process did not change takes the disk's version; a
 * count - attempts, hints_taken - adds what this process added to the
 * disk's, so commands that count at once are all counted), then
 * write the whole document atomically: a temporary file in the same
 * directory, fsync, rename over progress.json, fsync the directory.
 * Objects inside p->doc may be replaced: re-read pointers into it. */
mgpu_result lab_progress_save(lab_progress *p);
/* Take in what other processes saved since this one last read or wrote the
 * file (the step runner's child saves a step's run): every member this
 * process has not changed takes the disk's version, as in a save, and
 * nothing is written. */
mgpu_result lab_progress_refresh(lab_progress *p);
void lab_progress_free(lab_progress *p);
/* "edited" when a step's claims came from a file whose keyed digest did
 * not match (progress.c says how it is made) and it has not run since,
 * else "ok". */
const char *lab_progress_digest_state(const lab_progress *p);

/* The step's object (borrowed), created when `create`; NULL when absent. */
json_t *lab_progress_step(lab_progress *p, const char *lab, const char *step, int create);
/* A member object of the step ("answers", "measurements"), created. */
json_t *lab_progress_step_obj(lab_progress *p, const char *lab, const char *step, const char *member);
/* Forget everything about a lab. */
void lab_progress_forget_lab(lab_progress *p, const char *lab);

#endif
