/* cmd_topo.c - `mgpulab topo`: the `nvidia-smi topo -m` matrix and legend,
 * the peer-access matrix, the model's notes; or JSON, or NCCL topology XML. */
#include "cmd.h"
#include "mgpu/topo.h"
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: mgpulab topo [--json] [--xml [FILE]] [--peer]\n"
    "\n"
    "The machine's topology as `nvidia-smi topo -m` prints it: the link type between\n"
    "every pair of GPUs and NICs (X, NV#, PIX, PXB, PHB, NODE, SYS), each GPU's CPU and\n"
    "NUMA affinity, the NIC legend; then which GPU pairs can access each other's memory\n"
    "(cudaDeviceCanAccessPeer) and what discovery could not tell. On the cuda backend\n"
    "the topology is discovered (CUDA, NVML, sysfs); on sim it is the --machine model,\n"
    "and every output says SIMULATED.\n"
    "\n"
    "Options:\n"
    "  --json         one JSON object: gpus, nics, the path-type matrix, peer access,\n"
    "                 notes (and \"simulated\"/\"machine\")\n"
    "  --xml [FILE]   write NCCL's topology XML (the NCCL_TOPO_DUMP_FILE format) to FILE,\n"
    "                 or to stdout; `--machine FILE` replays it in sim\n"
    "  --peer         also list the P2P attributes of every GPU pair (native atomics,\n"
    "                 CUDA's performance rank)\n"
    "\n"
    "Examples:\n"
    "  mgpulab topo\n"
    "  mgpulab topo --backend sim --machine dgx-h100\n"
    "  mgpulab topo --xml mine.xml && mgpulab topo --backend sim --machine mine.xml\n"
    "\n"
    "Exit status: 0 on success, 1 when the backend or topology fails, 2 for bad options.\n";

typedef struct topo_args {
    int json, peer, xml;
    const char *xml_file; /* NULL: stdout */
} topo_args;

/*--- Cells ---------------------------------------------------------------*/

static void path_cell(mgpu_topo_path p, char *buf, size_t len)
{
    if (p.type == MGPU_PATH_X) snprintf(buf, len, "X");
    else if (p.type == MGPU_PATH_NV) snprintf(buf, len, "NV%d", p.nvlinks);
    else snprintf(buf, len, "%s", mgpu_path_type_name(p.type));
}

/* Devices of the matrix in nvidia-smi's order: GPUs, then NICs. */
typedef struct topo_dev {
    int is_nic, index; /* global index into the model's GPU or NIC list */
} topo_dev;

static mgpu_topo_path pair_path(const mgpu_topo *t, topo_dev a, topo_dev b)
{
    if (!a.is_nic && !b.is_nic) return mgpu_topo_gpu_path(t, a.index, b.index);
    if (a.is_nic && b.is_nic) return mgpu_topo_nic_nic_path(t, a.index, b.index);
    return a.is_nic ? mgpu_topo_gpu_nic_path(t, b.index, a.index) : mgpu_topo_gpu_nic_path(t, a.index, b.index);
}

/* The devices of one host (host < 0: all hosts). Caller frees. */
static topo_dev *host_devices(const mgpu_topo *t, int host, int *ngpu, int *nnic)
{
    int ng = mgpu_topo_gpu_count(t), nn = mgpu_topo_nic_count(t);
    topo_dev *d = malloc(((size_t)ng + (size_t)nn + 1) * sizeof *d);
    *ngpu = *nnic = 0;
    if (!d) return NULL;
    int k = 0;
    for (int i = 0; i < ng; i++)
        if (host < 0 || mgpu_topo_gpu_at(t, i)->host == host) d[k++] = (topo_dev){0, i}, (*ngpu)++;
    for (int i = 0; i < nn; i++)
        if (host < 0 || mgpu_topo_nic_at(t, i)->host == host) d[k++] = (topo_dev){1, i}, (*nnic)++;
    return d;
}

/*--- Text ----------------------------------------------------------------*/

static const char legend[] =
    "Legend:\n"
    "\n"
    "  X    = Self\n"
    "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
    "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node\n"
    "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
    "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
    "  PIX  = Connection traversing at most a single PCIe bridge\n"
    "  NV#  = Connection traversing a bonded set of # NVLinks\n";

/* One host's matrix, labelled with host-local GPU and NIC numbers as
 * nvidia-smi run on that host would. */
