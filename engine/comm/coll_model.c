/* coll_model.c - predicted collective times: NCCL's tuner (src/graph/tuning.cc)
 * over bus bandwidths read from the topology model. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "mgpu/collmodel.h"

/*--- NCCL's constants (tuning.cc; docs/sim-collectives.md cites them) ---*/

enum { HW_NVLINK = 0, HW_PCI = 1, HW_NET = 2 };
/* Indexed [algo][proto] with our algo order ring = 0, tree = 1. µs. */
static const double base_lat[2][3] = {{3.6, 10.0, 8.4}, {4.4, 4.4, 0.0}};
static const double hw_lat[3][2][3] = {
    /* NVLink */ {{0.47, 1.9, 3.4}, {0.52, 1.2, 28.0}},
    /* PCI    */ {{1.0, 2.5, 5.7}, {1.0, 1.9, 28.0}},
    /* NET    */ {{2.7, 4.0, 9.6}, {5.0, 8.5, 50.0}},
};
/* LL128 per-channel ceilings (GB/s): broadcast, reduce, all_gather, reduce_scatter, all_reduce. */
static const double ll128_max_bw_per_ch[5] = {18.8, 12.0, 18.3, 15.2, 16.7};
/* Trees stray from alpha-beta at medium sizes; NCCL corrects by size class
 * (index log2(bytes / 64)), [proto][class]. */
static const double tree_correction[3][22] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .5, .6, .6, .7, .7, .8, .9, .9, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .5, .5, .6, .6, .7, .8, .9},
};

/*--- Our link efficiencies (the fraction of a link's peak a ring keeps) ---*/

/* NVLink: 0.85 of links x per-link rate, as the sim's copy model (382.5 GB/s
 * on NV18), which puts an 8xH100 ring all_reduce at 256 MiB at ~366 GB/s
 * busbw, the published NVLS-off figure. */
#define EFF_NVLINK 0.85
#define EFF_PCIE (55.3 / 63.0)   /* the pinned-copy efficiency measured on the H200 machine */
#define EFF_NET 0.92             /* IB NDR: ~46 of 50 GB/s per NIC in ib_write_bw-like runs */
#define EFF_HBM (0.8375 / 2.0)   /* a local copy reads and writes every byte */
/* Through a bounce buffer in host memory (SHM between GPUs without P2P, a
 * NIC without GPUDirect RDMA): the sim's copy model prices a peer copy
 * without peer access at half the slower hop (docs/sim-model.md: store and
 * forward), and the collectives use the same rule so both agree. */
#define EFF_STAGED 0.5
#define NVLINK_CHANNELS 16       /* NCCL's ring channels on an NVSwitch node (LL128 ceiling) */
#define PCI_CHANNELS 2

/*--- NVLink SHARP (NVLS) ------------------------------------------------*/

/* The share of a GPU's NVSwitch bandwidth NVLS keeps. An NVLS all_reduce
 * moves S(1 + 1/n) through each GPU's links each way (the switch pulls
 * every GPU's data once and multicasts the reduced shards back, plus the
 * shard's own reduce request): 8 x H100 measured algbw 275 GB/s, busbw
 * 480 (NVIDIA/nccl-tests#212, NVIDIA/nccl#2140), 275 x 9/8 = 309 GB/s of
 * the 450 GB/s line rate. The same rate gives 5/6/7 GPUs 411/441/463 GB/s
 * busbw against the 420/440/460 of NVIDIA/nccl#1455, and 2-4 GPUs less
 * than the ring (so the ring stays, 365-370 there as measured). */
#define EFF_NVLS (309.0 / 450.0)
#define NVLS_CHANNELS 16          /* NCCL's NVLS_NCHANNELS_SM90 (src/transport/nvls.cc) */
#define NVLS_CHUNK (128u << 10)   /* NCCL_NVLS_CHUNKSIZE's default */
#define NVLS_STEPS 8              /* NCCL_STEPS */
/* NVLS latencies (us), NCCL's tuning.cc at 5067397c: NVLS has no base
 * latency; 25 inside the node, 18 (NVLS with SHARP) or 20.9 (NVLSTree) per
 * network hop. */
#define NVLS_LAT_NVLINK 25.0
#define NVLS_LAT_NET 18.0
#define NVLSTREE_LAT_NET 20.9
/* NVLSTree's bus bandwidth per NVLS head (one a NIC), Hopper: 57.7 GB/s on
 * 2 nodes, 45.5 on more (tuning.cc's perChMaxNVLSTreeBws). 8 heads on two
 * DGX H100: 462 GB/s busbw, where 8 x H100 over 8 x 400G measured 430
 * (NVIDIA/nccl#1221); on 4+ nodes 364, as the ring (#1221: "the same"). */
static const double nvlstree_per_head[2] = {57.7, 45.5};

const char *mgpu_coll_algo_name(mgpu_coll_algo a)
{
    static const char *const n[] = {"ring", "tree", "p2p", "collnet", "nvls", "nvlstree"};
    return (unsigned)a < MGPU_ALGO_COUNT ? n[a] : "?";
}

const char *mgpu_coll_algo_nccl_name(mgpu_coll_algo a)
{
    static const char *const n[] = {"RING", "TREE", "P2P", "COLLNET_DIRECT", "NVLS", "NVLS_TREE"};
    return (unsigned)a < MGPU_ALGO_COUNT ? n[a] : "?";
}

const char *mgpu_coll_proto_name(mgpu_coll_proto p)
{
    static const char *const n[] = {"LL", "LL128", "Simple"};
    return (unsigned)p < MGPU_PROTO_COUNT ? n[p] : "?";
}

/* The one source of the factors: busbw = algbw x k(n-1)/n, or algbw when k
 * is 0. The bench (engine/bench/coll_bench.c), the model's predictions and
 * `mgpulab bench --help`'s list (mgpu_coll_busbw_factor_text) all read k. */
static int busbw_k(mgpu_coll op)
{
    switch (op) {
    /* a ring all-reduce sends and receives 2(n-1)/n of the data per rank */
    case MGPU_COLL_ALL_REDUCE:
    case MGPU_COLL_BARRIER: return 2;
    /* each rank receives the n-1 blocks it does not own; the block a rank
     * keeps for itself never crosses a link */
    case MGPU_COLL_ALL_GATHER:
    case MGPU_COLL_REDUCE_SCATTER:
    case MGPU_COLL_ALLTOALL: return 1;
    /* broadcast, reduce, send/recv: every byte crosses each link of the
     * pipeline once, busbw = algbw */
    default: return 0;
    }
}

double mgpu_coll_busbw_factor(mgpu_coll op, int n)
{
    if (n <= 0) return 0.0;
    int k = busbw_k(op);
    return k ? (double)k * (n - 1) / n : 1.0;
}

const char *mgpu_coll_busbw_factor_text(mgpu_coll op)
{
    switch (busbw_k(op)) {
    case 0: return "1";
    case 1: return "(n-1)/n";
    default: return "2(n-1)/n";
    }
}

/* A name NCCL_ALGO or NCCL_PROTO accepts and what it maps to here (-2:
 * known to NCCL, not modelled - PAT runs only with one GPU per node). */
typedef struct choice_name {
    const char *name;
    int value;
} choice_name;

/* NCCL_ALGO / NCCL_PROTO: one known name forces it (*single); a list
 * ("ring,nvls") allows only those, "^nvls" all but those (*mask, bit per
 * value). NCCL's per-collective form ("allreduce:tree;...") leaves the
 * choice to the model. An unknown name fails as NCCL refuses it. */
