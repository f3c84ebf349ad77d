/* topo_internal.h - what the topology files share privately: the model
 * struct, source positions of parsed elements, and small helpers. */
#ifndef MGPU_TOPO_INTERNAL_H
#define MGPU_TOPO_INTERNAL_H
#include "mgpu/topo.h"

/* Bounds that keep a hostile file from costing more than a few MB of RAM
 * and a fraction of a second (documented in docs/topology-model.md). */
#define TOPO_MAX_FILE_BYTES (16u << 20)
#define TOPO_MAX_DEPTH 64
#define TOPO_MAX_NODES 200000
#define TOPO_MAX_HOSTS 1024
#define TOPO_MAX_GPUS 8192
#define TOPO_MAX_NICS 8192

/* The root of mgpulab's multi-host wrapper around one <system> per host. */
#define TOPO_WRAPPER_NAME "mgpulab-cluster"
/* PCI class of an NVSwitch as NCCL writes it in <nvlink tclass>. */
#define TOPO_CLASS_NVSWITCH 0x068000u
/* PCI class of a host bridge: a <pci> of this class marks one PCIe root
 * complex, so devices below it are PHB to each other (mgpulab extension). */
#define TOPO_CLASS_HOST_BRIDGE 0x060000u

/* Where an element came from, so the view can name FILE:LINE:COL. */
typedef struct topo_srcpos {
    const mgpu_xml_node *node;
    int line, col;
} topo_srcpos;

typedef struct topo_srcmap {
    const char *source;      /* file name or "<input>" */
    topo_srcpos *pos;
    int n, cap;
    /* A file the user named (--machine, --expect): an NVLink to a GPU the
     * file does not hold is refused. Text from this machine's own discovery
     * keeps such links, as NCCL's dumps do (a GPU outside the job). */
    int strict_links;
} topo_srcmap;

/* Fault bits (topo_faults.c). */
enum {
    TOPO_FAULT_NVLINK_DOWN = 1u << 0,
    TOPO_FAULT_P2P_DISABLED = 1u << 1,
    TOPO_FAULT_NO_GDR = 1u << 2,
    TOPO_FAULT_STRAGGLER = 1u << 3,
    TOPO_FAULT_CRASH = 1u << 4,
    TOPO_FAULT_NIC_DOWN = 1u << 5,
    TOPO_FAULT_NIC_SLOW = 1u << 6,
    TOPO_FAULT_IB_SPEED = 1u << 7,
    TOPO_FAULT_PCIE_DOWNGRADE = 1u << 8,
    TOPO_FAULT_NET_SOCKET = 1u << 9,
};
#define TOPO_NFAULT_BITS 10

/* A device's way up its tree, each hop's PCIe facts read once (topo_paths.c). */
typedef struct topo_hop topo_hop;
typedef struct topo_chain {
    topo_hop *hop; /* the device element first, the root last */
    int n;
} topo_chain;

struct mgpu_topo {
    char *machine_name;
    int simulated;
    int nhosts;
    mgpu_xml_node **hosts;       /* owned <system> roots */
    mgpu_xml_node *wrapper;      /* owned, childless copy of an imported wrapper root; NULL if none */

    int ngpus, nnics;
    mgpu_topo_gpu *gpus;
    mgpu_topo_nic *nics;
    /* Per GPU, parallel to gpus: */
    int *gpu_nvsw_links;          /* links to NVSwitches */
    unsigned char *gpu_nvlink_down;
    double *host_intersocket_gbs;  /* per host, from its CPU vendor/model */
    int *gpu_best_nic;             /* per GPU: its closest, then fastest NIC on its host; -1 none */
    double *gpu_net_gbs;           /* per GPU: min(that NIC's line rate, PCIe path to it) */
    double *gpu_net_wired;         /* the same on the healthy machine (before faults) */
    topo_chain *gpu_chain, *nic_chain; /* per GPU, per NIC: the way to the root from its <pci> (or itself) */

    signed char *peer_override;   /* ngpus*ngpus, -2 = derive; NULL until set */

    char **notes;                 /* NULL-terminated */
    int nnotes, cap_notes;

    unsigned faults;
    int fault_arg[TOPO_NFAULT_BITS]; /* per fault bit index; -1 none */
};

/* Build the model from trees; `map` (may be NULL) names source positions in
 * errors. On failure the trees are freed. */
mgpu_result topo_build(mgpu_xml_node **systems, int nhosts, mgpu_xml_node *wrapper,
                       const char *machine_name, int simulated, const topo_srcmap *map,
                       mgpu_topo **out);

/* Fill gpu_chain / nic_chain and gpu_best_nic / gpu_net_gbs (topo_paths.c);
 * called once the view is built. topo_paths_release frees what it made. */
mgpu_result topo_paths_prepare(mgpu_topo *t);
/* Choose each GPU's NIC again after a fault changed a NIC or a PCIe link. */
void topo_paths_pick_nics(mgpu_topo *t);
/* Set a GPU's own PCIe link rate (the pcie-downgrade fault). */
void topo_paths_set_gpu_link(mgpu_topo *t, int gpu, double gbs);
void topo_paths_release(mgpu_topo *t);

/* "FILE:LINE:COL" of an element, or "host N <gpu>" style when unknown. */
void topo_where(const topo_srcmap *map, const mgpu_xml_node *n, char *buf, size_t len);

/* CPU list "0-31,64-95" <-> NCCL affinity mask "ffffffff,00000000,ffffffff".
 * Both fail with MGPU_ERR_INVALID on malformed input. */
mgpu_result topo_mask_to_cpulist(const char *mask, char *out, size_t len);
mgpu_result topo_cpulist_to_mask(const char *cpulist, int ncpus, char *out, size_t len);

/* Per-link NVLink GB/s per direction for a compute capability (sm 90 -> 25). */
double topo_nvlink_gbs_for_sm(int sm);

/* Strict integer parse of a whole string (decimal or 0x hex). */
int topo_parse_long(const char *s, long long *out);

#endif
