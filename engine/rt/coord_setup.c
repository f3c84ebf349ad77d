/* coord_setup.c - what the coordinator prepares before it launches: the
 * per-run token, the listening socket (Unix in a private directory, or TCP),
 * and how many ranks a run gets when the caller did not say. No device
 * backend is opened here: a GPU count comes from the driver's /proc entries
 * and a sim machine from its topology model. */
#include "rt/coord_setup.h"
#include "mgpu/cleanup.h"
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "mgpu/topo.h"
#include "rt/protocol.h"

mgpu_result rt_make_token(char out[MGPU_PROTO_TOKEN_HEX + 1])
{
    unsigned char raw[MGPU_PROTO_TOKEN_HEX / 2];
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t k = getrandom(raw + got, sizeof raw - got, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return mgpu_fail(MGPU_ERR_IO, "getrandom failed making the run's token: %s", strerror(errno));
        got += (size_t)k;
    }
    for (size_t i = 0; i < sizeof raw; i++) snprintf(out + 2 * i, 3, "%02x", raw[i]);
    return MGPU_OK;
}

static mgpu_result listen_unix(rt_listener *l, int backlog)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp || strlen(tmp) > 60) tmp = "/tmp";
    snprintf(l->dir, sizeof l->dir, "%s/mgpulab-XXXXXX", tmp);
    if (!mkdtemp(l->dir)) { /* mkdtemp makes it 0700: only we can connect */
        l->dir[0] = '\0';
        return mgpu_fail(MGPU_ERR_IO, "could not make a private directory for the coordinator's socket in %s: %s", tmp,
                         strerror(errno));
    }
    l->cleanup_dir = mgpu_cleanup_register(l->dir, 1);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(l->path, sizeof l->path, "%s/coord.sock", l->dir);
    l->cleanup_path = mgpu_cleanup_register(l->path, 0);
    if (strlen(l->path) >= sizeof sa.sun_path)
        return mgpu_fail(MGPU_ERR_IO, "socket path %s is too long", l->path);
    memcpy(sa.sun_path, l->path, strlen(l->path) + 1);
    l->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (l->fd < 0) return mgpu_fail(MGPU_ERR_IO, "socket failed: %s", strerror(errno));
    if (bind(l->fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(l->fd, backlog) < 0)
        return mgpu_fail(MGPU_ERR_IO, "could not listen on %s: %s", l->path, strerror(errno));
    snprintf(l->address, sizeof l->address, "unix:%s", l->path);
    return MGPU_OK;
}

/* This host's first non-loopback IPv4 address, for workers on other hosts;
 * 127.0.0.1 when there is none. */
static void first_ipv4(char *buf, size_t len)
{
    snprintf(buf, len, "127.0.0.1");
    struct ifaddrs *ifs = NULL;
    if (getifaddrs(&ifs) < 0) return;
    for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || (i->ifa_flags & IFF_LOOPBACK) ||
            !(i->ifa_flags & IFF_UP))
            continue;
        inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, buf, (socklen_t)len);
        break;
    }
    freeifaddrs(ifs);
}

static mgpu_result listen_tcp(rt_listener *l, int backlog)
{
    const char *adv = getenv("MGPU_COORD_HOST");
    const char *port_env = getenv("MGPU_COORD_PORT");
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
    char host[256];
    if (adv && *adv) {
        snprintf(host, sizeof host, "%s", adv);
        struct in_addr a;
        /* A loopback address means a single-host run: listen only there. */
        if (inet_pton(AF_INET, adv, &a) == 1 && (ntohl(a.s_addr) >> 24) == 127) sa.sin_addr = a;
    } else {
        first_ipv4(host, sizeof host);
    }
    if (port_env && *port_env) {
        char *end = NULL;
        long p = strtol(port_env, &end, 10);
        if (*end || p < 0 || p > 65535)
            return mgpu_fail(MGPU_ERR_INVALID, "MGPU_COORD_PORT='%s' is not a port number (0..65535)", port_env);
        sa.sin_port = htons((uint16_t)p);
    }
    l->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (l->fd < 0) return mgpu_fail(MGPU_ERR_IO, "socket failed: %s", strerror(errno));
    int one = 1;
    setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(l->fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(l->fd, backlog) < 0)
        return mgpu_fail(MGPU_ERR_IO, "could not listen on TCP port %s: %s (set MGPU_COORD_PORT to a free port)",
                         port_env ? port_env : "(any)", strerror(errno));
    socklen_t sl = sizeof sa;
    getsockname(l->fd, (struct sockaddr *)&sa, &sl);
    l->port = ntohs(sa.sin_port);
    snprintf(l->address, sizeof l->address, "tcp:%s:%d", host, l->port);
    return MGPU_OK;
}