static mgpu_result parse_choice(const char *var, const choice_name *names, int n, const char *known, int *single,
                                unsigned *mask)
{
    const char *v = getenv(var);
    *single = -1;
    *mask = 0;
    if (!v || !*v || strpbrk(v, ";:")) return MGPU_OK;
    int neg = v[0] == '^', count = 0, last = -1;
    unsigned bits = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", v + neg);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int i = 0;
        while (i < n && strcasecmp(tok, names[i].name) != 0) i++;
        if (i == n) return mgpu_fail(MGPU_ERR_INVALID, "%s='%s': '%s' is not known here; use %s", var, v, tok, known);
        count++;
        last = names[i].value;
        if (last >= 0) bits |= 1u << last;
    }
    if (!neg && count == 1 && last >= 0) *single = last;
    if (neg) *mask = ~bits;
    else *mask = bits;
    return MGPU_OK;
}

/* NCCL_NET_GDR_LEVEL: a path name or NCCL's number (0 LOC .. 5 SYS). */
static mgpu_result parse_gdr_level(int *out)
{
    static const char *const names[] = {"LOC", "PIX", "PXB", "PHB", "SYS"};
    static const int paths[] = {-1, MGPU_PATH_PIX, MGPU_PATH_PXB, MGPU_PATH_PHB, MGPU_PATH_SYS};
    static const int by_number[] = {-1, MGPU_PATH_PIX, MGPU_PATH_PXB, MGPU_PATH_PHB, MGPU_PATH_NODE, MGPU_PATH_SYS};
    const char *v = getenv("NCCL_NET_GDR_LEVEL");
    *out = 0;
    if (!v || !*v) return MGPU_OK;
    for (int i = 0; i < 5; i++)
        if (strcasecmp(v, names[i]) == 0) {
            *out = paths[i];
            return MGPU_OK;
        }
    if (v[0] >= '0' && v[0] <= '5' && !v[1]) {
        *out = by_number[v[0] - '0'];
        return MGPU_OK;
    }
    return mgpu_fail(MGPU_ERR_INVALID, "NCCL_NET_GDR_LEVEL='%s' is not known here; use LOC, PIX, PXB, PHB, SYS or 0-5", v);
}

static int env_flag(const char *var)
{
    const char *v = getenv(var);
    return v && *v && strcmp(v, "0") != 0;
}

mgpu_result mgpu_coll_tuning_from_env(mgpu_coll_tuning *out)
{
    static const choice_name algos[] = {
        {"ring", MGPU_ALGO_RING},       {"tree", MGPU_ALGO_TREE},           {"nvls", MGPU_ALGO_NVLS},
        {"nvlstree", MGPU_ALGO_NVLS_TREE}, {"collnetdirect", MGPU_ALGO_COLLNET}, {"collnetchain", MGPU_ALGO_COLLNET},
        {"collnet", MGPU_ALGO_COLLNET}, {"pat", -2},
    };
    static const choice_name protos[] = {{"LL", MGPU_PROTO_LL}, {"LL128", MGPU_PROTO_LL128}, {"Simple", MGPU_PROTO_SIMPLE}};
    if (!out) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_coll_tuning_from_env: out is NULL");
    memset(out, 0, sizeof *out);
    MGPU_CHECK(parse_choice("NCCL_ALGO", algos, 8, "Ring, Tree, NVLS, NVLSTree, CollNetDirect, CollNetChain or PAT",
                            &out->algo, &out->algo_mask));
    MGPU_CHECK(parse_choice("NCCL_PROTO", protos, 3, "LL, LL128 or Simple", &out->proto, &out->proto_mask));
    const char *nv = getenv("NCCL_NVLS_ENABLE");
    /* A launched rank's NCCL_NVLS_ENABLE is the launcher's 0, which keeps
     * NVLink multicast off on real GPUs (rt/launch.c, nccl_dl.c); the model's
     * NVLS is no hardware, so it takes the value the user or the call asked
     * for, passed on as MGPU_SIM_NVLS_ENABLE (unset: NCCL's default). */
    if (getenv("MGPU_COORD")) nv = getenv("MGPU_SIM_NVLS_ENABLE");
    if (nv && *nv) {
        if (strcmp(nv, "0") && strcmp(nv, "1") && strcmp(nv, "2"))
            return mgpu_fail(MGPU_ERR_INVALID, "NCCL_NVLS_ENABLE='%s' is not known here; use 0 (off), 1 (on) or 2 "
                             "(NCCL's default: where the machine supports it)", nv);
        out->nvls = nv[0] == '0' ? -1 : nv[0] == '1' ? 1 : 0;
    }
    MGPU_CHECK(parse_gdr_level(&out->gdr_max_path));
    out->p2p_disable = env_flag("NCCL_P2P_DISABLE");
    out->collnet = env_flag("NCCL_COLLNET_ENABLE");
    return MGPU_OK;
}

/*--- Transports: how NCCL would connect two GPUs -------------------------*/

/* The NIC a GPU's network traffic leaves through: the nearest on its host,
 * then the fastest (-1 when the host has none). */
static int nearest_nic(const mgpu_topo *t, int gpu)
{
    /* NCCL's IB transport did not load (the net-socket fault): no NIC is
     * used as one; its NICs that are down are skipped (nic-down) */
    if (mgpu_topo_has_fault(t, "net-socket")) return -1;
    return mgpu_topo_gpu_nic(t, gpu);
}

/* GPUDirect RDMA from `gpu` through `nic`: both capable (the no-gdr fault
 * clears them) and the path within NCCL_NET_GDR_LEVEL (default PXB). */
static int uses_gdr(const mgpu_topo *t, int gpu, int nic, const mgpu_coll_tuning *tun)
{
    const mgpu_topo_gpu *g = mgpu_topo_gpu_at(t, gpu);
    const mgpu_topo_nic *n = mgpu_topo_nic_at(t, nic);
    int limit = tun && tun->gdr_max_path ? tun->gdr_max_path : MGPU_PATH_PXB;
    if (!g || !n || !g->gdr || !n->gdr || limit < 0) return 0;
    return (int)mgpu_topo_gpu_nic_path(t, gpu, nic).type <= limit;
}

/* One NIC's rate for a GPU's traffic: the line rate, or without GPUDirect
 * RDMA the bounce through host memory (half the slower of NIC and PCIe). */
static double nic_rate(const mgpu_topo *t, int gpu, int nic, int gdr)
{
    const mgpu_topo_nic *n = mgpu_topo_nic_at(t, nic);
    const mgpu_topo_gpu *g = mgpu_topo_gpu_at(t, gpu);
    double line = (n ? n->speed_gbps / 8.0 : 12.5) * EFF_NET;
    if (gdr) return line;
    double pcie = (g && g->pcie_gbs > 0 ? g->pcie_gbs : 32.0) * EFF_PCIE;
    return (line < pcie ? line : pcie) * EFF_STAGED;
}