static void print_matrix(FILE *f, const mgpu_topo *t, int host)
{
    int ng, nn;
    topo_dev *d = host_devices(t, host, &ng, &nn);
    if (!d) {
        fprintf(f, "(out of memory printing the matrix)\n");
        return;
    }
    int n = ng + nn;
    for (int i = 0; i < n; i++) fprintf(f, "\t%s%d", d[i].is_nic ? "NIC" : "GPU", d[i].is_nic ? i - ng : i);
    fprintf(f, "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n");
    for (int r = 0; r < n; r++) {
        fprintf(f, "%s%d", d[r].is_nic ? "NIC" : "GPU", d[r].is_nic ? r - ng : r);
        for (int c = 0; c < n; c++) {
            char cell[16];
            path_cell(pair_path(t, d[r], d[c]), cell, sizeof cell);
            fprintf(f, r == c ? "\t %s " : "\t%s", cell);
        }
        if (!d[r].is_nic) {
            const mgpu_topo_gpu *g = mgpu_topo_gpu_at(t, d[r].index);
            char numa[16] = "N/A";
            if (g->numa >= 0) snprintf(numa, sizeof numa, "%d", g->numa);
            /* GPU NUMA ID is set only where GPU memory is its own NUMA node
             * (Grace Hopper); no model here has that. */
            fprintf(f, "\t%s\t%s\t\tN/A", g->cpulist[0] ? g->cpulist : "N/A", numa);
        }
        fputc('\n', f);
    }
    fprintf(f, "\n%s", legend);
    if (nn) {
        fprintf(f, "\nNIC Legend:\n\n");
        for (int i = 0; i < nn; i++) fprintf(f, "  NIC%d: %s\n", i, mgpu_topo_nic_at(t, d[ng + i].index)->name);
    }
    free(d);
}

static const char *peer_word(int can) { return can > 0 ? "yes" : can == 0 ? "no" : "?"; }

static void print_peer(FILE *f, mgpu_backend *be, const mgpu_topo *t, int host, int detail)
{
    int ng, nn;
    topo_dev *d = host_devices(t, host, &ng, &nn);
    if (!d || ng == 0) {
        free(d);
        return;
    }
    fprintf(f, "\nPeer access (cudaDeviceCanAccessPeer: can the row GPU map the column GPU's memory):\n");
    for (int i = 0; i < ng; i++) fprintf(f, "\tGPU%d", i);
    fputc('\n', f);
    for (int r = 0; r < ng; r++) {
        fprintf(f, "GPU%d", r);
        for (int c = 0; c < ng; c++)
            if (r == c) fprintf(f, "\t X ");
            else fprintf(f, "\t%s", peer_word(mgpu_topo_peer_access(t, d[r].index, d[c].index)));
        fputc('\n', f);
    }
    if (detail) {
        /* The backend's own answer (CUDA's, or the sim model's) per pair. */
        fprintf(f, "\nP2P attributes (cudaDeviceGetP2PAttribute):\n");
        fprintf(f, "%-6s %-6s %-8s %-15s %-16s\n", "from", "to", "access", "native_atomics", "performance_rank");
        int ndev = 0;
        mgpu_device_count(be, &ndev);
        for (int r = 0; r < ng; r++)
            for (int c = 0; c < ng; c++) {
                const mgpu_topo_gpu *a = mgpu_topo_gpu_at(t, d[r].index), *b = mgpu_topo_gpu_at(t, d[c].index);
                if (r == c) continue;
                mgpu_p2p_attr at;
                if (a->dev >= ndev || b->dev >= ndev || mgpu_peer_attributes(be, a->dev, b->dev, &at) != MGPU_OK) {
                    fprintf(f, "GPU%-3d GPU%-3d (not known: %s)\n", r, c,
                            *mgpu_error_message() ? mgpu_error_message() : "device not on this backend");
                    mgpu_error_clear();
                    continue;
                }
                fprintf(f, "GPU%-3d GPU%-3d %-8s %-15s %d\n", r, c, at.access_supported ? "yes" : "no",
                        at.native_atomic_supported ? "yes" : "no", at.performance_rank);
            }
    }
    free(d);
}

