/* topo_paths.c - path type, modelled bandwidth and latency between two
 * GPUs, a GPU and a NIC, or two NICs; peer access. Computed on demand from
 * each device's way up the tree (at most 64 hops, read once per device), so
 * a 4096-GPU model costs no N^2 table. The mapping is documented in
 * docs/topology-model.md. */
#include "topo/topo_internal.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DEFAULT_PCIE_GBS 12.0 /* NCCL's PCI_BW (Gen3 x16) when no link says */

/* One-way latency per path type in microseconds (order-of-magnitude model
 * values; `mgpulab copy latency` measures the real ones). */
static const double latency_us[] = {
    [MGPU_PATH_X] = 0.0,   [MGPU_PATH_NV] = 0.7,   [MGPU_PATH_PIX] = 1.0,
    [MGPU_PATH_PXB] = 1.2, [MGPU_PATH_PHB] = 1.4,  [MGPU_PATH_NODE] = 1.6,
    [MGPU_PATH_SYS] = 2.2, [MGPU_PATH_NET] = 3.0,
};
#define NO_GDR_EXTRA_US 1.0 /* bounce through host memory */

static double link_gbs(const mgpu_xml_node *pci)
{
    const char *sp = mgpu_xml_get(pci, "link_speed");
    long long width;
    if (!sp || !*sp || !topo_parse_long(mgpu_xml_get(pci, "link_width"), &width) || width <= 0) return 0;
    double gts = strtod(sp, NULL);
    if (!(gts > 0 && gts <= 1000)) return 0;
    double eff = gts < 8.0 ? 0.8 : gts < 64.0 ? 128.0 / 130.0 : 242.0 / 256.0;
    return gts * (double)width * eff / 8.0;
}

static int is_pci(const mgpu_xml_node *n) { return strcmp(n->name, "pci") == 0; }

static int is_host_bridge_class(const mgpu_xml_node *pci)
{
    long long cls;
    return topo_parse_long(mgpu_xml_get(pci, "class"), &cls) && cls == TOPO_CLASS_HOST_BRIDGE;
}

/* Where a device sits in the tree: its <pci> parent, or the device element
 * itself when the file gives none. */
static const mgpu_xml_node *dev_elem(const mgpu_xml_node *dev)
{
    return dev->parent && is_pci(dev->parent) ? dev->parent : dev;
}

/* One element on a device's way to the root, with what the PCIe relation
 * reads of it worked out once: a 2,000-GPU model asks for 4 million
 * relations, and reading the attributes each time (names compared, numbers
 * parsed) was most of `mgpulab topo`'s time on it. */
struct topo_hop {
    const mgpu_xml_node *node;
    double link_gbs;          /* its upstream link (a <pci>'s), 0 none */
    unsigned char pci, host_bridge;
    unsigned char known;      /* <pci>, <cpu> or <system>: what a relation is named after */
    unsigned char system;     /* <system> */
};

/* The hops of device element `dev`, itself first, then each parent up to the root. */
static mgpu_result chain_of(const mgpu_xml_node *dev, topo_chain *out)
{
    int n = 0;
    for (const mgpu_xml_node *x = dev; x; x = x->parent) n++;
    out->hop = malloc((size_t)n * sizeof *out->hop);
    if (!out->hop) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory building the topology view");
    out->n = n;
    int i = 0;
    for (const mgpu_xml_node *x = dev; x; x = x->parent, i++) {
        topo_hop *h = &out->hop[i];
        h->node = x;
        h->pci = (unsigned char)is_pci(x);
        h->link_gbs = h->pci ? link_gbs(x) : 0;
        h->host_bridge = (unsigned char)(h->pci && is_host_bridge_class(x));
        h->system = strcmp(x->name, "system") == 0;
        h->known = h->pci || h->system || strcmp(x->name, "cpu") == 0;
    }
    return MGPU_OK;
}

/* The PCIe relation of two device elements on one host (their chains):
 * type and the slowest link crossed (each <pci> carries its upstream link). */
