/* topo_discover.c - discover this host: the device API's facts (gathered
 * by the device layer, dev/dev_discover.c), NVML (dlopen'd) for NVLink bonds
 * and affinity, sysfs for the rest; each source optional, and what a missing
 * one could not tell becomes a note. */
#include "mgpu/topo.h"
#include "mgpu/nvml_dl.h"
#include "topo/topo_sysfs.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static void lower(char *s)
{
    for (; *s; s++) *s = (char)tolower((unsigned char)*s);
}

/* NVLink bonds of one GPU: active links grouped by the far end's PCI id. */
static void nvml_links(nvml_device h, mgpu_disc_gpu *g, mgpu_disc_notes *notes)
{
    int any_answer = 0;
    for (unsigned l = 0; l < NVML_DL_MAX_NVLINKS; l++) {
        int active = 0;
        char remote[20];
        if (nvml_dl_nvlink(h, l, &active, remote, sizeof remote) != MGPU_OK) {
            mgpu_disc_note(notes, "NVML cannot report NVLink state (%s); NVLink bonds are unknown",
                           mgpu_error_message());
            mgpu_error_clear();
            return;
        }
        any_answer = 1;
        if (!active) continue;
        if (!remote[0]) {
            mgpu_disc_note(notes, "GPU%d NVLink %u is up but NVML does not name its far end; link left out",
                           g->dev, l);
            continue;
        }
        int k = 0;
        while (k < g->nlinks && strcmp(g->links[k].target, remote) != 0) k++;
        if (k == g->nlinks) {
            if (g->nlinks == MGPU_DISC_MAX_LINKS) continue;
            snprintf(g->links[k].target, sizeof g->links[k].target, "%s", remote);
            g->links[k].count = 0;
            g->nlinks++;
        }
        g->links[k].count++;
    }
    g->nvlinks_known = any_answer;
}

/* NVML facts for one GPU; failures become notes. */
static void nvml_gpu(mgpu_disc_gpu *g, nvml_device *handle, mgpu_disc_notes *notes)
{
    *handle = NULL;
    if (nvml_dl_device_by_busid(g->busid, handle) != MGPU_OK) {
        mgpu_disc_note(notes, "NVML does not know GPU%d (%s): %s", g->dev, g->busid, mgpu_error_message());
        mgpu_error_clear();
        *handle = NULL;
        return;
    }
    nvml_links(*handle, g, notes);
    unsigned long mask[16];
    if (nvml_dl_cpu_affinity(*handle, 16, mask) == MGPU_OK)
        mgpu_sysfs_mask_string(mask, 16, g->affinity_hint, sizeof g->affinity_hint);
    else
        mgpu_error_clear();
    int numa = -1;
    if (g->numa_hint < 0 && nvml_dl_numa_node(*handle, &numa) == MGPU_OK) g->numa_hint = numa;
    mgpu_error_clear();
}

static mgpu_path_type level_path(nvml_topo_level l)
{
    switch (l) {
    case NVML_TOPO_INTERNAL:
    case NVML_TOPO_SINGLE: return MGPU_PATH_PIX;
    case NVML_TOPO_MULTIPLE: return MGPU_PATH_PXB;
    case NVML_TOPO_HOSTBRIDGE: return MGPU_PATH_PHB;
    case NVML_TOPO_NODE: return MGPU_PATH_NODE;
    default: return MGPU_PATH_SYS;
    }
}

/* NVML's common-ancestor level is what nvidia-smi prints; where the PCIe
 * path from sysfs gives another answer, say both (a VM's virtual PCIe tree
 * often hides switches). */
static void cross_check(mgpu_topo *t, nvml_device *handles, const mgpu_disc_gpu *gpus, int n)
{
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            if (!handles[a] || !handles[b]) continue;
            int ia = mgpu_topo_gpu_index(t, 0, gpus[a].dev), ib = mgpu_topo_gpu_index(t, 0, gpus[b].dev);
            if (ia < 0 || ib < 0) continue;
            mgpu_topo_path p = mgpu_topo_gpu_path(t, ia, ib);
            if (p.type == MGPU_PATH_NV) continue; /* nvidia-smi shows NV# first as well */
            nvml_topo_level l;
            if (nvml_dl_common_ancestor(handles[a], handles[b], &l) != MGPU_OK) {
                mgpu_error_clear();
                continue;
            }
            mgpu_path_type want = level_path(l);
            if (want != p.type)
                mgpu_topo_add_note(t, "GPU%d-GPU%d: NVML's common ancestor says %s, the sysfs PCIe path gives %s",
                                   gpus[a].dev, gpus[b].dev, mgpu_path_type_name(want), mgpu_path_type_name(p.type));
        }
}

