/* validate_topo.c - the topology and the NVML facts against what this
 * machine should be: the expected machine (--expect) or, without one, the
 * topology this machine's own dump describes (its wiring as NCCL's XML
 * records it, and each GPU model's own maximum PCIe link). */
#include "validate.h"
#include "mgpu/facts.h"
#include <stdlib.h>
#include <string.h>

static const char *str_at(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }
static int int_at(json_t *o, const char *k, int dflt)
{
    json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? (int)json_integer_value(v) : dflt;
}

static const char *cell(json_t *doc, int r, int c)
{
    json_t *rows = json_object_get(json_object_get(doc, "matrix"), "rows");
    const char *s = json_string_value(json_array_get(json_array_get(rows, (size_t)r), (size_t)c));
    return s ? s : "?";
}

/* The path type of a matrix cell ("NV18" -> NV with 18 links). */
static mgpu_path_type cell_type(const char *s, int *nvlinks)
{
    *nvlinks = 0;
    if (strncmp(s, "NV", 2) == 0) {
        *nvlinks = atoi(s + 2);
        return MGPU_PATH_NV;
    }
    for (int t = MGPU_PATH_X; t <= MGPU_PATH_NET; t++)
        if (strcmp(s, mgpu_path_type_name((mgpu_path_type)t)) == 0) return (mgpu_path_type)t;
    return MGPU_PATH_NET;
}

static void path_text(mgpu_topo_path p, char *buf, size_t len)
{
    if (p.type == MGPU_PATH_NV) snprintf(buf, len, "NV%d", p.nvlinks);
    else snprintf(buf, len, "%s", mgpu_path_type_name(p.type));
}

/* A GPU's PCIe link as a topology's XML records it. */
static void model_link(const mgpu_topo_gpu *g, int *gen, int *width)
{
    const mgpu_xml_node *pci = g && g->node ? g->node->parent : NULL;
    const char *w = pci ? mgpu_xml_get(pci, "link_width") : NULL;
    *gen = pci ? mgpu_pcie_gen_of_speed(mgpu_xml_get(pci, "link_speed")) : 0;
    *width = w ? atoi(w) : 0;
}

static void check_pairs(vreport *r, json_t *doc, const mgpu_topo *exp, int ng)
{
    int bad = 0, pairs = 0;
    for (int a = 0; a < ng; a++)
        for (int b = a + 1; b < ng; b++) {
            const mgpu_topo_gpu *ga = mgpu_topo_gpu_at(exp, a), *gb = mgpu_topo_gpu_at(exp, b);
            if (!ga || !gb || ga->host != gb->host) continue;
            pairs++;
            mgpu_topo_path want = mgpu_topo_gpu_path(exp, a, b);
            int nv;
            const char *got = cell(doc, a, b);
            mgpu_path_type t = cell_type(got, &nv);
            int worse = want.type == MGPU_PATH_NV ? (t != MGPU_PATH_NV || nv < want.nvlinks) : t > want.type;
            if (!worse) continue;
            bad++;
            char w[16];
            path_text(want, w, sizeof w);
            vcheck *c = vcheck_about(vreport_add(r, "topology", V_ANOMALY, "GPU%d-GPU%d path", a, b), "path", a, b);
            VSET(c, measured, "%s", got);
            VSET(c, expected, "%s", w);
            if (want.type == MGPU_PATH_NV) {
                VSET(c, cause, "missing or degraded NVLink between GPU%d and GPU%d: %s where the machine is wired %s "
                     "(a link down or not trained, a GPU needing a reset, or on NVSwitch systems the fabric "
                     "manager not running)", a, b, got, w);
                VSET(c, next, "nvidia-smi nvlink -s -i %d; nvidia-smi nvlink -s -i %d; systemctl status "
                     "nvidia-fabricmanager; dmesg | grep -i xid", a, b);
            } else {
                VSET(c, cause, "GPU%d and GPU%d are further apart than expected (%s instead of %s): a card in a "
                     "different slot or socket than the reference machine", a, b, got, w);
                VSET(c, next, "nvidia-smi topo -m; lspci -tv; compare the slots with the reference machine");
            }
        }
    if (pairs && !bad) {
        vcheck *c = vreport_add(r, "topology", V_OK, "GPU pair paths");
        VSET(c, measured, "%d of %d as expected", pairs, pairs);
        VSET(c, expected, "%d pairs", pairs);
    }
}

