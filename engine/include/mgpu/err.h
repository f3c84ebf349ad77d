/* err.h - the one error convention of the engine.
 *
 * Every engine function that can fail returns an mgpu_result. The first
 * failure sets a thread-local message a user can act on (what failed, why,
 * what to do); each MGPU_CHECK the result passes through on its way up adds a
 * breadcrumb ("file:line function"), as NCCL's CHECK macros do, so a bug
 * report carries the path without a debugger. */
#ifndef MGPU_ERR_H
#define MGPU_ERR_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mgpu_result {
    MGPU_OK = 0,
    MGPU_ERR_INVALID,      /* bad argument or value from the user */
    MGPU_ERR_NOMEM,        /* host allocation failed */
    MGPU_ERR_DEVICE_OOM,   /* device memory exhausted */
    MGPU_ERR_UNSUPPORTED,  /* this backend / machine / build cannot do it */
    MGPU_ERR_NO_DEVICE,    /* no driver or no GPU */
    MGPU_ERR_CUDA,         /* CUDA runtime error */
    MGPU_ERR_NCCL,         /* NCCL error */
    MGPU_ERR_PEER,         /* peer access missing or refused */
    MGPU_ERR_IO,           /* file or socket I/O */
    MGPU_ERR_PARSE,        /* malformed input file */
    MGPU_ERR_TIMEOUT,      /* an operation did not finish in time */
    MGPU_ERR_INTERNAL      /* a bug in mgpulab */
} mgpu_result;

/* Short stable name of a result code ("invalid", "device-oom", ...). */
const char *mgpu_result_name(mgpu_result r);

/* Record a failure: sets the thread's message (replacing any earlier one)
 * and returns r so callers can write `return mgpu_fail(...)`. */
mgpu_result mgpu_fail(mgpu_result r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Append a breadcrumb to the current message (used by MGPU_CHECK). */
void mgpu_error_breadcrumb(const char *file, int line, const char *func);

/* The current message, "" when none. Valid until the next mgpu_fail. */
const char *mgpu_error_message(void);
/* The breadcrumb trail, innermost first, "" when none. */
const char *mgpu_error_trail(void);
mgpu_result mgpu_error_code(void);
void mgpu_error_clear(void);

#define MGPU_CHECK(call)                                                   \
    do {                                                                   \
        mgpu_result mgpu_r_ = (call);                                      \
        if (mgpu_r_ != MGPU_OK) {                                          \
            mgpu_error_breadcrumb(__FILE__, __LINE__, __func__);           \
            return mgpu_r_;                                                \
        }                                                                  \
    } while (0)

#define MGPU_CHECKGOTO(call, res, label)                                   \
    do {                                                                   \
        (res) = (call);                                                    \
        if ((res) != MGPU_OK) {                                            \
            mgpu_error_breadcrumb(__FILE__, __LINE__, __func__);           \
            goto label;                                                    \
        }                                                                  \
    } while (0)

#ifdef __cplusplus
}
#endif
#endif
