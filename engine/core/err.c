/* err.c - the thread-local error message and breadcrumb trail (see err.h). */
#include "mgpu/err.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local mgpu_result current_code;
static _Thread_local char current_msg[1024];
static _Thread_local char current_trail[1024];

const char *mgpu_result_name(mgpu_result r)
{
    static const char *const names[] = {
        "ok", "invalid", "nomem", "device-oom", "unsupported", "no-device", "cuda",
        "nccl", "peer", "io", "parse", "timeout", "internal",
    };
    if ((unsigned)r < sizeof names / sizeof names[0]) return names[r];
    return "unknown";
}

mgpu_result mgpu_fail(mgpu_result r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(current_msg, sizeof current_msg, fmt, ap);
    va_end(ap);
    current_code = r;
    current_trail[0] = '\0';
    return r;
}

void mgpu_error_breadcrumb(const char *file, int line, const char *func)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    size_t used = strlen(current_trail);
    if (used + 2 >= sizeof current_trail) return;
    snprintf(current_trail + used, sizeof current_trail - used, "%s%s:%d %s", used ? " <- " : "",
             base, line, func);
}

const char *mgpu_error_message(void) { return current_msg; }
const char *mgpu_error_trail(void) { return current_trail; }
mgpu_result mgpu_error_code(void) { return current_code; }

void mgpu_error_clear(void)
{
    current_code = MGPU_OK;
    current_msg[0] = '\0';
    current_trail[0] = '\0';
}
