/* test_shell_panes.c - draw every pane into off-screen curses windows and
 * read the text back: documents come from the real commands on the sim
 * backend (`mgpulab topo/bench/copy/spmd --json`), log lines look like NCCL
 * 2.2x's, spans and telemetry samples are built here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curses.h>
#include <jansson.h>
#include "chart.h"
#include "pane.h"
#include "tap.h"

static const pane_class *pane_named(const char *name)
{
    for (int i = 0; shell_panes[i]; i++)
        if (!strcmp(shell_panes[i]->name, name)) return shell_panes[i];
    return NULL;
}

/* The JSON a command prints (run from the build tree). */
static json_t *command_json(const char *args)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s/mgpulab' %s --backend sim --json 2>/dev/null", MGPU_BINARY_DIR, args);
    FILE *f = popen(cmd, "r");
    if (!f) return NULL;
    json_error_t err;
    json_t *doc = json_loadf(f, 0, &err);
    pclose(f);
    if (!doc) fprintf(stderr, "# %s: %s\n", cmd, err.text);
    return doc;
}

/* The whole window as text, one '\n'-terminated line per row. */
static char screen[64 * 1024];
static const char *win_text(WINDOW *w)
{
    int h = getmaxy(w), wd = getmaxx(w), n = 0;
    chtype row[512];
    for (int y = 0; y < h; y++) {
        mvwinchnstr(w, y, 0, row, wd < 511 ? wd : 511);
        for (int x = 0; x < wd && x < 511 && row[x]; x++) screen[n++] = (char)(row[x] & A_CHARTEXT);
        screen[n++] = '\n';
    }
    screen[n] = 0;
    return screen;
}

static int has_altcharset(WINDOW *w)
{
    chtype row[512];
    for (int y = 0; y < getmaxy(w); y++) {
        int n = mvwinchnstr(w, y, 0, row, getmaxx(w) < 511 ? getmaxx(w) : 511);
        for (int x = 0; x < n; x++)
            if (row[x] & A_ALTCHARSET) return 1;
    }
    return 0;
}

static const char *draw(const pane_class *pc, void *self, WINDOW *w)
{
    werase(w);
    pc->draw(self, w, 1);
    const char *t = win_text(w);
    if (getenv("MGPU_TEST_SHOW")) fprintf(stderr, "---- %s\n%s", pc->name, t); /* to look at a pane */
    return t;
}

/* A 30x8 pane inside a parent filled with '~': nothing may land outside. */
static void check_small(const pane_class *pc, void *self, const char *what)
{
    WINDOW *parent = newwin(12, 40, 0, 0);
    for (int y = 0; y < 12; y++) mvwhline(parent, y, 0, '~', 40);
    WINDOW *w = derwin(parent, 8, 30, 2, 5);
    werase(w);
    pc->draw(self, w, 1);
    int outside = 0;
    for (int y = 0; y < 12; y++)
        for (int x = 0; x < 40; x++) {
            int inside = y >= 2 && y < 10 && x >= 5 && x < 35;
            if (!inside && (mvwinch(parent, y, x) & A_CHARTEXT) != '~') outside++;
        }
    CHECKF(outside == 0, "%s: %d cells written outside a 30x8 window", what, outside);
    const char *t = win_text(w);
    if (getenv("MGPU_TEST_SHOW")) fprintf(stderr, "---- %s 30x8\n%s", what, t);
    CHECKF(strspn(t, " \n") < strlen(t), "%s: a 30x8 window shows something", what);
    delwin(w);
    delwin(parent);
}

static pane_context ctx = {"SIMULATED machine dgx-h100", 1, 0};