mgpu_result mgpu_topo_discover_host(const mgpu_host_facts *facts, const char *sysfs_root, mgpu_topo **out)
{
    if (!facts || !out || facts->ngpus < 0 || (facts->ngpus > 0 && (!facts->gpus || !facts->peer)))
        return mgpu_fail(MGPU_ERR_INVALID, "mgpu_topo_discover_host: no facts or output pointer");
    *out = NULL;
    int n = facts->ngpus;
    mgpu_disc_notes *notes = calloc(1, sizeof *notes);
    mgpu_disc_gpu *gpus = calloc(n > 0 ? (size_t)n : 1, sizeof *gpus);
    nvml_device *handles = calloc(n > 0 ? (size_t)n : 1, sizeof *handles);
    mgpu_result res = MGPU_OK;
    mgpu_xml_node *system = NULL;
    mgpu_topo *t = NULL;
    int nvml_open = 0;
    if (!notes || !gpus || !handles) {
        res = mgpu_fail(MGPU_ERR_NOMEM, "out of host memory discovering the topology");
        goto done;
    }
    if (n == 0) mgpu_disc_note(notes, "the %s backend sees no GPU", facts->backend_name ? facts->backend_name : "device");

    for (int d = 0; d < n; d++) {
        const mgpu_host_gpu_facts *f = &facts->gpus[d];
        mgpu_disc_gpu *g = &gpus[d];
        g->dev = d;
        snprintf(g->busid, sizeof g->busid, "%.19s", f->busid);
        lower(g->busid);
        snprintf(g->name, sizeof g->name, "%s", f->name);
        g->sm = f->sm;
        g->mem_bytes = f->mem_bytes;
        g->numa_hint = f->numa_node;
    }

    if (nvml_dl_open() == MGPU_OK) {
        nvml_open = 1;
        for (int d = 0; d < n; d++) nvml_gpu(&gpus[d], &handles[d], notes);
    } else {
        mgpu_disc_note(notes, "%s; NVLink bonds are not shown (GPU pairs fall back to their PCIe path)",
                       mgpu_error_message());
        mgpu_error_clear();
    }

    MGPU_CHECKGOTO(mgpu_sysfs_build_host(sysfs_root ? sysfs_root : "/", gpus, n, notes, &system), res, done);
    res = mgpu_topo_from_trees(&system, 1, "this machine", 0, &t);
    system = NULL; /* the model owns the tree now, and frees it on failure */
    if (res != MGPU_OK) {
        mgpu_error_breadcrumb(__FILE__, __LINE__, __func__);
        goto done;
    }
    for (int i = 0; i < notes->n; i++) mgpu_topo_add_note(t, "%s", notes->text[i]);
    /* NCCL's XML has no GPU name or memory size: the model takes them from
     * its PCI-id table, so a GPU missing there gets what CUDA said. The view
     * is the model's own storage, written here only by its builder's caller. */
    for (int d = 0; d < n; d++) {
        int gi = mgpu_topo_gpu_index(t, 0, d);
        if (gi < 0) continue;
        mgpu_topo_gpu *view = (mgpu_topo_gpu *)mgpu_topo_gpu_at(t, gi);
        if (!view->name[0]) snprintf(view->name, sizeof view->name, "%.63s", gpus[d].name);
        if (!view->mem_bytes) view->mem_bytes = gpus[d].mem_bytes;
    }

    /* Peer access as CUDA reports it, for every ordered pair. */
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            if (a == b) continue;
            int ia = mgpu_topo_gpu_index(t, 0, a), ib = mgpu_topo_gpu_index(t, 0, b);
            if (ia < 0 || ib < 0) continue;
            const char *why = facts->peer_why ? facts->peer_why[a * n + b] : NULL;
            if (why) mgpu_topo_add_note(t, "peer access GPU%d->GPU%d unknown: %s", a, b, why);
            mgpu_topo_set_peer_access(t, ia, ib, facts->peer[a * n + b]);
        }
    if (nvml_open) cross_check(t, handles, gpus, n);
    *out = t;
    t = NULL;
done:
    if (nvml_open) nvml_dl_close();
    if (system) mgpu_xml_free(system);
    if (t) mgpu_topo_free(t);
    free(handles);
    free(gpus);
    free(notes);
    return res;
}
