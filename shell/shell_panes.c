/* shell_panes.c - the panes' lifetimes, dirtiness and the telemetry feed
 * (10 Hz while a step runs, nothing while idle). */
#include "shell_panes.h"
#include "shell_strings.h"

void panes_create(shell_app *a)
{
    a->npanes = 0;
    for (int i = 0; shell_panes[i] && i < SHELL_MAX_PANES; i++) {
        a->pane_self[i] = shell_panes[i]->create ? shell_panes[i]->create(&a->pctx) : NULL;
        a->npanes = i + 1;
    }
}

void panes_destroy(shell_app *a)
{
    for (int i = 0; i < a->npanes; i++)
        if (shell_panes[i]->destroy && a->pane_self[i]) shell_panes[i]->destroy(a->pane_self[i]);
    a->npanes = 0;
    if (a->pane_win) delwin(a->pane_win);
    a->pane_win = NULL;
}

int panes_dirty(shell_app *a)
{
    /* only the pane on screen matters: the others are drawn when shown */
    if (a->npanes == 0 || a->too_small) return 0;
    const pane_class *pc = shell_panes[a->pane_cur];
    return pc->dirty ? pc->dirty(a->pane_self[a->pane_cur]) : 0;
}

void panes_telemetry(shell_app *a)
{
    if (!a->tel) return;
    if (!a->work.active) a->tail_samples++; /* counted even when the sample fails: the tail ends */
    double now = shell_now();
    mgpu_link_sample s[64];
    int n = 0;
    if (mgpu_telemetry_sample(a->tel, s, 64, &n) != MGPU_OK) {
        status_set(a, tr("telemetry: %s"), mgpu_error_message());
        return;
    }
    if (!a->work.active) {
        int traffic = 0;
        for (int i = 0; i < n; i++)
            traffic |= s[i].nvlink_tx > 0 || s[i].nvlink_rx > 0 || s[i].pcie_tx > 0 || s[i].pcie_rx > 0;
        a->tail_quiet = traffic ? 0 : a->tail_quiet + 1;
    }
    /* the first sample of a run only starts the interval: its rates cover
     * the idle time before it */
    int first = a->last_sample == 0;
    a->last_sample = now;
    if (first) return;
    const char *src = mgpu_telemetry_source(a->tel);
    for (int i = 0; i < a->npanes; i++)
        if (shell_panes[i]->on_telemetry) shell_panes[i]->on_telemetry(a->pane_self[i], s, n, src);
}
