/* topo_presets.c - the sim machines: trees in NCCL's XML shape for a DGX
 * H100/H200, a 4-GPU PCIe server, two DGX H100 nodes, and one GPU. The
 * layouts follow the real machines (docs/topology-model.md cites them). */
#include "topo/topo_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const preset_names[] = {"dgx-h100", "dgx-h200", "pcie-4gpu", "2x-dgx-h100", "single-gpu", NULL};

const char *const *mgpu_topo_preset_names(void) { return preset_names; }

/*--- Builders: each sets attributes in the order NCCL writes them -------*/

typedef struct cpu_spec {
    int numaid;
    const char *cpulist;
    int ncpus;           /* bits in the affinity mask */
    const char *vendor;
    int familyid, modelid;
} cpu_spec;

static mgpu_result add_cpu(mgpu_xml_node *sys, const char *host_hash, const cpu_spec *s, mgpu_xml_node **out)
{
    char mask[MGPU_XML_VALUE_LEN];
    MGPU_CHECK(topo_cpulist_to_mask(s->cpulist, s->ncpus, mask, sizeof mask));
    mgpu_xml_node *c = mgpu_xml_add_child(sys, "cpu");
    if (!c) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory building a preset");
    MGPU_CHECK(mgpu_xml_set(c, "host_hash", host_hash));
    MGPU_CHECK(mgpu_xml_setf(c, "numaid", "%d", s->numaid));
    MGPU_CHECK(mgpu_xml_set(c, "affinity", mask));
    MGPU_CHECK(mgpu_xml_set(c, "arch", "x86_64"));
    MGPU_CHECK(mgpu_xml_set(c, "vendor", s->vendor));
    MGPU_CHECK(mgpu_xml_setf(c, "familyid", "%d", s->familyid));
    MGPU_CHECK(mgpu_xml_setf(c, "modelid", "%d", s->modelid));
    *out = c;
    return MGPU_OK;
}

typedef struct pci_spec {
    const char *cls, *vendor, *device, *sub_vendor, *sub_device, *speed;
    int width;
} pci_spec;

static const pci_spec pex_switch = {"0x060400", "0x1000", "0xc030", "0x1000", "0x100b", "32.0 GT/s PCIe", 16};
static const pci_spec gen4_switch = {"0x060400", "0x1000", "0xc010", "0x1000", "0xa064", "16.0 GT/s PCIe", 16};
static const pci_spec host_bridge = {"0x060000", "0x1022", "0x14a4", "0x1022", "0x14a4", "16.0 GT/s PCIe", 16};
static const pci_spec h100_sxm = {"0x030200", "0x10de", "0x2330", "0x10de", "0x16c1", "32.0 GT/s PCIe", 16};
static const pci_spec h200_sxm = {"0x030200", "0x10de", "0x2335", "0x10de", "0x18be", "32.0 GT/s PCIe", 16};
static const pci_spec h100_pcie = {"0x030200", "0x10de", "0x2331", "0x10de", "0x1626", "32.0 GT/s PCIe", 16};
static const pci_spec l40s = {"0x030200", "0x10de", "0x26b9", "0x10de", "0x1851", "16.0 GT/s PCIe", 16};
static const pci_spec cx7 = {"0x020700", "0x15b3", "0x1021", "0x15b3", "0x0041", "32.0 GT/s PCIe", 16};
static const pci_spec cx7_gen4 = {"0x020700", "0x15b3", "0x1021", "0x15b3", "0x0041", "16.0 GT/s PCIe", 16};

static mgpu_result add_pci(mgpu_xml_node *parent, const char *busid, const pci_spec *s, mgpu_xml_node **out)
{
    mgpu_xml_node *p = mgpu_xml_add_child(parent, "pci");
    if (!p) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory building a preset");
    MGPU_CHECK(mgpu_xml_set(p, "busid", busid));
    MGPU_CHECK(mgpu_xml_set(p, "class", s->cls));
    MGPU_CHECK(mgpu_xml_set(p, "vendor", s->vendor));
    MGPU_CHECK(mgpu_xml_set(p, "device", s->device));
    MGPU_CHECK(mgpu_xml_set(p, "subsystem_vendor", s->sub_vendor));
    MGPU_CHECK(mgpu_xml_set(p, "subsystem_device", s->sub_device));
    MGPU_CHECK(mgpu_xml_set(p, "link_speed", s->speed));
    MGPU_CHECK(mgpu_xml_setf(p, "link_width", "%d", s->width));
    *out = p;
    return MGPU_OK;
}

