/* validate_perf.c - measured copies, collectives and per-rank times against
 * what the sim's model predicts for this exact topology. A measurement more
 * than the tolerance below its prediction is an anomaly with a likely cause;
 * one above it is shown (the model is conservative there) but passes. */
#include "validate.h"
#include "mgpu/collmodel.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Small-message latency is judged loosely: the model's alpha terms are
 * NCCL's tuner constants, not measurements of this machine. */
#define LATENCY_FACTOR 2.0
#define LATENCY_SLACK_US 10.0
/* A rank whose device work takes this much longer than the others' median. */
#define STRAGGLER_FACTOR 1.5

static const char *str_at(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

/*--- Tolerances: the model's uncertainty per bound -------------------------*/

/* How far the model has been seen from measurements where the bound is
 * this, and so how far below it a measurement may fall before it is an
 * anomaly (twice the error seen, at least 10 %). docs/gpu-results.md has
 * the measurements; a bound not yet measured on a machine keeps 15 %. */
typedef struct bound_tol {
    const char *bound;
    double tol;
    const char *source;
} bound_tol;

static const bound_tol tolerances[] = {
    {"HBM", 0.12, "local copies and one-rank collectives measured at 100-106 % of the model on H100 and H200"},
    {"PCIe", 0.10, "pinned host<->device copies measured at 99-100 % of the model on H100 and H200"},
    {"NVLink", 0.15, "NVLink peer copies and collectives: not yet measured against the model on an NVLink "
     "machine; NCCL's tuner constants"},
    {"SHM", 0.15, "SHM (staged through host memory): not yet measured against the model"},
    {"network", 0.10, "inter-node: the NIC's line rate and NCCL's per-hop constants, no fitted efficiency; not "
     "yet measured on two nodes"},
};

static const bound_tol *bound_of(const char *bound)
{
    for (size_t i = 0; i < sizeof tolerances / sizeof tolerances[0]; i++)
        if (bound && strcmp(bound, tolerances[i].bound) == 0) return &tolerances[i];
    return &tolerances[2]; /* an unknown bound: as unmeasured as NVLink */
}

double vreport_tolerance(const vreport *r, const char *bound)
{
    return r->tolerance > 0 ? r->tolerance : bound_of(bound)->tol;
}

const char *vreport_tolerance_source(const char *bound) { return bound_of(bound)->source; }

static void size_text(double bytes, char *buf, size_t len)
{
    if (bytes >= 1024.0 * 1024 * 1024) snprintf(buf, len, "%.0f GiB", bytes / (1024.0 * 1024 * 1024));
    else if (bytes >= 1024.0 * 1024) snprintf(buf, len, "%.0f MiB", bytes / (1024.0 * 1024));
    else if (bytes >= 1024.0) snprintf(buf, len, "%.0f KiB", bytes / 1024.0);
    else snprintf(buf, len, "%.0f B", bytes);
}

/*--- Copies ------------------------------------------------------------------*/

typedef struct copy_kind {
    const char *prefix;
    const char *kind, *bound; /* the check's kind; what bounds it (tolerance) */
    const char *cause, *next;
} copy_kind;

static const copy_kind kinds[] = {
    {"host_to_device", "h2d", "PCIe", "the GPU's PCIe link below its maximum (see the PCIe checks), host memory on the other CPU "
     "socket, the IOMMU translating every DMA, or another process on the link",
     "nvidia-smi -q | grep -A8 'GPU Link Info'; numactl --cpunodebind=N --membind=N mgpulab copy "
     "host_to_device_memcpy_ce (N: the GPU's NUMA node); cat /proc/cmdline (iommu=pt)"},
    {"device_to_host", "d2h", "PCIe", "the GPU's PCIe link below its maximum (see the PCIe checks), host memory on the other CPU "
     "socket, the IOMMU translating every DMA, or another process on the link",
     "nvidia-smi -q | grep -A8 'GPU Link Info'; numactl --cpunodebind=N --membind=N mgpulab copy "
     "device_to_host_memcpy_ce; cat /proc/cmdline (iommu=pt)"},
    {"device_local", "local", "HBM", "GPU clocks held down (power or thermal limits), another process using the GPU, or memory "
     "errors being handled", "nvidia-smi -q -d PERFORMANCE,CLOCK,ECC; nvidia-smi (other processes on the GPU)"},
    {"device_to_device", "d2d", "NVLink", "an NVLink down or degraded, peer access disabled so the copy is staged through host "
     "memory, or ACS sending P2P through the root complex",
     "nvidia-smi nvlink -s; nvidia-smi topo -p2p r; mgpulab topo --peer; sudo lspci -vvv | grep -i ACSCtl"},
};

static const copy_kind *kind_of(const char *name)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strncmp(name, kinds[i].prefix, strlen(kinds[i].prefix)) == 0) return &kinds[i];
    return NULL;
}

