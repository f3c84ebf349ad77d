/* test_dev_sim_peer.c - peer access on the sim backend: can-access from the
 * topology and faults, enable/disable and their errors, P2P attributes. */
#include "mgpu/dev.h"
#include "tap.h"
#include <string.h>

static mgpu_backend *open_sim(const char *machine, const char *fault)
{
    mgpu_backend_config cfg = {MGPU_BACKEND_SIM, machine, fault};
    mgpu_backend *be = NULL;
    if (mgpu_backend_open(&cfg, &be) != MGPU_OK) CHECKF(0, "open %s: %s", machine, mgpu_error_message());
    return be;
}

static void test_nvlink_machine(void)
{
    mgpu_backend *be = open_sim("dgx-h100", NULL);
    if (!be) return;
    int can = -1;
    CHECK_OK(mgpu_peer_can_access(be, 0, 7, &can));
    CHECK(can == 1);
    mgpu_p2p_attr a;
    CHECK_OK(mgpu_peer_attributes(be, 0, 7, &a));
    CHECK(a.access_supported == 1 && a.native_atomic_supported == 1 && a.performance_rank == 0);
    CHECK_OK(mgpu_peer_enable(be, 0, 7));
    CHECK(mgpu_peer_enable(be, 0, 7) == MGPU_ERR_PEER);
    CHECK(strstr(mgpu_error_message(), "already enabled") != NULL);
    CHECK_OK(mgpu_peer_enable(be, 7, 0)); /* the other direction is separate */
    CHECK_OK(mgpu_peer_disable(be, 0, 7));
    CHECK(mgpu_peer_disable(be, 0, 7) == MGPU_ERR_PEER);
    CHECK(strstr(mgpu_error_message(), "not enabled") != NULL);
    CHECK(mgpu_peer_disable(be, 1, 2) == MGPU_ERR_PEER);
    CHECK_OK(mgpu_peer_enable(be, 0, 7)); /* again after disabling */
    /* argument errors from the device layer */
    CHECK(mgpu_peer_enable(be, 3, 3) == MGPU_ERR_INVALID);
    CHECK(mgpu_peer_enable(be, 0, 8) == MGPU_ERR_INVALID);
    CHECK(mgpu_peer_can_access(be, -1, 0, &can) == MGPU_ERR_INVALID);
    mgpu_backend_close(be);
}

static void test_p2p_disabled(void)
{
    mgpu_backend *be = open_sim("dgx-h100", "p2p-disabled");
    if (!be) return;
    int can = -1;
    CHECK_OK(mgpu_peer_can_access(be, 0, 1, &can));
    CHECK(can == 0);
    mgpu_p2p_attr a;
    CHECK_OK(mgpu_peer_attributes(be, 0, 1, &a));
    CHECK(a.access_supported == 0 && a.native_atomic_supported == 0);
    CHECK(mgpu_peer_enable(be, 0, 1) == MGPU_ERR_PEER);
    CHECKF(strstr(mgpu_error_message(), "GPU 0 cannot access GPU 1") != NULL &&
               strstr(mgpu_error_message(), "P2P is disabled") != NULL,
           "%s", mgpu_error_message());
    mgpu_backend_close(be);
}

static void test_pcie_machine(void)
{
    mgpu_backend *be = open_sim("pcie-4gpu", NULL);
    if (!be) return;
    int n = 0, saw_sys = 0, saw_pcie = 0;
    CHECK_OK(mgpu_device_count(be, &n));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (i == j) continue;
            int can = -1;
            mgpu_p2p_attr a;
            CHECK_OK(mgpu_peer_can_access(be, i, j, &can));
            CHECK_OK(mgpu_peer_attributes(be, i, j, &a));
            CHECK(a.access_supported == can);
            CHECK(a.native_atomic_supported == 0); /* no NVLink on this machine */
            if (can) {
                saw_pcie = 1;
                CHECK(a.performance_rank >= 1);
                CHECK_OK(mgpu_peer_enable(be, i, j));
            } else {
                saw_sys = 1;
                CHECK(mgpu_peer_enable(be, i, j) == MGPU_ERR_PEER);
                CHECKF(strstr(mgpu_error_message(), "the path between them is") != NULL, "%s",
                       mgpu_error_message());
            }
        }
    CHECK(saw_pcie && saw_sys); /* pcie-4gpu has PIX/PXB pairs and SYS pairs */
    mgpu_backend_close(be);
}

int main(void)
{
    test_nvlink_machine();
    test_p2p_disabled();
    test_pcie_machine();
    return tap_done();
}
