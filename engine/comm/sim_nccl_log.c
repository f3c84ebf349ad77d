/* sim_nccl_log.c - with NCCL_DEBUG=INFO the sim communicator prints what
 * NCCL would print at init and per collective size - version, comm, rings,
 * trees, the transport of every ring edge, the algorithm and protocol
 * chosen (NVLS, NVLS_TREE where NVLink SHARP wins) - in NCCL's own line format, so the log pane and the labs read a
 * sim run exactly as a real one (engine/trace/nccl_log.c parses both).
 * Every line's host field says SIMULATED: these are the model's rings and
 * transports (coll_model.c), not NCCL's. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "mgpu/topo.h"
#include "sim_comm.h"

int sim_log_wanted(void)
{
    const char *v = getenv("NCCL_DEBUG");
    return v && (strcasecmp(v, "INFO") == 0 || strcasecmp(v, "TRACE") == 0);
}

static void line(const mgpu_comm *c, const sim_comm *sc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void line(const mgpu_comm *c, const sim_comm *sc, const char *fmt, ...)
{
    const mgpu_topo_gpu *g = mgpu_topo_gpu_at(sc->topo, sc->gpu_of_rank[c->rank]);
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    printf("SIMULATED-node%d:%d:%d [%d] NCCL INFO %s\n", g ? g->host : 0, (int)getpid(), (int)getpid(),
           g ? g->dev : c->device, msg);
}

/* Ranks grouped by host in order of first appearance: node_of[r], and
 * members of each node in rank order (first[k] .. first[k] + count[k]). */
typedef struct layout {
    int nnodes;
    int *node_of, *first, *count, *members;
} layout;

static int make_layout(const sim_comm *sc, int n, layout *L)
{
    memset(L, 0, sizeof *L);
    int *host = malloc(sizeof(int) * (size_t)n);
    L->node_of = malloc(sizeof(int) * (size_t)n);
    L->first = calloc((size_t)n, sizeof(int));
    L->count = calloc((size_t)n, sizeof(int));
    L->members = malloc(sizeof(int) * (size_t)n);
    int *hosts = malloc(sizeof(int) * (size_t)n);
    if (!host || !L->node_of || !L->first || !L->count || !L->members || !hosts) {
        free(host);
        free(hosts);
        return -1;
    }
    for (int r = 0; r < n; r++) {
        const mgpu_topo_gpu *g = mgpu_topo_gpu_at(sc->topo, sc->gpu_of_rank[r]);
        host[r] = g ? g->host : 0;
        int k = 0;
        while (k < L->nnodes && hosts[k] != host[r]) k++;
        if (k == L->nnodes) hosts[L->nnodes++] = host[r];
        L->node_of[r] = k;
        L->count[k]++;
    }
    for (int k = 1; k < L->nnodes; k++) L->first[k] = L->first[k - 1] + L->count[k - 1];
    int *fill = calloc((size_t)L->nnodes, sizeof(int));
    for (int r = 0; fill && r < n; r++) L->members[L->first[L->node_of[r]] + fill[L->node_of[r]]++] = r;
    int ok = fill != NULL;
    free(fill);
    free(host);
    free(hosts);
    return ok ? 0 : -1;
}

static void free_layout(layout *L)
{
    free(L->node_of);
    free(L->first);
    free(L->count);
    free(L->members);
}

/* Channel ch's ring: the ring NCCL's search would build (base: each
 * node's ranks in the order mgpu_coll_ring_order chose - rank order unless
 * a slow hop is avoided), every node's part rotated by ch, so the rings
 * leave each node from a different GPU (and NIC), as NCCL spreads channels
 * over the NICs of a node. order[] gets n ranks. */
static void ring_order(const layout *L, int ch, const int *base, int *order)
{
    int k = 0;
    for (int node = 0; node < L->nnodes; node++)
        for (int i = 0; i < L->count[node]; i++)
            order[k++] = base[L->first[node] + (i + ch) % L->count[node]];
}

/* Tree channel tc: a chain inside each node from its first rank, the
 * nodes' first ranks in a binary tree (tc 1 mirrors the nodes, as NCCL's
 * double binary tree). parent -1 = root; children up to 3. */
static void tree_of(const layout *L, int tc, int r, int *parent, int kids[3])
{
    int node = L->node_of[r], N = L->nnodes;
    int pos = 0;
    while (L->members[L->first[node] + pos] != r) pos++;
    kids[0] = kids[1] = kids[2] = -1;
    if (pos + 1 < L->count[node]) kids[0] = L->members[L->first[node] + pos + 1];
    if (pos > 0) {
        *parent = L->members[L->first[node] + pos - 1];
        return;
    }
    int v = tc ? N - 1 - node : node; /* this node's place in the binary tree */
    *parent = v == 0 ? -1 : L->members[L->first[tc ? N - 1 - (v - 1) / 2 : (v - 1) / 2]];
    for (int j = 1; j <= 2; j++) {
        int cv = 2 * v + j;
        if (cv < N) kids[j] = L->members[L->first[tc ? N - 1 - cv : cv]];
    }
}