void mgpu_coll_link_between(const mgpu_topo *t, int a, int b, const mgpu_coll_tuning *tun, mgpu_coll_link *out)
{
    memset(out, 0, sizeof *out);
    out->nic = -1;
    const mgpu_topo_gpu *ga = mgpu_topo_gpu_at(t, a), *gb = mgpu_topo_gpu_at(t, b);
    if (!ga || !gb) return;
    if (ga->host != gb->host) {
        out->kind = MGPU_XPORT_NET;
        out->nic = nearest_nic(t, a);
        if (out->nic < 0) {
            out->gbs = 12.5 * EFF_NET; /* NCCL falls back to a socket: a 100 Gb/s Ethernet NIC */
            snprintf(out->via, sizeof out->via, "NET/Socket/0");
            return;
        }
        out->gdr = uses_gdr(t, a, out->nic, tun);
        out->gbs = nic_rate(t, a, out->nic, out->gdr);
        int local = 0; /* NCCL numbers a host's NICs from 0 */
        for (int i = 0; i < out->nic; i++) /* the active ones: NCCL lists no port that is down */
            local += mgpu_topo_nic_at(t, i)->host == ga->host && !mgpu_topo_nic_at(t, i)->down;
        snprintf(out->via, sizeof out->via, "NET/IB/%d%s", local, out->gdr ? "/GDRDMA" : "");
        return;
    }
    if (a == b) {
        /* two ranks on one GPU: NCCL refuses ("Duplicate GPU"); the sim
         * lets them talk through device memory, shown as SHM */
        out->kind = MGPU_XPORT_SELF;
        out->gbs = (ga->hbm_gbs > 0 ? ga->hbm_gbs : 2000.0) * EFF_HBM;
        snprintf(out->via, sizeof out->via, "SHM/direct/direct");
        return;
    }
    mgpu_topo_path p = mgpu_topo_gpu_path(t, a, b);
    int p2p = !(tun && tun->p2p_disable) && mgpu_topo_peer_access(t, a, b) == 1 && mgpu_topo_peer_access(t, b, a) == 1;
    if (p2p) {
        out->kind = MGPU_XPORT_P2P;
        out->gbs = p.type == MGPU_PATH_NV ? p.bw_gbs * EFF_NVLINK : (p.bw_gbs > 0 ? p.bw_gbs : 32.0) * EFF_PCIE;
        snprintf(out->via, sizeof out->via, p.type == MGPU_PATH_NV ? "P2P/CUMEM/read" : "P2P/CUMEM");
        return;
    }
    out->kind = MGPU_XPORT_SHM;
    double pa = ga->pcie_gbs > 0 ? ga->pcie_gbs : 32.0, pb = gb->pcie_gbs > 0 ? gb->pcie_gbs : 32.0;
    out->gbs = (pa < pb ? pa : pb) * EFF_PCIE * EFF_STAGED;
    snprintf(out->via, sizeof out->via, "SHM/direct/direct");
}

/*--- The machine as the ranks see it -----------------------------------*/

typedef struct shape {
    int nnodes, ppn;
    int intra_hw;          /* HW_NVLINK or HW_PCI */
    double intra_bus;      /* slowest intra-node ring edge, GB/s after efficiency */
    double node_net;       /* network GB/s a host can send (its NICs, after efficiency) */
    double gpu_net;        /* network GB/s of one GPU's NIC share */
    double hbm;            /* one GPU's local copy rate */
    const char *intra_link;
    int nvls;              /* NVLink SHARP available (mgpu_coll_nvls_channels) */
    double nvls_bw;        /* a GPU's NVSwitch bandwidth as NVLS uses it, GB/s */
    int nvls_heads;        /* NVLS heads per node across nodes: NICs (at most ppn) */
} shape;

static double nic_gbs(const mgpu_topo *t, int host, int *count)
{
    double sum = 0;
    *count = 0;
    for (int i = 0; i < mgpu_topo_nic_count(t); i++) {
        const mgpu_topo_nic *n = mgpu_topo_nic_at(t, i);
        if (n->host != host) continue;
        /* the wired rate: what the NIC faults take from it is the GPUs'
         * net factor (make_shape), counted once */
        sum += (n->speed_wired_gbps > 0 ? n->speed_wired_gbps : n->speed_gbps) / 8.0;
        (*count)++;
    }
    return sum;
}

/*--- The ring NCCL's search builds ------------------------------------*/

/* Members of each node in rank order: placed ranks grouped by their host
 * (in order of first appearance), or virtual hosts of gph GPUs. */
typedef struct nodes {
    int count;
    int *first, *size, *ranks; /* node k: ranks[first[k] .. first[k] + size[k]) */
} nodes;

static void nodes_free(nodes *N)
{
    free(N->first);
    free(N->size);
    free(N->ranks);
}

static int gpu_of(const mgpu_topo *t, const int *gpu_of_rank, int r)
{
    return gpu_of_rank ? gpu_of_rank[r] : r % mgpu_topo_gpu_count(t);
}

static mgpu_result nodes_make(const mgpu_topo *t, int n, const int *gpu_of_rank, int gph, nodes *N)
{
    memset(N, 0, sizeof *N);
    int *host = malloc(sizeof(int) * (size_t)n), *hosts = malloc(sizeof(int) * (size_t)n);
    N->first = calloc((size_t)n, sizeof(int));
    N->size = calloc((size_t)n, sizeof(int));
    N->ranks = malloc(sizeof(int) * (size_t)n);
    int *fill = calloc((size_t)n, sizeof(int));
    if (!host || !hosts || !N->first || !N->size || !N->ranks || !fill) {
        free(host);
        free(hosts);
        free(fill);
        nodes_free(N);
        return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory pricing a collective");
    }
    for (int r = 0; r < n; r++) {
        int h = gpu_of_rank ? mgpu_topo_gpu_at(t, gpu_of_rank[r])->host : r / gph, k = 0;
        if (!gpu_of_rank) k = h; /* virtual hosts come in order */
        else
            while (k < N->count && hosts[k] != h) k++;
        if (k == N->count) hosts[N->count++] = h;
        host[r] = k;
        N->size[k]++;
    }
    for (int k = 1; k < N->count; k++) N->first[k] = N->first[k - 1] + N->size[k - 1];
    for (int r = 0; r < n; r++) N->ranks[N->first[host[r]] + fill[host[r]]++] = r;
    free(host);
    free(hosts);
    free(fill);
    return MGPU_OK;
}

/* The rate of the ring edge GPU a -> GPU b inside a node. */
static double edge_rate(const mgpu_topo *t, int a, int b, const mgpu_coll_tuning *tun, double hbm, mgpu_coll_link *l)
{
    if (a == b) {
        memset(l, 0, sizeof *l);
        l->kind = MGPU_XPORT_SELF;
        return hbm; /* two ranks sharing one GPU copy through its memory */
    }
    mgpu_coll_link_between(t, a, b, tun, l);
    return l->gbs;
}

/* Exhaustive search up to this many ranks a node (9! orders at worst, cut
 * short by the bound); beyond it the ranks stay in order. */
#define RING_SEARCH_MAX 10

typedef struct ring_search {
    int k;
    const double *w;       /* w[i * k + j]: rate of member i -> member j */
    int perm[RING_SEARCH_MAX], best_perm[RING_SEARCH_MAX];
    unsigned char used[RING_SEARCH_MAX];
    double best, bound;
} ring_search;

static void search_from(ring_search *S, int depth, double slowest)
{
    if (S->best >= S->bound) return;
    int last = S->perm[depth - 1];
    if (depth == S->k) {
        double close = S->w[last * S->k + S->perm[0]];
        if (close < slowest) slowest = close;
        if (slowest > S->best) {
            S->best = slowest;
            memcpy(S->best_perm, S->perm, sizeof S->perm);
        }
        return;
    }
    for (int j = 1; j < S->k; j++) {
        double e = S->w[last * S->k + j];
        if (S->used[j] || e <= S->best) continue; /* only strictly better rings */
        S->used[j] = 1;
        S->perm[depth] = j;
        search_from(S, depth + 1, e < slowest ? e : slowest);
        S->used[j] = 0;
    }
}

