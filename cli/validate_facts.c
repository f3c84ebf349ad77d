/* validate_facts.c - the per-GPU facts of `nvidia-smi -q` and `nvidia-smi
 * nvlink -s` (mgpu/facts.h): a link down, a PCIe link trained below the
 * GPU's maximum, uncorrected ECC errors and hardware clock slowdowns are
 * anomalies; the rest is shown, and "not reported" where NVML is silent. */
#include "validate.h"
#include <string.h>
#include <strings.h>

static int num(json_t *o, const char *k, double *v)
{
    json_t *x = json_object_get(o, k);
    if (!json_is_number(x)) return 0;
    *v = json_number_value(x);
    return 1;
}

static void nvlink_row(vreport *r, int i, json_t *nl)
{
    double links, up;
    if (!json_is_object(nl) || !num(nl, "links", &links) || !num(nl, "up", &up)) {
        vcheck *c = vreport_add(r, "nvml", V_INFO, "GPU%d NVLinks", i);
        VSET(c, measured, "not reported");
        VSET(c, expected, "-");
        return;
    }
    if (links == 0) {
        vcheck *c = vreport_add(r, "nvml", V_INFO, "GPU%d NVLinks", i);
        VSET(c, measured, "none");
        VSET(c, expected, "-");
        VSET(c, cause, "this GPU has no NVLink: peers are reached over PCIe");
        return;
    }
    json_t *per = json_object_get(nl, "per_link");
    char down[200] = "";
    double speed = 0;
    int ndown = 0;
    for (size_t k = 0; k < json_array_size(per); k++) {
        json_t *l = json_array_get(per, k);
        const char *st = json_string_value(json_object_get(l, "state"));
        double sp;
        if (num(l, "speed_mbps", &sp) && sp > speed) speed = sp;
        if (!st || strcmp(st, "down") != 0) continue;
        if (ndown++ < 18)
            snprintf(down + strlen(down), sizeof down - strlen(down), "%s%d", ndown > 1 ? "," : "", (int)k);
    }
    vcheck *c = vcheck_about(vreport_add(r, "nvml", ndown ? V_ANOMALY : V_OK, "GPU%d NVLinks", i), "nvlinks", i, -1);
    VSET(c, measured, "%d of %d up", (int)up, (int)links);
    VSET(c, expected, "%d of %d up", (int)links, (int)links);
    if (ndown) {
        VSET(c, cause, "GPU%d NVLink%s %s %s down: traffic to its peers falls back to fewer links or PCIe", i,
             ndown == 1 ? "" : "s", down, ndown == 1 ? "is" : "are");
        VSET(c, next, "nvidia-smi nvlink -s -i %d; nvidia-smi nvlink -e -i %d (error counters); dmesg | grep -i "
             "xid; a GPU reset (nvidia-smi -r -i %d) when idle", i, i, i);
    } else if (speed > 0) {
        VSET(c, cause, "%.0f MB/s per link", speed);
    }
}

static void pcie_row(vreport *r, int i, json_t *p, int nvml)
{
    double gen = 0, gmax = 0, ggpu = 0, w = 0, wmax = 0, wgpu = 0;
    if (!json_is_object(p) || !num(p, "gen", &gen) || !num(p, "width", &w)) {
        vcheck *c = vreport_add(r, "nvml", V_INFO, "GPU%d PCIe (current)", i);
        VSET(c, measured, "not reported");
        VSET(c, expected, "-");
        return;
    }
    int have_max = num(p, "gen_max", &gmax) && num(p, "width_max", &wmax);
    int have_gpu = num(p, "gen_gpu_max", &ggpu);
    if (!num(p, "width_gpu_max", &wgpu)) wgpu = have_max ? wmax : w;
    /* Only NVML's answer is judged here: the model's is the topology's own
     * link, which the topology check judges already. */
    int low = nvml && have_max && ((have_gpu && gmax < ggpu) || wmax < wgpu);
    vcheck *c = vcheck_about(vreport_add(r, "nvml", low ? V_ANOMALY : V_INFO, "GPU%d PCIe (current)", i), "pcie", i, -1);
    VSET(c, measured, "Gen%d x%d", (int)gen, (int)w);
    if (have_max) VSET(c, expected, "max Gen%d x%d", (int)(have_gpu ? ggpu : gmax), (int)wgpu);
    else VSET(c, expected, "max not reported");
    if (low) {
        VSET(c, cause, "GPU%d's PCIe link can reach only Gen%d x%d where the GPU supports Gen%d x%d: the slot, a riser "
             "or the BIOS limits it", i, (int)gmax, (int)wmax, (int)ggpu, (int)wgpu);
        VSET(c, next, "nvidia-smi -q -i %d | grep -A8 'GPU Link Info'; sudo lspci -vv | grep -E 'LnkCap|LnkSta'", i);
    } else if (have_max && (gen < gmax || w < wmax)) {
        VSET(c, cause, "below its maximum Gen%d x%d right now: GPUs lower the link speed when idle to save power; "
             "under load it should read the maximum", (int)gmax, (int)wmax);
    }
}

