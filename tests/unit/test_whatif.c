/* test_whatif.c - the what-if planner (engine/whatif): the 1F1B schedule's
 * time and bubble against the closed forms, the sim's send/recv timing in
 * it, the parameter count of Llama-2-70B from its shapes, each axis's
 * bytes, calls and links, memory per GPU, errors that name the option,
 * and the spread collective pricing against a real placement. */
#include <math.h>
#include <string.h>
#include "mgpu/collmodel.h"
#include "mgpu/whatif.h"
#include "tap.h"
#include "whatif/whatif_internal.h"

#define NEAR(a, b) (fabs((a) - (b)) <= 1e-9 * (fabs(b) + 1))

static void schedule(void)
{
    whatif_mem mem = {.limit = (size_t)1 << 20};
    /* Uniform stages, free transfers: (m + pp - 1)(F + B), idle (pp-1)/(m+pp-1). */
    const int cases[][2] = {{4, 8}, {4, 2}, {1, 5}, {8, 64}, {3, 3}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int pp = cases[c][0], m = cases[c][1];
        double fwd[8], bwd[8], end[8], busy[8];
        for (int s = 0; s < pp; s++) fwd[s] = 1.0, bwd[s] = 2.0;
        CHECK_OK(whatif_1f1b(pp, m, fwd, bwd, 0.0, end, busy, &mem));
        double t = 0;
        for (int s = 0; s < pp; s++) t = end[s] > t ? end[s] : t;
        CHECKF(NEAR(t, (m + pp - 1) * 3.0), "pp %d m %d: %.3f, want %.3f", pp, m, t, (m + pp - 1) * 3.0);
        for (int s = 0; s < pp; s++) {
            CHECK(NEAR(busy[s], m * 3.0));
            double idle = 1 - busy[s] / t;
            CHECKF(NEAR(idle, (double)(pp - 1) / (m + pp - 1)), "stage %d idle %.4f", s, idle);
        }
    }
    /* Transfers as the sim times them: a send ends at its start + x, a
     * receive at max(its start, the sender's) + x. Two stages, one
     * micro-batch, F = B = 1, x = 0.5: stage 1 receives at 1.5, ends its
     * backward at 3.5 and sends; stage 0 receives at 4 and ends at 5. */
    double f[2] = {1, 1}, b[2] = {1, 1}, end[2], busy[2];
    CHECK_OK(whatif_1f1b(2, 1, f, b, 0.5, end, busy, &mem));
    CHECKF(NEAR(end[0], 5.0) && NEAR(end[1], 4.0), "ends %.2f %.2f", end[0], end[1]);
    CHECK(whatif_1f1b(0, 1, f, b, 0, end, busy, &mem) == MGPU_ERR_INVALID);
    CHECKF(mem.used == 0, "the schedule left %zu bytes counted", mem.used);
    /* memory never grows with the micro-batches (a stored programme of 10^7
     * took 2 GB, issue 34): 4 stages of 10^6 in a cap of 4 KiB */
    double f4[4] = {1, 1, 1, 1}, b4[4] = {2, 2, 2, 2}, end4[4], busy4[4];
    whatif_mem small = {.limit = 4096};
    CHECK_OK(whatif_1f1b(4, 1000000, f4, b4, 0.0, end4, busy4, &small));
    CHECKF(NEAR(end4[0], (1000000 + 3) * 3.0), "4 x 10^6: %.1f", end4[0]);
    /* and a cap too small is an error that says so */
    whatif_mem tiny = {.limit = 64, .what = "--mem-limit"};
    CHECK(whatif_1f1b(4, 8, f4, b4, 0.0, end4, busy4, &tiny) == MGPU_ERR_NOMEM);
    CHECKF(strstr(mgpu_error_message(), "--mem-limit") != NULL, "%s", mgpu_error_message());
}

