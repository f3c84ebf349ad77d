/* collmodel.h - predicted time of a collective on a machine model, the way
 * NCCL's tuner prices it (src/graph/tuning.cc): alpha-beta per algorithm
 * (ring; tree for all_reduce) and protocol (LL, LL128, Simple), the bus
 * bandwidth taken from the topology, and the cheapest pair chosen per size.
 * The sim communicator advances modelled time with it; the bench prints it
 * next to measurements; labs use it to explain what they see.
 * docs/sim-collectives.md gives every constant and where it comes from. */
#ifndef MGPU_COLLMODEL_H
#define MGPU_COLLMODEL_H
#include <stddef.h>
#include "mgpu/comm.h"
#include "mgpu/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* P2P: alltoall and send/recv, which NCCL runs as point-to-point transfers
 * outside its tuner; they are priced by the links between the peers. */
/* COLLNET: in-network reduction (SHARP), only with NCCL_COLLNET_ENABLE=1:
 * a what-if, since no preset says its switches can reduce. */
/* NVLS: NVLink SHARP - the NVSwitch reduces and multicasts (all_reduce,
 * all_gather, reduce_scatter inside one NVSwitch node; all_reduce across
 * nodes only with CollNet). NVLS_TREE: NVLS inside each node, a tree of
 * the nodes over the network (all_reduce, 2+ nodes). NCCL >= 2.17 on
 * Hopper with NVSwitches, NCCL_NVLS_ENABLE not 0. */
typedef enum mgpu_coll_algo {
    MGPU_ALGO_RING = 0,
    MGPU_ALGO_TREE,
    MGPU_ALGO_P2P,
    MGPU_ALGO_COLLNET,
    MGPU_ALGO_NVLS,
    MGPU_ALGO_NVLS_TREE,
    MGPU_ALGO_COUNT
} mgpu_coll_algo;
typedef enum mgpu_coll_proto { MGPU_PROTO_LL = 0, MGPU_PROTO_LL128, MGPU_PROTO_SIMPLE, MGPU_PROTO_COUNT } mgpu_coll_proto;

const char *mgpu_coll_algo_name(mgpu_coll_algo a);   /* "ring", "tree", "p2p", "collnet", "nvls", "nvlstree" */
/* NCCL's word in its INFO lines: "RING", "TREE", "COLLNET_DIRECT", "NVLS", "NVLS_TREE". */
const char *mgpu_coll_algo_nccl_name(mgpu_coll_algo a);
const char *mgpu_coll_proto_name(mgpu_coll_proto p); /* "LL", "LL128", "Simple" */

typedef struct mgpu_coll_prediction {
    double time_us;        /* predicted duration */
    double algbw_gbs;      /* bytes / time, as nccl-tests prints it */
    double busbw_gbs;      /* algbw * mgpu_coll_busbw_factor */
    mgpu_coll_algo algo;
    mgpu_coll_proto proto;
    const char *algo_name, *proto_name;
    double latency_us;     /* the alpha term of the chosen pair */
    double bus_gbs;        /* the pair's bus bandwidth (beta term, before the algbw ratio) */
    int nnodes;            /* hosts the ranks span */
    const char *link;      /* the bottleneck: "NVLink", "PCIe", "network", "HBM" */
    int ctas;              /* SMs the call's kernel holds: one CTA per channel */
    double hbm_bytes;      /* bytes each rank's GPU memory moves for it (compute beside it shares them) */
} mgpu_coll_prediction;

/* Choices a caller can force (NCCL_ALGO / NCCL_PROTO); -1 = choose. The
 * other members are 0 for NCCL's defaults, so {algo, proto} initialisers
 * keep them. */
