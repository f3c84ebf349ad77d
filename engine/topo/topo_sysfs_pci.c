/* topo_sysfs_pci.c - the sysfs readers the host builder (topo_sysfs.c) and
 * the NIC finder (topo_sysfs_nic.c) share: notes, paths and files, tree
 * helpers, the <cpu> a device hangs from, and the PCIe chain builder. Both
 * call down into this file; it calls neither. */
#include "topo/topo_sysfs.h"
#include "topo/topo_sysfs_internal.h"
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void mgpu_disc_note(mgpu_disc_notes *notes, const char *fmt, ...)
{
    if (!notes || notes->n >= MGPU_DISC_MAX_NOTES) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(notes->text[notes->n], sizeof notes->text[0], fmt, ap);
    va_end(ap);
    for (int i = 0; i < notes->n; i++) /* the same fact from many GPUs is said once */
        if (strcmp(notes->text[i], notes->text[notes->n]) == 0) return;
    notes->n++;
}

/*--- Small file helpers ----------------------------------------------------*/

/* snprintf for paths: a path longer than PATH_MAX becomes "" (it cannot
 * exist), never a truncated path to some other file. */
void sysfs_pathf(char *out, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(out, len, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= len) out[0] = '\0';
}

/* Read the first line of dir/name into buf (newline stripped). 0 if absent. */
int sysfs_read_line(const char *dir, const char *name, char *buf, size_t len)
{
    char path[PATH_MAX];
    sysfs_pathf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (!ok) return 0;
    buf[strcspn(buf, "\n")] = '\0';
    return 1;
}

int sysfs_exists(const char *root, const char *rel)
{
    char path[PATH_MAX];
    struct stat st;
    sysfs_pathf(path, sizeof path, "%s%s", root, rel);
    return stat(path, &st) == 0;
}

/* "BBBB:BB:DD.F", as NCCL's checkBDFFormat. */
int sysfs_is_bdf(const char *s)
{
    if (strlen(s) != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.') return 0;
    for (int i = 0; i < 12; i++)
        if (i != 4 && i != 7 && i != 10 && !isxdigit((unsigned char)s[i])) return 0;
    return 1;
}

/* Split an absolute path into components (in place); returns the count. */
int sysfs_split_path(char *p, char **comps, int max)
{
    int n = 0;
    for (char *tok = strtok(p, "/"); tok && n < max; tok = strtok(NULL, "/")) comps[n++] = tok;
    return n;
}

/* The directory made of comps[0..upto]. */
static void join_path(char **comps, int upto, char *out, size_t len)
{
    size_t off = 0;
    out[0] = '\0';
    for (int i = 0; i <= upto && off < len; i++) off += (size_t)snprintf(out + off, len - off, "/%s", comps[i]);
}

/*--- Tree helpers ------------------------------------------------------------*/

static mgpu_xml_node *find_kv(mgpu_xml_node *n, const char *name, const char *key, const char *value)
{
    const char *v = mgpu_xml_get(n, key);
    if (strcmp(n->name, name) == 0 && v && strcmp(v, value) == 0) return n;
    for (int i = 0; i < n->nchildren; i++) {
        mgpu_xml_node *hit = find_kv(n->children[i], name, key, value);
        if (hit) return hit;
    }
    return NULL;
}

mgpu_xml_node *sysfs_child_named(mgpu_xml_node *n, const char *name)
{
    for (int i = 0; i < n->nchildren; i++)
        if (strcmp(n->children[i]->name, name) == 0) return n->children[i];
    return NULL;
}

mgpu_result sysfs_add_child(mgpu_xml_node *parent, const char *name, mgpu_xml_node **out)
{
    *out = mgpu_xml_add_child(parent, name);
    if (!*out) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory building the topology tree");
    return MGPU_OK;
}

/*--- CPUs --------------------------------------------------------------------*/

static const char *build_arch(void)
{
#if defined(__x86_64__)
    return "x86_64";
#elif defined(__aarch64__)
    return "arm64";
#elif defined(__PPC__)
    return "ppc64";
#else
    return NULL;
#endif
}

/* vendor/familyid/modelid as NCCL derives them from CPUID: family is
 * base + (extended << 4), which /proc/cpuinfo shows as base + extended. */
static void cpu_model(const char *root, char *vendor, size_t vlen, int *family, int *model)
{
    char path[PATH_MAX], line[256];
    vendor[0] = '\0';
    *family = *model = -1;
    sysfs_pathf(path, sizeof path, "%s/proc/cpuinfo", root);
    FILE *f = fopen(path, "r");
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon) {
            if (vendor[0]) break; /* end of the first processor's block */
            continue;
        }
        char *val = colon + 1;
        while (*val == ' ' || *val == '\t') val++;
        val[strcspn(val, "\n")] = '\0';
        char *k = colon; /* the key, without the tabs before the colon */
        while (k > line && (k[-1] == ' ' || k[-1] == '\t')) k--;
        *k = '\0';
        if (strcmp(line, "vendor_id") == 0) snprintf(vendor, vlen, "%s", val);
        else if (strcmp(line, "cpu family") == 0) *family = atoi(val);
        else if (strcmp(line, "model") == 0) *model = atoi(val);
    }
    fclose(f);
    if (*family >= 15) *family = 15 + ((*family - 15) << 4);
}

