/* dirs.h - where labs, checks and the learner's state live (engine/core/dirs.c).
 * In core, below everything that needs it: the lab framework, the shell and
 * the commands, and the Lua sandbox's mgpu.import (labs/lib). */
#ifndef MGPU_DIRS_H
#define MGPU_DIRS_H
#include <stddef.h>
#include "mgpu/err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* labs/ and checks/ directories: $MGPULAB_LABS / $MGPULAB_CHECKS when set,
 * else beside the executable (<exe dir>/../labs, for a build tree inside the
 * repository), else <exe dir>/../share/mgpulab/labs. Fails with a message
 * naming every place looked at. */
mgpu_result mgpu_lab_default_dirs(char *labs_dir, size_t labs_len, char *checks_dir, size_t checks_len);

/* $XDG_STATE_HOME/mgpulab (default ~/.local/state/mgpulab), created 0700. */
mgpu_result mgpu_lab_state_dir(char *out, size_t len);

#ifdef __cplusplus
}
#endif
#endif
