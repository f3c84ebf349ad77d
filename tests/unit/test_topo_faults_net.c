/* test_topo_faults_net.c - the NIC, PCIe and network faults (lab 12):
 * each changes the view and the collective model as documented, and a
 * fault naming a NIC or GPU the machine lacks, or one that would change
 * nothing there, is refused without changing anything. */
#include "mgpu/collmodel.h"
#include "mgpu/topo.h"
#include "tap.h"
#include <math.h>
#include <string.h>

static mgpu_topo *preset(const char *name)
{
    mgpu_topo *t = NULL;
    CHECK_OK(mgpu_topo_preset(name, &t));
    return t;
}

/* busbw of a 256 MiB all_reduce over every GPU of the machine */
static double busbw(const mgpu_topo *t)
{
    mgpu_coll_prediction p;
    if (mgpu_coll_predict(t, MGPU_COLL_ALL_REDUCE, 256u << 20, mgpu_topo_gpu_count(t), NULL, &p) != MGPU_OK) return 0;
    return p.busbw_gbs;
}

static int notes_with(const mgpu_topo *t, const char *needle)
{
    int n = 0;
    for (const char *const *p = mgpu_topo_notes(t); *p; p++) n += strstr(*p, needle) != NULL;
    return n;
}

static void nic_down(void)
{
    mgpu_topo *h = preset("2x-dgx-h100"), *t = preset("2x-dgx-h100");
    if (!h || !t) return;
    int before = mgpu_topo_gpu_nic(t, 3);
    CHECK(before == 3);
    CHECK_OK(mgpu_topo_apply_faults(t, "nic-down:3"));
    CHECK(mgpu_topo_nic_at(t, 3)->down == 1 && mgpu_topo_nic_at(t, 2)->down == 0);
    CHECK(mgpu_topo_gpu_nic(t, 3) != 3 && mgpu_topo_gpu_nic(t, 3) >= 0);
    /* GPU3 now shares another GPU's NIC: both get half */
    CHECK(mgpu_topo_gpu_net_factor(t, 3) <= 0.5 + 1e-9);
    CHECK(mgpu_topo_gpu_net_factor(t, mgpu_topo_gpu_nic(t, 3)) <= 0.5 + 1e-9);
    CHECK(mgpu_topo_gpu_net_factor(t, 5) == 1.0);
    CHECK(busbw(t) < 0.9 * busbw(h));
    CHECK(notes_with(t, "nic-down:3") == 1);
    mgpu_topo_free(t);
    mgpu_topo_free(h);
}

static void nic_slow_and_speed(void)
{
    mgpu_topo *h = preset("2x-dgx-h100"), *s = preset("2x-dgx-h100"), *i = preset("2x-dgx-h100");
    if (!h || !s || !i) return;
    CHECK_OK(mgpu_topo_apply_faults(s, "nic-slow:10:8"));
    CHECK(fabs(mgpu_topo_nic_at(s, 10)->slow - 8.0) < 1e-12);
    CHECK(mgpu_topo_nic_at(s, 10)->speed_gbps == 400.0); /* its rate still reads the same */
    CHECK(fabs(mgpu_topo_gpu_net_factor(s, 10) - 1.0 / 8) < 1e-9);
    CHECK(busbw(s) < 0.5 * busbw(h));
    CHECK_OK(mgpu_topo_apply_faults(i, "ib-speed:1"));
    CHECK(mgpu_topo_nic_at(i, 1)->speed_gbps == 200.0 && mgpu_topo_nic_at(i, 1)->speed_wired_gbps == 400.0);
    CHECK(fabs(mgpu_topo_gpu_net_factor(i, 1) - 0.5) < 1e-9);
    CHECK(busbw(i) < 0.9 * busbw(h));
    mgpu_topo_free(h);
    mgpu_topo_free(s);
    mgpu_topo_free(i);
}

