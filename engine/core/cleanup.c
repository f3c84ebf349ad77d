/* cleanup.c - removing registered paths when a signal kills the process.
 * The handler may only call async-signal-safe functions: unlink and rmdir
 * on paths kept in a fixed table (no allocation, no locks), entries marked
 * with the pid that registered them so a forked child that inherits the
 * table and the handler never removes its parent's socket. */
#include "mgpu/cleanup.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { SLOTS = 32, PATH_MAX_LEN = 256 };

typedef struct slot {
    atomic_int owner; /* pid that registered the path; 0: free */
    int dir;
    char path[PATH_MAX_LEN];
} slot;

static slot table[SLOTS];
/* Every signal whose default action ends the process without a core dump
 * or with one (SIGQUIT left the shell's table and socket directory), except
 * those no handler can catch or that mean a bug (SIGSEGV and friends: the
 * process state is not to be trusted). */
static const int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2,
                              SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF};

int mgpu_cleanup_register(const char *path, int dir)
{
    if (!path || strlen(path) >= PATH_MAX_LEN) return -1;
    int me = (int)getpid();
    for (int i = 0; i < SLOTS; i++) {
        int expected = 0;
        /* claim with a placeholder so the handler skips a half-written path */
        if (!atomic_compare_exchange_strong(&table[i].owner, &expected, -1)) continue;
        memcpy(table[i].path, path, strlen(path) + 1);
        table[i].dir = dir;
        atomic_store(&table[i].owner, me);
        return i;
    }
    return -1;
}

void mgpu_cleanup_forget(int s)
{
    if (s < 0 || s >= SLOTS) return;
    atomic_store(&table[s].owner, 0);
}

static void remove_mine(void)
{
    int me = (int)getpid();
    /* files before directories: a socket's directory is empty only after */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < SLOTS; i++) {
            if (atomic_load(&table[i].owner) != me || table[i].dir != pass) continue;
            if (pass) rmdir(table[i].path);
            else unlink(table[i].path);
        }
}

void mgpu_cleanup_now(void) { remove_mine(); }

static void on_signal(int sig)
{
    remove_mine();
    signal(sig, SIG_DFL);
    raise(sig); /* die of the signal, as without the handler (exit status, core rules) */
}

void mgpu_cleanup_install(void)
{
    /* exit() on an error path that skipped a removal (a rank whose split
     * failed halfway left its sim segment) removes what is still ours */
    static atomic_int at_exit;
    if (atomic_exchange(&at_exit, 1) == 0) atexit(remove_mine);
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction old;
        if (sigaction(signals[i], NULL, &old) != 0) continue;
        if (old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)) continue; /* someone else's, or ignored */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        sigaction(signals[i], &sa, NULL);
    }
}

/*--- Names in /dev/shm -----------------------------------------------------------*/

int mgpu_shm_prefix(const char *kind, int pid, char *out, size_t len)
{
    /* MGPU_SHM_TAG: at most 16 letters and digits, else ignored */
    const char *tag = getenv("MGPU_SHM_TAG");
    size_t n = tag ? strlen(tag) : 0;
    for (size_t i = 0; i < n; i++)
        if (!((tag[i] >= 'a' && tag[i] <= 'z') || (tag[i] >= 'A' && tag[i] <= 'Z') || (tag[i] >= '0' && tag[i] <= '9')))
            n = 0;
    if (n > 16) n = 0;
    return snprintf(out, len, "/%s-%.*s%s%d-", kind, (int)n, n ? tag : "", n ? "-" : "", pid);
}

void mgpu_cleanup_shm_of(const char *kind, int pid)
{
    char prefix[64];
    int k = mgpu_shm_prefix(kind, pid, prefix, sizeof prefix);
    if (k <= 1 || (size_t)k >= sizeof prefix) return;
    DIR *d = opendir("/dev/shm");
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strncmp(e->d_name, prefix + 1, (size_t)k - 1) == 0) {
            char path[300];
            snprintf(path, sizeof path, "/dev/shm/%s", e->d_name);
            unlink(path);
        }
    closedir(d);
}

/* The creator's pid in "KIND-[TAG-]PID-RANDOM", or 0. */
static int creator_pid(const char *name, const char *kind)
{
    size_t kl = strlen(kind);
    if (strncmp(name, kind, kl) != 0 || name[kl] != '-') return 0;
    const char *last = strrchr(name, '-'); /* before RANDOM */
    if (!last || last <= name + kl) return 0;
    const char *p = last;
    while (p > name + kl + 1 && p[-1] >= '0' && p[-1] <= '9') p--;
    if (p == last || p[-1] != '-') return 0;
    return atoi(p);
}

void mgpu_cleanup_shm_stale(const char *kind)
{
    DIR *d = opendir("/dev/shm");
    if (!d) return;
    int dfd = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        int pid = creator_pid(e->d_name, kind);
        struct stat st;
        if (pid <= 0 || pid == (int)getpid() || kill(pid, 0) == 0 || errno != ESRCH) continue;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid != getuid() || !S_ISREG(st.st_mode))
            continue;
        unlinkat(dfd, e->d_name, 0);
    }
    closedir(d);
}
