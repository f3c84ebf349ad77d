/* topo_job.c - the worker job "topo": rank 0 discovers (cuda) or loads
 * (sim) the machine where device calls are allowed, and sends it up as one
 * document, so the coordinator never opens CUDA to draw a topology.
 *
 * params: {} or {"peer": true} and/or {"facts": true}; {"tables": false}
 * leaves out matrix and peer_access (topo --xml needs neither)
 * Rank 0 sends one "result" whose body is the document `mgpulab topo --json`
 * prints - backend, simulated, machine, banner, hosts, gpus[], nics[],
 * matrix{labels, rows}, peer_access, notes - plus "xml" (NCCL's topology
 * XML, what --xml writes) and, with "peer", "p2p_attributes": one
 * {from, to, access, native_atomics, performance_rank} or {from, to, error}
 * per ordered pair of host 0's GPUs (cudaDeviceGetP2PAttribute's answer).
 * With "facts", "facts": each host-0 GPU's health facts (mgpu/facts.h:
 * NVML on cuda, the model on sim). Other ranks have nothing to do.
 * The matrix's and peer_access's rows travel packed (topo_doc.h); the
 * receiver calls mgpu_topo_doc_expand. A document still too large for one
 * message fails with a sentence saying what and how large. */
#include "jobs/topo_doc.h"
#include "mgpu/rt.h"
#include "mgpu/facts.h"
#include "mgpu/topo.h"
#include <stdio.h>
#include <stdlib.h>

/* The matrix cell nvidia-smi prints for a path. */
static void path_cell(mgpu_topo_path p, char *buf, size_t len)
{
    if (p.type == MGPU_PATH_X) snprintf(buf, len, "X");
    else if (p.type == MGPU_PATH_NV) snprintf(buf, len, "NV%d", p.nvlinks);
    else snprintf(buf, len, "%s", mgpu_path_type_name(p.type));
}

/* Matrix devices in nvidia-smi's order: every GPU, then every NIC. */
static mgpu_topo_path dev_path(const mgpu_topo *t, int ng, int a, int b)
{
    int anic = a >= ng, bnic = b >= ng;
    if (!anic && !bnic) return mgpu_topo_gpu_path(t, a, b);
    if (anic && bnic) return mgpu_topo_nic_nic_path(t, a - ng, b - ng);
    return anic ? mgpu_topo_gpu_nic_path(t, b, a - ng) : mgpu_topo_gpu_nic_path(t, a, b - ng);
}

static json_t *json_numa(int numa) { return numa >= 0 ? json_integer(numa) : json_null(); }

static json_t *gpus_json(const mgpu_topo *t)
{
    json_t *gpus = json_array();
    for (int i = 0; i < mgpu_topo_gpu_count(t); i++) {
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
        /* the PCIe link the topology records (sysfs max_link_*, as NCCL reads it) */
        const mgpu_xml_node *pci = g->node && g->node->parent ? g->node->parent : NULL;
        int gen = pci ? mgpu_pcie_gen_of_speed(mgpu_xml_get(pci, "link_speed")) : 0;
        const char *width = pci ? mgpu_xml_get(pci, "link_width") : NULL;
        int w = width ? atoi(width) : 0;
        /* a sim link that trained lower (the pcie-downgrade fault) reads as it runs */
        if (g->pcie_gen_now) gen = g->pcie_gen_now, w = g->pcie_width_now;
        json_object_set_new(j, "pcie_gen", gen ? json_integer(gen) : json_null());
        json_object_set_new(j, "pcie_width", w > 0 ? json_integer(w) : json_null());
        json_object_set_new(j, "nvlinks", json_integer(g->nvlinks_total));
        json_object_set_new(j, "gdr", json_boolean(g->gdr));
        /* the dense bf16 peak of the GPU model (null when the table does not
         * know it): what MFU divides by (lab 5) */
        const mgpu_gpu_model *gm = mgpu_gpu_model_by_name(g->name);
        json_object_set_new(j, "bf16_tflops", gm && gm->bf16_tflops > 0 ? json_real(gm->bf16_tflops) : json_null());
        json_array_append_new(gpus, j);
    }
    return gpus;
}

