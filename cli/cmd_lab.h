/* cmd_lab.h - what the headless lab commands (list, run, verify, reset,
 * hint) share: opening the catalog, the run environment from the global
 * options, and printing a step's verdict (cmd_lab_common.c). */
#ifndef MGPU_CLI_CMD_LAB_H
#define MGPU_CLI_CMD_LAB_H
#include "mgpu/log_keep.h"
#include "cmd.h"
#include "mgpu/lab.h"

/* Open the catalog from the default places; prints the error (as `cmd`)
 * and returns NULL on failure. A catalog warning (damaged progress kept
 * aside, a broken checks file) goes to stderr. */
mgpu_lab_catalog *lab_cli_open(const char *cmd);
/* The lab named on the command line; prints a usage error and returns -1
 * when there is none by that name. */
int lab_cli_find(const char *cmd, mgpu_lab_catalog *cat, const char *name);

/* What a step run prints and collects. */
typedef struct lab_cli_out {
    int json;
    mgpu_log_keep logs; /* --json: the first and last {rank, text} of the current step */
    int keeping;       /* logs is initialised (a step is running under --json) */
    json_t *results;   /* --json: [{kind, doc}] of the current step */
} lab_cli_out;

/* The run environment from the global options; events print (text) or
 * collect (json) into out. Ctrl-C sets the cancel flag. */
void lab_cli_env(const mgpu_cli_globals *g, lab_cli_out *out, mgpu_lab_env *env);
/* "# SIMULATED machine dgx-h100" when the globals choose the sim. */
void lab_cli_banner(const mgpu_cli_globals *g, FILE *f);
/* PASS/FAIL/ERROR line, saw/wanted/where, how to answer the questions
 * still open (step `step` of `lab`), traceback. */
void lab_cli_print_verdict(const mgpu_lab_info *lab, int step, const mgpu_lab_verdict *v);
/* The verdict as a JSON object (with the step's logs and results). */
json_t *lab_cli_verdict_json(const mgpu_lab_info *lab, int step, const mgpu_lab_verdict *v, lab_cli_out *out);
/* Parse --step N|ID for lab `lab`; usage error (2) when wrong, else 0. */
int lab_cli_step(const char *cmd, mgpu_lab_catalog *cat, int lab, const char *arg, int *step);

#endif
