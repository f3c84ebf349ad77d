/* test_topo_xml_roundtrip.c - NCCL XML export is NCCL's format, and
 * export -> import -> export is byte-identical for every preset and for
 * the NCCL-style files in tests/data/topo. */
#include "mgpu/topo.h"
#include "tap.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>

static char *export_str(const mgpu_topo *t, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f) return NULL;
    mgpu_result r = mgpu_topo_write_xml(t, f);
    fclose(f);
    if (r != MGPU_OK) {
        free(buf);
        return NULL;
    }
    return buf;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) b[n] = 0, *len = (size_t)n;
    return b;
}

/* export(t) -> parse -> export must give the same bytes. */
static void round_trip(const mgpu_topo *t, const char *what)
{
    size_t l1 = 0, l2 = 0;
    char *x1 = export_str(t, &l1);
    CHECKF(x1 != NULL, "%s: export", what);
    if (!x1) return;
    mgpu_topo *u = NULL;
    CHECK_OK(mgpu_topo_parse_xml(x1, l1, what, &u));
    char *x2 = u ? export_str(u, &l2) : NULL;
    CHECKF(x2 && l1 == l2 && memcmp(x1, x2, l1) == 0, "%s: round trip differs", what);
    if (u) {
        CHECK(mgpu_topo_gpu_count(u) == mgpu_topo_gpu_count(t));
        CHECK(mgpu_topo_nic_count(u) == mgpu_topo_nic_count(t));
        CHECK(mgpu_topo_host_count(u) == mgpu_topo_host_count(t));
        for (int i = 0; i < mgpu_topo_gpu_count(t); i++)
            for (int j = 0; j < mgpu_topo_gpu_count(t); j++) {
                mgpu_topo_path a = mgpu_topo_gpu_path(t, i, j), b = mgpu_topo_gpu_path(u, i, j);
                CHECK(a.type == b.type && a.nvlinks == b.nvlinks && fabs(a.bw_gbs - b.bw_gbs) < 1e-9);
            }
    }
    mgpu_topo_free(u);
    free(x1);
    free(x2);
}

static void presets(void)
{
    for (const char *const *n = mgpu_topo_preset_names(); *n; n++) {
        mgpu_topo *t = NULL;
        CHECK_OK(mgpu_topo_preset(*n, &t));
        if (t) round_trip(t, *n);
        mgpu_topo_free(t);
    }
}

static void format(void)
{
    mgpu_topo *t = NULL;
    CHECK_OK(mgpu_topo_preset("dgx-h100", &t));
    size_t l = 0;
    char *x = t ? export_str(t, &l) : NULL;
    /* NCCL's writer: no XML declaration, <system version="1"> at column 0,
     * two spaces per level, attributes in NCCL's order, self-closed leaves. */
    CHECK(x && strncmp(x, "<system version=\"1\">\n  <cpu host_hash=\"0x", 41) == 0);
    CHECK(x && strstr(x, "\n    <pci busid=\"0000:16:00.0\" class=\"0x060400\" vendor=\"0x1000\" device=\"0xc030\" "
                         "subsystem_vendor=\"0x1000\" subsystem_device=\"0x100b\" link_speed=\"32.0 GT/s PCIe\" "
                         "link_width=\"16\">\n"));
    CHECK(x && strstr(x, "\n        <gpu dev=\"0\" sm=\"90\" rank=\"0\" gdr=\"1\">\n"
                         "          <nvlink target=\"0000:05:00.0\" count=\"5\" tclass=\"0x068000\"/>\n"));
    CHECK(x && strstr(x, "<net name=\"mlx5_0\" dev=\"0\" speed=\"400000\" port=\"1\" latency=\"0.000000\" guid=\"0x"));
    CHECK(x && strstr(x, "affinity=\"00000000,000000ff,ffffffff,ffff0000,00000000,00ffffff,ffffffff\""));
    CHECK(x && l > 10 && strcmp(x + l - 10, "</system>\n") == 0);
    free(x);
    mgpu_topo_free(t);

    CHECK_OK(mgpu_topo_preset("2x-dgx-h100", &t));
    x = t ? export_str(t, &l) : NULL;
    CHECK(x && strncmp(x, "<mgpulab-cluster version=\"1\">\n  <system version=\"1\">\n    <cpu ", 62) == 0);
    CHECK(x && strstr(x, "\n  </system>\n  <system version=\"1\">\n"));
    CHECK(x && l > 19 && strcmp(x + l - 19, "</mgpulab-cluster>\n") == 0);
    free(x);
    mgpu_topo_free(t);
}

