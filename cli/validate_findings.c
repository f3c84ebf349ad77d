/* validate_findings.c - the root cause first: anomalies grouped into
 * findings, one likely cause each, ordered by how many anomalies each
 * explains. A down NVLink explains its GPU's degraded paths, the peer copies
 * to and from it and the collectives below the model; disabled peer access
 * explains the peer copies and the collectives; GPUDirect RDMA off explains
 * the inter-node bandwidth and the multi-node collectives; a straggler rank
 * explains the collectives its peers wait in; a NIC port down or at the
 * wrong speed, or NCCL on sockets, the inter-node pairs and the multi-node
 * collectives. What no such cause accounts for is a finding of its own. */
#include "validate.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GPUS 4096

typedef struct causes {
    int nvl_first, p2p, gdr, strag_first, count;
    int nic_first, socket, pcie_first; /* a NIC port down or slow, NCCL on sockets, a PCIe link below its own */
    int net_first;                     /* the GPU of the first NIC pair below the model (no cause above) */
    const unsigned char *nvl_down, *pcie_low;
} causes;

static int is_bad(const vcheck *c) { return c->status == V_ANOMALY || c->status == V_ERROR; }
static int kind_is(const vcheck *c, const char *k) { return strcmp(c->kind, k) == 0; }

/* The cause a collective (or anything measured over every rank) follows
 * from, strongest first. */
static void shared_cause(const causes *k, char *key, size_t len)
{
    if (k->count) snprintf(key, len, "count");
    else if (k->nvl_first >= 0) snprintf(key, len, "nvlink:%d", k->nvl_first);
    else if (k->p2p) snprintf(key, len, "p2p");
    else if (k->strag_first >= 0) snprintf(key, len, "straggler:%d", k->strag_first);
    else if (k->socket) snprintf(key, len, "socket");
    else if (k->nic_first >= 0) snprintf(key, len, "nic:%d", k->nic_first);
    else if (k->gdr) snprintf(key, len, "gdr");
    else if (k->pcie_first >= 0) snprintf(key, len, "pcie:%d", k->pcie_first);
    else if (k->net_first >= 0) snprintf(key, len, "netgpu:%d", k->net_first);
    else key[0] = '\0';
}

static void key_of(const vcheck *c, const causes *k, char *key, size_t len)
{
    int a = c->gpu_a, b = c->gpu_b;
    int a_down = a >= 0 && a < MAX_GPUS && k->nvl_down[a], b_down = b >= 0 && b < MAX_GPUS && k->nvl_down[b];
    key[0] = '\0';
    if (kind_is(c, "nvlinks")) snprintf(key, len, "nvlink:%d", a);
    else if (kind_is(c, "peer") && a_down) snprintf(key, len, "nvlink:%d", a);
    else if (kind_is(c, "peer")) snprintf(key, len, "p2p");
    else if (kind_is(c, "gdr")) snprintf(key, len, "gdr");
    else if (kind_is(c, "rank")) snprintf(key, len, "straggler:%d", a);
    else if (kind_is(c, "pcie")) snprintf(key, len, "pcie:%d", a);
    else if (kind_is(c, "count")) snprintf(key, len, "count");
    else if (kind_is(c, "xid")) snprintf(key, len, "xid:%d", a);
    else if (kind_is(c, "port")) snprintf(key, len, "nic:%d", a);
    else if (kind_is(c, "socket")) snprintf(key, len, "socket");
    else if (kind_is(c, "path") || kind_is(c, "d2d")) {
        if (a_down) snprintf(key, len, "nvlink:%d", a);
        else if (b_down) snprintf(key, len, "nvlink:%d", b);
        else if (kind_is(c, "d2d") && k->p2p) snprintf(key, len, "p2p");
    } else if (kind_is(c, "h2d") || kind_is(c, "d2h")) {
        if (a >= 0 && a < MAX_GPUS && k->pcie_low[a]) snprintf(key, len, "pcie:%d", a);
    } else if (kind_is(c, "net")) {
        if (k->socket) snprintf(key, len, "socket");
        else if (k->nic_first >= 0) snprintf(key, len, "nic:%d", k->nic_first);
        else if (a >= 0 && a < MAX_GPUS && k->pcie_low[a]) snprintf(key, len, "pcie:%d", a);
        else if (k->gdr) snprintf(key, len, "gdr");
        else if (k->strag_first >= 0) snprintf(key, len, "straggler:%d", k->strag_first);
        /* no cause above: the pairs through one GPU's NIC (both ways) are one
         * finding - that NIC, or its partner's on the other node */
        else if (a >= 0) snprintf(key, len, "netgpu:%d", a);
    } else if (kind_is(c, "coll") || kind_is(c, "latency") || kind_is(c, "sweep") || kind_is(c, "load")) {
        shared_cause(k, key, len);
    }
    if (!key[0]) /* a cause of its own: the check itself */
        snprintf(key, len, "%s:%s", c->kind[0] ? c->kind : c->section, c->name);
}

