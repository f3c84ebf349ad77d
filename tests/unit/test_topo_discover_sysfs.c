/* test_topo_discover_sysfs.c - discovery over a fake sysfs tree made at run
 * time: PCIe switch chains, host bridges, NUMA and affinity, NICs, and the
 * notes for what a tree hides. */
#include "mgpu/dev.h"
#include "mgpu/topo.h"
#include "tap.h"
#include "mgpu/nvml_dl.h"
#include "topo/topo_sysfs.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[512];

static void mkdirs(const char *path)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0755);
            *s = '/';
        }
    mkdir(p, 0755);
}

static void put(const char *rel, const char *content)
{
    char path[PATH_MAX], dir[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    mkdirs(dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cannot create %s: %s\n", path, strerror(errno));
        exit(1);
    }
    fprintf(f, "%s\n", content);
    fclose(f);
}

static void link_to(const char *rel, const char *target)
{
    char path[PATH_MAX], dir[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    mkdirs(dir);
    if (symlink(target, path) != 0) {
        fprintf(stderr, "cannot link %s: %s\n", path, strerror(errno));
        exit(1);
    }
}

/* A PCI function: its sysfs directory under sys/devices and the
 * sys/bus/pci/devices link to it. */
static void pci_dev(const char *devpath, const char *cls, const char *device, const char *speed, int width,
                    const char *numa)
{
    char rel[PATH_MAX], w[16];
    const char *busid = strrchr(devpath, '/') + 1;
    snprintf(rel, sizeof rel, "sys/devices/%s/class", devpath);
    put(rel, cls);
    snprintf(rel, sizeof rel, "sys/devices/%s/vendor", devpath);
    put(rel, strncmp(cls, "0x0302", 6) == 0 ? "0x10de" : strncmp(cls, "0x0207", 6) == 0 ? "0x15b3" : "0x1000");
    snprintf(rel, sizeof rel, "sys/devices/%s/device", devpath);
    put(rel, device);
    snprintf(rel, sizeof rel, "sys/devices/%s/subsystem_vendor", devpath);
    put(rel, "0x10de");
    snprintf(rel, sizeof rel, "sys/devices/%s/subsystem_device", devpath);
    put(rel, "0x16c1");
    snprintf(rel, sizeof rel, "sys/devices/%s/max_link_speed", devpath);
    put(rel, speed);
    snprintf(rel, sizeof rel, "sys/devices/%s/max_link_width", devpath);
    snprintf(w, sizeof w, "%d", width);
    put(rel, w);
    snprintf(rel, sizeof rel, "sys/devices/%s/numa_node", devpath);
    put(rel, numa);
    snprintf(rel, sizeof rel, "sys/devices/%s/local_cpus", devpath);
    put(rel, strcmp(numa, "1") == 0 ? "ffff0000" : "0000ffff");
    char target[PATH_MAX];
    snprintf(rel, sizeof rel, "sys/bus/pci/devices/%s", busid);
    snprintf(target, sizeof target, "../../../devices/%s", devpath);
    link_to(rel, target);
}

#define RC15 "pci0000:15/0000:15:01.0"
#define SW16 RC15 "/0000:16:00.0"

/* Socket 0: a switch (16:00.0) with GPU0, GPU1 and mlx5_0 below it, and
 * GPU3 on another root port of the same root complex; socket 1: GPU2 on
 * its own root complex. */
static void make_tree(int with_numa)
{
    const char *n0 = with_numa ? "0" : "-1", *n1 = with_numa ? "1" : "-1";
    pci_dev("pci0000:15/0000:15:01.0", "0x060400", "0x1bbf", "32.0 GT/s PCIe", 16, n0);
    pci_dev(SW16, "0x060400", "0xc010", "32.0 GT/s PCIe", 16, n0);
    pci_dev(SW16 "/0000:17:00.0", "0x060400", "0xc010", "32.0 GT/s PCIe", 16, n0);
    pci_dev(SW16 "/0000:17:00.0/0000:19:00.0", "0x030200", "0x2330", "32.0 GT/s PCIe", 16, n0);
    pci_dev(SW16 "/0000:17:01.0", "0x060400", "0xc010", "32.0 GT/s PCIe", 16, n0);
    pci_dev(SW16 "/0000:17:01.0/0000:1a:00.0", "0x030200", "0x2330", "32.0 GT/s PCIe", 16, n0);
    pci_dev(SW16 "/0000:17:02.0", "0x060400", "0xc010", "16.0 GT/s PCIe", 16, n0);
    pci_dev(SW16 "/0000:17:02.0/0000:1b:00.0", "0x020700", "0x1021", "32.0 GT/s PCIe", 16, n0);
    pci_dev("pci0000:15/0000:15:02.0", "0x060400", "0x1bbf", "32.0 GT/s PCIe", 16, n0);
    pci_dev("pci0000:15/0000:15:02.0/0000:20:00.0", "0x030200", "0x2330", "32.0 GT/s PCIe", 8, n0);
    pci_dev("pci0000:9a/0000:9a:01.0", "0x060400", "0x1bbf", "32.0 GT/s PCIe", 16, n1);
    pci_dev("pci0000:9a/0000:9a:01.0/0000:9b:00.0", "0x030200", "0x2330", "32.0 GT/s PCIe", 16, n1);
    put("sys/devices/system/node/node0/cpumap", "0000ffff");
    put("sys/devices/system/node/node1/cpumap", "ffff0000");
    put("proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
                        "model name\t: Intel(R) Xeon(R) Platinum 8480C\n");
    link_to("sys/class/infiniband/mlx5_0/device", "../../../devices/" SW16 "/0000:17:02.0/0000:1b:00.0");
    put("sys/class/infiniband/mlx5_0/node_guid", "946d:ae03:00fb:2a1c");
    put("sys/class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE");
    put("sys/class/infiniband/mlx5_0/ports/1/rate", "400 Gb/sec (4X NDR)");
    put("sys/module/nvidia_peermem/refcnt", "0");
}

static mgpu_disc_gpu gpu_fact(int dev, const char *busid)
{
    mgpu_disc_gpu g;
    memset(&g, 0, sizeof g);
    g.dev = dev;
    snprintf(g.busid, sizeof g.busid, "%s", busid);
    snprintf(g.name, sizeof g.name, "NVIDIA H100 80GB HBM3");
    g.sm = 90;
    g.numa_hint = -1;
    return g;
}

static int has_note(const mgpu_topo *t, const char *needle)
{
    const char *const *n = mgpu_topo_notes(t);
    for (int i = 0; n && n[i]; i++)
        if (strstr(n[i], needle)) return 1;
    return 0;
}

static mgpu_topo *build(mgpu_disc_gpu *gpus, int n, mgpu_disc_notes *notes)
{
    mgpu_xml_node *sys = NULL;
    mgpu_topo *t = NULL;
    memset(notes, 0, sizeof *notes);
    CHECK_OK(mgpu_sysfs_build_host(root, gpus, n, notes, &sys));
    if (!sys) return NULL;
    CHECK_OK(mgpu_topo_from_trees(&sys, 1, "this machine", 0, &t));
    for (int i = 0; t && i < notes->n; i++) mgpu_topo_add_note(t, "%s", notes->text[i]);
    return t;
}

static void test_tree(void)
{
    make_tree(1);
    mgpu_disc_gpu g[4] = {gpu_fact(0, "0000:19:00.0"), gpu_fact(1, "0000:1a:00.0"), gpu_fact(2, "0000:9b:00.0"),
                          gpu_fact(3, "0000:20:00.0")};
    g[0].nlinks = g[1].nlinks = 1;
    snprintf(g[0].links[0].target, sizeof g[0].links[0].target, "0000:1a:00.0");
    snprintf(g[1].links[0].target, sizeof g[1].links[0].target, "0000:19:00.0");
    g[0].links[0].count = g[1].links[0].count = 4;
    mgpu_disc_notes *notes = malloc(sizeof *notes);
    mgpu_topo *t = build(g, 4, notes);
    CHECK(t != NULL);
    if (!t) goto out;
    CHECK(mgpu_topo_gpu_count(t) == 4);
    CHECK(mgpu_topo_nic_count(t) == 1);
    CHECK(!mgpu_topo_simulated(t));

    mgpu_topo_path p = mgpu_topo_gpu_path(t, 0, 1);
    CHECKF(p.type == MGPU_PATH_NV && p.nvlinks == 4, "GPU0-GPU1 %s%d", mgpu_path_type_name(p.type), p.nvlinks);
    p = mgpu_topo_gpu_path(t, 0, 3);
    CHECKF(p.type == MGPU_PATH_PHB, "GPU0-GPU3 (same root complex) is %s", mgpu_path_type_name(p.type));
    p = mgpu_topo_gpu_path(t, 0, 2);
    CHECKF(p.type == MGPU_PATH_SYS, "GPU0-GPU2 (other socket) is %s", mgpu_path_type_name(p.type));
    p = mgpu_topo_gpu_nic_path(t, 0, 0);
    CHECKF(p.type == MGPU_PATH_PIX, "GPU0-NIC0 (one switch) is %s", mgpu_path_type_name(p.type));
    p = mgpu_topo_gpu_nic_path(t, 3, 0);
    CHECKF(p.type == MGPU_PATH_PHB, "GPU3-NIC0 is %s", mgpu_path_type_name(p.type));
    p = mgpu_topo_gpu_nic_path(t, 2, 0);
    CHECKF(p.type == MGPU_PATH_SYS, "GPU2-NIC0 is %s", mgpu_path_type_name(p.type));

    const mgpu_topo_gpu *g0 = mgpu_topo_gpu_at(t, 0), *g2 = mgpu_topo_gpu_at(t, 2), *g3 = mgpu_topo_gpu_at(t, 3);
    CHECK(strcmp(g0->busid, "0000:19:00.0") == 0);
    CHECK(g0->numa == 0 && g2->numa == 1);
    CHECKF(strcmp(g0->cpulist, "0-15") == 0, "cpulist %s", g0->cpulist);
    CHECKF(strcmp(g2->cpulist, "16-31") == 0, "cpulist %s", g2->cpulist);
    CHECK(g0->sm == 90 && g0->gdr == 1);
    /* GPU3 is x8: its PCIe rate is half GPU0's. */
    CHECKF(g3->pcie_gbs > 0 && g3->pcie_gbs < g0->pcie_gbs * 0.6, "pcie %g vs %g", g3->pcie_gbs, g0->pcie_gbs);

    const mgpu_topo_nic *nic = mgpu_topo_nic_at(t, 0);
    CHECK(strcmp(nic->name, "mlx5_0") == 0);
    CHECK(strcmp(nic->busid, "0000:1b:00.0") == 0);
    CHECKF(nic->speed_gbps == 400.0, "speed %g", nic->speed_gbps);
    CHECK(nic->gdr == 1 && nic->port == 1 && nic->numa == 0);

    /* The tree is NCCL's shape: <cpu> > <pci host bridge> > <pci switch> > <pci gpu> > <gpu>. */
    const mgpu_xml_node *gn = g0->node, *sw = gn->parent->parent;
    CHECK(strcmp(gn->parent->name, "pci") == 0);
    CHECK(sw && strcmp(mgpu_xml_get(sw, "busid"), "0000:16:00.0") == 0);
    CHECK(strcmp(mgpu_xml_get(gn->parent, "link_speed"), "32.0 GT/s PCIe") == 0);
    CHECK(strcmp(mgpu_xml_get(gn->parent, "link_width"), "16") == 0);
    const mgpu_xml_node *cpu = sw->parent->parent;
    CHECK(cpu && strcmp(cpu->name, "cpu") == 0 && strcmp(mgpu_xml_get(cpu, "numaid"), "0") == 0);
    CHECK(cpu && mgpu_xml_get(cpu, "vendor") && strcmp(mgpu_xml_get(cpu, "vendor"), "GenuineIntel") == 0);
    CHECK(cpu && mgpu_xml_get(cpu, "modelid") && strcmp(mgpu_xml_get(cpu, "modelid"), "143") == 0);
    /* mlx5_0's link is capped by its slower upstream port (16 GT/s). */
    const mgpu_xml_node *nicpci = nic->node->parent->parent;
    CHECK(strcmp(mgpu_xml_get(nicpci, "link_speed"), "16.0 GT/s PCIe") == 0);

    /* The XML survives a write and a parse unchanged. */
    char *buf = NULL, *buf2 = NULL;
    size_t len = 0, len2 = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_OK(mgpu_topo_write_xml(t, f));
    fclose(f);
    mgpu_topo *t2 = NULL;
    CHECK_OK(mgpu_topo_parse_xml(buf, len, "discovered.xml", &t2));
    if (t2) {
        f = open_memstream(&buf2, &len2);
        CHECK_OK(mgpu_topo_write_xml(t2, f));
        fclose(f);
        CHECK(len == len2 && memcmp(buf, buf2, len) == 0);
        CHECK(mgpu_topo_gpu_path(t2, 0, 3).type == MGPU_PATH_PHB);
        mgpu_topo_free(t2);
    }
    free(buf);
    free(buf2);
    mgpu_topo_free(t);
out:
    free(notes);
}

/* A VM: numa_node -1, and a GPU the tree does not have. Said, not invented. */
static void test_hidden(void)
{
    make_tree(0);
    mgpu_disc_gpu g[2] = {gpu_fact(0, "0000:19:00.0"), gpu_fact(1, "0000:c1:00.0")};
    mgpu_disc_notes *notes = malloc(sizeof *notes);
    mgpu_topo *t = build(g, 2, notes);
    CHECK(t != NULL);
    if (t) {
        CHECK(mgpu_topo_gpu_at(t, 0)->numa == -1);
        CHECK(mgpu_topo_gpu_at(t, 1)->busid[0] != '\0');
        CHECK(has_note(t, "gives no NUMA node"));
        CHECK(has_note(t, "0000:c1:00.0 is not in sysfs"));
        /* local_cpus still gives the affinity when the NUMA node is hidden. */
        CHECKF(strcmp(mgpu_topo_gpu_at(t, 0)->cpulist, "0-15") == 0, "cpulist %s", mgpu_topo_gpu_at(t, 0)->cpulist);
        mgpu_topo_free(t);
    }
    free(notes);
}

/* A one-socket VM (as on the H200 machine): numa_node -1 everywhere but a
 * single NUMA node, so the GPU and the NIC are on it, not SYS apart. */
static void test_one_node_vm(void)
{
    make_tree(0);
    char rel[PATH_MAX];
    snprintf(rel, sizeof rel, "%s/sys/devices/system/node/node1/cpumap", root);
    unlink(rel);
    snprintf(rel, sizeof rel, "%s/sys/devices/system/node/node1", root);
    rmdir(rel);
    mgpu_disc_gpu g[1] = {gpu_fact(0, "0000:19:00.0")};
    mgpu_disc_notes *notes = calloc(1, sizeof *notes);
    mgpu_topo *t = build(g, 1, notes);
    CHECK(t != NULL);
    if (t) {
        CHECKF(mgpu_topo_gpu_at(t, 0)->numa == 0, "numa %d", mgpu_topo_gpu_at(t, 0)->numa);
        CHECK(has_note(t, "one NUMA node"));
        CHECK(mgpu_topo_nic_count(t) == 1);
        if (mgpu_topo_nic_count(t) == 1) {
            CHECK(mgpu_topo_nic_at(t, 0)->numa == 0);
            CHECK(mgpu_topo_gpu_nic_path(t, 0, 0).type != MGPU_PATH_SYS);
        }
        mgpu_topo_free(t);
    }
    free(notes);
}

/* No /sys at all (a bare container): still a model, with notes. */
static void test_empty_root(void)
{
    char empty[600];
    snprintf(empty, sizeof empty, "%s/empty", root);
    mkdir(empty, 0755);
    mgpu_disc_gpu g[1] = {gpu_fact(0, "0000:19:00.0")};
    mgpu_disc_notes *notes = calloc(1, sizeof *notes);
    mgpu_xml_node *sys = NULL;
    mgpu_topo *t = NULL;
    CHECK_OK(mgpu_sysfs_build_host(empty, g, 1, notes, &sys));
    if (sys) CHECK_OK(mgpu_topo_from_trees(&sys, 1, "this machine", 0, &t));
    CHECK(t && mgpu_topo_gpu_count(t) == 1 && mgpu_topo_nic_count(t) == 0);
    int missing = 0;
    for (int i = 0; i < notes->n; i++) missing |= strstr(notes->text[i], "is missing") != NULL;
    CHECK(missing);
    mgpu_topo_free(t);
    free(notes);
}

/* The whole discovery through a backend (sim here: its PCI ids are not in
 * the fake tree, and this machine has no NVML): notes, no crash. */
static void test_discover_backend(void)
{
    mgpu_backend_config cfg = {MGPU_BACKEND_SIM, "pcie-4gpu", NULL};
    mgpu_backend *be = NULL;
    CHECK_OK(mgpu_backend_open(&cfg, &be));
    if (!be) return;
    mgpu_topo *t = NULL;
    CHECK_OK(mgpu_topo_discover(be, root, &t));
    int n = 0;
    mgpu_device_count(be, &n);
    CHECK(t && mgpu_topo_gpu_count(t) == n);
    if (t) {
        CHECK(!mgpu_topo_simulated(t));
        CHECK(has_note(t, "not in sysfs"));
        /* Peer access comes from the backend for every pair. */
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++) {
                if (a == b) continue;
                int can = -1;
                mgpu_peer_can_access(be, a, b, &can);
                CHECK(mgpu_topo_peer_access(t, a, b) == can);
            }
        mgpu_topo_free(t);
    }
    mgpu_backend_close(be);
}

static void test_mask_and_nvml(void)
{
    unsigned long w[4] = {0xffUL, 0, 0, 0};
    char s[128];
    mgpu_sysfs_mask_string(w, 4, s, sizeof s);
    CHECKF(strcmp(s, "000000ff") == 0, "%s", s);
    w[1] = 1UL; /* CPU 64 */
    mgpu_sysfs_mask_string(w, 4, s, sizeof s);
    CHECKF(strcmp(s, "00000001,00000000,000000ff") == 0, "%s", s);
    char b[20];
    nvml_dl_normalize_busid("00000000:1A:00.0", b, sizeof b);
    CHECK(strcmp(b, "0000:1a:00.0") == 0);
    /* Without the driver NVML fails with a message, never a crash; with it
     * the device count answers. */
    if (nvml_dl_open() == MGPU_OK) {
        unsigned c = 0;
        CHECK_OK(nvml_dl_device_count(&c));
        nvml_dl_close();
    } else {
        CHECK(strstr(mgpu_error_message(), "NVML") != NULL);
        nvml_device d;
        CHECK(nvml_dl_device_by_index(0, &d) == MGPU_ERR_UNSUPPORTED);
    }
}

static void rm_rf(const char *path)
{
    char cmd[PATH_MAX + 32];
    if (strncmp(path, "/tmp/mgpu-sysfs-", 16) != 0) return; /* only our own directory */
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", path);
}

int main(void)
{
    char tmpl[] = "/tmp/mgpu-sysfs-XXXXXX";
    if (!mkdtemp(tmpl)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(root, sizeof root, "%s/a", tmpl);
    test_tree();
    snprintf(root, sizeof root, "%s/b", tmpl);
    test_hidden();
    test_empty_root();
    snprintf(root, sizeof root, "%s/c", tmpl);
    test_one_node_vm();
    snprintf(root, sizeof root, "%s/a", tmpl);
    test_discover_backend();
    test_mask_and_nvml();
    rm_rf(tmpl);
    return tap_done();
}