/* Order one node's members (ranks[0..k), GPUs from the placement) so the
 * slowest edge of the cycle is as fast as it can be: rank order when it
 * already is, else the first such order in lexicographic order, as NCCL's
 * search keeps the first ring that reaches the best bandwidth. order gets
 * the ranks; returns the slowest edge. */
static double order_node(const mgpu_topo *t, const int *gpu_of_rank, const int *ranks, int k,
                         const mgpu_coll_tuning *tun, double hbm, int *order)
{
    memcpy(order, ranks, sizeof(int) * (size_t)k);
    if (k < 2) return 1e30;
    if (k > RING_SEARCH_MAX) {
        double slowest = 1e30;
        mgpu_coll_link l;
        for (int i = 0; i < k; i++) {
            double e = edge_rate(t, gpu_of(t, gpu_of_rank, ranks[i]), gpu_of(t, gpu_of_rank, ranks[(i + 1) % k]), tun,
                                 hbm, &l);
            if (e < slowest) slowest = e;
        }
        return slowest;
    }
    double w[RING_SEARCH_MAX * RING_SEARCH_MAX];
    mgpu_coll_link l;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++)
            w[i * k + j] = i == j ? 0 : edge_rate(t, gpu_of(t, gpu_of_rank, ranks[i]), gpu_of(t, gpu_of_rank, ranks[j]),
                                                  tun, hbm, &l);
    ring_search S = {.k = k, .w = w, .best = 1e30, .bound = 1e30};
    /* A cycle uses two edges of every member: its slowest edge is at most
     * every member's second-fastest out-edge. */
    for (int i = 0; i < k; i++) {
        double a = 0, b = 0;
        for (int j = 0; j < k; j++) {
            double e = w[i * k + j];
            if (j == i) continue;
            if (e > a) b = a, a = e;
            else if (e > b) b = e;
        }
        if (k == 2) b = a;
        if (b < S.bound) S.bound = b;
    }
    for (int i = 0; i < k; i++) {
        double e = w[i * k + (i + 1) % k];
        if (e < S.best) S.best = e;
        S.perm[i] = S.best_perm[i] = i;
    }
    if (k > 3 && S.best < S.bound) {
        S.used[0] = 1;
        search_from(&S, 1, 1e30);
    }
    for (int i = 0; i < k; i++) order[i] = ranks[S.best_perm[i]];
    return S.best;
}

/* GPUs per host of the model (the first host's count, at least 1). */
static int gpus_per_host(const mgpu_topo *t)
{
    int G = mgpu_topo_gpu_count(t), H = mgpu_topo_host_count(t);
    int gph = G / (H > 0 ? H : 1);
    return gph < 1 ? 1 : gph;
}

/* The ring over all nodes: every node's ranks in searched order, nodes in
 * order. Nodes whose GPUs repeat the previous node's (virtual hosts) reuse
 * its order, so 4096 ranks cost one search. *slowest gets the slowest
 * intra-node edge (1e30 when no node has two ranks). */
static mgpu_result ring_over_nodes(const mgpu_topo *t, int n, const int *gpu_of_rank, const mgpu_coll_tuning *tun,
                                   double hbm, int *order, double *slowest, nodes *out_nodes)
{
    nodes N;
    MGPU_CHECK(nodes_make(t, n, gpu_of_rank, gpus_per_host(t), &N));
    *slowest = 1e30;
    for (int k = 0; k < N.count; k++) {
        const int *ranks = N.ranks + N.first[k];
        int size = N.size[k], *dst = order + N.first[k], same = -1;
        /* a recent node on the same GPUs (virtual hosts repeat the model's
         * hosts in turn) lends its order, shifted to this node's ranks */
        for (int j = k - 1; j >= 0 && j >= k - 16 && same < 0; j--) {
            int eq = N.size[j] == size;
            for (int i = 0; eq && i < size; i++)
                eq = gpu_of(t, gpu_of_rank, ranks[i]) == gpu_of(t, gpu_of_rank, N.ranks[N.first[j] + i]);
            if (eq) same = j;
        }
        if (same >= 0) {
            for (int i = 0; i < size; i++) dst[i] = order[N.first[same] + i] - N.ranks[N.first[same]] + ranks[0];
            continue;
        }
        double e = order_node(t, gpu_of_rank, ranks, size, tun, hbm, dst);
        if (e < *slowest) *slowest = e;
    }
    if (out_nodes) *out_nodes = N;
    else nodes_free(&N);
    return MGPU_OK;
}

mgpu_result mgpu_coll_ring_order(const mgpu_topo *t, int nranks, const int *gpu_of_rank, const mgpu_coll_tuning *tun,
                                 int *order)
{
    if (!t || nranks < 1 || !order || mgpu_topo_gpu_count(t) < 1)
        return mgpu_fail(MGPU_ERR_INVALID, "mgpu_coll_ring_order: a machine, ranks and an output are required");
    const mgpu_topo_gpu *g0 = mgpu_topo_gpu_at(t, gpu_of(t, gpu_of_rank, 0));
    double slowest, hbm = (g0 && g0->hbm_gbs > 0 ? g0->hbm_gbs : 2000.0) * EFF_HBM;
    return ring_over_nodes(t, nranks, gpu_of_rank, tun, hbm, order, &slowest, NULL);
}

/* The hosts a communicator spans (real hosts for an explicit placement,
 * virtual identical hosts of gph GPUs otherwise) and its ranks per node. */
static mgpu_result shape_hosts(const mgpu_topo *t, int n, const int *gpu_of_rank, int gph, shape *sh)
{
    int G = mgpu_topo_gpu_count(t);
    if (gpu_of_rank) {
        unsigned char seen[256] = {0};
        for (int r = 0; r < n; r++) {
            int g = gpu_of_rank[r];
            if (g < 0 || g >= G)
                return mgpu_fail(MGPU_ERR_INVALID, "rank %d is placed on GPU %d; the machine '%s' has GPUs 0-%d", r, g,
                                 mgpu_topo_machine_name(t), G - 1);
            int h = mgpu_topo_gpu_at(t, g)->host;
            if (h >= 0 && h < 256 && !seen[h]) {
                seen[h] = 1;
                sh->nnodes++;
            }
        }
    } else {
        sh->nnodes = (n + gph - 1) / gph; /* so 4096 ranks price as 512 DGX nodes */
    }
    if (sh->nnodes < 1) sh->nnodes = 1;
    sh->ppn = n / sh->nnodes;
    if (sh->ppn < 1) sh->ppn = 1;
    return MGPU_OK;
}

/* Inside a node: the ring NCCL's search would build - its slowest edge
 * bounds the bus, its links name the transport - and whether NVLS runs. */
