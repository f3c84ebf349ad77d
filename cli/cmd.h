/* cmd.h - the shape of a subcommand and the options every command shares.
 *
 * Each subcommand is one file exporting one designated-initialiser struct
 * (tmux's cmd-*.c are the model); main.c lists them in one table. Global
 * options may stand anywhere on the command line; main.c takes them out and
 * hands the command only its own arguments (argv[0] is the command name). */
#ifndef MGPU_CLI_CMD_H
#define MGPU_CLI_CMD_H
#include <stdio.h>
#include "mgpu/dev.h"
#include "mgpu/lang.h"
#include "options.h"

typedef struct mgpu_cli_globals {
    mgpu_backend_config backend;  /* --backend, --machine, --fault */
    const char *launcher;         /* --launcher local|emulate|mpirun|srun */
    int ranks;                    /* --ranks N, 0 = default */
    double timeout_s;             /* --timeout SECONDS, 0 = default */
    const char *trace;            /* --trace FILE */
    int json;                     /* --json */
    const char *lang;             /* --lang en|ko, or NULL (mgpu/lang.h chooses) */
    const char *lang_pin;         /* the class configuration's "lang", or NULL */
} mgpu_cli_globals;

typedef struct mgpu_cmd {
    const char *name;
    const char *summary;          /* one line for `mgpulab --help` */
    const char *usage;            /* `--help`'s text; with options, the part before them */
    /* Printed right after usage, or NULL: --help's text made from a table at
     * run time (bench's busbw factors from the model's one source). */
    void (*usage_more)(FILE *f);
    /* The command's options (options.h), or NULL for a command that still
     * parses its own: --help prints usage, "Options:", their lines from
     * this table, then epilog; --list-options lists them for completion. */
    const mgpu_opt *options;
    const char *epilog;           /* --help's text after the options (examples, exit status) */
    /* Returns the process exit status: 0 only on success. */
    int (*run)(const mgpu_cli_globals *g, int argc, char **argv);
} mgpu_cmd;

/*--- Helpers every command uses (cli_common.c) -------------------------*/

/* Print the engine's current error as "mgpulab CMD: message" (plus the
 * breadcrumb trail when MGPU_LOG=debug) and return exit status 1. */
int mgpu_cli_error(const char *cmd);
/* Print a usage error for `cmd` and return exit status 2. */
int mgpu_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Text escaped for HTML or XML element content and attribute values. */
void mgpu_cli_markup_text(FILE *f, const char *s);
/* 1 when argv has --help / -h (prints the command's usage to stdout) or
 * --list-options (prints its options for shell completion, options.h). */
int mgpu_cli_wants_help(const mgpu_cmd *cmd, int argc, char **argv);
/* Parse a command's argv against its options table (mgpu_opts_parse):
 * 0, or 2 with the usage error printed. Free args with mgpu_opts_free. */
int mgpu_cli_parse(const mgpu_cmd *cmd, int argc, char **argv, mgpu_opt_args *args);
/* The command's usage as --help prints it. */
void mgpu_cli_print_usage(const mgpu_cmd *cmd, FILE *f);

/*--- The learner's language (cli_strings_ko.c; mgpu/lang.h) --------------*/

/* `en` (a string or format the code prints) in the current language. */
const char *cli_tr(const char *en) __attribute__((format_arg(1)));
/* Columns s takes in a terminal (Hangul is two wide), and s printed
 * padded with spaces to `width` columns (printf's %-28s counts bytes). */
int cli_text_width(const char *s);
void cli_print_padded(FILE *f, const char *s, int width);
/* Cut s to at most cols display columns (Hangul two), at a character;
 * 1 when it cut. */
int cli_text_cut(char *s, int cols);

extern const mgpu_cmd mgpu_cmd_topo;
extern const mgpu_cmd mgpu_cmd_copy;
extern const mgpu_cmd mgpu_cmd_bench;
extern const mgpu_cmd mgpu_cmd_spmd;
extern const mgpu_cmd mgpu_cmd_worker;
extern const mgpu_cmd mgpu_cmd_list;
extern const mgpu_cmd mgpu_cmd_run;
extern const mgpu_cmd mgpu_cmd_verify;
extern const mgpu_cmd mgpu_cmd_reset;
extern const mgpu_cmd mgpu_cmd_hint;
extern const mgpu_cmd mgpu_cmd_validate;
extern const mgpu_cmd mgpu_cmd_report;
extern const mgpu_cmd mgpu_cmd_whatif;

#endif