/* The id of the machine's only NUMA node, or -1 when it has several or
 * sysfs does not say: a device with no numa_node on a one-node machine
 * (a VM, usually) can only be on that node, and a second <cpu numaid="-1">
 * would show it as SYS to everything. */
static int single_numa_node(const char *root)
{
    char dir[PATH_MAX];
    sysfs_pathf(dir, sizeof dir, "%s/sys/devices/system/node", root);
    DIR *d = opendir(dir);
    if (!d) return -1;
    int found = -1, count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end = NULL;
        if (strncmp(e->d_name, "node", 4) != 0 || !isdigit((unsigned char)e->d_name[4])) continue;
        long id = strtol(e->d_name + 4, &end, 10);
        if (*end) continue;
        found = (int)id;
        count++;
    }
    closedir(d);
    return count == 1 ? found : -1;
}

/* The <cpu> of NUMA node `numa` (-1 unknown), created on first use.
 * Affinity: the node's cpumap, else the device's local_cpus, else NVML's. */
mgpu_result sysfs_get_cpu(const char *root, mgpu_xml_node *system, int numa, const char *devdir,
                           const char *affinity_hint, mgpu_disc_notes *notes, mgpu_xml_node **out)
{
    char numastr[16];
    snprintf(numastr, sizeof numastr, "%d", numa);
    for (int i = 0; i < system->nchildren; i++) {
        mgpu_xml_node *c = system->children[i];
        const char *id = mgpu_xml_get(c, "numaid");
        if (strcmp(c->name, "cpu") == 0 && id && strcmp(id, numastr) == 0) {
            *out = c;
            return MGPU_OK;
        }
    }
    mgpu_xml_node *cpu;
    MGPU_CHECK(sysfs_add_child(system, "cpu", &cpu));
    MGPU_CHECK(mgpu_xml_set(cpu, "numaid", numastr));
    char mask[1024] = "";
    if (numa >= 0) {
        char dir[PATH_MAX];
        sysfs_pathf(dir, sizeof dir, "%s/sys/devices/system/node/node%d", root, numa);
        sysfs_read_line(dir, "cpumap", mask, sizeof mask);
    }
    if (!mask[0] && devdir) sysfs_read_line(devdir, "local_cpus", mask, sizeof mask);
    if (!mask[0] && affinity_hint && affinity_hint[0]) snprintf(mask, sizeof mask, "%s", affinity_hint);
    if (strlen(mask) >= MGPU_XML_VALUE_LEN) {
        mgpu_disc_note(notes, "the CPU mask of NUMA node %d is longer than NCCL's %d-character attribute limit; "
                       "affinity left out", numa, MGPU_XML_VALUE_LEN - 1);
    } else if (mask[0]) MGPU_CHECK(mgpu_xml_set(cpu, "affinity", mask));
    else mgpu_disc_note(notes, "CPU affinity of NUMA node %d is unknown: sysfs shows no cpumap or local_cpus", numa);
    const char *arch = build_arch();
    if (arch) MGPU_CHECK(mgpu_xml_set(cpu, "arch", arch));
    char vendor[64];
    int family, model;
    cpu_model(root, vendor, sizeof vendor, &family, &model);
    if (vendor[0]) MGPU_CHECK(mgpu_xml_set(cpu, "vendor", vendor));
    if (family >= 0) MGPU_CHECK(mgpu_xml_setf(cpu, "familyid", "%d", family));
    if (model >= 0) MGPU_CHECK(mgpu_xml_setf(cpu, "modelid", "%d", model));
    if (!vendor[0] && arch && strcmp(arch, "x86_64") == 0)
        mgpu_disc_note(notes, "CPU vendor and model are unknown: %s/proc/cpuinfo is unreadable", root);
    *out = cpu;
    return MGPU_OK;
}

