/* dev_mem.c - the device API's memory calls: argument checks, then device
 * memory through the allocators of engine/dev/mem (caching or plain, real or
 * phantom) and host memory straight from the backend. */
#include "dev/backend.h"
#include "dev/ipc_wire.h"
#include "dev/mem/mem_dev.h"
#include "mgpu/race.h"
#include "mgpu/size.h"
#include <stdio.h>
#include <stdlib.h>

typedef struct alloc_req {
    uint64_t stream; /* caching allocator's free list; 0: none */
    int cached;      /* 0: a plain allocation whatever the configuration */
    int phantom;
} alloc_req;

/* A buffer of host memory: pinned and pageable ones, and on the sim, which
 * keeps device memory in host RAM, every one that is not phantom. */
static int holds_host_memory(const mgpu_backend *be, mgpu_mem_kind kind, int phantom)
{
    return kind != MGPU_MEM_DEVICE || (mgpu_backend_simulated(be) && !phantom);
}

/* The limit a caller set (mgpu_backend_limit_host_memory). What the machine
 * has available the sim checks itself, after the modelled GPU's capacity
 * (sim_memory.c). */
static mgpu_result check_host_limit(mgpu_backend *be, mgpu_mem_kind kind, size_t bytes)
{
    char a[32], b[32], c[32];
    const char *where = mgpu_backend_simulated(be) && kind == MGPU_MEM_DEVICE ? " on the sim (it keeps device memory "
                                                                               "in host RAM)" : "";
    if (be->host_limit && (bytes > be->host_limit || be->host_used > be->host_limit - bytes))
        return mgpu_fail(MGPU_ERR_NOMEM,
                         "cannot allocate %s of %s memory%s: %s allows this rank %s of host memory and its "
                         "buffers hold %s already; free tensors, allocate less, use phantom tensors for "
                         "timing only, or raise %s",
                         mgpu_human_bytes(bytes, a, sizeof a), mgpu_mem_kind_name(kind), where, be->host_limit_what,
                         mgpu_human_bytes(be->host_limit, b, sizeof b), mgpu_human_bytes(be->host_used, c, sizeof c),
                         be->host_limit_what);
    return MGPU_OK;
}

void mgpu_backend_limit_host_memory(mgpu_backend *be, uint64_t bytes, const char *what)
{
    be->host_limit = bytes;
    snprintf(be->host_limit_what, sizeof be->host_limit_what, "%s", what && *what ? what : "the memory limit");
}

uint64_t mgpu_backend_host_memory_used(const mgpu_backend *be) { return be->host_used; }

static mgpu_result alloc_buffer(mgpu_backend *be, mgpu_mem_kind kind, int device, size_t bytes,
                                const alloc_req *q, mgpu_buffer **out)
{
    *out = NULL;
    if (kind != MGPU_MEM_DEVICE && kind != MGPU_MEM_PINNED && kind != MGPU_MEM_PAGEABLE)
        return mgpu_fail(MGPU_ERR_INVALID, "cannot allocate memory of kind %d", (int)kind);
    if (kind == MGPU_MEM_DEVICE) MGPU_CHECK(mgpu_dev_check_device(be, device));
    if (bytes == 0) return mgpu_fail(MGPU_ERR_INVALID, "cannot allocate a buffer of 0 bytes");
    int host = holds_host_memory(be, kind, q->phantom);
    if (host) MGPU_CHECK(check_host_limit(be, kind, bytes));
    mgpu_buffer *buf = calloc(1, sizeof *buf);
    if (!buf) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory");
    buf->be = be;
    buf->kind = kind;
    buf->device = kind == MGPU_MEM_DEVICE ? device : -1;
    buf->bytes = bytes;
    buf->phantom = q->phantom;
    mgpu_result r = kind == MGPU_MEM_DEVICE ? mgpu_mem_device_alloc(buf, q->stream, q->cached)
                                            : be->ops->mem_alloc(be, buf);
    if (r != MGPU_OK) {
        free(buf);
        mgpu_error_breadcrumb(__FILE__, __LINE__, __func__);
        return r;
    }
    if (host) be->host_used += bytes;
    mgpu_race_buffer_alloc(buf);
    *out = buf;
    return MGPU_OK;
}