/* The check that names a cause (the NVLinks row for "nvlink:3"), if any. */
static const vcheck *primary(const vreport *r, const char *key)
{
    for (int i = 0; i < r->n; i++) {
        const vcheck *c = &r->v[i];
        if (!is_bad(c)) continue;
        char own[48] = "";
        if (kind_is(c, "nvlinks")) snprintf(own, sizeof own, "nvlink:%d", c->gpu_a);
        else if (kind_is(c, "peer")) snprintf(own, sizeof own, "p2p");
        else if (kind_is(c, "gdr")) snprintf(own, sizeof own, "gdr");
        else if (kind_is(c, "rank")) snprintf(own, sizeof own, "straggler:%d", c->gpu_a);
        else if (kind_is(c, "pcie")) snprintf(own, sizeof own, "pcie:%d", c->gpu_a);
        else if (kind_is(c, "port")) snprintf(own, sizeof own, "nic:%d", c->gpu_a);
        else if (kind_is(c, "socket")) snprintf(own, sizeof own, "socket");
        else if (kind_is(c, "count")) snprintf(own, sizeof own, "count");
        if (own[0] && strcmp(own, key) == 0) return c;
    }
    return NULL;
}

/* The first NIC pair below the model through GPU g's NIC. */
static const vcheck *net_pair(const vreport *r, int g)
{
    for (int i = 0; i < r->n; i++)
        if (is_bad(&r->v[i]) && kind_is(&r->v[i], "net") && r->v[i].gpu_a == g) return &r->v[i];
    return NULL;
}

static void title_of(const vreport *r, vfinding *x, const vcheck *first)
{
    const vcheck *p = primary(r, x->key);
    int g;
    if (p && sscanf(x->key, "nvlink:%d", &g) == 1)
        snprintf(x->title, sizeof x->title, "GPU%d's NVLinks are down: %s", g, p->measured);
    else if (p && strcmp(x->key, "p2p") == 0)
        snprintf(x->title, sizeof x->title, "peer access is %s: copies between GPUs go through host memory",
                 p->measured);
    else if (p && strcmp(x->key, "gdr") == 0)
        snprintf(x->title, sizeof x->title, "GPUDirect RDMA is %s: inter-node traffic is staged through host memory",
                 p->measured);
    else if (p && sscanf(x->key, "straggler:%d", &g) == 1)
        snprintf(x->title, sizeof x->title, "rank %d is a straggler: %s, the others %s", g, p->measured, p->expected);
    else if (p && sscanf(x->key, "pcie:%d", &g) == 1)
        snprintf(x->title, sizeof x->title, "GPU%d's PCIe link is %s where it should be %s", g, p->measured,
                 p->expected);
    else if (p && sscanf(x->key, "nic:%d", &g) == 1)
        snprintf(x->title, sizeof x->title, "%s is %s where it should be %s: NCCL's traffic through it is slower "
                 "or moved to another NIC", p->name, p->measured, p->expected);
    else if (p && strcmp(x->key, "socket") == 0)
        snprintf(x->title, sizeof x->title, "NCCL's network transport is %s where it should be %s: traffic between "
                 "hosts goes over TCP sockets", p->measured, p->expected);
    else if (p && strcmp(x->key, "count") == 0)
        snprintf(x->title, sizeof x->title, "%s GPUs where %s are expected", p->measured, p->expected);
    else if (kind_is(first, "xid") && sscanf(x->key, "xid:%d", &g) == 1)
        snprintf(x->title, sizeof x->title, "%.60s reported XID errors during the run: %.280s",
                 g >= 0 ? first->name : "a GPU", first->cause);
    else if (sscanf(x->key, "netgpu:%d", &g) == 1 && (p = net_pair(r, g)) != NULL)
        snprintf(x->title, sizeof x->title, "the NIC pairs through GPU%d's NIC are below the model (%s where it "
                 "expects %s): that NIC or its partner moves data slower than its rate reads (a port with errors, "
                 "a cable)", g, p->measured, p->expected);
    else if (kind_is(first, "backend"))
        snprintf(x->title, sizeof x->title, "no usable GPU, nothing measured: %.300s", first->cause);
    else if (first->status == V_ERROR)
        snprintf(x->title, sizeof x->title, "%s %s could not be measured: %.200s", first->section, first->name,
                 first->cause);
    else
        snprintf(x->title, sizeof x->title, "%s %s: %s where the model expects %s", first->section, first->name,
                 first->measured, first->expected);
    snprintf(x->next, sizeof x->next, "%s", (p ? p : first)->next);
}