static json_t *cell(json_t *tc, int r, int c)
{
    json_t *m = json_array_get(json_object_get(tc, "matrices"), 0);
    return json_array_get(json_array_get(json_object_get(m, "values"), (size_t)r), (size_t)c);
}

/* The testcase's note about the pair (row, col), as copy_bench writes it
 * ("... GPU 0 <-> GPU 3: ..."), or NULL. */
static const char *pair_note(json_t *notes, int row, int col)
{
    char key[48];
    snprintf(key, sizeof key, "GPU %d <-> GPU %d", row, col);
    for (size_t i = 0; i < json_array_size(notes); i++) {
        const char *n = json_string_value(json_array_get(notes, i));
        if (n && strstr(n, key)) return n;
    }
    return NULL;
}

static void copy_testcase(vreport *r, const char *name, json_t *meas, json_t *pred)
{
    json_t *m0 = json_array_get(json_object_get(meas, "matrices"), 0);
    int rows = (int)json_integer_value(json_object_get(m0, "rows"));
    int cols = (int)json_integer_value(json_object_get(m0, "cols"));
    const copy_kind *k = kind_of(name);
    int ok = 0, bad = 0;
    double lo = INFINITY, hi = 0, plo = INFINITY, phi = 0, maxtol = 0;
    if (strcmp(str_at(meas, "status") ? str_at(meas, "status") : "", "error") == 0) {
        vcheck *c = vreport_add(r, "copy", V_ERROR, "%s", name);
        VSET(c, measured, "failed");
        VSET(c, expected, "a measurement");
        VSET(c, cause, "%s", str_at(meas, "error") ? str_at(meas, "error") : "the testcase failed");
        VSET(c, next, "mgpulab copy %s", name);
        return;
    }
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            json_t *mv = cell(meas, i, j), *pv = cell(pred, i, j);
            if (!json_is_number(pv)) continue; /* the model has no such pair either */
            char where[48];
            if (rows == 1) snprintf(where, sizeof where, "GPU%d", j);
            else snprintf(where, sizeof where, "GPU%d->GPU%d", i, j);
            double p = json_number_value(pv);
            /* a peer copy below PCIe's rate is bounded by PCIe, not NVLink */
            const char *bound = k ? (strcmp(k->bound, "NVLink") == 0 && p < 64.0 ? "PCIe" : k->bound) : "NVLink";
            double tol = vreport_tolerance(r, bound);
            int ga = rows == 1 ? j : i, gb = rows == 1 ? -1 : j;
            if (!json_is_number(mv)) {
                vcheck *c = vcheck_about(vreport_add(r, "copy", V_ANOMALY, "%s %s", name, where), k ? k->kind : "copy",
                                         ga, gb);
                const char *why = pair_note(json_object_get(meas, "notes"), i, j);
                VSET(c, measured, "not measured");
                VSET(c, expected, "%.1f GB/s", p);
                VSET(c, cause, "the copy could not run where the model of this machine runs it at %.1f GB/s%s%s", p,
                     why ? ": " : "", why ? why : "");
                VSET(c, next, "%s", k ? k->next : "mgpulab copy --help");
                bad++;
                continue;
            }
            double v = json_number_value(mv);
            if (v < lo) lo = v;
            if (v > hi) hi = v;
            if (p < plo) plo = p;
            if (p > phi) phi = p;
            if (tol > maxtol) maxtol = tol;
            if (v >= p * (1.0 - tol)) {
                ok++;
                continue;
            }
            bad++;
            vcheck *c = vcheck_about(vreport_add(r, "copy", V_ANOMALY, "%s %s", name, where), k ? k->kind : "copy", ga, gb);
            c->tol = tol;
            VSET(c, measured, "%.1f GB/s (%.0f %%)", v, 100.0 * v / p);
            VSET(c, expected, "%.1f GB/s", p);
            VSET(c, cause, "%.0f %% of what the model of this topology predicts: %s", 100.0 * v / p,
                 k ? k->cause : "a slower link than the topology says");
            VSET(c, next, "%s", k ? k->next : "mgpulab copy --help");
        }
    if (ok) {
        vcheck *c = vcheck_about(vreport_add(r, "copy", V_OK, "%s", name), k ? k->kind : "copy", -1, -1);
        c->tol = maxtol;
        if (ok == 1) VSET(c, measured, "%.1f GB/s (%.0f %%)", lo, 100.0 * lo / plo);
        else VSET(c, measured, "%d cells %.1f-%.1f GB/s", ok + bad, lo, hi);
        if (ok == 1) VSET(c, expected, "%.1f GB/s", plo);
        else VSET(c, expected, "%.1f-%.1f GB/s", plo, phi);
        if (hi > phi * (1.0 + maxtol))
            VSET(c, cause, "faster than the model predicts by more than %.0f %%: the model's efficiency for this "
                 "link is conservative", maxtol * 100);
        if (bad) VSET(c, cause, "%d of %d cells within tolerance; the others are listed", ok, ok + bad);
    }
}

