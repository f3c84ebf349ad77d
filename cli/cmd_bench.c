/* cmd_bench.c - skeleton; being written. */
#include "cmd.h"

static int run(const mgpu_cli_globals *g, int argc, char **argv)
{
    (void)g; (void)argc; (void)argv;
    return mgpu_cli_usage_error("bench", "not built yet");
}

const mgpu_cmd mgpu_cmd_bench = {
    .name = "bench",
    .summary = "(being written)",
    .usage = "usage: mgpulab bench\n",
    .run = run,
};