static void print_text(FILE *f, mgpu_backend *be, const mgpu_topo *t, int peer_detail)
{
    int nh = mgpu_topo_host_count(t);
    for (int h = 0; h < nh; h++) {
        if (nh > 1) fprintf(f, "%s# host %d of %d\n", h ? "\n" : "", h, nh);
        print_matrix(f, t, h);
        /* Only host 0's GPUs are devices of this process's backend. */
        print_peer(f, be, t, h, peer_detail && h == 0);
    }
    if (nh > 1)
        fprintf(f, "\nGPUs on different hosts connect over NET (the network) through the NICs above; "
                   "peer access between hosts is never possible.\n");
    const char *const *notes = mgpu_topo_notes(t);
    if (notes && notes[0]) {
        fprintf(f, "\nNotes:\n");
        for (int i = 0; notes[i]; i++) fprintf(f, "  - %s\n", notes[i]);
    }
}

/*--- JSON ----------------------------------------------------------------*/

static json_t *json_numa(int numa) { return numa >= 0 ? json_integer(numa) : json_null(); }

static json_t *json_peer(int can) { return can < 0 ? json_null() : json_boolean(can); }

static json_t *topo_json(mgpu_backend *be, const mgpu_topo *t)
{
    json_t *o = json_object();
    int sim = mgpu_backend_simulated(be);
    json_object_set_new(o, "backend", json_string(mgpu_backend_name(be)));
    json_object_set_new(o, "simulated", json_boolean(sim));
    json_object_set_new(o, "machine", json_string(mgpu_topo_machine_name(t)));
    if (sim) {
        char line[512];
        mgpu_cli_backend_line(be, line, sizeof line);
        json_object_set_new(o, "banner", json_string(line));
    }
    json_object_set_new(o, "hosts", json_integer(mgpu_topo_host_count(t)));

    json_t *gpus = json_array();
    int ng = mgpu_topo_gpu_count(t), nn = mgpu_topo_nic_count(t);
    for (int i = 0; i < ng; i++) {
        const mgpu_topo_gpu *g = mgpu_topo_gpu_at(t, i);
        json_t *j = json_object();
        json_object_set_new(j, "index", json_integer(i));
        json_object_set_new(j, "host", json_integer(g->host));
        json_object_set_new(j, "dev", json_integer(g->dev));
        json_object_set_new(j, "busid", json_string(g->busid));
        json_object_set_new(j, "name", json_string(g->name));
        json_object_set_new(j, "sm", json_integer(g->sm));
        json_object_set_new(j, "numa", json_numa(g->numa));
        json_object_set_new(j, "cpulist", g->cpulist[0] ? json_string(g->cpulist) : json_null());
        json_object_set_new(j, "mem_bytes", json_integer((json_int_t)g->mem_bytes));
        json_object_set_new(j, "pcie_gbs", json_real(g->pcie_gbs));
        json_object_set_new(j, "nvlinks", json_integer(g->nvlinks_total));
        json_object_set_new(j, "gdr", json_boolean(g->gdr));
        json_array_append_new(gpus, j);
    }
    json_object_set_new(o, "gpus", gpus);

    json_t *nics = json_array();
    for (int i = 0; i < nn; i++) {
        const mgpu_topo_nic *n = mgpu_topo_nic_at(t, i);
        json_t *j = json_object();
        json_object_set_new(j, "index", json_integer(i));
        json_object_set_new(j, "host", json_integer(n->host));
        json_object_set_new(j, "name", json_string(n->name));
        json_object_set_new(j, "busid", json_string(n->busid));
        json_object_set_new(j, "speed_gbps", json_real(n->speed_gbps));
        json_object_set_new(j, "port", json_integer(n->port));
        json_object_set_new(j, "numa", json_numa(n->numa));
        json_object_set_new(j, "gdr", json_boolean(n->gdr));
        json_array_append_new(nics, j);
    }
    json_object_set_new(o, "nics", nics);

    /* One matrix over every device of every host; across hosts the cell is
     * NET. Labels use the global indices of "gpus" and "nics". */
    int ngd, nnd;
    topo_dev *d = host_devices(t, -1, &ngd, &nnd);
    json_t *labels = json_array(), *rows = json_array();
    for (int r = 0; d && r < ngd + nnd; r++) {
        char lab[32];
        snprintf(lab, sizeof lab, "%s%d", d[r].is_nic ? "NIC" : "GPU", d[r].index);
        json_array_append_new(labels, json_string(lab));
        json_t *row = json_array();
        for (int c = 0; c < ngd + nnd; c++) {
            char cell[16];
            path_cell(pair_path(t, d[r], d[c]), cell, sizeof cell);
            json_array_append_new(row, json_string(cell));
        }
        json_array_append_new(rows, row);
    }
    free(d);
    json_t *m = json_object();
    json_object_set_new(m, "labels", labels);
    json_object_set_new(m, "rows", rows);
    json_object_set_new(o, "matrix", m);

    json_t *peer = json_array();
    for (int a = 0; a < ng; a++) {
        json_t *row = json_array();
        for (int b = 0; b < ng; b++)
            json_array_append_new(row, a == b ? json_null() : json_peer(mgpu_topo_peer_access(t, a, b)));
        json_array_append_new(peer, row);
    }
    json_object_set_new(o, "peer_access", peer);

    json_t *notes = json_array();
    const char *const *nt = mgpu_topo_notes(t);
    for (int i = 0; nt && nt[i]; i++) json_array_append_new(notes, json_string(nt[i]));
    json_object_set_new(o, "notes", notes);
    return o;
}