void validate_copies(vreport *r, json_t *measured, json_t *predicted)
{
    const char *name;
    json_t *meas;
    json_object_foreach(measured, name, meas) {
        json_t *pred = json_object_get(predicted, name);
        const char *st = str_at(meas, "status");
        if (st && strcmp(st, "waived") == 0) {
            vcheck *c = vreport_add(r, "copy", V_INFO, "%s", name);
            VSET(c, measured, "waived");
            VSET(c, expected, "-");
            VSET(c, cause, "%s", str_at(meas, "waived_reason") ? str_at(meas, "waived_reason") : "not applicable here");
            continue;
        }
        if (!pred) {
            vcheck *c = vreport_add(r, "copy", V_INFO, "%s", name);
            VSET(c, measured, "measured");
            VSET(c, expected, "no prediction");
            continue;
        }
        copy_testcase(r, name, meas, pred);
    }
}

/*--- Collectives -------------------------------------------------------------*/

static double half_num(json_t *row, const char *half, const char *key)
{
    return json_number_value(json_object_get(json_object_get(row, half), key));
}

void validate_collective(vreport *r, const char *coll, json_t *rows, const mgpu_topo *model, int nranks)
{
    int op = strcmp(coll, "all_gather") == 0 ? MGPU_COLL_ALL_GATHER : MGPU_COLL_ALL_REDUCE;
    mgpu_coll_tuning tun = {-1, -1};
    if (mgpu_coll_tuning_from_env(&tun) != MGPU_OK) mgpu_error_clear();
    for (size_t k = 0; k < json_array_size(rows); k++) {
        json_t *row = json_array_get(rows, k);
        double bytes = (double)json_integer_value(json_object_get(row, "size"));
        char sz[24];
        size_text(bytes, sz, sizeof sz);
        for (int ip = 0; ip < 2; ip++) {
            const char *half = ip ? "in_place" : "out_of_place";
            json_int_t wrong = json_integer_value(json_object_get(json_object_get(row, half), "nwrong"));
            mgpu_coll_prediction p;
            if (mgpu_coll_predict_call(model, (mgpu_coll)op, (size_t)bytes, nranks, NULL, &tun, ip, &p) != MGPU_OK) {
                vcheck *c = vcheck_about(vreport_add(r, "collective", V_ERROR, "%s %s %s", coll, sz, ip ? "in place" : ""), "coll", -1, -1);
                VSET(c, cause, "the model could not price it: %s", mgpu_error_message());
                mgpu_error_clear();
                continue;
            }
            double t = half_num(row, half, "time");
            if (wrong > 0) {
                vcheck *c = vcheck_about(vreport_add(r, "collective", V_ANOMALY, "%s %s %s results", coll, sz, ip ? "in place" : "out of place"), "wrong", -1, -1);
                VSET(c, measured, "%lld wrong", (long long)wrong);
                VSET(c, expected, "0 wrong");
                VSET(c, cause, "the collective returned wrong values: a faulty GPU or link corrupting data, or a "
                     "broken NCCL installation");
                VSET(c, next, "mgpulab bench %s -b %.0f -e %.0f -c 1; nvidia-smi -q -d ECC; dmesg | grep -i xid", coll,
                     bytes, bytes);
            }
            int small = bytes <= 65536;
            /* one rank in place is a no-op: its time is a launch, not bandwidth */
            int noop = nranks == 1 && ip;
            if (small || noop) {
                int slow = t > p.time_us * LATENCY_FACTOR && t - p.time_us > LATENCY_SLACK_US;
                vcheck *c = vcheck_about(vreport_add(r, "collective", slow ? V_ANOMALY : V_OK, "%s %s %s latency",
                                                     coll, sz, ip ? "in place" : "out of place"), "latency", -1, -1);
                VSET(c, measured, "%.1f us", t);
                VSET(c, expected, "%.1f us (%s/%s)", p.time_us, p.algo_name, p.proto_name);
                if (noop && !slow) VSET(c, cause, "one rank in place: NCCL has nothing to move, the call costs its launch");
                else if (!slow && t > p.time_us * (1.0 + vreport_tolerance(r, p.link)))
                    /* within the loose bar, but not within the model's tolerance: say why */
                    VSET(c, cause, "%.1f us above the model: its latency is NCCL's tuner constants for the kernel's "
                         "own steps (%s/%s); a call on a GPU also pays the host's launch path (the driver's kernel launch "
                         "and NCCL's enqueue, a few us on most CPUs), which the model does not carry. A few us are "
                         "that; more, or a gap on the SIMULATED machine, come from a slow rank (see the per-rank "
                         "check) or a slow hop", t - p.time_us, p.algo_name, p.proto_name);
                if (slow) {
                    VSET(c, cause, "a small %s takes %.1f us where NCCL's %s/%s on this topology should take %.1f us: a "
                         "busy or throttled CPU launching, NCCL_ALGO/NCCL_PROTO forcing a slow choice, or a "
                         "network hop in the path", coll, t, p.algo_name, p.proto_name, p.time_us);
                    VSET(c, next, "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING mgpulab bench %s -b 8 -e 64K -f 2; env "
                         "| grep NCCL_; top (a busy core)", coll);
                }
                continue;
            }
            /* bandwidth: busbw, or algbw on one rank where busbw is 0 by definition */
            const char *what = nranks > 1 ? "busbw" : "algbw";
            double m = half_num(row, half, nranks > 1 ? "bus_bw" : "alg_bw");
            double e = nranks > 1 ? p.busbw_gbs : p.algbw_gbs;
            double tol = vreport_tolerance(r, p.link);
            int low = m < e * (1.0 - tol);
            vcheck *c = vcheck_about(vreport_add(r, "collective", low ? V_ANOMALY : V_OK, "%s %s %s %s", coll, sz,
                                                 ip ? "in place" : "out of place", what), "coll", -1, -1);
            c->tol = tol;
            VSET(c, measured, "%.1f GB/s (%.0f %%)", m, e > 0 ? 100.0 * m / e : 0.0);
            VSET(c, expected, "%.1f GB/s (%s)", e, p.link ? p.link : "?");
            if (low) {
                VSET(c, cause, "%.0f %% of the %.1f GB/s the model predicts over %s for %d rank%s: a slow link in the "
                     "ring (see the copy checks), NCCL not using P2P/NVLink (NCCL_P2P_DISABLE, NCCL_P2P_LEVEL, "
                     "peer access off), a straggler rank, or GPUDirect RDMA off across nodes",
                     100.0 * m / e, e, p.link ? p.link : "?", nranks, nranks == 1 ? "" : "s");
                VSET(c, next, "NCCL_DEBUG=INFO mgpulab bench %s -b %.0f -e %.0f: read the transport lines "
                     "(P2P/CUMEM, SHM, NET/IB/GDRDMA); env | grep NCCL_", coll, bytes, bytes);
            } else if (m > e * (1.0 + tol)) {
                VSET(c, cause, "faster than the model predicts by more than %.0f %%: the model is conservative for "
                     "this topology", tol * 100);
            }
        }
    }
}

