/* pane.h - one interface for every pane of the shell (htop's Meter/Panel
 * classes are the model): the main loop knows panes only through this
 * table of functions, registered in pane_registry.c. Every function runs on
 * the UI thread; events from a running step arrive here after the shell
 * core has moved them off the work thread. */
#ifndef MGPU_SHELL_PANE_H
#define MGPU_SHELL_PANE_H
#include <curses.h>
#include <jansson.h>
#include "mgpu/telemetry.h"

/* What a pane may need to know about the session (read-only). */
typedef struct pane_context {
    const char *backend_line; /* "SIMULATED machine dgx-h100" / "cuda: 1 GPU (NVIDIA H200)" */
    int simulated;
    int color;                /* colours allowed (a terminal with colours and no NO_COLOR) */
} pane_context;

typedef struct pane_class {
    const char *name;         /* "topology", "bandwidth", "results", "timeline", "log" */
    const char *title;        /* shown on the pane's frame */
    int hotkey;               /* key that shows it: '1'..'5' */
    void *(*create)(const pane_context *ctx);
    void (*destroy)(void *self);
    /* A result document from a step: kind "topo", "bench", "copy", "spmd",
     * "table" (mgpu/lab.h). Panes ignore kinds they do not show. */
    void (*on_result)(void *self, const char *kind, json_t *doc);
    /* A log line: rank >= 0 from a worker (NCCL INFO lines), -1 from the lab. */
    void (*on_log)(void *self, int rank, const char *line);
    /* A timeline span {rank, stream, name, kind, start_us, end_us} and, from
     * a lab step, {run, run_label}: which of the step's runs it is from. */
    void (*on_span)(void *self, json_t *span);
    /* One telemetry sample per GPU (about 10 Hz while work runs). */
    void (*on_telemetry)(void *self, const mgpu_link_sample *s, int n, const char *source);
    /* A step starts: panes that show one run's data clear it. */
    void (*on_step_start)(void *self);
    /* Draw into `win` (already sized and cleared, frame drawn by the core). */
    void (*draw)(void *self, WINDOW *win, int focused);
    /* A key while the pane has focus; 1 when handled (scrolling, ...). */
    int (*key)(void *self, int ch);
    /* 1 when the pane has something new to draw since the last draw. */
    int (*dirty)(void *self);
} pane_class;

/* Every pane, in hotkey order, NULL-terminated (pane_registry.c). */
extern const pane_class *const shell_panes[];

#endif
