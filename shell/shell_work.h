/* shell_work.h - a step on the work thread; its events to the panes and the state (shell_work.c). */
#ifndef MGPU_SHELL_SHELL_WORK_H
#define MGPU_SHELL_SHELL_WORK_H
#include "app.h"

/* check_only: judge the last run again (new answers), no new measurement */
mgpu_result work_start(shell_app *a, int lab, int step, int check_only);
void work_join(shell_app *a);          /* after EV_STEP_DONE */
void work_dispatch(shell_app *a, shell_event *ev); /* one event to the panes and the state */
/* The selected step's last saved results into the results pane, when the
 * selection moved to a step whose results are not shown (results_store.h). */
void results_follow_selection(shell_app *a);

#endif
