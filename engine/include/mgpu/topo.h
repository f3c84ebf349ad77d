/* topo.h - one model of a machine (or a cluster of hosts).
 *
 * The model is a tree per host in the shape of NCCL's topology XML (the
 * format NCCL writes with NCCL_TOPO_DUMP_FILE): <system> holds <cpu> (NUMA
 * node, affinity mask) holding <pci> bridges/switches holding <pci> devices
 * with a <gpu> (and its <nvlink> bonds) or a <nic>/<net>. Presets, discovery
 * and the XML importer all build this tree; mgpu_topo_finalize() derives the
 * flat view below (GPU and NIC lists, path types, bandwidths) that everything
 * else reads. Keeping the tree (with attributes in order) is what makes an
 * export -> import -> export round trip byte-identical. */
#ifndef MGPU_TOPO_H
#define MGPU_TOPO_H
#include <stdint.h>
#include <stdio.h>
#include "mgpu/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mgpu_topo mgpu_topo;

/*--- The tree ---------------------------------------------------------*/

#define MGPU_XML_MAX_ATTRS 24
#define MGPU_XML_NAME_LEN 32
#define MGPU_XML_VALUE_LEN 256

typedef struct mgpu_xml_attr {
    char key[MGPU_XML_NAME_LEN];
    char value[MGPU_XML_VALUE_LEN];
} mgpu_xml_attr;

typedef struct mgpu_xml_node {
    char name[MGPU_XML_NAME_LEN];          /* "system", "cpu", "pci", "gpu", "nvlink", "nic", "net" */
    int nattrs;
    mgpu_xml_attr attrs[MGPU_XML_MAX_ATTRS];
    struct mgpu_xml_node *parent;
    struct mgpu_xml_node **children;
    int nchildren, cap_children;
} mgpu_xml_node;