static void health_row(vreport *r, int i, json_t *f)
{
    json_t *ecc = json_object_get(f, "ecc"), *clk = json_object_get(f, "clocks"), *pw = json_object_get(f, "power");
    json_t *thr = json_object_get(f, "throttle");
    double unc = 0, cor = 0, sm = 0, smmax = 0, draw = 0, limit = 0;
    int have_unc = num(ecc, "uncorrected_volatile", &unc), have_cor = num(ecc, "corrected_volatile", &cor);
    int have_clk = num(clk, "sm_mhz", &sm) && num(clk, "sm_max_mhz", &smmax);
    int have_pw = num(pw, "draw_w", &draw) && num(pw, "limit_w", &limit);
    char slow[160] = "", other[160] = "";
    for (size_t k = 0; k < json_array_size(thr); k++) {
        const char *why = json_string_value(json_array_get(thr, k));
        if (!why) continue;
        int bad = strstr(why, "hw_") == why || strstr(why, "thermal") != NULL;
        char *dst = bad ? slow : other;
        snprintf(dst + strlen(dst), 160 - strlen(dst), "%s%s", *dst ? "," : "", why);
    }
    int anomaly = (have_unc && unc > 0) || slow[0];
    vcheck *c = vcheck_about(vreport_add(r, "nvml", anomaly ? V_ANOMALY : V_INFO, "GPU%d ECC, clocks, power", i), "health", i, -1);
    if (have_unc) VSET(c, measured, "ECC unc %.0f cor %.0f", unc, have_cor ? cor : 0);
    else VSET(c, measured, "ECC not reported");
    VSET(c, expected, "0 uncorrected, no HW slowdown");
    char clocks[96] = "clocks not reported", power[96] = "power not reported";
    if (have_clk) snprintf(clocks, sizeof clocks, "SM clock %.0f of %.0f MHz", sm, smmax);
    if (have_pw) snprintf(power, sizeof power, "power %.0f of %.0f W", draw, limit);
    const char *why = json_string_value(json_object_get(f, "why"));
    if (anomaly) {
        VSET(c, cause, "%s%s%s%s; %s, %s", have_unc && unc > 0 ? "uncorrected ECC errors since the driver loaded "
             "(the GPU may need a reset or row remapping)" : "", have_unc && unc > 0 && slow[0] ? "; " : "",
             slow[0] ? "clocks held down by " : "", slow, clocks, power);
        VSET(c, next, "nvidia-smi -q -i %d -d ECC,PERFORMANCE,TEMPERATURE,POWER; nvidia-smi -q -i %d -d "
             "ROW_REMAPPER; dmesg | grep -i xid", i, i);
    } else {
        VSET(c, cause, "%s, %s%s%s; XID events: see \"XID events during the run\"%s%s", clocks, power,
             other[0] ? ", clock reasons " : "", other, why ? "; " : "", why ? why : "");
    }
}

/* Memory health (retired pages or remapped rows), the PCIe link's replays
 * and the temperature: each with what it should be and what to run next. */
