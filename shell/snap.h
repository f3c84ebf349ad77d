/* snap.h - the UI thread's own copy of the lab catalog's infos: the catalog
 * belongs to the work thread while a step runs, so the screen draws from a
 * snapshot taken whenever the catalog is the UI thread's again. */
#ifndef MGPU_SHELL_SNAP_H
#define MGPU_SHELL_SNAP_H
#include "mgpu/lab.h"

typedef struct snap_question {
    char *id, *ask, *answer;
} snap_question;

/* Texts (titles, asks, the step's text file) in the current language, as
 * the catalog had them when the snapshot was taken; ids in English. */
typedef struct snap_step {
    char *id, *title, *text_path, *exercise, *last_message;
    int nhints, nquestions;
    snap_question *questions;
    mgpu_step_state state;
    mgpu_step_state last_attempt; /* a later run of a passed step that did not pass, else NEW */
    int reading;                  /* no check: read / unread, never passed */
    int text_missing;             /* the text is English: the lab has none in the current language */
    double last_run, seconds;
} snap_step;

typedef struct snap_lab {
    char *id, *title, *summary, *dir, *backends, *load_error;
    int number, nsteps, passed;
    int nchecked;                 /* steps with a check (what passed counts against) */
    snap_step *steps;
} snap_lab;

typedef struct shell_snap {
    int nlabs;
    snap_lab *labs;
} shell_snap;

/* Copy every lab's info. Fails only when out of memory. */
mgpu_result snap_take(const mgpu_lab_catalog *cat, shell_snap *out);
void snap_free(shell_snap *s);
/* The list mark of a step state: "[x]" passed, "[!]" failed, ... */
const char *snap_state_mark(mgpu_step_state st);
/* The list mark of a step: its state's, or "( )" / "(*)" for a reading
 * step unread / read (not a box to tick). */
const char *snap_step_mark(const snap_step *st);
/* A lab's mark from its steps (load error, all passed, some failing, ...). */
const char *snap_lab_mark(const snap_lab *lab);

#endif
