/* fuzz_topo_xml_target.c - one fuzz input: parse it as NCCL topology XML;
 * when it loads, read every part of the view, apply faults, and check that
 * export -> import -> export is byte-identical. Any other outcome than
 * "loaded and round-trips" or "refused with MGPU_ERR_PARSE and a message"
 * aborts, which is what a fuzzer counts as a crash. */
#include "fuzz_topo_xml.h"
#include "mgpu/topo.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *export_str(const mgpu_topo *t, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f) abort();
    if (mgpu_topo_write_xml(t, f) != MGPU_OK) {
        fprintf(stderr, "fuzz: export failed: %s\n", mgpu_error_message());
        abort();
    }
    fclose(f);
    return buf;
}

static void read_view(mgpu_topo *t)
{
    int ng = mgpu_topo_gpu_count(t), nn = mgpu_topo_nic_count(t);
    int g = ng < 48 ? ng : 48, n = nn < 48 ? nn : 48;
    volatile double sink = 0;
    for (int i = 0; i < g; i++) {
        const mgpu_topo_gpu *u = mgpu_topo_gpu_at(t, i);
        sink += (double)strlen(u->name) + (double)strlen(u->cpulist) + u->pcie_gbs;
        for (int j = 0; j < g; j++) {
            mgpu_topo_path p = mgpu_topo_gpu_path(t, i, j);
            sink += p.bw_gbs + p.latency_us + mgpu_topo_peer_access(t, i, j);
            if (p.bw_gbs < 0 || p.bw_gbs != p.bw_gbs) abort();
        }
        for (int k = 0; k < n; k++) sink += mgpu_topo_gpu_nic_path(t, i, k).bw_gbs;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) sink += mgpu_topo_nic_nic_path(t, i, j).bw_gbs;
    for (const char *const *p = mgpu_topo_notes(t); *p; p++) sink += (double)strlen(*p);
    (void)sink;
}

int mgpu_fuzz_topo_xml_one(const uint8_t *data, size_t size)
{
    mgpu_topo *t = NULL;
    mgpu_result r = mgpu_topo_parse_xml((const char *)data, size, "fuzz.xml", &t);
    if (r != MGPU_OK) {
        if (t || (r != MGPU_ERR_PARSE) || !mgpu_error_message()[0]) {
            fprintf(stderr, "fuzz: refused with %s and message '%s'\n", mgpu_result_name(r), mgpu_error_message());
            abort();
        }
        return 0;
    }
    read_view(t);
    size_t l1 = 0, l2 = 0;
    char *x1 = export_str(t, &l1);
    mgpu_topo *u = NULL;
    if (mgpu_topo_parse_xml(x1, l1, "fuzz-export.xml", &u) != MGPU_OK) {
        fprintf(stderr, "fuzz: our own export does not load: %s\n", mgpu_error_message());
        abort();
    }
    char *x2 = export_str(u, &l2);
    if (l1 != l2 || memcmp(x1, x2, l1) != 0) {
        fprintf(stderr, "fuzz: export -> import -> export is not byte-identical\n");
        abort();
    }
    /* Faults on whatever machine this is: must never crash. */
    static const char *const faults[] = {"nvlink-down", "p2p-disabled,no-gdr", "straggler:3,crash:1", "nvlink-down:1"};
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        if (mgpu_topo_apply_faults(u, faults[i]) == MGPU_OK) read_view(u);
    free(x1);
    free(x2);
    mgpu_topo_free(u);
    mgpu_topo_free(t);
    return 1;
}
