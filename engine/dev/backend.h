/* backend.h - the seam between the device API (dev.c) and its backends.
 *
 * A backend fills one `struct mgpu_dev_ops` (dev_cuda.cu, dev_sim.c). dev.c
 * validates arguments that do not depend on the backend (null pointers,
 * ranges, device ordinals) before dispatching, so backends may assume them.
 * Backends never print; they return mgpu_result with mgpu_fail() messages. */
#ifndef MGPU_BACKEND_H
#define MGPU_BACKEND_H
#include "mgpu/dev.h"
#include "dev/ipc_wire.h"

#ifdef __cplusplus
extern "C" {
#endif

struct mgpu_stream {
    mgpu_backend *be;
    int device;
    int legacy_default;
    void *impl;
    uint64_t id;   /* unique in the process, never reused: the caching
                    * allocator's free lists are per stream */
    int refs;      /* the creator's and mgpu_stream_retain's; freed at 0 */
    int race_slot; /* the race detector's: its clock + 1 (0: none yet) */
    uint64_t race_epoch;
    char race_label[48]; /* what race reports call it ("the comm stream"); "" = by number */
};

struct mgpu_event {
    mgpu_backend *be;
    int device;
    unsigned flags;
    int recorded;
    void *impl;
    void *race;    /* the race detector's copy of the stream's clock at the record */
};

struct mgpu_gate {
    mgpu_stream *stream;
    void *impl;
};

struct mgpu_dev_ops {
    const char *name;
    /* Open: fill be->impl and be->topo, or fail with a clear reason. */
    mgpu_result (*open)(mgpu_backend *be, const mgpu_backend_config *cfg);
    void (*close)(mgpu_backend *be);

    mgpu_result (*device_count)(mgpu_backend *be, int *count);
    mgpu_result (*device_info)(mgpu_backend *be, int dev, mgpu_device_info *out);
    mgpu_result (*mem_info)(mgpu_backend *be, int dev, uint64_t *free_b, uint64_t *total_b);
    mgpu_result (*device_synchronize)(mgpu_backend *be, int dev);

    /* Fill buf->ptr and buf->impl; dev.c allocated the struct. */
    mgpu_result (*mem_alloc)(mgpu_backend *be, mgpu_buffer *buf);
    void (*mem_free)(mgpu_backend *be, mgpu_buffer *buf);
    mgpu_result (*pointer_attributes)(mgpu_backend *be, const void *ptr, mgpu_ptr_attr *out);

    /* Fill s->impl / e->impl; dev.c allocated the structs. */
    mgpu_result (*stream_create)(mgpu_backend *be, mgpu_stream *s);
    void (*stream_destroy)(mgpu_backend *be, mgpu_stream *s);
    mgpu_result (*stream_synchronize)(mgpu_stream *s);
    mgpu_result (*stream_query)(mgpu_stream *s, int *done);

    void *(*stream_native)(mgpu_stream *s);
    /* NULL when the backend has no modelled time (dev.c answers UNSUPPORTED). */
    mgpu_result (*stream_model_time)(mgpu_stream *s, double *ns);
    mgpu_result (*stream_model_advance)(mgpu_stream *s, double ns);
    /* NULL when compute does not share the GPU with collectives in a model. */
    mgpu_result (*stream_model_contend)(mgpu_stream *s, double t0, double t1, int ctas, double hbm_gbs);

    mgpu_result (*event_create)(mgpu_backend *be, mgpu_event *e);
    void (*event_destroy)(mgpu_backend *be, mgpu_event *e);
    mgpu_result (*event_record)(mgpu_event *e, mgpu_stream *s);
    mgpu_result (*stream_wait_event)(mgpu_stream *s, mgpu_event *e);
    mgpu_result (*event_synchronize)(mgpu_event *e);
    mgpu_result (*event_query)(mgpu_event *e, int *done);
    mgpu_result (*event_elapsed_ms)(mgpu_event *start, mgpu_event *end, double *ms);

    mgpu_result (*gate_hold)(mgpu_stream *s, double timeout_ms, mgpu_gate *g);
    mgpu_result (*gate_open)(mgpu_gate *g);

    /* Ranges are checked by dev.c. */
    mgpu_result (*copy)(mgpu_stream *s, mgpu_buffer *dst, size_t dst_off, const mgpu_buffer *src,
                        size_t src_off, size_t bytes, mgpu_copy_engine how);

    /* buf is reachable from the stream's device (checked by the backend). */
    mgpu_result (*memory_latency)(mgpu_stream *s, mgpu_buffer *buf, size_t bytes, uint64_t accesses,
                                  double *ns);

    mgpu_result (*peer_can_access)(mgpu_backend *be, int dev, int peer, int *can);
    mgpu_result (*peer_attributes)(mgpu_backend *be, int dev, int peer, mgpu_p2p_attr *out);
    mgpu_result (*peer_enable)(mgpu_backend *be, int dev, int peer);
    mgpu_result (*peer_disable)(mgpu_backend *be, int dev, int peer);

    mgpu_result (*fill)(mgpu_stream *s, mgpu_buffer *buf, size_t off, size_t count,
                        mgpu_dtype dtype, const mgpu_fill_spec *spec);
    mgpu_result (*checksum)(mgpu_stream *s, const mgpu_buffer *buf, size_t off, size_t count,
                            mgpu_dtype dtype, uint64_t *out);

    /* *on = 1 when dev has peer access to peer now (as far as this process
     * enabled it). */
    mgpu_result (*peer_enabled)(mgpu_backend *be, int dev, int peer, int *on);
    /* buf is a device buffer of this backend (a caching allocator's whole
     * segment); export its range [off, off+bytes): fill the payload,
     * offset, bytes, device and host of `w` (dev.c seals it). */
    mgpu_result (*ipc_export)(mgpu_buffer *buf, size_t off, size_t bytes, struct mgpu_ipc_wire *w);
    /* Optional: the exported range [off, off+bytes) of buf was freed while
     * the segment lives on in the cache; handles to it are stale now. NULL:
     * the backend cannot tell (a GPU cannot: cudaIpcOpenMemHandle still
     * maps the cached segment). */
    void (*ipc_revoke)(mgpu_buffer *buf, size_t off, size_t bytes);
    /* `w` is sealed, of this backend and from another process; buf was
     * allocated by dev.c (be, kind DEVICE, bytes); fill ptr, impl, device. */
    mgpu_result (*ipc_open)(mgpu_backend *be, int dev, const struct mgpu_ipc_wire *w, mgpu_buffer *buf);
    /* Unmap an opened buffer; MGPU_ERR_INVALID (buf untouched) when buf was
     * not opened from a handle. dev.c frees the struct on success.
     * mem_free must also accept opened buffers (and unmap them). */
    mgpu_result (*ipc_close)(mgpu_buffer *buf);
    /* Optional: a host address through which the host may read and write a
     * DEVICE buffer's bytes once its streams are synchronised; NULL when
     * device memory is not host-addressable (cuda leaves this out). */
    void *(*host_view)(mgpu_buffer *buf);

    /* Virtual memory for expandable segments (engine/dev/mem). NULL: none.
     * vmm_reserve fills seg->ptr and seg->impl with `seg->bytes` of address
     * space on seg->device and no memory; vmm_map backs [off, off+bytes)
     * with device memory (MGPU_ERR_DEVICE_OOM when the device is full, no
     * message needed); vmm_unmap gives it back; vmm_release frees the range.
     * Offsets and sizes are multiples of vmm_granularity. Buffers carved
     * out of the range share seg->impl. */
    mgpu_result (*vmm_reserve)(mgpu_backend *be, mgpu_buffer *seg);
    mgpu_result (*vmm_map)(mgpu_buffer *seg, size_t off, size_t bytes);
    void (*vmm_unmap)(mgpu_buffer *seg, size_t off, size_t bytes);
    void (*vmm_release)(mgpu_buffer *seg);
    size_t (*vmm_granularity)(mgpu_backend *be, int dev);

    /* Training ops (mgpu/nn_ops.h, called by engine/nn/). NULL: the backend has none. */
    const struct mgpu_nn_ops *nn;
};

struct mgpu_backend {
    const struct mgpu_dev_ops *ops;
    void *impl;
    mgpu_topo *topo;        /* owned; set by ops->open */
    int device_count;       /* cached after open */
    char reason[256];       /* why this backend, short (set by mgpu_backend_open) */
    char reason_detail[256]; /* what ruled cuda out (auto), "" otherwise */
    struct mgpu_mem_state *mem; /* device memory allocators (engine/dev/mem/mem_dev.c) */
    uint64_t host_used;         /* bytes of host memory live buffers hold (dev_mem.c) */
    uint64_t host_limit;        /* 0: none (mgpu_backend_limit_host_memory) */
    char host_limit_what[48];   /* the limit's name, for messages */
    struct mgpu_race *race;     /* the race detector (race.c); NULL until turned on */
};

/* dev.c: MGPU_OK when `dev` is one of the backend's devices, else a clear error. */
mgpu_result mgpu_dev_check_device(const mgpu_backend *be, int dev);

/* The backends this build has, in auto-selection order (cuda first). The
 * only place that knows whether CUDA was compiled in: backend_registry.c. */
extern const struct mgpu_dev_ops *const mgpu_dev_backends[];
extern const struct mgpu_dev_ops mgpu_dev_sim_ops;

#ifdef __cplusplus
}
#endif
#endif