/* Rank 0's first lines: the version, and on more than one node the network
 * NCCL chose (the IB ports of its host, or the socket fallback). */
static void log_network(mgpu_comm *c, sim_comm *sc, const layout *L, const mgpu_topo_gpu *mine)
{
    line(c, sc, "NCCL version SIMULATED (mgpulab's sim communicator: rings, trees and transports are the "
                "model's, not NCCL's)");
    if (L->nnodes <= 1) return;
    char nics[512] = "";
    int k = 0, socket = mgpu_topo_has_fault(sc->topo, "net-socket");
    for (int i = 0; i < mgpu_topo_nic_count(sc->topo) && !socket; i++) {
        const mgpu_topo_nic *x = mgpu_topo_nic_at(sc->topo, i);
        if (!mine || x->host != mine->host) continue;
        if (x->down) { /* NCCL lists only ports that are ACTIVE */
            line(c, sc, "NET/IB : %s:%d port is not active (state DOWN), skipping", x->name, x->port > 0 ? x->port : 1);
            continue;
        }
        size_t at = strlen(nics);
        snprintf(nics + at, sizeof nics - at, " [%d]%s:%d/IB", k++, x->name, x->port > 0 ? x->port : 1);
    }
    if (k) line(c, sc, "NET/IB : Using%s ; OOB SIMULATED", nics);
    if (socket) {
        /* what NCCL prints when its IB plugin finds no usable verbs
         * library or device: it falls back without an error */
        line(c, sc, "NET/Plugin : No plugin found (libnccl-net.so), using internal implementation");
        line(c, sc, "NET/IB : No device found.");
        line(c, sc, "NET/Socket : Using [0]eth0:10.0.0.%d<0>", (mine ? mine->host : 0) + 1);
    }
    line(c, sc, "Using network %s", k ? "IB" : "Socket");
}

/* Rank 0: every channel's ring, in rank order. */
static void log_rings(mgpu_comm *c, sim_comm *sc, const layout *L, int nch, const int *base, int *order)
{
    int n = c->size;
    for (int ch = 0; ch < nch; ch++) {
        ring_order(L, ch, base, order);
        char buf[900] = "";
        for (int i = 0; i < n && strlen(buf) + 8 < sizeof buf; i++)
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf), " %3d", order[i]);
        line(c, sc, "Channel %02d/%02d :%s", ch, nch, buf);
    }
}

/* This rank's place in both trees: children/->rank->parent. */
static void log_trees(mgpu_comm *c, sim_comm *sc, const layout *L)
{
    int me = c->rank;
    char trees[256] = "";
    for (int tc = 0; tc < 2; tc++) {
        int parent, kids[3];
        tree_of(L, tc, me, &parent, kids);
        size_t at = strlen(trees);
        snprintf(trees + at, sizeof trees - at, "%s[%d] %d/%d/%d->%d->%d", tc ? " " : "", tc, kids[0], kids[1], kids[2],
                 me, parent);
    }
    line(c, sc, "Trees %s", trees);
}

/* This rank's send edge on every channel, with its transport. */
static void log_send_edges(mgpu_comm *c, sim_comm *sc, const layout *L, int nch, const int *base, int *order,
                           const mgpu_topo_gpu *mine)
{
    int n = c->size, me = c->rank;
    for (int ch = 0; ch < nch; ch++) {
        ring_order(L, ch, base, order);
        int at = 0;
        while (order[at] != me) at++;
        int next = order[(at + 1) % n];
        mgpu_coll_link l;
        mgpu_coll_link_between(sc->topo, sc->gpu_of_rank[me], sc->gpu_of_rank[next], &sc->tuning, &l);
        const mgpu_topo_gpu *gn = mgpu_topo_gpu_at(sc->topo, sc->gpu_of_rank[next]);
        line(c, sc, "Channel %02d/0 : %d[%d] -> %d[%d]%s via %s", ch, me, mine ? mine->dev : 0, next,
             gn ? gn->dev : 0, l.kind == MGPU_XPORT_NET ? " [send]" : "", l.via);
    }
}

/* NVLink SHARP: every rank says multicast is there, rank 0 the buffers
 * (the device memory the communicator took for them). */
static void log_nvls(mgpu_comm *c, sim_comm *sc, const layout *L, int nvls_ch, size_t nvls_bytes,
                     const mgpu_topo_gpu *mine)
{
    int me = c->rank;
    line(c, sc, "NVLS multicast support is available on dev %d", mine ? mine->dev : c->device);
    if (me == 0)
        line(c, sc, "NVLS comm 0x%llx headRank 0 nHeads %d nvlsRanks %d buffSize %u nvlsPerRankSize %zu "
                    "nvlsTotalSize %zu",
             (unsigned long long)c->id, (int)(nvls_bytes / ((size_t)nvls_ch * 2 * (1u << 20))),
             L->count[L->node_of[me]], 1u << 20, (size_t)nvls_ch * 2 * (1u << 20), nvls_bytes);
}

