/* mem_dev.h - the device API's side of the allocators (private to the
 * engine): dev.c opens and closes a backend's allocator state and routes
 * device buffers through it. */
#ifndef MGPU_MEM_DEV_H
#define MGPU_MEM_DEV_H
#include "dev/backend.h"
#include "mgpu/mem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* conf_text NULL: $MGPU_ALLOC_CONF. A bad configuration fails the open. */
mgpu_result mgpu_mem_state_open(mgpu_backend *be, const char *conf_text);
void mgpu_mem_state_close(mgpu_backend *be);

/* buf was filled by dev.c (be, kind DEVICE, device, bytes, phantom). With
 * `cached`, the block comes from the caching allocator when the
 * configuration has it, on `stream` (0: no stream); else from the backend. */
mgpu_result mgpu_mem_device_alloc(mgpu_buffer *buf, uint64_t stream, int cached);
/* Undo mgpu_mem_device_alloc (dev.c frees the struct). */
void mgpu_mem_device_free(mgpu_buffer *buf);

/* For IPC export of a cached block: the segment's own buffer (what the
 * backend exports) and the block's offset in it; marks the segment to be
 * released when its blocks are freed, so the handle goes stale then as
 * with cudaFree. MGPU_OK with *seg = buf for a plain buffer. */
mgpu_result mgpu_mem_export_view(mgpu_buffer *buf, mgpu_buffer **seg, size_t *offset);

/* oom.c: set PyTorch's out-of-memory sentence as the error message. */
struct mgpu_mem_oom;
mgpu_result mgpu_mem_oom_fail(mgpu_backend *be, int dev, const struct mgpu_mem_oom *o, int caching);

/* phantom_va.c: address space with nothing behind it, for phantom buffers
 * (any access faults; MAP_NORESERVE: it costs no memory). */
mgpu_result mgpu_phantom_va_reserve(size_t bytes, void **out);
void mgpu_phantom_va_release(void *p, size_t bytes);

#ifdef __cplusplus
}
#endif
#endif
