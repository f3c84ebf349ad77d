/* launch.c - the launchers: fork/exec one `mgpulab worker` per rank (local,
 * emulate) or one mpirun / srun that starts them; the workers' environment;
 * killing and reaping process groups. */
#include "rt/rt_internal.h"
#include "mgpu/cleanup.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

mgpu_result mgpu_launcher_parse(const char *name, mgpu_launcher *out)
{
    static const char *const names[] = {"local", "emulate", "mpirun", "srun"};
    for (int i = 0; i < 4; i++)
        if (name && strcmp(name, names[i]) == 0) {
            *out = (mgpu_launcher)i;
            return MGPU_OK;
        }
    return mgpu_fail(MGPU_ERR_INVALID, "'%s' is not a launcher; use local, emulate, mpirun or srun",
                     name ? name : "(null)");
}

/*--- Environment -------------------------------------------------------*/

typedef struct strvec {
    char **v;
    size_t n, cap;
} strvec;

static int sv_push(strvec *s, char *str)
{
    if (!str) return -1;
    if (s->n + 2 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        char **nv = realloc(s->v, cap * sizeof *nv);
        if (!nv) {
            free(str);
            return -1;
        }
        s->v = nv;
        s->cap = cap;
    }
    s->v[s->n++] = str;
    s->v[s->n] = NULL;
    return 0;
}

