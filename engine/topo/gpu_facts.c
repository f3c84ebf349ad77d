/* gpu_facts.c - per-GPU health facts (facts.h): NVML's answers on a real
 * machine, the model's on sim; null wherever neither can tell. */
#include "mgpu/facts.h"
#include "mgpu/nvml_dl.h"
#include "topo/topo_internal.h"
#include <stdlib.h>
#include <string.h>

int mgpu_pcie_gen_of_speed(const char *link_speed)
{
    if (!link_speed || !*link_speed) return 0;
    double gts = strtod(link_speed, NULL);
    /* 2.5, 5, 8, 16, 32, 64 GT/s: generations 1 to 6 */
    static const double rates[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
    for (int i = 0; i < 6; i++)
        if (gts > rates[i] * 0.9 && gts < rates[i] * 1.1) return i + 1;
    return 0;
}

static json_t *int_or_null(int have, long long v) { return have ? json_integer(v) : json_null(); }

/* The <pci> link of a GPU as the topology XML gives it. */
static void xml_link(const mgpu_topo_gpu *g, int *gen, int *width)
{
    const mgpu_xml_node *pci = g->node && g->node->parent && strcmp(g->node->parent->name, "pci") == 0
                                   ? g->node->parent : NULL;
    long long w = 0;
    *gen = pci ? mgpu_pcie_gen_of_speed(mgpu_xml_get(pci, "link_speed")) : 0;
    *width = pci && topo_parse_long(mgpu_xml_get(pci, "link_width"), &w) && w > 0 ? (int)w : 0;
}

/* NVLinks the tree wires to this GPU (the healthy machine: faults are an overlay). */
static int tree_nvlinks(const mgpu_topo_gpu *g)
{
    int n = 0;
    for (int i = 0; g->node && i < g->node->nchildren; i++) {
        const mgpu_xml_node *l = g->node->children[i];
        long long c;
        if (strcmp(l->name, "nvlink") == 0 && topo_parse_long(mgpu_xml_get(l, "count"), &c) && c > 0) n += (int)c;
    }
    return n;
}

static json_t *empty_health(json_t *o)
{
    json_object_set_new(o, "ecc", json_pack("{s:n, s:n, s:n, s:n}", "corrected_volatile", "uncorrected_volatile",
                                            "corrected_aggregate", "uncorrected_aggregate"));
    json_object_set_new(o, "retired_pages", json_null());
    json_object_set_new(o, "remapped_rows", json_null());
    json_object_set_new(o, "temperature_c", json_null());
    json_object_set_new(o, "pcie_replays", json_null());
    json_object_set_new(o, "xid_errors", json_null());
    json_object_set_new(o, "clocks", json_pack("{s:n, s:n, s:n, s:n}", "sm_mhz", "sm_max_mhz", "mem_mhz",
                                               "mem_max_mhz"));
    json_object_set_new(o, "throttle", json_null());
    json_object_set_new(o, "power", json_pack("{s:n, s:n}", "draw_w", "limit_w"));
    return o;
}

/*--- The model's facts (sim) --------------------------------------------*/

static json_t *model_facts(const mgpu_topo *t, int i)
{
    const mgpu_topo_gpu *g = mgpu_topo_gpu_at(t, i);
    const mgpu_gpu_model *m = mgpu_gpu_model_by_name(g->name);
    json_t *o = json_pack("{s:i, s:s, s:s}", "gpu", i, "busid", g->busid, "source", "model");
    int wired = tree_nvlinks(g), up = g->nvlinks_total;
    double mbps = topo_nvlink_gbs_for_sm(g->sm) * 1000.0;
    json_t *links = json_array();
    for (int l = 0; l < wired && l < NVML_DL_MAX_NVLINKS; l++)
        json_array_append_new(links, json_pack("{s:i, s:s, s:o}", "link", l, "state", l < up ? "up" : "down",
                                               "speed_mbps", l < up && mbps > 0 ? json_real(mbps) : json_null()));
    json_object_set_new(o, "nvlink", json_pack("{s:i, s:i, s:o}", "links", wired, "up", up < wired ? up : wired,
                                               "per_link", links));
    int gen, width;
    xml_link(g, &gen, &width);
    /* The sim's link runs at what its XML says, which is also its maximum,
     * unless it trained lower (the pcie-downgrade fault: NVML's current
     * link then reads below the link's maximum); the GPU's own maximum
     * comes from the model table. */
    int now_gen = g->pcie_gen_now ? g->pcie_gen_now : gen, now_width = g->pcie_gen_now ? g->pcie_width_now : width;
    json_object_set_new(o, "pcie", json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "gen", int_or_null(now_gen, now_gen),
                                             "gen_max", int_or_null(gen, gen), "gen_gpu_max",
                                             int_or_null(m && m->pcie_gen, m ? m->pcie_gen : 0), "width",
                                             int_or_null(now_width, now_width), "width_max", int_or_null(width, width),
                                             "width_gpu_max", int_or_null(m && m->pcie_width, m ? m->pcie_width : 0)));
    json_object_set_new(o, "why", json_string("simulated machine: ECC, XID, clocks and power are not modelled"));
    return empty_health(o);
}

