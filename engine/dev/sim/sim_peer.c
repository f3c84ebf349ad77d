/* sim_peer.c - the sim backend's peer access: what the topology allows
 * (NVLink or PCIe P2P, faults such as p2p-disabled) and the per-process
 * on/off switch that the copy model and kernel reach checks read. */
#include "dev/sim/sim_peer.h"
#include "mgpu/topo.h"

/*--- Peer access -------------------------------------------------------*/

static int topo_index(sim_state *st, int dev) { return st->model.gpu[dev].topo_index; }

mgpu_result sim_peer_can_access(mgpu_backend *be, int dev, int peer, int *can)
{
    sim_state *st = sim_of(be);
    *can = mgpu_topo_peer_access(be->topo, topo_index(st, dev), topo_index(st, peer)) == 1;
    return MGPU_OK;
}

mgpu_result sim_peer_attributes(mgpu_backend *be, int dev, int peer, mgpu_p2p_attr *out)
{
    sim_state *st = sim_of(be);
    int can = 0;
    MGPU_CHECK(sim_peer_can_access(be, dev, peer, &can));
    mgpu_topo_path p = mgpu_topo_gpu_path(be->topo, topo_index(st, dev), topo_index(st, peer));
    out->access_supported = can;
    out->native_atomic_supported = can && p.type == MGPU_PATH_NV; /* PCIe P2P has no native atomics */
    out->cuda_array_access_supported = can;
    /* Lower is better, as CUDA ranks it: NVLink, then PCIe switches, then
     * host bridges; 0 when peer access is not possible at all. */
    if (!can) out->performance_rank = 0;
    else if (p.type == MGPU_PATH_NV) out->performance_rank = 0;
    else if (p.type == MGPU_PATH_PIX || p.type == MGPU_PATH_PXB) out->performance_rank = 1;
    else out->performance_rank = 2;
    return MGPU_OK;
}

/* Turn dev's access to peer on or off; returns whether it was on before
 * (CUDA refuses to enable it twice or to disable it when off). */
static int switch_peer(sim_state *st, int dev, int peer, int on)
{
    pthread_mutex_lock(&st->lock);
    int was = st->peer_on[dev * st->ndev + peer];
    st->peer_on[dev * st->ndev + peer] = on;
    pthread_mutex_unlock(&st->lock);
    return was;
}

mgpu_result sim_peer_enable(mgpu_backend *be, int dev, int peer)
{
    sim_state *st = sim_of(be);
    int can = 0;
    MGPU_CHECK(sim_peer_can_access(be, dev, peer, &can));
    if (!can) {
        mgpu_topo_path p = mgpu_topo_gpu_path(be->topo, topo_index(st, dev), topo_index(st, peer));
        if (mgpu_topo_has_fault(be->topo, "p2p-disabled"))
            return mgpu_fail(MGPU_ERR_PEER,
                             "GPU %d cannot access GPU %d: P2P is disabled on this machine (fault "
                             "p2p-disabled, as with PCIe ACS on); copies between them are staged "
                             "through host memory (cudaErrorPeerAccessUnsupported)",
                             dev, peer);
        return mgpu_fail(MGPU_ERR_PEER,
                         "GPU %d cannot access GPU %d: the path between them is %s, which does not "
                         "support peer access; copies between them are staged through host memory "
                         "(cudaErrorPeerAccessUnsupported)",
                         dev, peer, mgpu_path_type_name(p.type));
    }
    if (switch_peer(st, dev, peer, 1))
        return mgpu_fail(MGPU_ERR_PEER,
                         "peer access from GPU %d to GPU %d is already enabled "
                         "(cudaErrorPeerAccessAlreadyEnabled); enable it once",
                         dev, peer);
    return MGPU_OK;
}

mgpu_result sim_peer_disable(mgpu_backend *be, int dev, int peer)
{
    if (!switch_peer(sim_of(be), dev, peer, 0))
        return mgpu_fail(MGPU_ERR_PEER,
                         "peer access from GPU %d to GPU %d is not enabled, so it cannot be disabled "
                         "(cudaErrorPeerAccessNotEnabled)",
                         dev, peer);
    return MGPU_OK;
}

mgpu_result sim_peer_enabled(mgpu_backend *be, int dev, int peer, int *on)
{
    sim_state *st = sim_of(be);
    pthread_mutex_lock(&st->lock);
    *on = st->peer_on[dev * st->ndev + peer];
    pthread_mutex_unlock(&st->lock);
    return MGPU_OK;
}

