/* tap.c - see tap.h. */
#include "tap.h"
#include <stdarg.h>

int tap_passed, tap_failed;

void tap_fail(const char *file, int line, const char *expr, const char *fmt, ...)
{
    tap_failed++;
    fprintf(stderr, "FAIL %s:%d: %s", file, line, expr);
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        fputs(" -- ", stderr);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
    }
    fputc('\n', stderr);
}

int tap_done(void)
{
    printf("%d passed, %d failed\n", tap_passed, tap_failed);
    return tap_failed ? 1 : 0;
}
