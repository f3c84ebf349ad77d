/* lab_peak.c - lab.peak(link): the nominal one-direction bandwidth of a
 * link name, read from the topology model (engine/topo: path bandwidths and
 * the GPU model table), never from a second table of numbers here. */
#include "lab/lab_object.h"
#include "mgpu/lua_mgpu.h"
#include "mgpu/topo.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The run's machine as a topology model: sim loads the preset (with its
 * faults) here; cuda parses the XML the "topo" job discovered in a worker. */
static mgpu_topo *open_topo(lua_State *L, lab_run *run)
{
    mgpu_topo *t = NULL;
    if (lab_run_backend(run) != MGPU_OK) mgpu_lua_raise_engine(L, "lab.peak");
    if (run->simulated) {
        if (mgpu_topo_open_machine(run->machine, &t) != MGPU_OK) mgpu_lua_raise_engine(L, "lab.peak");
        if (run->env->backend.fault && mgpu_topo_apply_faults(t, run->env->backend.fault) != MGPU_OK) {
            mgpu_topo_free(t);
            mgpu_lua_raise_engine(L, "lab.peak");
        }
        return t;
    }
    json_t *doc = lab_topo_doc(L, run, NULL);
    const char *xml = json_string_value(json_object_get(doc, "xml"));
    if (!xml) luaL_error(L, "lab.peak: the topo job sent no XML");
    if (mgpu_topo_parse_xml(xml, strlen(xml), "this machine", &t) != MGPU_OK) mgpu_lua_raise_engine(L, "lab.peak");
    return t;
}

/* The first GPU pair whose path has this type (NV: and this many links
 * when nvlinks > 0). */
static int find_path(const mgpu_topo *t, mgpu_path_type type, int nvlinks, mgpu_topo_path *out)
{
    int n = mgpu_topo_gpu_count(t);
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            if (a == b) continue;
            mgpu_topo_path p = mgpu_topo_gpu_path(t, a, b);
            if (p.type == type && (nvlinks <= 0 || p.nvlinks == nvlinks)) {
                *out = p;
                return 1;
            }
        }
    return 0;
}

static int answer(lua_State *L, double gbs, const char *src)
{
    lua_pushnumber(L, gbs);
    lua_pushstring(L, src);
    return 2;
}

static int peak_in(lua_State *L, const mgpu_topo *t, const char *link, char *src, size_t len)
{
    const char *m = mgpu_topo_machine_name(t);
    const mgpu_topo_gpu *g0 = mgpu_topo_gpu_count(t) > 0 ? mgpu_topo_gpu_at(t, 0) : NULL;
    mgpu_topo_path p;
    if (strncasecmp(link, "NV", 2) == 0 && (link[2] == '\0' || isdigit((unsigned char)link[2]))) {
        int links = atoi(link + 2);
        /* per-link rate from a modelled NVLink path of this machine, else
         * from the GPU model table */
        if (find_path(t, MGPU_PATH_NV, 0, &p) && p.nvlinks > 0) {
            double per = p.bw_gbs / p.nvlinks;
            if (links <= 0) links = p.nvlinks;
            snprintf(src, len, "topology model of %s: %d NVLink%s x %.4g GB/s per link per direction", m, links,
                     links == 1 ? "" : "s", per);
            return answer(L, per * links, src);
        }
        const mgpu_gpu_model *gm = g0 ? mgpu_gpu_model_by_name(g0->name) : NULL;
        if (gm && gm->nvlink_gbs > 0 && links > 0) {
            snprintf(src, len, "GPU model %s: %d NVLink%s x %.4g GB/s per link per direction", gm->name, links,
                     links == 1 ? "" : "s", gm->nvlink_gbs);
            return answer(L, gm->nvlink_gbs * links, src);
        }
        snprintf(src, len, "%s has no NVLink in its topology model", m);
        return 0;
    }
    if (strncasecmp(link, "PCIe", 4) == 0) {
        if (g0 && g0->pcie_gbs > 0) {
            snprintf(src, len, "topology model of %s: GPU 0's PCIe link (speed x width), per direction", m);
            return answer(L, g0->pcie_gbs, src);
        }
        snprintf(src, len, "the PCIe link speed of %s's GPUs is unknown", m);
        return 0;
    }
    if (strcasecmp(link, "HBM") == 0) {
        if (g0 && g0->hbm_gbs > 0) {
            snprintf(src, len, "GPU model of %s: device memory bandwidth (spec)", g0->name);
            return answer(L, g0->hbm_gbs, src);
        }
        snprintf(src, len, "the memory bandwidth of %s's GPUs is unknown", m);
        return 0;
    }
    if (strcasecmp(link, "NET") == 0 || strcasecmp(link, "IB") == 0) {
        if (mgpu_topo_nic_count(t) > 0 && mgpu_topo_nic_at(t, 0)->speed_gbps > 0) {
            const mgpu_topo_nic *n = mgpu_topo_nic_at(t, 0);
            snprintf(src, len, "topology model of %s: NIC %s at %.4g Gbit/s", m, n->name, n->speed_gbps);
            return answer(L, n->speed_gbps / 8.0, src);
        }
        snprintf(src, len, "%s has no NIC with a known speed", m);
        return 0;
    }
    /* a path type of the matrix: PIX, PXB, PHB, NODE, SYS */
    for (int ty = MGPU_PATH_PIX; ty <= MGPU_PATH_NET; ty++)
        if (strcasecmp(link, mgpu_path_type_name((mgpu_path_type)ty)) == 0) {
            if (find_path(t, (mgpu_path_type)ty, 0, &p) && p.bw_gbs > 0) {
                snprintf(src, len, "topology model of %s: a GPU pair joined by %s", m, link);
                return answer(L, p.bw_gbs, src);
            }
            snprintf(src, len, "no GPU pair of %s is joined by %s", m, link);
            return 0;
        }
    snprintf(src, len, "'%s' is not a link name (use NV<n>, PCIe, PIX, PXB, PHB, NODE, SYS, NET or HBM)", link);
    return 0;
}

int lab_l_peak(lua_State *L)
{
    lab_run *run = lab_run_of(L);
    const char *link = luaL_checkstring(L, 1);
    mgpu_topo *t = open_topo(L, run);
    char src[512];
    int n = peak_in(L, t, link, src, sizeof src);
    mgpu_topo_free(t);
    if (n) return n;
    lua_pushnil(L);
    lua_pushstring(L, src);
    return 2;
}
