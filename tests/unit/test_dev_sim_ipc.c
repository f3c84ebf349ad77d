/* test_dev_sim_ipc.c - the sim backend's CUDA IPC across real processes
 * (fork): a buffer exported in one process is opened in another and data
 * written on either side is seen on the other; a handle whose exporter
 * freed the buffer or exited is refused, and so is further use of an open
 * mapping after that; bad handle strings are refused; peer access as a
 * switch (mgpu_peer_access_enable/query). */
#include "dev/ipc_wire.h"
#include "mgpu/dev.h"
#include "tap.h"
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static mgpu_backend *open_sim(const char *machine, const char *fault)
{
    mgpu_backend_config cfg = {MGPU_BACKEND_SIM, machine, fault};
    mgpu_backend *be = NULL;
    if (mgpu_backend_open(&cfg, &be) != MGPU_OK) CHECKF(0, "open %s: %s", machine, mgpu_error_message());
    return be;
}

static int has(const char *needle)
{
    int ok = strstr(mgpu_error_message(), needle) != NULL;
    if (!ok) fprintf(stderr, "# message '%s' lacks '%s'\n", mgpu_error_message(), needle);
    return ok;
}

static uint64_t sum_of(mgpu_backend *be, int dev, mgpu_buffer *b, size_t n)
{
    mgpu_stream *s = NULL;
    uint64_t sum = 0;
    if (mgpu_stream_create(be, dev, 0, &s) != MGPU_OK || mgpu_checksum(s, b, 0, n, MGPU_F32, &sum) != MGPU_OK)
        sum = ~0ull;
    mgpu_stream_destroy(s);
    return sum;
}

static mgpu_result fill(mgpu_backend *be, int dev, mgpu_buffer *b, size_t n, mgpu_fill_kind k, double v)
{
    mgpu_stream *s = NULL;
    mgpu_fill_spec sp = {.kind = k, .seed = 3, .value = v};
    MGPU_CHECK(mgpu_stream_create(be, dev, 0, &s));
    mgpu_result r = mgpu_fill(s, b, 0, n, MGPU_F32, &sp);
    if (r == MGPU_OK) r = mgpu_stream_synchronize(s);
    mgpu_stream_destroy(s);
    return r;
}

/* One line through a pipe (handles, checksums, "go" signals). */
static void say(int fd, const char *s) { (void)!write(fd, s, strlen(s) + 1); }
static int hear(int fd, char *buf, size_t len)
{
    size_t n = 0;
    while (n < len) {
        if (read(fd, buf + n, 1) != 1) return 0;
        if (buf[n++] == '\0') return 1;
    }
    return 0;
}

/* The child's verdict: its own checks, as an exit status. */
static int child_exit(int before) { _exit(tap_failed > before ? 1 : 0); }

static void check_child(pid_t pid, const char *what)
{
    int st = 0;
    waitpid(pid, &st, 0);
    CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: the child process failed its checks", what);
}

/*--- Export in one process, open in another ------------------------------*/

