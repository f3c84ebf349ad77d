/* topo_sysfs_nic.c - the NICs of one host's topology tree from sysfs:
 * InfiniBand HCAs (with GPUDirect RDMA where the driver has it) and
 * Ethernet interfaces, attached under their PCIe chains. */
#include "topo/topo_sysfs_internal.h"
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*--- NICs ----------------------------------------------------------------------*/

static int name_filter(const struct dirent *d) { return d->d_name[0] != '.'; }

/* The PCI id of a class device's "device" link: the device itself, or its
 * parent for virtio-style children ("0000:00:03.0/virtio0"). */
static int device_busid(const char *classdir, char *busid, size_t len)
{
    char link[PATH_MAX], real[PATH_MAX];
    sysfs_pathf(link, sizeof link, "%s/device", classdir);
    if (!realpath(link, real)) return 0;
    char *comps[128];
    int n = sysfs_split_path(real, comps, 128);
    for (int i = n - 1; i >= 0 && i >= n - 2; i--)
        if (sysfs_is_bdf(comps[i])) {
            snprintf(busid, len, "%s", comps[i]);
            return 1;
        }
    return 0;
}

static mgpu_result add_net(const char *root, mgpu_xml_node *system, top_list *tops, const char *name, const char *busid,
                           double speed_mbps, int port, const char *guid, const char *maxconn, int gdr,
                           int dev, mgpu_disc_notes *notes)
{
    mgpu_xml_node *parent;
    if (busid[0]) {
        MGPU_CHECK(sysfs_attach_pci(root, system, tops, busid, "0x02", -1, NULL, "NIC", notes, &parent));
    } else {
        parent = sysfs_child_named(system, "cpu");
        if (!parent) MGPU_CHECK(sysfs_get_cpu(root, system, -1, NULL, NULL, notes, &parent));
    }
    mgpu_xml_node *nic = sysfs_child_named(parent, "nic"), *net;
    if (!nic) MGPU_CHECK(sysfs_add_child(parent, "nic", &nic));
    MGPU_CHECK(sysfs_add_child(nic, "net", &net));
    MGPU_CHECK(mgpu_xml_set(net, "name", name));
    MGPU_CHECK(mgpu_xml_setf(net, "dev", "%d", dev));
    MGPU_CHECK(mgpu_xml_setf(net, "speed", "%.0f", speed_mbps));
    MGPU_CHECK(mgpu_xml_setf(net, "port", "%d", port));
    MGPU_CHECK(mgpu_xml_set(net, "latency", "0.000000"));
    MGPU_CHECK(mgpu_xml_set(net, "guid", guid));
    MGPU_CHECK(mgpu_xml_set(net, "maxconn", maxconn));
    MGPU_CHECK(mgpu_xml_setf(net, "gdr", "%d", gdr));
    return MGPU_OK;
}

/* InfiniBand / RoCE devices: one <net> per device, from its first active
 * port (the first port when none is active, with a note). */
mgpu_result sysfs_add_ib_nics(const char *root, mgpu_xml_node *system, top_list *tops, int gdr, int *count,
                               mgpu_disc_notes *notes)
{
    char dir[PATH_MAX];
    sysfs_pathf(dir, sizeof dir, "%s/sys/class/infiniband", root);
    struct dirent **names = NULL;
    int n = scandir(dir, &names, name_filter, alphasort);
    mgpu_result res = MGPU_OK;
    for (int i = 0; i < n; i++) {
        if (res != MGPU_OK) {
            free(names[i]);
            continue;
        }
        char devdir[PATH_MAX], busid[20] = "", portsdir[PATH_MAX];
        sysfs_pathf(devdir, sizeof devdir, "%s/%s", dir, names[i]->d_name);
        device_busid(devdir, busid, sizeof busid);
        sysfs_pathf(portsdir, sizeof portsdir, "%s/ports", devdir);
        struct dirent **ports = NULL;
        int np = scandir(portsdir, &ports, name_filter, alphasort);
        int port = 1, active = 0;
        double gbps = 0;
        for (int p = 0; p < np; p++) {
            char pdir[PATH_MAX], state[64] = "", rate[64] = "";
            sysfs_pathf(pdir, sizeof pdir, "%s/%s", portsdir, ports[p]->d_name);
            sysfs_read_line(pdir, "state", state, sizeof state);
            int up = strstr(state, "ACTIVE") != NULL;
            if ((up && !active) || p == 0) {
                port = atoi(ports[p]->d_name);
                active = up;
                gbps = sysfs_read_line(pdir, "rate", rate, sizeof rate) ? atof(rate) : 0;
            }
        }
        for (int p = 0; p < np; p++) free(ports[p]);
        free(ports);
        if (!active)
            mgpu_disc_note(notes, "NIC %s has no active port (shown with port %d's rate)", names[i]->d_name, port);
        char raw[64] = "", guid[40] = "0x0";
        if (sysfs_read_line(devdir, "node_guid", raw, sizeof raw)) {
            char hex[32];
            int h = 0;
            for (char *c = raw; *c && h < 16; c++)
                if (isxdigit((unsigned char)*c)) hex[h++] = *c;
            hex[h] = '\0';
            snprintf(guid, sizeof guid, "0x%s", hex);
        }
        res = add_net(root, system, tops, names[i]->d_name, busid, gbps * 1000.0, port, guid, "131072", gdr,
                      *count, notes);
        if (res == MGPU_OK) (*count)++;
        free(names[i]);
    }
    free(names);
    return res;
}

/* Without RDMA devices: physical Ethernet ports (those with a device link;
 * lo, bridges and veths have none), as NCCL's socket transport would use. */
mgpu_result sysfs_add_eth_nics(const char *root, mgpu_xml_node *system, top_list *tops, int *count, mgpu_disc_notes *notes)
{
    char dir[PATH_MAX];
    sysfs_pathf(dir, sizeof dir, "%s/sys/class/net", root);
    struct dirent **names = NULL;
    int n = scandir(dir, &names, name_filter, alphasort);
    mgpu_result res = MGPU_OK;
    for (int i = 0; i < n; i++) {
        char ndir[PATH_MAX], busid[20] = "", speed[32] = "";
        sysfs_pathf(ndir, sizeof ndir, "%s/%s", dir, names[i]->d_name);
        if (res == MGPU_OK && sysfs_exists(ndir, "/device")) {
            device_busid(ndir, busid, sizeof busid);
            long mbps = sysfs_read_line(ndir, "speed", speed, sizeof speed) ? atol(speed) : -1;
            if (mbps <= 0) {
                mgpu_disc_note(notes, "Ethernet NIC %s reports no link speed (down, or hidden by a virtual NIC)",
                               names[i]->d_name);
                mbps = 0;
            }
            res = add_net(root, system, tops, names[i]->d_name, busid, (double)mbps, 0, "0x0", "65536", 0, *count, notes);
            if (res == MGPU_OK) (*count)++;
        }
        free(names[i]);
    }
    free(names);
    return res;
}

