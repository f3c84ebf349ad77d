/* telemetry_nvml.c - link traffic from NVML, with no CUDA context: per GPU
 * one nvmlDeviceGetFieldValues call reads the cumulative NVLink data
 * counters (KiB, all links) and PCIe byte counters; the sampler turns the
 * differences between two samples into bytes per second. Where the driver
 * has no PCIe counters, nvmlDeviceGetPcieThroughput (KB/s over NVML's own
 * 20 ms window) stands in. Measured on an H200 (CUDA 13 driver): the
 * field call costs 0.23-0.35 ms of CPU per GPU when idle, 0.56 ms while a
 * copy runs (0.2-0.6 % of a core per GPU at 10 Hz), and may wait for the
 * driver up to ~90 ms while another process creates its context;
 * nvmlDeviceGetPcieThroughput waits 20.8 ms and costs 0.7 ms of CPU per
 * direction, hence only the fallback. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mgpu/clock.h"
#include "mgpu/nvml_dl.h"
#include "trace/telemetry_internal.h"

enum { F_NVL_TX = 0, F_NVL_RX, F_PCIE_TX, F_PCIE_RX, F_COUNT };

typedef struct tel_dev {
    nvml_device dev;
    char busid[20];
    unsigned long long prev[F_COUNT]; /* counters at the previous sample */
    int have_prev[F_COUNT];
    int pcie_fallback;                /* no PCIe counters: nvmlDeviceGetPcieThroughput */
    int pcie32;                       /* its PCIe byte counters are 32 bits wide */
} tel_dev;

struct tel_nvml {
    int n;
    tel_dev *d;
    uint64_t prev_ns;
};

static void ask(nvml_field_value *f)
{
    static const unsigned ids[F_COUNT] = {NVML_FIELD_NVLINK_THROUGHPUT_DATA_TX, NVML_FIELD_NVLINK_THROUGHPUT_DATA_RX,
                                          NVML_FIELD_PCIE_COUNT_TX_BYTES, NVML_FIELD_PCIE_COUNT_RX_BYTES};
    memset(f, 0, F_COUNT * sizeof *f);
    for (int i = 0; i < F_COUNT; i++) {
        f[i].field_id = ids[i];
        f[i].scope_id = i < F_PCIE_TX ? NVML_DL_ALL_LINKS : 0;
    }
}

/* nvmlValueType_t: the counters come as unsigned int (32 bits: the PCIe
 * byte counters on current drivers) or unsigned long long (NVLink KiB). */
enum { VT_UINT = 1, VT_ULONG = 2, VT_ULL = 3 };

/* The counter's value and how many bits it has before it wraps. */
static unsigned long long counter(const nvml_field_value *f, int *bits)
{
    *bits = 64;
    if (f->value_type == VT_UINT) {
        *bits = 32;
        return f->value.ui;
    }
    if (f->value_type == VT_ULONG) return f->value.ul;
    return f->value.ull;
}

mgpu_result tel_nvml_open(tel_nvml **out, int *ngpus)
{
    *out = NULL;
    *ngpus = 0;
    MGPU_CHECK(nvml_dl_open());
    unsigned count = 0;
    mgpu_result r = nvml_dl_device_count(&count);
    if (r == MGPU_OK && count == 0) r = mgpu_fail(MGPU_ERR_NO_DEVICE, "NVML lists no GPU");
    if (r == MGPU_OK && !nvml_dl_has("nvmlDeviceGetFieldValues") && !nvml_dl_has("nvmlDeviceGetPcieThroughput"))
        r = mgpu_fail(MGPU_ERR_UNSUPPORTED, "this NVML has neither field values nor PCIe throughput; update the "
                                            "NVIDIA driver");
    tel_nvml *t = r == MGPU_OK ? calloc(1, sizeof *t) : NULL;
    if (r == MGPU_OK && (!t || !(t->d = calloc(count, sizeof *t->d))))
        r = mgpu_fail(MGPU_ERR_NOMEM, "out of memory for %u GPUs' telemetry", count);
    for (unsigned i = 0; r == MGPU_OK && i < count; i++) {
        tel_dev *d = &t->d[i];
        r = nvml_dl_device_by_index(i, &d->dev);
        nvml_pci_info pci;
        if (r == MGPU_OK && nvml_dl_pci_info(d->dev, &pci) == MGPU_OK)
            nvml_dl_normalize_busid(pci.bus_id, d->busid, sizeof d->busid);
        mgpu_error_clear(); /* a missing bus id only costs the pane its match */
        t->n = (int)i + 1;
    }
    if (r != MGPU_OK) {
        tel_nvml_close(t);
        if (!t) nvml_dl_close();
        return r;
    }
    *out = t;
    *ngpus = t->n;
    return MGPU_OK;
}