mgpu_xml_node *mgpu_xml_new(const char *name);  /* NULL on OOM */
/* Append a child; returns it (NULL on OOM, the parent is unchanged). */
mgpu_xml_node *mgpu_xml_add_child(mgpu_xml_node *parent, const char *name);
/* Set (replace or append, keeping first-insertion order) an attribute. */
mgpu_result mgpu_xml_set(mgpu_xml_node *n, const char *key, const char *value);
mgpu_result mgpu_xml_setf(mgpu_xml_node *n, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char *mgpu_xml_get(const mgpu_xml_node *n, const char *key); /* NULL when absent */
void mgpu_xml_free(mgpu_xml_node *n);

/*--- The derived view -------------------------------------------------*/

/* Path types of `nvidia-smi topo -m`, best first. NET joins two hosts. */
typedef enum mgpu_path_type {
    MGPU_PATH_X = 0, /* self */
    MGPU_PATH_NV,    /* NVLink (count in nvlinks) */
    MGPU_PATH_PIX,   /* at most a single PCIe bridge */
    MGPU_PATH_PXB,   /* multiple PCIe bridges, no host bridge */
    MGPU_PATH_PHB,   /* a PCIe host bridge (same CPU root) */
    MGPU_PATH_NODE,  /* host bridges within one NUMA node */
    MGPU_PATH_SYS,   /* across NUMA nodes (SMP interconnect, QPI/UPI/xGMI) */
    MGPU_PATH_NET    /* across hosts through the network */
} mgpu_path_type;

const char *mgpu_path_type_name(mgpu_path_type t); /* "X", "NV", "PIX", ... */

typedef struct mgpu_topo_gpu {
    int host;              /* index of the host (node) in the cluster */
    int dev;               /* CUDA ordinal on that host */
    char busid[20];        /* "0000:19:00.0" */
    char name[64];         /* "NVIDIA H100 80GB HBM3" or "" when unknown */
    int sm;                /* 90 for Hopper; 0 unknown */
    int numa;              /* NUMA node of its CPU; -1 unknown */
    char cpulist[128];     /* "0-55,112-167"; "" unknown */
    uint64_t mem_bytes;    /* 0 unknown */
    double hbm_gbs;        /* device memory bandwidth (spec), GB/s; 0 unknown */
    double pcie_gbs;       /* PCIe bandwidth per direction from link speed/width, GB/s */
    int gdr;               /* GPUDirect RDMA capable */
    int nvlinks_total;     /* NVLink links of this GPU */
    /* The PCIe link as it trained when the pcie-downgrade fault says it
     * runs below its wiring (0: as the tree records it) */
    int pcie_gen_now, pcie_width_now;
    const mgpu_xml_node *node; /* its <gpu> element */
} mgpu_topo_gpu;

typedef struct mgpu_topo_nic {
    int host;
    char name[32];         /* "mlx5_0" */
    char busid[20];
    double speed_gbps;     /* line rate in Gbit/s (NCCL writes Mbit/s); the ib-speed fault lowers it */
    double speed_wired_gbps; /* the rate the tree records (the port's supported rate) */
    int gdr;
    int port;
    int numa;
    int down;              /* the nic-down fault: port state DOWN, NCCL skips it */
    double slow;           /* the nic-slow fault: its traffic takes this many times as long (1: healthy) */
    const mgpu_xml_node *node; /* its <net> element */
} mgpu_topo_nic;

typedef struct mgpu_topo_path {
    mgpu_path_type type;
    int nvlinks;           /* NV# when type is NV */
    double bw_gbs;         /* modelled peak per direction, GB/s (1e9 B/s) */
    double latency_us;     /* modelled one-way latency */
} mgpu_topo_path;

/*--- Whole model ------------------------------------------------------*/

/* Build a model from host trees (takes ownership of the <system> roots). */
mgpu_result mgpu_topo_from_trees(mgpu_xml_node **systems, int nhosts, const char *machine_name,
                                 int simulated, mgpu_topo **out);
void mgpu_topo_free(mgpu_topo *t);

/* Presets: "dgx-h100", "dgx-h200", "pcie-4gpu", "2x-dgx-h100", "single-gpu".
 * An unknown name fails with MGPU_ERR_INVALID listing the known ones. */
mgpu_result mgpu_topo_preset(const char *name, mgpu_topo **out);
/* NULL-terminated list of preset names. */
const char *const *mgpu_topo_preset_names(void);
/* A preset name or an XML path: the --machine option. */
mgpu_result mgpu_topo_open_machine(const char *preset_or_path, mgpu_topo **out);

/* Import NCCL topology XML (one <system>, or mgpulab's multi-host wrapper).
 * Malformed or hostile input fails with MGPU_ERR_PARSE and line:column. */
mgpu_result mgpu_topo_load_xml(const char *path, mgpu_topo **out);
mgpu_result mgpu_topo_parse_xml(const char *text, size_t len, const char *source_name,
                                mgpu_topo **out);
/* Export in NCCL's format (a multi-host model in mgpulab's wrapper). */
mgpu_result mgpu_topo_write_xml(const mgpu_topo *t, FILE *f);

const char *mgpu_topo_machine_name(const mgpu_topo *t); /* "dgx-h100", "topo.xml", "this machine" */
int mgpu_topo_simulated(const mgpu_topo *t);
int mgpu_topo_host_count(const mgpu_topo *t);
const mgpu_xml_node *mgpu_topo_host_tree(const mgpu_topo *t, int host);
int mgpu_topo_gpu_count(const mgpu_topo *t);
const mgpu_topo_gpu *mgpu_topo_gpu_at(const mgpu_topo *t, int i);  /* global index */
int mgpu_topo_nic_count(const mgpu_topo *t);
const mgpu_topo_nic *mgpu_topo_nic_at(const mgpu_topo *t, int i);
/* Global GPU index of (host, dev), -1 when absent. */
int mgpu_topo_gpu_index(const mgpu_topo *t, int host, int dev);

mgpu_topo_path mgpu_topo_gpu_path(const mgpu_topo *t, int gpu_a, int gpu_b);
mgpu_topo_path mgpu_topo_gpu_nic_path(const mgpu_topo *t, int gpu, int nic);
mgpu_topo_path mgpu_topo_nic_nic_path(const mgpu_topo *t, int nic_a, int nic_b);

/* Peer access as CUDA would report it: 1, 0, or -1 unknown. Discovery sets
 * it from cudaDeviceCanAccessPeer; models derive it from the path (NV and
 * PCIe paths within a socket: yes; SYS: no) unless a fault overrides it. */
int mgpu_topo_peer_access(const mgpu_topo *t, int gpu_a, int gpu_b);

/* NVLinks from a GPU (global index) to NVSwitches that are up: 0 with no
 * switch (PCIe boxes, direct NVLink bridges) or when the nvlink-down fault
 * took them. NVLink SHARP (NVLS) needs them: the switch reduces and
 * multicasts (docs/sim-collectives.md). */
int mgpu_topo_gpu_nvswitch_links(const mgpu_topo *t, int gpu);
void mgpu_topo_set_peer_access(mgpu_topo *t, int gpu_a, int gpu_b, int can);

/* Notes about the model: what a discovery source could not tell, faults
 * applied. NULL-terminated; owned by the model. */
const char *const *mgpu_topo_notes(const mgpu_topo *t);
void mgpu_topo_add_note(mgpu_topo *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Apply sim fault presets ("nvlink-down", "p2p-disabled", "no-gdr",
 * "straggler", "crash", "nic-down", "nic-slow", "ib-speed",
 * "pcie-downgrade", "net-socket"; comma-separated) to a model. Unknown names fail
 * with the list of known ones. Faults that concern ranks (straggler,
 * crash) are recorded for the runtime; link faults change the view. */
mgpu_result mgpu_topo_apply_faults(mgpu_topo *t, const char *faults);
/* Check a fault list against a machine and a run before anything launches:
 * the names, a GPU argument that names a GPU of `t` with NVLinks to take
 * down, and a rank argument (straggler, crash) below `nranks` (<= 0: ranks
 * not checked). MGPU_ERR_INVALID with the item named; `t` is not changed. */
mgpu_result mgpu_topo_check_faults(const mgpu_topo *t, const char *faults, int nranks);
/* The faults of a list that change the machine (links, peer access, GDR),
 * without those of the run's ranks (straggler, crash): what a one-process
 * helper job that is no rank of the run should see. Writes "" when none. */
void mgpu_topo_faults_of_machine(const char *faults, char *out, size_t len);
int mgpu_topo_has_fault(const mgpu_topo *t, const char *fault);
/* The --fault list's help: one line per fault, "  NAME[:ARG]  what it does". */
const char *mgpu_topo_fault_help(void);
/* The NIC a GPU's network traffic goes through (global index): its nearest
 * NIC that is up, -1 when its host has none up (NCCL then uses sockets). */
int mgpu_topo_gpu_nic(const mgpu_topo *t, int gpu);
/* The share of its healthy network rate a GPU gets under the NIC faults and
 * its PCIe link (nic-down: the NIC it falls back to is shared; nic-slow,
 * ib-speed, pcie-downgrade): 1 on a healthy machine. */
double mgpu_topo_gpu_net_factor(const mgpu_topo *t, int gpu);
/* The argument a fault was applied with (nvlink-down's GPU, straggler's and
 * crash's rank; 0 when the fault was named without one), -1 when the fault
 * is not applied. With several nvlink-down faults, the first one's GPU. */
int mgpu_topo_fault_arg(const mgpu_topo *t, const char *fault);

/* The straggler fault's slowdown, as the sim applies it: in the process
 * running the straggler rank (the launchers' MGPU_RANK), every device
 * operation and this rank's part of every collective and send/receive take
 * MGPU_STRAGGLER_FACTOR times as long as the model says; everywhere else
 * (and with no straggler fault) the factor is 1. */
#define MGPU_STRAGGLER_FACTOR 3.0
double mgpu_topo_straggler_factor(const mgpu_topo *t);

/*--- Discovery on a real machine --------------------------------------*/

/* What the device API told about this host's GPUs: the facts discovery
 * starts from. The device layer gathers them (mgpu_topo_discover in
 * mgpu/dev.h), so the model never reaches up into a backend. */
typedef struct mgpu_host_gpu_facts {
    char busid[20];        /* as the device API says it ("0000:19:00.0") */
    char name[96];
    int sm;                /* 90; 0 unknown */
    uint64_t mem_bytes;
    int numa_node;         /* -1 unknown */
} mgpu_host_gpu_facts;

typedef struct mgpu_host_facts {
    const char *backend_name;          /* for the note when there is no GPU */
    int ngpus;
    const mgpu_host_gpu_facts *gpus;   /* by device ordinal */
    /* Peer access per ordered pair [a * ngpus + b]: 1, 0, or -1 unknown,
     * and for an unknown one why (NULL otherwise). */
    const signed char *peer;
    const char *const *peer_why;
} mgpu_host_facts;

/* Discover this host from the device facts: NVML (dlopen'd) for NVLink and
 * affinity, sysfs for NUMA, PCIe path and NICs. Each source is optional;
 * what a missing source could not tell is added as a note, never invented.
 * `sysfs_root` is "/" normally (tests point it at a fake tree). */
mgpu_result mgpu_topo_discover_host(const mgpu_host_facts *facts, const char *sysfs_root, mgpu_topo **out);

/* Machine model facts by PCI device id / GPU name (HBM bandwidth, memory,
 * NVLink generation): table in topo_gpu_models.c. */
typedef struct mgpu_gpu_model {
    unsigned pci_device;   /* 0x2330 */
    const char *name;      /* "NVIDIA H100 80GB HBM3" */
    int sm;
    int sm_count;          /* multiprocessors */
    uint64_t mem_bytes;
    double hbm_gbs;        /* spec peak */
    double nvlink_gbs;     /* per link per direction */
    int nvlinks;
    int pcie_gen, pcie_width; /* the GPU's own PCIe maximum: 5 and 16 for an H100 SXM */
    double bf16_tflops;    /* dense tensor-core peak (the sim's compute-time model) */
    double f32_tflops;     /* FP32 without TF32: what an f32 GEMM gets by default */
} mgpu_gpu_model;
const mgpu_gpu_model *mgpu_gpu_model_by_pci(unsigned pci_device);
const mgpu_gpu_model *mgpu_gpu_model_by_name(const char *name);

#ifdef __cplusplus
}
#endif
#endif
