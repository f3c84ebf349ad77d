/* pane_registry.c - every pane of the shell, in hotkey order ('1'..'5'). */
#include "pane.h"

/* Each defined in its pane_*.c; only this table names them. */
extern const pane_class pane_topology, pane_bandwidth, pane_results, pane_timeline, pane_log;

const pane_class *const shell_panes[] = {
    &pane_topology, &pane_bandwidth, &pane_results, &pane_timeline, &pane_log, NULL,
};
