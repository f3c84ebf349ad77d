/* cmd_topo.c - `mgpulab topo`: the `nvidia-smi topo -m` matrix and legend,
 * the peer-access matrix, the model's notes; or JSON, or NCCL topology XML. */
#include "mgpu/file.h"
#include "cmd.h"
#include "mgpu/jobs.h"
#include "mgpu/rt.h"
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
    "\n";

static const char epilog[] =
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

/* The document the "topo" job sends (engine/jobs/topo_job.c) is all the
 * printers below read: the coordinator never sees a device. */

static const char *str_at(json_t *o, const char *key) { return json_string_value(json_object_get(o, key)); }

/* Matrix indices (GPUs first, then NICs, as the job's "matrix" lists them)
 * of one host's devices (host < 0: all). Caller frees. */
static int *host_devices(json_t *doc, int host, int *ngpu, int *nnic)
{
    json_t *gpus = json_object_get(doc, "gpus"), *nics = json_object_get(doc, "nics");
    size_t ng = json_array_size(gpus), nn = json_array_size(nics);
    int *d = malloc((ng + nn + 1) * sizeof *d);
    *ngpu = *nnic = 0;
    if (!d) return NULL;
    int k = 0;
    for (size_t i = 0; i < ng; i++)
        if (host < 0 || json_integer_value(json_object_get(json_array_get(gpus, i), "host")) == host)
            d[k++] = (int)i, (*ngpu)++;
    for (size_t i = 0; i < nn; i++)
        if (host < 0 || json_integer_value(json_object_get(json_array_get(nics, i), "host")) == host)
            d[k++] = (int)(ng + i), (*nnic)++;
    return d;
}

static const char *cell_at(json_t *doc, int r, int c)
{
    json_t *rows = json_object_get(json_object_get(doc, "matrix"), "rows");
    const char *s = json_string_value(json_array_get(json_array_get(rows, (size_t)r), (size_t)c));
    return s ? s : "?";
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
static void print_matrix(FILE *f, json_t *doc, int host)
{
    int ng, nn;
    int *d = host_devices(doc, host, &ng, &nn);
    if (!d) {
        fprintf(f, "(out of memory printing the matrix)\n");
        return;
    }
    int n = ng + nn, ngall = (int)json_array_size(json_object_get(doc, "gpus"));
    for (int i = 0; i < n; i++) fprintf(f, "\t%s%d", i >= ng ? "NIC" : "GPU", i >= ng ? i - ng : i);
    fprintf(f, "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n");
    for (int r = 0; r < n; r++) {
        fprintf(f, "%s%d", r >= ng ? "NIC" : "GPU", r >= ng ? r - ng : r);
        for (int c = 0; c < n; c++) fprintf(f, r == c ? "\t %s " : "\t%s", cell_at(doc, d[r], d[c]));
        if (r < ng) {
            json_t *g = json_array_get(json_object_get(doc, "gpus"), (size_t)d[r]);
            json_t *numa = json_object_get(g, "numa");
            const char *cpus = str_at(g, "cpulist");
            char nb[16] = "N/A";
            if (json_is_integer(numa)) snprintf(nb, sizeof nb, "%lld", (long long)json_integer_value(numa));
            /* GPU NUMA ID is set only where GPU memory is its own NUMA node
             * (Grace Hopper); no model here has that. */
            fprintf(f, "\t%s\t%s\t\tN/A", cpus && *cpus ? cpus : "N/A", nb);
        }
        fputc('\n', f);
    }
    fprintf(f, "\n%s", legend);
    if (nn) {
        fprintf(f, "\nNIC Legend:\n\n");
        for (int i = 0; i < nn; i++) {
            json_t *nic = json_array_get(json_object_get(doc, "nics"), (size_t)(d[ng + i] - ngall));
            const char *name = str_at(nic, "name"), *state = str_at(nic, "state");
            double rate = json_number_value(json_object_get(nic, "speed_gbps"));
            double max = json_number_value(json_object_get(nic, "speed_max_gbps"));
            fprintf(f, "  NIC%d: %s", i, name ? name : "?");
            /* a port that is not as wired says so, as ibstat would */
            if (state && strcmp(state, "ACTIVE") != 0) fprintf(f, " (port state %s)", state);
            else if (max > 0 && rate < max) fprintf(f, " (rate %g Gb/s, supports %g)", rate, max);
            fputc('\n', f);
        }
    }
    free(d);
}

static const char *peer_word(json_t *v) { return json_is_true(v) ? "yes" : json_is_false(v) ? "no" : "?"; }

static void print_p2p(FILE *f, json_t *doc)
{
    json_t *list = json_object_get(doc, "p2p_attributes");
    fprintf(f, "\nP2P attributes (cudaDeviceGetP2PAttribute):\n");
    fprintf(f, "%-6s %-6s %-8s %-15s %-16s\n", "from", "to", "access", "native_atomics", "performance_rank");
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *e = json_array_get(list, i);
        int r = (int)json_integer_value(json_object_get(e, "from")), c = (int)json_integer_value(json_object_get(e, "to"));
        const char *err = str_at(e, "error");
        if (err) fprintf(f, "GPU%-3d GPU%-3d (not known: %s)\n", r, c, err);
        else
            fprintf(f, "GPU%-3d GPU%-3d %-8s %-15s %d\n", r, c, json_is_true(json_object_get(e, "access")) ? "yes" : "no",
                    json_is_true(json_object_get(e, "native_atomics")) ? "yes" : "no",
                    (int)json_integer_value(json_object_get(e, "performance_rank")));
    }
}