static void data_file(const char *name, int gpus, int nics)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/topo/%s", MGPU_SOURCE_DIR, name);
    size_t fl = 0;
    char *file = read_file(path, &fl);
    CHECKF(file != NULL, "read %s", path);
    mgpu_topo *t = NULL;
    CHECK_OK(mgpu_topo_load_xml(path, &t));
    if (t && file) {
        CHECK(mgpu_topo_gpu_count(t) == gpus);
        CHECK(mgpu_topo_nic_count(t) == nics);
        CHECK(strcmp(mgpu_topo_machine_name(t), path) == 0);
        /* The files are written in NCCL's layout, so the first export
         * reproduces them exactly. */
        size_t l = 0;
        char *x = export_str(t, &l);
        CHECKF(x && l == fl && memcmp(x, file, l) == 0, "%s: export differs from the file", name);
        free(x);
        round_trip(t, name);
    }
    free(file);
    mgpu_topo_free(t);
}

static void data_views(void)
{
    char path[512];
    mgpu_topo *t = NULL;
    snprintf(path, sizeof path, "%s/tests/data/topo/a100-2socket-mixed.xml", MGPU_SOURCE_DIR);
    CHECK_OK(mgpu_topo_load_xml(path, &t));
    if (t) {
        mgpu_topo_path p = mgpu_topo_gpu_path(t, 0, 1);
        CHECK(p.type == MGPU_PATH_NV && p.nvlinks == 12 && fabs(p.bw_gbs - 300.0) < 1e-9);
        CHECK(mgpu_topo_gpu_path(t, 0, 2).type == MGPU_PATH_NODE);
        CHECK(mgpu_topo_gpu_path(t, 0, 3).type == MGPU_PATH_SYS);
        CHECK(fabs(mgpu_topo_gpu_path(t, 0, 3).bw_gbs - 16.0) < 1e-9); /* NCCL's AMD Zen1/2 figure */
        CHECK(mgpu_topo_gpu_nic_path(t, 0, 0).type == MGPU_PATH_PIX);
        CHECK(mgpu_topo_gpu_nic_path(t, 1, 0).type == MGPU_PATH_PXB);
        CHECK(mgpu_topo_gpu_nic_path(t, 0, 1).type == MGPU_PATH_NODE); /* socket NIC under <cpu> */
        CHECK(strcmp(mgpu_topo_nic_at(t, 1)->name, "eno1") == 0);
        CHECK(fabs(mgpu_topo_gpu_at(t, 2)->pcie_gbs - 16.0 * 8 * 128 / 130 / 8) < 1e-9);
        CHECKF(strcmp(mgpu_topo_gpu_at(t, 0)->cpulist, "0-47") == 0, "%s", mgpu_topo_gpu_at(t, 0)->cpulist);
        CHECKF(strcmp(mgpu_topo_gpu_at(t, 3)->cpulist, "48-95") == 0, "%s", mgpu_topo_gpu_at(t, 3)->cpulist);
        CHECK(mgpu_topo_gpu_at(t, 3)->numa == 1);
        CHECK(strcmp(mgpu_topo_gpu_at(t, 1)->busid, "0000:4e:00.0") == 0);
        CHECK(mgpu_topo_peer_access(t, 0, 3) == 0 && mgpu_topo_peer_access(t, 0, 2) == 1);
    }
    mgpu_topo_free(t);
    t = NULL;
    snprintf(path, sizeof path, "%s/tests/data/topo/vm-h200-8gpu.xml", MGPU_SOURCE_DIR);
    CHECK_OK(mgpu_topo_load_xml(path, &t));
    if (t) {
        mgpu_topo_path p = mgpu_topo_gpu_path(t, 0, 3);
        CHECK(p.type == MGPU_PATH_NV && p.nvlinks == 18);
        CHECK(mgpu_topo_gpu_at(t, 0)->numa == -1 && mgpu_topo_gpu_at(t, 0)->cpulist[0] == 0);
        CHECK(strcmp(mgpu_topo_gpu_at(t, 2)->name, "NVIDIA H200") == 0);
        CHECK(mgpu_topo_gpu_nic_path(t, 0, 0).type == MGPU_PATH_NODE);
        CHECK(fabs(mgpu_topo_nic_at(t, 2)->speed_gbps - 10.0) < 1e-9 && mgpu_topo_nic_at(t, 2)->gdr == 0);
    }
    mgpu_topo_free(t);
}

