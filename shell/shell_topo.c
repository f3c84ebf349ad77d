/* shell_topo.c - the machine for the topology pane at start-up. lab.h has no
 * topology query yet, so the shell asks `mgpulab topo --json` in a child
 * process (the coordinator must not open a CUDA context itself) on a thread
 * of its own, and the document reaches the panes as a "topo" result. */
#include "shell_topo.h"
#include "shell_strings.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char *read_all(int fd, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf) return NULL;
    for (;;) {
        if (n + 4096 > cap) {
            char *b = realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                return NULL;
            }
            buf = b;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        n += (size_t)r;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

/* The last non-empty line of a child's stderr: its error message. */
static void last_line(const char *s, char *out, size_t len)
{
    const char *end = s + strlen(s);
    while (end > s && (end[-1] == '\n' || end[-1] == ' ')) end--;
    const char *start = end;
    while (start > s && start[-1] != '\n') start--;
    snprintf(out, len, "%.*s", (int)(end - start), start);
}

static mgpu_result probe(const mgpu_shell_options *g, json_t **doc)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return mgpu_fail(MGPU_ERR_IO, "cannot find the mgpulab executable: %s", strerror(errno));
    exe[n] = 0;
    const char *argv[12];
    int k = 0;
    argv[k++] = exe;
    argv[k++] = "--backend";
    argv[k++] = mgpu_backend_kind_name(g->backend.kind);
    if (g->backend.machine) { argv[k++] = "--machine"; argv[k++] = g->backend.machine; }
    if (g->backend.fault) { argv[k++] = "--fault"; argv[k++] = g->backend.fault; }
    argv[k++] = "topo";
    argv[k++] = "--json";
    argv[k] = NULL;

    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) return mgpu_fail(MGPU_ERR_IO, "pipe: %s", strerror(errno));
    int err = memfd_create("mgpulab-topo-stderr", MFD_CLOEXEC);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    if (err >= 0) posix_spawn_file_actions_adddup2(&fa, err, 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int rc = posix_spawn(&pid, exe, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(out[1]);
    if (rc != 0) {
        close(out[0]);
        if (err >= 0) close(err);
        return mgpu_fail(MGPU_ERR_IO, "cannot start %s topo: %s", exe, strerror(rc));
    }
    size_t len = 0;
    char *text = read_all(out[0], &len);
    close(out[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    char msg[512] = "";
    if (err >= 0) {
        lseek(err, 0, SEEK_SET);
        size_t elen = 0;
        char *etext = read_all(err, &elen);
        if (etext) last_line(etext, msg, sizeof msg);
        free(etext);
        close(err);
    }
    if (!text) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory reading the topology");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        free(text);
        return mgpu_fail(MGPU_ERR_IO, "`mgpulab topo` failed: %s", *msg ? msg : "no message");
    }
    json_error_t je;
    *doc = json_loadb(text, len, 0, &je);
    free(text);
    if (!*doc) return mgpu_fail(MGPU_ERR_PARSE, "`mgpulab topo --json` printed bad JSON: %s", je.text);
    return MGPU_OK;
}

static void *topo_main(void *arg)
{
    shell_app *a = arg;
    json_t *doc = NULL;
    shell_event *done = evq_new(EV_TOPO_DONE);
    mgpu_result rc = probe(a->g, &doc);
    if (rc == MGPU_OK) {
        shell_event *ev = evq_new(EV_RESULT);
        if (ev) {
            ev->kind = strdup("topo");
            ev->doc = json_incref(doc);
            evq_push(a->q, ev);
        }
    }
    if (done) {
        done->rc = rc;
        if (rc != MGPU_OK) {
            done->text = strdup(mgpu_error_message());
        } else {
            /* the backend line comes from the machine that answered */
            const char *banner = json_string_value(json_object_get(doc, "banner"));
            char line[256];
            if (!banner) {
                json_t *gpus = json_object_get(doc, "gpus");
                size_t n = json_array_size(gpus);
                const char *name = json_string_value(json_object_get(json_array_get(gpus, 0), "name"));
                const char *be = json_string_value(json_object_get(doc, "backend"));
                snprintf(line, sizeof line, "%s: %zu GPU%s%s%s%s", be ? be : "cuda", n, n == 1 ? "" : "s",
                         name ? " (" : "", name ? name : "", name ? ")" : "");
                banner = line;
            }
            /* the banner stays short; why auto did not take cuda goes to
             * the log pane once, and the banner says where */
            const char *detail = json_string_value(json_object_get(doc, "backend_detail"));
            char with_hint[300];
            if (detail) {
                shell_event *ev = evq_new(EV_LOG);
                if (ev) {
                    ev->rank = -1;
                    size_t n = strlen(detail) + 64;
                    ev->text = malloc(n);
                    if (ev->text) snprintf(ev->text, n, "why not cuda: %s", detail);
                    evq_push(a->q, ev);
                }
                snprintf(with_hint, sizeof with_hint, "%s why: log 5", banner);
                banner = with_hint;
            }
            done->text = strdup(banner);
            done->simulated = json_is_true(json_object_get(doc, "simulated"));
        }
        evq_push(a->q, done);
    }
    json_decref(doc);
    return NULL;
}

void topo_probe_start(shell_app *a)
{
    if (a->topo_active) return;
    if (pthread_create(&a->topo_thread, NULL, topo_main, a) == 0) a->topo_active = 1;
    else status_set(a, tr("topology: cannot start a thread for the query"));
}

void topo_probe_join(shell_app *a)
{
    if (!a->topo_active) return;
    pthread_join(a->topo_thread, NULL);
    a->topo_active = 0;
}
