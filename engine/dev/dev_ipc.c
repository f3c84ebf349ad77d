/* dev_ipc.c - the device API's interprocess memory (CUDA IPC): handle
 * sealing, checking and text form, then dispatch to the backend. Kept out
 * of dev.c so the handle rules live in one place. */
#include "dev/backend.h"
#include "dev/mem/mem_dev.h"
#include "mgpu/race.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PREFIX "mgpu-ipc:"

static uint32_t fnv1a(const unsigned char *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

static uint32_t wire_check(const mgpu_ipc_wire *w)
{
    mgpu_ipc_wire c = *w;
    c.check = 0;
    return fnv1a((const unsigned char *)&c, sizeof c);
}

/*--- The run's MAC: SipHash-2-4 keyed with the run's token ------------------*/

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                                                               \
    do {                                                                                                       \
        v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32);                                              \
        v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;                                                                 \
        v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;                                                                 \
        v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32);                                              \
    } while (0)

static uint64_t le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

static uint64_t siphash24(const uint64_t k[2], const unsigned char *m, size_t n)
{
    uint64_t v0 = 0x736f6d6570736575ull ^ k[0], v1 = 0x646f72616e646f6dull ^ k[1];
    uint64_t v2 = 0x6c7967656e657261ull ^ k[0], v3 = 0x7465646279746573ull ^ k[1];
    size_t full = n & ~(size_t)7;
    for (size_t i = 0; i < full; i += 8) {
        uint64_t x = le64(m + i);
        v3 ^= x;
        SIPROUND;
        SIPROUND;
        v0 ^= x;
    }
    uint64_t b = (uint64_t)n << 56;
    for (size_t i = 0; i < (n & 7); i++) b |= (uint64_t)m[full + i] << (8 * i);
    v3 ^= b;
    SIPROUND;
    SIPROUND;
    v0 ^= b;
    v2 ^= 0xff;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

/* The key: the run's token (MGPU_TOKEN, set by the launcher for every rank
 * and never visible to scripts) folded into 128 bits; outside a run a fixed
 * key, so tools and tests still agree with themselves. */
static void run_key(uint64_t k[2])
{
    static const uint64_t zero[2] = {0, 0};
    const char *t = getenv("MGPU_TOKEN");
    if (!t) t = "";
    size_t n = strlen(t);
    k[0] = siphash24(zero, (const unsigned char *)t, n);
    uint64_t one[2] = {1, 0};
    k[1] = siphash24(one, (const unsigned char *)t, n);
}

static uint64_t wire_mac(const mgpu_ipc_wire *w)
{
    mgpu_ipc_wire c = *w;
    c.check = 0;
    c.mac = 0;
    uint64_t k[2];
    run_key(k);
    return siphash24(k, (const unsigned char *)&c, sizeof c);
}

/* The launcher sets MGPU_RANK for every worker; outside a run it is unset. */
static int16_t own_rank(void)
{
    const char *r = getenv("MGPU_RANK");
    if (!r || !*r) return -1;
    char *end = NULL;
    long v = strtol(r, &end, 10);
    return *end || v < 0 || v > 32767 ? -1 : (int16_t)v;
}

void mgpu_ipc_wire_seal(mgpu_ipc_wire *w)
{
    memcpy(w->magic, MGPU_IPC_MAGIC, 4);
    w->version = MGPU_IPC_VERSION;
    w->rank = own_rank();
    w->pid = (int32_t)getpid();
    mgpu_ipc_wire_reseal(w);
}

void mgpu_ipc_wire_reseal(mgpu_ipc_wire *w)
{
    w->mac = wire_mac(w);
    w->check = wire_check(w);
}

const char *mgpu_ipc_wire_who(const mgpu_ipc_wire *w, char *buf, size_t len)
{
    if (w->rank >= 0) snprintf(buf, len, "rank %d (pid %d)", (int)w->rank, (int)w->pid);
    else snprintf(buf, len, "pid %d", (int)w->pid);
    return buf;
}

static const char *backend_of(const mgpu_ipc_wire *w)
{
    return w->backend == MGPU_IPC_BACKEND_CUDA ? "cuda" : w->backend == MGPU_IPC_BACKEND_SIM ? "sim" : "?";
}

/* Copied out: the handle is plain bytes with no alignment of its own. */
static mgpu_result check_wire(const mgpu_ipc_handle *h, mgpu_ipc_wire *w)
{
    memcpy(w, h->bytes, sizeof *w);
    if (memcmp(w->magic, MGPU_IPC_MAGIC, 4) != 0)
        return mgpu_fail(MGPU_ERR_INVALID, "this is not an mgpulab IPC handle (wrong magic bytes)");
    if (w->version != MGPU_IPC_VERSION)
        return mgpu_fail(MGPU_ERR_INVALID, "IPC handle of format version %d; this mgpulab reads version %d",
                         w->version, MGPU_IPC_VERSION);
    if (w->check != wire_check(w))
        return mgpu_fail(MGPU_ERR_INVALID, "the IPC handle is damaged (its check word does not match): "
                                           "pass the exporter's handle string unchanged");
    if (w->mac != wire_mac(w))
        return mgpu_fail(MGPU_ERR_INVALID, "this IPC handle was not exported in this run (its MAC does not match "
                                           "the run's token): handles are shared only between the ranks of one "
                                           "run, as mgpu.share passes them");
    if (w->backend != MGPU_IPC_BACKEND_CUDA && w->backend != MGPU_IPC_BACKEND_SIM)
        return mgpu_fail(MGPU_ERR_INVALID, "IPC handle of unknown backend %d", w->backend);
    if (w->bytes == 0 || w->offset > UINT64_MAX - w->bytes)
        return mgpu_fail(MGPU_ERR_INVALID, "IPC handle describes an impossible range");
    return MGPU_OK;
}

mgpu_result mgpu_ipc_handle_info(const mgpu_ipc_handle *h, size_t *bytes, const char **backend)
{
    mgpu_ipc_wire w;
    MGPU_CHECK(check_wire(h, &w));
    if (bytes) *bytes = (size_t)w.bytes;
    if (backend) *backend = backend_of(&w);
    return MGPU_OK;
}

mgpu_result mgpu_ipc_export(mgpu_buffer *buf, mgpu_ipc_handle *out)
{
    memset(out, 0, sizeof *out);
    if (!buf) return mgpu_fail(MGPU_ERR_INVALID, "IPC export: no buffer");
    if (buf->kind != MGPU_MEM_DEVICE)
        return mgpu_fail(MGPU_ERR_INVALID,
                         "IPC export: only device memory can be shared between processes "
                         "(cudaIpcGetMemHandle takes cudaMalloc memory); this buffer is %s host memory",
                         mgpu_mem_kind_name(buf->kind));
    if (buf->phantom)
        return mgpu_fail(MGPU_ERR_INVALID, "IPC export: a phantom (shape-only) buffer has no memory to share");
    /* A cached block: export its segment, pointing at the block. */
    mgpu_buffer *seg = NULL;
    size_t off = 0;
    MGPU_CHECK(mgpu_mem_export_view(buf, &seg, &off));
    mgpu_ipc_wire w;
    memset(&w, 0, sizeof w);
    MGPU_CHECK(buf->be->ops->ipc_export(seg, off, buf->bytes, &w));
    buf->ipc_exported = 1;
    mgpu_ipc_wire_seal(&w);
    memcpy(out->bytes, &w, sizeof w);
    return MGPU_OK;
}

void mgpu_ipc_forget(mgpu_buffer *buf)
{
    if (!buf->ipc_exported || !buf->be->ops->ipc_revoke) return;
    mgpu_buffer *seg = NULL;
    size_t off = 0;
    if (mgpu_mem_export_view(buf, &seg, &off) == MGPU_OK) buf->be->ops->ipc_revoke(seg, off, buf->bytes);
    buf->ipc_exported = 0;
}

mgpu_result mgpu_ipc_open(mgpu_backend *be, int dev, const mgpu_ipc_handle *h, mgpu_buffer **out)
{
    *out = NULL;
    if (dev < 0 || dev >= be->device_count)
        return mgpu_fail(MGPU_ERR_INVALID, "IPC open: device %d does not exist: the %s backend has %d device%s",
                         dev, be->ops->name, be->device_count, be->device_count == 1 ? "" : "s");
    mgpu_ipc_wire wire;
    MGPU_CHECK(check_wire(h, &wire));
    const mgpu_ipc_wire *w = &wire;
    char who[48];
    if (strcmp(backend_of(w), be->ops->name) != 0)
        return mgpu_fail(MGPU_ERR_INVALID,
                         "this IPC handle was exported by the %s backend (%s); it can only be opened "
                         "by a process on the same backend, not %s",
                         backend_of(w), mgpu_ipc_wire_who(w, who, sizeof who), be->ops->name);
    if (w->pid == (int32_t)getpid())
        return mgpu_fail(MGPU_ERR_INVALID,
                         "a process cannot open its own IPC handle (CUDA refuses it too): use the "
                         "exported buffer directly; IPC handles are for other processes");
    if (w->bytes > SIZE_MAX) return mgpu_fail(MGPU_ERR_INVALID, "IPC handle too large for this host");
    mgpu_buffer *buf = calloc(1, sizeof *buf);
    if (!buf) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory");
    buf->be = be;
    buf->kind = MGPU_MEM_DEVICE;
    buf->device = w->device;
    buf->bytes = (size_t)w->bytes;
    mgpu_result r = be->ops->ipc_open(be, dev, w, buf);
    if (r != MGPU_OK) {
        free(buf);
        mgpu_error_breadcrumb(__FILE__, __LINE__, __func__);
        return r;
    }
    *out = buf;
    return MGPU_OK;
}

mgpu_result mgpu_ipc_close(mgpu_buffer *buf)
{
    if (!buf) return mgpu_fail(MGPU_ERR_INVALID, "IPC close: no buffer");
    MGPU_CHECK(buf->be->ops->ipc_close(buf));
    mgpu_race_buffer_free(buf);
    free(buf);
    return MGPU_OK;
}

void mgpu_ipc_handle_to_string(const mgpu_ipc_handle *h, char *out)
{
    static const char hex[] = "0123456789abcdef";
    memcpy(out, PREFIX, sizeof PREFIX - 1);
    char *p = out + sizeof PREFIX - 1;
    for (size_t i = 0; i < MGPU_IPC_HANDLE_BYTES; i++) {
        *p++ = hex[h->bytes[i] >> 4];
        *p++ = hex[h->bytes[i] & 15];
    }
    *p = '\0';
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

mgpu_result mgpu_ipc_handle_from_string(const char *text, mgpu_ipc_handle *out)
{
    memset(out, 0, sizeof *out);
    if (!text) return mgpu_fail(MGPU_ERR_INVALID, "no IPC handle string");
    if (strncmp(text, PREFIX, sizeof PREFIX - 1) != 0)
        return mgpu_fail(MGPU_ERR_INVALID, "'%.24s%s' is not an IPC handle string: those start with '" PREFIX "'",
                         text, strlen(text) > 24 ? "..." : "");
    const char *hx = text + sizeof PREFIX - 1;
    size_t n = strlen(hx);
    if (n != 2 * MGPU_IPC_HANDLE_BYTES)
        return mgpu_fail(MGPU_ERR_INVALID,
                         "the IPC handle string has %zu hex digits after '" PREFIX "', not %d: it was "
                         "cut or extended on the way",
                         n, 2 * MGPU_IPC_HANDLE_BYTES);
    for (size_t i = 0; i < MGPU_IPC_HANDLE_BYTES; i++) {
        int a = hexval(hx[2 * i]), b = hexval(hx[2 * i + 1]);
        if (a < 0 || b < 0)
            return mgpu_fail(MGPU_ERR_INVALID, "the IPC handle string has a non-hex character at position %zu",
                             sizeof PREFIX - 1 + 2 * i + (a < 0 ? 0 : 1));
        out->bytes[i] = (unsigned char)(a << 4 | b);
    }
    mgpu_ipc_wire w;
    mgpu_result r = check_wire(out, &w);
    if (r != MGPU_OK) {
        memset(out, 0, sizeof *out);
        mgpu_error_breadcrumb(__FILE__, __LINE__, __func__);
        return r;
    }
    return MGPU_OK;
}