static void pcie_relation(const mgpu_topo *t, int host, const topo_chain *ca, const topo_chain *cb,
                          mgpu_path_type *type, double *bw)
{
    double slowest = 0;
    int bridges = 0, host_bridge = 0;
    int i = 0, j = 0; /* hop i of a, hop j of b: climbing, each at its own depth ca->n - 1 - i */
    /* Climb to the common ancestor, folding in each link crossed; a
     * <pci> passed on the way (not the endpoints) is a bridge. */
#define CROSS(h, endpoint)                                                           \
    do {                                                                             \
        double g_ = (h)->link_gbs;                                                   \
        if (g_ > 0 && (slowest == 0 || g_ < slowest)) slowest = g_;                  \
        if (!(endpoint) && (h)->pci) bridges++, host_bridge |= (h)->host_bridge;     \
    } while (0)
    while (ca->n - i > cb->n - j) { CROSS(&ca->hop[i], i == 0); i++; }
    while (cb->n - j > ca->n - i) { CROSS(&cb->hop[j], j == 0); j++; }
    while (i < ca->n && ca->hop[i].node != cb->hop[j].node) {
        CROSS(&ca->hop[i], i == 0);
        CROSS(&cb->hop[j], j == 0);
        i++, j++;
    }
#undef CROSS
    /* An element the view does not know (kept for round trip) stands for
     * its nearest known ancestor. */
    while (i < ca->n && !ca->hop[i].known) i++;
    const topo_hop *lca = i < ca->n ? &ca->hop[i] : NULL;
    if (ca->hop[0].node == cb->hop[0].node) *type = MGPU_PATH_PIX;
    else if (!lca || lca->system) *type = MGPU_PATH_SYS;
    else if (!lca->pci) *type = MGPU_PATH_NODE;
    else {
        bridges++; /* the common <pci> itself */
        host_bridge |= lca->host_bridge;
        *type = host_bridge ? MGPU_PATH_PHB : bridges == 1 ? MGPU_PATH_PIX : MGPU_PATH_PXB;
    }
    if (slowest == 0) slowest = DEFAULT_PCIE_GBS;
    if (*type == MGPU_PATH_SYS && t->host_intersocket_gbs[host] < slowest) slowest = t->host_intersocket_gbs[host];
    *bw = slowest;
}

static int nvlinks_between(const mgpu_topo *t, int a, int b)
{
    if (t->gpu_nvlink_down[a] || t->gpu_nvlink_down[b]) return 0;
    const mgpu_topo_gpu *ga = &t->gpus[a], *gb = &t->gpus[b];
    int direct = 0;
    if (gb->busid[0])
        for (int i = 0; i < ga->node->nchildren; i++) {
            const mgpu_xml_node *l = ga->node->children[i];
            const char *tgt = mgpu_xml_get(l, "target");
            long long cnt;
            if (strcmp(l->name, "nvlink") == 0 && tgt && strcasecmp(tgt, gb->busid) == 0 &&
                topo_parse_long(mgpu_xml_get(l, "count"), &cnt))
                direct += (int)cnt;
        }
    if (direct) return direct;
    /* Through NVSwitches both GPUs reach each other at the rate of the
     * one with fewer switch links, as NCCL computes it. */
    int sa = t->gpu_nvsw_links[a], sb = t->gpu_nvsw_links[b];
    return sa < sb ? sa : sb;
}

static double nvlink_link_gbs(const mgpu_topo_gpu *g)
{
    const mgpu_gpu_model *m = mgpu_gpu_model_by_name(g->name);
    if (m && m->nvlink_gbs > 0) return m->nvlink_gbs;
    return topo_nvlink_gbs_for_sm(g->sm);
}

static mgpu_topo_path make(mgpu_path_type type, double bw)
{
    mgpu_topo_path p = {type, 0, bw, latency_us[type]};
    return p;
}

static mgpu_topo_path bad_path(void)
{
    mgpu_topo_path p = {MGPU_PATH_NET, 0, 0, 0};
    return p;
}


/* The bandwidth a GPU gets onto the network: its best NIC that is up
 * (closest path, then fastest), limited by the PCIe path to it. Computed
 * once per model so that a path across hosts costs O(1), not a scan of the
 * NICs. A GPU whose own NIC is down (the nic-down fault) falls back to the
 * next one and shares it with the GPUs already there; a slow NIC (nic-slow)
 * gives each of its GPUs its line rate divided by the slowdown. */
