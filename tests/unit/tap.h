/* tap.h - a tiny test harness: CHECK records a failure with file:line and
 * goes on; tap_done() prints "N passed, N failed" and returns the exit code. */
#ifndef MGPU_TAP_H
#define MGPU_TAP_H
#include <stdio.h>

extern int tap_passed, tap_failed;
void tap_fail(const char *file, int line, const char *expr, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int tap_done(void);

#define CHECK(cond) \
    do { if (cond) tap_passed++; else tap_fail(__FILE__, __LINE__, #cond, NULL); } while (0)
#define CHECKF(cond, ...) \
    do { if (cond) tap_passed++; else tap_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); } while (0)
/* An engine call that must succeed; prints the engine's message if not. */
#define CHECK_OK(call) \
    do { mgpu_result r_ = (call); \
         if (r_ == MGPU_OK) tap_passed++; \
         else tap_fail(__FILE__, __LINE__, #call, "%s", mgpu_error_message()); } while (0)

#endif