static void test_topology(WINDOW *w)
{
    const pane_class *pc = pane_named("topology");
    void *p = pc->create(&ctx);
    CHECK(strstr(draw(pc, p, w), "nothing yet"));
    json_t *doc = command_json("topo --machine dgx-h100");
    CHECK(doc != NULL);
    if (!doc) return;
    pc->on_result(p, "topo", doc);
    json_decref(doc); /* the pane keeps its own reference */
    CHECK(pc->dirty(p));
    const char *t = draw(pc, p, w);
    CHECK(!pc->dirty(p));
    CHECK(strstr(t, "SIMULATED") && strstr(t, "dgx-h100"));
    CHECK(strstr(t, "NV18") && strstr(t, "GPU7") && strstr(t, "NIC0") && strstr(t, "PIX"));
    CHECK(strstr(t, "CPU Affinity") && strstr(t, "0-55,112-167"));
    CHECK(pc->key(p, 'g') == 1 && pc->dirty(p));
    t = draw(pc, p, w);
    CHECK(strstr(t, "NVSwitch") && strstr(t, "PCIe switch") && strstr(t, "CPU1") && strstr(t, "mlx5_0"));
    CHECK(strstr(t, "GPU0 NVIDIA H100") && strstr(t, "NV18"));
    CHECK(has_altcharset(w));
    check_small(pc, p, "topology graph");
    CHECK(pc->key(p, 'g') == 1);
    check_small(pc, p, "topology matrix");
    /* scrolling moves the matrix up: GPU0's row leaves the top */
    WINDOW *small = newwin(10, 60, 0, 0);
    t = draw(pc, p, small);
    CHECK(strstr(t, "GPU0   X"));
    for (int i = 0; i < 3; i++) pc->key(p, KEY_DOWN);
    t = draw(pc, p, small);
    CHECK(!strstr(t, "GPU0   X") && strstr(t, "GPU3"));
    CHECK(pc->key(p, 'Z') == 0);
    delwin(small);

    doc = command_json("topo --machine pcie-4gpu");
    if (doc) pc->on_result(p, "topo", doc);
    json_decref(doc);
    t = draw(pc, p, w);
    CHECK(strstr(t, "PXB") && strstr(t, "pcie-4gpu") && !strstr(t, "NV18"));
    CHECK(strstr(t, "NO for"));  /* GPU3 across the sockets has no peer access */
    pc->key(p, 'g');
    t = draw(pc, p, w);
    CHECK(strstr(t, "PCIe switch") && !strstr(t, "NVSwitch") && strstr(t, "L40S"));

    doc = command_json("topo --machine 2x-dgx-h100");
    if (doc) pc->on_result(p, "topo", doc);
    json_decref(doc);
    t = draw(pc, p, w);
    /* the pane stays in the graph view it was left in */
    CHECK(strstr(t, "Host 0 of 2") && strstr(t, "Host 1 of 2") && !strstr(t, "Network: 2 hosts"));
    CHECK(pc->key(p, KEY_END) == 1);
    t = draw(pc, p, w);
    CHECK(strstr(t, "Network: 2 hosts") && strstr(t, "GPU15 NVIDIA H100") && !strstr(t, "Host 0 of 2"));
    pc->key(p, 'g');
    t = draw(pc, p, w);
    CHECK(strstr(t, "NET") && strstr(t, "GPU15") && strstr(t, "NIC15"));
    pc->destroy(p);
}

