/* log.c - leveled logging to stderr; level from MGPU_LOG, read once. */
#include "mgpu/log.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int log_level = -1;

static int level_from_env(void)
{
    const char *v = getenv("MGPU_LOG");
    if (!v) return MGPU_LOG_WARN;
    static const char *const names[] = {"error", "warn", "info", "debug"};
    for (int i = 0; i < 4; i++)
        if (strcmp(v, names[i]) == 0) return i;
    return MGPU_LOG_WARN;
}

int mgpu_log_enabled(mgpu_log_level level)
{
    if (log_level < 0) log_level = level_from_env();
    return (int)level <= log_level;
}

void mgpu_log(mgpu_log_level level, const char *fmt, ...)
{
    if (!mgpu_log_enabled(level)) return;
    static const char *const tags[] = {"error", "warning", "info", "debug"};
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "mgpulab: %s: ", tags[level]);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}