/* GT/s per lane of a PCIe generation (with 8b/10b coding below Gen3). */
static double lane_rate(int gen)
{
    static const double r[] = {0, 2.5 * 0.8, 5.0 * 0.8, 8.0, 16.0, 32.0, 64.0};
    return gen >= 1 && gen <= 6 ? r[gen] : 1.0;
}

static void check_pcie(vreport *r, json_t *gpus, const mgpu_topo *exp, int ng)
{
    for (int i = 0; i < ng; i++) {
        json_t *g = json_array_get(gpus, (size_t)i);
        int gen = int_at(g, "pcie_gen", 0), width = int_at(g, "pcie_width", 0);
        int eg, ew;
        model_link(mgpu_topo_gpu_at(exp, i), &eg, &ew);
        const mgpu_gpu_model *m = mgpu_gpu_model_by_name(str_at(g, "name"));
        if (m && m->pcie_gen > eg) eg = m->pcie_gen;
        if (m && m->pcie_width > ew) ew = m->pcie_width;
        vcheck *c;
        if (!gen || !width) {
            c = vreport_add(r, "topology", V_INFO, "GPU%d PCIe link", i);
            VSET(c, measured, "not reported");
            VSET(c, expected, eg ? "Gen%d x%d" : "?", eg, ew);
            VSET(c, cause, "the topology does not record this GPU's PCIe link speed or width");
            continue;
        }
        int low = (eg && gen < eg) || (ew && width < ew);
        c = vcheck_about(vreport_add(r, "topology", low ? V_ANOMALY : V_OK, "GPU%d PCIe link", i), "pcie", i, -1);
        VSET(c, measured, "Gen%d x%d", gen, width);
        if (eg && ew) VSET(c, expected, "Gen%d x%d", eg, ew);
        else VSET(c, expected, "its maximum (unknown GPU)");
        if (low) {
            VSET(c, cause, "GPU%d (%s) has a PCIe link at Gen%d x%d, below the Gen%d x%d it should have: host copies "
                 "to and from it run at about %.0f %% of the expected rate (a slower or narrower slot, a riser, a "
                 "BIOS link-speed setting, or a link that trained down on a badly seated card)", i,
                 str_at(g, "busid") ? str_at(g, "busid") : "?", gen, width, eg, ew,
                 100.0 * lane_rate(gen) * width / (lane_rate(eg) * ew));
            VSET(c, next, "sudo lspci -vv -s %s | grep -E 'LnkCap|LnkSta'; nvidia-smi -q -i %d | grep -A8 'GPU Link "
                 "Info'; reseat the card or check the slot's BIOS setting", str_at(g, "busid") ? str_at(g, "busid") : "",
                 i);
        }
    }
}

