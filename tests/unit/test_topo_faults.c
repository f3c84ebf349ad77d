/* test_topo_faults.c - sim fault presets change the view as documented,
 * are recorded with their argument, add notes, and bad names are refused
 * without changing anything. */
#include "mgpu/topo.h"
#include "tap.h"
#include <math.h>
#include <string.h>

static int notes_with(const mgpu_topo *t, const char *needle)
{
    int n = 0;
    for (const char *const *p = mgpu_topo_notes(t); *p; p++) n += strstr(*p, needle) != NULL;
    return n;
}

static mgpu_topo *dgx(void)
{
    mgpu_topo *t = NULL;
    CHECK_OK(mgpu_topo_preset("dgx-h100", &t));
    return t;
}

static void nvlink_down(void)
{
    mgpu_topo *t = dgx();
    if (!t) return;
    CHECK_OK(mgpu_topo_apply_faults(t, "nvlink-down:3"));
    CHECK(mgpu_topo_has_fault(t, "nvlink-down") == 1);
    CHECK(mgpu_topo_fault_arg(t, "nvlink-down") == 3);
    CHECK(mgpu_topo_has_fault(t, "crash") == 0 && mgpu_topo_fault_arg(t, "crash") == -1);
    /* GPU 3 (socket 0) falls back to PCIe: NODE within its socket, SYS across */
    mgpu_topo_path p = mgpu_topo_gpu_path(t, 3, 0);
    CHECK(p.type == MGPU_PATH_NODE && p.nvlinks == 0);
    CHECK(fabs(p.bw_gbs - 32.0 * 16 * 128 / 130 / 8) < 1e-9);
    CHECK(mgpu_topo_gpu_path(t, 4, 3).type == MGPU_PATH_SYS);
    CHECK(mgpu_topo_gpu_path(t, 0, 1).type == MGPU_PATH_NV); /* others keep NV18 */
    CHECK(mgpu_topo_gpu_at(t, 3)->nvlinks_total == 0 && mgpu_topo_gpu_at(t, 2)->nvlinks_total == 18);
    CHECK(mgpu_topo_peer_access(t, 3, 0) == 1 && mgpu_topo_peer_access(t, 3, 4) == 0);
    CHECK(notes_with(t, "nvlink-down:3") == 1);
    mgpu_topo_free(t);

    t = dgx();
    if (!t) return;
    CHECK_OK(mgpu_topo_apply_faults(t, "nvlink-down"));
    CHECK(mgpu_topo_fault_arg(t, "nvlink-down") == 0);
    CHECK(mgpu_topo_gpu_path(t, 0, 1).type == MGPU_PATH_NODE);
    CHECK(mgpu_topo_apply_faults(t, "nvlink-down:8") == MGPU_ERR_INVALID);
    CHECK(strstr(mgpu_error_message(), "0..7") != NULL);
    mgpu_topo_free(t);
}

static void p2p_gdr(void)
{
    mgpu_topo *t = dgx();
    if (!t) return;
    CHECK(mgpu_topo_peer_access(t, 0, 1) == 1);
    CHECK_OK(mgpu_topo_apply_faults(t, " p2p-disabled , no-gdr "));
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) CHECK(mgpu_topo_peer_access(t, i, j) == 0);
    CHECK(mgpu_topo_gpu_path(t, 0, 1).type == MGPU_PATH_NV); /* the link is there, P2P is not */
    CHECK(notes_with(t, "ACS/IOMMU blocks P2P") == 1);
    for (int i = 0; i < 8; i++) CHECK(mgpu_topo_gpu_at(t, i)->gdr == 0 && mgpu_topo_nic_at(t, i)->gdr == 0);
    CHECK(notes_with(t, "no-gdr") == 1);
    mgpu_topo_free(t);

    /* no-gdr costs latency on the way to the network */
    mgpu_topo *a = NULL, *b = NULL;
    CHECK_OK(mgpu_topo_preset("2x-dgx-h100", &a));
    CHECK_OK(mgpu_topo_preset("2x-dgx-h100", &b));
    if (a && b) {
        CHECK_OK(mgpu_topo_apply_faults(b, "no-gdr"));
        CHECK(mgpu_topo_gpu_path(b, 0, 8).latency_us > mgpu_topo_gpu_path(a, 0, 8).latency_us);
    }
    mgpu_topo_free(a);
    mgpu_topo_free(b);
}

