/* file.h - reading and writing files named by users or found in labs,
 * without the traps of plain fopen: a FIFO that blocks forever, /dev/zero
 * that never ends, a symbolic link or device node that an atomic rename
 * would replace (`--trace /dev/null` must not turn /dev/null into a file). */
#ifndef MGPU_FILE_H
#define MGPU_FILE_H
#include <stddef.h>
#include "mgpu/err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Read a whole regular file of at most `cap` bytes into a NUL-terminated
 * malloc'd buffer (*len = its length; len may be NULL). A FIFO, device,
 * directory or socket is refused without blocking (MGPU_ERR_INVALID); a
 * larger file is refused with its size and the cap (MGPU_ERR_INVALID);
 * a missing file is MGPU_ERR_IO with errno's words. */
mgpu_result mgpu_file_read(const char *path, size_t cap, char **text, size_t *len);

/* As mgpu_file_read, for a file found in a folder rather than named by the
 * user (a class's shared folder): a symbolic link is refused too, since it
 * could point anywhere and a parse error would show what it points at. */
mgpu_result mgpu_file_read_nofollow(const char *path, size_t cap, char **text, size_t *len);

/* Does `rel` stay inside the folder it is joined to? Yes for a relative
 * path without "..", "." or empty parts; no for NULL, "" or an absolute
 * one (a lab's file names, an export's exercise file). */
int mgpu_file_relpath_inside(const char *rel);

/* May `path` be written (replaced) as an output file? Yes when it does not
 * exist or is a regular file; a symbolic link, a device, a FIFO, a socket
 * or a directory is refused with a sentence naming what it is. */
mgpu_result mgpu_file_check_output(const char *path);

/* Write `n` bytes to `path` atomically after mgpu_file_check_output: a new
 * temporary file beside it (never following a link), fsync, rename. */
mgpu_result mgpu_file_write_atomic(const char *path, const void *data, size_t n);

/* The same atomic write for output made piece by piece (a trace streamed
 * as a run goes): mgpu_file_begin_atomic checks `path` as above and opens a
 * new temporary file beside it (its name into tmp, tmplen >= strlen(path)
 * + 32) for writing; mgpu_file_commit_atomic fsyncs and closes it and
 * renames it into place, mgpu_file_abort_atomic closes and removes it. */
mgpu_result mgpu_file_begin_atomic(const char *path, char *tmp, size_t tmplen, int *fd);
mgpu_result mgpu_file_commit_atomic(const char *path, const char *tmp, int fd);
void mgpu_file_abort_atomic(const char *tmp, int fd);

#ifdef __cplusplus
}
#endif
#endif