/*--- PCI devices ---------------------------------------------------------------*/


/* Fill a new <pci> from its sysfs directory; the link is the slower of the
 * device's own and its upstream port's (NCCL reads max_link_* of both). */
static mgpu_result fill_pci(mgpu_xml_node *pci, const char *dir, const char *portdir, const char *default_class)
{
    static const char *const ids[] = {"class", "vendor", "device", "subsystem_vendor", "subsystem_device"};
    char v[128];
    for (int i = 0; i < 5; i++) {
        if (sysfs_read_line(dir, ids[i], v, sizeof v)) MGPU_CHECK(mgpu_xml_set(pci, ids[i], v));
        else if (i == 0 && default_class) MGPU_CHECK(mgpu_xml_set(pci, "class", default_class));
    }
    char dev_speed[64] = "", port_speed[64] = "";
    sysfs_read_line(dir, "max_link_speed", dev_speed, sizeof dev_speed);
    if (portdir) sysfs_read_line(portdir, "max_link_speed", port_speed, sizeof port_speed);
    float ds = 0, ps = 0;
    int have_d = sscanf(dev_speed, "%f GT/s", &ds) == 1, have_p = sscanf(port_speed, "%f GT/s", &ps) == 1;
    const char *speed = have_d && have_p ? (ps < ds ? port_speed : dev_speed) : have_d ? dev_speed : have_p ? port_speed : "";
    if (*speed) MGPU_CHECK(mgpu_xml_set(pci, "link_speed", speed));
    char w[32];
    int dw = sysfs_read_line(dir, "max_link_width", w, sizeof w) ? atoi(w) : 0;
    int pw = portdir && sysfs_read_line(portdir, "max_link_width", w, sizeof w) ? atoi(w) : 0;
    int width = dw && pw ? (dw < pw ? dw : pw) : dw ? dw : pw;
    /* Unknown links are left out rather than written empty as NCCL does:
     * an empty number is malformed to the model's reader. */
    if (width) MGPU_CHECK(mgpu_xml_setf(pci, "link_width", "%d", width));
    return MGPU_OK;
}

/* The <pci> of device `busid` with its chain of PCIe switches above it, up
 * to a <cpu>. As NCCL does, the chain steps two directories at a time: a
 * switch's downstream port and upstream port become one <pci> (the upstream
 * one), and a CPU root port is not a node. *numa_out: the node sysfs gives. */