static void test_share_both_ways(size_t n)
{
    mgpu_backend *be = open_sim("dgx-h100", NULL);
    if (!be) return;
    mgpu_buffer *b = NULL;
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 2, n * 4, &b));
    CHECK_OK(fill(be, 2, b, n, MGPU_FILL_RANDOM, 0));
    uint64_t before = sum_of(be, 2, b, n);
    void *ptr = b->ptr;
    mgpu_ipc_handle h;
    CHECK_OK(mgpu_ipc_export(b, &h));
    CHECK(b->ptr == ptr);                       /* the exporter's pointer stays valid */
    CHECK(sum_of(be, 2, b, n) == before);       /* and so does its data */
    char text[MGPU_IPC_HANDLE_STRLEN + 1];
    mgpu_ipc_handle_to_string(&h, text);
    CHECK(strlen(text) == MGPU_IPC_HANDLE_STRLEN && strncmp(text, "mgpu-ipc:", 9) == 0);
    size_t bytes = 0;
    const char *bk = NULL;
    CHECK_OK(mgpu_ipc_handle_info(&h, &bytes, &bk));
    CHECK(bytes == n * 4 && strcmp(bk, "sim") == 0);
    mgpu_ipc_handle again;
    CHECK_OK(mgpu_ipc_export(b, &again)); /* exporting twice gives the same handle, as in CUDA */
    CHECK(memcmp(&again, &h, sizeof h) == 0);
    /* the exporter cannot open its own handle */
    mgpu_buffer *self = NULL;
    CHECK(mgpu_ipc_open(be, 2, &h, &self) == MGPU_ERR_INVALID && has("its own IPC handle"));

    int to_child[2], to_parent[2];
    if (pipe(to_child) || pipe(to_parent)) {
        CHECK(0);
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        int f0 = tap_failed;
        mgpu_backend *cb = open_sim("dgx-h100", NULL);
        char msg[512];
        mgpu_ipc_handle ch;
        CHECK(hear(to_child[0], msg, sizeof msg));
        CHECK_OK(mgpu_ipc_handle_from_string(msg, &ch));
        mgpu_buffer *ob = NULL;
        CHECK_OK(mgpu_ipc_open(cb, 2, &ch, &ob));
        if (!ob) child_exit(-1);
        CHECK(ob->bytes == n * 4 && ob->device == 2 && ob->kind == MGPU_MEM_DEVICE);
        CHECK(sum_of(cb, 2, ob, n) == before); /* the exporter's data */
        mgpu_ptr_attr a;
        CHECK_OK(mgpu_pointer_attributes(cb, (char *)ob->ptr + 8, &a));
        CHECK(a.kind == MGPU_MEM_DEVICE && a.device == 2 && a.device_ptr && !a.host_ptr);
        /* exporting an opened buffer is refused, as CUDA does */
        mgpu_ipc_handle re;
        CHECK(mgpu_ipc_export(ob, &re) == MGPU_ERR_INVALID && has("itself opened"));
        CHECK_OK(fill(cb, 2, ob, n, MGPU_FILL_CONST, 7)); /* written here, seen there */
        uint64_t mine = sum_of(cb, 2, ob, n);
        /* opened on another GPU: lazy peer access lets kernels there touch it */
        mgpu_buffer *ob1 = NULL;
        CHECK_OK(mgpu_ipc_open(cb, 5, &ch, &ob1));
        if (ob1) {
            CHECK(ob1->device == 2);
            CHECK(sum_of(cb, 5, ob1, n) == mine);
            CHECK_OK(mgpu_ipc_close(ob1));
        }
        mgpu_buffer *own = NULL;
        CHECK_OK(mgpu_mem_alloc(cb, MGPU_MEM_DEVICE, 2, 64, &own));
        CHECK(mgpu_ipc_close(own) == MGPU_ERR_INVALID && has("not opened from an IPC handle"));
        mgpu_mem_free(own);
        snprintf(msg, sizeof msg, "%llu", (unsigned long long)mine);
        say(to_parent[1], msg);
        CHECK(hear(to_child[0], msg, sizeof msg)); /* "freed": the parent freed the buffer */
        CHECK(sum_of(cb, 2, ob, n) == ~0ull && has("freed the buffer"));
        CHECK(mgpu_ipc_close(ob) == MGPU_OK);
        mgpu_buffer *stale = NULL;
        CHECK(mgpu_ipc_open(cb, 2, &ch, &stale) == MGPU_ERR_INVALID && has("stale") && has("freed"));
        CHECK(stale == NULL);
        mgpu_backend_close(cb);
        child_exit(f0);
    }
    say(to_child[1], text);
    char msg[64];
    CHECK(hear(to_parent[0], msg, sizeof msg));
    uint64_t child_sum = strtoull(msg, NULL, 10);
    CHECK(sum_of(be, 2, b, n) == child_sum && child_sum != before); /* the child's writes */
    mgpu_mem_free(b);
    say(to_child[1], "freed");
    check_child(pid, "share both ways");
    close(to_child[0]), close(to_child[1]), close(to_parent[0]), close(to_parent[1]);
    mgpu_backend_close(be);
}