static void test_bandwidth(WINDOW *w)
{
    const pane_class *pc = pane_named("bandwidth");
    void *p = pc->create(&ctx);
    CHECK(strstr(draw(pc, p, w), "nothing yet"));
    mgpu_link_sample s[8];
    memset(s, 0, sizeof s);
    pc->on_telemetry(p, s, 0, "none: libnvidia-ml.so.1 not found");
    const char *t = draw(pc, p, w);
    CHECK(strstr(t, "none: libnvidia-ml.so.1 not found") && strstr(t, "NVML"));
    for (int k = 0; k < 30; k++) {
        for (int g = 0; g < 8; g++) {
            s[g].gpu = g;
            s[g].has_nvlink = s[g].has_pcie = 1;
            s[g].nvlink_tx = g == 1 ? 123.4e9 : 0;
            s[g].nvlink_rx = g == 0 ? 123.4e9 : 0;
            s[g].pcie_tx = 5e9;
        }
        pc->on_telemetry(p, s, 8, "modelled (SIMULATED dgx-h100)");
    }
    CHECK(pc->dirty(p));
    t = draw(pc, p, w);
    CHECK(strstr(t, "source: modelled (SIMULATED dgx-h100)"));
    CHECK(strstr(t, "GPU0") && strstr(t, "GPU7") && strstr(t, "NVLink") && strstr(t, "PCIe"));
    CHECK(strstr(t, "123.4") && strstr(t, "5.0"));
    CHECK(strstr(t, "@@@@@")); /* the full-scale sparkline */
    check_small(pc, p, "bandwidth");
    /* the sim's load comes in bursts: the number is the highest of the last
     * 5 s (issue 10, item 15: it read 0.0 through a sweep) */
    for (int k = 0; k < 30; k++) {
        for (int g = 0; g < 8; g++) {
            s[g].nvlink_tx = g == 2 && k % 3 == 0 ? 90e9 : 0;
            s[g].nvlink_rx = s[g].pcie_tx = 0;
        }
        pc->on_telemetry(p, s, 8, "modelled (SIMULATED dgx-h100)");
    }
    t = draw(pc, p, w);
    CHECKF(strstr(t, "90.0") != NULL, "bursts of 90 GB/s between zeros:\n%s", t);
    /* links fallen idle for the window read 0.0, not the last busy value
     * ("now 55.0"; the shell samples 5.5 s past a step's end) */
    for (int g = 0; g < 8; g++) s[g].nvlink_tx = s[g].nvlink_rx = s[g].pcie_tx = 0;
    for (int k = 0; k < 47; k++) pc->on_telemetry(p, s, 8, "modelled (SIMULATED dgx-h100)");
    CHECKF(strstr(draw(pc, p, w), "90.0") != NULL, "the last burst, 49 samples ago, is still in the window");
    for (int k = 0; k < 2; k++) pc->on_telemetry(p, s, 8, "modelled (SIMULATED dgx-h100)");
    t = draw(pc, p, w);
    CHECKF(!strstr(t, "90.0") && !strstr(t, "123.4") && !strstr(t, " 5.0"), "idle links:\n%s", t);
    /* block characters on a UTF-8 terminal, the ASCII ramp otherwise */
    CHECK(strcmp(chart_spark_glyph(1, 1), "@") == 0 && strcmp(chart_spark_glyph(0, 1), " ") == 0);
    chart_use_blocks(1);
    CHECK(strcmp(chart_spark_glyph(1, 1), "\u2588") == 0 && strcmp(chart_spark_glyph(0.01, 1), "\u2581") == 0);
    chart_use_blocks(0);
    /* idle: zeros until the lines are flat, then no more redraws */
    for (int g = 0; g < 8; g++) s[g].nvlink_tx = s[g].nvlink_rx = s[g].pcie_tx = 0;
    for (int k = 0; k < 200; k++) pc->on_telemetry(p, s, 8, "modelled (SIMULATED dgx-h100)");
    draw(pc, p, w);
    pc->on_telemetry(p, s, 8, "modelled (SIMULATED dgx-h100)");
    CHECK(!pc->dirty(p));
    /* two nodes: each GPU's NVLink share inside its node and its NIC's share
     * between the nodes, on a row of its own named as the topology names the
     * NIC (issue 26: lab 7 showed NVLink 0.0 and "PCIe 232.1" everywhere) */
    mgpu_link_sample two[16];
    memset(two, 0, sizeof two);
    for (int g = 0; g < 16; g++) {
        two[g].gpu = g;
        two[g].has_nvlink = two[g].has_pcie = two[g].has_net = 1;
        two[g].nic = g % 8;
        two[g].nvlink_tx = two[g].nvlink_rx = 203.1e9;
        two[g].pcie_tx = two[g].pcie_rx = two[g].net_tx = two[g].net_rx = 29.0e9;
    }
    for (int k = 0; k < 5; k++) pc->on_telemetry(p, two, 16, "modelled (SIMULATED 2x-dgx-h100)");
    /* 48 rows in a 40-row pane: the view's keys (chart_view_scroll_key)
     * scroll it, End to the last GPU and Home back */
    t = draw(pc, p, w);
    CHECKF(strstr(t, "GPU0 ") && !strstr(t, "GPU15"), "the top of 16 GPUs:\n%s", t);
    CHECK(pc->key(p, KEY_END) == 1 && pc->dirty(p));
    t = draw(pc, p, w);
    CHECKF(strstr(t, "GPU15") && !strstr(t, "GPU0 "), "End shows the last GPU:\n%s", t);
    CHECK(pc->key(p, KEY_PPAGE) == 1);
    CHECK(!strstr(draw(pc, p, w), "GPU15"));
    CHECK(pc->key(p, KEY_HOME) == 1);
    CHECK(strstr(draw(pc, p, w), "GPU0 "));
    CHECK(pc->key(p, 'Z') == 0);
    WINDOW *tall = newwin(60, 100, 0, 0);
    t = draw(pc, p, tall);
    CHECKF(strstr(t, "203.1") && strstr(t, "29.0"), "the NVLink and NIC shares:\n%s", t);
    const char *g11 = strstr(t, "GPU11"), *nic3 = g11 ? strstr(g11, "NIC3") : NULL, *g12 = g11 ? strstr(g11, "GPU12") : NULL;
    CHECKF(nic3 && (!g12 || nic3 < g12), "GPU11's row names its node's NIC3:\n%s", t);
    CHECKF(strstr(t, "NIC ") != NULL, "the scale names the NICs:\n%s", t);
    delwin(tall);
    pc->destroy(p);
}

