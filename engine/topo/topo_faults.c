/* topo_faults.c - sim fault presets that turn a modelled machine into a
 * diagnosis exercise: link faults change the view, rank faults are
 * recorded for the runtime. The tree (and so the XML export) stays the
 * healthy machine; faults are an overlay. */
#include "topo/topo_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fault_def {
    const char *name;
    unsigned bit;
    int takes_arg;     /* 0 none, 1 GPU index, 2 rank */
    const char *help;
} fault_def;

static const fault_def faults[] = {
    {"nvlink-down", TOPO_FAULT_NVLINK_DOWN, 1, "nvlink-down[:GPU]"},
    {"p2p-disabled", TOPO_FAULT_P2P_DISABLED, 0, "p2p-disabled"},
    {"no-gdr", TOPO_FAULT_NO_GDR, 0, "no-gdr"},
    {"straggler", TOPO_FAULT_STRAGGLER, 2, "straggler[:RANK]"},
    {"crash", TOPO_FAULT_CRASH, 2, "crash[:RANK]"},
};
#define NFAULTS ((int)(sizeof faults / sizeof faults[0]))

static int bit_index(unsigned bit)
{
    int i = 0;
    while (bit > 1u) bit >>= 1, i++;
    return i;
}

static const fault_def *find(const char *name, size_t len)
{
    for (int i = 0; i < NFAULTS; i++)
        if (strlen(faults[i].name) == len && strncmp(faults[i].name, name, len) == 0) return &faults[i];
    return NULL;
}

