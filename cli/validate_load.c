/* validate_load.c - what validate measures beyond its default steps: the
 * inter-node bandwidth of each NIC pair, the --sweep of every collective
 * (nccl-tests' rows with #wrong, each next to the model) and the
 * --sustained load (drift and errors over time). */
#include "validate.h"
#include "mgpu/collbench.h"
#include "mgpu/collmodel.h"
#include <math.h>
#include <string.h>

static double num_at(json_t *o, const char *k) { return json_number_value(json_object_get(o, k)); }
static const char *str_at(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "?";
}

/*--- Inter-node bandwidth per NIC pair ------------------------------------------*/

void validate_network(vreport *r, json_t *ranks, const mgpu_topo *model, int per_host)
{
    int n = (int)json_array_size(ranks), measured = 0, bad = 0;
    double lo = INFINITY, hi = 0, e = 0, tol = vreport_tolerance(r, "network");
    for (int i = 0; i < n; i++) {
        json_t *o = NULL; /* in rank order, whatever order they reported in */
        for (int j = 0; j < n && !o; j++)
            if (json_integer_value(json_object_get(json_array_get(ranks, (size_t)j), "rank")) == i)
                o = json_array_get(ranks, (size_t)j);
        if (!o || !json_is_number(json_object_get(o, "net_gbs"))) continue;
        int rank = (int)json_integer_value(json_object_get(o, "rank"));
        int peer = (int)json_integer_value(json_object_get(o, "net_peer"));
        double bytes = num_at(o, "net_bytes"), m = num_at(o, "net_gbs");
        /* the model: one rank on each of two nodes, as this pair sits */
        mgpu_coll_prediction p;
        if (mgpu_coll_predict_spread(model, MGPU_COLL_SEND, (size_t)bytes, 2, 2, 1, NULL, &p) != MGPU_OK) {
            mgpu_error_clear();
            continue;
        }
        e = p.algbw_gbs;
        measured++;
        lo = fmin(lo, m), hi = fmax(hi, m);
        if (m >= e * (1.0 - tol)) continue;
        bad++;
        int dev = (int)json_integer_value(json_object_get(o, "dev"));
        vcheck *c = vcheck_about(vreport_add(r, "network", V_ANOMALY, "rank %d -> rank %d (GPU%d's NIC, %s)", rank,
                                             peer, dev, str_at(o, "host")), "net", dev, -1);
        c->tol = tol;
        VSET(c, measured, "%.1f GB/s (%.0f %%)", m, e > 0 ? 100.0 * m / e : 0.0);
        VSET(c, expected, "%.1f GB/s (%s)", e, p.link ? p.link : "network");
        VSET(c, cause, "%.0f %% of what the model gives one transfer between two nodes over this GPU's nearest NIC, "
             "every NIC busy both ways: GPUDirect RDMA off (traffic staged through host memory), the NIC or its "
             "switch port trained at a lower rate, a cable or port with errors, or NCCL using another NIC",
             e > 0 ? 100.0 * m / e : 0.0);
        VSET(c, next, "ibstat (rate and state of each port); ibv_devinfo; perfquery (port error counters); "
             "NCCL_DEBUG=INFO mgpulab bench sendrecv --ranks %d (NET/IB/N/GDRDMA per peer)", n);
    }
    if (!measured) return;
    vcheck *c = vcheck_about(vreport_add(r, "network", bad ? V_INFO : V_OK, "inter-node bandwidth, %d NIC pair%s",
                                         measured, measured == 1 ? "" : "s"), "net", -1, -1);
    c->tol = tol;
    VSET(c, measured, "%.1f-%.1f GB/s", lo, hi);
    VSET(c, expected, "%.1f GB/s per pair", e);
    VSET(c, cause, "each rank sends to the rank with its local index on the next node (%d ranks a node) while "
         "receiving from the previous one%s", per_host, bad ? "; the pairs below the model are listed" : "");
}

/*--- --sweep ------------------------------------------------------------------*/

/* A sweep judges a size's bandwidth only where the model gives it at least
 * this long (see validate_sweep) */
#define SWEEP_JUDGED_US 100.0

/* sendrecv is point-to-point, each rank to the next in a ring: every pair
 * (r, r+1) runs at once, and the step ends with the slowest - on pcie-4gpu
 * the pair across the sockets, not GPU0-GPU1 */
static mgpu_result predict_sendrecv(const mgpu_topo *model, size_t bytes, int nranks, const mgpu_coll_tuning *tun,
                                    mgpu_coll_prediction *out)
{
    int pairs = nranks > 2 ? nranks : 1;
    for (int a = 0; a < pairs; a++) {
        int pair[2] = {a, nranks > 1 ? (a + 1) % nranks : 0};
        mgpu_coll_prediction p;
        memset(&p, 0, sizeof p);
        MGPU_CHECK(mgpu_coll_predict_tuned(model, MGPU_COLL_SEND, bytes, 2, pair, tun, &p));
        if (a == 0 || p.time_us > out->time_us) *out = p;
    }
    return MGPU_OK;
}

