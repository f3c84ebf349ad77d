/* comm_fork.h - a fork-based harness for multi-rank tests: run a function in
 * N child processes, each with a working mgpu_bootstrap over a MAP_SHARED
 * anonymous mapping made before the fork, and collect their exit statuses
 * with a timeout. Use it by #including comm_fork.c in a test file (the test
 * CMake compiles each test_*.c with tap.c only). */
#ifndef MGPU_COMM_FORK_H
#define MGPU_COMM_FORK_H
#include "mgpu/comm.h"

#define COMM_FORK_MAX_RANKS 64
#define COMM_FORK_BLOB 4096          /* the largest allgather a rank may post */
#define COMM_FORK_TIMED_OUT (-1000)  /* exit code of a child killed at the deadline */

/* The child's body: return its exit status (0 = passed). `bs` is valid in
 * the child only. */
typedef int (*comm_fork_fn)(int rank, int size, const mgpu_bootstrap *bs, void *arg);

/* Fork `nranks` children running fn; wait up to timeout_s for all of them
 * (the rest are SIGKILLed). codes[r] (may be NULL) gets each exit status,
 * -signal for a child killed by a signal, COMM_FORK_TIMED_OUT at the
 * deadline. Returns how many children did not exit with 0; -1 if the
 * harness itself failed (fork, mmap). */
int comm_fork_run(int nranks, double timeout_s, comm_fork_fn fn, void *arg, int *codes);

#endif
