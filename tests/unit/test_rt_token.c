/* test_rt_token.c - over TCP, a connection without the run's token (or
 * with a wrong one, or with garbage) is refused and never takes a rank's
 * place; the real ranks still run. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include "rt/protocol.h"
#include "test_rt_common.h"

typedef struct probe {
    int port;
    int closed[4];    /* 1 when the coordinator closed that connection */
} probe;

static int connect_port(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* 1 when the peer closes within 3 s (reads return 0 or an error). */
static int closed_by_peer(int fd)
{
    char buf[256];
    for (int i = 0; i < 30; i++) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 100) > 0) {
            ssize_t k = recv(fd, buf, sizeof buf, 0);
            if (k <= 0) return 1;
            return 0; /* it answered: the connection was accepted */
        }
    }
    return 0;
}

static void *probe_main(void *arg)
{
    probe *p = arg;
    const char *hellos[] = {
        "{\"type\":\"hello\",\"rank\":0,\"size\":2,\"token\":\"00000000000000000000000000000000\"}",
        "{\"type\":\"hello\",\"rank\":1,\"size\":2}",
        "{\"type\":\"job\"}",
    };
    for (int i = 0; i < 3; i++) {
        int fd = connect_port(p->port);
        json_t *m = json_loads(hellos[i], 0, NULL);
        if (fd >= 0 && m) mgpu_proto_send(fd, m);
        json_decref(m);
        p->closed[i] = fd >= 0 && closed_by_peer(fd);
        if (fd >= 0) close(fd);
    }
    /* A frame that announces 4 GiB. */
    int fd = connect_port(p->port);
    if (fd >= 0) {
        unsigned char huge[8] = {0xff, 0xff, 0xff, 0xff, '{', '}', 0, 0};
        ssize_t k = send(fd, huge, 6, MSG_NOSIGNAL);
        p->closed[3] = k == 6 && closed_by_peer(fd);
        close(fd);
    }
    return NULL;
}

static pthread_t probe_thread;
static probe the_probe;

static void on_listen(rt_capture *cap)
{
    const char *colon = strrchr(cap->address, ':');
    CHECKF(strncmp(cap->address, "tcp:127.0.0.1:", 14) == 0, "address %s", cap->address);
    the_probe.port = colon ? atoi(colon + 1) : 0;
    pthread_create(&probe_thread, NULL, probe_main, &the_probe);
}

int main(void)
{
    setenv("MGPU_RT_TRANSPORT", "tcp", 1);
    setenv("MGPU_COORD_HOST", "127.0.0.1", 1);
    rt_capture cap = {.on_listen = on_listen};
    mgpu_rt_report rep;
    /* Both ranks stay up long enough for the probes to finish. */
    CHECK_OK(rt_run_selftest(MGPU_LAUNCH_LOCAL, 2, 10, "{\"action\": \"sleep\", \"rank\": -1, \"seconds\": 1.5}", &cap,
                             &rep));
    pthread_join(probe_thread, NULL);
    CHECKF(rep.ok, "reason: %s", rep.reason);
    CHECK(cap.dones == 2);
    CHECKF(cap.refused == 4, "%d connections refused, expected 4", cap.refused);
    for (int i = 0; i < 4; i++) CHECKF(the_probe.closed[i], "probe %d was not closed by the coordinator", i);
    CHECK(rt_leftovers() == 0);
    rt_capture_free(&cap);
    /* An unknown transport is a clear error. */
    setenv("MGPU_RT_TRANSPORT", "carrier-pigeon", 1);
    CHECK(rt_run_selftest(MGPU_LAUNCH_LOCAL, 2, 10, "{}", &cap, &rep) == MGPU_ERR_INVALID);
    CHECK(strstr(mgpu_error_message(), "carrier-pigeon") != NULL);
    unsetenv("MGPU_RT_TRANSPORT");
    return tap_done();
}