void validate_sweep(vreport *r, const char *coll, json_t *rows, const mgpu_topo *model, int nranks, double cap)
{
    const mgpu_collbench_coll *cb = mgpu_collbench_find(coll);
    if (!r->sweep) r->sweep = json_array();
    mgpu_coll_tuning tun = {-1, -1};
    if (mgpu_coll_tuning_from_env(&tun) != MGPU_OK) mgpu_error_clear();
    long wrong = 0, sizes = 0;
    double worst = INFINITY, worst_size = 0, worst_e = 0, worst_m = 0, tol_worst = 0;
    for (size_t k = 0; k < json_array_size(rows); k++) {
        json_t *row = json_array_get(rows, k);
        double bytes = (double)json_integer_value(json_object_get(row, "size"));
        sizes++;
        for (int ip = 0; ip < 2; ip++) {
            json_t *h = json_object_get(row, ip ? "in_place" : "out_of_place");
            mgpu_coll_prediction p;
            memset(&p, 0, sizeof p);
            /* sendrecv is priced as the communicator prices one send, at its
             * slowest pair (predict_sendrecv) */
            mgpu_result pr = !cb ? MGPU_ERR_INVALID
                             : strcmp(coll, "sendrecv") == 0
                                 ? predict_sendrecv(model, (size_t)bytes, nranks, &tun, &p)
                                 : mgpu_coll_predict_call(model, cb->coll, (size_t)bytes, nranks, NULL, &tun, ip, &p);
            if (pr != MGPU_OK) mgpu_error_clear();
            if (strcmp(coll, "sendrecv") == 0) p.busbw_gbs = p.algbw_gbs; /* busbw factor 1 */
            json_t *w = json_object_get(h, "nwrong");
            wrong += json_is_integer(w) ? (long)json_integer_value(w) : 0;
            double m = nranks > 1 ? num_at(h, "bus_bw") : num_at(h, "alg_bw");
            double e = nranks > 1 ? p.busbw_gbs : p.algbw_gbs;
            json_t *o = json_pack("{s:s, s:I, s:I, s:s, s:s, s:I, s:b, s:f, s:f, s:f, s:O, s:f, s:f, s:s}", "coll", coll,
                                  "size", json_integer_value(json_object_get(row, "size")), "count",
                                  json_integer_value(json_object_get(row, "count")), "type", str_at(row, "type"),
                                  "redop", str_at(row, "redop"), "root", json_integer_value(json_object_get(row, "root")),
                                  "in_place", ip, "time_us", num_at(h, "time"), "algbw", num_at(h, "alg_bw"), "busbw",
                                  num_at(h, "bus_bw"), "wrong", w ? w : json_null(), "model_us", p.time_us,
                                  "model_busbw", nranks > 1 ? p.busbw_gbs : p.algbw_gbs, "bound",
                                  p.link ? p.link : "?");
            if (cap > 0 && k == 0 && !ip) {
                char note[200];
                snprintf(note, sizeof note, "sim: sizes capped at %.0f MiB (the sim moves every byte in host memory; "
                         "the model's rate is flat past a few MiB); --backend cuda sweeps to 8 GiB", cap / (1 << 20));
                json_object_set_new(o, "note", json_string(note));
            }
            json_array_append_new(r->sweep, o);
            /* bandwidth-bound sizes only. Below SWEEP_JUDGED_US of the model's
             * time the call's host launch path (a few us the model does not
             * carry), NCCL's per-step constants and the L2 cache (50 MB on an
             * H100: a 4 MiB copy never reaches HBM) decide the rate: on one
             * healthy H100 the 1-8 MiB sizes read 29-84 % of the model and
             * every size from 64 MiB up 94-108 % (docs/gpu-results.md) */
            if (!(p.time_us >= SWEEP_JUDGED_US) || !(e > 0) || (nranks == 1 && ip)) continue;
            double ratio = m / e, tol = vreport_tolerance(r, p.link);
            if (ratio - (1.0 - tol) < worst - (1.0 - tol_worst)) {
                worst = ratio, worst_size = bytes, worst_e = e, worst_m = m, tol_worst = tol;
            }
        }
    }
    int low = isfinite(worst) && worst < 1.0 - tol_worst;
    vcheck *c = vcheck_about(vreport_add(r, "sweep", wrong || low ? V_ANOMALY : V_OK, "%s sweep, %ld sizes", coll,
                                         sizes), wrong ? "wrong" : "sweep", -1, -1);
    c->tol = tol_worst;
    if (isfinite(worst)) {
        VSET(c, measured, "#wrong %ld; lowest %.1f GB/s (%.0f %%) at %.0f B", wrong, worst_m, 100 * worst, worst_size);
        VSET(c, expected, "#wrong 0; %.1f GB/s there", worst_e);
        if (!low)
            VSET(c, cause, "bandwidth judged at the sizes the model gives %.0f us or more, where the launch "
                 "and the L2 cache no longer decide the rate", SWEEP_JUDGED_US);
    } else {
        VSET(c, measured, "#wrong %ld", wrong);
        VSET(c, expected, "#wrong 0");
    }
    if (wrong) {
        VSET(c, cause, "%ld elements came back wrong: a GPU or link corrupting data, or a broken NCCL", wrong);
        VSET(c, next, "mgpulab bench %s -b 8 -e 8G -f 2 -c 1; nvidia-smi -q -d ECC; dmesg | grep -i xid", coll);
    } else if (!isfinite(worst)) {
        VSET(c, cause, "no size long enough to judge its bandwidth (the model gives each under %.0f us); only "
             "#wrong is judged", SWEEP_JUDGED_US);
    } else if (low) {
        VSET(c, cause, "the %.0f B %s reaches %.0f %% of the model: see the collective checks and findings for the "
             "link", worst_size, coll, 100 * worst);
        VSET(c, next, "NCCL_DEBUG=INFO mgpulab bench %s -b %.0f -e %.0f", coll, worst_size, worst_size);
    }
}