static void from_trees(void)
{
    /* A tree built in code (as discovery does) works like a parsed one. */
    mgpu_xml_node *s = mgpu_xml_new("system");
    CHECK_OK(mgpu_xml_set(s, "version", "1"));
    mgpu_xml_node *cpu = mgpu_xml_add_child(s, "cpu");
    CHECK_OK(mgpu_xml_set(cpu, "numaid", "0"));
    CHECK_OK(mgpu_xml_set(cpu, "affinity", "0000ffff"));
    mgpu_xml_node *pci = mgpu_xml_add_child(cpu, "pci");
    CHECK_OK(mgpu_xml_set(pci, "busid", "0000:19:00.0"));
    CHECK_OK(mgpu_xml_setf(pci, "device", "0x%04x", 0x2335));
    mgpu_xml_node *g = mgpu_xml_add_child(pci, "gpu");
    CHECK_OK(mgpu_xml_set(g, "dev", "0"));
    CHECK_OK(mgpu_xml_set(g, "dev", "0")); /* replace keeps one */
    CHECK(g->nattrs == 1 && strcmp(mgpu_xml_get(g, "dev"), "0") == 0 && mgpu_xml_get(g, "sm") == NULL);
    char big[400];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    CHECK(mgpu_xml_set(g, "x", big) == MGPU_ERR_INVALID);
    CHECK(mgpu_xml_set(g, "a-very-long-attribute-name-beyond-31", "1") == MGPU_ERR_INVALID);
    mgpu_topo *t = NULL;
    mgpu_xml_node *hosts[1] = {s};
    CHECK_OK(mgpu_topo_from_trees(hosts, 1, "this machine", 0, &t));
    if (t) {
        CHECK(mgpu_topo_simulated(t) == 0);
        CHECK(strcmp(mgpu_topo_gpu_at(t, 0)->name, "NVIDIA H200") == 0);
        CHECK(strcmp(mgpu_topo_gpu_at(t, 0)->cpulist, "0-15") == 0);
        CHECK(mgpu_topo_host_tree(t, 0) == s && mgpu_topo_host_tree(t, 1) == NULL);
        mgpu_topo_add_note(t, "NVML not found: NVLink state %s", "unknown");
        CHECK(mgpu_topo_notes(t)[0] && strstr(mgpu_topo_notes(t)[0], "NVML") && !mgpu_topo_notes(t)[1]);
    }
    mgpu_topo_free(t);
}

/* Every fuzz seed is a valid file that round-trips (they are kept valid so
 * mutations start from inputs that reach the view). */
static void fuzz_seeds(void)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus", MGPU_SOURCE_DIR);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        mgpu_topo *t = NULL;
        CHECK_OK(mgpu_topo_load_xml(path, &t));
        if (t) round_trip(t, e->d_name);
        mgpu_topo_free(t);
        n++;
    }
    if (d) closedir(d);
    CHECK(n >= 3);
}

int main(void)
{
    fuzz_seeds();
    presets();
    format();
    data_file("vm-h200-8gpu.xml", 4, 3);
    data_file("a100-2socket-mixed.xml", 4, 2);
    data_views();
    from_trees();
    return tap_done();
}
