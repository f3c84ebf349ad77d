/* test_nccl_log.c - the NCCL INFO parser on lines as NCCL 2.2x prints
 * them: an NVLink machine (P2P/CUMEM, NVLS), emulated nodes over sockets,
 * two IB nodes with and without GPUDirect RDMA, and older 2.4-2.18 forms. */
#include <string.h>
#include "mgpu/nccl_log.h"
#include "tap.h"

static void feed_all(mgpu_nccl_summary *s, const char *const *lines)
{
    for (int i = 0; lines[i]; i++) mgpu_nccl_summary_feed(s, lines[i]);
}

static const mgpu_nccl_link *find_link(const mgpu_nccl_summary *s, int from, int to)
{
    for (int i = 0; i < s->nlinks; i++)
        if (s->links[i].from == from && s->links[i].to == to) return &s->links[i];
    return NULL;
}

static void test_nvlink_machine(void)
{
    static const char *const lines[] = {
        "dgx01:12345:12345 [0] NCCL INFO Bootstrap : Using eth0:10.1.0.11<0>",
        "dgx01:12345:12345 [0] NCCL INFO NCCL version 2.21.5+cuda12.4",
        "dgx01:12345:12400 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB eth0:10.1.0.11<0>",
        "dgx01:12345:12400 [0] NCCL INFO Using network IB",
        "dgx01:12345:12400 [0] NCCL INFO comm 0x55d0c0a0e0 rank 0 nRanks 8 nNodes 1 localRanks 8 localRank 0 MNNVL 0",
        "dgx01:12345:12400 [0] NCCL INFO Channel 00/24 :    0   1   2   3   4   5   6   7",
        "dgx01:12345:12400 [0] NCCL INFO Channel 01/24 :    0   7   6   5   4   3   2   1",
        "dgx01:12345:12400 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1 [1] 1/-1/-1->0->-1",
        "dgx01:12346:12401 [1] NCCL INFO Trees [0] 2/-1/-1->1->0 [1] 2/-1/-1->1->0",
        "dgx01:12345:12400 [0] NCCL INFO P2P Chunksize set to 524288",
        "dgx01:12345:12402 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read",
        "dgx01:12345:12402 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/CUMEM/read",
        "dgx01:12346:12403 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via P2P/CUMEM/read",
        "dgx01:12345:12400 [0] NCCL INFO 24 coll channels, 24 collnet channels, 16 nvls channels, 32 p2p channels, 32 p2p channels per peer",
        "dgx01:12345:12345 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x7f1e40000000 recvbuff 0x7f1e40000000 count 1024 datatype 7 op 0 root 0 comm 0x55d0c0a0e0 [nranks=8] stream 0x55d0b0c0",
        "dgx01:12345:12345 [0] NCCL INFO AllReduce: 4096 Bytes -> Algo NVLS proto SIMPLE channel{Lo..Hi}={0..15}",
        "dgx01:12345:12345 [0] NCCL INFO AllReduce: opCount 1 sendbuff 0x7f1e40000000 recvbuff 0x7f1e40000000 count 67108864 datatype 7 op 0 root 0 comm 0x55d0c0a0e0 [nranks=8] stream 0x55d0b0c0",
        "dgx01:12345:12345 [0] NCCL INFO AllReduce: 268435456 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..23}",
        "dgx01:12345:12345 [0] NCCL INFO AllReduce: 4096 Bytes -> Algo NVLS proto LL128 channel{Lo..Hi}={0..15}",
        NULL,
    };
    mgpu_nccl_summary s;
    mgpu_nccl_summary_init(&s);
    feed_all(&s, lines);
    CHECKF(!strcmp(s.version, "2.21.5+cuda12.4"), "version '%s'", s.version);
    CHECKF(!strcmp(s.network, "IB"), "network '%s'", s.network);
    CHECK(s.nranks == 8 && s.nnodes == 1);
    CHECKF(s.nchannels == 24, "channels %d", s.nchannels);
    CHECK(s.nrings == 2);
    CHECK(s.rings[0].channel == 0 && s.rings[0].nranks == 8 && s.rings[0].order[7] == 7);
    CHECK(s.rings[1].channel == 1 && s.rings[1].order[1] == 7 && s.rings[1].order[7] == 1);
    CHECK(s.ntree_channels == 2);
    CHECK(s.tree_up[0][0] == -1 && s.tree_up[0][1] == 0 && s.tree_up[1][1] == 0 && s.tree_up[0][2] == -2);
    CHECK(s.coll_channels == 24 && s.collnet_channels == 24 && s.nvls_channels == 16 && s.p2p_channels == 32);
    const mgpu_nccl_link *l = find_link(&s, 0, 1);
    CHECK(l && !strcmp(l->transport, "P2P/CUMEM") && !strcmp(l->detail, "P2P/CUMEM/read") && l->gdr == -1);
    CHECK(l && mgpu_nccl_link_channel_count(l) == 2);
    CHECK(s.nlinks == 2 && s.gdr == -1);
    const char *names[4];
    int counts[4];
    CHECK(mgpu_nccl_summary_transports(&s, names, counts, 4) == 1 && counts[0] == 2);
    /* the same size printed twice keeps one entry, the newest choice */
    CHECKF(s.ntuning == 2, "tuning %d", s.ntuning);
    CHECK(!strcmp(s.tuning[0].coll, "AllReduce") && s.tuning[0].bytes == 4096 && !strcmp(s.tuning[0].algo, "NVLS") &&
          !strcmp(s.tuning[0].proto, "LL128"));
    CHECK(s.tuning[1].bytes == 268435456 && !strcmp(s.tuning[1].algo, "RING") && !strcmp(s.tuning[1].proto, "SIMPLE") &&
          s.tuning[1].ch_lo == 0 && s.tuning[1].ch_hi == 23);
    CHECK(s.ncolls == 1 && !strcmp(s.colls[0].name, "AllReduce") && s.colls[0].calls == 2 &&
          s.colls[0].last_count == 67108864 && s.colls[0].last_datatype == 7);
    CHECK(s.nccl_lines == 19 && s.nwarn == 0);
}

