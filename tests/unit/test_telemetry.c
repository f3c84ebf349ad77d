/* test_telemetry.c - the sim telemetry table: a rate a child process
 * publishes is seen by the sampler until it expires; without MGPU_TELEMETRY
 * (or with a stale name) publishing is a no-op; closing removes the table;
 * sim copies and collectives run by rank workers publish their modelled
 * traffic on the right link; cuda without a driver is the "none" source. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "mgpu/clock.h"
#include "mgpu/jobs.h"
#include "mgpu/rt.h"
#include "mgpu/telemetry.h"
#include "tap.h"

static const mgpu_backend_config dgx = {.kind = MGPU_BACKEND_SIM, .machine = "dgx-h100"};

/* Run fn in a child with `env` ("K=V", or NULL for none) and wait for it. */
static int in_child(const char *env, void (*fn)(void))
{
    pid_t pid = fork();
    if (pid == 0) {
        unsetenv("MGPU_TELEMETRY");
        if (env) putenv((char *)env);
        fn();
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void publish_gpu3(void)
{
    mgpu_telemetry_publish(3, MGPU_LINK_NVLINK, 100e9, 50e9, 0.5);
    mgpu_telemetry_publish(3, MGPU_LINK_PCIE, 0, 7e9, 0.5);
    mgpu_telemetry_publish(3, MGPU_LINK_PCIE, 0, 0, 0.5); /* zero rates leave the others alone */
    mgpu_telemetry_publish(99, MGPU_LINK_NVLINK, 1e9, 1e9, 0.5); /* not a GPU of the machine */
    mgpu_telemetry_publish(-1, MGPU_LINK_NVLINK, 1e9, 1e9, 0.5);
}

static double total(const mgpu_link_sample *s, int n)
{
    double t = 0;
    for (int i = 0; i < n; i++) t += s[i].nvlink_tx + s[i].nvlink_rx + s[i].pcie_tx + s[i].pcie_rx;
    return t;
}

static void test_table(void)
{
    mgpu_telemetry *t = NULL;
    CHECK_OK(mgpu_telemetry_open(&dgx, &t));
    CHECKF(strstr(mgpu_telemetry_source(t), "modelled (SIMULATED dgx-h100)") != NULL, "source '%s'",
           mgpu_telemetry_source(t));
    CHECK(mgpu_telemetry_gpus(t) == 8);
    CHECK(mgpu_telemetry_interval_ms(t) == 100); /* modelled rates do not wrap */
    CHECK(mgpu_telemetry_interval_ms(NULL) == 100);
    const char *env = mgpu_telemetry_env(t);
    CHECKF(env && strncmp(env, "MGPU_TELEMETRY=/", 16) == 0, "env '%s'", env ? env : "(null)");
    mgpu_link_sample s[16];
    int n = 0;
    CHECK_OK(mgpu_telemetry_sample(t, s, 16, &n));
    CHECK(n == 8 && total(s, n) == 0);
    CHECK(strcmp(s[0].busid, "") != 0 && s[0].has_nvlink && s[0].has_pcie);

    /* without the variable, and with a name that is not a table: no-ops */
    CHECK(in_child(NULL, publish_gpu3));
    CHECK(in_child("MGPU_TELEMETRY=/mgpulab-tel-no-such-table", publish_gpu3));
    CHECK_OK(mgpu_telemetry_sample(t, s, 16, &n));
    CHECKF(total(s, n) == 0, "a publish without the table was seen: %g B/s", total(s, n));

    CHECK(in_child(env, publish_gpu3));
    CHECK_OK(mgpu_telemetry_sample(t, s, 16, &n));
    CHECKF(s[3].nvlink_tx == 100e9 && s[3].nvlink_rx == 50e9, "GPU 3 NVLink %g/%g", s[3].nvlink_tx, s[3].nvlink_rx);
    CHECKF(s[3].pcie_rx == 7e9 && s[3].pcie_tx == 0, "GPU 3 PCIe %g/%g", s[3].pcie_tx, s[3].pcie_rx);
    CHECKF(total(s, n) == 157e9, "other GPUs show traffic: total %g", total(s, n));
    /* asking for fewer GPUs than there are */
    CHECK_OK(mgpu_telemetry_sample(t, s, 2, &n));
    CHECK(n == 2);

    usleep(650000); /* past the 0.5 s expiry */
    CHECK_OK(mgpu_telemetry_sample(t, s, 16, &n));
    CHECKF(total(s, n) == 0, "expired rates still shown: %g", total(s, n));

    /* sampling is a read of a few cache lines: far below 2 % of a core at 10 Hz.
     * The thread's CPU time, not wall time: a busy machine takes the CPU away
     * for whole time slices, which is not the sample's cost */
    struct timespec c0, c1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    for (int i = 0; i < 10000; i++) mgpu_telemetry_sample(t, s, 16, &n);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    double us = ((double)(c1.tv_sec - c0.tv_sec) * 1e9 + (double)(c1.tv_nsec - c0.tv_nsec)) / 1e3 / 10000;
    CHECKF(us < 200, "one sample took %.1f us", us);
    printf("# one sim sample of 8 GPUs: %.2f us\n", us);

    char name[128];
    snprintf(name, sizeof name, "%s", strchr(env, '=') + 1);
    mgpu_telemetry_close(t);
    int fd = shm_open(name, O_RDONLY, 0);
    CHECKF(fd < 0 && errno == ENOENT, "the table %s is still there after close", name);
    if (fd >= 0) close(fd);
}

/*--- Through rank workers ---------------------------------------------*/

typedef struct seen {
    mgpu_telemetry *t;
    double nvlink, pcie;   /* the most seen at once, summed over GPUs */
    int results;
} seen;

static void on_msg(void *ctx, const mgpu_rt_msg *m)
{
    seen *k = ctx;
    if (strcmp(m->type, "result") != 0) return;
    k->results++;
    mgpu_link_sample s[16];
    int n = 0;
    if (mgpu_telemetry_sample(k->t, s, 16, &n) != MGPU_OK) return;
    double nv = 0, pc = 0;
    for (int i = 0; i < n; i++) nv += s[i].nvlink_tx + s[i].nvlink_rx, pc += s[i].pcie_tx + s[i].pcie_rx;
    if (nv > k->nvlink) k->nvlink = nv;
    if (pc > k->pcie) k->pcie = pc;
}

static void run_job(const char *what, const mgpu_backend_config *bc, int ranks, const char *job, const char *params,
                    int want_nvlink, int want_pcie)
{
    mgpu_telemetry *t = NULL;
    CHECK_OK(mgpu_telemetry_open(bc, &t));
    const char *extra[] = {mgpu_telemetry_env(t), NULL};
    mgpu_rt_config cfg = {.jobs = mgpu_jobs, .launcher = MGPU_LAUNCH_LOCAL, .ranks = ranks, .backend = *bc, .timeout_s = 30,
                          .self_exe = MGPU_BINARY_DIR "/mgpulab", .extra_env = extra};
    json_t *p = json_loads(params, 0, NULL);
    seen k = {.t = t};
    mgpu_rt_report rep;
    CHECK_OK(mgpu_rt_run(&cfg, job, p, on_msg, &k, &rep));
    json_decref(p);
    CHECKF(rep.ok && k.results > 0, "%s: the run failed (%s) or sent no result", what, rep.reason);
    /* want: 1 = traffic seen, 0 = none, -1 = either (results are copied to the host over PCIe) */
    if (want_nvlink >= 0) CHECKF(want_nvlink ? k.nvlink > 0 : k.nvlink == 0, "%s: NVLink %g B/s", what, k.nvlink);
    if (want_pcie >= 0) CHECKF(want_pcie ? k.pcie > 0 : k.pcie == 0, "%s: PCIe %g B/s", what, k.pcie);
    printf("# %s: NVLink %.1f GB/s, PCIe %.1f GB/s seen\n", what, k.nvlink / 1e9, k.pcie / 1e9);
    mgpu_telemetry_close(t);
}

/*--- Two nodes: each link carries its share ----------------------------*/

typedef struct link_seen {
    mgpu_telemetry *t;
    volatile int stop;
    int n;
    double nvlink[32], pcie[32], net[32]; /* per GPU, the most seen (tx) */
    int nic[32], has_net[32];
} link_seen;

static void *link_sampler(void *arg)
{
    link_seen *k = arg;
    while (!k->stop) {
        mgpu_link_sample s[32];
        int n = 0;
        if (mgpu_telemetry_sample(k->t, s, 32, &n) == MGPU_OK) {
            k->n = n;
            for (int i = 0; i < n; i++) {
                if (s[i].nvlink_tx > k->nvlink[i]) k->nvlink[i] = s[i].nvlink_tx;
                if (s[i].pcie_tx > k->pcie[i]) k->pcie[i] = s[i].pcie_tx;
                if (s[i].net_tx > k->net[i]) k->net[i] = s[i].net_tx;
                k->nic[i] = s[i].nic;
                k->has_net[i] = s[i].has_net;
            }
        }
        usleep(20000);
    }
    return NULL;
}

/* An all_reduce over 16 ranks on two DGX nodes: inside a node the ring runs
 * on NVLink, between the nodes through the NICs. Every GPU's NVLink carries
 * its intra-node share and its PCIe link (to its NIC) the smaller network
 * share (issue 26: lab 7's pane showed NVLink 0.0 on every GPU and the
 * whole busbw as PCIe). */
static void test_two_nodes(void)
{
    const mgpu_backend_config two = {.kind = MGPU_BACKEND_SIM, .machine = "2x-dgx-h100"};
    mgpu_telemetry *t = NULL;
    CHECK_OK(mgpu_telemetry_open(&two, &t));
    const char *extra[] = {mgpu_telemetry_env(t), NULL};
    mgpu_rt_config cfg = {.jobs = mgpu_jobs, .launcher = MGPU_LAUNCH_LOCAL, .ranks = 16, .backend = two, .timeout_s = 60,
                          .self_exe = MGPU_BINARY_DIR "/mgpulab", .extra_env = extra};
    json_t *p = json_loads("{\"action\": \"world_allreduce\", \"count\": 1048576}", 0, NULL);
    link_seen k = {.t = t};
    pthread_t th;
    pthread_create(&th, NULL, link_sampler, &k);
    mgpu_rt_report rep;
    CHECK_OK(mgpu_rt_run(&cfg, "selftest", p, NULL, NULL, &rep));
    usleep(100000);
    k.stop = 1;
    pthread_join(th, NULL);
    json_decref(p);
    CHECKF(rep.ok, "16 ranks on 2x-dgx-h100: %s", rep.reason);
    CHECK(k.n == 16);
    int nv = 0, split = 0, nics = 0;
    for (int g = 0; g < k.n; g++) {
        nv += k.nvlink[g] > 0;
        /* the NIC's share is 1/8 of the rank's traffic, the node's NVLink 7/8;
         * it crosses the PCIe link to the NIC too (beside the result's copies) */
        split += k.net[g] > 0 && k.net[g] < k.nvlink[g] && k.pcie[g] >= k.net[g];
        nics += k.has_net[g] && k.nic[g] == g % 8; /* each DGX GPU's own NIC, numbered in its node */
    }
    CHECKF(nv == 16, "GPUs with NVLink traffic: %d of 16 (GPU0 NVLink %.1f, PCIe %.1f GB/s)", nv, k.nvlink[0] / 1e9,
           k.pcie[0] / 1e9);
    CHECKF(split == 16, "GPUs whose network (NIC) share is below their NVLink share: %d of 16 (GPU0 NIC %.1f GB/s)", split,
           k.net[0] / 1e9);
    CHECKF(nics == 16, "GPUs that name their node's NIC of the same number: %d of 16 (GPU9: NIC%d)", nics, k.nic[9]);
    printf("# 2x-dgx-h100 all_reduce: GPU0 NVLink %.1f GB/s, NIC%d %.1f GB/s, PCIe %.1f GB/s\n", k.nvlink[0] / 1e9,
           k.nic[0], k.net[0] / 1e9, k.pcie[0] / 1e9);
    mgpu_telemetry_close(t);
}

/*--- NVML (where a driver is) ----------------------------------------*/

typedef struct gpu_seen {
    mgpu_telemetry *t;
    volatile int stop;
    double pcie_rx;       /* GPU 0's highest PCIe RX, bytes/s */
    double max_sample_us; /* the slowest sample call, wall time (the driver may make it wait) */
    double cpu_us;        /* CPU time of all sample calls */
    int have_pcie, samples;
} gpu_seen;

/* The pane's loop, at 20 Hz: 32-bit PCIe counters stay exact up to 86 GB/s. */
static void *gpu_sampler(void *arg)
{
    gpu_seen *k = arg;
    while (!k->stop) {
        mgpu_link_sample s[64];
        int n = 0;
        uint64_t t0 = mgpu_now_ns();
        struct timespec c0, c1;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
        if (mgpu_telemetry_sample(k->t, s, 64, &n) == MGPU_OK && n > 0) {
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
            k->cpu_us += (double)(c1.tv_sec - c0.tv_sec) * 1e6 + (double)(c1.tv_nsec - c0.tv_nsec) / 1e3;
            double us = (double)(mgpu_now_ns() - t0) / 1e3;
            if (us > k->max_sample_us) k->max_sample_us = us;
            if (k->samples++ > 0 && s[0].pcie_rx > k->pcie_rx) k->pcie_rx = s[0].pcie_rx;
            k->have_pcie |= s[0].has_pcie;
        }
        usleep(50000);
    }
    return NULL;
}

/* Host-to-device copies on the real GPU: NVML's PCIe counters of GPU 0 show
 * them while they run, and a sample is cheap. */
static void test_nvml_traffic(mgpu_telemetry *t)
{
    const mgpu_backend_config cuda = {.kind = MGPU_BACKEND_CUDA};
    mgpu_rt_config cfg = {.jobs = mgpu_jobs, .launcher = MGPU_LAUNCH_LOCAL, .ranks = 1, .backend = cuda, .timeout_s = 60,
                          .self_exe = MGPU_BINARY_DIR "/mgpulab"};
    json_t *p = json_pack("{s:s, s:I, s:i, s:i}", "testcase", "host_to_device_memcpy_ce", "size",
                          (json_int_t)(1 << 30), "copies", 32, "samples", 2);
    gpu_seen k = {.t = t};
    pthread_t th;
    pthread_create(&th, NULL, gpu_sampler, &k);
    mgpu_rt_report rep;
    CHECK_OK(mgpu_rt_run(&cfg, "copy", p, NULL, NULL, &rep));
    k.stop = 1;
    pthread_join(th, NULL);
    json_decref(p);
    CHECKF(rep.ok, "the copy job failed: %s", rep.reason);
    CHECKF(k.have_pcie && k.pcie_rx > 10e9, "GPU 0 PCIe RX during host_to_device copies: %.2f GB/s", k.pcie_rx / 1e9);
    /* the pane's budget is CPU: 2 % of a core at 10 Hz is 2 ms per sample; hold it to half */
    double cpu = k.samples ? k.cpu_us / k.samples : 0;
    CHECKF(cpu < 1000 * mgpu_telemetry_gpus(t), "a sample cost %.0f us of CPU", cpu);
    printf("# NVML: GPU 0 PCIe RX up to %.1f GB/s during host_to_device_memcpy_ce (%d samples); a sample costs %.0f us "
           "of CPU, the slowest waited %.0f us\n", k.pcie_rx / 1e9, k.samples, cpu, k.max_sample_us);
}

int main(void)
{
    test_table();
    run_job("peer copies on dgx-h100", &dgx, 1, "copy",
            "{\"testcase\": \"device_to_device_memcpy_write_ce\", \"size\": 1048576, \"copies\": 1, \"samples\": 1}", 1,
            -1);
    run_job("host-to-device copies on dgx-h100", &dgx, 1, "copy",
            "{\"testcase\": \"host_to_device_memcpy_ce\", \"size\": 1048576, \"copies\": 1, \"samples\": 1}", 0, 1);
    run_job("all_reduce on dgx-h100", &dgx, 2, "selftest", "{\"action\": \"world_allreduce\", \"count\": 65536}", 1,
            -1);
    const mgpu_backend_config pcie = {.kind = MGPU_BACKEND_SIM, .machine = "pcie-4gpu"};
    run_job("all_reduce on pcie-4gpu", &pcie, 2, "selftest", "{\"action\": \"world_allreduce\", \"count\": 65536}", 0,
            1);
    test_two_nodes();

    /* cuda: NVML where a driver is, else "none" with the reason */
    const mgpu_backend_config cuda = {.kind = MGPU_BACKEND_CUDA};
    mgpu_telemetry *t = NULL;
    CHECK_OK(mgpu_telemetry_open(&cuda, &t));
    const char *src = mgpu_telemetry_source(t);
    mgpu_link_sample s[64];
    int n = -1;
    CHECK_OK(mgpu_telemetry_sample(t, s, 64, &n));
    if (strcmp(src, "NVML") == 0) {
        CHECK(n == mgpu_telemetry_gpus(t) && n > 0 && s[0].busid[0]);
        test_nvml_traffic(t);
    } else {
        CHECKF(strncmp(src, "none: ", 6) == 0 && strlen(src) > 6, "source '%s'", src);
        CHECK(n == 0 && mgpu_telemetry_gpus(t) == 0 && mgpu_telemetry_env(t) == NULL);
    }
    printf("# cuda source: %s\n", src);
    mgpu_telemetry_close(t);
    return tap_done();
}