static void test_results(WINDOW *w)
{
    const pane_class *pc = pane_named("results");
    void *p = pc->create(&ctx);
    CHECK(strstr(draw(pc, p, w), "nothing yet"));
    json_t *bench = command_json("bench all_reduce --machine dgx-h100 -b 16M -e 256M -f 4 -c 0");
    CHECK(bench != NULL);
    if (bench) {
        pc->on_result(p, "bench", bench);
        json_t *rows = json_object_get(bench, "rows"), *last = json_array_get(rows, json_array_size(rows) - 1);
        CHECK(json_integer_value(json_object_get(last, "size")) == 256 << 20);
        char busbw[32];
        snprintf(busbw, sizeof busbw, "%.2f", json_number_value(json_object_get(json_object_get(last, "out_of_place"), "bus_bw")));
        const char *t = draw(pc, p, w);
        CHECK(strstr(t, "all_reduce") && strstr(t, "8 ranks") && strstr(t, "SIMULATED"));
        CHECK(strstr(t, "busbw") && strstr(t, "#wrong") && strstr(t, "256M"));
        CHECKF(strstr(t, busbw) != NULL, "busbw %s of the 256 MiB row", busbw);
        CHECK(strstr(t, "Avg bus bandwidth"));
        CHECK(pc->key(p, 'g') == 1);
        t = draw(pc, p, w);
        CHECK(strstr(t, "* busbw") && strstr(t, "o algbw") && strstr(t, "16M") && strstr(t, "GB/s"));
        CHECK(strchr(t, '*') != strrchr(t, '*')); /* points, not only the legend */
        check_small(pc, p, "results chart");
        pc->key(p, 'g');
        check_small(pc, p, "results table");
        WINDOW *narrow = newwin(16, 50, 0, 0); /* busbw stays in view in a narrow pane */
        t = draw(pc, p, narrow);
        CHECKF(strstr(t, busbw) && strstr(t, "256M"), "narrow table shows busbw %s", busbw);
        delwin(narrow);
        json_decref(bench);
    }
    json_t *copy = command_json("copy --machine dgx-h100 -b 4 device_to_device_memcpy_read_ce");
    CHECK(copy != NULL);
    if (copy) {
        pc->on_result(p, "copy", copy);
        json_t *m = json_array_get(json_object_get(json_array_get(json_object_get(copy, "testcases"), 0), "matrices"), 0);
        char v01[32];
        snprintf(v01, sizeof v01, "%.2f", json_number_value(json_array_get(json_array_get(json_object_get(m, "values"), 0), 1)));
        const char *t = draw(pc, p, w);
        CHECK(strstr(t, "[2/2] copy") && strstr(t, "device_to_device_memcpy_read_ce") && strstr(t, "passed"));
        CHECK(strstr(t, "memcpy CE GPU(row) -> GPU(column)") && strstr(t, "N/A"));
        CHECKF(strstr(t, v01) != NULL, "GPU0->GPU1 %s GB/s", v01);
        json_decref(copy);
    }
    json_t *spmd = command_json("spmd " MGPU_SOURCE_DIR "/examples/spmd/allreduce.lua --ranks 4");
    CHECK(spmd != NULL);
    if (spmd) {
        pc->on_result(p, "spmd", spmd);
        const char *t = draw(pc, p, w);
        CHECK(strstr(t, "SPMD") && strstr(t, "ok") && strstr(t, "rank") && strstr(t, "collective"));
        CHECK(strstr(t, "all_reduce") && strstr(t, "4096") && strstr(t, "1048576"));
        json_decref(spmd);
    }
    json_t *table = json_pack("{s:s, s:[s,s], s:[[s,f],[s,f]]}", "title", "Peak per link", "columns", "link", "GB/s",
                              "rows", "NV18", 450.0, "PCIe Gen5", 63.02);
    pc->on_result(p, "table", table);
    json_decref(table);
    const char *t = draw(pc, p, w);
    CHECK(strstr(t, "[4/4] table") && strstr(t, "Peak per link") && strstr(t, "PCIe Gen5") && strstr(t, "63.02"));
    CHECK(pc->key(p, '[') == 1);
    CHECK(strstr(draw(pc, p, w), "[3/4]"));
    /* a failed SPMD run's errors, as lab 8 step 5's fingerprint runs give
     * them ({rank, error: {message, traceback, code}}), and nested cells:
     * read as text, never as raw JSON (issue 26: '{"rank":0,"error":{...') */
    json_t *failed = json_loads("{\"tool\": \"spmd\", \"script\": \"train_log.lua\", \"ok\": false, \"reason\": \"rank 2: "
                                "mismatch\", \"results\": [{\"rank\": 0, \"row\": {\"loss\": 1.5, \"sizes\": [1, 4096], "
                                "\"fp\": {\"op\": \"all_reduce\", \"count\": 1}}}], \"errors\": [{\"rank\": 2, \"error\": "
                                "{\"message\": \"train_log.lua:23: collective fingerprint mismatch at #7\", \"traceback\": "
                                "\"stack traceback:\\n\\t[C]: in method 'all_reduce'\", \"code\": \"invalid\"}}, {\"rank\": 3, "
                                "\"error\": \"plain words\"}]}", 0, NULL);
    CHECK(failed != NULL);
    pc->on_result(p, "spmd", failed);
    json_decref(failed);
    WINDOW *wide = newwin(20, 120, 0, 0);
    t = draw(pc, p, wide);
    CHECKF(strstr(t, "rank 2: train_log.lua:23: collective fingerprint mismatch at #7") != NULL, "the error as text:\n%s", t);
    CHECK(strstr(t, "rank 3: plain words") != NULL);
    CHECKF(strstr(t, "1, 4096") && strstr(t, "op: all_reduce, count: 1"), "nested cells as text:\n%s", t);
    CHECKF(!strchr(t, '{') && !strstr(t, "\"message\""), "raw JSON in the results pane:\n%s", t);
    delwin(wide);
    pc->on_step_start(p);
    CHECK(strstr(draw(pc, p, w), "nothing yet"));
    pc->destroy(p);
}