static void memory_rows(vreport *r, int i, json_t *f)
{
    json_t *rp = json_object_get(f, "retired_pages"), *rr = json_object_get(f, "remapped_rows");
    double sbe, dbe, rc, ru, agg_c = 0, agg_u = 0, replays, temp;
    json_t *ecc = json_object_get(f, "ecc");
    num(ecc, "corrected_aggregate", &agg_c);
    num(ecc, "uncorrected_aggregate", &agg_u);
    if (json_is_object(rr) && num(rr, "corrected", &rc) && num(rr, "uncorrected", &ru)) {
        int pending = json_is_true(json_object_get(rr, "pending")), failed = json_is_true(json_object_get(rr, "failed"));
        vcheck *c = vcheck_about(vreport_add(r, "nvml", pending || failed ? V_ANOMALY : V_OK, "GPU%d remapped rows", i),
                                 "health", i, -1);
        VSET(c, measured, "%.0f corrected, %.0f uncorrected%s%s", rc, ru, pending ? ", remap pending" : "",
             failed ? ", remap FAILED" : "");
        VSET(c, expected, "no remap pending or failed");
        if (pending || failed) {
            VSET(c, cause, "GPU%d %s: %s", i, failed ? "could not remap a bad memory row (the GPU needs replacing)"
                 : "has a row remap waiting for a GPU reset", "until then the bad row stays in use");
            VSET(c, next, "nvidia-smi -q -i %d -d ROW_REMAPPER; drain the node, then nvidia-smi -r -i %d", i, i);
        } else {
            VSET(c, cause, "lifetime ECC: %.0f corrected, %.0f uncorrected (aggregate)", agg_c, agg_u);
        }
    } else if (json_is_object(rp) && num(rp, "multiple_sbe", &sbe) && num(rp, "dbe", &dbe)) {
        vcheck *c = vcheck_about(vreport_add(r, "nvml", dbe > 0 ? V_ANOMALY : V_OK, "GPU%d retired pages", i),
                                 "health", i, -1);
        VSET(c, measured, "%.0f (single-bit) + %.0f (double-bit)", sbe, dbe);
        VSET(c, expected, "0 double-bit");
        if (dbe > 0) {
            VSET(c, cause, "GPU%d retired %.0f pages after double-bit ECC errors", i, dbe);
            VSET(c, next, "nvidia-smi -q -i %d -d PAGE_RETIREMENT; a reset applies pending retirements", i);
        }
    } else {
        vcheck *c = vcheck_about(vreport_add(r, "nvml", V_INFO, "GPU%d retired pages / remapped rows", i), "health", i, -1);
        VSET(c, measured, "not reported");
        VSET(c, expected, "-");
    }
    if (num(f, "pcie_replays", &replays)) {
        vcheck *c = vcheck_about(vreport_add(r, "nvml", V_INFO, "GPU%d PCIe replays", i), "health", i, -1);
        VSET(c, measured, "%.0f", replays);
        VSET(c, expected, "0, not growing");
        if (replays > 0)
            VSET(c, cause, "the link retransmitted %.0f times since boot: a count that grows under load is a marginal "
                 "link or riser (nvidia-smi -q -i %d -d PCIE before and after a load)", replays, i);
    }
    if (num(f, "temperature_c", &temp)) {
        vcheck *c = vcheck_about(vreport_add(r, "nvml", V_INFO, "GPU%d temperature", i), "health", i, -1);
        VSET(c, measured, "%.0f C", temp);
        VSET(c, expected, "below its slowdown temperature");
        VSET(c, cause, "thermal slowdown shows in the clock reasons above; under --sustained, in the drift");
    }
}

void validate_facts(vreport *r, json_t *doc)
{
    json_t *facts = json_object_get(doc, "facts");
    int modelled = 0;
    for (size_t k = 0; k < json_array_size(facts); k++) {
        json_t *f = json_array_get(facts, k);
        int i = (int)json_integer_value(json_object_get(f, "gpu"));
        const char *src = json_string_value(json_object_get(f, "source"));
        if (src && strcmp(src, "none") == 0) {
            vcheck *c = vreport_add(r, "nvml", V_INFO, "GPU%d facts", i);
            VSET(c, measured, "not reported");
            VSET(c, expected, "-");
            VSET(c, cause, "%s", json_string_value(json_object_get(f, "why")) ? json_string_value(json_object_get(f, "why")) : "no source");
            continue;
        }
        nvlink_row(r, i, json_object_get(f, "nvlink"));
        if (src && strcmp(src, "model") == 0) {
            /* the model's PCIe link is the topology's (checked there); it has no ECC, clocks or power */
            modelled++;
            continue;
        }
        pcie_row(r, i, json_object_get(f, "pcie"), src && strcmp(src, "nvml") == 0);
        health_row(r, i, f);
        memory_rows(r, i, f);
    }
    if (modelled) {
        vcheck *c = vreport_add(r, "nvml", V_INFO, "ECC, XID, clocks, power");
        VSET(c, measured, "not reported");
        VSET(c, expected, "-");
        VSET(c, cause, "simulated machine: the model has NVLink state and PCIe links (above), not ECC, XID, "
             "clocks or power");
    }
}

/* What an XID number means, for the ones a cluster meets most (NVIDIA's
 * "Xid Errors" catalogue); others are named by number. */