static mgpu_result add_gpu(mgpu_xml_node *pci, int dev, int rank, int sm, mgpu_xml_node **out)
{
    mgpu_xml_node *g = mgpu_xml_add_child(pci, "gpu");
    if (!g) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory building a preset");
    MGPU_CHECK(mgpu_xml_setf(g, "dev", "%d", dev));
    MGPU_CHECK(mgpu_xml_setf(g, "sm", "%d", sm));
    MGPU_CHECK(mgpu_xml_setf(g, "rank", "%d", rank));
    MGPU_CHECK(mgpu_xml_set(g, "gdr", "1"));
    *out = g;
    return MGPU_OK;
}

static mgpu_result add_nvlink(mgpu_xml_node *gpu, const char *target, int count, const char *tclass)
{
    mgpu_xml_node *l = mgpu_xml_add_child(gpu, "nvlink");
    if (!l) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory building a preset");
    MGPU_CHECK(mgpu_xml_set(l, "target", target));
    MGPU_CHECK(mgpu_xml_setf(l, "count", "%d", count));
    MGPU_CHECK(mgpu_xml_set(l, "tclass", tclass));
    return MGPU_OK;
}

static mgpu_result add_nic(mgpu_xml_node *pci, const char *name, int dev, int speed_mbps, unsigned long long guid)
{
    mgpu_xml_node *nic = mgpu_xml_add_child(pci, "nic");
    mgpu_xml_node *net = nic ? mgpu_xml_add_child(nic, "net") : NULL;
    if (!net) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory building a preset");
    MGPU_CHECK(mgpu_xml_set(net, "name", name));
    MGPU_CHECK(mgpu_xml_setf(net, "dev", "%d", dev));
    MGPU_CHECK(mgpu_xml_setf(net, "speed", "%d", speed_mbps));
    MGPU_CHECK(mgpu_xml_set(net, "port", "1"));
    MGPU_CHECK(mgpu_xml_set(net, "latency", "0.000000"));
    MGPU_CHECK(mgpu_xml_setf(net, "guid", "0x%llx", guid));
    MGPU_CHECK(mgpu_xml_set(net, "maxconn", "131072"));
    MGPU_CHECK(mgpu_xml_set(net, "gdr", "1"));
    return MGPU_OK;
}

static mgpu_xml_node *new_system(void)
{
    mgpu_xml_node *s = mgpu_xml_new("system");
    if (s && mgpu_xml_set(s, "version", "1") != MGPU_OK) {
        mgpu_xml_free(s);
        return NULL;
    }
    return s;
}

/*--- DGX H100 / H200 --------------------------------------------------*/

/* DGX H100: two Xeon Platinum 8480C (56 cores, SMT: 224 CPUs), eight GPUs
 * each behind a PCIe Gen5 switch shared with one ConnectX-7 (NDR 400G),
 * four per socket; four NVSwitches, each GPU with 5+5+4+4 = 18 NVLink4
 * links to them (the DGX H100 user guide; NCCL dumps of such hosts). */