static mgpu_result shape_intra(const mgpu_topo *t, int n, const int *gpu_of_rank, const mgpu_coll_tuning *tun,
                               shape *sh)
{
    /* NVLS needs every GPU on NVSwitches, one rank a GPU */
    int *order = malloc(sizeof(int) * (size_t)n);
    if (!order) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory pricing a collective");
    nodes N;
    double slowest;
    mgpu_result r = ring_over_nodes(t, n, gpu_of_rank, tun, sh->hbm, order, &slowest, &N);
    if (r != MGPU_OK) {
        free(order);
        return r;
    }
    int any_intra = 0, nvls = n > 1 && !(tun && tun->nvls < 0);
    double nvls_bw = 1e30;
    for (int k = 0; k < N.count; k++) {
        const int *o = order + N.first[k];
        int size = N.size[k];
        if (!gpu_of_rank && k >= mgpu_topo_host_count(t) && size == N.size[k - 1]) break; /* the hosts repeat */
        if (size < 2) nvls = 0;
        for (int i = 0; i < size && size > 1; i++) {
            int a = gpu_of(t, gpu_of_rank, o[i]), b = gpu_of(t, gpu_of_rank, o[(i + 1) % size]);
            const mgpu_topo_gpu *ga = mgpu_topo_gpu_at(t, a);
            any_intra = 1;
            mgpu_coll_link l;
            edge_rate(t, a, b, tun, sh->hbm, &l);
            /* NVLS: Hopper or later on NVSwitches with peer mappings (the
             * p2p-disabled fault - ACS/IOMMU - blocks the multicast binding
             * too; NCCL_P2P_DISABLE alone does not: NCCL's NVLS search
             * follows the GPU -> NVSwitch paths, which it leaves alone) */
            if (l.kind == MGPU_XPORT_SELF || mgpu_topo_gpu_nvswitch_links(t, a) == 0 || !ga || ga->sm < 90 ||
                mgpu_topo_peer_access(t, a, b) != 1)
                nvls = 0;
            if (l.kind == MGPU_XPORT_SELF) continue;
            if (l.kind == MGPU_XPORT_SHM) {
                sh->intra_hw = HW_PCI;
                sh->intra_link = "SHM";
            } else if (strncmp(l.via, "P2P/CUMEM/read", 14) != 0 && sh->intra_hw != HW_PCI) {
                sh->intra_hw = HW_PCI;
                sh->intra_link = "PCIe";
            }
            mgpu_topo_path p = mgpu_topo_gpu_path(t, a, b);
            if (p.type == MGPU_PATH_NV && p.bw_gbs < nvls_bw) nvls_bw = p.bw_gbs;
        }
        /* two ranks on one GPU: NCCL turns NVLS off (multiple ranks on an NVML device) */
        for (int i = 0; i < size && nvls; i++)
            for (int j = i + 1; j < size; j++)
                if (gpu_of(t, gpu_of_rank, o[i]) == gpu_of(t, gpu_of_rank, o[j])) nvls = 0;
    }
    nodes_free(&N);
    free(order);
    sh->intra_bus = any_intra ? slowest : sh->hbm;
    sh->nvls = nvls && nvls_bw < 1e30;
    sh->nvls_bw = sh->nvls ? nvls_bw * EFF_NVLS : 0;

    return MGPU_OK;
}

/* Between nodes: the NICs NCCL uses, at what rate, with or without
 * GPUDirect RDMA, and NVLS's heads. */
static void shape_net(const mgpu_topo *t, int n, const int *gpu_of_rank, const mgpu_coll_tuning *tun, int gph,
                      const mgpu_topo_gpu *g0, shape *sh)
{
    int host = g0 ? g0->host : 0, nnic = 0;
    double node = nic_gbs(t, host, &nnic);
    sh->nvls_heads = nnic < sh->ppn ? nnic : sh->ppn;
    int g0i = gpu_of_rank ? gpu_of_rank[0] : 0, nic0 = nearest_nic(t, g0i);
    if (nnic == 0 || nic0 < 0) {
        /* no NIC in the model, or none NCCL can use (the net-socket fault,
         * every NIC down): a 100 Gb/s socket NIC, as NCCL falls back to */
        node = 12.5;
        nnic = 1;
        sh->nvls_heads = 0;
    }
    /* NCCL splits the data evenly over its channels and each channel
     * crosses the nodes on one NIC: the slowest GPU's way out (a NIC down
     * and shared, slow, at the wrong speed, behind a downgraded PCIe link)
     * paces every channel */
    double net_factor = 1.0;
    for (int r = 0; nic0 >= 0 && sh->nnodes > 1 && r < n && r < 4096; r++) {
        double f = mgpu_topo_gpu_net_factor(t, gpu_of(t, gpu_of_rank, r));
        if (f < net_factor) net_factor = f;
    }
    /* Without GPUDirect RDMA every NIC bounces through host memory. The
     * model decides it once per node, for rank 0's GPU and its nearest NIC
     * (the presets are symmetric, the faults global). */
    double staged = net_factor;
    if (nic0 >= 0 && !uses_gdr(t, g0i, nic0, tun)) {
        const mgpu_topo_nic *nn = mgpu_topo_nic_at(t, nic0);
        staged *= nic_rate(t, g0i, nic0, 0) / (nn->speed_gbps / 8.0 * EFF_NET);
    }
    sh->gpu_net = node / (nnic < gph ? nnic : gph) * EFF_NET * staged;
    if (nnic > sh->ppn) node = node / nnic * sh->ppn; /* a ring cannot use more NICs than ranks per node */
    sh->node_net = node * EFF_NET * staged;
}

static mgpu_result make_shape(const mgpu_topo *t, int n, const int *gpu_of_rank, const mgpu_coll_tuning *tun,
                              shape *sh)
{
    int G = mgpu_topo_gpu_count(t);
    if (G <= 0) return mgpu_fail(MGPU_ERR_INVALID, "the machine model '%s' has no GPUs to price a collective on",
                                 mgpu_topo_machine_name(t));
    int gph = gpus_per_host(t);
    memset(sh, 0, sizeof *sh);
    sh->intra_hw = HW_NVLINK;
    sh->intra_link = "NVLink";
    sh->intra_bus = 1e30;
    const mgpu_topo_gpu *g0 = mgpu_topo_gpu_at(t, gpu_of_rank ? gpu_of_rank[0] : 0);
    sh->hbm = (g0 && g0->hbm_gbs > 0 ? g0->hbm_gbs : 2000.0) * EFF_HBM;

    MGPU_CHECK(shape_hosts(t, n, gpu_of_rank, gph, sh));
    MGPU_CHECK(shape_intra(t, n, gpu_of_rank, tun, sh));
    shape_net(t, n, gpu_of_rank, tun, gph, g0, sh);
    return MGPU_OK;
}

/*--- NCCL's alpha-beta per (algorithm, protocol) -----------------------*/

static int log2i(unsigned long long v)
{
    int l = 0;
    while (v >>= 1) l++;
    return l;
}

/* NCCL's function index for the LL128 ceiling. */
static int func_index(mgpu_coll op)
{
    switch (op) {
    case MGPU_COLL_BROADCAST: return 0;
    case MGPU_COLL_REDUCE: return 1;
    case MGPU_COLL_ALL_GATHER: return 2;
    case MGPU_COLL_REDUCE_SCATTER: return 3;
    default: return 4;
    }
}

/* NVLS and NVLSTree (Simple only), or < 0 where NCCL would not run them:
 * NVLS for all_reduce, all_gather and reduce_scatter inside one node, and
 * all_reduce across nodes with CollNet (IB SHARP); NVLSTree for all_reduce
 * across nodes. The reduction must be one the switch does (nvls_no_op). */
