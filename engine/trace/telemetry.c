/* telemetry.c - the bandwidth pane's sampler (mgpu/telemetry.h): picks the
 * source for the backend config without opening it (the coordinator never
 * creates a CUDA context), owns the sim's shared-memory table and reads it,
 * or hands over to NVML (telemetry_nvml.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>
#include "mgpu/cleanup.h"
#include "mgpu/clock.h"
#include "mgpu/collmodel.h"
#include "mgpu/dev.h"
#include "mgpu/topo.h"
#include "trace/telemetry_internal.h"
#include "trace/telemetry_shm.h"

typedef enum { SRC_NONE = 0, SRC_SIM, SRC_NVML } tel_src;

struct mgpu_telemetry {
    tel_src src;
    char source[512];
    int ngpus;
    /* sim */
    tel_table *table;
    size_t table_bytes;
    char shm_name[64];
    int cleanup;          /* mgpu_cleanup slot of /dev/shm/<shm_name> */
    char env[96];
    char (*busid)[20];
    int *nic;             /* per GPU: its host's NIC it reaches other nodes through, -1 on one node */
    /* cuda */
    tel_nvml *nvml;
};

/* The NIC (numbered within its host, as NCCL's NET/IB/n) GPU g's traffic to
 * another node leaves through, as the collective model connects them; -1
 * on a machine of one node or a host without NICs. */
static int nic_of(const mgpu_topo *topo, int g)
{
    const mgpu_topo_gpu *me = mgpu_topo_gpu_at(topo, g);
    for (int b = 0; me && b < mgpu_topo_gpu_count(topo); b++) {
        if (mgpu_topo_gpu_at(topo, b)->host == me->host) continue;
        mgpu_coll_link l;
        mgpu_coll_link_between(topo, g, b, NULL, &l);
        if (l.nic < 0) return -1;
        int local = 0;
        for (int i = 0; i < l.nic; i++) local += mgpu_topo_nic_at(topo, i)->host == me->host;
        return local;
    }
    return -1;
}