static int sv_pushf(strvec *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int sv_pushf(strvec *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *str = NULL;
    int k = vasprintf(&str, fmt, ap);
    va_end(ap);
    return k < 0 ? -1 : sv_push(s, str);
}

static void sv_free(strvec *s)
{
    for (size_t i = 0; i < s->n; i++) free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

/* Variables the runtime sets itself: inherited copies are dropped so a
 * stale MGPU_RANK can never outrank Open MPI's or Slurm's. */
static int owned_var(const char *kv, const rt_launch *L)
{
    static const char *const ours[] = {"MGPU_RANK=", "MGPU_SIZE=", "MGPU_LOCAL_RANK=", "MGPU_LOCAL_SIZE=",
                                       "MGPU_COORD=", "MGPU_TOKEN=", "NCCL_NVLS_ENABLE=", "MGPU_SIM_NVLS_ENABLE=", NULL};
    for (int i = 0; ours[i]; i++)
        if (strncmp(kv, ours[i], strlen(ours[i])) == 0) return 1;
    if (L->kind == MGPU_LAUNCH_EMULATE &&
        (strncmp(kv, "NCCL_HOSTID=", 12) == 0 || strncmp(kv, "NCCL_SOCKET_IFNAME=", 19) == 0))
        return 1;
    if (L->sim_gpus_per_host > 0 && strncmp(kv, "MGPU_SIM_HOST=", 14) == 0) return 1;
    for (int i = 0; L->extra_env && L->extra_env[i]; i++) {
        const char *eq = strchr(L->extra_env[i], '=');
        size_t n = eq ? (size_t)(eq - L->extra_env[i]) + 1 : strlen(L->extra_env[i]);
        if (strncmp(kv, L->extra_env[i], n) == 0) return 1;
    }
    return 0;
}

/* The environment of one worker (rank >= 0) or of mpirun/srun (rank -1). */
static mgpu_result build_env(const rt_launch *L, int rank, strvec *env)
{
    for (char **e = environ; e && *e; e++)
        if (!owned_var(*e, L) && sv_push(env, strdup(*e))) goto oom;
    if (sv_pushf(env, "MGPU_COORD=%s", L->coord) || sv_pushf(env, "MGPU_TOKEN=%s", L->token) ||
        sv_pushf(env, "NCCL_NVLS_ENABLE=0"))
        goto oom;
    for (int i = 0; L->extra_env && L->extra_env[i]; i++)
        if (sv_push(env, strdup(L->extra_env[i]))) goto oom;
    /* NCCL_NVLS_ENABLE is forced to 0 above (NVLink multicast stays off on
     * real GPUs) and getenv finds that first; the value asked for - the
     * call's, else ours - goes on for the sim's model of NVLS, which touches
     * no hardware (comm_sim_init.c). */
    const char *asked = getenv("NCCL_NVLS_ENABLE");
    for (int i = 0; L->extra_env && L->extra_env[i]; i++)
        if (strncmp(L->extra_env[i], "NCCL_NVLS_ENABLE=", 17) == 0) asked = L->extra_env[i] + 17;
    if (asked && sv_pushf(env, "MGPU_SIM_NVLS_ENABLE=%s", asked)) goto oom;
    if (rank >= 0) {
        int local = rank, lsize = L->size;
        if (L->sim_gpus_per_host > 0 && L->sim_hosts > 1) {
            int host = (rank / L->sim_gpus_per_host) % L->sim_hosts;
            local = rank % L->sim_gpus_per_host;
            lsize = L->size < L->sim_gpus_per_host ? L->size : L->sim_gpus_per_host;
            if (sv_pushf(env, "MGPU_SIM_HOST=%d", host)) goto oom;
        }
        if (sv_pushf(env, "MGPU_RANK=%d", rank) || sv_pushf(env, "MGPU_SIZE=%d", L->size) ||
            sv_pushf(env, "MGPU_LOCAL_RANK=%d", local) || sv_pushf(env, "MGPU_LOCAL_SIZE=%d", lsize))
            goto oom;
        /* Distinct host ids make NCCL treat each rank as its own node and
         * connect them over sockets on the loopback interface (docs/gpu-results.md). */
        if (L->kind == MGPU_LAUNCH_EMULATE &&
            (sv_pushf(env, "NCCL_HOSTID=mgpulab-emu-%d", rank) || sv_pushf(env, "NCCL_SOCKET_IFNAME=lo")))
            goto oom;
    } else if (L->kind == MGPU_LAUNCH_MPIRUN && geteuid() == 0) {
        if (sv_pushf(env, "OMPI_ALLOW_RUN_AS_ROOT=1") || sv_pushf(env, "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")) goto oom;
    }
    return MGPU_OK;
oom:
    return mgpu_fail(MGPU_ERR_NOMEM, "out of memory building the workers' environment");
}

/*--- Command lines -----------------------------------------------------*/

/* PATH lookup, so a missing mpirun/srun is a clear error, not exit 127. */
static int find_in_path(const char *prog, char *out, size_t len)
{
    if (strchr(prog, '/')) {
        snprintf(out, len, "%s", prog);
        return access(out, X_OK) == 0;
    }
    const char *path = getenv("PATH");
    if (!path) path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *colon = strchr(path, ':');
        size_t n = colon ? (size_t)(colon - path) : strlen(path);
        snprintf(out, len, "%.*s/%s", (int)n, path, prog);
        if (n && access(out, X_OK) == 0) return 1;
        path += n + (colon ? 1 : 0);
    }
    return 0;
}

/* Extra launcher arguments (hosts, partitions): MGPU_LAUNCHER_ARGS, split
 * at white space. */
static int push_launcher_args(strvec *argv)
{
    const char *extra = getenv("MGPU_LAUNCHER_ARGS");
    if (!extra) return 0;
    char *copy = strdup(extra), *save = NULL;
    if (!copy) return -1;
    for (char *t = strtok_r(copy, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save))
        if (sv_push(argv, strdup(t))) {
            free(copy);
            return -1;
        }
    free(copy);
    return 0;
}

static mgpu_result build_argv(const rt_launch *L, strvec *argv, char *prog, size_t plen)
{
    if (L->kind == MGPU_LAUNCH_LOCAL || L->kind == MGPU_LAUNCH_EMULATE) {
        snprintf(prog, plen, "%s", L->self_exe);
        if (sv_pushf(argv, "mgpulab") || sv_pushf(argv, "worker")) goto oom;
        return MGPU_OK;
    }
    const char *name = L->kind == MGPU_LAUNCH_MPIRUN ? "mpirun" : "srun";
    const char *override = getenv(L->kind == MGPU_LAUNCH_MPIRUN ? "MGPU_MPIRUN" : "MGPU_SRUN");
    const char *want = override && *override ? override : name;
    if (!find_in_path(want, prog, plen))
        return mgpu_fail(MGPU_ERR_UNSUPPORTED,
                         "--launcher %s: '%s' is not on PATH; install %s (Debian: apt-get install %s) or use "
                         "--launcher local",
                         name, want, L->kind == MGPU_LAUNCH_MPIRUN ? "Open MPI" : "Slurm",
                         L->kind == MGPU_LAUNCH_MPIRUN ? "openmpi-bin" : "slurm-client");
    if (sv_push(argv, strdup(prog))) goto oom;
    if (L->kind == MGPU_LAUNCH_MPIRUN) {
        /* Ranks are processes that talk to us, not MPI programs: no binding
         * (the worker picks its GPU), oversubscribe CPUs, export our vars. */
        if (sv_pushf(argv, "-np") || sv_pushf(argv, "%d", L->size) || sv_pushf(argv, "--oversubscribe") ||
            sv_pushf(argv, "--bind-to") || sv_pushf(argv, "none"))
            goto oom;
        if (geteuid() == 0 && sv_pushf(argv, "--allow-run-as-root")) goto oom;
        /* captured output: each line says which rank wrote it */
        if (L->capture && sv_pushf(argv, "--tag-output")) goto oom;
        static const char *const exported[] = {"MGPU_COORD", "MGPU_TOKEN", "NCCL_NVLS_ENABLE", NULL};
        for (int i = 0; exported[i]; i++)
            if (sv_pushf(argv, "-x") || sv_pushf(argv, "%s", exported[i])) goto oom;
        for (int i = 0; L->extra_env && L->extra_env[i]; i++) {
            const char *eq = strchr(L->extra_env[i], '=');
            int n = eq ? (int)(eq - L->extra_env[i]) : (int)strlen(L->extra_env[i]);
            if (sv_pushf(argv, "-x") || sv_pushf(argv, "%.*s", n, L->extra_env[i])) goto oom;
        }
    } else {
        /* srun exports the whole environment by default (--export=ALL). */
        if (sv_pushf(argv, "-n") || sv_pushf(argv, "%d", L->size) || sv_pushf(argv, "--kill-on-bad-exit=1"))
            goto oom;
        if (L->capture && sv_pushf(argv, "--label")) goto oom;
    }
    if (push_launcher_args(argv) || sv_pushf(argv, "%s", L->self_exe) || sv_pushf(argv, "worker")) goto oom;
    return MGPU_OK;
oom:
    return mgpu_fail(MGPU_ERR_NOMEM, "out of memory building the launcher's command line");
}

/*--- Processes ---------------------------------------------------------*/

static void close_pair(int fds[2])
{
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0) close(fds[i]);
    fds[0] = fds[1] = -1;
}

