/* file.c - capped reads of regular files only, and atomic writes that never
 * replace anything but a regular file (see mgpu/file.h). */
#include "mgpu/file.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t m)
{
    if (S_ISLNK(m)) return "a symbolic link";
    if (S_ISDIR(m)) return "a directory";
    if (S_ISFIFO(m)) return "a FIFO (named pipe)";
    if (S_ISCHR(m) || S_ISBLK(m)) return "a device";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
}

static mgpu_result read_regular(const char *path, size_t cap, int nofollow, char **text, size_t *len)
{
    *text = NULL;
    if (len) *len = 0;
    /* O_NONBLOCK: opening a FIFO with no writer must not wait for one */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (nofollow ? O_NOFOLLOW : 0));
    if (fd < 0 && nofollow && errno == ELOOP)
        return mgpu_fail(MGPU_ERR_INVALID, "%s is a symbolic link; only a regular file is read", path);
    if (fd < 0) return mgpu_fail(MGPU_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return mgpu_fail(MGPU_ERR_IO, "cannot read %s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return mgpu_fail(MGPU_ERR_INVALID, "%s is %s; only a regular file is read", path, kind_of(st.st_mode));
    }
    if ((unsigned long long)st.st_size > cap) {
        close(fd);
        char limit[48];
        if (cap % (1u << 20) == 0) snprintf(limit, sizeof limit, "%zu MiB", cap >> 20);
        else snprintf(limit, sizeof limit, "%zu bytes", cap);
        return mgpu_fail(MGPU_ERR_INVALID, "%s is %lld bytes, over the limit of %s for this file", path,
                         (long long)st.st_size, limit);
    }
    char *buf = malloc(cap < (size_t)st.st_size + 1 ? cap + 1 : (size_t)st.st_size + 1);
    size_t room = buf ? (size_t)st.st_size : 0, n = 0;
    if (!buf) {
        close(fd);
        return mgpu_fail(MGPU_ERR_NOMEM, "out of memory reading %s", path);
    }
    /* read what fstat promised and no more: a file growing under us is cut at
     * the size seen, so the cap holds */
    while (n < room) {
        ssize_t r = read(fd, buf + n, room - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            free(buf);
            return mgpu_fail(MGPU_ERR_IO, "cannot read %s: %s", path, strerror(e));
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    *text = buf;
    if (len) *len = n;
    return MGPU_OK;
}

mgpu_result mgpu_file_read(const char *path, size_t cap, char **text, size_t *len)
{
    return read_regular(path, cap, 0, text, len);
}

mgpu_result mgpu_file_read_nofollow(const char *path, size_t cap, char **text, size_t *len)
{
    return read_regular(path, cap, 1, text, len);
}

int mgpu_file_relpath_inside(const char *rel)
{
    if (!rel || !*rel || rel[0] == '/') return 0;
    for (const char *s = rel; *s;) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.')) return 0;
        s += n + (e != NULL);
    }
    return 1;
}

mgpu_result mgpu_file_check_output(const char *path)
{
    if (!path || !*path) return mgpu_fail(MGPU_ERR_INVALID, "no file name to write");
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT) return MGPU_OK;
        return mgpu_fail(MGPU_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    }
    if (S_ISREG(st.st_mode)) return MGPU_OK;
    return mgpu_fail(MGPU_ERR_INVALID,
                     "refusing to write %s: it is %s, and only a regular file (or a new name) is replaced; "
                     "name another file",
                     path, kind_of(st.st_mode));
}

static mgpu_result write_all(int fd, const char *p, size_t n, const char *path)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return mgpu_fail(MGPU_ERR_IO, "cannot write %s: %s", path, w < 0 ? strerror(errno) : "no progress");
        p += w;
        n -= (size_t)w;
    }
    return MGPU_OK;
}

mgpu_result mgpu_file_begin_atomic(const char *path, char *tmp, size_t tmplen, int *fd)
{
    *fd = -1;
    MGPU_CHECK(mgpu_file_check_output(path));
    if (snprintf(tmp, tmplen, "%s.tmp-%ld", path, (long)getpid()) >= (int)tmplen)
        return mgpu_fail(MGPU_ERR_INVALID, "path too long: %s", path);
    unlink(tmp); /* a leftover of ours from a killed run; O_EXCL below then holds */
    *fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (*fd < 0) return mgpu_fail(MGPU_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
    return MGPU_OK;
}

mgpu_result mgpu_file_commit_atomic(const char *path, const char *tmp, int fd)
{
    mgpu_result r = MGPU_OK;
    if (fsync(fd) != 0) r = mgpu_fail(MGPU_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
    if (close(fd) != 0 && r == MGPU_OK) r = mgpu_fail(MGPU_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
    /* looked at again just before the rename: the target may have changed */
    if (r == MGPU_OK) r = mgpu_file_check_output(path);
    if (r == MGPU_OK && rename(tmp, path) != 0)
        r = mgpu_fail(MGPU_ERR_IO, "cannot move %s into place as %s: %s", tmp, path, strerror(errno));
    if (r != MGPU_OK) unlink(tmp);
    return r;
}

void mgpu_file_abort_atomic(const char *tmp, int fd)
{
    if (fd >= 0) close(fd);
    unlink(tmp);
}

mgpu_result mgpu_file_write_atomic(const char *path, const void *data, size_t n)
{
    char tmp[PATH_MAX + 48];
    int fd;
    MGPU_CHECK(mgpu_file_begin_atomic(path, tmp, sizeof tmp, &fd));
    mgpu_result r = write_all(fd, data, n, tmp);
    if (r != MGPU_OK) {
        mgpu_file_abort_atomic(tmp, fd);
        return r;
    }
    return mgpu_file_commit_atomic(path, tmp, fd);
}