static void ranks(void)
{
    mgpu_topo *t = dgx();
    if (!t) return;
    CHECK_OK(mgpu_topo_apply_faults(t, "straggler:5,crash:2"));
    CHECK(mgpu_topo_has_fault(t, "straggler") && mgpu_topo_fault_arg(t, "straggler") == 5);
    CHECK(mgpu_topo_has_fault(t, "crash") && mgpu_topo_fault_arg(t, "crash") == 2);
    CHECK(mgpu_topo_has_fault(t, "crash:2") == 1);
    CHECK(notes_with(t, "rank 5") == 1 && notes_with(t, "rank 2") == 1);
    CHECK(mgpu_topo_gpu_path(t, 0, 1).type == MGPU_PATH_NV);
    mgpu_topo_free(t);
    t = dgx();
    if (!t) return;
    CHECK_OK(mgpu_topo_apply_faults(t, "crash"));
    CHECK(mgpu_topo_fault_arg(t, "crash") == 0);
    CHECK_OK(mgpu_topo_apply_faults(t, ""));
    CHECK_OK(mgpu_topo_apply_faults(t, NULL));
    mgpu_topo_free(t);
}

static void refused(void)
{
    mgpu_topo *t = dgx();
    if (!t) return;
    /* nothing is applied when any item is bad */
    CHECK(mgpu_topo_apply_faults(t, "p2p-disabled,nvlink-dwn") == MGPU_ERR_INVALID);
    CHECK(strstr(mgpu_error_message(), "nvlink-dwn") && strstr(mgpu_error_message(), "straggler[:RANK]"));
    CHECK(mgpu_topo_peer_access(t, 0, 1) == 1 && !mgpu_topo_has_fault(t, "p2p-disabled"));
    CHECK(mgpu_topo_notes(t)[0] == NULL);
    CHECK(mgpu_topo_apply_faults(t, "p2p-disabled:1") == MGPU_ERR_INVALID);
    CHECK(mgpu_topo_apply_faults(t, "crash:x") == MGPU_ERR_INVALID);
    CHECK(mgpu_topo_apply_faults(t, "crash:-1") == MGPU_ERR_INVALID);
    CHECK(mgpu_topo_apply_faults(t, "crash:") == MGPU_ERR_INVALID);
    CHECK(mgpu_topo_apply_faults(t, "crash,,no-gdr") == MGPU_ERR_INVALID);
    CHECK(mgpu_topo_apply_faults(t, ",") == MGPU_ERR_INVALID);
    CHECK(mgpu_topo_has_fault(t, "bogus") == 0 && mgpu_topo_fault_arg(t, NULL) == -1);
    mgpu_topo_free(t);
}

static void overrides(void)
{
    mgpu_topo *t = dgx();
    if (!t) return;
    mgpu_topo_set_peer_access(t, 0, 1, 0);
    CHECK(mgpu_topo_peer_access(t, 0, 1) == 0 && mgpu_topo_peer_access(t, 1, 0) == 1);
    mgpu_topo_set_peer_access(t, 0, 1, -1);
    CHECK(mgpu_topo_peer_access(t, 0, 1) == -1);
    mgpu_topo_set_peer_access(t, 0, 99, 1); /* ignored, no crash */
    mgpu_topo_free(t);
}

int main(void)
{
    nvlink_down();
    p2p_gdr();
    ranks();
    refused();
    overrides();
    return tap_done();
}