/* Four ranks on one GPU with distinct NCCL_HOSTID: NCCL sees four nodes and
 * connects them with its socket transport (SPEC 1, emulated nodes). */
static void test_emulated_nodes_socket(void)
{
    static const char *const lines[] = {
        "h200-01:2001:2001 [0] NCCL INFO NCCL version 2.23.4+cuda12.6",
        "h200-01:2001:2050 [0] NCCL INFO NET/Socket : Using [0]eth0:172.17.0.2<0>",
        "h200-01:2001:2050 [0] NCCL INFO Using network Socket",
        "h200-01:2001:2050 [0] NCCL INFO comm 0x5600a0 rank 0 nRanks 4 nNodes 4 localRanks 1 localRank 0 MNNVL 0",
        "h200-01:2001:2050 [0] NCCL INFO Channel 00/02 :    0   1   2   3",
        "h200-01:2001:2050 [0] NCCL INFO Channel 01/02 :    0   1   2   3",
        "h200-01:2001:2050 [0] NCCL INFO Trees [0] 2/-1/-1->0->-1 [1] -1/-1/-1->0->1",
        "h200-01:2003:2053 [0] NCCL INFO Trees [0] 3/-1/-1->2->0 [1] 3/-1/-1->2->-1",
        "h200-01:2001:2052 [0] NCCL INFO Channel 00/0 : 3[0] -> 0[0] [receive] via NET/Socket/0",
        "h200-01:2001:2052 [0] NCCL INFO Channel 01/0 : 3[0] -> 0[0] [receive] via NET/Socket/0",
        "h200-01:2001:2052 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0",
        "h200-01:2002:2054 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [receive] via NET/Socket/0",
        "h200-01:2001:2050 [0] NCCL INFO 2 coll channels, 2 collnet channels, 0 nvls channels, 2 p2p channels, 2 p2p channels per peer",
        "h200-01:2001:2001 [0] NCCL INFO AllReduce: 1048576 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..1}",
        "all_reduce(sum) of 1048576 floats: element 0 = 10, expected 10, 0 wrong",
        NULL,
    };
    mgpu_nccl_summary s;
    mgpu_nccl_summary_init(&s);
    feed_all(&s, lines);
    CHECK(!strcmp(s.version, "2.23.4+cuda12.6"));
    CHECK(!strcmp(s.network, "Socket"));
    CHECK(s.nranks == 4 && s.nnodes == 4 && s.nchannels == 2);
    CHECK(s.tree_up[0][2] == 0 && s.tree_up[1][2] == -1 && s.tree_up[1][0] == 1);
    const mgpu_nccl_link *l = find_link(&s, 3, 0);
    CHECK(l && !strcmp(l->transport, "NET/Socket") && l->gdr == 0 && mgpu_nccl_link_channel_count(l) == 2);
    /* the [send] and [receive] sides of one connection are one link */
    CHECK(s.nlinks == 2);
    CHECK(s.gdr == 0);
    CHECK(s.coll_channels == 2 && s.nvls_channels == 0);
    CHECK(s.lines == 15 && s.nccl_lines == 14);
}

