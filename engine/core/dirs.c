/* dirs.c - where labs, checks and the learner's state live (mgpu/dirs.h). */
#include "mgpu/dirs.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static mgpu_result put(char *out, size_t len, const char *what, const char *path)
{
    if (snprintf(out, len, "%s", path) >= (int)len) return mgpu_fail(MGPU_ERR_INVALID, "%s path too long: %s", what, path);
    return MGPU_OK;
}

mgpu_result mgpu_lab_default_dirs(char *labs_dir, size_t labs_len, char *checks_dir, size_t checks_len)
{
    const char *el = getenv("MGPULAB_LABS"), *ec = getenv("MGPULAB_CHECKS");
    char exe[PATH_MAX], tried[2048] = "";
    size_t used = 0;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) *slash = '\0';
    /* $MGPULAB_LABS wins for labs; checks follow it (a labs dir beside its
     * own checks dir) unless $MGPULAB_CHECKS says otherwise. */
    char cand[3][2][PATH_MAX];
    int ncand = 0;
    if (el && *el) {
        snprintf(cand[ncand][0], PATH_MAX, "%s", el);
        if (ec && *ec) snprintf(cand[ncand][1], PATH_MAX, "%s", ec);
        else snprintf(cand[ncand][1], PATH_MAX, "%s/../checks", el);
        ncand++;
    } else if (exe[0]) {
        snprintf(cand[ncand][0], PATH_MAX, "%.*s/../labs", PATH_MAX - 16, exe);
        snprintf(cand[ncand][1], PATH_MAX, "%.*s/../checks", PATH_MAX - 16, exe);
        ncand++;
        snprintf(cand[ncand][0], PATH_MAX, "%.*s/../share/mgpulab/labs", PATH_MAX - 32, exe);
        snprintf(cand[ncand][1], PATH_MAX, "%.*s/../share/mgpulab/checks", PATH_MAX - 32, exe);
        ncand++;
    }
    for (int i = 0; i < ncand; i++) {
        if (is_dir(cand[i][0])) {
            char rl[PATH_MAX], rc[PATH_MAX];
            if (!realpath(cand[i][0], rl)) snprintf(rl, sizeof rl, "%s", cand[i][0]);
            if (ec && *ec && !is_dir(ec))
                return mgpu_fail(MGPU_ERR_INVALID, "MGPULAB_CHECKS=%s is not a directory", ec);
            if (!realpath(cand[i][1], rc)) snprintf(rc, sizeof rc, "%s", cand[i][1]); /* may be missing: no checks */
            MGPU_CHECK(put(labs_dir, labs_len, "labs", rl));
            MGPU_CHECK(put(checks_dir, checks_len, "checks", rc));
            return MGPU_OK;
        }
        used += (size_t)snprintf(tried + used, used < sizeof tried ? sizeof tried - used : 0, "%s%s",
                                 used ? ", " : "", cand[i][0]);
        if (used >= sizeof tried) used = sizeof tried - 1;
    }
    if (el && *el) return mgpu_fail(MGPU_ERR_INVALID, "MGPULAB_LABS=%s is not a directory", el);
    return mgpu_fail(MGPU_ERR_INVALID, "no labs directory found (looked at %s); set MGPULAB_LABS to the labs/ "
                                       "directory of the mgpulab sources", tried[0] ? tried : "nothing: no executable path");
}

/* mkdir -p with mode for the last component and 0700 for missing parents. */
static mgpu_result mkdirs(const char *path)
{
    char buf[PATH_MAX];
    MGPU_CHECK(put(buf, sizeof buf, "state", path));
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0700) != 0 && errno != EEXIST)
            return mgpu_fail(MGPU_ERR_IO, "cannot create %s: %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0700) != 0 && errno != EEXIST) return mgpu_fail(MGPU_ERR_IO, "cannot create %s: %s", buf, strerror(errno));
    if (!is_dir(buf)) return mgpu_fail(MGPU_ERR_IO, "%s exists and is not a directory", buf);
    return MGPU_OK;
}

mgpu_result mgpu_lab_state_dir(char *out, size_t len)
{
    const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    char base[PATH_MAX];
    /* XDG says a relative value is invalid and must be ignored */
    if (xdg && xdg[0] == '/') snprintf(base, sizeof base, "%s", xdg);
    else if (home && home[0] == '/') snprintf(base, sizeof base, "%s/.local/state", home);
    else return mgpu_fail(MGPU_ERR_INVALID, "neither XDG_STATE_HOME nor HOME is set to an absolute path; "
                                            "set XDG_STATE_HOME to where mgpulab may keep progress");
    char dir[PATH_MAX + 16];
    snprintf(dir, sizeof dir, "%s/mgpulab", base);
    MGPU_CHECK(mkdirs(dir));
    chmod(dir, 0700);
    return put(out, len, "state", dir);
}
