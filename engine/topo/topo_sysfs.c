/* topo_sysfs.c - one host's topology tree from sysfs (GPUs under their PCIe
 * chains, host bridges, NICs), shaped as NCCL's ncclTopoGetXmlFromSys builds
 * it; the shared readers are in topo_sysfs_pci.c. */
#include "topo/topo_sysfs.h"
#include "topo/topo_sysfs_internal.h"
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* NCCL keeps PCI children ordered by bus id (its issue #820), so the tree
 * does not depend on the order devices were found in. */
static void sort_by_busid(mgpu_xml_node *n)
{
    for (int i = 1; i < n->nchildren; i++) {
        mgpu_xml_node *c = n->children[i];
        const char *b = mgpu_xml_get(c, "busid");
        int j = i - 1;
        while (j >= 0 && b) {
            const char *a = mgpu_xml_get(n->children[j], "busid");
            if (!a || strcmp(a, b) <= 0) break;
            n->children[j + 1] = n->children[j];
            j--;
        }
        n->children[j + 1] = c;
    }
    for (int i = 0; i < n->nchildren; i++) sort_by_busid(n->children[i]);
}


/*--- GPUs ----------------------------------------------------------------------*/

static mgpu_result add_gpu(const char *root, mgpu_xml_node *system, top_list *tops, const mgpu_disc_gpu *g, int gdr,
                           mgpu_disc_notes *notes)
{
    mgpu_xml_node *pci, *gpu;
    MGPU_CHECK(sysfs_attach_pci(root, system, tops, g->busid, "0x03", g->numa_hint, g->affinity_hint, "GPU", notes, &pci));
    MGPU_CHECK(sysfs_add_child(pci, "gpu", &gpu));
    MGPU_CHECK(mgpu_xml_setf(gpu, "dev", "%d", g->dev));
    if (g->sm > 0) MGPU_CHECK(mgpu_xml_setf(gpu, "sm", "%d", g->sm));
    MGPU_CHECK(mgpu_xml_setf(gpu, "rank", "%d", g->dev));
    MGPU_CHECK(mgpu_xml_setf(gpu, "gdr", "%d", gdr));
    for (int l = 0; l < g->nlinks; l++) {
        mgpu_xml_node *nvl;
        MGPU_CHECK(sysfs_add_child(gpu, "nvlink", &nvl));
        MGPU_CHECK(mgpu_xml_set(nvl, "target", g->links[l].target));
        MGPU_CHECK(mgpu_xml_setf(nvl, "count", "%d", g->links[l].count));
        char dir[PATH_MAX], cls[64];
        sysfs_pathf(dir, sizeof dir, "%s/sys/bus/pci/devices/%s", root, g->links[l].target);
        /* A far end the host cannot see is an NVSwitch (NCCL assumes the same). */
        MGPU_CHECK(mgpu_xml_set(nvl, "tclass", sysfs_read_line(dir, "class", cls, sizeof cls) ? cls : "0x068000"));
    }
    return MGPU_OK;
}

/*--- Host bridges ---------------------------------------------------------------*/

/* Move `node` from its parent to the end of `to`'s children. The tree API
 * only appends new nodes, so a placeholder is appended and swapped. */
static mgpu_result move_node(mgpu_xml_node *node, mgpu_xml_node *to)
{
    mgpu_xml_node *from = node->parent, *slot;
    MGPU_CHECK(sysfs_add_child(to, "pci", &slot));
    to->children[to->nchildren - 1] = node;
    mgpu_xml_free(slot);
    int k = 0;
    while (k < from->nchildren && from->children[k] != node) k++;
    if (k < from->nchildren) {
        memmove(&from->children[k], &from->children[k + 1], (size_t)(from->nchildren - k - 1) * sizeof node);
        from->nchildren--;
    }
    node->parent = to;
    return MGPU_OK;
}

/* Devices of one CPU behind the same root complex are PHB to each other,
 * behind different ones NODE. NCCL's tree drops that difference; a <pci>
 * of class 0x060000 (mgpulab's extension, ignored by NCCL's reader as a
 * plain bridge) keeps it, added only where two chains share a root. */
static mgpu_result group_host_bridges(const char *root, top_list *tops)
{
    for (int i = 0; i < tops->n; i++) {
        mgpu_xml_node *cpu = tops->e[i].node->parent;
        if (!cpu || strcmp(cpu->name, "cpu") != 0) continue; /* already grouped */
        int same = 0;
        for (int j = i + 1; j < tops->n; j++)
            same += strcmp(tops->e[j].rc, tops->e[i].rc) == 0 && tops->e[j].node->parent == cpu;
        if (!same) continue;
        unsigned dom = 0, bus = 0;
        if (sscanf(tops->e[i].rc, "pci%x:%x", &dom, &bus) != 2) continue;
        mgpu_xml_node *hb;
        MGPU_CHECK(sysfs_add_child(cpu, "pci", &hb));
        MGPU_CHECK(mgpu_xml_setf(hb, "busid", "%04x:%02x:00.0", dom, bus));
        MGPU_CHECK(mgpu_xml_set(hb, "class", "0x060000"));
        char dir[PATH_MAX], v[64];
        sysfs_pathf(dir, sizeof dir, "%s/sys/bus/pci/devices/%04x:%02x:00.0", root, dom, bus);
        if (sysfs_read_line(dir, "class", v, sizeof v) && strncmp(v, "0x0600", 6) == 0) {
            if (sysfs_read_line(dir, "vendor", v, sizeof v)) MGPU_CHECK(mgpu_xml_set(hb, "vendor", v));
            if (sysfs_read_line(dir, "device", v, sizeof v)) MGPU_CHECK(mgpu_xml_set(hb, "device", v));
        }
        for (int j = i; j < tops->n; j++)
            if (strcmp(tops->e[j].rc, tops->e[i].rc) == 0 && tops->e[j].node->parent == cpu)
                MGPU_CHECK(move_node(tops->e[j].node, hb));
    }
    return MGPU_OK;
}

/*--- The host ------------------------------------------------------------------*/

void mgpu_sysfs_mask_string(const unsigned long *words, int nwords, char *out, size_t len)
{
    size_t off = 0;
    out[0] = '\0';
    int top = nwords * 2 - 1; /* 32-bit groups, as the kernel prints cpumap */
    while (top > 0 && ((words[top / 2] >> (32 * (top % 2))) & 0xffffffffUL) == 0) top--;
    for (int g = top; g >= 0 && off + 10 < len; g--) {
        unsigned long v = (words[g / 2] >> (32 * (g % 2))) & 0xffffffffUL;
        off += (size_t)snprintf(out + off, len - off, "%08lx%s", v, g ? "," : "");
    }
}

mgpu_result mgpu_sysfs_build_host(const char *root, const mgpu_disc_gpu *gpus, int ngpus,
                                  mgpu_disc_notes *notes, mgpu_xml_node **system_out)
{
    *system_out = NULL;
    if (!root || !*root) root = "/";
    if (strlen(root) > PATH_MAX / 2)
        return mgpu_fail(MGPU_ERR_INVALID, "sysfs root '%.60s...' is longer than %d characters", root, PATH_MAX / 2);
    /* "/" would make "//sys/..."; harmless, but keep paths clean. */
    char r[PATH_MAX];
    sysfs_pathf(r, sizeof r, "%s", root);
    size_t rl = strlen(r);
    while (rl > 0 && r[rl - 1] == '/') r[--rl] = '\0';

    mgpu_xml_node *system = mgpu_xml_new("system");
    if (!system) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory building the topology tree");
    mgpu_result res;
    top_list *tops = NULL;
    MGPU_CHECKGOTO(mgpu_xml_set(system, "version", "1"), res, fail);

    char sysdir[PATH_MAX];
    sysfs_pathf(sysdir, sizeof sysdir, "%s/sys/bus/pci/devices", r);
    struct stat st;
    if (stat(sysdir, &st) != 0)
        mgpu_disc_note(notes, "%s is missing (a container without /sys?): PCIe paths, NUMA nodes and NICs are unknown",
                       sysdir);

    tops = calloc(1, sizeof *tops);
    if (!tops) {
        res = mgpu_fail(MGPU_ERR_NOMEM, "out of host memory building the topology tree");
        goto fail;
    }
    int gdr = sysfs_exists(r, "/sys/module/nvidia_peermem") || sysfs_exists(r, "/sys/module/nv_peer_mem");
    for (int i = 0; i < ngpus; i++) MGPU_CHECKGOTO(add_gpu(r, system, tops, &gpus[i], gdr, notes), res, fail);

    int nics = 0;
    MGPU_CHECKGOTO(sysfs_add_ib_nics(r, system, tops, gdr, &nics, notes), res, fail);
    if (nics == 0) MGPU_CHECKGOTO(sysfs_add_eth_nics(r, system, tops, &nics, notes), res, fail);
    MGPU_CHECKGOTO(group_host_bridges(r, tops), res, fail);
    free(tops);
    tops = NULL;
    if (nics > 0 && !gdr)
        mgpu_disc_note(notes, "GPUDirect RDMA: the nvidia_peermem module is not loaded, so NICs are marked gdr=0 "
                              "(NCCL may still use DMA-BUF on recent kernels and drivers)");
    sort_by_busid(system);
    *system_out = system;
    return MGPU_OK;
fail:
    free(tops);
    mgpu_xml_free(system);
    return res;
}