void topo_paths_pick_nics(mgpu_topo *t)
{
    int *users = calloc((size_t)t->nnics + 1, sizeof *users), *wired = calloc((size_t)t->nnics + 1, sizeof *wired);
    int first = 0; /* NICs are sorted by host: scan only this host's run */
    for (int pass = 0; pass < 2; pass++) { /* pass 0: the healthy choice; pass 1: skipping NICs that are down */
        first = 0;
        for (int g = 0; g < t->ngpus; g++) {
            int host = t->gpus[g].host, best = -1;
            mgpu_topo_path bp = {0};
            while (first < t->nnics && t->nics[first].host < host) first++;
            for (int i = first; i < t->nnics && t->nics[i].host == host; i++) {
                if (pass && t->nics[i].down) continue;
                mgpu_topo_path p = mgpu_topo_gpu_nic_path(t, g, i);
                if (best < 0 || p.type < bp.type ||
                    (p.type == bp.type && t->nics[i].speed_wired_gbps > t->nics[best].speed_wired_gbps))
                    best = i, bp = p;
            }
            if (!pass) {
                if (best >= 0 && wired) wired[best]++;
                continue;
            }
            t->gpu_best_nic[g] = best;
            t->gpu_net_gbs[g] = 0;
            if (best >= 0 && users) users[best]++;
        }
    }
    for (int g = 0; g < t->ngpus; g++) {
        int best = t->gpu_best_nic[g];
        if (best < 0) continue;
        const mgpu_topo_nic *n = &t->nics[best];
        /* more GPUs on this NIC than it was wired for: they share it */
        double share = users && wired && users[best] > wired[best] && wired[best] > 0
                           ? (double)wired[best] / users[best] : 1.0;
        double nic = n->speed_gbps / 8.0 * share / (n->slow >= 1.0 ? n->slow : 1.0);
        double pcie = mgpu_topo_gpu_nic_path(t, g, best).bw_gbs;
        t->gpu_net_gbs[g] = nic < pcie ? nic : pcie;
        if (t->gpu_net_wired[g] < 0) t->gpu_net_wired[g] = t->gpu_net_gbs[g];
    }
    free(users);
    free(wired);
}

mgpu_result topo_paths_prepare(mgpu_topo *t)
{
    t->gpu_chain = calloc((size_t)t->ngpus + 1, sizeof *t->gpu_chain);
    t->nic_chain = calloc((size_t)t->nnics + 1, sizeof *t->nic_chain);
    if (!t->gpu_chain || !t->nic_chain) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory building the topology view");
    for (int g = 0; g < t->ngpus; g++) MGPU_CHECK(chain_of(dev_elem(t->gpus[g].node), &t->gpu_chain[g]));
    /* A NIC's node is its <port>; the device is the <nic> above it. */
    for (int i = 0; i < t->nnics; i++) MGPU_CHECK(chain_of(dev_elem(t->nics[i].node->parent), &t->nic_chain[i]));
    t->gpu_best_nic = malloc(((size_t)t->ngpus + 1) * sizeof *t->gpu_best_nic);
    t->gpu_net_gbs = calloc((size_t)t->ngpus + 1, sizeof *t->gpu_net_gbs);
    t->gpu_net_wired = malloc(((size_t)t->ngpus + 1) * sizeof *t->gpu_net_wired);
    if (!t->gpu_best_nic || !t->gpu_net_gbs || !t->gpu_net_wired)
        return mgpu_fail(MGPU_ERR_NOMEM, "out of memory building the topology view");
    for (int g = 0; g <= t->ngpus; g++) t->gpu_net_wired[g] = -1;
    topo_paths_pick_nics(t);
    return MGPU_OK;
}

void topo_paths_set_gpu_link(mgpu_topo *t, int gpu, double gbs)
{
    if (gpu < 0 || gpu >= t->ngpus) return;
    t->gpus[gpu].pcie_gbs = gbs;
    /* the GPU's own <pci> is the first hop of its way up: every path from
     * it (to a peer over PCIe, to a NIC) crosses this link */
    topo_chain *c = &t->gpu_chain[gpu];
    if (c->n > 0 && c->hop[0].pci) c->hop[0].link_gbs = gbs;
}

int mgpu_topo_gpu_nic(const mgpu_topo *t, int gpu)
{
    if (!t || gpu < 0 || gpu >= t->ngpus) return -1;
    return t->gpu_best_nic[gpu];
}

double mgpu_topo_gpu_net_factor(const mgpu_topo *t, int gpu)
{
    if (!t || gpu < 0 || gpu >= t->ngpus || !(t->gpu_net_wired[gpu] > 0)) return 1.0;
    double f = t->gpu_net_gbs[gpu] / t->gpu_net_wired[gpu];
    return f > 0 && f < 1.0 ? f : 1.0;
}

void topo_paths_release(mgpu_topo *t)
{
    for (int g = 0; t->gpu_chain && g < t->ngpus; g++) free(t->gpu_chain[g].hop);
    for (int i = 0; t->nic_chain && i < t->nnics; i++) free(t->nic_chain[i].hop);
    free(t->gpu_chain);
    free(t->nic_chain);
    free(t->gpu_best_nic);
    free(t->gpu_net_gbs);
    free(t->gpu_net_wired);
}

static double gpu_net_gbs(const mgpu_topo *t, int gpu, double *extra_lat)
{
    int best = t->gpu_best_nic[gpu];
    *extra_lat = best >= 0 && (!t->gpus[gpu].gdr || !t->nics[best].gdr) ? NO_GDR_EXTRA_US : 0;
    return t->gpu_net_gbs[gpu];
}

