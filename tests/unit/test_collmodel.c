/* test_collmodel.c - the collective time model: the 8xH100 all_reduce at
 * 256 MiB through NVLink SHARP near the published ~480 GB/s busbw and the
 * ring near the NVLS-off ~370 (tests/data/published.tsv holds the sizes of
 * the sources; test_published.c checks them), NCCL-like protocol
 * choice by size, nccl-tests' bus factors, multi-node and PCIe machines
 * slower, forced algorithms, and 4096 ranks priced in well under 100 ms. */
#include <math.h>
#include <string.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mgpu/clock.h"
#include "mgpu/collmodel.h"
#include "tap.h"

int main(void)
{
    mgpu_topo *dgx = NULL, *two = NULL, *pcie = NULL;
    CHECK_OK(mgpu_topo_preset("dgx-h100", &dgx));
    CHECK_OK(mgpu_topo_preset("2x-dgx-h100", &two));
    CHECK_OK(mgpu_topo_preset("pcie-4gpu", &pcie));
    if (!dgx || !two || !pcie) return tap_done();

    mgpu_coll_prediction p;
    CHECK_OK(mgpu_coll_predict(dgx, MGPU_COLL_ALL_REDUCE, (size_t)256 << 20, 8, NULL, &p));
    printf("# dgx-h100 8 ranks all_reduce 256 MiB: %.1f us, algbw %.1f, busbw %.1f GB/s (%s/%s)\n", p.time_us,
           p.algbw_gbs, p.busbw_gbs, p.algo_name, p.proto_name);
    CHECKF(fabs(p.busbw_gbs - 480.0) / 480.0 < 0.10, "busbw %.1f not within 10%% of 480", p.busbw_gbs);
    CHECK(p.algo == MGPU_ALGO_NVLS && p.proto == MGPU_PROTO_SIMPLE && !strcmp(p.link, "NVLink"));
    mgpu_coll_tuning no_nvls = {-1, -1};
    no_nvls.nvls = -1; /* NCCL_NVLS_ENABLE=0 */
    CHECK_OK(mgpu_coll_predict_tuned(dgx, MGPU_COLL_ALL_REDUCE, (size_t)256 << 20, 8, NULL, &no_nvls, &p));
    printf("# NCCL_NVLS_ENABLE=0: busbw %.1f GB/s (%s/%s)\n", p.busbw_gbs, p.algo_name, p.proto_name);
    CHECKF(fabs(p.busbw_gbs - 367.0) / 367.0 < 0.10, "busbw %.1f not within 10%% of 367", p.busbw_gbs);
    CHECK(p.algo == MGPU_ALGO_RING && p.proto == MGPU_PROTO_SIMPLE);
    /* NVLS needs enough GPUs to pay: 4 stay on the ring (NVIDIA/nccl#1455),
     * a reduction the switch cannot do stays off it, all_gather keeps the
     * ring at large sizes (the switch saves it nothing there). */
    CHECK_OK(mgpu_coll_predict(dgx, MGPU_COLL_ALL_REDUCE, (size_t)1 << 30, 4, NULL, &p));
    CHECK(p.algo == MGPU_ALGO_RING);
    mgpu_coll_tuning prod = {-1, -1};
    prod.nvls_no_op = 1;
    CHECK_OK(mgpu_coll_predict_tuned(dgx, MGPU_COLL_ALL_REDUCE, (size_t)1 << 30, 8, NULL, &prod, &p));
    CHECK(p.algo == MGPU_ALGO_RING);
    CHECK_OK(mgpu_coll_predict(dgx, MGPU_COLL_ALL_GATHER, (size_t)1 << 30, 8, NULL, &p));
    CHECK(p.algo == MGPU_ALGO_RING);
    mgpu_coll_tuning force_nvls = {MGPU_ALGO_NVLS, -1};
    CHECK_OK(mgpu_coll_predict_tuned(dgx, MGPU_COLL_ALL_GATHER, (size_t)1 << 30, 8, NULL, &force_nvls, &p));
    CHECK(p.algo == MGPU_ALGO_NVLS);
    /* Small sizes: NVLS's 25 us latency loses to LL. */
    CHECK_OK(mgpu_coll_predict(dgx, MGPU_COLL_ALL_REDUCE, 64 << 10, 8, NULL, &p));
    CHECK(p.algo != MGPU_ALGO_NVLS);
    /* NVLS buffers: 16 channels x 2 x 1 MiB x 8 heads per GPU; none without switches. */
    size_t nvls_mem = 0;
    CHECK(mgpu_coll_nvls_channels(dgx, 8, NULL, NULL, &nvls_mem) == 16 && nvls_mem == (size_t)256 << 20);
    CHECK(mgpu_coll_nvls_channels(pcie, 4, NULL, NULL, &nvls_mem) == 0 && nvls_mem == 0);
    CHECK(mgpu_coll_nvls_channels(dgx, 8, NULL, &no_nvls, NULL) == 0);

    /* Small messages take a low-latency protocol, as NCCL does. */
    CHECK_OK(mgpu_coll_predict(dgx, MGPU_COLL_ALL_REDUCE, 8, 8, NULL, &p));
    printf("# 8 B: %.2f us %s/%s\n", p.time_us, p.algo_name, p.proto_name);
    CHECK(p.proto == MGPU_PROTO_LL);
    CHECK(p.time_us > 5 && p.time_us < 40);
    /* Time grows with size. */
    double prev = 0;
    for (size_t b = 8; b <= ((size_t)1 << 30); b *= 4) {
        CHECK_OK(mgpu_coll_predict(dgx, MGPU_COLL_ALL_REDUCE, b, 8, NULL, &p));
        CHECKF(p.time_us >= prev, "time fell from %.2f to %.2f at %zu B", prev, p.time_us, b);
        prev = p.time_us;
    }

    /* Bus factors of nccl-tests. */
    CHECK(fabs(mgpu_coll_busbw_factor(MGPU_COLL_ALL_REDUCE, 8) - 1.75) < 1e-12);
    CHECK(fabs(mgpu_coll_busbw_factor(MGPU_COLL_ALL_GATHER, 8) - 0.875) < 1e-12);
    CHECK(fabs(mgpu_coll_busbw_factor(MGPU_COLL_ALLTOALL, 4) - 0.75) < 1e-12);
    CHECK(mgpu_coll_busbw_factor(MGPU_COLL_BROADCAST, 8) == 1.0);
    CHECK(mgpu_coll_busbw_factor(MGPU_COLL_SEND, 2) == 1.0);
    /* the text `bench --help` lists comes from the same k as the factor */
    CHECK(!strcmp(mgpu_coll_busbw_factor_text(MGPU_COLL_ALL_REDUCE), "2(n-1)/n"));
    CHECK(!strcmp(mgpu_coll_busbw_factor_text(MGPU_COLL_REDUCE_SCATTER), "(n-1)/n"));
    CHECK(!strcmp(mgpu_coll_busbw_factor_text(MGPU_COLL_BROADCAST), "1"));

    /* One rank: out of place NCCL copies send to receive through HBM (the
     * H200 measured 2115-2123 GB/s at 1 GiB); in place it has nothing to do
     * and the call costs its launch, not a 1 GiB copy. */
    mgpu_topo *h200 = NULL;
    CHECK_OK(mgpu_topo_preset("dgx-h200", &h200));
    if (h200) {
        mgpu_coll_prediction oop, ip;
        CHECK_OK(mgpu_coll_predict_call(h200, MGPU_COLL_ALL_REDUCE, (size_t)1 << 30, 1, NULL, NULL, 0, &oop));
        CHECK_OK(mgpu_coll_predict_call(h200, MGPU_COLL_ALL_REDUCE, (size_t)1 << 30, 1, NULL, NULL, 1, &ip));
        printf("# dgx-h200 1 rank all_reduce 1 GiB: out of place %.1f us (%.0f GB/s), in place %.2f us\n",
               oop.time_us, oop.algbw_gbs, ip.time_us);
        CHECKF(fabs(oop.algbw_gbs - 2115.0) / 2115.0 < 0.15, "1-rank copy %.0f GB/s not within 15%% of 2115",
               oop.algbw_gbs);
        CHECKF(ip.time_us < 10.0, "1-rank in-place all_reduce priced %.1f us: a no-op in NCCL", ip.time_us);
        CHECK(strcmp(ip.link, "none") == 0);
        /* Small calls cost their launch: out of place a copy kernel's (more
         * than in place's enqueue alone), the same for 8 B and 64 KiB. */
        mgpu_coll_prediction s8, s64k, i8;
        CHECK_OK(mgpu_coll_predict_call(h200, MGPU_COLL_ALL_REDUCE, 8, 1, NULL, NULL, 0, &s8));
        CHECK_OK(mgpu_coll_predict_call(h200, MGPU_COLL_ALL_REDUCE, 65536, 1, NULL, NULL, 0, &s64k));
        CHECK_OK(mgpu_coll_predict_call(h200, MGPU_COLL_ALL_REDUCE, 8, 1, NULL, NULL, 1, &i8));
        CHECKF(s8.time_us > 4 * i8.time_us && s8.time_us == s64k.time_us, "8 B %.2f us, 64 KiB %.2f us, in place %.2f us",
               s8.time_us, s64k.time_us, i8.time_us);
        /* With two ranks in place still moves data. */
        CHECK_OK(mgpu_coll_predict_call(h200, MGPU_COLL_ALL_REDUCE, (size_t)1 << 30, 2, NULL, NULL, 1, &ip));
        CHECK(ip.time_us > 1000.0);
        mgpu_topo_free(h200);
    }

    /* Two nodes over NDR: slower than NVLink alone; PCIe slower still. */
    mgpu_coll_prediction two_p, pcie_p;
    CHECK_OK(mgpu_coll_predict(two, MGPU_COLL_ALL_REDUCE, (size_t)256 << 20, 16, NULL, &two_p));
    CHECK_OK(mgpu_coll_predict(pcie, MGPU_COLL_ALL_REDUCE, (size_t)256 << 20, 4, NULL, &pcie_p));
    printf("# 2x-dgx-h100 16 ranks: busbw %.1f GB/s (%s, %d nodes); pcie-4gpu 4 ranks: busbw %.1f GB/s (%s)\n",
           two_p.busbw_gbs, two_p.link, two_p.nnodes, pcie_p.busbw_gbs, pcie_p.link);
    CHECK(two_p.nnodes == 2 && two_p.algo == MGPU_ALGO_NVLS_TREE && two_p.busbw_gbs < 480.0 && two_p.busbw_gbs > 100.0);
    CHECK(pcie_p.busbw_gbs < 60.0 && pcie_p.busbw_gbs > 5.0);

    /* Every collective has a prediction; tree only for all_reduce. */
    for (int op = 0; op < MGPU_COLL_COUNT; op++) {
        CHECK_OK(mgpu_coll_predict(dgx, (mgpu_coll)op, 1 << 20, 8, NULL, &p));
        CHECK(p.time_us > 0);
    }
    mgpu_coll_tuning tree = {MGPU_ALGO_TREE, -1};
    CHECK_OK(mgpu_coll_predict_tuned(dgx, MGPU_COLL_ALL_REDUCE, 1 << 20, 8, NULL, &tree, &p));
    CHECK(p.algo == MGPU_ALGO_TREE);
    CHECK_OK(mgpu_coll_predict_tuned(dgx, MGPU_COLL_ALL_GATHER, 1 << 20, 8, NULL, &tree, &p));
    CHECK(p.algo == MGPU_ALGO_RING);

    /* Environment: NCCL_PROTO forces, a bad value is refused. */
    mgpu_coll_tuning tun;
    setenv("NCCL_PROTO", "ll128", 1);
    CHECK_OK(mgpu_coll_tuning_from_env(&tun));
    CHECK(tun.proto == MGPU_PROTO_LL128 && tun.algo == -1);
    setenv("NCCL_PROTO", "bogus", 1);
    CHECK(mgpu_coll_tuning_from_env(&tun) == MGPU_ERR_INVALID);
    unsetenv("NCCL_PROTO");
    setenv("NCCL_ALGO", "NVLS", 1);
    CHECK_OK(mgpu_coll_tuning_from_env(&tun));
    CHECK(tun.algo == MGPU_ALGO_NVLS);
    setenv("NCCL_ALGO", "^nvls,nvlstree", 1);
    CHECK_OK(mgpu_coll_tuning_from_env(&tun));
    CHECK(tun.algo == -1 && !(tun.algo_mask >> MGPU_ALGO_NVLS & 1) && (tun.algo_mask >> MGPU_ALGO_RING & 1));
    CHECK_OK(mgpu_coll_predict_tuned(dgx, MGPU_COLL_ALL_REDUCE, (size_t)1 << 30, 8, NULL, &tun, &p));
    CHECK(p.algo == MGPU_ALGO_RING);
    setenv("NCCL_ALGO", "ring,nvls", 1);
    CHECK_OK(mgpu_coll_tuning_from_env(&tun));
    CHECK_OK(mgpu_coll_predict_tuned(dgx, MGPU_COLL_ALL_REDUCE, (size_t)1 << 30, 8, NULL, &tun, &p));
    CHECK(p.algo == MGPU_ALGO_NVLS);
    setenv("NCCL_ALGO", "ring,warp", 1);
    CHECK(mgpu_coll_tuning_from_env(&tun) == MGPU_ERR_INVALID);
    unsetenv("NCCL_ALGO");
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    CHECK_OK(mgpu_coll_tuning_from_env(&tun));
    CHECK(tun.nvls == -1);
    setenv("NCCL_NVLS_ENABLE", "yes", 1);
    CHECK(mgpu_coll_tuning_from_env(&tun) == MGPU_ERR_INVALID);
    unsetenv("NCCL_NVLS_ENABLE");

    /* Transports as NCCL would pick them (the sim's INFO lines print these). */
    mgpu_coll_link l;
    mgpu_coll_link_between(two, 0, 1, NULL, &l);
    CHECK(l.kind == MGPU_XPORT_P2P && !strcmp(l.via, "P2P/CUMEM/read"));
    mgpu_coll_link_between(two, 7, 8, NULL, &l);
    CHECKF(l.kind == MGPU_XPORT_NET && l.gdr == 1 && !strcmp(l.via, "NET/IB/7/GDRDMA"), "7->8 via %s", l.via);
    mgpu_coll_tuning nop2p = {-1, -1, 1, 0, 0, -1}, loc = {-1, -1, 0, -1, 0}, sharp = {-1, -1, 0, 0, 1};
    mgpu_coll_link_between(two, 0, 1, &nop2p, &l);
    CHECK(l.kind == MGPU_XPORT_SHM && !strcmp(l.via, "SHM/direct/direct"));
    mgpu_coll_link_between(two, 7, 8, &loc, &l);
    CHECKF(l.kind == MGPU_XPORT_NET && l.gdr == 0 && !strcmp(l.via, "NET/IB/7"), "7->8 LOC via %s", l.via);

    /* P2P disabled: SHM through host memory, ~10x slower on NVLink (the
     * note's pitfall); without GPUDirect RDMA the network halves; SHARP
     * sends less across the network. */
    mgpu_coll_prediction shm, nogdr, coll;
    CHECK_OK(mgpu_coll_predict_tuned(dgx, MGPU_COLL_ALL_REDUCE, (size_t)256 << 20, 8, NULL, &nop2p, &shm));
    CHECK_OK(mgpu_coll_predict(dgx, MGPU_COLL_ALL_REDUCE, (size_t)256 << 20, 8, NULL, &p));
    printf("# P2P disabled: busbw %.1f vs %.1f GB/s (%.1fx, %s)\n", shm.busbw_gbs, p.busbw_gbs, p.busbw_gbs / shm.busbw_gbs,
           shm.link);
    CHECK(p.busbw_gbs / shm.busbw_gbs > 8 && p.busbw_gbs / shm.busbw_gbs < 20 && !strcmp(shm.link, "SHM"));
    /* NCCL_P2P_DISABLE alone leaves NVLS (NCCL's NVLS search follows the
     * GPU -> NVSwitch paths); the p2p-disabled fault (ACS/IOMMU) takes it. */
    mgpu_coll_tuning p2p_env = {-1, -1, 1, 0, 0};
    CHECK_OK(mgpu_coll_predict_tuned(dgx, MGPU_COLL_ALL_REDUCE, (size_t)256 << 20, 8, NULL, &p2p_env, &p));
    CHECK(p.algo == MGPU_ALGO_NVLS);
    mgpu_topo *nop2p_topo = NULL;
    CHECK_OK(mgpu_topo_preset("dgx-h100", &nop2p_topo));
    CHECK_OK(mgpu_topo_apply_faults(nop2p_topo, "p2p-disabled"));
    CHECK_OK(mgpu_coll_predict(nop2p_topo, MGPU_COLL_ALL_REDUCE, (size_t)256 << 20, 8, NULL, &p));
    CHECK(p.algo == MGPU_ALGO_RING && !strcmp(p.link, "SHM"));
    mgpu_topo_free(nop2p_topo);
    CHECK_OK(mgpu_coll_predict_tuned(two, MGPU_COLL_ALL_REDUCE, (size_t)256 << 20, 16, NULL, &loc, &nogdr));
    printf("# no GDR: busbw %.1f vs %.1f GB/s\n", nogdr.busbw_gbs, two_p.busbw_gbs);
    CHECK(nogdr.busbw_gbs < two_p.busbw_gbs && nogdr.busbw_gbs > 0.3 * two_p.busbw_gbs);
    mgpu_topo *nogdr_topo = NULL;
    CHECK_OK(mgpu_topo_preset("2x-dgx-h100", &nogdr_topo));
    CHECK_OK(mgpu_topo_apply_faults(nogdr_topo, "no-gdr"));
    CHECK_OK(mgpu_coll_predict(nogdr_topo, MGPU_COLL_ALL_REDUCE, (size_t)256 << 20, 16, NULL, &p));
    CHECKF(fabs(p.busbw_gbs - nogdr.busbw_gbs) < 1e-9, "no-gdr fault %.1f vs NCCL_NET_GDR_LEVEL=LOC %.1f", p.busbw_gbs,
           nogdr.busbw_gbs);
    mgpu_topo_free(nogdr_topo);
    CHECK_OK(mgpu_coll_predict_tuned(two, MGPU_COLL_ALL_REDUCE, (size_t)256 << 20, 16, NULL, &sharp, &coll));
    printf("# SHARP what-if: %s busbw %.1f vs ring %.1f GB/s\n", coll.algo_name, coll.busbw_gbs, two_p.busbw_gbs);
    CHECK(coll.algo == MGPU_ALGO_NVLS && coll.busbw_gbs > two_p.busbw_gbs); /* NVLS + IB SHARP */
    sharp.nvls = -1;
    CHECK_OK(mgpu_coll_predict_tuned(two, MGPU_COLL_ALL_REDUCE, (size_t)256 << 20, 16, NULL, &sharp, &coll));
    CHECK(coll.algo == MGPU_ALGO_COLLNET);
    sharp.nvls = 0;
    CHECK_OK(mgpu_coll_predict_tuned(dgx, MGPU_COLL_ALL_REDUCE, (size_t)256 << 20, 8, NULL, &sharp, &coll));
    CHECK(coll.algo != MGPU_ALGO_COLLNET); /* one node: nothing to reduce in the network */
    CHECK(mgpu_coll_channels(dgx, 8, NULL, NULL) == 16 && mgpu_coll_channels(pcie, 4, NULL, NULL) == 2);
    setenv("NCCL_NET_GDR_LEVEL", "LOC", 1);
    setenv("NCCL_P2P_DISABLE", "1", 1);
    CHECK_OK(mgpu_coll_tuning_from_env(&tun));
    CHECK(tun.gdr_max_path == -1 && tun.p2p_disable == 1 && tun.collnet == 0);
    setenv("NCCL_NET_GDR_LEVEL", "2", 1);
    CHECK_OK(mgpu_coll_tuning_from_env(&tun));
    CHECK(tun.gdr_max_path == MGPU_PATH_PXB);
    setenv("NCCL_NET_GDR_LEVEL", "nowhere", 1);
    CHECK(mgpu_coll_tuning_from_env(&tun) == MGPU_ERR_INVALID);
    unsetenv("NCCL_NET_GDR_LEVEL");
    unsetenv("NCCL_P2P_DISABLE");

    /* Bad input. */
    CHECK(mgpu_coll_predict(dgx, MGPU_COLL_ALL_REDUCE, 8, 0, NULL, &p) == MGPU_ERR_INVALID);
    int badmap[2] = {0, 99};
    CHECK(mgpu_coll_predict(dgx, MGPU_COLL_ALL_REDUCE, 8, 2, badmap, &p) == MGPU_ERR_INVALID);

    /* 4096 ranks: pure arithmetic. Its cost in the thread's CPU time, not
     * wall time, which a busy machine stretches by whole time slices. */
    struct timespec c0, c1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    CHECK_OK(mgpu_coll_predict(two, MGPU_COLL_ALL_REDUCE, (size_t)1 << 30, 4096, NULL, &p));
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    double ms = ((double)(c1.tv_sec - c0.tv_sec) * 1e9 + (double)(c1.tv_nsec - c0.tv_nsec)) / 1e6;
    printf("# 4096 ranks (%d nodes): %.1f us, busbw %.1f GB/s, predicted in %.3f ms\n", p.nnodes, p.time_us,
           p.busbw_gbs, ms);
    CHECK(p.nnodes == 512);
    CHECKF(ms < 100.0, "prediction for 4096 ranks took %.1f ms", ms);

    mgpu_topo_free(dgx);
    mgpu_topo_free(two);
    mgpu_topo_free(pcie);
    return tap_done();
}