/*--- The command -----------------------------------------------------------*/

static int parse_args(int argc, char **argv, const mgpu_cli_globals *g, topo_args *a)
{
    memset(a, 0, sizeof *a);
    a->json = g->json;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (strcmp(s, "--json") == 0 || strcmp(s, "-j") == 0) a->json = 1;
        else if (strcmp(s, "--peer") == 0) a->peer = 1;
        else if (strcmp(s, "--xml") == 0) {
            a->xml = 1;
            /* FILE is optional: the next word is it unless it is an option. */
            if (i + 1 < argc && argv[i + 1][0] != '-') a->xml_file = argv[++i];
        } else if (strncmp(s, "--xml=", 6) == 0) {
            a->xml = 1;
            a->xml_file = s + 6;
            if (!*a->xml_file) return mgpu_cli_usage_error("topo", "--xml=: the file name is empty");
        } else if (s[0] == '-')
            return mgpu_cli_usage_error("topo", "unknown option '%s'", s);
        else
            return mgpu_cli_usage_error("topo", "unexpected argument '%s'", s);
    }
    if (a->json && a->xml) return mgpu_cli_usage_error("topo", "--json and --xml are two output formats; pick one");
    return 0;
}

static mgpu_result write_xml_file(const mgpu_topo *t, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) return mgpu_fail(MGPU_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    mgpu_result r = mgpu_topo_write_xml(t, f);
    if (fclose(f) != 0 && r == MGPU_OK) r = mgpu_fail(MGPU_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    MGPU_CHECK(r);
    return MGPU_OK;
}

static int run(const mgpu_cli_globals *g, int argc, char **argv)
{
    topo_args a;
    int rc = parse_args(argc, argv, g, &a);
    if (rc) return rc;
    /* The banner goes where it cannot corrupt machine-readable output. */
    FILE *banner = a.json ? NULL : (a.xml && !a.xml_file) ? stderr : stdout;
    mgpu_backend *be = NULL;
    if (mgpu_cli_open_backend(g, banner, &be) != MGPU_OK) return mgpu_cli_error("topo");

    const mgpu_topo *t = mgpu_backend_topo(be);
    mgpu_topo *owned = NULL;
    if (!t) {
        /* A backend that did not discover its machine at open: do it now. */
        if (mgpu_topo_discover(be, "/", &owned) != MGPU_OK) {
            rc = mgpu_cli_error("topo");
            goto out;
        }
        t = owned;
    }
    if (a.xml) {
        mgpu_result r = a.xml_file ? write_xml_file(t, a.xml_file) : mgpu_topo_write_xml(t, stdout);
        if (r != MGPU_OK) {
            rc = mgpu_cli_error("topo");
            goto out;
        }
        if (a.xml_file)
            printf("wrote NCCL topology XML of %s%s to %s\n", mgpu_topo_simulated(t) ? "SIMULATED machine " : "",
                   mgpu_topo_machine_name(t), a.xml_file);
    } else if (a.json) {
        json_t *j = topo_json(be, t);
        if (!j || json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0) {
            json_decref(j);
            fprintf(stderr, "mgpulab topo: could not write the JSON output\n");
            rc = 1;
            goto out;
        }
        fputc('\n', stdout);
        json_decref(j);
    } else {
        print_text(stdout, be, t, a.peer);
    }
    if (fflush(stdout) != 0) {
        fprintf(stderr, "mgpulab topo: writing the output failed\n");
        rc = 1;
    }
out:
    mgpu_topo_free(owned);
    mgpu_backend_close(be);
    return rc;
}

const mgpu_cmd mgpu_cmd_topo = {
    .name = "topo",
    .summary = "the machine's topology (nvidia-smi topo -m), peer access, NCCL XML",
    .usage = usage,
    .run = run,
};