static int by_explains(const void *a, const void *b)
{
    const vfinding *x = a, *y = b;
    return y->explains != x->explains ? y->explains - x->explains : x->first_check - y->first_check;
}

void vreport_find_causes(vreport *r)
{
    static unsigned char nvl_down[MAX_GPUS], pcie_low[MAX_GPUS];
    memset(nvl_down, 0, sizeof nvl_down);
    memset(pcie_low, 0, sizeof pcie_low);
    causes k = {.nvl_first = -1, .strag_first = -1, .nic_first = -1, .pcie_first = -1, .net_first = -1,
                .nvl_down = nvl_down, .pcie_low = pcie_low};
    for (int i = 0; i < r->n; i++) {
        const vcheck *c = &r->v[i];
        if (!is_bad(c)) continue;
        int a = c->gpu_a;
        if (kind_is(c, "nvlinks") && a >= 0 && a < MAX_GPUS) {
            nvl_down[a] = 1;
            if (k.nvl_first < 0) k.nvl_first = a;
        }
        if (kind_is(c, "pcie") && a >= 0 && a < MAX_GPUS) {
            pcie_low[a] = 1;
            if (k.pcie_first < 0) k.pcie_first = a;
        }
        if (kind_is(c, "port") && k.nic_first < 0) k.nic_first = a;
        if (kind_is(c, "socket")) k.socket = 1;
    }
    for (int i = 0; i < r->n; i++) { /* what the links above do not explain */
        const vcheck *c = &r->v[i];
        int a = c->gpu_a;
        if (!is_bad(c)) continue;
        if (kind_is(c, "peer") && !(a >= 0 && a < MAX_GPUS && nvl_down[a])) k.p2p = 1;
        if (kind_is(c, "gdr")) k.gdr = 1;
        if (kind_is(c, "count")) k.count = 1;
        if (kind_is(c, "rank") && k.strag_first < 0) k.strag_first = a;
        if (kind_is(c, "net") && a >= 0 && k.net_first < 0) k.net_first = a;
    }
    free(r->findings);
    r->findings = calloc((size_t)(r->n ? r->n : 1), sizeof *r->findings);
    r->nfindings = 0;
    if (!r->findings) return;
    int *first = calloc((size_t)(r->n ? r->n : 1), sizeof *first);
    if (!first) return;
    for (int i = 0; i < r->n; i++) {
        vcheck *c = &r->v[i];
        if (!is_bad(c)) continue;
        char key[sizeof r->findings[0].key];
        key_of(c, &k, key, sizeof key);
        int f = 0;
        while (f < r->nfindings && strcmp(r->findings[f].key, key) != 0) f++;
        if (f == r->nfindings) {
            snprintf(r->findings[f].key, sizeof r->findings[f].key, "%s", key);
            first[f] = i;
            r->findings[f].first_check = i;
            r->nfindings++;
        }
        r->findings[f].explains++;
        c->finding = f;
    }
    for (int f = 0; f < r->nfindings; f++) title_of(r, &r->findings[f], &r->v[first[f]]);
    /* order by how much each explains; the checks keep their finding's key */
    vfinding *old = malloc((size_t)r->nfindings * sizeof *old + 1);
    if (old) {
        memcpy(old, r->findings, (size_t)r->nfindings * sizeof *old);
        qsort(r->findings, (size_t)r->nfindings, sizeof *r->findings, by_explains);
        for (int i = 0; i < r->n; i++) {
            vcheck *c = &r->v[i];
            if (c->finding < 0) continue;
            for (int f = 0; f < r->nfindings; f++)
                if (strcmp(r->findings[f].key, old[c->finding].key) == 0) {
                    c->finding = f;
                    break;
                }
        }
        free(old);
    }
    free(first);
}