static json_t *span(int rank, const char *stream, const char *name, const char *kind, double s, double e)
{
    return json_pack("{s:i, s:s, s:s, s:s, s:f, s:f}", "rank", rank, "stream", stream, "name", name, "kind", kind,
                     "start_us", s, "end_us", e);
}

static void test_timeline(WINDOW *w)
{
    const pane_class *pc = pane_named("timeline");
    void *p = pc->create(&ctx);
    CHECK(strstr(draw(pc, p, w), "nothing yet"));
    json_t *sp[] = {
        span(1, "compute", "bwd", "kernel", 1000, 1100),
        span(0, "compute", "fwd_bwd", "kernel", 1000, 1100),
        span(0, "comm", "allreduce_b0", "collective", 1050, 1150),
        span(1, "comm", "allreduce_b0", "collective", 1060, 1150),
        span(0, "comm", "wait", "wait", 1150, 1160),
        span(1, "copy", "h2d", "copy", 1160, 1200),
    };
    for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++) {
        pc->on_span(p, sp[i]);
        json_decref(sp[i]);
    }
    const char *t = draw(pc, p, w);
    CHECK(strstr(t, "# kernel") && strstr(t, "= copy") && strstr(t, "% collective") && strstr(t, ". wait"));
    CHECK(strstr(t, "r0 compute") && strstr(t, "r0 comm") && strstr(t, "r1 copy"));
    CHECK(strstr(t, "###") && strstr(t, "%%%") && strstr(t, "===") && strstr(t, "^^^"));
    CHECK(strstr(t, "fwd_bwd")); /* a wide block carries its name */
    CHECK(strstr(t, "ovl"));
    CHECK(strstr(t, "0 us .. 200 us"));
    CHECK(pc->key(p, 'i') == 1);
    t = draw(pc, p, w);
    CHECK(strstr(t, "50 us .. 150 us"));
    CHECK(pc->key(p, '>') == 1 && pc->key(p, 'f') == 1);
    CHECK(strstr(draw(pc, p, w), "0 us .. 200 us"));
    /* the lanes take the keys every pane's view takes; Left/Right stay time */
    CHECK(pc->key(p, KEY_END) == 1 && pc->key(p, KEY_HOME) == 1 && pc->key(p, KEY_NPAGE) == 1);
    CHECK(pc->key(p, 'Z') == 0);
    CHECK(strstr(draw(pc, p, w), "0 us .. 200 us") && strstr(screen, "r0 compute"));
    check_small(pc, p, "timeline");
    /* two runs in one step (lab 4 step 2: 4 ranks, then 1 rank as the
     * reference): each under its own heading, each on its own clock - they
     * were mixed on the same r0 lanes (issue 26) */
    pc->on_step_start(p);
    struct { int run, rank; const char *name; double s, e; } rs[] = {
        {1, 0, "four_a", 5000, 5400}, {1, 1, "four_b", 5000, 5400}, {1, 2, "four_c", 5100, 5400},
        {2, 0, "alone", 900000, 900200},
    };
    for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++) {
        json_t *x = span(rs[i].rank, "compute", rs[i].name, "kernel", rs[i].s, rs[i].e);
        json_object_set_new(x, "run", json_integer(rs[i].run));
        json_object_set_new(x, "run_label", json_string(rs[i].run == 1 ? "run.lua, 3 ranks" : "run.lua, 1 rank"));
        pc->on_span(p, x);
        json_decref(x);
    }
    WINDOW *tall = newwin(20, 80, 0, 0);
    t = draw(pc, p, tall);
    const char *h1 = strstr(t, "run 1: run.lua, 3 ranks"), *h2 = strstr(t, "run 2: run.lua, 1 rank");
    CHECKF(h1 && h2 && h1 < h2, "a heading per run, in order:\n%s", t);
    const char *r0a = h1 ? strstr(h1, "r0 compute") : NULL, *r0b = h2 ? strstr(h2, "r0 compute") : NULL;
    CHECKF(r0a && r0b && r0a < h2, "rank 0 of each run on a lane of its own:\n%s", t);
    /* each run from its own start: 400 us and 200 us, not 895 ms apart */
    CHECKF(strstr(t, "0 us .. 400 us") != NULL, "the range is the longest run's:\n%s", t);
    CHECKF(strstr(t, "four_a") && strstr(t, "alone"), "both runs' blocks are in view:\n%s", t);
    delwin(tall);
    pc->on_step_start(p);
    CHECK(strstr(draw(pc, p, w), "nothing yet"));
    pc->destroy(p);
}