static void pcie_downgrade(void)
{
    mgpu_topo *t = preset("dgx-h100");
    if (!t) return;
    double was = mgpu_topo_gpu_at(t, 2)->pcie_gbs;
    CHECK_OK(mgpu_topo_apply_faults(t, "pcie-downgrade:2"));
    const mgpu_topo_gpu *g = mgpu_topo_gpu_at(t, 2);
    CHECK(g->pcie_gen_now == 4 && g->pcie_width_now == 8);
    CHECK(fabs(g->pcie_gbs - 16.0 * 8 * 128 / 130 / 8) < 1e-9 && g->pcie_gbs < was / 3);
    CHECK(mgpu_topo_gpu_at(t, 1)->pcie_gen_now == 0);
    CHECK(notes_with(t, "Gen4 x8 instead of Gen5 x16") == 1);
    mgpu_topo_free(t);

    /* on a PCIe machine the peers' path crosses the downgraded link */
    mgpu_topo *p = preset("pcie-4gpu");
    if (!p) return;
    double peer = mgpu_topo_gpu_path(p, 0, 1).bw_gbs;
    CHECK_OK(mgpu_topo_apply_faults(p, "pcie-downgrade:1:gen3x4"));
    CHECK(mgpu_topo_gpu_path(p, 0, 1).bw_gbs < peer / 4);
    mgpu_topo_free(p);
}

static void net_socket(void)
{
    mgpu_topo *h = preset("2x-dgx-h100"), *t = preset("2x-dgx-h100");
    if (!h || !t) return;
    CHECK_OK(mgpu_topo_apply_faults(t, "net-socket"));
    mgpu_coll_link l;
    mgpu_coll_link_between(t, 0, 8, NULL, &l);
    CHECK(l.kind == MGPU_XPORT_NET && strcmp(l.via, "NET/Socket/0") == 0);
    CHECK(busbw(t) < 0.1 * busbw(h));
    mgpu_topo_free(t);
    mgpu_topo_free(h);
}

static void refused(void)
{
    static const struct {
        const char *machine, *fault, *says;
    } bad[] = {
        {"2x-dgx-h100", "nic-down:16", "names NIC 16, but 2x-dgx-h100 has 16 NICs (0..15)"},
        {"dgx-h100", "nic-slow:0", "one host"},
        {"single-gpu", "net-socket", "one host"},
        {"dgx-h100", "ib-speed:0:400", "trains below that"},
        {"dgx-h100", "ib-speed:0:x", "must be a number"},
        {"dgx-h100", "nic-slow:0:1", "above 1"},
        {"dgx-h100", "pcie-downgrade:8", "names GPU 8"},
        {"dgx-h100", "pcie-downgrade:0:gen5x16", "wired Gen5 x16"},
        {"dgx-h100", "pcie-downgrade:0:gen6x8", "neither above"},
        {"dgx-h100", "pcie-downgrade:0:fast", "like gen4x8"},
        {"dgx-h100", "net-socket:1", "takes no argument"},
        {"dgx-h100", "nic-down:1:2", "takes one argument, the NIC"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        mgpu_topo *t = preset(bad[k].machine);
        if (!t) continue;
        CHECK(mgpu_topo_apply_faults(t, bad[k].fault) == MGPU_ERR_INVALID);
        CHECKF(strstr(mgpu_error_message(), bad[k].says) != NULL, "%s on %s: %s (wanted '%s')", bad[k].fault,
               bad[k].machine, mgpu_error_message(), bad[k].says);
        CHECK(mgpu_topo_notes(t)[0] == NULL || notes_with(t, "fault") == 0); /* nothing applied */
        mgpu_topo_free(t);
    }
    /* the help lists every fault */
    const char *help = mgpu_topo_fault_help();
    CHECK(strstr(help, "nic-down[:NIC]") && strstr(help, "pcie-downgrade[:GPU[:genGxW]]") && strstr(help, "net-socket"));
}

int main(void)
{
    nic_down();
    nic_slow_and_speed();
    pcie_downgrade();
    net_socket();
    refused();
    return tap_done();
}