static void test_ib_nodes_gdr(void)
{
    static const char *const lines[] = {
        "node1:27223:27908 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via P2P/CUMEM",
        "node1:27224:27909 [3] NCCL INFO Channel 00 : 3[3] -> 2[2] via SHM/direct/direct",
        "node2:25146:25827 [0] NCCL INFO Channel 00/0 : 3[3] -> 4[0] [receive] via NET/IBext_v8/0/GDRDMA",
        "node1:27226:27910 [3] NCCL INFO Channel 00/0 : 3[3] -> 4[0] [send] via NET/IBext_v8/0/GDRDMA",
        NULL,
    };
    mgpu_nccl_summary s;
    mgpu_nccl_summary_init(&s);
    feed_all(&s, lines);
    CHECK(s.nlinks == 3);
    const mgpu_nccl_link *l = find_link(&s, 3, 4);
    CHECK(l && !strcmp(l->transport, "NET/IB") && l->gdr == 1 && !strcmp(l->detail, "NET/IBext_v8/0/GDRDMA"));
    CHECK(s.gdr == 1);
    l = find_link(&s, 3, 2);
    CHECK(l && !strcmp(l->transport, "SHM"));
    /* one link without GDRDMA turns the summary to "off" */
    mgpu_nccl_summary_feed(&s, "node2:25146:25827 [0] NCCL INFO Channel 01/0 : 7[3] -> 0[0] [receive] via NET/IB/1");
    CHECK(s.gdr == 0);
    CHECK(find_link(&s, 7, 0) && find_link(&s, 7, 0)->gdr == 0);
    mgpu_nccl_summary_feed(&s, "node2:25146:25827 [0] NCCL WARN NET/IB : Got async event : port error");
    CHECK(s.nwarn == 1 && strstr(s.last_warn, "port error"));
    /* PXN (lab 7 step 2's table): NIC 3, driven by rank 7's proxy - the data
     * crossed NVLink to the GPU beside that NIC first (net.cc: via
     * NET/%s/%d(%d), the proxy rank in parentheses) */
    mgpu_nccl_summary_feed(&s, "node1:27226:27910 [3] NCCL INFO Channel 02/0 : 3[3] -> 12[4] [send] via NET/IB/3(7)/GDRDMA");
    l = find_link(&s, 3, 12);
    CHECK(l && !strcmp(l->transport, "NET/IB") && l->gdr == 1 && !strcmp(l->detail, "NET/IB/3(7)/GDRDMA"));
}

/* NCCL before 2.19: per-rank ring neighbours, numeric algorithm/protocol,
 * 2.4's parent->rank->children trees, mpirun's output prefix. */
static void test_older_formats(void)
{
    static const char *const lines[] = {
        "[1,0]<stdout>:host:100:200 [0] NCCL INFO Ring 00 : 3 -> 0 -> 1",
        "[1,1]<stdout>:host:101:201 [1] NCCL INFO Ring 00 : 0 -> 1 -> 2",
        "[1,2]<stdout>:host:102:202 [2] NCCL INFO Ring 00 : 1 -> 2 -> 3",
        "[1,3]<stdout>:host:103:203 [3] NCCL INFO Ring 00 : 2 -> 3 -> 0",
        "ip-172-31-4-37:45379:45384 [0] NCCL INFO Trees [0] 34->33->-1/-1/-1",
        "ip-172-31-11-92:45293:45298 [0] NCCL INFO Ring 00 : 34 -> 33 [send] via NET/Socket/0",
        "h:1:1 [0] NCCL INFO Broadcast: opCount 5 sendbuff 0x1 recvbuff 0x1 count 4096 datatype 0 op 0 root 0 comm 0x2 [nranks=4] stream 0x3",
        "h:1:1 [0] NCCL INFO 65536 Bytes -> Algo 1 proto 2 time 37.798233",
        NULL,
    };
    mgpu_nccl_summary s;
    mgpu_nccl_summary_init(&s);
    feed_all(&s, lines);
    CHECK(s.nrings == 1 && s.rings[0].nranks == 4);
    CHECK(s.rings[0].order[0] == 0 && s.rings[0].order[1] == 1 && s.rings[0].order[3] == 3);
    CHECK(s.tree_up[0][33] == 34);
    CHECK(find_link(&s, 34, 33) && !strcmp(find_link(&s, 34, 33)->transport, "NET/Socket"));
    CHECK(s.ntuning == 1 && !strcmp(s.tuning[0].coll, "Broadcast") && !strcmp(s.tuning[0].algo, "RING") &&
          !strcmp(s.tuning[0].proto, "SIMPLE") && s.tuning[0].bytes == 65536 && s.tuning[0].ch_lo == -1);
}