/* fork + exec with the child in its own process group, killed when the
 * coordinator dies, stdin from /dev/null (the shell owns the terminal),
 * stdout and stderr into pipes when captured.
 * A close-on-exec pipe carries exec's errno back, so a bad path is an error
 * here rather than a mysterious exit 127 later. */
static mgpu_result spawn(const char *prog, char **argv, char **envp, int capture, rt_proc *p)
{
    int errpipe[2], out[2] = {-1, -1}, err[2] = {-1, -1};
    p->out_fd = p->err_fd = -1;
    if (capture && (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)) {
        int e = errno;
        close_pair(out);
        close_pair(err);
        return mgpu_fail(MGPU_ERR_IO, "pipe failed: %s", strerror(e));
    }
    if (pipe2(errpipe, O_CLOEXEC) < 0) {
        int e = errno;
        close_pair(out);
        close_pair(err);
        return mgpu_fail(MGPU_ERR_IO, "pipe failed: %s", strerror(e));
    }
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(errpipe[0]);
        close(errpipe[1]);
        close_pair(out);
        close_pair(err);
        if (devnull >= 0) close(devnull);
        return mgpu_fail(MGPU_ERR_IO, "fork failed: %s", strerror(e));
    }
    if (pid == 0) {
        setpgid(0, 0);
        /* SIGTERM, not SIGKILL: the rank's cleanup handler (mgpu/cleanup.h)
         * removes the sim segment it may be making when its coordinator dies */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) _exit(127); /* the coordinator died before prctl */
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        signal(SIGCHLD, SIG_DFL);
        if (devnull >= 0) dup2(devnull, 0);
        /* dup2 clears close-on-exec on 1 and 2 only: other workers' pipe
         * ends never leak into this one (they would hold EOF back). */
        if (capture && (dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0)) _exit(127);
        execve(prog, argv, envp);
        int e = errno;
        ssize_t w = write(errpipe[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    setpgid(pid, pid); /* also here: whichever runs first, the group exists */
    close(errpipe[1]);
    if (capture) {
        close(out[1]);
        close(err[1]);
        fcntl(out[0], F_SETFL, O_NONBLOCK);
        fcntl(err[0], F_SETFL, O_NONBLOCK);
        p->out_fd = out[0];
        p->err_fd = err[0];
    }
    if (devnull >= 0) close(devnull);
    int e = 0;
    ssize_t k;
    do k = read(errpipe[0], &e, sizeof e);
    while (k < 0 && errno == EINTR);
    close(errpipe[0]);
    p->pid = pid;
    p->exited = 0;
    p->status = 0;
    p->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (k == (ssize_t)sizeof e) {
        rt_proc_reap(p, 1);
        if (p->pidfd >= 0) close(p->pidfd);
        p->pidfd = -1;
        int fds[2] = {p->out_fd, p->err_fd};
        close_pair(fds);
        p->out_fd = p->err_fd = -1;
        return mgpu_fail(MGPU_ERR_IO, "could not start %s: %s", prog, strerror(e));
    }
    return MGPU_OK;
}

void rt_proc_kill(rt_proc *p, int sig)
{
    if (p->pid <= 0 || p->exited) return;
    if (kill(-p->pid, sig) < 0) kill(p->pid, sig);
}

int rt_proc_stopped(const rt_proc *p)
{
    if (p->pid <= 0 || p->exited) return 0;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)p->pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* "PID (COMM) STATE ...": COMM may hold spaces and parentheses */
    const char *close = strrchr(buf, ')');
    return close && close[1] == ' ' && (close[2] == 'T' || close[2] == 't');
}