static mgpu_result unknown(const char *item, size_t len)
{
    char known[200] = "";
    for (int i = 0; i < NFAULTS; i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", faults[i].help);
    return mgpu_fail(MGPU_ERR_INVALID, "--fault: '%.*s' is not a fault; known faults: %s (comma-separated)",
                     (int)(len > 60 ? 60 : len), item, known);
}

typedef struct parsed_fault {
    const fault_def *def;
    int arg; /* -1 when not given */
} parsed_fault;

/* Split and check every item before changing anything, so a typo in the
 * third fault does not leave the first two applied. */
static mgpu_result parse_all(const mgpu_topo *t, const char *spec, parsed_fault *out, int max, int *n)
{
    *n = 0;
    const char *p = spec;
    while (*p) {
        while (*p == ' ') p++;
        const char *s = p;
        while (*p && *p != ',') p++;
        const char *e = p;
        while (e > s && e[-1] == ' ') e--;
        if (*p == ',') p++;
        if (e == s) return mgpu_fail(MGPU_ERR_INVALID, "--fault: empty item in '%.80s'", spec);
        const char *colon = memchr(s, ':', (size_t)(e - s));
        const fault_def *d = find(s, (size_t)((colon ? colon : e) - s));
        if (!d) return unknown(s, (size_t)(e - s));
        int arg = -1;
        if (colon) {
            char num[24];
            size_t nl = (size_t)(e - colon - 1);
            long long v;
            if (!d->takes_arg)
                return mgpu_fail(MGPU_ERR_INVALID, "--fault: %s takes no argument (got '%.*s')", d->name,
                                 (int)(e - s), s);
            /* straggler:0:1e300 read the factor as part of the rank
             * ("must be a rank number"): a second field is named */
            const char *second = memchr(colon + 1, ':', nl);
            if (second && d->bit == TOPO_FAULT_STRAGGLER)
                return mgpu_fail(MGPU_ERR_INVALID, "--fault: '%.*s': straggler takes only the rank (straggler:RANK); "
                                 "its slowdown factor is not an argument: it is fixed at %gx (MGPU_STRAGGLER_FACTOR)",
                                 (int)(e - s > 60 ? 60 : e - s), s, MGPU_STRAGGLER_FACTOR);
            if (second)
                return mgpu_fail(MGPU_ERR_INVALID, "--fault: '%.*s': %s takes one argument, the %s (%s)",
                                 (int)(e - s > 60 ? 60 : e - s), s, d->name, d->takes_arg == 1 ? "GPU" : "rank",
                                 d->help);
            if (nl == 0 || nl >= sizeof num) goto badnum;
            memcpy(num, colon + 1, nl);
            num[nl] = 0;
            if (!topo_parse_long(num, &v) || v < 0 || v > 1000000) goto badnum;
            arg = (int)v;
            if (d->takes_arg == 1 && arg >= t->ngpus)
                return mgpu_fail(MGPU_ERR_INVALID, "--fault: %s:%d names GPU %d, but %s has %d GPU%s (0..%d)",
                                 d->name, arg, arg, t->machine_name, t->ngpus, t->ngpus == 1 ? "" : "s",
                                 t->ngpus - 1);
            goto ok;
badnum:
            return mgpu_fail(MGPU_ERR_INVALID, "--fault: '%.*s': the argument after ':' must be a %s number, 0 to "
                             "1000000", (int)(e - s > 60 ? 60 : e - s), s, d->takes_arg == 1 ? "GPU" : "rank");
        }
ok:
        if (d->takes_arg == 1 && arg < 0 && t->ngpus == 0)
            return mgpu_fail(MGPU_ERR_INVALID, "--fault: %s needs a GPU, and %s has none", d->name, t->machine_name);
        /* a link fault on a GPU without links would change nothing while every
         * report says the machine is faulty: refuse it */
        if (d->bit == TOPO_FAULT_NVLINK_DOWN && t->gpus[arg < 0 ? 0 : arg].nvlinks_total == 0 &&
            !t->gpu_nvlink_down[arg < 0 ? 0 : arg])
            return mgpu_fail(MGPU_ERR_INVALID, "--fault: %.*s: GPU %d of %s has no NVLink to take down (its "
                             "peers are reached over PCIe); pick a machine with NVLink (dgx-h100)", (int)(e - s), s,
                             arg < 0 ? 0 : arg, t->machine_name);
        if (*n == max) return mgpu_fail(MGPU_ERR_INVALID, "--fault: more than %d faults", max);
        out[*n].def = d;
        out[(*n)++].arg = arg;
    }
    return MGPU_OK;
}

mgpu_result mgpu_topo_apply_faults(mgpu_topo *t, const char *spec)
{
    if (!t) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_topo_apply_faults: no topology");
    if (!spec || !*spec) return MGPU_OK;
    parsed_fault list[64];
    int n;
    MGPU_CHECK(parse_all(t, spec, list, 64, &n));
    for (int i = 0; i < n; i++) {
        const fault_def *d = list[i].def;
        int arg = list[i].arg < 0 ? 0 : list[i].arg; /* default: GPU 0 / rank 0 */
        int bi = bit_index(d->bit);
        if (!(t->faults & d->bit)) t->fault_arg[bi] = arg;
        t->faults |= d->bit;
        switch (d->bit) {
        case TOPO_FAULT_NVLINK_DOWN: {
            const mgpu_topo_gpu *g = &t->gpus[arg];
            if (g->nvlinks_total == 0)
                mgpu_topo_add_note(t, "fault nvlink-down:%d: GPU %d has no NVLinks, nothing changes", arg, arg);
            else
                mgpu_topo_add_note(t, "fault nvlink-down:%d: GPU %d's %d NVLinks are down; its paths to other "
                                   "GPUs fall back to PCIe", arg, arg, g->nvlinks_total);
            t->gpu_nvlink_down[arg] = 1;
            t->gpus[arg].nvlinks_total = 0;
            break;
        }
        case TOPO_FAULT_P2P_DISABLED:
            mgpu_topo_add_note(t, "fault p2p-disabled: ACS/IOMMU blocks P2P; no GPU can access a peer, copies "
                               "between GPUs are staged through host memory");
            break;
        case TOPO_FAULT_NO_GDR:
            for (int k = 0; k < t->ngpus; k++) t->gpus[k].gdr = 0;
            for (int k = 0; k < t->nnics; k++) t->nics[k].gdr = 0;
            mgpu_topo_add_note(t, "fault no-gdr: GPUDirect RDMA is off; NICs reach GPU memory through a bounce "
                               "buffer in host memory");
            break;
        case TOPO_FAULT_STRAGGLER:
            mgpu_topo_add_note(t, "fault straggler:%d: rank %d runs %gx slower than its peers (its device work and "
                               "its part of every collective)", arg, arg, MGPU_STRAGGLER_FACTOR);
            break;
        case TOPO_FAULT_CRASH:
            mgpu_topo_add_note(t, "fault crash:%d: rank %d will crash during its work", arg, arg);
            break;
        }
    }
    return MGPU_OK;
}

mgpu_result mgpu_topo_check_faults(const mgpu_topo *t, const char *spec, int nranks)
{
    if (!t) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_topo_check_faults: no topology");
    if (!spec || !*spec) return MGPU_OK;
    parsed_fault list[64];
    int n;
    MGPU_CHECK(parse_all(t, spec, list, 64, &n));
    for (int i = 0; i < n && nranks > 0; i++)
        if (list[i].def->takes_arg == 2 && list[i].arg >= nranks)
            return mgpu_fail(MGPU_ERR_INVALID, "--fault: %s:%d names rank %d, but the run has %d rank%s (0..%d): "
                             "nothing would be faulty while the numbers claim to be the faulty machine's",
                             list[i].def->name, list[i].arg, list[i].arg, nranks, nranks == 1 ? "" : "s", nranks - 1);
    return MGPU_OK;
}

void mgpu_topo_faults_of_machine(const char *spec, char *out, size_t len)
{
    size_t k = 0;
    if (len) out[0] = '\0';
    for (const char *p = spec ? spec : ""; *p && len;) {
        while (*p == ' ' || *p == ',') p++;
        const char *s = p;
        while (*p && *p != ',') p++;
        size_t n = (size_t)(p - s), name = strcspn(s, ":,");
        const fault_def *d = find(s, name < n ? name : n);
        if (!n || (d && d->takes_arg == 2)) continue;
        if (k + n + 2 > len) break;
        k += (size_t)snprintf(out + k, len - k, "%s%.*s", k ? "," : "", (int)n, s);
    }
}

static const fault_def *by_name(const char *fault)
{
    if (!fault) return NULL;
    const char *colon = strchr(fault, ':');
    return find(fault, colon ? (size_t)(colon - fault) : strlen(fault));
}

int mgpu_topo_has_fault(const mgpu_topo *t, const char *fault)
{
    const fault_def *d = by_name(fault);
    return t && d && (t->faults & d->bit) ? 1 : 0;
}

int mgpu_topo_fault_arg(const mgpu_topo *t, const char *fault)
{
    const fault_def *d = by_name(fault);
    if (!t || !d || !(t->faults & d->bit)) return -1;
    return t->fault_arg[bit_index(d->bit)];
}

double mgpu_topo_straggler_factor(const mgpu_topo *t)
{
    int r = mgpu_topo_fault_arg(t, "straggler");
    const char *env = getenv("MGPU_RANK");
    return r >= 0 && env && *env && atoi(env) == r ? MGPU_STRAGGLER_FACTOR : 1.0;
}