typedef struct mgpu_coll_tuning {
    int algo;              /* mgpu_coll_algo or -1 */
    int proto;             /* mgpu_coll_proto or -1 */
    int p2p_disable;       /* NCCL_P2P_DISABLE=1: GPUs of a node talk through host memory (SHM) */
    int gdr_max_path;      /* NCCL_NET_GDR_LEVEL: 0 = NCCL's default (PXB), -1 = never (LOC),
                            * else the farthest mgpu_path_type GPU -> NIC that may use GPUDirect RDMA */
    int collnet;           /* NCCL_COLLNET_ENABLE=1: in-network reduction (SHARP) what-if */
    int nvls;              /* NCCL_NVLS_ENABLE: 0 = NCCL's default (2: where the machine supports it),
                            * -1 = off (NCCL_NVLS_ENABLE=0), 1 = asked for (=1) */
    unsigned algo_mask;    /* NCCL_ALGO as a list ("ring,nvls", "^nvls"): bit (1 << mgpu_coll_algo) per
                            * algorithm allowed; 0 = all. A single name sets `algo` instead */
    unsigned proto_mask;   /* NCCL_PROTO as a list ("^LL128"), likewise; 0 = all */
    int multicast;         /* per call: a broadcast through a CUDA multicast object, not NCCL
                            * (mgpu_broadcast_multicast): priced at NVLS's store rate */
    int nvls_no_op;        /* per call: the reduction NVLS cannot do (prod, avg, min/max of f32), so
                            * NCCL keeps all_reduce/reduce_scatter off NVLS */
} mgpu_coll_tuning;

/* Read NCCL_ALGO ("ring", "tree", "nvls", "nvlstree", "collnetdirect", "collnetchain",
 * "pat"; one name or a list, "^" excludes), NCCL_PROTO ("LL", "LL128", "Simple"), NCCL_NVLS_ENABLE,
 * NCCL_P2P_DISABLE, NCCL_NET_GDR_LEVEL (LOC, PIX, PXB, PHB, SYS or 0-5) and
 * NCCL_COLLNET_ENABLE, case-insensitive; unset or a list of several = -1
 * (choose). An unknown value fails with MGPU_ERR_INVALID naming the known
 * ones. */
mgpu_result mgpu_coll_tuning_from_env(mgpu_coll_tuning *out);

/* Predict `op` moving `bytes` (nccl-tests' "size": the whole buffer - for
 * all_gather the gathered output, for reduce_scatter and alltoall the whole
 * input; NCCL's nBytes) over `nranks` ranks. gpu_of_rank[r] is the global GPU
 * index (mgpu_topo_gpu_at) of rank r; NULL = rank r on GPU r mod (GPUs of
 * the model), and ranks beyond the model's GPUs on further identical hosts
 * (rank r on host r / GPUs-per-host), so any rank count can be priced.
 * Pure arithmetic: O(nranks). tun may be NULL (choose like NCCL). */
mgpu_result mgpu_coll_predict_tuned(const mgpu_topo *t, mgpu_coll op, size_t bytes, int nranks,
                                    const int *gpu_of_rank, const mgpu_coll_tuning *tun,
                                    mgpu_coll_prediction *out);
mgpu_result mgpu_coll_predict(const mgpu_topo *t, mgpu_coll op, size_t bytes, int nranks,
                              const int *gpu_of_rank, mgpu_coll_prediction *out);
/* The same for one call that knows where its output goes: in_place = 1 when
 * the rank's output overwrites its own input (send and receive at the same
 * place). On one rank NCCL then has nothing to move and only launches; out
 * of place it copies send to receive on the GPU. More ranks price alike. */
mgpu_result mgpu_coll_predict_call(const mgpu_topo *t, mgpu_coll op, size_t bytes, int nranks,
                                   const int *gpu_of_rank, const mgpu_coll_tuning *tun, int in_place,
                                   mgpu_coll_prediction *out);

/* The same for a group larger than the model: `nranks` ranks spread
 * evenly over `nnodes` identical hosts (the model's first host repeated),
 * nranks / nnodes on each, on GPUs 0, gpu_stride, 2 * gpu_stride, ... of
 * every host - how a DP, TP or PP group of a large cluster sits (the
 * what-if planner, mgpu/whatif.h). Out of place. */