void sim_log_comm(mgpu_comm *c, sim_comm *sc)
{
    if (!sc->log_info || c->size < 2) return;
    int n = c->size, me = c->rank;
    layout L;
    int *order = malloc(sizeof(int) * (size_t)n);
    if (make_layout(sc, n, &L) != 0 || !order) { /* out of memory: no log, nothing else lost */
        free(order);
        free_layout(&L);
        return;
    }
    int nch = mgpu_coll_channels(sc->topo, n, sc->gpu_of_rank, &sc->tuning);
    size_t nvls_bytes = 0;
    int nvls_ch = mgpu_coll_nvls_channels(sc->topo, n, sc->gpu_of_rank, &sc->tuning, &nvls_bytes);
    int *base = malloc(sizeof(int) * (size_t)n);
    if (!base || mgpu_coll_ring_order(sc->topo, n, sc->gpu_of_rank, &sc->tuning, base) != MGPU_OK) {
        mgpu_error_clear();
        free(base);
        free(order);
        free_layout(&L);
        return;
    }
    const mgpu_topo_gpu *mine = mgpu_topo_gpu_at(sc->topo, sc->gpu_of_rank[me]);
    if (me == 0) log_network(c, sc, &L, mine);
    int local = 0;
    while (L.members[L.first[L.node_of[me]] + local] != me) local++;
    line(c, sc, "comm 0x%llx rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0",
         (unsigned long long)c->id, me, n, L.nnodes, L.count[L.node_of[me]], local);
    if (me == 0) log_rings(c, sc, &L, nch, base, order);
    log_trees(c, sc, &L);
    log_send_edges(c, sc, &L, nch, base, order, mine);
    if (nvls_ch) log_nvls(c, sc, &L, nvls_ch, nvls_bytes, mine);
    if (me == 0)
        line(c, sc, "%d coll channels, %d collnet channels, %d nvls channels, %d p2p channels, %d p2p channels per peer",
             nch, sc->tuning.collnet && L.nnodes > 1 ? nch : 0, nvls_ch, nch, nch > 1 ? nch / 2 : 1);
    free(base);
    free(order);
    free_layout(&L);
}

/* NCCL's word for each collective in its tuner line ("AllReduce: opCount
 * ..."), NULL where NCCL prints none (point-to-point, alltoall as grouped
 * sends, the barrier). Every collective has an entry, in any order: one
 * added to mgpu_coll without a line here fails the build, where a switch's
 * default silently dropped its INFO line. */
static const struct {
    mgpu_coll op;
    const char *word;
} coll_words[] = {
    {MGPU_COLL_ALL_REDUCE, "AllReduce"},
    {MGPU_COLL_ALL_GATHER, "AllGather"},
    {MGPU_COLL_REDUCE_SCATTER, "ReduceScatter"},
    {MGPU_COLL_BROADCAST, "Broadcast"},
    {MGPU_COLL_REDUCE, "Reduce"},
    {MGPU_COLL_ALLTOALL, NULL},
    {MGPU_COLL_SEND, NULL},
    {MGPU_COLL_RECV, NULL},
    {MGPU_COLL_BARRIER, NULL},
};
_Static_assert(sizeof coll_words / sizeof coll_words[0] == MGPU_COLL_COUNT,
               "every mgpu_coll needs a line in coll_words: its word in NCCL's tuner line, or NULL for none");

static const char *coll_word(mgpu_coll op)
{
    for (size_t i = 0; i < sizeof coll_words / sizeof coll_words[0]; i++)
        if (coll_words[i].op == op) return coll_words[i].word;
    return NULL;
}

void sim_log_collective(mgpu_comm *c, sim_comm *sc, mgpu_coll op, size_t bytes, const mgpu_coll_prediction *p)
{
    const char *word = coll_word(op);
    if (!sc->log_info || c->rank != 0 || c->size < 2 || !word) return;
    /* once per (collective, size, choice) per communicator: a sweep's
     * iterations would otherwise bury the log */
    uint64_t key = ((uint64_t)bytes << 12) ^ ((uint64_t)op << 6) ^ ((uint64_t)p->algo << 2) ^ (uint64_t)p->proto;
    for (int i = 0; i < sc->nlogged && i < SIM_LOG_KEYS; i++)
        if (sc->logged[i] == key) return;
    sc->logged[sc->nlogged++ % SIM_LOG_KEYS] = key;
    static const char *const proto[] = {"LL", "LL128", "SIMPLE"};
    int nvls = p->algo == MGPU_ALGO_NVLS || p->algo == MGPU_ALGO_NVLS_TREE;
    int nch = nvls ? mgpu_coll_nvls_channels(sc->topo, c->size, sc->gpu_of_rank, &sc->tuning, NULL)
                   : mgpu_coll_channels(sc->topo, c->size, sc->gpu_of_rank, &sc->tuning);
    if (nch < 1) nch = 1;
    line(c, sc, "%s: %zu Bytes -> Algo %s proto %s channel{Lo..Hi}={0..%d}", word, bytes,
         mgpu_coll_algo_nccl_name(p->algo), (unsigned)p->proto < 3 ? proto[p->proto] : "?", nch - 1);
}