static void print_peer(FILE *f, json_t *doc, int host, int detail)
{
    int ng, nn;
    int *d = host_devices(doc, host, &ng, &nn);
    if (!d || ng == 0) {
        free(d);
        return;
    }
    json_t *peer = json_object_get(doc, "peer_access");
    fprintf(f, "\nPeer access (cudaDeviceCanAccessPeer: can the row GPU map the column GPU's memory):\n");
    for (int i = 0; i < ng; i++) fprintf(f, "\tGPU%d", i);
    fputc('\n', f);
    for (int r = 0; r < ng; r++) {
        fprintf(f, "GPU%d", r);
        for (int c = 0; c < ng; c++)
            if (r == c) fprintf(f, "\t X ");
            else fprintf(f, "\t%s", peer_word(json_array_get(json_array_get(peer, (size_t)d[r]), (size_t)d[c])));
        fputc('\n', f);
    }
    if (detail) print_p2p(f, doc);
    free(d);
}

static void print_text(FILE *f, json_t *doc, int peer_detail)
{
    int nh = (int)json_integer_value(json_object_get(doc, "hosts"));
    for (int h = 0; h < nh; h++) {
        if (nh > 1) fprintf(f, "%s# host %d of %d\n", h ? "\n" : "", h, nh);
        print_matrix(f, doc, h);
        /* Only host 0's GPUs are devices of the worker's backend. */
        print_peer(f, doc, h, peer_detail && h == 0);
    }
    if (nh > 1)
        fprintf(f, "\nGPUs on different hosts connect over NET (the network) through the NICs above; "
                   "peer access between hosts is never possible.\n");
    json_t *notes = json_object_get(doc, "notes");
    if (json_array_size(notes)) {
        fprintf(f, "\nNotes:\n");
        for (size_t i = 0; i < json_array_size(notes); i++)
            fprintf(f, "  - %s\n", json_string_value(json_array_get(notes, i)));
    }
}

/*--- Running the job -------------------------------------------------------*/

typedef struct topo_run {
    json_t *doc;      /* rank 0's result */
    char error[1024]; /* the worker's own message, when it failed */
} topo_run;

static void on_msg(void *ctx, const mgpu_rt_msg *m)
{
    topo_run *tr = ctx;
    if (m->rank != 0) return;
    if (strcmp(m->type, "result") == 0 && !tr->doc && json_is_object(m->body)) tr->doc = json_incref(m->body);
    else if (strcmp(m->type, "error") == 0 && !tr->error[0])
        snprintf(tr->error, sizeof tr->error, "%s", str_at(m->body, "message") ? str_at(m->body, "message") : "");
}

/* One worker discovers the machine: the coordinator (this process) never
 * creates a CUDA context. On failure prints the message, returns 1. */
static int run_job(const mgpu_cli_globals *g, int peer, int tables, json_t **doc)
{
    *doc = NULL;
    if (g->backend.kind == MGPU_BACKEND_CUDA && (g->backend.machine || g->backend.fault)) {
        mgpu_fail(MGPU_ERR_INVALID, "--machine and --fault describe a simulated machine; use them with "
                                    "--backend sim (the cuda backend uses the real one)");
        return mgpu_cli_error("topo");
    }
    mgpu_rt_config cfg = {.jobs = mgpu_jobs, .launcher = MGPU_LAUNCH_LOCAL, .ranks = 1, .backend = g->backend, .timeout_s = g->timeout_s};
    json_t *params = json_pack("{s:b, s:b}", "peer", peer, "tables", tables);
    topo_run tr = {0};
    mgpu_rt_report rep;
    mgpu_result r = mgpu_rt_run(&cfg, "topo", params, on_msg, &tr, &rep);
    json_decref(params);
    if (r != MGPU_OK) return mgpu_cli_error("topo");
    if (!rep.ok || !tr.doc) {
        fprintf(stderr, "mgpulab topo: %s\n", tr.error[0] ? tr.error : rep.ok ? "the worker sent no topology" : rep.reason);
        json_decref(tr.doc);
        return 1;
    }
    if (mgpu_topo_doc_expand(tr.doc) != MGPU_OK) { /* the job's packed rows (engine/jobs/topo_doc.c) */
        json_decref(tr.doc);
        return mgpu_cli_error("topo");
    }
    *doc = tr.doc;
    return 0;
}