static const char *xid_meaning(long long xid)
{
    switch (xid) {
    case 13: return "graphics engine exception (often a program's fault: an illegal address)";
    case 31: return "GPU memory page fault (a program's bad access, or a driver fault)";
    case 43: return "the GPU stopped processing (a user program's fault, the GPU recovers)";
    case 45: return "preemptive cleanup after an earlier error";
    case 48: return "a double-bit ECC error";
    case 61: case 62: return "internal micro-controller error";
    case 63: case 64: return "ECC page retirement or row remapping event";
    case 74: return "an NVLink error";
    case 79: return "the GPU has fallen off the bus";
    case 92: return "a high single-bit ECC error rate";
    case 94: return "a contained ECC error";
    case 95: return "an uncontained ECC error";
    case 119: case 120: return "a GSP (GPU System Processor) error";
    default: return "a GPU error the driver reported";
    }
}

static int gpu_of_busid(json_t *doc, const char *busid)
{
    json_t *facts = json_object_get(doc, "facts");
    for (size_t k = 0; k < json_array_size(facts); k++) {
        json_t *f = json_array_get(facts, k);
        const char *b = json_string_value(json_object_get(f, "busid"));
        if (b && strcasecmp(b, busid) == 0) return (int)json_integer_value(json_object_get(f, "gpu"));
    }
    return -1;
}

void validate_xid(vreport *r, json_t *doc, json_t *xid, const char *why_not)
{
    json_t *doc_facts = doc;
    if (!xid) {
        vcheck *c = vreport_add(r, "nvml", V_INFO, "XID events during the run");
        VSET(c, measured, "not watched");
        VSET(c, expected, "none");
        VSET(c, cause, "NVML could not watch XID events: %s", why_not && *why_not ? why_not : "no reason given");
        VSET(c, next, "dmesg -T | grep -i xid (XIDs also go to the kernel log)");
        return;
    }
    json_t *events = json_object_get(xid, "events"), *watched = json_object_get(xid, "watched");
    json_t *unwatched = json_object_get(xid, "unwatched");
    for (size_t k = 0; k < json_array_size(events); k++) {
        json_t *e = json_array_get(events, k);
        const char *busid = json_string_value(json_object_get(e, "busid"));
        long long x = json_integer_value(json_object_get(e, "xid"));
        long long n = json_integer_value(json_object_get(e, "count"));
        int g = busid ? gpu_of_busid(doc_facts, busid) : -1;
        vcheck *c = vcheck_about(g >= 0 ? vreport_add(r, "nvml", V_ANOMALY, "GPU%d XID %lld", g, x)
                                        : vreport_add(r, "nvml", V_ANOMALY, "%s XID %lld", busid ? busid : "?", x),
                                 "xid", g, -1);
        VSET(c, measured, "%lld event%s", n, n == 1 ? "" : "s");
        VSET(c, expected, "none during the run");
        VSET(c, cause, "XID %lld on %s during validate: %s", x, busid ? busid : "?", xid_meaning(x));
        VSET(c, next, "dmesg -T | grep -i xid; nvidia-smi -q -i %s; look the XID up in NVIDIA's Xid catalogue "
             "(docs.nvidia.com/deploy/xid-errors); drain the node if it repeats", busid ? busid : "0");
    }
    if (json_array_size(events) == 0) {
        vcheck *c = vreport_add(r, "nvml", json_array_size(watched) ? V_OK : V_INFO, "XID events during the run");
        VSET(c, measured, "none on %zu GPU%s", json_array_size(watched), json_array_size(watched) == 1 ? "" : "s");
        VSET(c, expected, "none");
        const char *err = json_string_value(json_object_get(xid, "error"));
        if (err) VSET(c, cause, "reading the events failed: %s", err);
        else VSET(c, cause, "NVML event set on every watched GPU, from before the topology to the last measurement");
    }
    for (size_t k = 0; k < json_array_size(unwatched); k++) {
        json_t *u = json_array_get(unwatched, k);
        const char *busid = json_string_value(json_object_get(u, "busid"));
        vcheck *c = vreport_add(r, "nvml", V_INFO, "%s XID events", busid ? busid : "?");
        VSET(c, measured, "not watched");
        VSET(c, expected, "none");
        VSET(c, cause, "%s", json_string_value(json_object_get(u, "why")) ? json_string_value(json_object_get(u, "why")) : "?");
        VSET(c, next, "dmesg -T | grep -i xid");
    }
}