static mgpu_result build_dgx(const pci_spec *gpu_pci, int host, mgpu_xml_node **out)
{
    static const cpu_spec sockets[2] = {
        {0, "0-55,112-167", 224, "GenuineIntel", 6, 143},
        {1, "56-111,168-223", 224, "GenuineIntel", 6, 143},
    };
    static const char *const sw[8] = {"16", "27", "38", "5a", "97", "a8", "b7", "d8"};
    static const char *const gpu[8] = {"18", "2a", "3a", "5d", "9a", "ab", "ba", "db"};
    static const char *const nic[8] = {"19", "29", "3b", "5c", "9c", "aa", "bc", "da"};
    static const char *const nvsw[4] = {"0000:05:00.0", "0000:06:00.0", "0000:07:00.0", "0000:08:00.0"};
    static const int nvsw_links[4] = {5, 5, 4, 4};
    mgpu_result r = MGPU_OK;
    mgpu_xml_node *sys = new_system();
    if (!sys) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory building a preset");
    char hash[32], busid[20], name[16];
    snprintf(hash, sizeof hash, "0x%016llx", 0x5d6a1c0e3b9f2a40ull + (unsigned long long)host);
    for (int s = 0; s < 2; s++) {
        mgpu_xml_node *cpu;
        MGPU_CHECKGOTO(add_cpu(sys, hash, &sockets[s], &cpu), r, fail);
        for (int k = 0; k < 4; k++) {
            int i = s * 4 + k;
            mgpu_xml_node *swn, *gp, *np, *g;
            snprintf(busid, sizeof busid, "0000:%s:00.0", sw[i]);
            MGPU_CHECKGOTO(add_pci(cpu, busid, &pex_switch, &swn), r, fail);
            snprintf(busid, sizeof busid, "0000:%s:00.0", gpu[i]);
            MGPU_CHECKGOTO(add_pci(swn, busid, gpu_pci, &gp), r, fail);
            MGPU_CHECKGOTO(add_gpu(gp, i, host * 8 + i, 90, &g), r, fail);
            for (int l = 0; l < 4; l++) MGPU_CHECKGOTO(add_nvlink(g, nvsw[l], nvsw_links[l], "0x068000"), r, fail);
            snprintf(busid, sizeof busid, "0000:%s:00.0", nic[i]);
            MGPU_CHECKGOTO(add_pci(swn, busid, &cx7, &np), r, fail);
            snprintf(name, sizeof name, "mlx5_%d", i);
            MGPU_CHECKGOTO(add_nic(np, name, i, 400000, 0xb83fd20300a1c000ull + (unsigned long long)(host * 16 + i)),
                           r, fail);
        }
    }
    *out = sys;
    return MGPU_OK;
fail:
    mgpu_xml_free(sys);
    return r;
}

/*--- A 4-GPU PCIe server ----------------------------------------------*/

/* Two AMD EPYC 9354 (32 cores, SMT: 128 CPUs), four L40S without NVLink.
 * Socket 0: a Gen4 switch with two child switches, GPU0 and GPU1 behind one
 * (PIX), GPU2 behind the other (PXB to them). Socket 1: GPU3 and a
 * ConnectX-7 below one host bridge (PHB); GPU3 is SYS to the rest. */
static mgpu_result build_pcie4(mgpu_xml_node **out)
{
    static const cpu_spec sockets[2] = {
        {0, "0-31,64-95", 128, "AuthenticAMD", 25, 17},
        {1, "32-63,96-127", 128, "AuthenticAMD", 25, 17},
    };
    mgpu_result r = MGPU_OK;
    mgpu_xml_node *sys = new_system(), *cpu, *top, *a, *b, *p, *g, *hb;
    if (!sys) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory building a preset");
    const char *hash = "0x2f81c4a9d3e05b17";
    MGPU_CHECKGOTO(add_cpu(sys, hash, &sockets[0], &cpu), r, fail);
    MGPU_CHECKGOTO(add_pci(cpu, "0000:01:00.0", &gen4_switch, &top), r, fail);
    MGPU_CHECKGOTO(add_pci(top, "0000:02:00.0", &gen4_switch, &a), r, fail);
    MGPU_CHECKGOTO(add_pci(a, "0000:03:00.0", &l40s, &p), r, fail);
    MGPU_CHECKGOTO(add_gpu(p, 0, 0, 89, &g), r, fail);
    MGPU_CHECKGOTO(add_pci(a, "0000:04:00.0", &l40s, &p), r, fail);
    MGPU_CHECKGOTO(add_gpu(p, 1, 1, 89, &g), r, fail);
    MGPU_CHECKGOTO(add_pci(top, "0000:05:00.0", &gen4_switch, &b), r, fail);
    MGPU_CHECKGOTO(add_pci(b, "0000:06:00.0", &l40s, &p), r, fail);
    MGPU_CHECKGOTO(add_gpu(p, 2, 2, 89, &g), r, fail);
    MGPU_CHECKGOTO(add_cpu(sys, hash, &sockets[1], &cpu), r, fail);
    MGPU_CHECKGOTO(add_pci(cpu, "0000:80:00.0", &host_bridge, &hb), r, fail);
    MGPU_CHECKGOTO(add_pci(hb, "0000:81:00.0", &l40s, &p), r, fail);
    MGPU_CHECKGOTO(add_gpu(p, 3, 3, 89, &g), r, fail);
    MGPU_CHECKGOTO(add_pci(hb, "0000:82:00.0", &cx7_gen4, &p), r, fail);
    MGPU_CHECKGOTO(add_nic(p, "mlx5_0", 0, 200000, 0x9c63c00300e4b100ull), r, fail);
    *out = sys;
    return MGPU_OK;
fail:
    mgpu_xml_free(sys);
    return r;
}