/*--- Per-rank times ------------------------------------------------------------*/

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of v[] without element `skip` (-1: all). */
static double median_without(const double *v, int n, int skip)
{
    double t[4096];
    int k = 0;
    for (int i = 0; i < n && k < 4096; i++)
        if (i != skip) t[k++] = v[i];
    if (!k) return 0;
    qsort(t, (size_t)k, sizeof *t, cmp_double);
    return k % 2 ? t[k / 2] : 0.5 * (t[k / 2 - 1] + t[k / 2]);
}

void validate_ranks(vreport *r, json_t *ranks)
{
    int n = (int)json_array_size(ranks);
    if (n < 2) {
        vcheck *c = vreport_add(r, "ranks", V_INFO, "stragglers");
        VSET(c, measured, "%d rank", n);
        VSET(c, expected, "-");
        VSET(c, cause, "one rank: no peer to compare with");
        return;
    }
    if (n > 4096) n = 4096;
    double *work = calloc((size_t)n, sizeof *work), *coll = calloc((size_t)n, sizeof *coll);
    if (!work || !coll) {
        free(work);
        free(coll);
        return;
    }
    for (int i = 0; i < n; i++) {
        json_t *o = json_array_get(ranks, (size_t)i);
        int rk = (int)json_integer_value(json_object_get(o, "rank"));
        if (rk < 0 || rk >= n) continue;
        work[rk] = json_number_value(json_object_get(o, "work_us"));
        coll[rk] = json_number_value(json_object_get(o, "coll_us"));
    }
    int found = 0;
    for (int i = 0; i < n; i++) {
        double others = median_without(work, n, i), others_coll = median_without(coll, n, i);
        if (!(others > 0) || work[i] <= others * STRAGGLER_FACTOR) continue;
        found++;
        json_t *o = NULL;
        for (int k = 0; k < n; k++)
            if (json_integer_value(json_object_get(json_array_get(ranks, (size_t)k), "rank")) == i)
                o = json_array_get(ranks, (size_t)k);
        vcheck *c = vcheck_about(vreport_add(r, "ranks", V_ANOMALY, "rank %d", i), "rank", i, -1);
        VSET(c, measured, "work %.1f us", work[i]);
        VSET(c, expected, "about %.1f us (others)", others);
        VSET(c, cause, "rank %d (host %s, GPU %d) is a straggler: the same device work takes it %.1f us against a "
             "median %.1f us on the other ranks (%.1fx), and they wait for it in every collective (their all_reduce "
             "takes a median %.1f us, rank %d's own %.1f us)", i, str_at(o, "host") ? str_at(o, "host") : "?",
             (int)json_integer_value(json_object_get(o, "dev")), work[i], others, work[i] / others, others_coll, i,
             coll[i]);
        VSET(c, next, "nvidia-smi -q -i %d -d PERFORMANCE,CLOCK,TEMPERATURE (clock slowdown); nvidia-smi (other "
             "processes on that GPU); top on its host (a busy CPU core or data loader)",
             (int)json_integer_value(json_object_get(o, "dev")));
    }
    if (!found) {
        double lo = work[0], hi = work[0], clo = coll[0], chi = coll[0];
        for (int i = 1; i < n; i++) {
            lo = fmin(lo, work[i]), hi = fmax(hi, work[i]);
            clo = fmin(clo, coll[i]), chi = fmax(chi, coll[i]);
        }
        vcheck *c = vreport_add(r, "ranks", V_OK, "stragglers (%d ranks)", n);
        VSET(c, measured, "work %.1f-%.1f us", lo, hi);
        VSET(c, expected, "within %.1fx of each other", STRAGGLER_FACTOR);
        VSET(c, cause, "every rank does the same device work in %.1f-%.1f us; all_reduce %.1f-%.1f us", lo, hi, clo, chi);
    }
    free(work);
    free(coll);
}