static void test_not_nccl(void)
{
    mgpu_nccl_summary s;
    mgpu_nccl_summary_init(&s);
    CHECK(mgpu_nccl_summary_feed(&s, "loss 0.25 at step 10") == 0);
    CHECK(mgpu_nccl_summary_feed(&s, "") == 0);
    CHECK(mgpu_nccl_summary_feed(&s, "h:1:1 [0] NCCL INFO Channel") == 0);
    CHECK(mgpu_nccl_summary_feed(&s, "h:1:1 [0] NCCL INFO Channel 99999999999999999999/ : x") == 0);
    CHECK(mgpu_nccl_summary_feed(&s, "h:1:1 [0] NCCL INFO Trees [") == 0);
    CHECK(mgpu_nccl_summary_feed(&s, "h:1:1 [0] NCCL INFO Trees [0] 1/-1/-1->999->0") == 0);
    CHECK(mgpu_nccl_summary_feed(&s, "h:1:1 [0] NCCL INFO Channel 70/0 : 0[0] -> 1[1] via P2P/IPC") == 1);
    CHECK(s.nlinks == 1 && s.links[0].channels == 0 && !strcmp(s.links[0].transport, "P2P/IPC"));
    CHECK(s.version[0] == 0 && s.nrings == 0 && s.ntuning == 0);
    /* a long ring is cut at MGPU_NCCL_LOG_MAX_RANKS, not overflowed */
    char line[2048];
    int n = snprintf(line, sizeof line, "h:1:1 [0] NCCL INFO Channel 00/01 :");
    for (int r = 0; r < 100; r++) n += snprintf(line + n, sizeof line - (size_t)n, " %d", r);
    CHECK(mgpu_nccl_summary_feed(&s, line) == 1);
    CHECK(s.nrings == 1 && s.rings[0].nranks == MGPU_NCCL_LOG_MAX_RANKS && s.rings[0].order[63] == 63);
}

/* The sim communicator's lines (marked SIMULATED) and the JSON labs read. */
static void test_simulated_json(void)
{
    static const char *const lines[] = {
        "SIMULATED-node0:77:77 [0] NCCL INFO NCCL version SIMULATED (mgpulab's sim communicator: rings, trees and "
        "transports are the model's, not NCCL's)",
        "SIMULATED-node0:77:77 [0] NCCL INFO comm 0x1 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0",
        "SIMULATED-node0:77:77 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read",
        "SIMULATED-node0:78:78 [7] NCCL INFO Channel 00/0 : 7[7] -> 8[0] [send] via NET/IB/7",
        "SIMULATED-node0:77:77 [0] NCCL INFO AllReduce: 1048576 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..15}",
        NULL,
    };
    mgpu_nccl_summary s;
    mgpu_nccl_summary_init(&s);
    feed_all(&s, lines);
    CHECK(s.simulated == 1 && !strcmp(s.version, "SIMULATED") && s.nnodes == 2 && s.gdr == 0);
    json_t *j = mgpu_nccl_summary_json(&s);
    CHECK(j != NULL);
    if (!j) return;
    CHECK(json_is_true(json_object_get(j, "simulated")) && json_is_false(json_object_get(j, "gdr")));
    CHECK(json_integer_value(json_object_get(json_object_get(j, "transports"), "NET/IB")) == 1);
    json_t *links = json_object_get(j, "links");
    CHECK(json_array_size(links) == 2);
    json_t *net = json_array_get(links, 1);
    CHECK(json_integer_value(json_object_get(net, "from")) == 7 && json_is_false(json_object_get(net, "gdr")) &&
          !strcmp(json_string_value(json_object_get(net, "detail")), "NET/IB/7"));
    CHECK(json_is_null(json_object_get(json_array_get(links, 0), "gdr")));
    json_t *t = json_array_get(json_object_get(j, "tuning"), 0);
    CHECK(t && !strcmp(json_string_value(json_object_get(t, "algo")), "RING") &&
          json_integer_value(json_object_get(t, "bytes")) == 1048576);
    json_decref(j);
    mgpu_nccl_summary real;
    mgpu_nccl_summary_init(&real);
    mgpu_nccl_summary_feed(&real, "dgx01:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4");
    CHECK(real.simulated == 0);
}

int main(void)
{
    test_simulated_json();
    test_nvlink_machine();
    test_emulated_nodes_socket();
    test_ib_nodes_gdr();
    test_older_formats();
    test_not_nccl();
    return tap_done();
}