mgpu_result sysfs_attach_pci(const char *root, mgpu_xml_node *system, top_list *tops, const char *busid,
                              const char *default_class, int numa_hint, const char *affinity_hint,
                              const char *what, mgpu_disc_notes *notes, mgpu_xml_node **out)
{
    mgpu_xml_node *existing = find_kv(system, "pci", "busid", busid);
    if (existing) {
        *out = existing;
        return MGPU_OK;
    }
    char link[PATH_MAX], real[PATH_MAX];
    sysfs_pathf(link, sizeof link, "%s/sys/bus/pci/devices/%s", root, busid);
    mgpu_xml_node *cpu, *pci;
    if (!realpath(link, real)) {
        /* A container or VM without this device in sysfs: place it under the
         * CPU CUDA/NVML name, or an unknown one, and say so. */
        mgpu_disc_note(notes, "%s %s is not in sysfs (%s): its PCIe path and NUMA node are unknown", what,
                       busid, link);
        MGPU_CHECK(sysfs_get_cpu(root, system, numa_hint, NULL, affinity_hint, notes, &cpu));
        MGPU_CHECK(sysfs_add_child(cpu, "pci", &pci));
        MGPU_CHECK(mgpu_xml_set(pci, "busid", busid));
        if (default_class) MGPU_CHECK(mgpu_xml_set(pci, "class", default_class));
        *out = pci;
        return MGPU_OK;
    }
    char *comps[128];
    int n = sysfs_split_path(real, comps, 128);
    int kept[64], nk = 0, i = n - 1;
    kept[nk++] = i;
    while (nk < 64 && i >= 2 && sysfs_is_bdf(comps[i - 1]) && sysfs_is_bdf(comps[i - 2])) {
        i -= 2;
        kept[nk++] = i;
    }
    char topdir[PATH_MAX], numastr[32] = "";
    join_path(comps, kept[nk - 1], topdir, sizeof topdir);
    int numa = -1;
    if (sysfs_read_line(topdir, "numa_node", numastr, sizeof numastr)) numa = atoi(numastr);
    if (numa < 0) {
        int only = numa_hint >= 0 ? -1 : single_numa_node(root);
        if (numa_hint >= 0) numa = numa_hint;
        else if (only >= 0) numa = only;
        mgpu_disc_note(notes,
                       "sysfs gives no NUMA node for %s %s (numa_node %s; common in virtual machines)%s",
                       what, busid, numastr[0] ? numastr : "absent",
                       numa_hint >= 0 ? "; using the node CUDA/NVML report"
                       : only >= 0    ? "; the machine has one NUMA node, so it is that one"
                                      : "; NUMA affinity unknown");
    }
    MGPU_CHECK(sysfs_get_cpu(root, system, numa, topdir, affinity_hint, notes, &cpu));
    mgpu_xml_node *parent = cpu;
    for (int k = nk - 1; k >= 0; k--) {
        const char *id = comps[kept[k]];
        char idl[20];
        snprintf(idl, sizeof idl, "%s", id);
        for (char *c = idl; *c; c++) *c = (char)tolower((unsigned char)*c);
        mgpu_xml_node *node = find_kv(system, "pci", "busid", idl);
        if (!node) {
            char dir[PATH_MAX], portdir[PATH_MAX];
            join_path(comps, kept[k], dir, sizeof dir);
            join_path(comps, kept[k] - 1, portdir, sizeof portdir);
            MGPU_CHECK(sysfs_add_child(parent, "pci", &node));
            MGPU_CHECK(mgpu_xml_set(node, "busid", idl));
            MGPU_CHECK(fill_pci(node, dir, kept[k] >= 1 && sysfs_is_bdf(comps[kept[k] - 1]) ? portdir : NULL,
                                k == 0 ? default_class : NULL));
            if (k == nk - 1 && tops->n < MAX_TOPS) {
                int rc = kept[k] - 1;
                while (rc >= 0 && sysfs_is_bdf(comps[rc])) rc--;
                if (rc >= 0 && strncmp(comps[rc], "pci", 3) == 0) {
                    tops->e[tops->n].node = node;
                    snprintf(tops->e[tops->n].rc, sizeof tops->e[0].rc, "%s", comps[rc]);
                    tops->n++;
                }
            }
        }
        parent = node;
    }
    *out = parent;
    return MGPU_OK;
}
