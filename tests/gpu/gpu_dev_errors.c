/* gpu_dev_errors.c - the cuda backend's failures: each bad request gives the
 * right result code and a message a user can act on, never a crash or hang. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "mgpu/clock.h"
#include "mgpu/dev.h"
#include "tap.h"

/* Expect `call` to fail with `code` and a message containing `needle`. */
#define EXPECT_FAIL(call, code, needle)                                                          \
    do {                                                                                         \
        mgpu_result r_ = (call);                                                                 \
        printf("# %-58s -> %s: %s\n", #call, mgpu_result_name(r_), r_ ? mgpu_error_message() : ""); \
        CHECKF(r_ == (code), "%s gave %s, wanted %s", #call, mgpu_result_name(r_),               \
               mgpu_result_name(code));                                                          \
        CHECKF(r_ == MGPU_OK || strstr(mgpu_error_message(), (needle)) != NULL,                  \
               "message lacks \"%s\": %s", (needle), mgpu_error_message());                     \
    } while (0)

static double now_s(void) { return mgpu_now_ns() / 1e9; }

/* A kernel that faults leaves a sticky error: the context is unusable for
 * the rest of the process. Run it in a child so this process stays clean
 * (forked before this process touches CUDA). Exit 0: reported correctly. */
static int sticky_child(void)
{
    alarm(60); /* a hang here is a failure, not a stuck test */
    mgpu_backend_config cfg = {MGPU_BACKEND_CUDA, NULL, NULL};
    mgpu_backend *be = NULL;
    mgpu_stream *s = NULL;
    mgpu_buffer *real = NULL;
    if (mgpu_backend_open(&cfg, &be) != MGPU_OK) return 2;
    if (mgpu_stream_create(be, 0, 0, &s) != MGPU_OK || mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 0, 1 << 20, &real) != MGPU_OK) {
        printf("# sticky child: set-up failed: %s\n", mgpu_error_message());
        return 1;
    }
    mgpu_buffer bogus = *real; /* same size and device, an address nobody mapped */
    bogus.ptr = (void *)(uintptr_t)0x100000;
    bogus.impl = NULL;
    mgpu_result r1 = mgpu_copy(s, real, 0, &bogus, 0, 1 << 20, MGPU_COPY_SM);
    mgpu_result r2 = r1 == MGPU_OK ? mgpu_stream_synchronize(s) : r1;
    printf("# sticky child: SM copy from an unmapped address -> %s: %s\n", mgpu_result_name(r2), mgpu_error_message());
    int ok = r2 == MGPU_ERR_CUDA && strstr(mgpu_error_message(), "sticky") != NULL;
    mgpu_result r3 = mgpu_device_synchronize(be, 0);
    printf("# sticky child: a later call -> %s: %s\n", mgpu_result_name(r3), mgpu_error_message());
    ok = ok && r3 == MGPU_ERR_CUDA;
    return ok ? 0 : 1;
}

static void test_sticky(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int code = sticky_child();
        fflush(stdout);
        _exit(code);
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 2) {
        printf("# sticky error: the child could not open the cuda backend\n");
        return;
    }
    CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "sticky-error child: %s %d",
           WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}

static void test_gate_timeout(mgpu_backend *be, mgpu_stream *s, mgpu_buffer *a, mgpu_buffer *b)
{
    mgpu_gate *g = NULL;
    double t0 = now_s();
    CHECK_OK(mgpu_gate_hold(s, 200, &g));
    CHECK_OK(mgpu_copy(s, b, 0, a, 0, a->bytes, MGPU_COPY_CE));
    CHECK_OK(mgpu_stream_synchronize(s)); /* never opened: the timeout releases it */
    double dt = now_s() - t0;
    printf("# gate held 200 ms and never opened: the stream completed after %.3f s\n", dt);
    CHECKF(dt > 0.15 && dt < 1.5, "stream behind a 200 ms gate took %.3f s", dt);
    if (g) EXPECT_FAIL(mgpu_gate_open(g), MGPU_ERR_TIMEOUT, "timed out");

    /* A gate opened in time: the stream is held, then runs promptly. */
    int done = 1;
    CHECK_OK(mgpu_gate_hold(s, 10000, &g));
    CHECK_OK(mgpu_copy(s, b, 0, a, 0, a->bytes, MGPU_COPY_SM));
    usleep(50000);
    CHECK_OK(mgpu_stream_query(s, &done));
    CHECKF(!done, "the stream behind a held gate finished before the gate opened");
    t0 = now_s();
    CHECK_OK(mgpu_gate_open(g));
    CHECK_OK(mgpu_stream_synchronize(s));
    dt = now_s() - t0;
    printf("# gate held 50 ms then opened: the stream completed %.3f ms after opening\n", dt * 1e3);
    CHECKF(dt < 1.0, "stream took %.3f s after the gate opened", dt);
    (void)be;
}