static void check_numa_and_nics(vreport *r, json_t *doc, const mgpu_topo *exp, int ng, int expect_given)
{
    json_t *gpus = json_object_get(doc, "gpus"), *nics = json_object_get(doc, "nics");
    int nn = (int)json_array_size(nics), unknown = 0;
    for (int i = 0; i < ng; i++) {
        json_t *g = json_array_get(gpus, (size_t)i);
        int numa = int_at(g, "numa", -1), want = mgpu_topo_gpu_at(exp, i)->numa;
        if (numa < 0) unknown++;
        if (expect_given && numa >= 0 && want >= 0 && numa != want) {
            vcheck *c = vcheck_about(vreport_add(r, "topology", V_ANOMALY, "GPU%d NUMA node", i), "numa", i, -1);
            VSET(c, measured, "node %d", numa);
            VSET(c, expected, "node %d", want);
            VSET(c, cause, "GPU%d hangs off NUMA node %d, the reference machine has it on node %d: ranks pinned by "
                 "the reference layout will copy across sockets", i, numa, want);
            VSET(c, next, "nvidia-smi topo -m (CPU and NUMA affinity columns); check the launcher's CPU binding");
        }
        /* the nearest NIC, as NCCL picks it for this GPU */
        int best = MGPU_PATH_NET, wbest = MGPU_PATH_NET, nv;
        for (int k = 0; k < nn; k++) {
            json_t *nic = json_array_get(nics, (size_t)k);
            if (int_at(nic, "host", 0) != int_at(g, "host", 0)) continue;
            int t = cell_type(cell(doc, i, ng + k), &nv);
            if (t < best) best = t;
        }
        for (int k = 0; k < mgpu_topo_nic_count(exp); k++)
            if (mgpu_topo_nic_at(exp, k)->host == mgpu_topo_gpu_at(exp, i)->host) {
                int t = mgpu_topo_gpu_nic_path(exp, i, k).type;
                if (t < wbest) wbest = t;
            }
        if (nn && wbest < MGPU_PATH_NET && best > wbest) {
            vcheck *c = vcheck_about(vreport_add(r, "topology", V_ANOMALY, "GPU%d nearest NIC", i), "nic", i, -1);
            VSET(c, measured, "%s", mgpu_path_type_name((mgpu_path_type)best));
            VSET(c, expected, "%s", mgpu_path_type_name((mgpu_path_type)wbest));
            VSET(c, cause, "GPU%d's nearest NIC is %s away where the expected machine has one at %s: its network "
                 "traffic crosses the CPU", i, mgpu_path_type_name((mgpu_path_type)best),
                 mgpu_path_type_name((mgpu_path_type)wbest));
            VSET(c, next, "nvidia-smi topo -m (NIC columns); ibdev2netdev; NCCL_DEBUG=INFO shows the NIC NCCL chose");
        }
    }
    if (unknown) {
        vcheck *c = vreport_add(r, "topology", V_INFO, "NUMA affinity");
        VSET(c, measured, "%d GPU%s not reported", unknown, unknown == 1 ? "" : "s");
        VSET(c, expected, "a node per GPU");
        VSET(c, cause, "sysfs gives no numa_node for %s (typical inside a VM); CPU binding cannot be checked",
             unknown == ng ? "any GPU" : "some GPUs");
    }
}

/* An RDMA NIC (InfiniBand/RoCE device) rather than a plain Ethernet port. */
static int rdma_nic(const char *name)
{
    static const char *const plain[] = {"eth", "en", "wl", "lo", "docker", "virbr", "br", "veth", "bond"};
    if (!name || !*name) return 0;
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        if (strncmp(name, plain[i], strlen(plain[i])) == 0) return 0;
    return 1;
}

static void check_gdr(vreport *r, json_t *doc, const mgpu_topo *exp)
{
    json_t *nics = json_object_get(doc, "nics");
    char off[256] = "";
    int noff = 0, nrdma = 0;
    for (size_t k = 0; k < json_array_size(nics); k++) {
        json_t *n = json_array_get(nics, k);
        const char *name = str_at(n, "name");
        const mgpu_topo_nic *want = (int)k < mgpu_topo_nic_count(exp) ? mgpu_topo_nic_at(exp, (int)k) : NULL;
        if (!rdma_nic(name) && !(want && want->gdr)) continue;
        nrdma++;
        if (json_is_true(json_object_get(n, "gdr"))) continue;
        if (noff++ < 6) snprintf(off + strlen(off), sizeof off - strlen(off), "%s%s", noff > 1 ? ", " : "", name);
    }
    if (!nrdma) return;
    vcheck *c = vcheck_about(vreport_add(r, "topology", noff ? V_ANOMALY : V_OK, "GPUDirect RDMA"), "gdr", -1, -1);
    VSET(c, measured, noff ? "off on %d of %d NICs" : "on (%d NICs)", noff ? noff : nrdma, nrdma);
    VSET(c, expected, "on");
    if (noff) {
        VSET(c, cause, "GPUDirect RDMA is off for %s%s: NCCL stages every inter-node transfer through host memory "
             "(NET/IB without GDRDMA in its log), costing bandwidth and latency across nodes", off, noff > 6 ? ", ..." : "");
        VSET(c, next, "lsmod | grep -E 'nvidia_peermem|nv_peer_mem'; sudo modprobe nvidia_peermem; NCCL_DEBUG=INFO "
             "should then show NET/IB/GDRDMA; check NCCL_NET_GDR_LEVEL");
    }
}