/*--- The command -----------------------------------------------------------*/

enum { O_JSON, O_XML, O_PEER };
static const mgpu_opt options[] = {
    [O_JSON] = {.name = "--json", .short_name = 'j', .conflicts = "--xml",
                .conflict_why = "are two output formats; pick one",
                .help = "one JSON object: gpus, nics, the path-type matrix, peer\naccess, notes (and \"simulated\"/\"machine\")"},
    [O_XML] = {.name = "--xml", .kind = MGPU_OPT_STRING, .value_name = "FILE", .flags = MGPU_OPT_OPTIONAL,
               .help = "write NCCL's topology XML (the NCCL_TOPO_DUMP_FILE format)\nto FILE, or to stdout; `--machine FILE` replays it in sim"},
    [O_PEER] = {.name = "--peer",
                .help = "also list the P2P attributes of every GPU pair (native\natomics, CUDA's performance rank)"},
    MGPU_OPT_END,
};

static int parse_args(int argc, char **argv, const mgpu_cli_globals *g, topo_args *a)
{
    memset(a, 0, sizeof *a);
    mgpu_opt_args o;
    int rc = mgpu_opts_parse("topo", options, argc, argv, 0, &o);
    if (rc) return rc;
    a->json = o.v[O_JSON].count > 0;
    a->peer = o.v[O_PEER].count > 0;
    a->xml = o.v[O_XML].count > 0;
    a->xml_file = o.v[O_XML].text;
    if (o.noperands) rc = mgpu_cli_usage_error("topo", "unexpected argument '%s'", o.operands[0]);
    mgpu_opts_free(&o);
    if (rc) return rc;
    /* the global --json too */
    if (g->json && a->xml) return mgpu_cli_usage_error("topo", "--json and --xml are two output formats; pick one");
    a->json |= g->json;
    return 0;
}

static mgpu_result write_xml_file(const char *xml, const char *path)
{
    return mgpu_file_write_atomic(path, xml, strlen(xml));
}

static int run(const mgpu_cli_globals *g, int argc, char **argv)
{
    topo_args a;
    int rc = parse_args(argc, argv, g, &a);
    if (rc) return rc;
    json_t *doc = NULL;
    if ((rc = run_job(g, a.peer && !a.json && !a.xml, !a.xml, &doc))) return rc;
    /* The banner goes where it cannot corrupt machine-readable output. */
    FILE *banner = a.json ? NULL : (a.xml && !a.xml_file) ? stderr : stdout;
    const char *line = str_at(doc, "banner"), *xml = str_at(doc, "xml");
    if (banner) fprintf(banner, "# %s\n", line ? line : "?");
    if (banner && str_at(doc, "backend_detail")) fprintf(banner, "# why not cuda: %s\n", str_at(doc, "backend_detail"));
    if (a.xml) {
        if (!xml) {
            fprintf(stderr, "mgpulab topo: the worker sent no topology XML\n");
            rc = 1;
            goto out;
        }
        if (a.xml_file && write_xml_file(xml, a.xml_file) != MGPU_OK) {
            rc = mgpu_cli_error("topo");
            goto out;
        }
        if (a.xml_file)
            printf("wrote NCCL topology XML of %s%s to %s\n",
                   json_is_true(json_object_get(doc, "simulated")) ? "SIMULATED machine " : "", str_at(doc, "machine"),
                   a.xml_file);
        else
            fputs(xml, stdout);
    } else if (a.json) {
        /* exactly the job's document, less what other outputs use */
        json_object_del(doc, "xml");
        json_object_del(doc, "p2p_attributes");
        if (json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0) {
            fprintf(stderr, "mgpulab topo: could not write the JSON output\n");
            rc = 1;
            goto out;
        }
        fputc('\n', stdout);
    } else {
        print_text(stdout, doc, a.peer);
    }
    if (fflush(stdout) != 0) {
        fprintf(stderr, "mgpulab topo: writing the output failed\n");
        rc = 1;
    }
out:
    json_decref(doc);
    return rc;
}

const mgpu_cmd mgpu_cmd_topo = {
    .name = "topo",
    .summary = "the machine's topology (nvidia-smi topo -m), peer access, NCCL XML",
    .usage = usage,
    .options = options,
    .epilog = epilog,
    .run = run,
};
