/* sim_telemetry.c - the bandwidth pane's modelled load (mgpu_link_load)
 * from the sim communicator: which links of this rank's GPU a collective or
 * a send/receive uses, and at what rate. Across nodes the traffic splits:
 * lab 7's 16 ranks on two DGX nodes showed the whole bus bandwidth as PCIe
 * on every GPU and NVLink at 0.0, though most of a ring's edges are NVLink. */
#include <string.h>
#include "mgpu/clock.h"
#include "sim_comm.h"

/* Publish tx and rx on one kind of link (0 leaves that direction alone). */
static void publish(int gpu, mgpu_link_kind kind, double tx, double rx, double secs)
{
    if (tx > 0 || rx > 0) mgpu_link_load(gpu, kind, tx, rx, secs);
}

/* A collective: this rank's GPU sends and receives the collective's bus
 * bytes (nccl-tests' busbw) for the call's wall time. On one node all of it
 * is on the intra-node link (NVLink when the model's bottleneck is NVLink,
 * PCIe/SHM otherwise). Across nodes the ring visits a node's ppn ranks and
 * leaves it once, on every channel, and the channels take turns at the
 * node's NICs: of a rank's traffic (ppn - 1)/ppn stays inside the node and
 * 1/ppn goes to another node through its nearest NIC - over its PCIe link
 * to the NIC, then the network. The tree's chains cross the nodes alike;
 * the model gives one busbw for either. */
void sim_publish_collective(mgpu_comm *c, sim_comm *sc, const mgpu_coll_prediction *p, uint64_t t0)
{
    if (!p->link || strcmp(p->link, "HBM") == 0 || !(p->busbw_gbs > 0)) return;
    double secs = (double)(mgpu_now_ns() - t0) / 1e9, bps = p->busbw_gbs * 1e9;
    int g = sc->gpu_of_rank[c->rank];
    if (p->nnodes <= 1) {
        mgpu_link_kind kind = strcmp(p->link, "NVLink") == 0 ? MGPU_LINK_NVLINK : MGPU_LINK_PCIE;
        publish(g, kind, bps, bps, secs);
        return;
    }
    const mgpu_topo_gpu *me = mgpu_topo_gpu_at(sc->topo, g);
    if (!me) return;
    int ppn = 0, nvlink = 1;
    for (int r = 0; r < c->size; r++) {
        int o = sc->gpu_of_rank[r];
        const mgpu_topo_gpu *og = mgpu_topo_gpu_at(sc->topo, o);
        if (!og || og->host != me->host) continue;
        ppn++;
        if (o != g && mgpu_topo_gpu_path(sc->topo, g, o).type != MGPU_PATH_NV) nvlink = 0;
    }
    if (ppn < 1) ppn = 1;
    double inside = bps * (ppn - 1) / ppn, across = bps / ppn;
    if (nvlink) publish(g, MGPU_LINK_NVLINK, inside, inside, secs);
    /* without NVLink the node's ring runs over PCIe too, beside the NIC's share */
    double pcie = across + (nvlink ? 0 : inside);
    publish(g, MGPU_LINK_PCIE, pcie, pcie, secs);
    publish(g, MGPU_LINK_NET, across, across, secs);
}

/* A send (or receive) between this rank's GPU and a peer's at bps: NVLink
 * when the pair's path is NVLink, the network (and the PCIe link to the
 * NIC) when the peer is on another node, PCIe otherwise. */
void sim_publish_p2p(sim_comm *sc, int gpu, int peer_gpu, int send, double bps, double secs)
{
    int ng = mgpu_topo_gpu_count(sc->topo);
    if (gpu < 0 || gpu >= ng || peer_gpu < 0 || peer_gpu >= ng) return;
    double tx = send ? bps : 0, rx = send ? 0 : bps;
    if (mgpu_topo_gpu_at(sc->topo, gpu)->host != mgpu_topo_gpu_at(sc->topo, peer_gpu)->host) {
        publish(gpu, MGPU_LINK_PCIE, tx, rx, secs);
        publish(gpu, MGPU_LINK_NET, tx, rx, secs);
        return;
    }
    int nv = mgpu_topo_gpu_path(sc->topo, gpu, peer_gpu).type == MGPU_PATH_NV;
    publish(gpu, nv ? MGPU_LINK_NVLINK : MGPU_LINK_PCIE, tx, rx, secs);
}