/* Each NIC's port as ibstat reports it (state, rate) against the expected
 * machine's, and the transport NCCL would use between hosts: a port that
 * is down or trained at a lower rate, or sockets where RDMA NICs exist. */
static void check_nic_ports(vreport *r, json_t *doc, const mgpu_topo *exp)
{
    json_t *nics = json_object_get(doc, "nics");
    int bad = 0, nn = (int)json_array_size(nics), rdma = 0;
    for (int k = 0; k < nn; k++) {
        json_t *n = json_array_get(nics, (size_t)k);
        const mgpu_topo_nic *want = k < mgpu_topo_nic_count(exp) ? mgpu_topo_nic_at(exp, k) : NULL;
        const char *state = str_at(n, "state"), *name = str_at(n, "name");
        double rate = json_number_value(json_object_get(n, "speed_gbps"));
        rdma += want && want->gdr;
        if (state && strcmp(state, "ACTIVE") != 0) {
            bad++;
            vcheck *c = vcheck_about(vreport_add(r, "topology", V_ANOMALY, "NIC%d %s (host %d) port", k,
                                                 name ? name : "?", int_at(n, "host", 0)), "port", k, -1);
            VSET(c, measured, "%s", state);
            VSET(c, expected, "ACTIVE");
            VSET(c, cause, "NIC%d (%s) has its port %s: NCCL skips it, and the GPUs nearest to it send through "
                 "another NIC, shared with that NIC's own GPUs (their inter-node bandwidth halves)", k,
                 name ? name : "?", state);
            VSET(c, next, "ibstat %s (State, Physical state); check the cable and the switch port; "
                 "NCCL_DEBUG=INFO lists the ports NCCL uses (NET/IB : Using ...)", name ? name : "");
        } else if (want && want->speed_gbps > 0 && rate > 0 && rate < want->speed_gbps * 0.99) {
            bad++;
            vcheck *c = vcheck_about(vreport_add(r, "topology", V_ANOMALY, "NIC%d %s (host %d) port", k,
                                                 name ? name : "?", int_at(n, "host", 0)), "port", k, -1);
            VSET(c, measured, "%g Gb/s", rate);
            VSET(c, expected, "%g Gb/s", want->speed_gbps);
            VSET(c, cause, "NIC%d (%s) trained at %g Gb/s where it should run at %g Gb/s (a cable or transceiver of "
                 "the wrong kind, a port set to a lower speed, lanes that failed to train): every transfer through "
                 "it runs at %.0f %% of the rate", k, name ? name : "?", rate, want->speed_gbps,
                 100.0 * rate / want->speed_gbps);
            VSET(c, next, "ibstat %s (Rate, Link layer); ibv_devinfo -v (active_width, active_speed); check the cable "
                 "and the switch port's configured speed", name ? name : "");
        }
    }
    if (nn && !bad) {
        vcheck *c = vreport_add(r, "topology", V_OK, "NIC ports");
        VSET(c, measured, "%d of %d active at their rate", nn, nn);
        VSET(c, expected, "%d ports", nn);
    }
    const char *net = str_at(doc, "network");
    if (!net || !rdma) return;
    int sock = strcmp(net, "Socket") == 0;
    vcheck *c = vcheck_about(vreport_add(r, "topology", sock ? V_ANOMALY : V_OK, "NCCL network transport"), "socket",
                             -1, -1);
    VSET(c, measured, "%s", net);
    VSET(c, expected, "IB");
    if (sock) {
        VSET(c, cause, "NCCL uses TCP sockets (NET/Socket) between hosts although %d RDMA NICs are there: its IB "
             "transport did not load (no libibverbs/rdma-core in the container, NCCL_IB_DISABLE=1, a wrong "
             "NCCL_IB_HCA or NCCL_NET); NCCL says so only at INFO level", rdma);
        VSET(c, next, "NCCL_DEBUG=INFO ... | grep -E 'NET/|Using network'; env | grep -E 'NCCL_(IB|NET|SOCKET)'; "
             "ls /usr/lib/x86_64-linux-gnu/libibverbs.so*; ibv_devices");
    }
}

