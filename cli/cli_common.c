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

int mgpu_cli_wants_help(const mgpu_cmd *cmd, int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(cmd->usage, stdout);
            return 1;
        }
    return 0;
}

