/* topo_faults.c - sim fault presets that turn a modelled machine into a
 * diagnosis exercise: link faults change the view, rank faults are
 * recorded for the runtime. The tree (and so the XML export) stays the
 * healthy machine; faults are an overlay. */
#include "topo/topo_internal.h"
#include "mgpu/facts.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ARG_NONE = 0, ARG_GPU = 1, ARG_RANK = 2, ARG_NIC = 3 };

typedef struct fault_def {
    const char *name;
    unsigned bit;
    int takes_arg;     /* ARG_*: what the first argument names */
    const char *help;  /* its syntax */
    const char *what;  /* one line for --help */
} fault_def;

static const fault_def faults[] = {
    {"nvlink-down", TOPO_FAULT_NVLINK_DOWN, ARG_GPU, "nvlink-down[:GPU]", "that GPU's NVLinks down"},
    {"p2p-disabled", TOPO_FAULT_P2P_DISABLED, ARG_NONE, "p2p-disabled", "no GPU reaches a peer's memory"},
    {"no-gdr", TOPO_FAULT_NO_GDR, ARG_NONE, "no-gdr", "GPUDirect RDMA off on every NIC"},
    {"straggler", TOPO_FAULT_STRAGGLER, ARG_RANK, "straggler[:RANK]",
     "that rank 3x slower in device work, collectives"},
    {"crash", TOPO_FAULT_CRASH, ARG_RANK, "crash[:RANK]", "that rank killed entering a collective"},
    {"nic-down", TOPO_FAULT_NIC_DOWN, ARG_NIC, "nic-down[:NIC]",
     "that NIC's port DOWN; its GPUs share the next NIC"},
    {"nic-slow", TOPO_FAULT_NIC_SLOW, ARG_NIC, "nic-slow[:NIC[:FACTOR]]",
     "its data FACTOR (default 4) x slower than its rate"},
    {"ib-speed", TOPO_FAULT_IB_SPEED, ARG_NIC, "ib-speed[:NIC[:GBITS]]",
     "that port trained at GBITS Gb/s (default half)"},
    {"pcie-downgrade", TOPO_FAULT_PCIE_DOWNGRADE, ARG_GPU, "pcie-downgrade[:GPU[:genGxW]]",
     "its PCIe link trained lower (default Gen4 x8)"},
    {"net-socket", TOPO_FAULT_NET_SOCKET, ARG_NONE, "net-socket",
     "NCCL on TCP sockets (NET/Socket) between hosts"},
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
    char known[600] = "";
    for (int i = 0; i < NFAULTS; i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", faults[i].help);
    return mgpu_fail(MGPU_ERR_INVALID, "--fault: '%.*s' is not a fault; known faults: %s (comma-separated)",
                     (int)(len > 60 ? 60 : len), item, known);
}

typedef struct parsed_fault {
    const fault_def *def;
    int arg;           /* -1 when not given */
    double value;      /* nic-slow's factor, ib-speed's Gb/s; 0 when not given */
    int gen, width;    /* pcie-downgrade's link; 0 when not given */
} parsed_fault;

static const char *arg_word(int takes_arg)
{
    return takes_arg == ARG_GPU ? "GPU" : takes_arg == ARG_NIC ? "NIC" : "rank";
}

/* A GPU's PCIe link as the tree wires it; 0s when it records none. */
static void wired_link(const mgpu_topo *t, int gpu, int *gen, int *width)
{
    const mgpu_xml_node *n = t->gpus[gpu].node, *pci = n && n->parent && strcmp(n->parent->name, "pci") == 0
                                                          ? n->parent : NULL;
    long long w = 0;
    *gen = pci ? mgpu_pcie_gen_of_speed(mgpu_xml_get(pci, "link_speed")) : 0;
    *width = pci && topo_parse_long(mgpu_xml_get(pci, "link_width"), &w) && w > 0 ? (int)w : 0;
}

/* GB/s per direction of a PCIe link, as topo_paths.c reads link_speed. */
static double pcie_link_gbs(int gen, int width)
{
    static const double gts[] = {0, 2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
    if (gen < 1 || gen > 6 || width < 1) return 0;
    double g = gts[gen], eff = g < 8.0 ? 0.8 : g < 64.0 ? 128.0 / 130.0 : 242.0 / 256.0;
    return g * width * eff / 8.0;
}

/* pcie-downgrade's default: Gen4 (or the wiring's generation, if lower) at
 * half the wired width. */
static void default_downgrade(int gen, int width, int *g, int *w)
{
    *g = gen < 4 ? gen : 4;
    *w = width > 1 ? width / 2 : 1;
}

/* The second field of an item (after ARG:), checked against the machine. */
static mgpu_result parse_value(const mgpu_topo *t, const char *item, int ilen, parsed_fault *f, const char *v,
                               size_t vl)
{
    char buf[24];
    if (vl == 0 || vl >= sizeof buf) goto bad;
    memcpy(buf, v, vl);
    buf[vl] = 0;
    char *end;
    if (f->def->bit == TOPO_FAULT_PCIE_DOWNGRADE) {
        int g, w, used = 0;
        if (sscanf(buf, "gen%dx%d%n", &g, &w, &used) != 2 || used != (int)vl || g < 1 || g > 6 ||
            (w != 1 && w != 2 && w != 4 && w != 8 && w != 16 && w != 32))
            return mgpu_fail(MGPU_ERR_INVALID, "--fault: '%.*s': the link after the GPU is like gen4x8 (generation 1 "
                             "to 6, width 1, 2, 4, 8, 16 or 32 lanes)", ilen, item);
        f->gen = g, f->width = w;
        return MGPU_OK;
    }
    double x = strtod(buf, &end);
    if (*end || !isfinite(x)) goto bad;
    if (f->def->bit == TOPO_FAULT_NIC_SLOW) {
        if (!(x > 1.0 && x <= 1000.0))
            return mgpu_fail(MGPU_ERR_INVALID, "--fault: '%.*s': the slowdown factor must be above 1 and at most 1000",
                             ilen, item);
    } else if (!(x > 0 && x < 1e6)) {
        goto bad;
    }
    f->value = x;
    (void)t;
    return MGPU_OK;
bad:
    return mgpu_fail(MGPU_ERR_INVALID, "--fault: '%.*s': the value after the %s must be a number (%s)", ilen, item,
                     arg_word(f->def->takes_arg), f->def->help);
}

/* A fault whose argument the machine has but which would change nothing
 * there (every report would claim a faulty machine that is not): refused. */
static mgpu_result check_applies(const mgpu_topo *t, const char *s, int len, parsed_fault *f)
{
    const fault_def *d = f->def;
    int arg = f->arg < 0 ? 0 : f->arg;
    if (d->bit == TOPO_FAULT_NVLINK_DOWN && t->gpus[arg].nvlinks_total == 0 && !t->gpu_nvlink_down[arg])
        return mgpu_fail(MGPU_ERR_INVALID, "--fault: %.*s: GPU %d of %s has no NVLink to take down (its "
                         "peers are reached over PCIe); pick a machine with NVLink (dgx-h100)", len, s,
                         arg, t->machine_name);
    if ((d->bit == TOPO_FAULT_NIC_SLOW || d->bit == TOPO_FAULT_NET_SOCKET) && t->nhosts < 2)
        return mgpu_fail(MGPU_ERR_INVALID, "--fault: %.*s changes only traffic between hosts, and %s has one host "
                         "(NCCL never uses the network inside it); pick a machine of several hosts (2x-dgx-h100)",
                         len, s, t->machine_name);
    if (d->bit == TOPO_FAULT_IB_SPEED) {
        double rate = t->nics[arg].speed_wired_gbps;
        if (!f->value) f->value = rate / 2;
        if (!(f->value < rate))
            return mgpu_fail(MGPU_ERR_INVALID, "--fault: %.*s: NIC %d (%s) of %s runs at %g Gb/s; a port at the "
                             "wrong speed trains below that", len, s, arg, t->nics[arg].name, t->machine_name, rate);
    }
    if (d->bit == TOPO_FAULT_PCIE_DOWNGRADE) {
        int gen, width;
        wired_link(t, arg, &gen, &width);
        if (!gen || !width)
            return mgpu_fail(MGPU_ERR_INVALID, "--fault: %.*s: %s records no PCIe link for GPU %d to downgrade", len,
                             s, t->machine_name, arg);
        if (!f->gen) default_downgrade(gen, width, &f->gen, &f->width);
        if (f->gen > gen || f->width > width || (f->gen == gen && f->width == width))
            return mgpu_fail(MGPU_ERR_INVALID, "--fault: %.*s: GPU %d of %s is wired Gen%d x%d; a downgraded link "
                             "trains below that (a lower generation or fewer lanes, neither above)", len, s, arg,
                             t->machine_name, gen, width);
    }
    return MGPU_OK;
}

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
        parsed_fault f = {.def = d, .arg = -1};
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
            int two = d->bit == TOPO_FAULT_NIC_SLOW || d->bit == TOPO_FAULT_IB_SPEED ||
                      d->bit == TOPO_FAULT_PCIE_DOWNGRADE;
            if (second && !two)
                return mgpu_fail(MGPU_ERR_INVALID, "--fault: '%.*s': %s takes one argument, the %s (%s)",
                                 (int)(e - s > 60 ? 60 : e - s), s, d->name, arg_word(d->takes_arg), d->help);
            if (second) {
                nl = (size_t)(second - colon - 1);
                MGPU_CHECK(parse_value(t, s, (int)(e - s > 60 ? 60 : e - s), &f, second + 1, (size_t)(e - second - 1)));
            }
            if (nl == 0 || nl >= sizeof num) goto badnum;
            memcpy(num, colon + 1, nl);
            num[nl] = 0;
            if (!topo_parse_long(num, &v) || v < 0 || v > 1000000) goto badnum;
            f.arg = (int)v;
            if (d->takes_arg == ARG_GPU && f.arg >= t->ngpus)
                return mgpu_fail(MGPU_ERR_INVALID, "--fault: %s:%d names GPU %d, but %s has %d GPU%s (0..%d)",
                                 d->name, f.arg, f.arg, t->machine_name, t->ngpus, t->ngpus == 1 ? "" : "s",
                                 t->ngpus - 1);
            if (d->takes_arg == ARG_NIC && f.arg >= t->nnics && t->nnics > 0)
                return mgpu_fail(MGPU_ERR_INVALID, "--fault: %s:%d names NIC %d, but %s has %d NIC%s (0..%d)",
                                 d->name, f.arg, f.arg, t->machine_name, t->nnics, t->nnics == 1 ? "" : "s",
                                 t->nnics - 1);
            goto ok;
badnum:
            return mgpu_fail(MGPU_ERR_INVALID, "--fault: '%.*s': the argument after ':' must be a %s number, 0 to "
                             "1000000", (int)(e - s > 60 ? 60 : e - s), s, arg_word(d->takes_arg));
        }
ok:
        if (d->takes_arg == ARG_GPU && t->ngpus == 0)
            return mgpu_fail(MGPU_ERR_INVALID, "--fault: %s needs a GPU, and %s has none", d->name, t->machine_name);
        if (d->takes_arg == ARG_NIC && t->nnics == 0)
            return mgpu_fail(MGPU_ERR_INVALID, "--fault: %s needs a NIC, and %s has none", d->name, t->machine_name);
        MGPU_CHECK(check_applies(t, s, (int)(e - s), &f));
        if (*n == max) return mgpu_fail(MGPU_ERR_INVALID, "--fault: more than %d faults", max);
        out[(*n)++] = f;
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
        case TOPO_FAULT_NIC_DOWN:
            t->nics[arg].down = 1;
            mgpu_topo_add_note(t, "fault nic-down:%d: NIC %d (%s on host %d) has its port DOWN: NCCL skips it, and "
                               "the GPUs that used it share the next nearest NIC", arg, arg, t->nics[arg].name,
                               t->nics[arg].host);
            break;
        case TOPO_FAULT_NIC_SLOW: {
            double f = list[i].value > 0 ? list[i].value : 4.0;
            t->nics[arg].slow = f;
            mgpu_topo_add_note(t, "fault nic-slow:%d:%g: NIC %d (%s on host %d) moves data %gx slower than its %g "
                               "Gb/s (a port with link errors and retransmissions; its rate still reads the same)",
                               arg, f, arg, t->nics[arg].name, t->nics[arg].host, f, t->nics[arg].speed_gbps);
            break;
        }
        case TOPO_FAULT_IB_SPEED:
            t->nics[arg].speed_gbps = list[i].value;
            mgpu_topo_add_note(t, "fault ib-speed:%d:%g: NIC %d (%s on host %d) trained at %g Gb/s instead of its %g "
                               "Gb/s (a cable or port at the wrong speed)", arg, list[i].value, arg,
                               t->nics[arg].name, t->nics[arg].host, list[i].value, t->nics[arg].speed_wired_gbps);
            break;
        case TOPO_FAULT_PCIE_DOWNGRADE: {
            int gen, width;
            wired_link(t, arg, &gen, &width);
            double was = t->gpus[arg].pcie_gbs, now = pcie_link_gbs(list[i].gen, list[i].width);
            t->gpus[arg].pcie_gen_now = list[i].gen;
            t->gpus[arg].pcie_width_now = list[i].width;
            topo_paths_set_gpu_link(t, arg, now);
            mgpu_topo_add_note(t, "fault pcie-downgrade:%d:gen%dx%d: GPU %d's PCIe link trained at Gen%d x%d instead "
                               "of Gen%d x%d (%.1f GB/s a direction instead of %.1f)", arg, list[i].gen,
                               list[i].width, arg, list[i].gen, list[i].width, gen, width, now, was);
            break;
        }
        case TOPO_FAULT_NET_SOCKET:
            mgpu_topo_add_note(t, "fault net-socket: NCCL's InfiniBand transport did not load (no RDMA library in "
                               "the container, or NCCL_IB_DISABLE=1): traffic between hosts goes over TCP sockets "
                               "(NET/Socket)");
            break;
        }
    }
    topo_paths_pick_nics(t); /* a NIC or a GPU's link changed: each GPU's way out again */
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

const char *mgpu_topo_fault_help(void)
{
    static char text[2048];
    if (text[0]) return text;
    size_t k = 0;
    for (int i = 0; i < NFAULTS && k < sizeof text; i++)
        k += (size_t)snprintf(text + k, sizeof text - k, "%27s%s\n%29s%s\n", "", faults[i].help, "", faults[i].what);
    return text;
}