static void check_peer(vreport *r, json_t *doc, const mgpu_topo *exp, int ng)
{
    json_t *peer = json_object_get(doc, "peer_access");
    char list[200] = "";
    int off = 0, expected_on = 0, ca = -2, cb = -2; /* a GPU every disabled pair shares */
    for (int a = 0; a < ng; a++)
        for (int b = 0; b < ng; b++) {
            if (a == b || mgpu_topo_peer_access(exp, a, b) != 1) continue;
            expected_on++;
            if (!json_is_false(json_array_get(json_array_get(peer, (size_t)a), (size_t)b))) continue;
            if (ca == -2) ca = a, cb = b;
            ca = ca == a || ca == b ? ca : -1;
            cb = cb == a || cb == b ? cb : -1;
            if (off++ < 6) snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d->%d", off > 1 ? ", " : "", a, b);
        }
    if (!expected_on) return;
    vcheck *c = vcheck_about(vreport_add(r, "topology", off ? V_ANOMALY : V_OK, "peer access"), "peer",
                             ca >= 0 ? ca : cb >= 0 ? cb : -1, -1);
    VSET(c, measured, off ? "disabled on %d of %d pairs" : "on for %d pairs", off ? off : expected_on, expected_on);
    VSET(c, expected, "on for %d pairs", expected_on);
    if (off) {
        VSET(c, cause, "peer access is disabled for GPU pairs %s%s that should reach each other directly: copies "
             "between them are staged through host memory and NCCL falls back to SHM (ACS or the IOMMU redirecting "
             "P2P on the PCIe switches, a virtualised host, or NCCL_P2P_DISABLE)", list, off > 6 ? ", ..." : "");
        VSET(c, next, "nvidia-smi topo -p2p r; sudo lspci -vvv | grep -i ACSCtl; cat /proc/cmdline (iommu=); env | "
             "grep NCCL_P2P; mgpulab topo --peer");
    }
}

void validate_topology(vreport *r, json_t *doc, const mgpu_topo *exp, int expect_given)
{
    json_t *gpus = json_object_get(doc, "gpus");
    int ng = (int)json_array_size(gpus), eng = mgpu_topo_gpu_count(exp);
    vcheck *c = vcheck_about(vreport_add(r, "topology", ng == eng ? V_OK : V_ANOMALY, "GPU count"), "count", -1, -1);
    VSET(c, measured, "%d", ng);
    VSET(c, expected, "%d (%s)", eng, mgpu_topo_machine_name(exp));
    if (ng != eng) {
        VSET(c, cause, "%d GPU%s found where %d are expected: a GPU fell off the bus, is hidden by "
             "CUDA_VISIBLE_DEVICES, or the reference is another machine", ng, ng == 1 ? "" : "s", eng);
        VSET(c, next, "nvidia-smi -L; echo $CUDA_VISIBLE_DEVICES; dmesg | grep -iE 'xid|fallen off'");
        return; /* per-GPU comparisons need the same GPUs */
    }
    check_pairs(r, doc, exp, ng);
    check_pcie(r, gpus, exp, ng);
    check_numa_and_nics(r, doc, exp, ng, expect_given);
    check_gdr(r, doc, exp);
    check_nic_ports(r, doc, exp);
    check_peer(r, doc, exp, ng);
}