static double nvls_time(const shape *sh, mgpu_coll op, double bytes, int n, int algo, const mgpu_coll_tuning *tun,
                        double *lat_out, double *bus_out, const char **link)
{
    int ar = op == MGPU_COLL_ALL_REDUCE, ag = op == MGPU_COLL_ALL_GATHER, rs = op == MGPU_COLL_REDUCE_SCATTER;
    if (!sh->nvls || !(ar || ag || rs) || (!ag && tun && tun->nvls_no_op)) return -1;
    int multi = sh->nnodes > 1, ppn = sh->ppn;
    double B = sh->nvls_bw, algbw, lat;
    *link = "NVLink";
    if (algo == MGPU_ALGO_NVLS) {
        if (multi && !(ar && tun && tun->collnet)) return -1; /* across nodes NVLS needs SHARP switches */
        if (ar) {
            /* each GPU's links carry S(1 + 1/ppn) each way */
            algbw = B / (1.0 + 1.0 / ppn);
            if (multi && sh->node_net < algbw) {
                algbw = sh->node_net; /* SHARP: each node's S once up and once down */
                *link = "network";
            }
        } else {
            algbw = B * n / (n - 1.0); /* a GPU receives (AG) or gives (RS) (n-1)/n S */
        }
        lat = NVLS_LAT_NVLINK + (multi ? NVLS_LAT_NET : 0);
    } else {
        if (!multi || !ar || sh->nvls_heads < 1) return -1;
        /* as tuning.cc: the least of the node's NVLS (its busbw), the
         * network (twice on two nodes: the double tree sends both ways)
         * and the per-head ceiling */
        double intra = B * 2.0 * (ppn - 1) / (ppn + 1.0), inter = sh->node_net * (sh->nnodes <= 2 ? 2 : 1);
        double cap = sh->nvls_heads * nvlstree_per_head[sh->nnodes <= 2 ? 0 : 1], bus = intra;
        if (cap < bus) bus = cap;
        if (inter < bus) {
            bus = inter;
            *link = "network";
        }
        algbw = bus * n / (2.0 * (n - 1));
        lat = NVLS_LAT_NVLINK + 2 * log2i((unsigned)sh->nnodes) * NVLSTREE_LAT_NET;
    }
    int nsteps = ar ? 2 * (n - 1) : n - 1;
    *bus_out = algbw * nsteps / n;
    *lat_out = lat;
    return lat + bytes / (1000.0 * algbw);
}

/* A broadcast through a CUDA multicast object (the note's "CUDA 12.3+
 * multicast"): the root stores its buffer once into the multicast address
 * and the NVSwitch copies it to every GPU, so the root's links carry S and
 * no other GPU sends anything (a ring broadcast has every GPU forward S).
 * The stores run at the rate NVLS keeps of the links (EFF_NVLS): NVLS
 * all_gather, which is multicast stores, measures about 300 GB/s busbw on 8
 * x H100 against the ring's 350 (NVIDIA/nccl#1506: "NVLink SHARP does not
 * promise a bandwidth improvement over point-to-point ... for allgather").
 * Its latency is NCCL's for NVLS on NVLink (tuning.cc), for want of a
 * published figure for one bare multicast kernel. */
static double multicast_time(const shape *sh, double bytes, double *lat_out, double *bus_out)
{
    *lat_out = NVLS_LAT_NVLINK;
    *bus_out = sh->nvls_bw; /* busbw = algbw for a broadcast */
    return NVLS_LAT_NVLINK + bytes / (1000.0 * sh->nvls_bw);
}

/* Time of one (algo, proto) pair, or < 0 when the pair does not apply. */
static double pair_time(const shape *sh, mgpu_coll op, double bytes, int n, int algo, int proto, double *lat_out,
                        double *bus_out)
{
    int allreduce = op == MGPU_COLL_ALL_REDUCE || op == MGPU_COLL_BARRIER;
    if (algo == MGPU_ALGO_TREE && !allreduce) return -1;
    int nnodes = sh->nnodes;
    int nsteps = allreduce ? 2 * (n - 1)
               : (op == MGPU_COLL_REDUCE_SCATTER || op == MGPU_COLL_ALL_GATHER) ? n - 1 : n;
    int ninter = allreduce ? 2 * (nnodes - 1)
               : (op == MGPU_COLL_REDUCE_SCATTER || op == MGPU_COLL_ALL_GATHER) ? nnodes - 1 : nnodes;
    if (nnodes == 1) ninter = 0;
    int nch = sh->intra_hw == HW_NVLINK ? NVLINK_CHANNELS : PCI_CHANNELS;
    double bus = sh->intra_bus;
    if (nnodes > 1 && sh->node_net < bus) bus = sh->node_net;

    /* LL128 needs NVLink inside the node (NCCL enables it only there). */
    if (proto == MGPU_PROTO_LL128 && sh->intra_hw != HW_NVLINK) return -1;
    if (algo == MGPU_ALGO_RING && proto == MGPU_PROTO_LL) bus *= (nnodes > 1 || allreduce || op == MGPU_COLL_REDUCE) ? 0.25 : 1.0 / 3.0;
    if (algo == MGPU_ALGO_RING && proto == MGPU_PROTO_LL128) {
        double v = bus * (sh->ppn < 2 ? 0.7 : 0.92), cap = ll128_max_bw_per_ch[func_index(op)] * nch;
        bus = v < cap ? v : cap;
    }
    if (algo == MGPU_ALGO_TREE) {
        double max_tree = nnodes > 2 ? 80.0 : 110.0;
        bus = bus * 0.9 < max_tree ? bus * 0.9 : max_tree;
        if (proto == MGPU_PROTO_LL) bus *= 1.0 / 3.8;
        if (proto == MGPU_PROTO_LL128) {
            double v = bus * (nnodes == 1 ? 7.0 / 9.0 : 0.915), cap = ll128_max_bw_per_ch[4] * nch * 7.0 / 9.0;
            bus = v < cap ? v : cap;
        }
    }
    double ratio = algo == MGPU_ALGO_RING ? (double)n / nsteps : 0.5;
    double algbw = bus * ratio;

    double lat = base_lat[algo][proto];
    double intra = hw_lat[sh->intra_hw][algo][proto], inter = hw_lat[HW_NET][algo][proto];
    if (nnodes > 1 && proto == MGPU_PROTO_LL) intra *= 1.8;
    if (algo == MGPU_ALGO_RING) {
        if (op == MGPU_COLL_REDUCE || op == MGPU_COLL_BROADCAST)
            lat += hw_lat[nnodes > 1 ? HW_NET : sh->intra_hw][algo][proto]; /* pipelined chain: one hop's latency */
        else
            lat += (nsteps - ninter) * intra + ninter * inter;
    } else {
        lat += 2 * ((n / nnodes - 1) * intra + log2i((unsigned)nnodes) * inter);
    }

    int logsize = log2i((unsigned long long)bytes >> 6);
    if (algo == MGPU_ALGO_TREE && logsize < 22) algbw *= tree_correction[proto][logsize];
    if (algo == MGPU_ALGO_RING && proto == MGPU_PROTO_SIMPLE && nnodes > 1 && allreduce && bytes >= n / 16.0 * 65536)
        lat *= 1.9; /* NCCL's "plateau effect of ring" across nodes */
    *lat_out = lat;
    *bus_out = bus;
    return lat + bytes / (1000.0 * algbw);
}