mgpu_topo_path mgpu_topo_gpu_path(const mgpu_topo *t, int a, int b)
{
    if (!t || a < 0 || b < 0 || a >= t->ngpus || b >= t->ngpus) return bad_path();
    const mgpu_topo_gpu *ga = &t->gpus[a], *gb = &t->gpus[b];
    if (a == b) return make(MGPU_PATH_X, ga->hbm_gbs);
    if (ga->host != gb->host) {
        double la, lb;
        double x = gpu_net_gbs(t, a, &la), y = gpu_net_gbs(t, b, &lb);
        mgpu_topo_path p = make(MGPU_PATH_NET, x < y ? x : y);
        p.latency_us += la + lb;
        return p;
    }
    int nv = nvlinks_between(t, a, b);
    if (nv > 0) {
        double la = nvlink_link_gbs(ga), lb = nvlink_link_gbs(gb);
        mgpu_topo_path p = make(MGPU_PATH_NV, nv * (la < lb ? la : lb));
        p.nvlinks = nv;
        return p;
    }
    mgpu_path_type type;
    double bw;
    pcie_relation(t, ga->host, &t->gpu_chain[a], &t->gpu_chain[b], &type, &bw);
    return make(type, bw);
}

mgpu_topo_path mgpu_topo_gpu_nic_path(const mgpu_topo *t, int gpu, int nic)
{
    if (!t || gpu < 0 || nic < 0 || gpu >= t->ngpus || nic >= t->nnics) return bad_path();
    const mgpu_topo_gpu *g = &t->gpus[gpu];
    const mgpu_topo_nic *n = &t->nics[nic];
    if (g->host != n->host) {
        double lat;
        double x = gpu_net_gbs(t, gpu, &lat), y = n->speed_gbps / 8.0;
        mgpu_topo_path p = make(MGPU_PATH_NET, x < y ? x : y);
        p.latency_us += lat;
        return p;
    }
    mgpu_path_type type;
    double bw;
    pcie_relation(t, g->host, &t->gpu_chain[gpu], &t->nic_chain[nic], &type, &bw);
    mgpu_topo_path p = make(type, bw);
    if (!g->gdr || !n->gdr) p.latency_us += NO_GDR_EXTRA_US;
    return p;
}

mgpu_topo_path mgpu_topo_nic_nic_path(const mgpu_topo *t, int a, int b)
{
    if (!t || a < 0 || b < 0 || a >= t->nnics || b >= t->nnics) return bad_path();
    const mgpu_topo_nic *x = &t->nics[a], *y = &t->nics[b];
    if (a == b) return make(MGPU_PATH_X, x->speed_gbps / 8.0);
    if (x->host != y->host) {
        double s = (x->speed_gbps < y->speed_gbps ? x->speed_gbps : y->speed_gbps) / 8.0;
        return make(MGPU_PATH_NET, s);
    }
    mgpu_path_type type;
    double bw;
    pcie_relation(t, x->host, &t->nic_chain[a], &t->nic_chain[b], &type, &bw);
    return make(type, bw);
}

/*--- Peer access ------------------------------------------------------*/

int mgpu_topo_gpu_nvswitch_links(const mgpu_topo *t, int gpu)
{
    if (!t || gpu < 0 || gpu >= t->ngpus || t->gpu_nvlink_down[gpu]) return 0;
    return t->gpu_nvsw_links[gpu];
}

int mgpu_topo_peer_access(const mgpu_topo *t, int a, int b)
{
    if (!t || a < 0 || b < 0 || a >= t->ngpus || b >= t->ngpus) return -1;
    if (a == b) return 0; /* as cudaDeviceCanAccessPeer(d, d) */
    if (t->faults & TOPO_FAULT_P2P_DISABLED) return 0;
    if (t->peer_override && t->peer_override[(size_t)a * t->ngpus + b] != -2)
        return t->peer_override[(size_t)a * t->ngpus + b];
    mgpu_path_type type = mgpu_topo_gpu_path(t, a, b).type;
    /* P2P works over NVLink and PCIe within a socket; across the SMP link
     * most platforms (and CUDA's defaults) refuse it, across hosts never. */
    return type <= MGPU_PATH_NODE ? 1 : 0;
}

void mgpu_topo_set_peer_access(mgpu_topo *t, int a, int b, int can)
{
    if (!t || a < 0 || b < 0 || a >= t->ngpus || b >= t->ngpus) return;
    if (!t->peer_override) {
        size_t n = (size_t)t->ngpus * t->ngpus;
        t->peer_override = malloc(n);
        if (!t->peer_override) return;
        memset(t->peer_override, -2, n);
    }
    t->peer_override[(size_t)a * t->ngpus + b] = (signed char)(can < 0 ? -1 : can ? 1 : 0);
}
