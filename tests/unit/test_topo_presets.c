/* test_topo_presets.c - the sim presets' matrices, affinities, NICs and
 * models match the machines they stand for. */
#include "mgpu/topo.h"
#include "tap.h"
#include <math.h>
#include <string.h>

static int near(double a, double b) { return fabs(a - b) < 1e-6 * (fabs(b) + 1); }

static void dgx(const char *name, const char *gpu_name, double hbm)
{
    mgpu_topo *t = NULL;
    CHECK_OK(mgpu_topo_preset(name, &t));
    if (!t) return;
    CHECK(strcmp(mgpu_topo_machine_name(t), name) == 0);
    CHECK(mgpu_topo_simulated(t) == 1);
    CHECK(mgpu_topo_host_count(t) == 1);
    CHECK(mgpu_topo_gpu_count(t) == 8);
    CHECK(mgpu_topo_nic_count(t) == 8);
    static const char *const bus[8] = {"0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0",
                                       "0000:9a:00.0", "0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0"};
    for (int i = 0; i < 8; i++) {
        const mgpu_topo_gpu *g = mgpu_topo_gpu_at(t, i);
        CHECK(g->dev == i);
        CHECKF(strcmp(g->busid, bus[i]) == 0, "gpu %d busid %s", i, g->busid);
        CHECKF(strcmp(g->name, gpu_name) == 0, "gpu %d name '%s'", i, g->name);
        CHECK(g->sm == 90);
        CHECK(near(g->hbm_gbs, hbm));
        CHECK(g->numa == (i < 4 ? 0 : 1));
        CHECKF(strcmp(g->cpulist, i < 4 ? "0-55,112-167" : "56-111,168-223") == 0, "cpulist %s", g->cpulist);
        CHECK(g->nvlinks_total == 18);
        CHECK(g->gdr == 1);
        CHECKF(near(g->pcie_gbs, 32.0 * 16 * 128 / 130 / 8), "pcie %f", g->pcie_gbs);
        for (int j = 0; j < 8; j++) {
            mgpu_topo_path p = mgpu_topo_gpu_path(t, i, j);
            if (i == j) {
                CHECK(p.type == MGPU_PATH_X);
                CHECK(mgpu_topo_peer_access(t, i, j) == 0);
                continue;
            }
            CHECKF(p.type == MGPU_PATH_NV && p.nvlinks == 18, "%d-%d %s%d", i, j, mgpu_path_type_name(p.type),
                   p.nvlinks);
            CHECKF(near(p.bw_gbs, 450.0), "NV18 bw %f", p.bw_gbs);
            CHECK(p.latency_us > 0);
            CHECK(mgpu_topo_peer_access(t, i, j) == 1);
        }
        for (int n = 0; n < 8; n++) {
            mgpu_topo_path p = mgpu_topo_gpu_nic_path(t, i, n);
            mgpu_path_type want = n == i ? MGPU_PATH_PIX : (n < 4) == (i < 4) ? MGPU_PATH_NODE : MGPU_PATH_SYS;
            CHECKF(p.type == want, "gpu %d nic %d: %s", i, n, mgpu_path_type_name(p.type));
        }
    }
    /* Sapphire Rapids UPI is NCCL's SRP_QPI_BW: 22 GB/s caps SYS paths. */
    CHECK(near(mgpu_topo_gpu_nic_path(t, 0, 7).bw_gbs, 22.0));
    for (int n = 0; n < 8; n++) {
        const mgpu_topo_nic *nic = mgpu_topo_nic_at(t, n);
        char want[24]; /* "mlx5_" and any int: no truncation warning */
        snprintf(want, sizeof want, "mlx5_%d", n);
        CHECK(strcmp(nic->name, want) == 0);
        CHECK(near(nic->speed_gbps, 400.0));
        CHECK(nic->gdr == 1);
        CHECK(nic->numa == (n < 4 ? 0 : 1));
    }
    CHECK(mgpu_topo_nic_nic_path(t, 0, 1).type == MGPU_PATH_NODE);
    CHECK(mgpu_topo_nic_nic_path(t, 0, 5).type == MGPU_PATH_SYS);
    CHECK(mgpu_topo_gpu_index(t, 0, 7) == 7);
    CHECK(mgpu_topo_gpu_index(t, 1, 0) == -1);
    CHECK(mgpu_topo_notes(t)[0] == NULL);
    mgpu_topo_free(t);
}