static json_t *nics_json(const mgpu_topo *t)
{
    json_t *nics = json_array();
    for (int i = 0; i < mgpu_topo_nic_count(t); i++) {
        const mgpu_topo_nic *n = mgpu_topo_nic_at(t, i);
        json_t *j = json_object();
        json_object_set_new(j, "index", json_integer(i));
        json_object_set_new(j, "host", json_integer(n->host));
        json_object_set_new(j, "name", json_string(n->name));
        json_object_set_new(j, "busid", json_string(n->busid));
        json_object_set_new(j, "speed_gbps", json_real(n->speed_gbps));
        /* as ibstat says it: the rate the port runs at, the rate it supports, its state */
        json_object_set_new(j, "speed_max_gbps", json_real(n->speed_wired_gbps > 0 ? n->speed_wired_gbps : n->speed_gbps));
        json_object_set_new(j, "state", json_string(n->down ? "DOWN" : "ACTIVE"));
        json_object_set_new(j, "port", json_integer(n->port));
        json_object_set_new(j, "numa", json_numa(n->numa));
        json_object_set_new(j, "gdr", json_boolean(n->gdr));
        json_array_append_new(nics, j);
    }
    return nics;
}

/* One matrix over every device of every host; across hosts the cell is
 * NET. Labels use the global indices of "gpus" and "nics". Rows go packed,
 * a character per cell indexing "cells" (topo_doc.h). */
static json_t *matrix_json(const mgpu_topo *t)
{
    int ng = mgpu_topo_gpu_count(t), n = ng + mgpu_topo_nic_count(t);
    json_t *labels = json_array(), *rows = json_array();
    char *row = malloc((size_t)n + 1);
    topo_kinds kinds = {.n = 0};
    for (int r = 0; row && r < n; r++) {
        char lab[32];
        snprintf(lab, sizeof lab, "%s%d", r >= ng ? "NIC" : "GPU", r >= ng ? r - ng : r);
        json_array_append_new(labels, json_string(lab));
        for (int c = 0; c < n; c++) {
            char cell[16];
            path_cell(dev_path(t, ng, r, c), cell, sizeof cell);
            row[c] = topo_kind_char(&kinds, cell);
            if (!row[c]) row[c] = '?'; /* more path names than NCCL has: expand refuses it */
        }
        row[n] = '\0';
        json_array_append_new(rows, json_string(row));
    }
    free(row);
    return json_pack("{s:o, s:o, s:o}", "labels", labels, "cells", topo_kinds_json(&kinds), "rows", rows);
}

/* Every GPU pair's peer access, rows packed ('y', 'n', '-'). */
static json_t *peer_json(const mgpu_topo *t)
{
    int ng = mgpu_topo_gpu_count(t);
    json_t *peer = json_array();
    char *row = malloc((size_t)ng + 1);
    for (int a = 0; row && a < ng; a++) {
        for (int b = 0; b < ng; b++) row[b] = a == b ? '-' : topo_peer_char(mgpu_topo_peer_access(t, a, b));
        row[ng] = '\0';
        json_array_append_new(peer, json_string(row));
    }
    free(row);
    return peer;
}

static json_t *topo_json(mgpu_backend *be, const mgpu_topo *t, int tables)
{
    json_t *o = json_object();
    int sim = mgpu_backend_simulated(be);
    char line[512];
    mgpu_backend_describe(be, line, sizeof line);
    json_object_set_new(o, "backend", json_string(mgpu_backend_name(be)));
    json_object_set_new(o, "simulated", json_boolean(sim));
    json_object_set_new(o, "machine", json_string(mgpu_topo_machine_name(t)));
    /* The banner line `mgpulab topo` prints above the matrix. */
    json_object_set_new(o, "banner", json_string(line));
    if (*mgpu_backend_reason_detail(be)) json_object_set_new(o, "backend_detail", json_string(mgpu_backend_reason_detail(be)));
    json_object_set_new(o, "hosts", json_integer(mgpu_topo_host_count(t)));
    json_object_set_new(o, "gpus", gpus_json(t));
    json_object_set_new(o, "nics", nics_json(t));
    /* the transport NCCL would use between hosts: IB, or TCP sockets when its
     * IB transport did not load (the net-socket fault) or no NIC is up */
    if (mgpu_topo_host_count(t) > 1)
        json_object_set_new(o, "network", json_string(mgpu_topo_has_fault(t, "net-socket") || mgpu_topo_gpu_nic(t, 0) < 0
                                                          ? "Socket" : "IB"));
    if (tables) json_object_set_new(o, "matrix", matrix_json(t));
    if (tables) json_object_set_new(o, "peer_access", peer_json(t));
    json_t *notes = json_array();
    const char *const *nt = mgpu_topo_notes(t);
    for (int i = 0; nt && nt[i]; i++) json_array_append_new(notes, json_string(nt[i]));
    json_object_set_new(o, "notes", notes);
    return o;
}

