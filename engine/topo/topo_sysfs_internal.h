/* topo_sysfs_internal.h - what topo_sysfs.c (GPUs, host bridges, the host
 * tree) and topo_sysfs_nic.c (NICs) share, both from topo_sysfs_pci.c below
 * them: file and tree helpers, CPUs and the PCI chain builder. Private to
 * engine/topo. */
#ifndef MGPU_TOPO_SYSFS_INTERNAL_H
#define MGPU_TOPO_SYSFS_INTERNAL_H
#include <stddef.h>
#include "topo/topo_sysfs.h"

/* The topmost <pci> of each device chain and the root complex it hangs
 * from ("pci0000:15"), so devices sharing one can be grouped under a host
 * bridge afterwards (what makes nvidia-smi say PHB rather than NODE). */
#define MAX_TOPS 512
typedef struct top_list {
    int n;
    struct {
        mgpu_xml_node *node;
        char rc[32];
    } e[MAX_TOPS];
} top_list;

void sysfs_pathf(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int sysfs_read_line(const char *dir, const char *name, char *buf, size_t len);
int sysfs_exists(const char *root, const char *rel);
int sysfs_is_bdf(const char *s);
int sysfs_split_path(char *p, char **comps, int max);
mgpu_result sysfs_add_child(mgpu_xml_node *parent, const char *name, mgpu_xml_node **out);
mgpu_xml_node *sysfs_child_named(mgpu_xml_node *n, const char *name);
mgpu_result sysfs_attach_pci(const char *root, mgpu_xml_node *system, top_list *tops, const char *busid,
                              const char *default_class, int numa_hint, const char *affinity_hint,
                              const char *what, mgpu_disc_notes *notes, mgpu_xml_node **out);

/* The <cpu> (NUMA node) a device directory hangs from, created on first use. */
mgpu_result sysfs_get_cpu(const char *root, mgpu_xml_node *system, int numa, const char *devdir,
                           const char *affinity_hint, mgpu_disc_notes *notes, mgpu_xml_node **out);

/* NICs (topo_sysfs_nic.c): InfiniBand HCAs and Ethernet interfaces. */
mgpu_result sysfs_add_ib_nics(const char *root, mgpu_xml_node *system, top_list *tops, int gdr, int *count,
                               mgpu_disc_notes *notes);
mgpu_result sysfs_add_eth_nics(const char *root, mgpu_xml_node *system, top_list *tops, int *count, mgpu_disc_notes *notes);

#endif