/* alltoall and send/recv: point-to-point transfers, all peers at once. */
static double p2p_time(const shape *sh, mgpu_coll op, double bytes, int n, double *lat_out, double *bus_out)
{
    int hw = sh->nnodes > 1 ? HW_NET : sh->intra_hw;
    double lat = base_lat[MGPU_ALGO_RING][MGPU_PROTO_SIMPLE] + hw_lat[hw][MGPU_ALGO_RING][MGPU_PROTO_SIMPLE];
    double t;
    if (op == MGPU_COLL_ALLTOALL) {
        double local = n > 1 ? bytes * (sh->ppn - 1) / n / sh->intra_bus : 0;
        double remote = sh->nnodes > 1 ? bytes * (n - sh->ppn) / n / sh->gpu_net : 0;
        t = (local > remote ? local : remote) / 1000.0;
        *bus_out = sh->nnodes > 1 ? sh->gpu_net : sh->intra_bus;
    } else {
        double bw = sh->nnodes > 1 ? sh->gpu_net : sh->intra_bus;
        t = bytes / (1000.0 * bw);
        *bus_out = bw;
    }
    *lat_out = lat;
    return lat + t;
}

/* One rank, as the benchmarks time it (back-to-back calls, per call).
 * In place NCCL launches nothing: the call is the host's enqueue, 0.20-0.36
 * us per call on the H200 (nccl-tests, 2026-12-03). Out of place it copies
 * send to recv: each call pays a launch, 4.5-6.3 us per call on the H200
 * from 8 B to 8 MiB alike, and the copy overlaps the next launch, so the
 * time is the larger of the two, not their sum. Both are the host's and
 * driver's, measured on one machine: a slower CPU launches slower. */
#define ONE_RANK_ENQUEUE_US 0.3
#define ONE_RANK_LAUNCH_US 5.5

static mgpu_result check_call(const mgpu_topo *t, mgpu_coll op, int nranks, mgpu_coll_prediction *out)
{
    if (!t || !out) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_coll_predict: topology and output are required");
    if (nranks < 1) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_coll_predict: %d ranks; need at least 1", nranks);
    if ((unsigned)op >= MGPU_COLL_COUNT) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_coll_predict: unknown collective %d", (int)op);
    return MGPU_OK;
}

/* NCCL_ALGO / NCCL_PROTO: one forced, or a list allowed. */
static int algo_allowed(const mgpu_coll_tuning *tun, int a)
{
    if (!tun) return 1;
    if (tun->algo >= 0) return a == tun->algo;
    return !tun->algo_mask || (tun->algo_mask >> a & 1u);
}

static int proto_allowed(const mgpu_coll_tuning *tun, int p)
{
    if (!tun) return 1;
    if (tun->proto >= 0) return p == tun->proto;
    return !tun->proto_mask || (tun->proto_mask >> p & 1u);
}

/* In-network reduction (SHARP through NCCL's CollNet), a what-if:
 * reduce-scatter inside the node, each GPU's shard up to the switch and the
 * reduced shard back (S per node each way, where a ring sends 2(n-1)/n S),
 * all-gather inside; the slower of the two legs, pipelined. */
static double collnet_time(const shape *sh, mgpu_coll op, double b, const mgpu_coll_tuning *tun, double *lat_out,
                           double *bus_out)
{
    if (!tun || !tun->collnet || op != MGPU_COLL_ALL_REDUCE || sh->nnodes < 2) return -1;
    double intra = sh->ppn > 1 ? 2.0 * (sh->ppn - 1) / sh->ppn * b / sh->intra_bus : 0, net = b / sh->node_net;
    double lat = base_lat[MGPU_ALGO_RING][MGPU_PROTO_SIMPLE] +
                 2 * (sh->ppn - 1) * hw_lat[sh->intra_hw][MGPU_ALGO_RING][MGPU_PROTO_SIMPLE] +
                 2 * hw_lat[HW_NET][MGPU_ALGO_RING][MGPU_PROTO_SIMPLE];
    *lat_out = lat;
    *bus_out = sh->node_net < sh->intra_bus ? sh->node_net : sh->intra_bus;
    return lat + (intra > net ? intra : net) / 1000.0;
}

/* What a call holds on each rank's GPU while it runs (compute beside it
 * shares them: mgpu_stream_model_contend): one CTA per channel, and the
 * GPU-memory bytes it moves - its input read and output written, plus, on
 * ring and tree, every byte that crosses a link written into a staging
 * buffer and read back (NVLS: the switch reduces, nothing lands locally). */
static void footprint(const shape *sh, mgpu_coll op, double b, int n, int in_place, mgpu_coll_prediction *out)
{
    double f = mgpu_coll_busbw_factor(op, n);
    if (n == 1) {
        out->ctas = in_place ? 0 : 1;
        out->hbm_bytes = in_place ? 0 : 2 * b;
    } else if (out->algo == MGPU_ALGO_NVLS || out->algo == MGPU_ALGO_NVLS_TREE) {
        out->ctas = NVLS_CHANNELS;
        out->hbm_bytes = op == MGPU_COLL_ALL_REDUCE ? 2 * b : b + b / n;
    } else {
        out->ctas = sh->intra_hw == HW_NVLINK ? NVLINK_CHANNELS : PCI_CHANNELS;
        out->hbm_bytes = (op == MGPU_COLL_ALL_REDUCE ? 2 * b : b) + 2 * f * b;
    }
    if (op == MGPU_COLL_BARRIER) out->hbm_bytes = 0;
}

/* The price of one call on a machine shape: NCCL's choice of algorithm and
 * protocol, or the forced pair. */
