/* cleanup.c - removing registered paths when a signal kills the process.
 * The handler may only call async-signal-safe functions: unlink and rmdir
 * on paths kept in a fixed table (no allocation, no locks), entries marked
 * with the pid that registered them so a forked child that inherits the
 * table and the handler never removes its parent's socket. */
#include "mgpu/cleanup.h"
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

enum { SLOTS = 32, PATH_MAX_LEN = 256 };

typedef struct slot {
    atomic_int owner; /* pid that registered the path; 0: free */
    int dir;
    char path[PATH_MAX_LEN];
} slot;

static slot table[SLOTS];
static const int signals[] = {SIGINT, SIGTERM, SIGHUP};

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

static void on_signal(int sig)
{
    int me = (int)getpid();
    /* files before directories: a socket's directory is empty only after */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < SLOTS; i++) {
            if (atomic_load(&table[i].owner) != me || table[i].dir != pass) continue;
            if (pass) rmdir(table[i].path);
            else unlink(table[i].path);
        }
    signal(sig, SIG_DFL);
    raise(sig); /* die of the signal, as without the handler (exit status, core rules) */
}

void mgpu_cleanup_install(void)
{
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