static void pcie4(void)
{
    mgpu_topo *t = NULL;
    CHECK_OK(mgpu_topo_preset("pcie-4gpu", &t));
    if (!t) return;
    CHECK(mgpu_topo_gpu_count(t) == 4);
    int seen[MGPU_PATH_NET + 1] = {0};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) seen[mgpu_topo_gpu_path(t, i, j).type]++;
    CHECK(seen[MGPU_PATH_NV] == 0);
    CHECK(seen[MGPU_PATH_PIX] > 0 && seen[MGPU_PATH_PXB] > 0 && seen[MGPU_PATH_SYS] > 0);
    CHECK(mgpu_topo_gpu_path(t, 0, 1).type == MGPU_PATH_PIX);
    CHECK(mgpu_topo_gpu_path(t, 0, 2).type == MGPU_PATH_PXB);
    CHECK(mgpu_topo_gpu_path(t, 2, 3).type == MGPU_PATH_SYS);
    CHECK(mgpu_topo_gpu_nic_path(t, 3, 0).type == MGPU_PATH_PHB);
    CHECK(mgpu_topo_gpu_nic_path(t, 0, 0).type == MGPU_PATH_SYS);
    CHECK(mgpu_topo_peer_access(t, 0, 1) == 1);
    CHECK(mgpu_topo_peer_access(t, 0, 3) == 0);
    /* Gen4 x16 links, AMD Zen4 xGMI (NCCL's AMD_ZEN34_BW 24 GB/s) across. */
    CHECK(near(mgpu_topo_gpu_path(t, 0, 1).bw_gbs, 16.0 * 16 * 128 / 130 / 8));
    CHECK(near(mgpu_topo_gpu_path(t, 0, 3).bw_gbs, 24.0));
    CHECK(strcmp(mgpu_topo_gpu_at(t, 0)->name, "NVIDIA L40S") == 0);
    CHECK(strcmp(mgpu_topo_gpu_at(t, 3)->cpulist, "32-63,96-127") == 0);
    CHECK(mgpu_topo_gpu_at(t, 0)->nvlinks_total == 0);
    mgpu_topo_free(t);
}

static void two_nodes(void)
{
    mgpu_topo *t = NULL;
    CHECK_OK(mgpu_topo_preset("2x-dgx-h100", &t));
    if (!t) return;
    CHECK(mgpu_topo_host_count(t) == 2);
    CHECK(mgpu_topo_gpu_count(t) == 16);
    CHECK(mgpu_topo_nic_count(t) == 16);
    CHECK(mgpu_topo_gpu_index(t, 1, 3) == 11);
    CHECK(mgpu_topo_gpu_at(t, 11)->host == 1 && mgpu_topo_gpu_at(t, 11)->dev == 3);
    mgpu_topo_path p = mgpu_topo_gpu_path(t, 0, 8);
    CHECK(p.type == MGPU_PATH_NET);
    CHECKF(near(p.bw_gbs, 50.0), "NET bw %f", p.bw_gbs); /* NDR 400 Gbit/s */
    CHECK(p.latency_us > mgpu_topo_gpu_path(t, 0, 1).latency_us);
    CHECK(mgpu_topo_gpu_path(t, 9, 15).type == MGPU_PATH_NV);
    CHECK(mgpu_topo_peer_access(t, 0, 8) == 0);
    CHECK(mgpu_topo_nic_nic_path(t, 0, 8).type == MGPU_PATH_NET);
    CHECK(mgpu_topo_gpu_nic_path(t, 0, 8).type == MGPU_PATH_NET);
    mgpu_topo_free(t);
}

