/* topo_sysfs.h - build one host's NCCL-shaped topology tree from sysfs and
 * the per-GPU facts CUDA and NVML gave (private to engine/topo).
 *
 * Split from topo_discover.c so tests can run it over a fake sysfs tree with
 * made-up GPU facts, without a GPU or a backend. */
#ifndef MGPU_TOPO_SYSFS_H
#define MGPU_TOPO_SYSFS_H
#include <stdint.h>
#include "mgpu/topo.h"

#define MGPU_DISC_MAX_LINKS 18
#define MGPU_DISC_MAX_NOTES 48

typedef struct mgpu_disc_link {
    char target[20];       /* far end's PCI id, lower case "0000:1a:00.0" */
    int count;             /* NVLinks bonded to it */
} mgpu_disc_link;

/* What CUDA and NVML told about one GPU. */
typedef struct mgpu_disc_gpu {
    int dev;               /* CUDA ordinal */
    char busid[20];        /* lower case "0000:19:00.0" */
    char name[96];
    int sm;                /* 90; 0 unknown */
    uint64_t mem_bytes;
    int numa_hint;         /* CUDA/NVML NUMA node, -1 unknown (used when sysfs cannot tell) */
    char affinity_hint[160]; /* NVML CPU mask in sysfs cpumap form, "" unknown */
    int nvlinks_known;     /* NVML answered the NVLink queries for this GPU */
    int nlinks;
    mgpu_disc_link links[MGPU_DISC_MAX_LINKS];
} mgpu_disc_gpu;

/* Notes collected while building, added to the model afterwards. */
typedef struct mgpu_disc_notes {
    int n;
    char text[MGPU_DISC_MAX_NOTES][320];
} mgpu_disc_notes;

void mgpu_disc_note(mgpu_disc_notes *notes, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Build <system version="1"> for this host: per GPU the chain of PCIe
 * switches up to its CPU (as NCCL's ncclTopoGetXmlFromSys does), <gpu> with
 * its <nvlink> bonds, the CPUs with NUMA id, affinity and model, and the
 * NICs (InfiniBand/RoCE devices, else physical Ethernet ports). `root` is the
 * file-system prefix ("/" normally). What sysfs hides goes to `notes`. */
mgpu_result mgpu_sysfs_build_host(const char *root, const mgpu_disc_gpu *gpus, int ngpus,
                                  mgpu_disc_notes *notes, mgpu_xml_node **system_out);

/* Convert an array of 64-bit CPU mask words (word 0 = CPUs 0..63) to
 * sysfs's cpumap form ("ffffffff,00000000"), most significant group first. */
void mgpu_sysfs_mask_string(const unsigned long *words, int nwords, char *out, size_t len);

#endif
