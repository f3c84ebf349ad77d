/* test_ring_search.c - the ring NCCL's search would build. With GPU 3's
 * NVLinks down (dgx-h100, nvlink-down:3) rank order crosses GPU3 -> GPU4
 * over SYS through host memory (SHM, ~27.6 GB/s); the search puts GPU 3
 * between two GPUs of its own socket, reached over PCIe (P2P, ~55 GB/s), so
 * the ring's slowest hop - and the NVLS-off all_reduce - doubles. Without
 * faults the ring stays in rank order. */
#include <stdio.h>
#include <string.h>
#include "mgpu/collmodel.h"
#include "tap.h"

static void print_ring(const char *what, const int *o, int n)
{
    printf("# %s:", what);
    for (int i = 0; i < n; i++) printf(" %d", o[i]);
    printf("\n");
}

int main(void)
{
    mgpu_topo *dgx = NULL, *down = NULL, *two = NULL;
    CHECK_OK(mgpu_topo_preset("dgx-h100", &dgx));
    CHECK_OK(mgpu_topo_preset("dgx-h100", &down));
    CHECK_OK(mgpu_topo_preset("2x-dgx-h100", &two));
    if (!dgx || !down || !two) return tap_done();
    CHECK_OK(mgpu_topo_apply_faults(down, "nvlink-down:3"));

    int o[16];
    CHECK_OK(mgpu_coll_ring_order(dgx, 8, NULL, NULL, o));
    print_ring("dgx-h100", o, 8);
    for (int i = 0; i < 8; i++) CHECK(o[i] == i);

    CHECK_OK(mgpu_coll_ring_order(down, 8, NULL, NULL, o));
    print_ring("dgx-h100 nvlink-down:3", o, 8);
    int at = 0;
    while (at < 8 && o[at] != 3) at++;
    CHECK(at < 8);
    int prev = o[(at + 7) % 8], next = o[(at + 1) % 8];
    CHECKF(prev < 4 && next < 4, "GPU 3's neighbours in the ring are GPUs %d and %d; both should share its socket (0-3)",
           prev, next);
    mgpu_coll_link l;
    mgpu_coll_link_between(down, 3, 4, NULL, &l);
    printf("# GPU3 -> GPU4 via %s at %.1f GB/s\n", l.via, l.gbs);
    CHECK(l.kind == MGPU_XPORT_SHM);
    double shm = l.gbs;
    mgpu_coll_link_between(down, 3, next, NULL, &l);
    printf("# GPU3 -> GPU%d via %s at %.1f GB/s\n", next, l.via, l.gbs);
    CHECK(l.kind == MGPU_XPORT_P2P && l.gbs > 1.9 * shm);
    /* Every edge of the ring is at least the PCIe hop. */
    for (int i = 0; i < 8; i++) {
        mgpu_coll_link_between(down, o[i], o[(i + 1) % 8], NULL, &l);
        CHECKF(l.kind == MGPU_XPORT_P2P, "edge %d -> %d via %s", o[i], o[(i + 1) % 8], l.via);
    }

    /* The model prices that ring: NVLS off (GPU 3 has no switch links, so
     * no NVLS anyway), the bus is the PCIe hop, not the SHM one. */
    mgpu_coll_prediction p;
    CHECK_OK(mgpu_coll_predict(down, MGPU_COLL_ALL_REDUCE, (size_t)1 << 30, 8, NULL, &p));
    printf("# nvlink-down:3 all_reduce 1 GiB: busbw %.1f GB/s (%s/%s, %s)\n", p.busbw_gbs, p.algo_name, p.proto_name,
           p.link);
    CHECK(p.algo == MGPU_ALGO_RING && p.busbw_gbs > 1.5 * shm && p.busbw_gbs < 60.0);
    CHECK(mgpu_coll_nvls_channels(down, 8, NULL, NULL, NULL) == 0);
    /* Without GPU 3 the other seven keep NVLink and NVLS. */
    int seven[7] = {0, 1, 2, 4, 5, 6, 7};
    CHECK(mgpu_coll_nvls_channels(down, 7, seven, NULL, NULL) == 16);

    /* Two nodes: each node's part searched; no faults, rank order. */
    CHECK_OK(mgpu_coll_ring_order(two, 16, NULL, NULL, o));
    for (int i = 0; i < 16; i++) CHECK(o[i] == i);

    /* Bad input. */
    CHECK(mgpu_coll_ring_order(dgx, 0, NULL, NULL, o) == MGPU_ERR_INVALID);
    mgpu_topo_free(dgx);
    mgpu_topo_free(down);
    mgpu_topo_free(two);
    return tap_done();
}