static void llama70b(void)
{
    mgpu_whatif_config c;
    mgpu_whatif_defaults(&c);
    mgpu_whatif_result r;
    CHECK_OK(mgpu_whatif_run(&c, &r));
    printf("# 70B on 8x8x4: step %.1f ms, bubble %.3f (ideal %.3f), %.1f GiB on stage %d\n", r.step_ms, r.bubble,
           r.bubble_ideal, r.mem.total / (1 << 30), r.mem.stage);
    CHECKF(r.params == 68976648192.0, "params %.0f", r.params); /* Llama-2-70B: 68.98B */
    CHECK(r.world == 256 && r.nodes == 32 && r.gpus_per_node == 8);
    CHECK(r.micro_batches == 1024 / 8);
    CHECK(NEAR(r.bubble_ideal, 3.0 / (128 + 3)));
    /* the schedule's idle time: at least the ideal (p2p waits and the end stages' extra work add) */
    CHECKF(r.bubble >= r.bubble_ideal - 1e-9 && r.bubble < 2.5 * r.bubble_ideal, "bubble %.4f", r.bubble);
    CHECK(r.step_ms >= r.pipeline_ms + r.optimizer_ms);

    double T = 4096, h = 8192;
    const mgpu_whatif_traffic *tp = &r.traffic[MGPU_WHATIF_TP], *pp = &r.traffic[MGPU_WHATIF_PP],
                              *dp = &r.traffic[MGPU_WHATIF_DP];
    /* TP: [tokens, hidden] bf16 all-reduced, 2 per layer each way (+ the
     * embedding's on stage 0), 20 layers, 128 micro-batches, in the node */
    CHECK(!strcmp(tp->collective, "all_reduce") && tp->group == 8 && tp->nodes == 1);
    CHECK(NEAR(tp->bytes, 2 * T * h));
    CHECKF(tp->calls == (2 * 20 * 2 + 1) * 128L, "tp calls %ld", tp->calls);
    CHECK(!strcmp(tp->link, "NVLink"));
    /* PP: the activation and its gradient, up and down, across nodes (stages 64 ranks apart) */
    CHECK(!strcmp(pp->collective, "send/recv") && pp->nodes == 2 && !strcmp(pp->link, "InfiniBand"));
    CHECK(NEAR(pp->bytes, 2 * T * h) && pp->calls == 4 * 128L);
    /* DP: the bf16 gradients of the largest stage, one rank per node (8 ranks apart) */
    double layer = 8192.0 * 128 * (2 * 8 + 2 * 1) + 3 * 8192.0 * 3584 + 2 * 8192.0;
    double stage_last = 20 * layer + 8192 + 4000.0 * 8192;
    CHECKF(NEAR(dp->bytes, 2 * stage_last), "dp bytes %.0f want %.0f", dp->bytes, 2 * stage_last);
    CHECK(dp->nodes == 8 && !strcmp(dp->link, "InfiniBand") && dp->calls == 1);
    /* the collectives' time comes from the model and grows with the bytes */
    CHECK(tp->call_us > 0 && pp->call_us > 0 && dp->call_us > tp->call_us);

    /* memory: stage 0 keeps pp = 4 micro-batches in flight, 16 bytes a parameter */
    CHECK(r.mem.stage == 0 && r.mem.inflight == 4);
    CHECK(NEAR(r.mem.weights, 2 * r.mem.params) && NEAR(r.mem.optimizer, 12 * r.mem.params));
    CHECK(NEAR(r.mem.total, r.mem.weights + r.mem.grads + r.mem.optimizer + r.mem.activations + r.mem.transient));
    CHECK(!r.fits); /* every activation kept: 81 GiB on an 80 GB H100 */

    /* recomputation keeps each layer's input only: [tokens, hidden] bf16 x 20 layers x 4 */
    c.recompute = 1;
    mgpu_whatif_result rc;
    CHECK_OK(mgpu_whatif_run(&c, &rc));
    CHECK(NEAR(rc.mem.activations, 4 * 20 * 2 * T * h + 4 * 4 * T));
    CHECK(rc.fits && rc.step_ms > r.step_ms && rc.bwd_ms > r.bwd_ms);
    CHECK(rc.traffic[MGPU_WHATIF_TP].calls == (2 * 20 * 3 + 1) * 128L);

    /* ZeRO-1: the optimizer state split over DP, two collectives */
    c.recompute = 0;
    c.zero = 1;
    CHECK_OK(mgpu_whatif_run(&c, &rc));
    CHECK(NEAR(rc.mem.optimizer, 12 * rc.mem.params / 8) && rc.traffic[MGPU_WHATIF_DP].calls == 2);
    CHECK(strstr(rc.traffic[MGPU_WHATIF_DP].collective, "reduce_scatter") != NULL);

    /* more micro-batches, smaller bubble */
    c.zero = 0;
    c.global_batch = 256;
    CHECK_OK(mgpu_whatif_run(&c, &rc));
    CHECK(rc.micro_batches == 32 && rc.bubble > r.bubble);

    /* TP 16 with Llama-2-70B's 8 KV heads: refused, as Megatron-Core does
     * (num_query_groups % tp == 0), not priced with KV heads replicated */
    mgpu_whatif_defaults(&c);
    c.tp = 16;
    c.pp = 2;
    CHECK(mgpu_whatif_run(&c, &rc) == MGPU_ERR_INVALID);
    CHECKF(strstr(mgpu_error_message(), "--tp 16 does not divide the 8 KV heads") != NULL, "%s", mgpu_error_message());

    /* TP across nodes (a model with 16 KV heads): 16 ranks span two nodes
     * and its all-reduces go over InfiniBand */
    c.model.kv_heads = 16;
    CHECK_OK(mgpu_whatif_run(&c, &rc));
    CHECK(rc.traffic[MGPU_WHATIF_TP].nodes == 2 && !strcmp(rc.traffic[MGPU_WHATIF_TP].link, "InfiniBand"));
    CHECK(rc.traffic[MGPU_WHATIF_TP].call_us > tp->call_us && rc.step_ms > r.step_ms);
    printf("# 8x16x2: step %.1f ms (TP all-reduce %.1f us across nodes)\n", rc.step_ms,
           rc.traffic[MGPU_WHATIF_TP].call_us);
}

