/* env.h - reading the test hooks that shorten a wait (docs/spmd.md). */
#ifndef MGPU_ENV_H
#define MGPU_ENV_H
#ifdef __cplusplus
extern "C" {
#endif
/* Seconds from environment variable `name` when it holds a number in
 * (0, max]; 0 when it is unset, empty or anything else. */
double mgpu_env_seconds(const char *name, double max);
#ifdef __cplusplus
}
#endif
#endif
