/* options.h - a command's options as data, one parser for all of them.
 *
 * tmux declares each command's flags in its cmd_entry ("args" with a
 * template and operand counts) and parses them in one place; this is that
 * idea with long names. A command lists its options in a table (name,
 * short alias, value kind, range or choices, repeatable or not, what it
 * conflicts with, its help line); mgpu_opts_parse reads argv against it,
 * and the same table prints --help's option lines and the completion
 * listing (--list-options). Every bad usage is refused the same way, with
 * the option named and exit status 2: an unknown option, a missing or
 * malformed value, a value out of range or not among the choices, a
 * non-repeatable option given twice, two options that conflict.
 *
 * Values are written "--opt V", "--opt=V", "-o V" or "-oV" (getopt's way).
 * A word after "--" is an operand, as is "-" alone. Options and operands
 * may be mixed. */
#ifndef MGPU_CLI_OPTIONS_H
#define MGPU_CLI_OPTIONS_H
#include <stdint.h>
#include <stdio.h>
#include "mgpu/err.h"

typedef enum mgpu_opt_kind {
    MGPU_OPT_FLAG,    /* no value */
    MGPU_OPT_INT,     /* a whole number within [min, max] */
    MGPU_OPT_DOUBLE,  /* a decimal number within [min, max] */
    MGPU_OPT_SECONDS, /* a positive duration in seconds, at most max */
    MGPU_OPT_SIZE,    /* a byte size: 8, 64K, 256M, 1G (powers of 1024), within [min, max] when max > 0 */
    MGPU_OPT_STRING,  /* any non-empty text */
    MGPU_OPT_ENUM,    /* one of choices */
} mgpu_opt_kind;

enum {
    MGPU_OPT_REPEAT = 1 << 0,    /* may be given more than once; every value is kept */
    MGPU_OPT_OPTIONAL = 1 << 1,  /* the value may be left out ("--xml" or "--xml FILE"): the next
                                    word is the value unless it starts with '-' */
    MGPU_OPT_ALLOW_EMPTY = 1 << 2, /* a STRING value may be "" */
};

typedef struct mgpu_opt_value mgpu_opt_value;

typedef struct mgpu_opt {
    const char *name;        /* "--step" */
    char short_name;         /* 's' for -s, or 0 */
    const char *alias;       /* another long name meaning the same ("--samples"), or NULL */
    mgpu_opt_kind kind;
    const char *value_name;  /* the value in --help: "N", "FILE" (default: from the kind) */
    double min, max;         /* INT, DOUBLE, SIZE: the range; SECONDS: max */
    const char *const *choices; /* ENUM: NULL-terminated */
    unsigned flags;          /* MGPU_OPT_REPEAT, MGPU_OPT_OPTIONAL, MGPU_OPT_ALLOW_EMPTY */
    const char *conflicts;   /* another option's name it cannot go with, or NULL */
    const char *conflict_why; /* the refusal's reason, after "X and Y: " (default "give one") */
    /* A value check of the command's own (an INT kind that also takes a
     * suffix, a name that must exist): parse `text` into v, or fail with
     * a message naming the option. Runs instead of the kind's own parse;
     * `opt` is this entry (one hook may serve several options). */
    mgpu_result (*parse)(const struct mgpu_opt *opt, const char *text, mgpu_opt_value *v);
    const char *help;        /* --help text; "\n" starts an indented continuation line */
} mgpu_opt;

/* Where a table ends: an entry with no name. */
#define MGPU_OPT_END {0}

struct mgpu_opt_value {
    int count;          /* times given (0: not given) */
    const char *text;   /* the last value as written (NULL for a flag or a left-out OPTIONAL value) */
    long long i;        /* INT */
    double d;           /* DOUBLE, SECONDS */
    uint64_t size;      /* SIZE */
    int choice;         /* ENUM: index into choices */
    const char **texts; /* REPEAT: every value in order (count of them) */
};

typedef struct mgpu_opt_args {
    const mgpu_opt *spec;
    int nopts;
    mgpu_opt_value *v;  /* one per spec entry, indexed like the table */
    char **operands;    /* the words that are not options, in order */
    int noperands;
    int order_len;      /* every value and operand in command-line order (see mgpu_opts_at) */
    int *order;         /* spec index, or -1 for an operand */
    const char **order_text;
} mgpu_opt_args;

/* How mgpu_opts_parse treats words it does not know. */
enum {
    MGPU_OPTS_PASS_UNKNOWN = 1 << 0, /* keep unknown options as operands (main.c's global options) */
    MGPU_OPTS_DASH_OPERANDS = 1 << 1, /* operands that start with '-' are common (a script's arguments):
                                         the unknown-option error says they go after "--" */
};

/* Parse argv[1..argc) against spec. 0 on success; on bad usage the message
 * "mgpulab CMD: ..." is printed and 2 returned (args is then empty). CMD
 * NULL prints "mgpulab: ...". Free with mgpu_opts_free either way. */
int mgpu_opts_parse(const char *cmd, const mgpu_opt *spec, int argc, char **argv, unsigned flags, mgpu_opt_args *args);
/* The same, from argv[0] (main.c's whole command line). */
int mgpu_opts_parse_from(const char *cmd, const mgpu_opt *spec, int argc, char **argv, int first, unsigned flags,
                         mgpu_opt_args *args);
void mgpu_opts_free(mgpu_opt_args *args);

/* The k-th value or operand in command-line order: its spec index (-1 for an
 * operand) and text. For commands where the order of two kinds matters (copy's
 * testcases given by -t and as operands). */
int mgpu_opts_at(const mgpu_opt_args *args, int k, const char **text);

/* --help's option lines: "  -s, --step N          help" with continuation
 * lines indented under the help. */
void mgpu_opts_print_help(FILE *f, const mgpu_opt *spec);
/* One line per option for shell completion, tab-separated:
 *   NAME  SHORT|-  KIND  VALUES|-  once|repeat
 * KIND is flag, int, double, seconds, size, string or enum; VALUES the
 * choices (comma-separated) or the range "MIN..MAX". An alias gets its own
 * line. */
void mgpu_opts_print_list(FILE *f, const mgpu_opt *spec);

/* The number of entries of a table. */
int mgpu_opts_count(const mgpu_opt *spec);

#endif