/*--- One GPU ----------------------------------------------------------*/

/* One Xeon (32 cores, SMT), one H100 PCIe and one ConnectX-7 behind the
 * same Gen5 switch. */
static mgpu_result build_single(mgpu_xml_node **out)
{
    static const cpu_spec socket0 = {0, "0-63", 64, "GenuineIntel", 6, 143};
    mgpu_result r = MGPU_OK;
    mgpu_xml_node *sys = new_system(), *cpu, *swn, *p, *g;
    if (!sys) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory building a preset");
    MGPU_CHECKGOTO(add_cpu(sys, "0x71b04e9c2d3a8f65", &socket0, &cpu), r, fail);
    MGPU_CHECKGOTO(add_pci(cpu, "0000:15:00.0", &pex_switch, &swn), r, fail);
    MGPU_CHECKGOTO(add_pci(swn, "0000:17:00.0", &h100_pcie, &p), r, fail);
    MGPU_CHECKGOTO(add_gpu(p, 0, 0, 90, &g), r, fail);
    MGPU_CHECKGOTO(add_pci(swn, "0000:18:00.0", &cx7, &p), r, fail);
    MGPU_CHECKGOTO(add_nic(p, "mlx5_0", 0, 400000, 0x5a3bd00300f2e100ull), r, fail);
    *out = sys;
    return MGPU_OK;
fail:
    mgpu_xml_free(sys);
    return r;
}

/*--- Entry point ------------------------------------------------------*/

mgpu_result mgpu_topo_preset(const char *name, mgpu_topo **out)
{
    if (!out) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_topo_preset: no output pointer");
    *out = NULL;
    mgpu_xml_node *hosts[2] = {NULL, NULL};
    int n = 1;
    mgpu_result r;
    if (name && strcmp(name, "dgx-h100") == 0) r = build_dgx(&h100_sxm, 0, &hosts[0]);
    else if (name && strcmp(name, "dgx-h200") == 0) r = build_dgx(&h200_sxm, 0, &hosts[0]);
    else if (name && strcmp(name, "pcie-4gpu") == 0) r = build_pcie4(&hosts[0]);
    else if (name && strcmp(name, "single-gpu") == 0) r = build_single(&hosts[0]);
    else if (name && strcmp(name, "2x-dgx-h100") == 0) {
        n = 2;
        r = build_dgx(&h100_sxm, 0, &hosts[0]);
        if (r == MGPU_OK) r = build_dgx(&h100_sxm, 1, &hosts[1]);
    } else {
        char known[160] = "";
        for (int i = 0; preset_names[i]; i++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", preset_names[i]);
        return mgpu_fail(MGPU_ERR_INVALID, "--machine: '%.60s' is not a preset; known presets: %s (or give an NCCL "
                         "topology XML file, a path with '/' or ending in .xml)", name ? name : "", known);
    }
    if (r != MGPU_OK) {
        mgpu_xml_free(hosts[0]);
        mgpu_xml_free(hosts[1]);
        MGPU_CHECK(r);
    }
    MGPU_CHECK(mgpu_topo_from_trees(hosts, n, name, 1, out));
    return MGPU_OK;
}
