/* shell_actions.h - what the keys do (shell_actions.c). */
#ifndef MGPU_SHELL_SHELL_ACTIONS_H
#define MGPU_SHELL_SHELL_ACTIONS_H
#include "app.h"

void act_open_lab(shell_app *a, int lab);
void act_run(shell_app *a, int lab, int step);
void act_check(shell_app *a, int lab, int step); /* answers against the last run's measurement */
void act_cancel(shell_app *a);
void act_edit(shell_app *a);
void act_hint(shell_app *a);
void act_ask_solution(shell_app *a);   /* S: asks first (CONFIRM_SOLUTION) */
void act_solution(shell_app *a, int lab, int step); /* after y: show it, recorded in progress */
void act_answer(shell_app *a);
void act_answer_next(shell_app *a); /* after a prompt was answered */
void act_confirmed(shell_app *a, confirm_action act, int lab, int step); /* y in a confirmation */
void act_reset(shell_app *a);
void act_quit(shell_app *a);
void act_select_step(shell_app *a, int step);
void act_next(shell_app *a);  /* n: the next step of the open lab */
void act_lang(shell_app *a);  /* L: Korean <-> English; the lists and the step text redraw */

#endif
