/* gpu_ipc.c - CUDA IPC and peer access on the cuda backend, across two real
 * processes: a buffer exported in one is opened in the other, data written
 * on either side is seen on the other, pointer attributes of the opened
 * memory name its GPU; the exporter cannot open its own handle; handles
 * survive their text form. What CUDA does with a stale handle (exporter
 * freed the buffer) and with a mapping used after the exporter freed it is
 * printed ("# CUDA says: ..."), not asserted: that is CUDA's to decide, and
 * the lab shows it. Peer access as a switch: enable/disable twice each on
 * two GPUs, and a clear "does not exist" answer on a one-GPU machine.
 *
 * The processes fork before either touches CUDA (a CUDA context does not
 * survive fork). Run: build-cuda/tests/gpu_ipc (or bash tests/gpu/run). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "mgpu/dev.h"
#include "tap.h"

#define N (1u << 20) /* floats */

static void say(int fd, const char *s) { (void)!write(fd, s, strlen(s) + 1); }
static int hear(int fd, char *buf, size_t len)
{
    for (size_t n = 0; n < len; n++) {
        if (read(fd, buf + n, 1) != 1) return 0;
        if (buf[n] == '\0') return 1;
    }
    return 0;
}

static mgpu_backend *open_cuda(const char *who)
{
    mgpu_backend_config cfg = {MGPU_BACKEND_CUDA, NULL, NULL};
    mgpu_backend *be = NULL;
    if (mgpu_backend_open(&cfg, &be) != MGPU_OK) {
        printf("# %s: cannot open the cuda backend: %s\n", who, mgpu_error_message());
        CHECKF(0, "%s: cuda backend: %s", who, mgpu_error_message());
        return NULL;
    }
    return be;
}

static uint64_t sum_of(mgpu_backend *be, int dev, mgpu_buffer *b)
{
    mgpu_stream *s = NULL;
    uint64_t sum = 0;
    if (mgpu_stream_create(be, dev, 0, &s) != MGPU_OK || mgpu_checksum(s, b, 0, N, MGPU_F32, &sum) != MGPU_OK) {
        printf("# checksum on device %d: %s\n", dev, mgpu_error_message());
        sum = ~0ull;
    }
    mgpu_stream_destroy(s);
    return sum;
}

static mgpu_result fill(mgpu_backend *be, int dev, mgpu_buffer *b, mgpu_fill_kind k, uint64_t seed, double v)
{
    mgpu_stream *s = NULL;
    mgpu_fill_spec sp = {.kind = k, .seed = seed, .value = v};
    MGPU_CHECK(mgpu_stream_create(be, dev, 0, &s));
    mgpu_result r = mgpu_fill(s, b, 0, N, MGPU_F32, &sp);
    if (r == MGPU_OK) r = mgpu_stream_synchronize(s);
    mgpu_stream_destroy(s);
    return r;
}

/*--- The importer (child) -------------------------------------------------*/

static int importer(int in, int out)
{
    mgpu_backend *be = open_cuda("importer");
    if (!be) return 1;
    int ngpu = 0;
    mgpu_device_count(be, &ngpu);
    char text[512], msg[64];
    mgpu_ipc_handle h;
    CHECK(hear(in, text, sizeof text));
    CHECK(hear(in, msg, sizeof msg));
    uint64_t want = strtoull(msg, NULL, 10);
    CHECK_OK(mgpu_ipc_handle_from_string(text, &h));
    mgpu_buffer *b = NULL;
    CHECK_OK(mgpu_ipc_open(be, 0, &h, &b));
    if (!b) return 1;
    CHECK(b->device == 0 && b->bytes == N * 4);
    CHECK(sum_of(be, 0, b) == want);
    mgpu_ptr_attr a;
    CHECK_OK(mgpu_pointer_attributes(be, (char *)b->ptr + 64, &a));
    CHECKF(a.kind == MGPU_MEM_DEVICE && a.device == 0 && a.device_ptr, "kind %d device %d", (int)a.kind, a.device);
    mgpu_ipc_handle re;
    CHECK(mgpu_ipc_export(b, &re) == MGPU_ERR_INVALID);
    if (ngpu >= 2) { /* opened on GPU 1: lazy peer access maps it there */
        mgpu_buffer *b1 = NULL;
        mgpu_result r = mgpu_ipc_open(be, 1, &h, &b1);
        int can = 0;
        mgpu_peer_can_access(be, 1, 0, &can);
        if (can) {
            CHECKF(r == MGPU_OK, "open on GPU 1: %s", mgpu_error_message());
            if (b1) CHECK(sum_of(be, 1, b1) == want);
        } else {
            printf("# GPU 1 cannot reach GPU 0; open on GPU 1: %s\n", r == MGPU_OK ? "succeeded" : mgpu_error_message());
        }
        if (b1) CHECK_OK(mgpu_ipc_close(b1));
    }
    CHECK_OK(fill(be, 0, b, MGPU_FILL_CONST, 0, 3.0));
    snprintf(msg, sizeof msg, "%llu", (unsigned long long)sum_of(be, 0, b));
    CHECK_OK(mgpu_ipc_close(b));
    say(out, msg);

    /* the exporter freed the first buffer: a stale handle */
    CHECK(hear(in, msg, sizeof msg));
    mgpu_buffer *st = NULL;
    mgpu_result r = mgpu_ipc_open(be, 0, &h, &st);
    if (r != MGPU_OK) printf("# CUDA says, opening a handle whose buffer was freed: %s\n", mgpu_error_message());
    else {
        uint64_t s = sum_of(be, 0, st);
        printf("# CUDA opened a handle whose buffer was freed; checksum %s the old data\n",
               s == want ? "still equals" : "differs from");
        mgpu_ipc_close(st);
    }

    /* a mapping used after the exporter freed (and reallocated) the memory */
    CHECK(hear(in, text, sizeof text));
    mgpu_ipc_handle h2;
    CHECK_OK(mgpu_ipc_handle_from_string(text, &h2));
    mgpu_buffer *z = NULL;
    CHECK_OK(mgpu_ipc_open(be, 0, &h2, &z));
    uint64_t before = z ? sum_of(be, 0, z) : 0;
    say(out, "opened");
    CHECK(hear(in, msg, sizeof msg)); /* freed and reallocated over there */
    uint64_t foreign = strtoull(msg, NULL, 10);
    if (z) {
        uint64_t after = sum_of(be, 0, z);
        printf("# CUDA says, reading a mapping after the exporter freed and reallocated it: %s (%s)\n",
               after == ~0ull ? "an error" : after == before ? "the old data" :
               after == foreign ? "the exporter's NEW tensor (foreign data)" : "other data",
               after == ~0ull ? mgpu_error_message() : "no error");
        mgpu_ipc_close(z);
    }
    say(out, "done");
    mgpu_backend_close(be);
    return 0;
}