static mgpu_result open_sim(const mgpu_backend_config *cfg, mgpu_telemetry *t)
{
    mgpu_topo *topo = NULL;
    MGPU_CHECK(mgpu_topo_open_machine(cfg->machine ? cfg->machine : "dgx-h100", &topo));
    int n = mgpu_topo_gpu_count(topo);
    if (n < 1 || n > TEL_MAX_GPUS) {
        mgpu_topo_free(topo);
        return mgpu_fail(MGPU_ERR_UNSUPPORTED, "telemetry: the machine has %d GPUs (1..%d supported)", n, TEL_MAX_GPUS);
    }
    snprintf(t->source, sizeof t->source, "modelled (SIMULATED %s)", mgpu_topo_machine_name(topo));
    t->busid = calloc((size_t)n, sizeof *t->busid);
    t->nic = calloc((size_t)n, sizeof *t->nic);
    for (int i = 0; t->busid && t->nic && i < n; i++) {
        snprintf(t->busid[i], sizeof t->busid[i], "%s", mgpu_topo_gpu_at(topo, i)->busid);
        t->nic[i] = nic_of(topo, i);
    }
    mgpu_topo_free(topo);
    if (!t->busid || !t->nic) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory for the telemetry table");
    unsigned char rnd[12];
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
        return mgpu_fail(MGPU_ERR_IO, "telemetry: getrandom failed");
    mgpu_cleanup_shm_stale("mgpulab-tel"); /* shells killed with SIGKILL */
    int k = mgpu_shm_prefix("mgpulab-tel", (int)getpid(), t->shm_name, sizeof t->shm_name);
    for (size_t i = 0; i < sizeof rnd; i++) k += snprintf(t->shm_name + k, sizeof t->shm_name - (size_t)k, "%02x", rnd[i]);
    char shm_path[96]; /* where glibc's shm_open keeps it: the signal handler may only unlink */
    snprintf(shm_path, sizeof shm_path, "/dev/shm%s", t->shm_name);
    /* registered before it exists: a signal between the two would leave it */
    t->cleanup = mgpu_cleanup_register(shm_path, 0);
    int fd = shm_open(t->shm_name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        int e = errno;
        t->shm_name[0] = '\0'; /* not ours: close must not unlink it */
        return mgpu_fail(MGPU_ERR_IO, "telemetry: shm_open %s: %s", shm_path, strerror(e));
    }
    t->table_bytes = tel_size((uint32_t)n);
    void *p = MAP_FAILED;
    if (ftruncate(fd, (off_t)t->table_bytes) == 0)
        p = mmap(NULL, t->table_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int e = errno;
    close(fd);
    if (p == MAP_FAILED) {
        shm_unlink(t->shm_name);
        t->shm_name[0] = '\0';
        return mgpu_fail(MGPU_ERR_IO, "telemetry: cannot map a %zu-byte table: %s", t->table_bytes, strerror(e));
    }
    t->table = p; /* zero-filled by ftruncate: every rate expired */
    t->table->ngpus = (uint32_t)n;
    t->table->version = TEL_VERSION;
    atomic_thread_fence(memory_order_release);
    t->table->magic = TEL_MAGIC;
    t->ngpus = n;
    t->src = SRC_SIM;
    snprintf(t->env, sizeof t->env, "%s=%s", TEL_ENV, t->shm_name);
    return MGPU_OK;
}

mgpu_result mgpu_telemetry_open(const mgpu_backend_config *cfg, mgpu_telemetry **out)
{
    if (!cfg || !out) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_telemetry_open: no config or output");
    *out = NULL;
    mgpu_telemetry *t = calloc(1, sizeof *t);
    if (!t) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory opening telemetry");
    t->cleanup = -1;
    if (mgpu_backend_config_is_sim(cfg)) { /* the workers' backend will be the sim */
        mgpu_result r = open_sim(cfg, t);
        if (r != MGPU_OK) {
            mgpu_telemetry_close(t);
            MGPU_CHECK(r);
        }
    } else if (tel_nvml_open(&t->nvml, &t->ngpus) == MGPU_OK) {
        t->src = SRC_NVML;
        snprintf(t->source, sizeof t->source, "NVML");
    } else {
        /* No driver is not an error: the pane says why it is empty. */
        snprintf(t->source, sizeof t->source, "none: %s", mgpu_error_message());
        mgpu_error_clear();
    }
    *out = t;
    return MGPU_OK;
}

void mgpu_telemetry_close(mgpu_telemetry *t)
{
    if (!t) return;
    if (t->table) munmap(t->table, t->table_bytes);
    if (t->shm_name[0]) shm_unlink(t->shm_name);
    mgpu_cleanup_forget(t->cleanup);
    tel_nvml_close(t->nvml);
    free(t->busid);
    free(t->nic);
    free(t);
}

const char *mgpu_telemetry_source(const mgpu_telemetry *t) { return t ? t->source : "none"; }
int mgpu_telemetry_gpus(const mgpu_telemetry *t) { return t ? t->ngpus : 0; }
int mgpu_telemetry_interval_ms(const mgpu_telemetry *t)
{
    if (t && t->src == SRC_NVML && t->ngpus <= 4 && tel_nvml_pcie_wraps(t->nvml)) return 50;
    return 100;
}
const char *mgpu_telemetry_env(const mgpu_telemetry *t) { return t && t->src == SRC_SIM ? t->env : NULL; }

mgpu_result mgpu_telemetry_sample(mgpu_telemetry *t, mgpu_link_sample *out, int max, int *n)
{
    if (!t || !n || (max > 0 && !out)) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_telemetry_sample: bad arguments");
    *n = 0;
    if (t->src == SRC_NVML) return tel_nvml_sample(t->nvml, out, max, n);
    if (t->src != SRC_SIM) return MGPU_OK;
    uint64_t now = mgpu_now_ns();
    for (int g = 0; g < t->ngpus && g < max; g++) {
        tel_gpu *tg = &t->table->gpu[g];
        mgpu_link_sample *s = &out[g];
        memset(s, 0, sizeof *s);
        s->gpu = g;
        snprintf(s->busid, sizeof s->busid, "%s", t->busid[g]);
        s->nvlink_tx = tel_live_rate(&tg->r[MGPU_LINK_NVLINK][0], now);
        s->nvlink_rx = tel_live_rate(&tg->r[MGPU_LINK_NVLINK][1], now);
        s->pcie_tx = tel_live_rate(&tg->r[MGPU_LINK_PCIE][0], now);
        s->pcie_rx = tel_live_rate(&tg->r[MGPU_LINK_PCIE][1], now);
        s->has_nvlink = s->has_pcie = 1;
        s->nic = t->nic[g];
        s->has_net = s->nic >= 0;
        if (s->has_net) {
            s->net_tx = tel_live_rate(&tg->r[MGPU_LINK_NET][0], now);
            s->net_rx = tel_live_rate(&tg->r[MGPU_LINK_NET][1], now);
        }
        (*n)++;
    }
    return MGPU_OK;
}