void tel_nvml_close(tel_nvml *t)
{
    if (!t) return;
    free(t->d);
    free(t);
    nvml_dl_close();
}

/* Difference modulo the counter's width: a 32-bit byte counter wraps every
 * 4 GiB (78 ms at 55 GB/s), so it is exact while less than that passes
 * between two samples - up to 43 GB/s at 10 Hz, 86 GB/s at 20 Hz. */
static double rate(tel_dev *d, int k, const nvml_field_value *f, double scale, double dt, int *have)
{
    if (f->ret != NVML_OK) return 0;
    *have = 1;
    int bits;
    unsigned long long v = counter(f, &bits), delta = v - d->prev[k];
    if (bits == 32 && (k == F_PCIE_TX || k == F_PCIE_RX)) d->pcie32 = 1;
    if (bits == 32) delta &= 0xffffffffull;
    double bps = 0;
    if (d->have_prev[k] && dt > 0 && (bits == 32 || v >= d->prev[k])) bps = (double)delta * scale / dt;
    d->prev[k] = v;
    d->have_prev[k] = 1;
    return bps;
}

mgpu_result tel_nvml_sample(tel_nvml *t, mgpu_link_sample *out, int max, int *n)
{
    uint64_t now = mgpu_now_ns();
    double dt = t->prev_ns ? (double)(now - t->prev_ns) / 1e9 : 0;
    t->prev_ns = now;
    int k = 0;
    for (int i = 0; i < t->n && k < max; i++) {
        tel_dev *d = &t->d[i];
        mgpu_link_sample *s = &out[k++];
        memset(s, 0, sizeof *s);
        s->gpu = i;
        s->nic = -1; /* NVML gives no per-NIC share */
        snprintf(s->busid, sizeof s->busid, "%s", d->busid);
        nvml_field_value f[F_COUNT];
        ask(f);
        if (nvml_dl_field_values(d->dev, F_COUNT, f) != MGPU_OK) {
            mgpu_error_clear();
            for (int j = 0; j < F_COUNT; j++) f[j].ret = NVML_RET_NOT_SUPPORTED;
        }
        s->nvlink_tx = rate(d, F_NVL_TX, &f[F_NVL_TX], 1024.0, dt, &s->has_nvlink);
        s->nvlink_rx = rate(d, F_NVL_RX, &f[F_NVL_RX], 1024.0, dt, &s->has_nvlink);
        if (!d->pcie_fallback && f[F_PCIE_TX].ret == NVML_OK && f[F_PCIE_RX].ret == NVML_OK) {
            s->pcie_tx = rate(d, F_PCIE_TX, &f[F_PCIE_TX], 1.0, dt, &s->has_pcie);
            s->pcie_rx = rate(d, F_PCIE_RX, &f[F_PCIE_RX], 1.0, dt, &s->has_pcie);
            continue;
        }
        d->pcie_fallback = 1;
        unsigned tx = 0, rx = 0;
        if (nvml_dl_pcie_throughput(d->dev, 0, &tx) == MGPU_OK && nvml_dl_pcie_throughput(d->dev, 1, &rx) == MGPU_OK) {
            s->has_pcie = 1;
            s->pcie_tx = tx * 1024.0; /* NVML's KB are KiB, as its other byte counters */
            s->pcie_rx = rx * 1024.0;
        }
        mgpu_error_clear();
    }
    *n = k;
    return MGPU_OK;
}

int tel_nvml_pcie_wraps(const tel_nvml *t)
{
    for (int i = 0; t && i < t->n; i++)
        if (t->d[i].pcie32) return 1;
    return 0;
}