mgpu_result mgpu_mem_alloc(mgpu_backend *be, mgpu_mem_kind kind, int device, size_t bytes,
                           mgpu_buffer **out)
{
    const alloc_req q = {0, 1, 0};
    return alloc_buffer(be, kind, device, bytes, &q, out);
}

mgpu_result mgpu_mem_alloc_uncached(mgpu_backend *be, mgpu_mem_kind kind, int device, size_t bytes,
                                    mgpu_buffer **out)
{
    const alloc_req q = {0, 0, 0};
    return alloc_buffer(be, kind, device, bytes, &q, out);
}

mgpu_result mgpu_mem_alloc_stream(mgpu_stream *s, size_t bytes, mgpu_buffer **out)
{
    const alloc_req q = {s->id, 1, 0};
    return alloc_buffer(s->be, MGPU_MEM_DEVICE, s->device, bytes, &q, out);
}

mgpu_result mgpu_mem_alloc_phantom(mgpu_backend *be, int device, mgpu_stream *s, size_t bytes,
                                   int allow_on_cuda, mgpu_buffer **out)
{
    *out = NULL;
    /* A backend without modelled time cannot give phantom work a duration:
     * there phantom memory is only a count, so it must be asked for. */
    if (!be->ops->stream_model_time && !allow_on_cuda)
        return mgpu_fail(MGPU_ERR_UNSUPPORTED,
                         "phantom (shape-only) memory is for the sim, where its work takes modelled "
                         "time; on the %s backend it would only be counted and its work skipped. Run with "
                         "--backend sim, or ask for it explicitly (phantom_on_cuda=true)",
                         be->ops->name);
    if (s && (s->be != be || s->device != device))
        return mgpu_fail(MGPU_ERR_INVALID, "phantom allocation on device %d with a stream of device %d", device,
                         s->device);
    const alloc_req q = {s ? s->id : 0, 1, 1};
    return alloc_buffer(be, MGPU_MEM_DEVICE, device, bytes, &q, out);
}

mgpu_result mgpu_mem_alloc_library(mgpu_backend *be, int device, size_t bytes, mgpu_buffer **out)
{
    *out = NULL;
    if (!mgpu_backend_simulated(be) || bytes == 0) return MGPU_OK; /* on a GPU the library allocates itself */
    MGPU_CHECK(mgpu_dev_check_device(be, device));
    mgpu_buffer *buf = calloc(1, sizeof *buf);
    if (!buf) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory");
    buf->be = be;
    buf->kind = MGPU_MEM_DEVICE;
    buf->device = device;
    buf->bytes = bytes;
    buf->phantom = 1;
    mgpu_result r = be->ops->mem_alloc(be, buf);
    if (r != MGPU_OK) {
        free(buf);
        return r;
    }
    *out = buf;
    return MGPU_OK;
}

void mgpu_mem_free_library(mgpu_buffer *buf)
{
    if (!buf) return;
    buf->be->ops->mem_free(buf->be, buf);
    free(buf);
}

void mgpu_mem_free(mgpu_buffer *buf)
{
    if (!buf) return;
    mgpu_backend *be = buf->be;
    if (holds_host_memory(be, buf->kind, buf->phantom)) be->host_used -= buf->bytes < be->host_used ? buf->bytes : be->host_used;
    if (buf->kind == MGPU_MEM_DEVICE) {
        mgpu_ipc_forget(buf); /* before its block can go to another tensor */
        mgpu_mem_device_free(buf);
    }
    else buf->be->ops->mem_free(buf->be, buf);
    mgpu_race_buffer_free(buf);
    free(buf);
}