static void test_log(WINDOW *w)
{
    const pane_class *pc = pane_named("log");
    void *p = pc->create(&ctx);
    CHECK(strstr(draw(pc, p, w), "nothing yet"));
    static const char *const nccl[] = {
        "h200-01:2001:2001 [0] NCCL INFO NCCL version 2.23.4+cuda12.6",
        "h200-01:2001:2050 [0] NCCL INFO Using network Socket",
        "h200-01:2001:2050 [0] NCCL INFO comm 0x5600a0 rank 0 nRanks 4 nNodes 4 localRanks 1 localRank 0 MNNVL 0",
        "h200-01:2001:2050 [0] NCCL INFO Channel 00/02 :    0   1   2   3",
        "h200-01:2001:2050 [0] NCCL INFO Trees [0] 2/-1/-1->0->-1 [1] -1/-1/-1->0->1",
        "h200-01:2001:2052 [0] NCCL INFO Channel 00/0 : 3[0] -> 0[0] [receive] via NET/Socket/0",
        "h200-01:2001:2052 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0",
        "h200-01:2001:2050 [0] NCCL INFO 2 coll channels, 2 collnet channels, 0 nvls channels, 2 p2p channels, 2 p2p channels per peer",
        "h200-01:2001:2001 [0] NCCL INFO AllReduce: 1048576 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..1}",
    };
    for (size_t i = 0; i < sizeof nccl / sizeof nccl[0]; i++) pc->on_log(p, 0, nccl[i]);
    pc->on_log(p, -1, "step 2: all-reduce over emulated nodes\n");
    const char *t = draw(pc, p, w);
    CHECK(strstr(t, "NCCL 2.23.4+cuda12.6") && strstr(t, "4 ranks on 4 nodes") && strstr(t, "network Socket"));
    CHECK(strstr(t, "GPUDirect RDMA OFF"));
    CHECK(strstr(t, "transport: NET/Socket x2") && strstr(t, "ring 00: 0 1 2 3"));
    CHECK(strstr(t, "AllReduce 1M RING/SIMPLE") && strstr(t, "2 coll"));
    CHECK(strstr(t, "[r0] h200-01:2001:2001 [0] NCCL INFO NCCL version") || strstr(t, "[r0] h200-01"));
    const char *lab = strstr(t, "[lab] step 2: all-reduce over emulated nodes ");
    CHECK(lab && strspn(lab + 45, " \n") == strlen(lab + 45)); /* the newest line is the bottom one */
    check_small(pc, p, "log");
    /* thousands of lines: the oldest go, Home shows the oldest kept */
    char line[64];
    for (int i = 0; i < 5000; i++) {
        snprintf(line, sizeof line, "line %05d", i);
        pc->on_log(p, 1, line);
    }
    CHECK(strstr(draw(pc, p, w), "[r1] line 04999"));
    CHECK(pc->key(p, KEY_HOME) == 1);
    t = draw(pc, p, w);
    CHECK(strstr(t, "[r1] line 01000") && !strstr(t, "line 00999") && !strstr(t, "line 04999"));
    /* End follows the log again; Up leaves the newest line, and says so */
    CHECK(pc->key(p, KEY_END) == 1);
    CHECK(strstr(draw(pc, p, w), "[r1] line 04999"));
    CHECK(pc->key(p, KEY_UP) == 1);
    t = draw(pc, p, w);
    CHECKF(!strstr(t, "line 04999") && strstr(t, "line 04998") && strstr(t, " 1 newer lines v "), "one up:\n%s", t);
    CHECK(pc->key(p, KEY_DOWN) == 1 && pc->key(p, KEY_DOWN) == 1);
    CHECK(strstr(draw(pc, p, w), "line 04999")); /* not past the newest */
    CHECK(pc->key(p, 's') == 1);
    t = draw(pc, p, w);
    CHECK(!strstr(t, "transport:"));
    pc->on_step_start(p);
    pc->key(p, 's');
    CHECK(strstr(draw(pc, p, w), "no NCCL INFO lines"));
    pc->destroy(p);
}

