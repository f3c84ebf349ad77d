/* test_comm_args.c - names and parsing of collectives and reduction ops,
 * the fingerprint encoding and comparison, and the argument checks every
 * collective passes before a backend sees it (on a one-rank sim comm). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "comm/comm_core.h"
#include "mgpu/comm.h"
#include "tap.h"

static mgpu_result solo_allgather(void *ctx, const void *mine, void *all, size_t len)
{
    (void)ctx;
    memcpy(all, mine, len);
    return MGPU_OK;
}

static void names(void)
{
    const char *ours[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall",
                          "send", "recv", "barrier"};
    for (int i = 0; i < MGPU_COLL_COUNT; i++) {
        CHECK(strcmp(mgpu_coll_name((mgpu_coll)i), ours[i]) == 0);
        CHECK(mgpu_coll_parse(ours[i]) == i);
    }
    CHECK(mgpu_coll_parse("allreduce") == MGPU_COLL_ALL_REDUCE);
    CHECK(mgpu_coll_parse("all_reduce_perf") == MGPU_COLL_ALL_REDUCE);
    CHECK(mgpu_coll_parse("AllGather") == MGPU_COLL_ALL_GATHER);
    CHECK(mgpu_coll_parse("reduce-scatter") == MGPU_COLL_REDUCE_SCATTER);
    CHECK(mgpu_coll_parse("reducescatter") == MGPU_COLL_REDUCE_SCATTER);
    CHECK(mgpu_coll_parse("alltoall_perf") == MGPU_COLL_ALLTOALL);
    CHECK(mgpu_coll_parse("bcast") == MGPU_COLL_BROADCAST);
    CHECK(mgpu_coll_parse("sendrecv") == -1); /* a bench, not one comm op */
    CHECK(mgpu_coll_parse("") == -1 && mgpu_coll_parse(NULL) == -1 && mgpu_coll_parse("gather") == -1);
    CHECK(mgpu_coll_parse("all_reduce_all_reduce_all_reduce_all_reduce") == -1);
    CHECK(strcmp(mgpu_coll_name((mgpu_coll)99), "unknown") == 0);
    const char *ops[] = {"sum", "prod", "max", "min", "avg"};
    for (int i = 0; i < MGPU_REDOP_COUNT; i++) {
        CHECK(strcmp(mgpu_redop_name((mgpu_redop)i), ops[i]) == 0);
        CHECK(mgpu_redop_parse(ops[i]) == i);
    }
    CHECK(mgpu_redop_parse("SUM") == MGPU_SUM && mgpu_redop_parse("mean") == MGPU_AVG);
    CHECK(mgpu_redop_parse("xor") == -1 && mgpu_redop_parse(NULL) == -1);
}

static void fingerprints(void)
{
    mgpu_fingerprint a = {7, 1048576, 42, MGPU_COLL_ALL_REDUCE, MGPU_F32, MGPU_SUM, -1}, b;
    unsigned char bytes[MGPU_FP_BYTES];
    mgpu_fingerprint_encode(&a, bytes);
    CHECK(mgpu_fingerprint_decode(bytes, &b) && memcmp(&a, &b, sizeof a) == 0);
    memset(bytes, 0, sizeof bytes);
    CHECK(!mgpu_fingerprint_decode(bytes, &b));

    mgpu_fingerprint all[4] = {a, a, a, {7, 524288, 42, MGPU_COLL_BROADCAST, MGPU_F32, 0, 0}};
    char msg[512];
    CHECK(mgpu_fingerprint_compare(all, 4, "world", msg, sizeof msg) == 1);
    printf("  %s\n", msg);
    CHECKF(strcmp(msg, "collective fingerprint mismatch at #7 on comm world: rank 3 called broadcast(524288 f32, "
                       "root 0) but rank 0 called all_reduce(1048576 f32, sum)") == 0, "got: %s", msg);
    /* The odd one out is named even when it is rank 0. */
    mgpu_fingerprint odd[3] = {{7, 8, 42, MGPU_COLL_ALL_REDUCE, MGPU_F32, MGPU_MAX, -1}, a, a};
    CHECK(mgpu_fingerprint_compare(odd, 3, "world", msg, sizeof msg) == 1);
    CHECKF(strstr(msg, "rank 0 called all_reduce(8 f32, max) but rank 1 called all_reduce(1048576 f32, sum)"),
           "got: %s", msg);
    /* A skipped collective shows as a different sequence number. */
    mgpu_fingerprint skip[2] = {a, a};
    skip[1].seq = 8;
    CHECK(mgpu_fingerprint_compare(skip, 2, "tp0", msg, sizeof msg) == 1);
    CHECKF(strstr(msg, "as its #8") && strstr(msg, "on comm tp0"), "got: %s", msg);
    CHECK(mgpu_fingerprint_compare(all, 3, "world", msg, sizeof msg) == 0 && msg[0] == '\0');
}