static void test_peer(mgpu_backend *be, int n, mgpu_stream *s0)
{
    if (n < 2) {
        EXPECT_FAIL(mgpu_peer_enable(be, 0, 1), MGPU_ERR_INVALID, "does not exist");
        EXPECT_FAIL(mgpu_peer_enable(be, 0, 0), MGPU_ERR_INVALID, "own peer");
        return;
    }
    int can = 0;
    CHECK_OK(mgpu_peer_can_access(be, 0, 1, &can));
    mgpu_buffer *b0 = NULL, *b1 = NULL;
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 0, 1 << 20, &b0));
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 1, 1 << 20, &b1));
    if (!b0 || !b1) return;
    EXPECT_FAIL(mgpu_copy(s0, b0, 0, b1, 0, 1 << 20, MGPU_COPY_SM), MGPU_ERR_PEER, "not enabled");
    if (!can) {
        EXPECT_FAIL(mgpu_peer_enable(be, 0, 1), MGPU_ERR_PEER, "cannot access");
    } else {
        CHECK_OK(mgpu_peer_enable(be, 0, 1));
        EXPECT_FAIL(mgpu_peer_enable(be, 0, 1), MGPU_ERR_PEER, "already enabled");
        CHECK_OK(mgpu_copy(s0, b0, 0, b1, 0, 1 << 20, MGPU_COPY_SM));
        CHECK_OK(mgpu_stream_synchronize(s0));
        CHECK_OK(mgpu_peer_disable(be, 0, 1));
        EXPECT_FAIL(mgpu_peer_disable(be, 0, 1), MGPU_ERR_PEER, "not enabled");
    }
    /* CE peer copies work without peer access (staged by the driver). */
    CHECK_OK(mgpu_copy(s0, b0, 0, b1, 0, 1 << 20, MGPU_COPY_CE));
    CHECK_OK(mgpu_stream_synchronize(s0));
    mgpu_event *e1 = NULL;
    CHECK_OK(mgpu_event_create(be, 1, 0, &e1));
    if (e1) EXPECT_FAIL(mgpu_event_record(e1, s0), MGPU_ERR_INVALID, "same device");
    mgpu_event_destroy(e1);
    mgpu_mem_free(b0);
    mgpu_mem_free(b1);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_sticky();

    mgpu_backend_config cfg = {MGPU_BACKEND_CUDA, NULL, NULL};
    mgpu_backend *be = NULL;
    mgpu_result r = mgpu_backend_open(&cfg, &be);
    if (r != MGPU_OK) {
        /* Without a GPU this checks the no-driver message, then fails: the
         * test exists to run on a GPU machine. */
        printf("# --backend cuda -> %s: %s\n", mgpu_result_name(r), mgpu_error_message());
        CHECKF(r == MGPU_ERR_NO_DEVICE, "wanted no-device, got %s", mgpu_result_name(r));
        CHECKF(strstr(mgpu_error_message(), "--backend sim") != NULL, "message does not offer --backend sim");
        mgpu_backend_config autocfg = {MGPU_BACKEND_AUTO, NULL, NULL};
        if (mgpu_backend_open(&autocfg, &be) == MGPU_OK) {
            printf("# --backend auto -> %s: %s\n", mgpu_backend_name(be), mgpu_backend_reason(be));
            CHECK(mgpu_backend_simulated(be));
            mgpu_backend_close(be);
        }
        CHECKF(0, "no GPU here: this test must run on a GPU machine");
        return tap_done();
    }
    int n = 0;
    mgpu_device_count(be, &n);
    printf("# cuda backend: %d GPU%s (%s)\n", n, n == 1 ? "" : "s", mgpu_backend_reason(be));

    mgpu_buffer *huge = NULL, *a = NULL, *b = NULL, *pg = NULL;
    /* PyTorch's sentence, sizes in GiB however large (torch's format_size) */
    EXPECT_FAIL(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 0, (size_t)100e12, &huge), MGPU_ERR_DEVICE_OOM,
                "out of memory on GPU 0. Tried to allocate 93132.26 GiB (100000000000000 bytes)");
    CHECKF(strstr(mgpu_error_message(), "GPU 0 has a total capacity of") != NULL &&
               strstr(mgpu_error_message(), " is free. Of the allocated memory ") != NULL,
           "OOM message lacks capacity and allocated sizes: %s", mgpu_error_message());
    EXPECT_FAIL(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 99, 1024, &huge), MGPU_ERR_INVALID, "does not exist");
    mgpu_stream *bad = NULL, *s = NULL;
    EXPECT_FAIL(mgpu_stream_create(be, -1, 0, &bad), MGPU_ERR_INVALID, "does not exist");
    mgpu_device_info di;
    EXPECT_FAIL(mgpu_device_info_get(be, n, &di), MGPU_ERR_INVALID, "does not exist");

    CHECK_OK(mgpu_stream_create(be, 0, 0, &s));
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 0, 8 << 20, &a));
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 0, 8 << 20, &b));
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_PAGEABLE, -1, 8 << 20, &pg));
    if (!s || !a || !b || !pg) {
        mgpu_backend_close(be);
        return tap_done();
    }
    EXPECT_FAIL(mgpu_copy(s, pg, 0, a, 0, 1024, MGPU_COPY_SM), MGPU_ERR_UNSUPPORTED, "pinned");
    EXPECT_FAIL(mgpu_copy(s, b, 0, a, 1, 8 << 20, MGPU_COPY_CE), MGPU_ERR_INVALID, "outside");
    double ns = 0;
    EXPECT_FAIL(mgpu_memory_latency(s, pg, 4096, 100, &ns), MGPU_ERR_UNSUPPORTED, "pinned");
    mgpu_fill_spec sp = {MGPU_FILL_RANDOM, 1, 0};
    EXPECT_FAIL(mgpu_fill(s, a, 2, 16, MGPU_F32, &sp), MGPU_ERR_INVALID, "aligned");

    mgpu_event *e0 = NULL, *e1 = NULL;
    CHECK_OK(mgpu_event_create(be, 0, 0, &e0));
    CHECK_OK(mgpu_event_create(be, 0, 0, &e1));
    if (e0 && e1) {
        CHECK_OK(mgpu_event_record(e0, s));
        CHECK_OK(mgpu_event_record(e1, s));
        double ms = 0;
        EXPECT_FAIL(mgpu_event_elapsed_ms(e0, e1, &ms), MGPU_ERR_INVALID, "timing");
    }
    mgpu_event_destroy(e0);
    mgpu_event_destroy(e1);
    EXPECT_FAIL(mgpu_event_create(be, 0, MGPU_EVENT_INTERPROCESS | MGPU_EVENT_TIMING, &e0), MGPU_ERR_INVALID,
                "interprocess");

    test_gate_timeout(be, s, a, b);
    test_peer(be, n, s);

    /* After all that, the backend still works. */
    uint64_t sum = 0;
    CHECK_OK(mgpu_fill(s, a, 0, 1024, MGPU_I32, &sp));
    CHECK_OK(mgpu_checksum(s, a, 0, 1024, MGPU_I32, &sum));
    mgpu_mem_free(a);
    mgpu_mem_free(b);
    mgpu_mem_free(pg);
    mgpu_stream_destroy(s);
    mgpu_backend_close(be);
    return tap_done();
}