static void small_layout(void)
{
    /* the 8-rank case of the agreement check: one node, every group on NVLink */
    mgpu_whatif_config c;
    mgpu_whatif_defaults(&c);
    c.dp = c.tp = c.pp = 2;
    c.micro_batches = 4;
    c.model.layers = 4;
    mgpu_whatif_result r;
    CHECK_OK(mgpu_whatif_run(&c, &r));
    CHECK(r.world == 8 && r.nodes == 1);
    for (int a = 0; a < MGPU_WHATIF_AXES; a++)
        CHECKF(r.traffic[a].nodes == 1 && !strcmp(r.traffic[a].link, "NVLink"), "%s on %s", r.traffic[a].axis,
               r.traffic[a].link);
    CHECK(NEAR(r.bubble_ideal, 1.0 / 5));
    /* no TP: no TP traffic; one stage: no bubble */
    c.tp = 1;
    c.pp = 1;
    c.dp = 8;
    CHECK_OK(mgpu_whatif_run(&c, &r));
    CHECK(r.traffic[MGPU_WHATIF_TP].calls == 0 && r.traffic[MGPU_WHATIF_PP].calls == 0);
    CHECK(r.bubble == 0 && r.bubble_ideal == 0);
}

static void errors(void)
{
    mgpu_whatif_config c;
    mgpu_whatif_result r;
    struct { const char *field; int value; const char *says; } bad[] = {
        {"tp", 3, "--tp 3"}, {"pp", 3, "--pp 3"}, {"dp", 0, "--dp 0"}, {"nodes", 5, "--nodes 5"},
        {"zero", 2, "--zero 2"}, {"global_batch", 1001, "--global-batch 1001"}, {"recompute", 7, "--recompute 7"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mgpu_whatif_defaults(&c);
        if (!strcmp(bad[i].field, "tp")) c.tp = bad[i].value;
        if (!strcmp(bad[i].field, "pp")) c.pp = bad[i].value;
        if (!strcmp(bad[i].field, "dp")) c.dp = bad[i].value;
        if (!strcmp(bad[i].field, "nodes")) c.nodes = bad[i].value;
        if (!strcmp(bad[i].field, "zero")) c.zero = bad[i].value;
        if (!strcmp(bad[i].field, "global_batch")) c.global_batch = bad[i].value;
        if (!strcmp(bad[i].field, "recompute")) c.recompute = bad[i].value;
        CHECK(mgpu_whatif_run(&c, &r) == MGPU_ERR_INVALID);
        CHECKF(strstr(mgpu_error_message(), bad[i].says) != NULL, "'%s' does not name %s", mgpu_error_message(),
               bad[i].says);
    }
    /* stages 3 ranks apart straddle nodes of 8 unevenly: the message names --pp's value */
    mgpu_whatif_defaults(&c);
    c.dp = 3;
    c.tp = 1;
    c.pp = 8;
    c.micro_batches = 8;
    CHECK(mgpu_whatif_run(&c, &r) == MGPU_ERR_INVALID);
    CHECKF(strstr(mgpu_error_message(), "--pp 8:") != NULL, "%s", mgpu_error_message());
    mgpu_whatif_defaults(&c);
    c.machine = "no-such-machine";
    CHECK(mgpu_whatif_run(&c, &r) == MGPU_ERR_INVALID);
    /* the schedule's size is bounded (10^8 micro-batches ran for minutes,
     * issue 34), by micro-batches or by the global batch they come from,
     * and the sequences a step must fit the count */
    mgpu_whatif_defaults(&c);
    c.micro_batches = 100000000;
    CHECK(mgpu_whatif_run(&c, &r) == MGPU_ERR_INVALID);
    CHECKF(strstr(mgpu_error_message(), "--micro-batches 100000000 x --pp 4") != NULL, "%s", mgpu_error_message());
    mgpu_whatif_defaults(&c);
    c.global_batch = 2147483640;
    CHECK(mgpu_whatif_run(&c, &r) == MGPU_ERR_INVALID);
    CHECKF(strstr(mgpu_error_message(), "--global-batch 2147483640") != NULL, "%s", mgpu_error_message());
    mgpu_whatif_defaults(&c);
    c.pp = 1;
    c.micro_batches = 1 << 22;
    c.micro_batch_size = 1 << 20;
    CHECK(mgpu_whatif_run(&c, &r) == MGPU_ERR_INVALID);
    CHECKF(strstr(mgpu_error_message(), "sequences a step") != NULL, "%s", mgpu_error_message());
}

static void spread(void)
{
    /* the spread pricing equals a real placement on the two-node preset */
    mgpu_topo *two = NULL;
    CHECK_OK(mgpu_topo_preset("2x-dgx-h100", &two));
    if (!two) return;
    int all[16], pair[2] = {0, 8}, evens[4] = {0, 2, 4, 6};
    for (int i = 0; i < 16; i++) all[i] = i;
    struct { int n, nodes, stride; const int *gpus; mgpu_coll op; } cases[] = {
        {16, 2, 1, all, MGPU_COLL_ALL_REDUCE}, {2, 2, 1, pair, MGPU_COLL_ALL_REDUCE},
        {2, 2, 1, pair, MGPU_COLL_SEND},       {4, 1, 2, evens, MGPU_COLL_REDUCE_SCATTER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mgpu_coll_prediction a, b;
        CHECK_OK(mgpu_coll_predict(two, cases[i].op, (size_t)64 << 20, cases[i].n, cases[i].gpus, &a));
        CHECK_OK(mgpu_coll_predict_spread(two, cases[i].op, (size_t)64 << 20, cases[i].n, cases[i].nodes,
                                          cases[i].stride, NULL, &b));
        CHECKF(NEAR(a.time_us, b.time_us) && a.algo == b.algo, "case %zu: %.2f vs %.2f us", i, a.time_us, b.time_us);
    }
    mgpu_coll_prediction p;
    CHECK(mgpu_coll_predict_spread(two, MGPU_COLL_ALL_REDUCE, 1024, 6, 4, 1, NULL, &p) == MGPU_ERR_INVALID);
    CHECK(mgpu_coll_predict_spread(two, MGPU_COLL_ALL_REDUCE, 1024, 8, 1, 2, NULL, &p) == MGPU_ERR_INVALID);
    mgpu_topo_free(two);
}

int main(void)
{
    schedule();
    llama70b();
    small_layout();
    errors();
    spread();
    return tap_done();
}