/*--- --sustained ----------------------------------------------------------------*/

static const struct {
    const char *key, *what, *bound;
} rates[] = {{"hbm_gbs", "HBM copy", "HBM"},
             {"h2d_gbs", "PCIe host->device", "PCIe"},
             {"d2h_gbs", "PCIe device->host", "PCIe"},
             {"busbw_gbs", "all_reduce busbw", "NVLink"}};

void validate_load(vreport *r, json_t *ranks, double duration_s)
{
    int n = (int)json_array_size(ranks);
    r->load = json_pack("{s:f, s:O}", "duration_s", duration_s, "ranks", ranks);
    long wrong = 0;
    for (int i = 0; i < n; i++) wrong += (long)json_integer_value(json_object_get(json_array_get(ranks, (size_t)i), "wrong"));
    vcheck *c = vcheck_about(vreport_add(r, "load", wrong ? V_ANOMALY : V_OK, "all_reduce results over %.3g s", duration_s),
                             "wrong", -1, -1);
    VSET(c, measured, "%ld wrong", wrong);
    VSET(c, expected, "0 wrong");
    if (wrong) {
        VSET(c, cause, "all_reduce results came back wrong under sustained load: data corrupted in a GPU, its "
             "memory or a link once hot");
        VSET(c, next, "nvidia-smi -q -d ECC,ROW_REMAPPER; dmesg | grep -i xid; rerun with the GPUs cool");
    }
    /* drift: each rate's last window against its first, on every rank */
    for (size_t k = 0; k < sizeof rates / sizeof rates[0]; k++) {
        double worst = INFINITY, first = 0, last = 0;
        int wr = -1;
        for (int i = 0; i < n; i++) {
            json_t *o = json_array_get(ranks, (size_t)i), *w = json_object_get(o, "windows");
            size_t nw = json_array_size(w);
            if (nw < 2) continue;
            double a = num_at(json_array_get(w, 0), rates[k].key), b = num_at(json_array_get(w, nw - 1), rates[k].key);
            if (!(a > 0)) continue;
            if (b / a < worst) worst = b / a, first = a, last = b, wr = (int)json_integer_value(json_object_get(o, "rank"));
        }
        if (wr < 0) continue;
        double tol = vreport_tolerance(r, rates[k].bound);
        int drift = worst < 1.0 - tol;
        c = vcheck_about(vreport_add(r, "load", drift ? V_ANOMALY : V_OK, "%s drift over %.3g s", rates[k].what,
                                     duration_s), "load", -1, -1);
        c->tol = tol;
        VSET(c, measured, "last window %.1f of first %.1f GB/s (%.0f %%, rank %d)", last, first, 100 * worst, wr);
        VSET(c, expected, "no fall");
        if (drift) {
            VSET(c, cause, "rank %d's %s fell to %.0f %% of its first window's rate under sustained load: clocks "
                 "lowered as the GPU heats (thermal or power slowdown), or another process started", wr,
                 rates[k].what, 100 * worst);
            VSET(c, next, "nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER,CLOCK during the load; nvidia-smi dmon -s "
                 "pucvmet");
        }
    }
}