/*--- The exporter (parent) ------------------------------------------------*/

static void peer_switch(mgpu_backend *be, int ngpu)
{
    int can = -1, on = -1;
    if (ngpu < 2) {
        CHECK(mgpu_peer_access_enable(be, 0, 1, 1) == MGPU_ERR_INVALID);
        printf("# one GPU: peer_access_enable(0, 1) says: %s\n", mgpu_error_message());
        CHECK(strstr(mgpu_error_message(), "device 1 does not exist") != NULL);
        CHECK(mgpu_peer_access_query(be, 0, 1, &can, &on) == MGPU_ERR_INVALID);
        return;
    }
    CHECK_OK(mgpu_peer_access_query(be, 0, 1, &can, &on));
    printf("# peer access 0->1: can %d, enabled %d\n", can, on);
    if (!can) {
        CHECK(mgpu_peer_access_enable(be, 0, 1, 1) == MGPU_ERR_PEER);
        return;
    }
    for (int i = 0; i < 2; i++) CHECK_OK(mgpu_peer_access_enable(be, 0, 1, 1));
    CHECK_OK(mgpu_peer_access_query(be, 0, 1, &can, &on));
    CHECK(on == 1);
    for (int i = 0; i < 2; i++) CHECK_OK(mgpu_peer_access_enable(be, 0, 1, 0));
    CHECK_OK(mgpu_peer_access_query(be, 0, 1, &can, &on));
    CHECK(on == 0);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGPIPE, SIG_IGN); /* a child that failed early must not kill us mid-write */
    int down[2], up[2];
    if (pipe(down) || pipe(up)) return 1;
    pid_t pid = fork(); /* before any CUDA call */
    if (pid == 0) {
        close(down[1]), close(up[0]);
        int r = importer(down[0], up[1]);
        _exit(r || tap_failed ? 1 : 0);
    }
    close(down[0]), close(up[1]);
    mgpu_backend *be = open_cuda("exporter");
    if (!be) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return tap_done();
    }
    int ngpu = 0;
    mgpu_device_count(be, &ngpu);
    mgpu_buffer *b = NULL, *z = NULL, *z2 = NULL;
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 0, N * 4, &b));
    CHECK_OK(fill(be, 0, b, MGPU_FILL_RANDOM, 42, 0));
    uint64_t sum = sum_of(be, 0, b);
    mgpu_ipc_handle h, back;
    CHECK_OK(mgpu_ipc_export(b, &h));
    char text[MGPU_IPC_HANDLE_STRLEN + 1], msg[64];
    mgpu_ipc_handle_to_string(&h, text);
    CHECK_OK(mgpu_ipc_handle_from_string(text, &back));
    CHECK(memcmp(&back, &h, sizeof h) == 0);
    mgpu_buffer *self = NULL;
    CHECK(mgpu_ipc_open(be, 0, &h, &self) == MGPU_ERR_INVALID); /* own handle */
    say(down[1], text);
    snprintf(msg, sizeof msg, "%llu", (unsigned long long)sum);
    say(down[1], msg);
    CHECK(hear(up[0], msg, sizeof msg));
    CHECK(sum_of(be, 0, b) == strtoull(msg, NULL, 10) && strtoull(msg, NULL, 10) != sum); /* the child's write */
    mgpu_mem_free(b);
    say(down[1], "freed");

    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 0, N * 4, &z));
    CHECK_OK(fill(be, 0, z, MGPU_FILL_CONST, 0, 1.0));
    CHECK_OK(mgpu_ipc_export(z, &h));
    mgpu_ipc_handle_to_string(&h, text);
    say(down[1], text);
    CHECK(hear(up[0], msg, sizeof msg));
    mgpu_mem_free(z);
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 0, N * 4, &z2)); /* likely the same memory */
    CHECK_OK(fill(be, 0, z2, MGPU_FILL_RANDOM, 7, 0));
    snprintf(msg, sizeof msg, "%llu", (unsigned long long)sum_of(be, 0, z2));
    say(down[1], msg);
    CHECK(hear(up[0], msg, sizeof msg));
    mgpu_mem_free(z2);

    peer_switch(be, ngpu);
    int st = 0;
    waitpid(pid, &st, 0);
    CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the importing process failed its checks (see its output)");
    mgpu_backend_close(be);
    return tap_done();
}