mgpu_result rt_listen(mgpu_launcher kind, int backlog, rt_listener *l)
{
    memset(l, 0, sizeof *l);
    l->fd = -1;
    l->cleanup_dir = l->cleanup_path = -1;
    const char *tr = getenv("MGPU_RT_TRANSPORT");
    int tcp = kind == MGPU_LAUNCH_MPIRUN || kind == MGPU_LAUNCH_SRUN;
    if (tr && *tr) {
        if (strcmp(tr, "tcp") == 0) tcp = 1;
        else if (strcmp(tr, "unix") == 0 && !tcp) tcp = 0;
        else if (strcmp(tr, "unix") == 0)
            return mgpu_fail(MGPU_ERR_INVALID, "MGPU_RT_TRANSPORT=unix cannot reach workers that mpirun/srun start");
        else return mgpu_fail(MGPU_ERR_INVALID, "MGPU_RT_TRANSPORT='%s': use tcp or unix", tr);
    }
    l->tcp = tcp;
    mgpu_result r = tcp ? listen_tcp(l, backlog) : listen_unix(l, backlog);
    if (r != MGPU_OK) rt_listener_close(l);
    return r;
}

void rt_listener_close(rt_listener *l)
{
    if (l->fd >= 0) close(l->fd);
    l->fd = -1;
    if (l->path[0]) unlink(l->path);
    if (l->dir[0]) rmdir(l->dir);
    l->path[0] = l->dir[0] = '\0';
    mgpu_cleanup_forget(l->cleanup_path);
    mgpu_cleanup_forget(l->cleanup_dir);
    l->cleanup_path = l->cleanup_dir = -1;
}

/*--- Default rank count ------------------------------------------------*/

mgpu_result mgpu_rt_sim_layout(const mgpu_backend_config *be, int *hosts, int *gpus_per_host, int *total)
{
    *hosts = *gpus_per_host = *total = 0;
    if (!mgpu_backend_config_is_sim(be)) return MGPU_OK;
    mgpu_topo *t = NULL;
    MGPU_CHECK(mgpu_topo_open_machine(be->machine ? be->machine : "dgx-h100", &t));
    *hosts = mgpu_topo_host_count(t);
    *total = mgpu_topo_gpu_count(t);
    *gpus_per_host = *hosts > 0 ? *total / *hosts : 0;
    mgpu_topo_free(t);
    return MGPU_OK;
}

mgpu_result mgpu_rt_check_sim_faults(const mgpu_backend_config *be, int nranks)
{
    if (!mgpu_backend_config_is_sim(be) || !be->fault || !*be->fault) return MGPU_OK;
    mgpu_topo *t = NULL;
    MGPU_CHECK(mgpu_topo_open_machine(be->machine ? be->machine : "dgx-h100", &t));
    mgpu_result r = mgpu_topo_check_faults(t, be->fault, nranks);
    mgpu_topo_free(t);
    return r;
}

int mgpu_rt_default_ranks(mgpu_launcher kind, int sim_total)
{
    if (kind == MGPU_LAUNCH_SRUN) {
        const char *nt = getenv("SLURM_NTASKS");
        int n = nt ? atoi(nt) : 0;
        if (n > 0) return n;
    }
    if (sim_total > 0) return sim_total;
    int n = mgpu_driver_gpu_count();
    return n > 0 ? n : 1;
}