int rt_proc_reap(rt_proc *p, int block)
{
    if (p->pid <= 0 || p->exited) return 1;
    int st;
    pid_t r;
    do r = waitpid(p->pid, &st, block ? 0 : WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == p->pid || (r < 0 && errno == ECHILD)) {
        p->exited = 1;
        p->status = r == p->pid ? st : 0;
        /* A local rank killed (SIGKILL from kill_all, the OOM killer) after
         * it made a sim communicator's segment and before every rank had
         * opened it leaves the name in /dev/shm: it is ours to remove. */
        if (r == p->pid && p->rank >= 0) mgpu_cleanup_shm_of("mgpu-sim", (int)p->pid);
        return 1;
    }
    return 0;
}

void rt_procs_free(rt_proc *procs, int n)
{
    for (int i = 0; procs && i < n; i++) {
        if (procs[i].pidfd >= 0) close(procs[i].pidfd);
        int fds[2] = {procs[i].out_fd, procs[i].err_fd};
        close_pair(fds);
    }
    free(procs);
}

mgpu_result rt_launch_start(const rt_launch *L, rt_proc **procs_out, int *nprocs_out)
{
    int local = L->kind == MGPU_LAUNCH_LOCAL || L->kind == MGPU_LAUNCH_EMULATE;
    int n = local ? L->size : 1;
    rt_proc *procs = calloc((size_t)n, sizeof *procs);
    if (!procs) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory for %d processes", n);
    for (int i = 0; i < n; i++) procs[i].pidfd = procs[i].out_fd = procs[i].err_fd = -1;
    mgpu_result r = MGPU_OK;
    int started = 0;
    for (int i = 0; i < n && r == MGPU_OK; i++) {
        strvec env = {0}, argv = {0};
        char prog[4096];
        r = build_env(L, local ? i : -1, &env);
        if (r == MGPU_OK) r = build_argv(L, &argv, prog, sizeof prog);
        procs[i].rank = local ? i : -1;
        if (r == MGPU_OK) r = spawn(prog, argv.v, env.v, L->capture, &procs[i]);
        if (r == MGPU_OK) started++;
        sv_free(&env);
        sv_free(&argv);
    }
    if (r != MGPU_OK) {
        for (int i = 0; i < started; i++) {
            rt_proc_kill(&procs[i], SIGKILL);
            rt_proc_reap(&procs[i], 1);
        }
        rt_procs_free(procs, n);
        return r;
    }
    *procs_out = procs;
    *nprocs_out = n;
    return MGPU_OK;
}

void rt_describe_status(int status, char *buf, size_t len)
{
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        const char *abbrev = sigabbrev_np(sig);
        snprintf(buf, len, "was killed by signal %d (SIG%s)%s", sig, abbrev ? abbrev : "?",
                 WCOREDUMP(status) ? ", core dumped" : "");
    } else if (WIFEXITED(status)) {
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
    } else {
        snprintf(buf, len, "ended with wait status 0x%x", (unsigned)status);
    }
}