/*--- NVML's facts (cuda) --------------------------------------------------*/

static json_t *nvml_uint(nvml_device d, nvml_uint_fact f, double scale)
{
    unsigned v = 0;
    if (nvml_dl_uint_fact(d, f, &v) != MGPU_OK) {
        mgpu_error_clear();
        return json_null();
    }
    return scale == 1.0 ? json_integer(v) : json_real(v * scale);
}

static json_t *nvml_clock(nvml_device d, int type, int max)
{
    unsigned v = 0;
    if (nvml_dl_clock(d, type, max, &v) != MGPU_OK) {
        mgpu_error_clear();
        return json_null();
    }
    return json_integer(v);
}

static json_t *nvml_ecc(nvml_device d, int unc, int agg)
{
    unsigned long long v = 0;
    if (nvml_dl_ecc(d, unc, agg, &v) != MGPU_OK) {
        mgpu_error_clear(); /* ECC off or not supported: not reported */
        return json_null();
    }
    return json_integer((json_int_t)v);
}

static json_t *nvml_throttle(nvml_device d)
{
    static const char *const names[] = {"gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown",
                                        "sync_boost", "sw_thermal_slowdown", "hw_thermal_slowdown",
                                        "hw_power_brake_slowdown", "display_clock_setting"};
    unsigned long long bits = 0;
    if (nvml_dl_throttle_reasons(d, &bits) != MGPU_OK) {
        mgpu_error_clear();
        return json_null();
    }
    json_t *a = json_array();
    for (unsigned k = 0; k < sizeof names / sizeof names[0]; k++)
        if (bits & (1ull << k)) json_array_append_new(a, json_string(names[k]));
    return a;
}

static json_t *nvml_links(nvml_device d)
{
    nvml_field_value f[2 * NVML_DL_MAX_NVLINKS];
    memset(f, 0, sizeof f);
    f[0].field_id = NVML_FIELD_NVLINK_LINK_COUNT;
    if (nvml_dl_field_values(d, 1, f) != MGPU_OK || f[0].ret != NVML_OK) {
        mgpu_error_clear();
        return json_null(); /* no NVLink fields on this GPU/driver: not reported */
    }
    unsigned n = f[0].value.ui;
    if (n > NVML_DL_MAX_NVLINKS) n = NVML_DL_MAX_NVLINKS;
    json_t *links = json_array();
    int up = 0;
    memset(f, 0, sizeof f);
    for (unsigned l = 0; l < n; l++) {
        f[2 * l].field_id = NVML_FIELD_NVLINK_GET_STATE;
        f[2 * l].scope_id = l;
        f[2 * l + 1].field_id = NVML_FIELD_NVLINK_GET_SPEED;
        f[2 * l + 1].scope_id = l;
    }
    if (n && nvml_dl_field_values(d, (int)(2 * n), f) != MGPU_OK) mgpu_error_clear();
    for (unsigned l = 0; l < n; l++) {
        nvml_field_value *st = &f[2 * l], *sp = &f[2 * l + 1];
        int known = st->ret == NVML_OK, on = known && st->value.ui == 1;
        up += on;
        json_array_append_new(links, json_pack("{s:i, s:o, s:o}", "link", (int)l, "state",
                                               known ? json_string(on ? "up" : "down") : json_null(), "speed_mbps",
                                               on && sp->ret == NVML_OK ? json_real(sp->value.ui) : json_null()));
    }
    return json_pack("{s:i, s:i, s:o}", "links", (int)n, "up", up, "per_link", links);
}