/* The exporter exits: a later open says so, and so does further use. */
static void test_exporter_exits(void)
{
    int hp[2], gop[2];
    if (pipe(hp) || pipe(gop)) {
        CHECK(0);
        return;
    }
    pid_t exp = fork();
    if (exp == 0) {
        mgpu_backend *be = open_sim("dgx-h100", NULL);
        mgpu_buffer *b = NULL;
        mgpu_ipc_handle h;
        char text[MGPU_IPC_HANDLE_STRLEN + 1], go[8];
        if (!be || mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 0, 4096, &b) != MGPU_OK || mgpu_ipc_export(b, &h) != MGPU_OK)
            _exit(1);
        mgpu_ipc_handle_to_string(&h, text);
        say(hp[1], text);
        hear(gop[0], go, sizeof go); /* exit without freeing, when told */
        _exit(0);
    }
    mgpu_backend *be = open_sim("dgx-h100", NULL);
    char text[MGPU_IPC_HANDLE_STRLEN + 1];
    CHECK(hear(hp[0], text, sizeof text));
    mgpu_ipc_handle h;
    CHECK_OK(mgpu_ipc_handle_from_string(text, &h));
    mgpu_buffer *ob = NULL;
    CHECK_OK(mgpu_ipc_open(be, 0, &h, &ob));
    CHECK(ob && sum_of(be, 0, ob, 1024) != ~0ull);
    say(gop[1], "go");
    check_child(exp, "exporter");
    CHECK(ob && sum_of(be, 0, ob, 1024) == ~0ull && has("has exited"));
    if (ob) CHECK_OK(mgpu_ipc_close(ob));
    mgpu_buffer *stale = NULL;
    CHECK(mgpu_ipc_open(be, 0, &h, &stale) == MGPU_ERR_INVALID && has("has exited"));
    close(hp[0]), close(hp[1]), close(gop[0]), close(gop[1]);
    mgpu_backend_close(be);
}

/*--- Bad handles and bad use ------------------------------------------------*/

static void test_bad_handles(void)
{
    mgpu_backend *be = open_sim("dgx-h100", NULL);
    if (!be) return;
    mgpu_ipc_handle h;
    CHECK(mgpu_ipc_handle_from_string("", &h) == MGPU_ERR_INVALID && has("not an IPC handle"));
    CHECK(mgpu_ipc_handle_from_string("hello", &h) == MGPU_ERR_INVALID && has("start with 'mgpu-ipc:'"));
    CHECK(mgpu_ipc_handle_from_string("mgpu-ipc:00ff", &h) == MGPU_ERR_INVALID && has("4 hex digits"));
    mgpu_buffer *b = NULL, *pin = NULL;
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 0, 1024, &b));
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_PINNED, -1, 1024, &pin));
    CHECK(mgpu_ipc_export(pin, &h) == MGPU_ERR_INVALID && has("only device memory"));
    CHECK_OK(mgpu_ipc_export(b, &h));
    char text[MGPU_IPC_HANDLE_STRLEN + 1];
    mgpu_ipc_handle_to_string(&h, text);
    mgpu_ipc_handle back;
    CHECK_OK(mgpu_ipc_handle_from_string(text, &back));
    CHECK(memcmp(&back, &h, sizeof h) == 0);
    char bad[sizeof text];
    memcpy(bad, text, sizeof text);
    bad[40] = bad[40] == '0' ? '1' : '0'; /* one digit changed */
    CHECK(mgpu_ipc_handle_from_string(bad, &back) == MGPU_ERR_INVALID && has("damaged"));
    memcpy(bad, text, sizeof text);
    bad[100] = 'g';
    CHECK(mgpu_ipc_handle_from_string(bad, &back) == MGPU_ERR_INVALID && has("non-hex character at position 100"));
    memcpy(bad, text, sizeof text);
    bad[sizeof text - 2] = '\0';
    CHECK(mgpu_ipc_handle_from_string(bad, &back) == MGPU_ERR_INVALID && has("cut or extended"));
    /* a cuda handle on the sim backend, and a handle from another process
     * on another simulated host: both refused with the reason */
    mgpu_ipc_wire w;
    memcpy(&w, h.bytes, sizeof w);
    w.backend = MGPU_IPC_BACKEND_CUDA;
    mgpu_ipc_wire_seal(&w);
    memcpy(back.bytes, &w, sizeof w);
    mgpu_buffer *o = NULL;
    CHECK(mgpu_ipc_open(be, 0, &back, &o) == MGPU_ERR_INVALID && has("exported by the cuda backend"));
    memcpy(&w, h.bytes, sizeof w);
    w.host = 1;
    mgpu_ipc_wire_seal(&w);
    w.pid = (int32_t)getppid(); /* pretend another process made it */
    w.check = 0;
    mgpu_ipc_wire_reseal(&w); /* keeps the fake pid: another process of this run */
    memcpy(back.bytes, &w, sizeof w);
    CHECK(mgpu_ipc_open(be, 0, &back, &o) == MGPU_ERR_INVALID && has("only between processes of one node"));
    CHECK(mgpu_ipc_open(be, 9, &h, &o) == MGPU_ERR_INVALID && has("device 9 does not exist"));
    mgpu_mem_free(pin);
    mgpu_mem_free(b);
    mgpu_backend_close(be);
}

