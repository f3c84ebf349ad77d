/* cli_common.c - error printing and --help shared by all subcommands (see
 * cmd.h). No command opens a backend: the workers do (engine/rt). */
#include "cmd.h"
#include "mgpu/log.h"
#include "mgpu/topo.h"
#include <stdarg.h>
#include <string.h>

int mgpu_cli_error(const char *cmd)
{
    fprintf(stderr, "mgpulab %s: %s\n", cmd, mgpu_error_message());
    if (mgpu_log_enabled(MGPU_LOG_DEBUG) && *mgpu_error_trail())
        fprintf(stderr, "  at %s\n", mgpu_error_trail());
    return 1;
}

int mgpu_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "mgpulab %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(see `mgpulab %s --help`)\n", cmd);
    va_end(ap);
    return 2;
}

void mgpu_cli_print_usage(const mgpu_cmd *cmd, FILE *f)
{
    fputs(cmd->usage, f);
    if (cmd->usage_more) cmd->usage_more(f);
    if (!cmd->options) return;
    fputs("Options:\n", f);
    mgpu_opts_print_help(f, cmd->options);
    if (cmd->epilog) fputs(cmd->epilog, f);
}

int mgpu_cli_wants_help(const mgpu_cmd *cmd, int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) { /* after --: a script's words */
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            mgpu_cli_print_usage(cmd, stdout);
            return 1;
        }
        if (strcmp(argv[i], "--list-options") == 0) {
            mgpu_opts_print_list(stdout, cmd->options);
            return 1;
        }
    }
    return 0;
}

int mgpu_cli_parse(const mgpu_cmd *cmd, int argc, char **argv, mgpu_opt_args *args)
{
    return mgpu_opts_parse(cmd->name, cmd->options, argc, argv, 0, args);
}


void mgpu_cli_markup_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        switch (ch) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(ch < 0x20 && ch != '\n' && ch != '\t' ? ' ' : ch, f); /* XML 1.0 allows no other controls */
        }
    }
}