static mgpu_result predict_shape(const shape *shp, mgpu_coll op, size_t bytes, int nranks,
                                 const mgpu_coll_tuning *tun, int in_place, mgpu_coll_prediction *out)
{
    const shape sh = *shp;
    memset(out, 0, sizeof *out);
    double b = (double)bytes;
    out->nnodes = sh.nnodes;
    out->algo = MGPU_ALGO_RING;
    out->proto = MGPU_PROTO_SIMPLE;

    if (nranks == 1) {
        /* NCCL on one rank copies send to recv on the GPU (out of place);
         * in place the data is already where it belongs: a no-op. */
        int nothing = in_place || op == MGPU_COLL_BARRIER;
        double copy = b / (1000.0 * sh.hbm);
        out->latency_us = nothing ? ONE_RANK_ENQUEUE_US : ONE_RANK_LAUNCH_US;
        out->bus_gbs = nothing ? 0.0 : sh.hbm;
        out->time_us = nothing ? ONE_RANK_ENQUEUE_US : copy > ONE_RANK_LAUNCH_US ? copy : ONE_RANK_LAUNCH_US;
        out->link = nothing ? "none" : "HBM";
    } else if (op == MGPU_COLL_BROADCAST && tun && tun->multicast) {
        if (!sh.nvls || sh.nnodes > 1)
            return mgpu_fail(MGPU_ERR_UNSUPPORTED, "a multicast broadcast needs every rank on its own GPU, all on one "
                             "node's NVSwitches, Hopper or later; %s", sh.nnodes > 1 ? "these ranks span nodes"
                             : "this placement is not (no NVSwitch, an older GPU, two ranks on a GPU or no peer access)");
        out->time_us = multicast_time(&sh, b, &out->latency_us, &out->bus_gbs);
        out->algo = MGPU_ALGO_NVLS;
        out->link = "NVLink";
    } else if (op == MGPU_COLL_ALLTOALL || op == MGPU_COLL_SEND || op == MGPU_COLL_RECV) {
        out->algo = MGPU_ALGO_P2P;
        out->time_us = p2p_time(&sh, op, b, nranks, &out->latency_us, &out->bus_gbs);
        out->link = sh.nnodes > 1 ? "network" : sh.intra_link;
    } else {
        if (op == MGPU_COLL_BARRIER) b = 4; /* one f32, as torch's barrier */
        double best = -1;
        /* NCCL's order (tuning.cc's algorithm index): tree, ring, CollNet,
         * NVLS, NVLSTree, protocols in order; strictly better wins. */
        static const int algo_order[5] = {MGPU_ALGO_TREE, MGPU_ALGO_RING, MGPU_ALGO_COLLNET, MGPU_ALGO_NVLS,
                                          MGPU_ALGO_NVLS_TREE};
        for (int ai = 0; ai < 5; ai++) {
            int a = algo_order[ai];
            if (!algo_allowed(tun, a)) continue;
            for (int p = 0; p < MGPU_PROTO_COUNT; p++) {
                if (!proto_allowed(tun, p)) continue;
                double lat, bus, tm;
                const char *link = NULL;
                if (a == MGPU_ALGO_NVLS || a == MGPU_ALGO_NVLS_TREE)
                    tm = p == MGPU_PROTO_SIMPLE ? nvls_time(&sh, op, b, nranks, a, tun, &lat, &bus, &link) : -1;
                else if (a == MGPU_ALGO_COLLNET)
                    tm = p == MGPU_PROTO_SIMPLE ? collnet_time(&sh, op, b, tun, &lat, &bus) : -1;
                else
                    tm = pair_time(&sh, op, b, nranks, a, p, &lat, &bus);
                if (tm < 0 || (best >= 0 && tm >= best)) continue;
                best = tm;
                out->algo = (mgpu_coll_algo)a;
                out->proto = (mgpu_coll_proto)p;
                out->latency_us = lat;
                out->bus_gbs = bus;
                out->link = link;
            }
        }
        if (best < 0) {
            /* The forced pair does not apply here (e.g. tree for all_gather):
             * NCCL falls back to what it can run, so do we. */
            mgpu_coll_tuning free_choice = *tun;
            free_choice.algo = free_choice.proto = -1;
            free_choice.algo_mask = free_choice.proto_mask = 0;
            return predict_shape(shp, op, bytes, nranks, &free_choice, in_place, out);
        }
        out->time_us = best;
        if (!out->link) out->link = sh.nnodes > 1 && sh.node_net < sh.intra_bus ? "network" : sh.intra_link;
    }
    out->algo_name = mgpu_coll_algo_name(out->algo);
    out->proto_name = mgpu_coll_proto_name(out->proto);
    out->algbw_gbs = out->time_us > 0 ? (double)bytes / (out->time_us * 1000.0) : 0;
    out->busbw_gbs = out->algbw_gbs * mgpu_coll_busbw_factor(op, nranks);
    footprint(&sh, op, (double)bytes, nranks, in_place, out);
    return MGPU_OK;
}

mgpu_result mgpu_coll_predict_call(const mgpu_topo *t, mgpu_coll op, size_t bytes, int nranks,
                                   const int *gpu_of_rank, const mgpu_coll_tuning *tun, int in_place,
                                   mgpu_coll_prediction *out)
{
    MGPU_CHECK(check_call(t, op, nranks, out));
    shape sh;
    MGPU_CHECK(make_shape(t, nranks, gpu_of_rank, tun, &sh));
    MGPU_CHECK(predict_shape(&sh, op, bytes, nranks, tun, in_place, out));
    return MGPU_OK;
}

/* One node's share of the group is priced as a placement on host 0 (its
 * ring edges, NICs and GPUDirect path); the hosts spanned are then set to
 * nnodes, which the model need not have: identical hosts repeated. */
mgpu_result mgpu_coll_predict_spread(const mgpu_topo *t, mgpu_coll op, size_t bytes, int nranks, int nnodes,
                                     int gpu_stride, const mgpu_coll_tuning *tun, mgpu_coll_prediction *out)
{
    MGPU_CHECK(check_call(t, op, nranks, out));
    if (nnodes < 1 || nranks % nnodes != 0)
        return mgpu_fail(MGPU_ERR_INVALID, "mgpu_coll_predict_spread: %d ranks do not spread evenly over %d nodes",
                         nranks, nnodes);
    int ppn = nranks / nnodes, gph = 0;
    for (int i = 0; i < mgpu_topo_gpu_count(t); i++) gph += mgpu_topo_gpu_at(t, i)->host == 0;
    if (gph < 1) return mgpu_fail(MGPU_ERR_INVALID, "the machine model '%s' has no GPUs on its first host",
                                  mgpu_topo_machine_name(t));
    if (gpu_stride < 1 || (long)(ppn - 1) * gpu_stride >= gph)
        return mgpu_fail(MGPU_ERR_INVALID, "mgpu_coll_predict_spread: %d ranks per node %d GPUs apart do not fit "
                         "a node of %d GPUs", ppn, gpu_stride, gph);
    int *gpus = malloc(sizeof *gpus * (size_t)ppn);
    if (!gpus) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory pricing a collective");
    for (int j = 0; j < ppn; j++) gpus[j] = mgpu_topo_gpu_index(t, 0, j * gpu_stride);
    shape sh;
    mgpu_result r = make_shape(t, ppn, gpus, tun, &sh);
    free(gpus);
    MGPU_CHECK(r);
    sh.nnodes = nnodes;
    sh.ppn = ppn;
    MGPU_CHECK(predict_shape(&sh, op, bytes, nranks, tun, 0, out));
    return MGPU_OK;
}

mgpu_result mgpu_coll_predict_tuned(const mgpu_topo *t, mgpu_coll op, size_t bytes, int nranks,
                                    const int *gpu_of_rank, const mgpu_coll_tuning *tun,
                                    mgpu_coll_prediction *out)
{
    MGPU_CHECK(mgpu_coll_predict_call(t, op, bytes, nranks, gpu_of_rank, tun, 0, out));
    return MGPU_OK;
}

mgpu_result mgpu_coll_predict(const mgpu_topo *t, mgpu_coll op, size_t bytes, int nranks, const int *gpu_of_rank,
                              mgpu_coll_prediction *out)
{
    MGPU_CHECK(mgpu_coll_predict_tuned(t, op, bytes, nranks, gpu_of_rank, NULL, out));
    return MGPU_OK;
}

int mgpu_coll_channels(const mgpu_topo *t, int nranks, const int *gpu_of_rank, const mgpu_coll_tuning *tun)
{
    shape sh;
    if (!t || nranks < 1 || make_shape(t, nranks, gpu_of_rank, tun, &sh) != MGPU_OK) return 1;
    return sh.intra_hw == HW_NVLINK ? NVLINK_CHANNELS : PCI_CHANNELS;
}

int mgpu_coll_nvls_channels(const mgpu_topo *t, int nranks, const int *gpu_of_rank, const mgpu_coll_tuning *tun,
                            size_t *buffer_bytes)
{
    shape sh;
    if (buffer_bytes) *buffer_bytes = 0;
    if (!t || nranks < 2 || make_shape(t, nranks, gpu_of_rank, tun, &sh) != MGPU_OK) {
        mgpu_error_clear();
        return 0;
    }
    if (!sh.nvls) return 0;
    int heads = sh.nnodes > 1 ? sh.nvls_heads : sh.ppn;
    if (buffer_bytes) *buffer_bytes = (size_t)NVLS_CHANNELS * 2 * NVLS_CHUNK * NVLS_STEPS * (size_t)heads;
    return NVLS_CHANNELS;
}
