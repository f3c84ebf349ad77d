/* test_validate_xid.c - validate's XID rows (cli/validate_facts.c): an XID
 * during the run is an anomaly on its GPU with what the XID means and what
 * to run next; a watch NVML could not start says so; and on a machine with
 * no NVIDIA driver the watch refuses with the reason instead of crashing. */
#include "validate.h"
#include "mgpu/facts.h"
#include "mgpu/err.h"
#include "tap.h"
#include <string.h>

static json_t *facts_doc(void)
{
    return json_pack("{s:[{s:i, s:s}, {s:i, s:s}]}", "facts", "gpu", 0, "busid", "0000:19:00.0", "gpu", 3,
                     "busid", "0000:9a:00.0");
}

static const vcheck *find(const vreport *r, const char *name)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->v[i].name, name) == 0) return &r->v[i];
    return NULL;
}

int main(void)
{
    json_t *doc = facts_doc();

    /* two XIDs on GPU3 (NVML's upper-case bus id), nothing elsewhere */
    vreport r = {.tolerance = 0.15};
    json_t *ev = json_pack("{s:[s, s], s:[], s:[{s:s, s:i, s:i}, {s:s, s:i, s:i}]}", "watched", "0000:19:00.0",
                           "0000:9a:00.0", "unwatched", "events", "busid", "0000:9A:00.0", "xid", 79, "count", 1,
                           "busid", "0000:9a:00.0", "xid", 48, "count", 3);
    validate_xid(&r, doc, ev, "");
    const vcheck *c = find(&r, "GPU3 XID 79");
    CHECKF(c && c->status == V_ANOMALY, "an XID 79 on GPU3 is an anomaly named for GPU3");
    CHECK(c && strstr(c->cause, "fallen off the bus") && strstr(c->next, "dmesg"));
    CHECK(c && c->gpu_a == 3 && strcmp(c->kind, "xid") == 0);
    c = find(&r, "GPU3 XID 48");
    CHECK(c && strcmp(c->measured, "3 events") == 0 && strstr(c->cause, "double-bit ECC"));
    CHECK(find(&r, "XID events during the run") == NULL);
    vreport_find_causes(&r);
    CHECKF(r.nfindings >= 1 && r.findings[0].explains == 2, "both XIDs are one finding about GPU3, got %d findings",
           r.nfindings);
    CHECKF(r.nfindings >= 1 && strstr(r.findings[0].title, "GPU3") && strstr(r.findings[0].title, "XID"),
           "the finding names GPU3 and XID: %s", r.nfindings ? r.findings[0].title : "");
    vreport_free(&r);
    json_decref(ev);

    /* a quiet run: one OK row counting the GPUs watched; one GPU unwatched */
    vreport q = {.tolerance = 0.15};
    ev = json_pack("{s:[s], s:[{s:s, s:s}], s:[]}", "watched", "0000:19:00.0", "unwatched", "busid", "0000:9a:00.0",
                   "why", "this GPU does not report XID events to NVML", "events");
    validate_xid(&q, doc, ev, "");
    c = find(&q, "XID events during the run");
    CHECK(c && c->status == V_OK && strcmp(c->measured, "none on 1 GPU") == 0);
    c = find(&q, "0000:9a:00.0 XID events");
    CHECK(c && c->status == V_INFO && strstr(c->cause, "does not report XID"));
    CHECK(vreport_count(&q, V_ANOMALY) == 0);
    vreport_free(&q);
    json_decref(ev);

    /* no watch at all: said, with the reason, never counted as healthy or sick */
    vreport n = {.tolerance = 0.15};
    validate_xid(&n, doc, NULL, "NVML is not available (libnvidia-ml.so.1 did not load)");
    c = find(&n, "XID events during the run");
    CHECK(c && c->status == V_INFO && strcmp(c->measured, "not watched") == 0 && strstr(c->cause, "libnvidia-ml"));
    vreport_free(&n);

    /* this machine (CI) has no driver: the watch refuses and says why;
     * where NVML does load (a GPU machine) it watches every GPU it sees */
    mgpu_xid_watch *w = mgpu_xid_watch_start();
    if (!w) {
        CHECKF(strstr(mgpu_error_message(), "NVML") != NULL, "why: %s", mgpu_error_message());
        mgpu_error_clear();
        CHECK(mgpu_xid_watch_end(NULL) == NULL);
    } else {
        json_t *out = mgpu_xid_watch_end(w);
        CHECK(json_is_array(json_object_get(out, "watched")) && json_is_array(json_object_get(out, "events")));
        json_decref(out);
    }
    json_decref(doc);
    return tap_done();
}
