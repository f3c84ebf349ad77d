/* cli_common.c - error printing, --help and backend opening shared by all
 * subcommands (see cmd.h). */
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

void mgpu_cli_backend_line(mgpu_backend *be, char *buf, size_t len)
{
    const mgpu_topo *t = mgpu_backend_topo(be);
    if (mgpu_backend_simulated(be)) {
        snprintf(buf, len, "SIMULATED machine %s (%s)", t ? mgpu_topo_machine_name(t) : "?",
                 mgpu_backend_reason(be));
        return;
    }
    int n = 0;
    mgpu_device_count(be, &n);
    mgpu_device_info info;
    if (n > 0 && mgpu_device_info_get(be, 0, &info) == MGPU_OK)
        snprintf(buf, len, "cuda: %d GPU%s (%s)", n, n == 1 ? "" : "s", info.name);
    else
        snprintf(buf, len, "cuda: %d GPUs", n);
}

mgpu_result mgpu_cli_open_backend(const mgpu_cli_globals *g, FILE *banner, mgpu_backend **out)
{
    if (g->backend.kind == MGPU_BACKEND_CUDA && (g->backend.machine || g->backend.fault))
        return mgpu_fail(MGPU_ERR_INVALID,
                         "--machine and --fault describe a simulated machine; use them with "
                         "--backend sim (the cuda backend uses the real one)");
    MGPU_CHECK(mgpu_backend_open(&g->backend, out));
    if (banner) {
        char line[512];
        mgpu_cli_backend_line(*out, line, sizeof line);
        fprintf(banner, "# %s\n", line);
    }
    return MGPU_OK;
}
