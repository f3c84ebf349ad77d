/* log.h - leveled logging to stderr. Level from MGPU_LOG (error, warn,
 * info, debug); default warn. */
#ifndef MGPU_LOG_H
#define MGPU_LOG_H
#ifdef __cplusplus
extern "C" {
#endif

typedef enum { MGPU_LOG_ERROR = 0, MGPU_LOG_WARN, MGPU_LOG_INFO, MGPU_LOG_DEBUG } mgpu_log_level;

void mgpu_log(mgpu_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int mgpu_log_enabled(mgpu_log_level level);

#define MGPU_WARN(...) mgpu_log(MGPU_LOG_WARN, __VA_ARGS__)
#define MGPU_INFO(...) mgpu_log(MGPU_LOG_INFO, __VA_ARGS__)
#define MGPU_DEBUG(...) mgpu_log(MGPU_LOG_DEBUG, __VA_ARGS__)

#ifdef __cplusplus
}
#endif
#endif