static json_t *nvml_facts(const mgpu_topo *t, int i)
{
    const mgpu_topo_gpu *g = mgpu_topo_gpu_at(t, i);
    json_t *o = json_pack("{s:i, s:s}", "gpu", i, "busid", g->busid);
    nvml_device d;
    if (nvml_dl_device_by_busid(g->busid, &d) != MGPU_OK) {
        json_object_set_new(o, "source", json_string("none"));
        json_object_set_new(o, "why", json_string(mgpu_error_message()));
        mgpu_error_clear();
        json_object_set_new(o, "nvlink", json_null());
        json_object_set_new(o, "pcie", json_null());
        return empty_health(o);
    }
    const mgpu_gpu_model *m = mgpu_gpu_model_by_name(g->name);
    json_object_set_new(o, "source", json_string("nvml"));
    json_object_set_new(o, "nvlink", nvml_links(d));
    json_t *gw = int_or_null(m && m->pcie_width, m ? m->pcie_width : 0);
    json_object_set_new(o, "pcie", json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "gen",
                                             nvml_uint(d, NVML_FACT_PCIE_GEN_CURRENT, 1), "gen_max",
                                             nvml_uint(d, NVML_FACT_PCIE_GEN_MAX, 1), "gen_gpu_max",
                                             nvml_uint(d, NVML_FACT_PCIE_GEN_GPU_MAX, 1), "width",
                                             nvml_uint(d, NVML_FACT_PCIE_WIDTH_CURRENT, 1), "width_max",
                                             nvml_uint(d, NVML_FACT_PCIE_WIDTH_MAX, 1), "width_gpu_max", gw));
    json_object_set_new(o, "ecc", json_pack("{s:o, s:o, s:o, s:o}", "corrected_volatile", nvml_ecc(d, 0, 0),
                                            "uncorrected_volatile", nvml_ecc(d, 1, 0), "corrected_aggregate",
                                            nvml_ecc(d, 0, 1), "uncorrected_aggregate", nvml_ecc(d, 1, 1)));
    unsigned sbe = 0, dbe = 0, rc = 0, ru = 0, rp = 0, rf = 0, temp = 0;
    /* retired pages before Ampere, remapped rows from Ampere on: whichever the GPU has */
    if (nvml_dl_retired_pages(d, 0, &sbe) == MGPU_OK && nvml_dl_retired_pages(d, 1, &dbe) == MGPU_OK)
        json_object_set_new(o, "retired_pages", json_pack("{s:i, s:i}", "multiple_sbe", (int)sbe, "dbe", (int)dbe));
    else
        json_object_set_new(o, "retired_pages", json_null());
    mgpu_error_clear();
    if (nvml_dl_remapped_rows(d, &rc, &ru, &rp, &rf) == MGPU_OK)
        json_object_set_new(o, "remapped_rows", json_pack("{s:i, s:i, s:b, s:b}", "corrected", (int)rc, "uncorrected",
                                                          (int)ru, "pending", (int)rp, "failed", (int)rf));
    else
        json_object_set_new(o, "remapped_rows", json_null());
    mgpu_error_clear();
    json_object_set_new(o, "temperature_c", nvml_dl_temperature(d, &temp) == MGPU_OK ? json_integer(temp) : json_null());
    mgpu_error_clear();
    json_object_set_new(o, "pcie_replays", nvml_uint(d, NVML_FACT_PCIE_REPLAYS, 1));
    /* NVML keeps no count of XID events (they go to the kernel log). */
    json_object_set_new(o, "xid_errors", json_null());
    json_object_set_new(o, "clocks", json_pack("{s:o, s:o, s:o, s:o}", "sm_mhz", nvml_clock(d, NVML_CLOCK_SM, 0),
                                               "sm_max_mhz", nvml_clock(d, NVML_CLOCK_SM, 1), "mem_mhz",
                                               nvml_clock(d, NVML_CLOCK_MEM, 0), "mem_max_mhz",
                                               nvml_clock(d, NVML_CLOCK_MEM, 1)));
    json_object_set_new(o, "throttle", nvml_throttle(d));
    json_object_set_new(o, "power", json_pack("{s:o, s:o}", "draw_w", nvml_uint(d, NVML_FACT_POWER_MW, 1e-3),
                                              "limit_w", nvml_uint(d, NVML_FACT_POWER_LIMIT_MW, 1e-3)));
    return o;
}

json_t *mgpu_gpu_facts_json(int sim, const mgpu_topo *t)
{
    json_t *out = json_array();
    int nvml = 0;
    char why[256] = "";
    if (!sim) {
        if (nvml_dl_open() == MGPU_OK) nvml = 1;
        else snprintf(why, sizeof why, "%s", mgpu_error_message());
        mgpu_error_clear();
    }
    for (int i = 0; t && i < mgpu_topo_gpu_count(t); i++) {
        if (mgpu_topo_gpu_at(t, i)->host != 0) continue;
        json_t *f;
        if (sim) f = model_facts(t, i);
        else if (nvml) f = nvml_facts(t, i);
        else {
            f = json_pack("{s:i, s:s, s:s, s:s, s:n, s:n}", "gpu", i, "busid", mgpu_topo_gpu_at(t, i)->busid, "source",
                          "none", "why", why, "nvlink", "pcie");
            empty_health(f);
        }
        json_array_append_new(out, f);
    }
    if (nvml) nvml_dl_close();
    return out;
}
