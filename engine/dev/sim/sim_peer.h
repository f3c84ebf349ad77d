/* sim_peer.h - the sim backend's peer-access ops (sim_peer.c). */
#ifndef MGPU_SIM_PEER_H
#define MGPU_SIM_PEER_H
#include "dev/sim/sim_internal.h"

mgpu_result sim_peer_can_access(mgpu_backend *be, int dev, int peer, int *can);
mgpu_result sim_peer_attributes(mgpu_backend *be, int dev, int peer, mgpu_p2p_attr *out);
mgpu_result sim_peer_enable(mgpu_backend *be, int dev, int peer);
mgpu_result sim_peer_disable(mgpu_backend *be, int dev, int peer);
mgpu_result sim_peer_enabled(mgpu_backend *be, int dev, int peer, int *on);

#endif