static void checks(void)
{
    mgpu_backend_config bc = {MGPU_BACKEND_SIM, "dgx-h100", NULL};
    mgpu_backend *be = NULL;
    CHECK_OK(mgpu_backend_open(&bc, &be));
    if (!be) return;
    mgpu_bootstrap bs = {NULL, 0, 1, solo_allgather};
    mgpu_comm *c = NULL;
    mgpu_comm_config cfg = {0, 1, 5, 0, 8, "solo"};

    /* Creation refuses what it cannot use. */
    CHECK(mgpu_comm_init(be, &bs, &cfg, NULL) == MGPU_ERR_INVALID);
    CHECK(mgpu_comm_init(NULL, &bs, &cfg, &c) == MGPU_ERR_INVALID);
    mgpu_bootstrap badbs = {NULL, 1, 1, solo_allgather};
    CHECK(mgpu_comm_init(be, &badbs, &cfg, &c) == MGPU_ERR_INVALID && !c);
    mgpu_comm_config badcfg = cfg;
    badcfg.device = 99;
    CHECK(mgpu_comm_init(be, &bs, &badcfg, &c) == MGPU_ERR_INVALID);
    printf("  %s\n", mgpu_error_message());
    setenv("MGPU_COMM_TIMEOUT", "soon", 1);
    CHECK(mgpu_comm_init(be, &bs, &cfg, &c) == MGPU_ERR_INVALID);
    printf("  %s\n", mgpu_error_message());
    unsetenv("MGPU_COMM_TIMEOUT");

    CHECK_OK(mgpu_comm_init(be, &bs, &cfg, &c));
    if (!c) return;
    CHECK(mgpu_comm_rank(c) == 0 && mgpu_comm_size(c) == 1 && mgpu_comm_device(c) == 0);
    CHECK(strcmp(mgpu_comm_name(c), "solo") == 0 && strcmp(mgpu_comm_backend_name(c), "sim") == 0);
    CHECK(mgpu_comm_stream(c) != NULL);
    CHECK_OK(mgpu_comm_async_error(c));

    mgpu_buffer *a = NULL, *b = NULL, *host = NULL, *other = NULL;
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 0, 1024, &a));
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 0, 1024, &b));
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_PINNED, -1, 1024, &host));
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 1, 1024, &other));

    /* Good calls, in place too. */
    CHECK_OK(mgpu_all_reduce(c, a, 0, b, 0, 256, MGPU_F32, MGPU_SUM, NULL));
    CHECK_OK(mgpu_all_reduce(c, a, 0, a, 0, 256, MGPU_F32, MGPU_AVG, NULL));
    CHECK_OK(mgpu_all_gather(c, a, 0, b, 0, 256, MGPU_F32, NULL));
    CHECK_OK(mgpu_reduce_scatter(c, a, 0, b, 0, 512, MGPU_BF16, MGPU_MAX, NULL));
    CHECK_OK(mgpu_broadcast(c, a, 0, b, 0, 256, MGPU_I32, 0, NULL));
    CHECK_OK(mgpu_reduce(c, a, 0, b, 0, 256, MGPU_F16, MGPU_MIN, 0, NULL));
    CHECK_OK(mgpu_alltoall(c, a, 0, b, 0, 256, MGPU_F32, NULL));
    CHECK_OK(mgpu_all_reduce(c, NULL, 0, NULL, 0, 0, MGPU_F32, MGPU_SUM, NULL)); /* count 0 */
    CHECK_OK(mgpu_barrier(c, NULL));

    /* Each refusal says why and reaches no backend. */
    struct { const char *what; mgpu_result r; } bad[] = {
        {"range", mgpu_all_reduce(c, a, 0, b, 0, 257, MGPU_F32, MGPU_SUM, NULL)},
        {"offset", mgpu_all_reduce(c, a, 1020, b, 0, 2, MGPU_F32, MGPU_SUM, NULL)},
        {"dtype", mgpu_all_reduce(c, a, 0, b, 0, 4, (mgpu_dtype)9, MGPU_SUM, NULL)},
        {"redop", mgpu_all_reduce(c, a, 0, b, 0, 4, MGPU_F32, (mgpu_redop)7, NULL)},
        {"root", mgpu_broadcast(c, a, 0, b, 0, 4, MGPU_F32, 1, NULL)},
        {"root<0", mgpu_reduce(c, a, 0, b, 0, 4, MGPU_F32, MGPU_SUM, -1, NULL)},
        {"peer", mgpu_send(c, a, 0, 4, MGPU_F32, 3, NULL)},
        {"null", mgpu_all_gather(c, NULL, 0, b, 0, 4, MGPU_F32, NULL)},
        {"host", mgpu_all_reduce(c, host, 0, b, 0, 4, MGPU_F32, MGPU_SUM, NULL)},
        {"device", mgpu_all_reduce(c, a, 0, other, 0, 4, MGPU_F32, MGPU_SUM, NULL)},
        {"overflow", mgpu_alltoall(c, a, 0, b, 0, SIZE_MAX / 2, MGPU_F32, NULL)},
        {"comm", mgpu_all_reduce(NULL, a, 0, b, 0, 4, MGPU_F32, MGPU_SUM, NULL)},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECKF(bad[i].r == MGPU_ERR_INVALID, "%s: %d", bad[i].what, (int)bad[i].r);
    }
    CHECK(mgpu_all_reduce(c, a, 0, b, 0, 257, MGPU_F32, MGPU_SUM, NULL) == MGPU_ERR_INVALID);
    printf("  %s\n", mgpu_error_message());
    CHECK(strstr(mgpu_error_message(), "1028 bytes") != NULL);
    CHECK(mgpu_all_reduce(c, a, 0, other, 0, 4, MGPU_F32, MGPU_SUM, NULL) == MGPU_ERR_INVALID);
    printf("  %s\n", mgpu_error_message());
    /* A stream on another device is refused too. */
    mgpu_stream *s1 = NULL;
    CHECK_OK(mgpu_stream_create(be, 1, 0, &s1));
    CHECK(mgpu_all_reduce(c, a, 0, b, 0, 4, MGPU_F32, MGPU_SUM, s1) == MGPU_ERR_INVALID);
    mgpu_stream_destroy(s1);

    /* The recorder saw every launched call (refused ones never got a seq):
     * 9 collectives, the last a barrier. */
    mgpu_flight_entry es[16];
    int n = mgpu_comm_flight_entries(c, es, 16);
    CHECKF(n == 8, "%d entries (ring of 8)", n); /* flight_entries = 8 */
    CHECK(es[n - 1].seq == 9 && es[n - 1].op == MGPU_COLL_BARRIER && es[n - 1].state == MGPU_FLIGHT_COMPLETED);
    CHECK(es[0].seq == 2 && es[0].op == MGPU_COLL_ALL_REDUCE && es[0].redop == MGPU_AVG);
    char *dump = mgpu_comm_flight_dump_json(c);
    CHECK(dump && strstr(dump, "\"comm\":\"solo\"") && strstr(dump, "\"backend\":\"sim\""));
    free(dump);
    char *all = mgpu_comm_flight_dump_all_json();
    CHECK(all && all[0] == '[' && strstr(all, "\"comm\":\"solo\""));
    free(all);

    /* Groups: unbalanced end is refused; nested groups are fine. */
    CHECK(mgpu_group_end() == MGPU_ERR_INVALID);
    CHECK_OK(mgpu_group_start());
    CHECK_OK(mgpu_group_start());
    CHECK_OK(mgpu_send(c, a, 0, 16, MGPU_F32, 0, NULL));
    CHECK_OK(mgpu_recv(c, b, 0, 16, MGPU_F32, 0, NULL));
    CHECK_OK(mgpu_group_end());
    CHECK_OK(mgpu_group_end());
    n = mgpu_comm_flight_entries(c, es, 16);
    CHECK(es[n - 1].op == MGPU_COLL_RECV && es[n - 1].seq == 2 && es[n - 1].state == MGPU_FLIGHT_COMPLETED);

    /* Split of one rank: same size, own name; no color: no comm. */
    mgpu_comm *sub = NULL;
    CHECK_OK(mgpu_comm_split(c, 3, 0, NULL, &sub));
    CHECK(sub && mgpu_comm_size(sub) == 1 && strcmp(mgpu_comm_name(sub), "solo/3") == 0);
    if (sub) CHECK_OK(mgpu_all_reduce(sub, a, 0, b, 0, 4, MGPU_F32, MGPU_SUM, NULL));
    CHECK_OK(mgpu_comm_destroy(sub));
    CHECK(mgpu_comm_split(c, -5, 0, NULL, &sub) == MGPU_ERR_INVALID);

    /* Abort all: the comm refuses further work with the reason. */
    mgpu_comm_abort_all();
    CHECK(mgpu_all_reduce(c, a, 0, b, 0, 4, MGPU_F32, MGPU_SUM, NULL) != MGPU_OK);
    printf("  %s\n", mgpu_error_message());
    CHECK(strstr(mgpu_error_message(), "aborted") != NULL);
    CHECK(mgpu_comm_async_error(c) != MGPU_OK);
    CHECK_OK(mgpu_comm_destroy(c));
    CHECK_OK(mgpu_comm_destroy(NULL));

    mgpu_mem_free(a);
    mgpu_mem_free(b);
    mgpu_mem_free(host);
    mgpu_mem_free(other);
    mgpu_backend_close(be);
}

int main(void)
{
    names();
    fingerprints();
    checks();
    return tap_done();
}