/* Opening on a GPU that cannot reach the memory's GPU fails (lazy peer
 * access is impossible); the exporter side is a child here. */
static void test_open_without_p2p(void)
{
    int hp[2], gop[2];
    if (pipe(hp) || pipe(gop)) {
        CHECK(0);
        return;
    }
    pid_t exp = fork();
    if (exp == 0) {
        mgpu_backend *be = open_sim("pcie-4gpu", "p2p-disabled");
        mgpu_buffer *b = NULL;
        mgpu_ipc_handle h;
        char text[MGPU_IPC_HANDLE_STRLEN + 1], go[8];
        if (!be || mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 1, 4096, &b) != MGPU_OK || mgpu_ipc_export(b, &h) != MGPU_OK)
            _exit(1);
        mgpu_ipc_handle_to_string(&h, text);
        say(hp[1], text);
        hear(gop[0], go, sizeof go);
        mgpu_mem_free(b);
        mgpu_backend_close(be);
        _exit(0);
    }
    mgpu_backend *be = open_sim("pcie-4gpu", "p2p-disabled");
    char text[MGPU_IPC_HANDLE_STRLEN + 1];
    CHECK(hear(hp[0], text, sizeof text));
    mgpu_ipc_handle h;
    CHECK_OK(mgpu_ipc_handle_from_string(text, &h));
    mgpu_buffer *o = NULL;
    CHECK(mgpu_ipc_open(be, 0, &h, &o) == MGPU_ERR_PEER && has("cannot peer-access"));
    CHECK_OK(mgpu_ipc_open(be, 1, &h, &o)); /* on its own GPU it works */
    if (o) CHECK_OK(mgpu_ipc_close(o));
    say(gop[1], "go");
    check_child(exp, "exporter without p2p");
    close(hp[0]), close(hp[1]), close(gop[0]), close(gop[1]);
    mgpu_backend_close(be);
}

/*--- Peer access as a switch ----------------------------------------------*/

static void test_peer_switch(void)
{
    mgpu_backend *be = open_sim("dgx-h100", NULL);
    if (!be) return;
    int can = -1, on = -1;
    CHECK_OK(mgpu_peer_access_query(be, 0, 1, &can, &on));
    CHECK(can == 1 && on == 0);
    CHECK_OK(mgpu_peer_access_enable(be, 0, 1, 1));
    CHECK_OK(mgpu_peer_access_enable(be, 0, 1, 1)); /* already on: fine */
    CHECK_OK(mgpu_peer_access_query(be, 0, 1, &can, &on));
    CHECK(on == 1);
    CHECK_OK(mgpu_peer_access_query(be, 1, 0, &can, &on));
    CHECK(on == 0); /* one direction only */
    CHECK_OK(mgpu_peer_access_enable(be, 0, 1, 0));
    CHECK_OK(mgpu_peer_access_enable(be, 0, 1, 0)); /* already off: fine */
    CHECK_OK(mgpu_peer_access_query(be, 0, 1, &can, &on));
    CHECK(on == 0);
    CHECK(mgpu_peer_access_enable(be, 0, 0, 1) == MGPU_ERR_INVALID && has("its own peer"));
    CHECK(mgpu_peer_access_query(be, 0, 8, &can, &on) == MGPU_ERR_INVALID && has("does not exist"));
    mgpu_backend_close(be);
    be = open_sim("pcie-4gpu", "p2p-disabled");
    if (!be) return;
    CHECK_OK(mgpu_peer_access_query(be, 0, 1, &can, &on));
    CHECK(can == 0 && on == 0);
    CHECK(mgpu_peer_access_enable(be, 0, 1, 1) == MGPU_ERR_PEER && has("P2P is disabled"));
    CHECK_OK(mgpu_peer_access_enable(be, 0, 1, 0)); /* off is off */
    mgpu_backend_close(be);
}

int main(void)
{
    test_share_both_ways(1000);
    test_share_both_ways((size_t)3 << 20); /* 12 MiB: the huge-page-aligned path */
    test_exporter_exits();
    test_bad_handles();
    test_open_without_p2p();
    test_peer_switch();
    return tap_done();
}