/* The backend's own P2P answer for every ordered pair of host 0's GPUs
 * (only host 0's GPUs are devices of this process). */
static json_t *p2p_json(mgpu_backend *be, const mgpu_topo *t)
{
    json_t *out = json_array();
    int ng = mgpu_topo_gpu_count(t), ndev = 0, k = 0;
    int *idx = malloc(((size_t)ng + 1) * sizeof *idx);
    if (!idx) return out;
    for (int i = 0; i < ng; i++)
        if (mgpu_topo_gpu_at(t, i)->host == 0) idx[k++] = i;
    mgpu_device_count(be, &ndev);
    for (int r = 0; r < k; r++)
        for (int c = 0; c < k; c++) {
            if (r == c) continue;
            const mgpu_topo_gpu *a = mgpu_topo_gpu_at(t, idx[r]), *b = mgpu_topo_gpu_at(t, idx[c]);
            mgpu_p2p_attr at;
            if (a->dev >= ndev || b->dev >= ndev || mgpu_peer_attributes(be, a->dev, b->dev, &at) != MGPU_OK) {
                const char *why = *mgpu_error_message() ? mgpu_error_message() : "device not on this backend";
                json_array_append_new(out, json_pack("{s:i, s:i, s:s}", "from", r, "to", c, "error", why));
                mgpu_error_clear();
                continue;
            }
            json_array_append_new(out, json_pack("{s:i, s:i, s:b, s:b, s:i}", "from", r, "to", c, "access",
                                                 at.access_supported, "native_atomics", at.native_atomic_supported,
                                                 "performance_rank", at.performance_rank));
        }
    free(idx);
    return out;
}

static mgpu_result xml_text(const mgpu_topo *t, json_t **out)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return mgpu_fail(MGPU_ERR_NOMEM, "topo: no memory for the XML text");
    mgpu_result r = mgpu_topo_write_xml(t, f);
    fclose(f);
    if (r == MGPU_OK && !(*out = json_stringn(buf, len)))
        r = mgpu_fail(MGPU_ERR_INTERNAL, "topo: the topology XML is not valid UTF-8");
    free(buf);
    MGPU_CHECK(r);
    return MGPU_OK;
}

static mgpu_result run(mgpu_worker *w, json_t *params)
{
    if (params && !json_is_object(params) && !json_is_null(params))
        return mgpu_fail(MGPU_ERR_INVALID, "topo job: params must be an object");
    if (mgpu_worker_rank(w) != 0) return MGPU_OK;
    mgpu_backend *be = mgpu_worker_backend(w);
    const mgpu_topo *t = mgpu_backend_topo(be);
    mgpu_topo *owned = NULL;
    if (!t) { /* a backend that did not discover its machine at open */
        MGPU_CHECK(mgpu_topo_discover(be, "/", &owned));
        t = owned;
    }
    /* "tables": false (topo --xml) leaves out the matrix and peer access */
    int tables = !json_is_false(json_object_get(params, "tables"));
    json_t *doc = topo_json(be, t, tables), *xml = NULL;
    mgpu_result r = xml_text(t, &xml);
    if (r == MGPU_OK) {
        json_object_set_new(doc, "xml", xml);
        if (json_is_true(json_object_get(params, "peer"))) json_object_set_new(doc, "p2p_attributes", p2p_json(be, t));
        if (json_is_true(json_object_get(params, "facts"))) json_object_set_new(doc, "facts", mgpu_gpu_facts_json(mgpu_backend_simulated(be), t));
        r = mgpu_worker_send(w, "result", doc);
        if (r == MGPU_ERR_UNSUPPORTED) /* over the protocol's limit: say what was too large */
            r = mgpu_fail(r, "the topology of %d GPUs and %d NICs is too large to send to the coordinator (%s)%s",
                          mgpu_topo_gpu_count(t), mgpu_topo_nic_count(t), mgpu_error_message(),
                          tables ? "; its device matrix alone takes a byte per pair of devices; `mgpulab topo --xml` "
                                   "sends only the NCCL XML" : "");
    }
    json_decref(doc);
    mgpu_topo_free(owned);
    MGPU_CHECK(r);
    return MGPU_OK;
}

const mgpu_job_handler mgpu_job_topo = {.type = "topo", .run = run};