mgpu_result mgpu_coll_predict_spread(const mgpu_topo *t, mgpu_coll op, size_t bytes, int nranks, int nnodes,
                                     int gpu_stride, const mgpu_coll_tuning *tun, mgpu_coll_prediction *out);

/* How NCCL would connect GPU a to GPU b (global indices) on this machine:
 * P2P when peer access works (and NCCL_P2P_DISABLE is not set), SHM through
 * host memory otherwise, NET between hosts (IB on the sender's nearest NIC,
 * with GPUDirect RDMA when GPU, NIC and NCCL_NET_GDR_LEVEL allow; a socket
 * when the host has no NIC). `gbs` is the rate the model gives the edge. */
typedef enum mgpu_coll_xport { MGPU_XPORT_SELF = 0, MGPU_XPORT_P2P, MGPU_XPORT_SHM, MGPU_XPORT_NET } mgpu_coll_xport;
typedef struct mgpu_coll_link {
    mgpu_coll_xport kind;
    int nic;               /* NET: the sender's NIC (global index), -1 = socket / not NET */
    int gdr;               /* NET: 1 with GPUDirect RDMA */
    double gbs;            /* modelled one-direction rate after efficiency, GB/s */
    char via[40];          /* NCCL's words after "via": "P2P/CUMEM/read", "SHM/direct/direct",
                            * "NET/IB/0/GDRDMA", "NET/IB/3", "NET/Socket/0" */
} mgpu_coll_link;
void mgpu_coll_link_between(const mgpu_topo *t, int gpu_a, int gpu_b, const mgpu_coll_tuning *tun,
                            mgpu_coll_link *out);
/* Ring channels the model gives a communicator (16 on NVLink, 2 on PCIe). */
int mgpu_coll_channels(const mgpu_topo *t, int nranks, const int *gpu_of_rank, const mgpu_coll_tuning *tun);

/* NVLink SHARP for this communicator: NVLS channels (16 on Hopper, as
 * NCCL's NVLS_NCHANNELS_SM90) when NCCL would set it up - every rank's GPU
 * on NVSwitches (links up), sm >= 90, 2+ ranks on a node, one rank per GPU,
 * NCCL_NVLS_ENABLE not 0 - else 0. *buffer_bytes (may be NULL) gets the
 * device memory NCCL's NVLS buffers take on each GPU: channels x 2 x
 * (128 KiB chunk x 8 steps) x heads (the node's GPUs; NICs across nodes),
 * as nvls.cc's ncclNvlsBufferSetup - 256 MiB on a DGX H100. */
int mgpu_coll_nvls_channels(const mgpu_topo *t, int nranks, const int *gpu_of_rank, const mgpu_coll_tuning *tun,
                            size_t *buffer_bytes);

/* The ring NCCL's search would build: order[0..nranks) gets the ranks in
 * ring order (channel 0; further channels rotate each node's part). Inside
 * each node the ranks are ordered so the slowest hop is as fast as it can
 * be (NCCL's graph search maximises the ring's bandwidth): with a GPU's
 * NVLinks down its neighbours in the ring are GPUs it reaches over PCIe,
 * not across the CPUs' SMP link. Rank order when that is as good. */
mgpu_result mgpu_coll_ring_order(const mgpu_topo *t, int nranks, const int *gpu_of_rank,
                                 const mgpu_coll_tuning *tun, int *order);

/* nccl-tests' bus bandwidth factor: all_reduce 2(n-1)/n; all_gather,
 * reduce_scatter, alltoall (n-1)/n; broadcast, reduce, send/recv 1. */
double mgpu_coll_busbw_factor(mgpu_coll op, int nranks);
/* The same factor as a formula of n for a reader: "2(n-1)/n", "(n-1)/n" or
 * "1" (`mgpulab bench --help` lists it). */
const char *mgpu_coll_busbw_factor_text(mgpu_coll op);

#ifdef __cplusplus
}
#endif
#endif
