/* topo_model.c - the model: from host trees to the derived view (GPU and
 * NIC lists, path types and modelled bandwidths, peer access, notes).
 * The mapping from NCCL's tree to nvidia-smi's path types and the
 * bandwidth model are explained in docs/topology-model.md. */
#include "topo/topo_internal.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*--- Small helpers ----------------------------------------------------*/

const char *mgpu_path_type_name(mgpu_path_type t)
{
    static const char *const names[] = {"X", "NV", "PIX", "PXB", "PHB", "NODE", "SYS", "NET"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

void topo_where(const topo_srcmap *map, const mgpu_xml_node *n, char *buf, size_t len)
{
    if (map)
        for (int i = 0; i < map->n; i++)
            if (map->pos[i].node == n) {
                snprintf(buf, len, "%s:%d:%d", map->source, map->pos[i].line, map->pos[i].col);
                return;
            }
    /* No file: name the element by its path, which is how a preset or a
     * discovered tree is read. */
    const mgpu_xml_node *chain[TOPO_MAX_DEPTH];
    int k = 0;
    for (const mgpu_xml_node *p = n; p && k < TOPO_MAX_DEPTH; p = p->parent) chain[k++] = p;
    size_t used = 0;
    buf[0] = 0;
    while (k-- > 0 && used + 1 < len) {
        const char *busid = mgpu_xml_get(chain[k], "busid");
        int w = busid ? snprintf(buf + used, len - used, "/<%s busid=%s>", chain[k]->name, busid)
                      : snprintf(buf + used, len - used, "/<%s>", chain[k]->name);
        if (w < 0) break;
        used += (size_t)w;
    }
}

/* Read an integer attribute the view needs; malformed values are errors
 * that name where they are. Absent: *out = dflt unless required. */
static mgpu_result attr_int(const topo_srcmap *map, const mgpu_xml_node *n, const char *key,
                            long long lo, long long hi, int required, long long dflt, long long *out)
{
    const char *v = mgpu_xml_get(n, key);
    char where[200];
    if (!v) {
        if (!required) {
            *out = dflt;
            return MGPU_OK;
        }
        topo_where(map, n, where, sizeof where);
        return mgpu_fail(MGPU_ERR_PARSE, "%s: <%s> has no '%s' attribute, which NCCL's format requires",
                         where, n->name, key);
    }
    long long x;
    if (!topo_parse_long(v, &x) || x < lo || x > hi) {
        topo_where(map, n, where, sizeof where);
        return mgpu_fail(MGPU_ERR_PARSE, "%s: <%s> attribute %s=\"%.60s\" is not an integer in [%lld, %lld]",
                         where, n->name, key, v, lo, hi);
    }
    *out = x;
    return MGPU_OK;
}

/* PCIe link of a <pci> element per direction in GB/s, 0 when unknown:
 * GT/s x lanes x line-code efficiency / 8 bits. */
static mgpu_result pci_link_gbs(const topo_srcmap *map, const mgpu_xml_node *pci, double *gbs)
{
    *gbs = 0;
    const char *sp = mgpu_xml_get(pci, "link_speed");
    long long width;
    MGPU_CHECK(attr_int(map, pci, "link_width", 0, 64, 0, 0, &width));
    if (!sp || !*sp || width == 0) return MGPU_OK;
    char *end = NULL;
    double gts = strtod(sp, &end);
    if (end == sp || !(gts >= 0 && gts <= 1000) || (*end && strncmp(end, " GT/s", 5) != 0)) {
        char where[200];
        topo_where(map, pci, where, sizeof where);
        return mgpu_fail(MGPU_ERR_PARSE, "%s: <pci> attribute link_speed=\"%.60s\" is not like \"32.0 GT/s PCIe\"",
                         where, sp);
    }
    /* 8b/10b up to Gen2, 128b/130b for Gen3-5, FLIT mode (242/256) for Gen6. */
    double eff = gts < 8.0 ? 0.8 : gts < 64.0 ? 128.0 / 130.0 : 242.0 / 256.0;
    *gbs = gts * (double)width * eff / 8.0;
    return MGPU_OK;
}

/*--- CPU masks --------------------------------------------------------*/

mgpu_result topo_mask_to_cpulist(const char *mask, char *out, size_t len)
{
    out[0] = 0;
    if (!mask || !*mask) return MGPU_OK;
    /* Words are 32-bit hex, most significant first (the kernel's cpumask
     * format that NCCL copies from sysfs local_cpus). */
    enum { MAXW = 256 };
    uint32_t words[MAXW];
    int nw = 0;
    const char *p = mask;
    for (;;) {
        const char *s = p;
        uint32_t w = 0;
        int digits = 0;
        while (isxdigit((unsigned char)*p)) {
            int d = isdigit((unsigned char)*p) ? *p - '0' : (tolower((unsigned char)*p) - 'a' + 10);
            w = (w << 4) | (uint32_t)d;
            p++;
            digits++;
        }
        if (digits == 0 || digits > 8 || nw == MAXW)
            return mgpu_fail(MGPU_ERR_INVALID, "affinity mask \"%.60s\" is not comma-separated 32-bit hex words "
                             "(at \"%.10s\")", mask, s);
        words[nw++] = w;
        if (*p == 0) break;
        if (*p != ',')
            return mgpu_fail(MGPU_ERR_INVALID, "affinity mask \"%.60s\" has '%c' where a comma or hex digit belongs",
                             mask, *p);
        p++;
    }
    size_t used = 0;
    int ncpu = nw * 32, start = -1;
    for (int c = 0; c <= ncpu; c++) {
        int set = c < ncpu && (words[nw - 1 - c / 32] >> (c % 32) & 1u);
        if (set && start < 0) start = c;
        if (!set && start >= 0) {
            char item[32];
            if (start == c - 1) snprintf(item, sizeof item, "%s%d", used ? "," : "", start);
            else snprintf(item, sizeof item, "%s%d-%d", used ? "," : "", start, c - 1);
            size_t il = strlen(item);
            if (used + il + 4 >= len) { /* a list too long to show is marked, not cut silently */
                snprintf(out + used, len - used, ",...");
                return MGPU_OK;
            }
            memcpy(out + used, item, il + 1);
            used += il;
            start = -1;
        }
    }
    return MGPU_OK;
}

mgpu_result topo_cpulist_to_mask(const char *cpulist, int ncpus, char *out, size_t len)
{
    int nw = (ncpus + 31) / 32;
    if (nw <= 0 || nw > 256 || (size_t)nw * 9 > len)
        return mgpu_fail(MGPU_ERR_INVALID, "cpu count %d is out of range for an affinity mask", ncpus);
    uint32_t words[256] = {0};
    const char *p = cpulist;
    while (p && *p) {
        char *end;
        long a = strtol(p, &end, 10), b = a;
        if (end == p) goto bad;
        p = end;
        if (*p == '-') {
            b = strtol(p + 1, &end, 10);
            if (end == p + 1) goto bad;
            p = end;
        }
        if (a < 0 || b < a || b >= ncpus) goto bad;
        for (long c = a; c <= b; c++) words[c / 32] |= 1u << (c % 32);
        if (*p == ',') p++;
        else if (*p) goto bad;
    }
    size_t used = 0;
    for (int i = nw - 1; i >= 0; i--)
        used += (size_t)snprintf(out + used, len - used, "%s%08x", i == nw - 1 ? "" : ",", words[i]);
    return MGPU_OK;
bad:
    return mgpu_fail(MGPU_ERR_INVALID, "cpu list \"%.60s\" is not like \"0-55,112-167\" within %d cpus",
                     cpulist, ncpus);
}

/*--- Building the view ------------------------------------------------*/

static const mgpu_xml_node *ancestor(const mgpu_xml_node *n, const char *name)
{
    for (const mgpu_xml_node *p = n ? n->parent : NULL; p; p = p->parent)
        if (strcmp(p->name, name) == 0) return p;
    return NULL;
}

/* Inter-socket bandwidth per direction from the CPU, NCCL's constants
 * (src/graph/topo.h: SKL_QPI_BW, SRP_QPI_BW, AMD_ZEN*_BW, ...). */
static mgpu_result cpu_intersocket_gbs(const topo_srcmap *map, const mgpu_xml_node *cpu, double *gbs)
{
    long long fam, model;
    MGPU_CHECK(attr_int(map, cpu, "familyid", 0, 1 << 20, 0, -1, &fam));
    MGPU_CHECK(attr_int(map, cpu, "modelid", 0, 1 << 20, 0, -1, &model));
    const char *arch = mgpu_xml_get(cpu, "arch"), *vendor = mgpu_xml_get(cpu, "vendor");
    *gbs = 10.0;
    if (arch && strcmp(arch, "ppc64") == 0) *gbs = 32.0;
    else if (arch && strcmp(arch, "arm64") == 0) *gbs = 6.0;
    else if (vendor && strcmp(vendor, "GenuineIntel") == 0)
        *gbs = model >= 0xCF ? 40.0 : model >= 0x8F ? 22.0 : model >= 0x55 ? 10.0 : model >= 0 ? 6.0 : 10.0;
    else if (vendor && strcmp(vendor, "AuthenticAMD") == 0)
        *gbs = fam >= 0x1A ? 32.0 : fam >= 0x19 ? 24.0 : 16.0;
    else if (vendor && strcmp(vendor, "CentaurHauls") == 0)
        *gbs = 9.0;
    return MGPU_OK;
}

typedef struct build_ctx {
    mgpu_topo *t;
    const topo_srcmap *map;
    int host;
} build_ctx;

static mgpu_result grow(void **arr, int n, size_t elem, int limit, const char *what)
{
    if (n >= limit) return mgpu_fail(MGPU_ERR_PARSE, "the model has more than %d %s; mgpulab's limit", limit, what);
    if ((n & (n - 1)) == 0) { /* power of two: double */
        void *p = realloc(*arr, (size_t)(n ? 2 * n : 8) * elem);
        if (!p) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory building the topology view");
        *arr = p;
    }
    return MGPU_OK;
}

static mgpu_result copy_busid(const build_ctx *c, const mgpu_xml_node *pci, char *dst)
{
    const char *b = pci ? mgpu_xml_get(pci, "busid") : NULL;
    if (!b) return MGPU_OK;
    if (strlen(b) >= 20) {
        char where[200];
        topo_where(c->map, pci, where, sizeof where);
        return mgpu_fail(MGPU_ERR_PARSE, "%s: <pci> busid=\"%.60s\" is too long for a PCI bus id", where, b);
    }
    strcpy(dst, b);
    for (char *p = dst; *p; p++) *p = (char)tolower((unsigned char)*p);
    return MGPU_OK;
}

static mgpu_result add_gpu(build_ctx *c, const mgpu_xml_node *g)
{
    mgpu_topo *t = c->t;
    MGPU_CHECK(grow((void **)&t->gpus, t->ngpus, sizeof *t->gpus, TOPO_MAX_GPUS, "GPUs"));
    mgpu_topo_gpu *u = &t->gpus[t->ngpus];
    memset(u, 0, sizeof *u);
    u->host = c->host;
    u->node = g;
    long long v;
    MGPU_CHECK(attr_int(c->map, g, "dev", 0, TOPO_MAX_GPUS - 1, 1, 0, &v));
    u->dev = (int)v;
    MGPU_CHECK(attr_int(c->map, g, "sm", 0, 10000, 0, 0, &v));
    u->sm = (int)v;
    MGPU_CHECK(attr_int(c->map, g, "gdr", 0, 1, 0, 0, &v));
    u->gdr = (int)v;
    const mgpu_xml_node *pci = g->parent && strcmp(g->parent->name, "pci") == 0 ? g->parent : NULL;
    MGPU_CHECK(copy_busid(c, pci, u->busid));
    if (pci) MGPU_CHECK(pci_link_gbs(c->map, pci, &u->pcie_gbs));
    const mgpu_xml_node *cpu = ancestor(g, "cpu");
    u->numa = -1;
    if (cpu) {
        MGPU_CHECK(attr_int(c->map, cpu, "numaid", -1, 1 << 16, 0, -1, &v));
        u->numa = (int)v;
        if (topo_mask_to_cpulist(mgpu_xml_get(cpu, "affinity"), u->cpulist, sizeof u->cpulist) != MGPU_OK) {
            char where[200], why[256];
            snprintf(why, sizeof why, "%s", mgpu_error_message());
            topo_where(c->map, cpu, where, sizeof where);
            return mgpu_fail(MGPU_ERR_PARSE, "%s: <cpu> attribute affinity: %s", where, why);
        }
    }
    const mgpu_gpu_model *m = NULL;
    if (pci && mgpu_xml_get(pci, "device")) {
        MGPU_CHECK(attr_int(c->map, pci, "device", 0, 0xffff, 0, 0, &v));
        m = mgpu_gpu_model_by_pci((unsigned)v);
        if (!m)
            mgpu_topo_add_note(t, "GPU %s (PCI device %s) is not in mgpulab's GPU model table: name, memory and "
                               "HBM bandwidth unknown", u->busid, mgpu_xml_get(pci, "device"));
    }
    if (m) {
        snprintf(u->name, sizeof u->name, "%s", m->name);
        u->mem_bytes = m->mem_bytes;
        u->hbm_gbs = m->hbm_gbs;
        if (!u->sm) u->sm = m->sm;
    }
    for (int i = 0; i < g->nchildren; i++) {
        const mgpu_xml_node *l = g->children[i];
        if (strcmp(l->name, "nvlink") != 0) continue;
        MGPU_CHECK(attr_int(c->map, l, "count", 0, 1024, 1, 0, &v));
        long long cls;
        MGPU_CHECK(attr_int(c->map, l, "tclass", 0, 0xffffff, 0, 0, &cls));
        u->nvlinks_total += (int)v; /* links to GPUs, NVSwitches or CPUs all use the GPU's ports */
    }
    t->ngpus++;
    return MGPU_OK;
}

static mgpu_result add_nic(build_ctx *c, const mgpu_xml_node *net)
{
    mgpu_topo *t = c->t;
    MGPU_CHECK(grow((void **)&t->nics, t->nnics, sizeof *t->nics, TOPO_MAX_NICS, "NICs"));
    mgpu_topo_nic *n = &t->nics[t->nnics];
    memset(n, 0, sizeof *n);
    n->host = c->host;
    n->node = net;
    const char *name = mgpu_xml_get(net, "name");
    snprintf(n->name, sizeof n->name, "%s", name ? name : "");
    long long v;
    /* NCCL writes speed in Mbit/s (400000 for NDR). */
    MGPU_CHECK(attr_int(c->map, net, "speed", 0, 100000000, 0, 0, &v));
    n->speed_gbps = n->speed_wired_gbps = (double)v / 1000.0;
    n->slow = 1.0;
    MGPU_CHECK(attr_int(c->map, net, "gdr", 0, 1, 0, 0, &v));
    n->gdr = (int)v;
    MGPU_CHECK(attr_int(c->map, net, "port", 0, 1 << 16, 0, 0, &v));
    n->port = (int)v;
    MGPU_CHECK(attr_int(c->map, net, "dev", 0, TOPO_MAX_NICS, 0, 0, &v));
    const mgpu_xml_node *nic = net->parent;
    const mgpu_xml_node *pci = nic && nic->parent && strcmp(nic->parent->name, "pci") == 0 ? nic->parent : NULL;
    MGPU_CHECK(copy_busid(c, pci, n->busid));
    if (pci) {
        double gbs;
        MGPU_CHECK(pci_link_gbs(c->map, pci, &gbs));
    }
    const mgpu_xml_node *cpu = ancestor(net, "cpu");
    n->numa = -1;
    if (cpu) {
        MGPU_CHECK(attr_int(c->map, cpu, "numaid", -1, 1 << 16, 0, -1, &v));
        n->numa = (int)v;
    }
    t->nnics++;
    return MGPU_OK;
}

static mgpu_result walk(build_ctx *c, const mgpu_xml_node *n, int depth)
{
    if (depth > TOPO_MAX_DEPTH)
        return mgpu_fail(MGPU_ERR_PARSE, "the topology tree is deeper than %d levels", TOPO_MAX_DEPTH);
    if (strcmp(n->name, "gpu") == 0) MGPU_CHECK(add_gpu(c, n));
    else if (strcmp(n->name, "net") == 0 && n->parent && strcmp(n->parent->name, "nic") == 0)
        MGPU_CHECK(add_nic(c, n));
    else if (strcmp(n->name, "pci") == 0 && mgpu_xml_get(n, "class")) {
        long long v; /* the view reads class (host bridges) */
        MGPU_CHECK(attr_int(c->map, n, "class", 0, 0xffffff, 0, 0, &v));
    }
    for (int i = 0; i < n->nchildren; i++) MGPU_CHECK(walk(c, n->children[i], depth + 1));
    return MGPU_OK;
}

/*--- Identities: bus ids, ranks, NVLink ends -----------------------------*/

/* A PCI bus id as NCCL writes it: DOMAIN:BUS:DEVICE.FUNCTION in hex, the
 * domain 1-8 digits ("0000:05:00.0"; "fffffff:ff:ff.0" for an NVSwitch). */
static int busid_ok(const char *b)
{
    int n = 0;
    while (isxdigit((unsigned char)b[n])) n++;
    if (n < 1 || n > 8 || b[n] != ':') return 0;
    b += n + 1;
    if (!isxdigit((unsigned char)b[0]) || !isxdigit((unsigned char)b[1]) || b[2] != ':') return 0;
    b += 3;
    if (!isxdigit((unsigned char)b[0]) || !isxdigit((unsigned char)b[1]) || b[2] != '.') return 0;
    return isxdigit((unsigned char)b[3]) && b[4] == 0;
}

static mgpu_result id_fail(const topo_srcmap *map, const mgpu_xml_node *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static mgpu_result id_fail(const topo_srcmap *map, const mgpu_xml_node *n, const char *fmt, ...)
{
    char where[200], why[400];
    topo_where(map, n, where, sizeof where);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return mgpu_fail(MGPU_ERR_PARSE, "%s: %s", where, why);
}

/* A bus id (lower case) or a rank, with where it came from, sorted to find
 * repeats in n log n: a file may hold 200000 elements. */
typedef struct id_key {
    int host;
    long long rank;
    char id[20];
    int order;                /* document order, so the first is named */
    const mgpu_xml_node *node;
} id_key;

static int cmp_id_key(const void *a, const void *b)
{
    const id_key *x = a, *y = b;
    if (x->host != y->host) return x->host < y->host ? -1 : 1;
    int c = strcmp(x->id, y->id);
    if (c) return c;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

typedef struct id_list {
    id_key *k;
    int n, cap;
} id_list;

static mgpu_result id_add(id_list *l, int host, const char *id, long long rank, const mgpu_xml_node *node)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        id_key *k = realloc(l->k, (size_t)cap * sizeof *k);
        if (!k) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory checking the topology");
        l->k = k, l->cap = cap;
    }
    id_key *k = &l->k[l->n];
    k->host = host, k->rank = rank, k->order = l->n, k->node = node;
    snprintf(k->id, sizeof k->id, "%s", id);
    for (char *p = k->id; *p; p++) *p = (char)tolower((unsigned char)*p);
    l->n++;
    return MGPU_OK;
}

/* The first repeat of a sorted list, named with its first occurrence. */
static mgpu_result id_repeats(const topo_srcmap *map, id_list *l, const char *what)
{
    if (l->n < 2) return MGPU_OK; /* nothing can repeat (and qsort of NULL is undefined) */
    qsort(l->k, (size_t)l->n, sizeof *l->k, cmp_id_key);
    for (int i = 1; i < l->n; i++) {
        const id_key *a = &l->k[i - 1], *b = &l->k[i];
        if (a->host != b->host || strcmp(a->id, b->id) != 0 || a->rank != b->rank) continue;
        char first[200];
        topo_where(map, a->node, first, sizeof first);
        if (a->id[0])
            return id_fail(map, b->node, "a second <pci busid=\"%s\"> (the first is at %s); each device is in the "
                           "tree once", b->id, first);
        return id_fail(map, b->node, "a second <gpu rank=\"%lld\"> (the first is at %s); each %s has one GPU",
                       b->rank, first, what);
    }
    return MGPU_OK;
}

/* Every <pci busid> of one host tree, checked for form and listed. */
static mgpu_result list_busids(const topo_srcmap *map, const mgpu_xml_node *n, int host, id_list *l, int depth)
{
    if (depth > TOPO_MAX_DEPTH) return MGPU_OK; /* walk() has refused it */
    const char *b = strcmp(n->name, "pci") == 0 ? mgpu_xml_get(n, "busid") : NULL;
    if (b) {
        if (!busid_ok(b))
            return id_fail(map, n, "<pci> busid=\"%.60s\" is not a PCI bus id like \"0000:05:00.0\"", b);
        MGPU_CHECK(id_add(l, host, b, 0, n));
    }
    for (int i = 0; i < n->nchildren; i++) MGPU_CHECK(list_busids(map, n->children[i], host, l, depth + 1));
    return MGPU_OK;
}

/* The far end of one GPU's NVLink: a bus id, not the GPU itself, and (in
 * a file the user named) a GPU of the host when its class says GPU. */
static mgpu_result check_nvlink(const mgpu_topo *t, const topo_srcmap *map, const mgpu_topo_gpu *g,
                                const mgpu_xml_node *l, const id_list *gpus)
{
    const char *tgt = mgpu_xml_get(l, "target");
    long long cls = 0;
    if (!tgt) return id_fail(map, l, "<nvlink> has no target, the bus id of its far end");
    if (!busid_ok(tgt)) return id_fail(map, l, "<nvlink> target=\"%.60s\" is not a PCI bus id like \"0000:05:00.0\"", tgt);
    if (g->busid[0] && strcasecmp(tgt, g->busid) == 0) return id_fail(map, l, "<nvlink> target=\"%s\" is the GPU itself", tgt);
    if (!map || !map->strict_links || !topo_parse_long(mgpu_xml_get(l, "tclass"), &cls) || (cls >> 16) != 0x03)
        return MGPU_OK; /* an NVSwitch or CPU end: any id */
    id_key want = {.host = g->host};
    snprintf(want.id, sizeof want.id, "%s", tgt);
    for (char *p = want.id; *p; p++) *p = (char)tolower((unsigned char)*p);
    /* gpus is sorted by (host, id, rank 0, order): find the first of host+id */
    int lo = 0, hi = gpus->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        const id_key *k = &gpus->k[mid];
        int c = k->host != want.host ? (k->host < want.host ? -1 : 1) : strcmp(k->id, want.id);
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    if (lo < gpus->n && gpus->k[lo].host == want.host && strcmp(gpus->k[lo].id, want.id) == 0) return MGPU_OK;
    (void)t;
    return id_fail(map, l, "<nvlink target=\"%s\"> leads to a GPU (tclass %s) that is not in this host's tree; NCCL "
                   "ignores such a link (a GPU outside the job): remove it, or add that GPU", tgt,
                   mgpu_xml_get(l, "tclass"));
}

/* Bus ids once per host, each GPU's rank once in the machine, every NVLink
 * to a real far end. Without these a file with two devices at one address
 * or links to nowhere loaded, and the model built from it (and `validate`
 * against it) said all was well. */
static mgpu_result check_ids(const mgpu_topo *t, const topo_srcmap *map)
{
    id_list bus = {0}, ranks = {0}, gpus = {0};
    mgpu_result r = MGPU_OK;
    for (int h = 0; h < t->nhosts && r == MGPU_OK; h++) r = list_busids(map, t->hosts[h], h, &bus, 0);
    if (r == MGPU_OK) r = id_repeats(map, &bus, "device");
    for (int i = 0; i < t->ngpus && r == MGPU_OK; i++) {
        long long rank;
        if (topo_parse_long(mgpu_xml_get(t->gpus[i].node, "rank"), &rank))
            r = id_add(&ranks, 0, "", rank, t->gpus[i].node);
        if (r == MGPU_OK && t->gpus[i].busid[0]) r = id_add(&gpus, t->gpus[i].host, t->gpus[i].busid, 0, t->gpus[i].node);
    }
    if (r == MGPU_OK) r = id_repeats(map, &ranks, "rank");
    if (r == MGPU_OK && gpus.n > 1) qsort(gpus.k, (size_t)gpus.n, sizeof *gpus.k, cmp_id_key);
    for (int i = 0; i < t->ngpus && r == MGPU_OK; i++)
        for (int k = 0; k < t->gpus[i].node->nchildren && r == MGPU_OK; k++)
            if (strcmp(t->gpus[i].node->children[k]->name, "nvlink") == 0)
                r = check_nvlink(t, map, &t->gpus[i], t->gpus[i].node->children[k], &gpus);
    free(bus.k);
    free(ranks.k);
    free(gpus.k);
    return r;
}

static int cmp_gpu(const void *a, const void *b)
{
    const mgpu_topo_gpu *x = a, *y = b;
    if (x->host != y->host) return x->host < y->host ? -1 : 1;
    return (x->dev > y->dev) - (x->dev < y->dev);
}

/* Order NICs by (host, NCCL dev), ties in document order: the key holds
 * all three, so it is unique and qsort's instability does not matter. */
typedef struct nic_key {
    long long key;
    mgpu_topo_nic nic;
} nic_key;

static int cmp_nic_key(const void *a, const void *b)
{
    const nic_key *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

static mgpu_result sort_nics(mgpu_topo *t)
{
    if (t->nnics < 2) return MGPU_OK;
    nic_key *k = malloc((size_t)t->nnics * sizeof *k);
    if (!k) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory sorting NICs");
    for (int i = 0; i < t->nnics; i++) {
        long long dev;
        if (!topo_parse_long(mgpu_xml_get(t->nics[i].node, "dev"), &dev)) dev = TOPO_MAX_NICS;
        k[i].key = ((long long)t->nics[i].host << 40) | (dev << 20) | i;
        k[i].nic = t->nics[i];
    }
    qsort(k, (size_t)t->nnics, sizeof *k, cmp_nic_key);
    for (int i = 0; i < t->nnics; i++) t->nics[i] = k[i].nic;
    free(k);
    return MGPU_OK;
}

static mgpu_result derive(mgpu_topo *t, const topo_srcmap *map)
{
    t->host_intersocket_gbs = calloc((size_t)t->nhosts, sizeof *t->host_intersocket_gbs);
    if (!t->host_intersocket_gbs) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory building the topology view");
    for (int h = 0; h < t->nhosts; h++) {
        const mgpu_xml_node *sys = t->hosts[h];
        char where[200];
        if (strcmp(sys->name, "system") != 0) {
            topo_where(map, sys, where, sizeof where);
            return mgpu_fail(MGPU_ERR_PARSE, "%s: host %d's root is <%s>, not NCCL's <system>", where, h, sys->name);
        }
        long long version;
        MGPU_CHECK(attr_int(map, sys, "version", 1, 1, 1, 1, &version));
        t->host_intersocket_gbs[h] = 10.0;
        for (int i = 0; i < sys->nchildren; i++)
            if (strcmp(sys->children[i]->name, "cpu") == 0) {
                MGPU_CHECK(cpu_intersocket_gbs(map, sys->children[i], &t->host_intersocket_gbs[h]));
                break;
            }
        build_ctx c = {t, map, h};
        MGPU_CHECK(walk(&c, sys, 0));
    }
    if (t->ngpus > 1) qsort(t->gpus, (size_t)t->ngpus, sizeof *t->gpus, cmp_gpu);
    for (int i = 1; i < t->ngpus; i++)
        if (t->gpus[i].host == t->gpus[i - 1].host && t->gpus[i].dev == t->gpus[i - 1].dev) {
            char where[200];
            topo_where(map, t->gpus[i].node, where, sizeof where);
            return mgpu_fail(MGPU_ERR_PARSE, "%s: a second <gpu dev=\"%d\"> on host %d; each dev must be unique",
                             where, t->gpus[i].dev, t->gpus[i].host);
        }
    MGPU_CHECK(sort_nics(t));
    MGPU_CHECK(check_ids(t, map));

    int n = t->ngpus;
    t->gpu_nvsw_links = calloc((size_t)n + 1, sizeof *t->gpu_nvsw_links);
    t->gpu_nvlink_down = calloc((size_t)n + 1, 1);
    if (!t->gpu_nvsw_links || !t->gpu_nvlink_down)
        return mgpu_fail(MGPU_ERR_NOMEM, "out of memory building the topology view");
    for (int i = 0; i < n; i++) {
        const mgpu_xml_node *g = t->gpus[i].node;
        for (int k = 0; k < g->nchildren; k++) {
            const mgpu_xml_node *l = g->children[k];
            long long cls, cnt;
            if (strcmp(l->name, "nvlink") != 0) continue;
            if (topo_parse_long(mgpu_xml_get(l, "tclass"), &cls) && cls == TOPO_CLASS_NVSWITCH &&
                topo_parse_long(mgpu_xml_get(l, "count"), &cnt))
                t->gpu_nvsw_links[i] += (int)cnt;
        }
    }
    MGPU_CHECK(topo_paths_prepare(t));
    if (t->nhosts > 1)
        for (int h = 0; h < t->nhosts; h++) {
            int has = 0;
            for (int i = 0; i < t->nnics; i++) has |= t->nics[i].host == h;
            if (!has)
                mgpu_topo_add_note(t, "host %d has no NIC in its topology: bandwidth across hosts is unknown (0)", h);
        }
    return MGPU_OK;
}

mgpu_result topo_build(mgpu_xml_node **systems, int nhosts, mgpu_xml_node *wrapper,
                       const char *machine_name, int simulated, const topo_srcmap *map, mgpu_topo **out)
{
    mgpu_result r = MGPU_OK;
    if (out) *out = NULL;
    if (!systems || nhosts < 1 || nhosts > TOPO_MAX_HOSTS || !out) {
        r = mgpu_fail(MGPU_ERR_INVALID, "a topology needs 1 to %d host trees (got %d)", TOPO_MAX_HOSTS, nhosts);
        goto fail_trees;
    }
    for (int h = 0; h < nhosts; h++)
        if (!systems[h]) {
            r = mgpu_fail(MGPU_ERR_INVALID, "host tree %d is missing", h);
            goto fail_trees;
        }
    mgpu_topo *t = calloc(1, sizeof *t);
    if (!t || !(t->hosts = malloc((size_t)nhosts * sizeof *t->hosts)) ||
        !(t->machine_name = strdup(machine_name ? machine_name : "unnamed machine"))) {
        if (t) free(t->hosts);
        free(t);
        r = mgpu_fail(MGPU_ERR_NOMEM, "out of memory creating a topology");
        goto fail_trees;
    }
    memcpy(t->hosts, systems, (size_t)nhosts * sizeof *t->hosts);
    t->nhosts = nhosts;
    t->wrapper = wrapper;
    t->simulated = simulated;
    for (int i = 0; i < TOPO_NFAULT_BITS; i++) t->fault_arg[i] = -1;
    MGPU_CHECKGOTO(derive(t, map), r, fail);
    *out = t;
    return MGPU_OK;
fail:
    mgpu_topo_free(t);
    return r;
fail_trees:
    if (systems)
        for (int h = 0; h < nhosts; h++) mgpu_xml_free(systems[h]);
    mgpu_xml_free(wrapper);
    return r;
}

mgpu_result mgpu_topo_from_trees(mgpu_xml_node **systems, int nhosts, const char *machine_name, int simulated,
                                 mgpu_topo **out)
{
    MGPU_CHECK(topo_build(systems, nhosts, NULL, machine_name, simulated, NULL, out));
    return MGPU_OK;
}

void mgpu_topo_free(mgpu_topo *t)
{
    if (!t) return;
    for (int h = 0; h < t->nhosts; h++) mgpu_xml_free(t->hosts[h]);
    free(t->hosts);
    mgpu_xml_free(t->wrapper);
    free(t->gpus);
    free(t->nics);
    free(t->gpu_nvsw_links);
    free(t->gpu_nvlink_down);
    free(t->host_intersocket_gbs);
    topo_paths_release(t);
    free(t->peer_override);
    for (int i = 0; i < t->nnotes; i++) free(t->notes[i]);
    free(t->notes);
    free(t->machine_name);
    free(t);
}

/*--- Accessors and notes ----------------------------------------------*/

const char *mgpu_topo_machine_name(const mgpu_topo *t) { return t->machine_name; }
int mgpu_topo_simulated(const mgpu_topo *t) { return t->simulated; }
int mgpu_topo_host_count(const mgpu_topo *t) { return t->nhosts; }
const mgpu_xml_node *mgpu_topo_host_tree(const mgpu_topo *t, int host)
{
    return host >= 0 && host < t->nhosts ? t->hosts[host] : NULL;
}
int mgpu_topo_gpu_count(const mgpu_topo *t) { return t->ngpus; }
const mgpu_topo_gpu *mgpu_topo_gpu_at(const mgpu_topo *t, int i)
{
    return i >= 0 && i < t->ngpus ? &t->gpus[i] : NULL;
}
int mgpu_topo_nic_count(const mgpu_topo *t) { return t->nnics; }
const mgpu_topo_nic *mgpu_topo_nic_at(const mgpu_topo *t, int i)
{
    return i >= 0 && i < t->nnics ? &t->nics[i] : NULL;
}
int mgpu_topo_gpu_index(const mgpu_topo *t, int host, int dev)
{
    for (int i = 0; i < t->ngpus; i++)
        if (t->gpus[i].host == host && t->gpus[i].dev == dev) return i;
    return -1;
}

const char *const *mgpu_topo_notes(const mgpu_topo *t)
{
    static const char *const none[] = {NULL};
    return t->notes ? (const char *const *)t->notes : none;
}

void mgpu_topo_add_note(mgpu_topo *t, const char *fmt, ...)
{
    if (!t || t->nnotes >= 1000) return; /* a runaway list helps nobody */
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (t->nnotes + 2 > t->cap_notes) {
        int cap = t->cap_notes ? t->cap_notes * 2 : 8;
        char **p = realloc(t->notes, (size_t)cap * sizeof *p);
        if (!p) return;
        t->notes = p;
        t->cap_notes = cap;
    }
    char *s = strdup(buf);
    if (!s) return;
    t->notes[t->nnotes++] = s;
    t->notes[t->nnotes] = NULL;
}
