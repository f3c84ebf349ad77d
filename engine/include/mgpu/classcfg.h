/* classcfg.h - a class configuration: the file a workshop instructor hands
 * out so every learner runs the same setting. It pins the backend, the
 * machine (preset or NCCL XML), the fault set, the labs of the workshop and
 * their order, and options (launcher, ranks, timeout), says whether an
 * exported report carries the learner's exercise files (default: yes, for
 * the instructor's `report --class --verify`) and may list the roster.
 *
 * Where: $MGPULAB_CLASS names the file; else $XDG_CONFIG_HOME/mgpulab/
 * class.json (default ~/.config/mgpulab/class.json); none: no class. JSON:
 *   {"name": "GPU workshop, Dec 2026", "backend": "sim", "machine": "dgx-h100",
 *    "fault": "", "labs": ["00-welcome", "01-topology", "02-allreduce"],
 *    "options": {"launcher": "local", "ranks": 8, "timeout": 60},
 *    "export_solutions": true,
 *    "roster": [{"id": "ada", "name": "Ada Lovelace"}, "alan", ...],
 *    "share": "/mnt/class", "stuck_minutes": 10, "lang": "ko", "draw_seed": "dec-2026",
 *    "pacing": {"steps_in_order": true, "labs_opened_by_instructor": true}}
 * Every member is optional; an unknown one is an error (a typo must not
 * silently leave a setting unpinned). The roster lists the learners by the
 * id their exports carry: `report --class` shows one with no export as
 * not started. "share" (absolute, or relative to this file) is a folder
 * every learner's mgpulab writes its export to after each step, for the
 * instructor's `report --class DIR --watch`; "pacing" keeps each lab's
 * steps in order and/or the labs closed until the instructor opens them. */
#ifndef MGPU_CLASSCFG_H
#define MGPU_CLASSCFG_H
#include <limits.h>
#include "mgpu/err.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MGPU_CLASS_MAX_LABS 64
#define MGPU_CLASS_MAX_ROSTER 512

typedef struct mgpu_class_member {
    char id[64];               /* the learner's id (their export's learner.id: the login by default) */
    char name[128];            /* "" when the roster gives only the id */
} mgpu_class_member;

typedef struct mgpu_class_config {
    char path[PATH_MAX];       /* the file it came from */
    char name[128];
    char backend[16];          /* "" = not pinned; else auto, cuda, sim */
    char machine[PATH_MAX];    /* "" = not pinned */
    char fault[256];
    char launcher[16];
    int ranks;                 /* 0 = not pinned */
    double timeout_s;          /* 0 = not pinned */
    int nlabs;                 /* 0 = every lab */
    char labs[MGPU_CLASS_MAX_LABS][64];
    int export_solutions;      /* the learner's exercise files go with an export (default: yes) */
    int nroster;               /* 0 = no roster: the class is whoever exported */
    mgpu_class_member roster[MGPU_CLASS_MAX_ROSTER];
    char share[PATH_MAX];      /* "" or the shared folder every step's export is written to (absolute) */
    double stuck_minutes;      /* the live view marks a learner this long on one step (default 10) */
    int steps_in_order;        /* pacing: a step runs once the steps before it in its lab are done */
    int labs_by_instructor;    /* pacing: a lab after the first runs once the instructor opened it */
    char lang[8];              /* "" = not pinned; else "en" or "ko" (mgpu/lang.h: --lang beats it) */
    char draw_seed[64];        /* "" = none; else what per-learner draws mix in (lab 12's hidden fault),
                                * so an instructor varies the draws from one class to the next */
} mgpu_class_config;

/* The file in the shared folder that lists the labs the instructor opened
 * (one lab id a line; `mgpulab report --class DIR --open LAB` writes it). */
#define MGPU_CLASS_OPEN_FILE "open-labs.txt"

/* Is lab `id` listed in SHARE's open-labs.txt (engine/lab/pacing.c)? 0 when
 * the file is missing or unreadable: only a regular file is read, since a
 * FIFO in the shared folder would hold every learner's mgpulab (issue 34). */
int mgpu_class_lab_opened(const char *share, const char *id);

/* The configuration in force for this process, read once. *out = NULL when
 * there is none. A file that is named (or present) but unreadable or wrong
 * fails with a message naming the file and the problem. */
mgpu_result mgpu_class_config_active(const mgpu_class_config **out);

/* Read one file (tests, and the above). */
mgpu_result mgpu_class_config_load(const char *path, mgpu_class_config *out);

#ifdef __cplusplus
}
#endif
#endif