static void single(void)
{
    mgpu_topo *t = NULL;
    CHECK_OK(mgpu_topo_preset("single-gpu", &t));
    if (!t) return;
    CHECK(mgpu_topo_gpu_count(t) == 1 && mgpu_topo_nic_count(t) == 1);
    CHECK(strcmp(mgpu_topo_gpu_at(t, 0)->name, "NVIDIA H100 PCIe") == 0);
    CHECK(strcmp(mgpu_topo_gpu_at(t, 0)->cpulist, "0-63") == 0);
    CHECK(mgpu_topo_gpu_nic_path(t, 0, 0).type == MGPU_PATH_PIX);
    CHECK(mgpu_topo_gpu_path(t, 0, 0).type == MGPU_PATH_X);
    CHECK(mgpu_topo_gpu_path(t, 0, 1).bw_gbs == 0); /* out of range: no crash */
    CHECK(mgpu_topo_peer_access(t, 0, 5) == -1);
    mgpu_topo_free(t);
}

static void names_and_errors(void)
{
    const char *const *names = mgpu_topo_preset_names();
    int n = 0;
    for (; names[n]; n++) {
        mgpu_topo *t = NULL;
        CHECK_OK(mgpu_topo_open_machine(names[n], &t));
        mgpu_topo_free(t);
    }
    CHECK(n == 5);
    mgpu_topo *t = NULL;
    CHECK(mgpu_topo_preset("dgx-a100", &t) == MGPU_ERR_INVALID && t == NULL);
    CHECK(strstr(mgpu_error_message(), "dgx-a100") && strstr(mgpu_error_message(), "pcie-4gpu"));
    CHECK(mgpu_topo_open_machine("nope", &t) == MGPU_ERR_INVALID);
    CHECK(mgpu_topo_open_machine("", &t) == MGPU_ERR_INVALID);
    CHECK(mgpu_topo_open_machine("missing.xml", &t) == MGPU_ERR_IO);
    CHECK(strstr(mgpu_error_message(), "missing.xml") && strstr(mgpu_error_message(), "No such file"));
    CHECK(mgpu_topo_open_machine("./dgx-h100", &t) == MGPU_ERR_IO);
}

static void models(void)
{
    const mgpu_gpu_model *m = mgpu_gpu_model_by_name("NVIDIA H200");
    CHECK(m && m->pci_device == 0x2335 && m->sm_count == 132 && near(m->hbm_gbs, 4800));
    m = mgpu_gpu_model_by_pci(0x2330);
    CHECK(m && m->nvlinks == 18 && near(m->nvlink_gbs, 25) && near(m->hbm_gbs, 3350) && m->sm_count == 132);
    CHECK(mgpu_gpu_model_by_name("nvidia h100 80gb hbm3") == mgpu_gpu_model_by_pci(0x2330));
    m = mgpu_gpu_model_by_pci(0x2331);
    CHECK(m && m->sm_count == 114 && near(m->hbm_gbs, 2000));
    m = mgpu_gpu_model_by_pci(0x20b2);
    CHECK(m && m->sm_count == 108 && m->nvlinks == 12 && near(m->hbm_gbs, 2039));
    m = mgpu_gpu_model_by_name("NVIDIA L40S");
    CHECK(m && m->nvlinks == 0 && m->sm_count == 142 && near(m->hbm_gbs, 864));
    CHECK(mgpu_gpu_model_by_name("NVIDIA GeForce GTX 480") == NULL);
    CHECK(mgpu_gpu_model_by_name(NULL) == NULL);
    CHECK(mgpu_gpu_model_by_pci(0xffff) == NULL);
    CHECK(strcmp(mgpu_path_type_name(MGPU_PATH_NODE), "NODE") == 0);
    CHECK(strcmp(mgpu_path_type_name(MGPU_PATH_NET), "NET") == 0);
}

int main(void)
{
    dgx("dgx-h100", "NVIDIA H100 80GB HBM3", 3350);
    dgx("dgx-h200", "NVIDIA H200", 4800);
    pcie4();
    two_nodes();
    single();
    names_and_errors();
    models();
    return tap_done();
}
