/* xid_watch.c - the XID events of this host's GPUs during a run (validate):
 * an NVML event set every GPU registers with at the start; at the end the
 * queued events are drained and counted per GPU and XID. XIDs are how the
 * driver reports a GPU error (dmesg's "NVRM: Xid"); a GPU that threw one
 * during validate's load is not healthy whatever its bandwidth was.
 *
 * Only this host's GPUs: the coordinator watches the node it runs on. */
#include "mgpu/facts.h"
#include "mgpu/nvml_dl.h"
#include <stdlib.h>
#include <string.h>

#define XID_MAX_GPUS 64
#define XID_MAX_EVENTS 100000 /* a storm of events is counted up to here */

struct mgpu_xid_watch {
    nvml_event_set set;
    json_t *watched, *unwatched;
};

static void busid_of(nvml_device d, char *out, unsigned len)
{
    nvml_pci_info pci;
    out[0] = '\0';
    if (nvml_dl_pci_info(d, &pci) == MGPU_OK) {
        pci.bus_id[sizeof pci.bus_id - 1] = '\0';
        nvml_dl_normalize_busid(pci.bus_id, out, len);
    }
    mgpu_error_clear();
}

mgpu_xid_watch *mgpu_xid_watch_start(void)
{
    if (nvml_dl_open() != MGPU_OK) return NULL;
    mgpu_xid_watch *w = calloc(1, sizeof *w);
    unsigned n = 0;
    if (!w) {
        nvml_dl_close();
        mgpu_fail(MGPU_ERR_NOMEM, "out of memory for the XID watch");
        return NULL;
    }
    if (nvml_dl_event_set_create(&w->set) != MGPU_OK || nvml_dl_device_count(&n) != MGPU_OK) {
        nvml_dl_event_set_free(w->set);
        free(w);
        nvml_dl_close();
        return NULL;
    }
    w->watched = json_array();
    w->unwatched = json_array();
    for (unsigned i = 0; i < n && i < XID_MAX_GPUS; i++) {
        nvml_device d;
        char busid[32] = "";
        if (nvml_dl_device_by_index(i, &d) != MGPU_OK) {
            json_array_append_new(w->unwatched, json_pack("{s:s, s:s}", "busid", "?", "why", mgpu_error_message()));
            mgpu_error_clear();
            continue;
        }
        busid_of(d, busid, sizeof busid);
        if (nvml_dl_register_xid(d, w->set) == MGPU_OK)
            json_array_append_new(w->watched, json_string(busid));
        else
            json_array_append_new(w->unwatched, json_pack("{s:s, s:s}", "busid", busid, "why", mgpu_error_message()));
        mgpu_error_clear();
    }
    return w;
}

/* events[busid][xid] += 1, as {"busid": {"xid": count}} */
static void count_event(json_t *by_gpu, const char *busid, unsigned long long xid)
{
    json_t *g = json_object_get(by_gpu, busid);
    if (!g) json_object_set_new(by_gpu, busid, g = json_object());
    char key[24];
    snprintf(key, sizeof key, "%llu", xid);
    json_int_t c = json_integer_value(json_object_get(g, key));
    json_object_set_new(g, key, json_integer(c + 1));
}

json_t *mgpu_xid_watch_end(mgpu_xid_watch *w)
{
    if (!w) return NULL;
    json_t *by_gpu = json_object();
    const char *why = NULL;
    char err[256] = "";
    for (int k = 0; k < XID_MAX_EVENTS; k++) {
        nvml_event_data e;
        int got = 0;
        if (nvml_dl_event_wait(w->set, 0, &e, &got) != MGPU_OK) {
            snprintf(err, sizeof err, "%s", mgpu_error_message());
            mgpu_error_clear();
            why = err;
            break;
        }
        if (!got) break;
        if (!(e.event_type & NVML_EVENT_XID)) continue;
        char busid[32];
        busid_of(e.device, busid, sizeof busid);
        count_event(by_gpu, busid[0] ? busid : "?", e.event_data);
    }
    json_t *events = json_array();
    const char *busid;
    json_t *g;
    json_object_foreach(by_gpu, busid, g) {
        const char *xid;
        json_t *c;
        json_object_foreach(g, xid, c)
            json_array_append_new(events, json_pack("{s:s, s:I, s:O}", "busid", busid,
                                                    "xid", (json_int_t)strtoll(xid, NULL, 10), "count", c));
    }
    json_decref(by_gpu);
    json_t *out = json_pack("{s:o, s:o, s:o}", "watched", w->watched, "unwatched", w->unwatched, "events", events);
    if (why) json_object_set_new(out, "error", json_string(why));
    nvml_dl_event_set_free(w->set);
    free(w);
    nvml_dl_close();
    return out;
}