/* The attributes of the first "NV18" cell on screen. */
static chtype nv_cell_attrs(WINDOW *w)
{
    chtype row[512];
    for (int y = 0; y < getmaxy(w); y++) {
        int n = mvwinchnstr(w, y, 0, row, 511);
        for (int x = 0; x + 3 < n; x++)
            if ((row[x] & A_CHARTEXT) == 'N' && (row[x + 1] & A_CHARTEXT) == 'V' && (row[x + 2] & A_CHARTEXT) == '1')
                return row[x] & (A_ATTRIBUTES & ~A_CHARTEXT);
    }
    return (chtype)-1;
}

/* Colour pairs only when the context allows colours; bold otherwise. */
static void test_colours(WINDOW *w)
{
    const pane_class *pc = pane_named("topology");
    json_t *doc = command_json("topo --machine dgx-h100");
    if (!doc) return;
    pane_context colour = {"SIMULATED machine dgx-h100", 1, 1};
    void *mono = pc->create(&ctx), *col = pc->create(&colour);
    pc->on_result(mono, "topo", doc);
    pc->on_result(col, "topo", doc);
    json_decref(doc);
    draw(pc, mono, w);
    chtype a = nv_cell_attrs(w);
    CHECKF(a != (chtype)-1 && (a & A_BOLD) && PAIR_NUMBER(a) == 0, "monochrome NV cell attrs %lx", (unsigned long)a);
    draw(pc, col, w);
    a = nv_cell_attrs(w);
    CHECKF(a != (chtype)-1 && PAIR_NUMBER(a) == CHART_PAIR_BASE + CHART_GOOD, "colour NV cell attrs %lx", (unsigned long)a);
    pc->destroy(mono);
    pc->destroy(col);
}

int main(void)
{
    setenv("TERM", "xterm-256color", 1);
    setenv("LINES", "60", 1);
    setenv("COLUMNS", "200", 1);
    FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
    SCREEN *scr = newterm(NULL, out, in);
    CHECK(scr != NULL);
    if (!scr) return tap_done();
    CHECK(shell_panes[0] && shell_panes[0]->hotkey == '1' && shell_panes[4] && shell_panes[4]->hotkey == '5' &&
          !shell_panes[5]);
    start_color(); /* as the shell's theme does on a colour terminal */
    WINDOW *w = newwin(40, 120, 0, 0);
    test_topology(w);
    test_colours(w);
    test_bandwidth(w);
    test_results(w);
    test_timeline(w);
    test_log(w);
    delwin(w);
    endwin();
    delscreen(scr);
    fclose(out);
    fclose(in);
    return tap_done();
}
