/* dev.h - the device API: one interface over the cuda and sim backends.
 *
 * Callers open a backend (auto/cuda/sim) and then use devices, memory,
 * streams, events, copies and peer access through these functions; they
 * never know which backend answers. Each function dispatches through the
 * backend's `struct mgpu_dev_ops` (engine/dev/backend.h).
 *
 * The model is CUDA's: work is enqueued on a stream and runs in stream
 * order; events mark points in a stream; other streams wait on them. The sim
 * backend executes the data movement at enqueue time on host memory and
 * advances a virtual clock per stream from the machine model, so elapsed
 * times between events are the modelled ones. */
#ifndef MGPU_DEV_H
#define MGPU_DEV_H
#include <stddef.h>
#include <stdint.h>
#include "mgpu/dtype.h"
#include "mgpu/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mgpu_backend mgpu_backend;
typedef struct mgpu_stream mgpu_stream;
typedef struct mgpu_event mgpu_event;
typedef struct mgpu_gate mgpu_gate;
typedef struct mgpu_topo mgpu_topo;

/*--- Backends ---------------------------------------------------------*/

typedef enum mgpu_backend_kind { MGPU_BACKEND_AUTO = 0, MGPU_BACKEND_CUDA, MGPU_BACKEND_SIM } mgpu_backend_kind;

typedef struct mgpu_backend_config {
    mgpu_backend_kind kind;
    const char *machine; /* sim: preset name or NCCL topology XML path; NULL = "dgx-h100" */
    const char *fault;   /* sim: comma-separated fault presets; NULL = none */
    const char *alloc_conf; /* device memory allocator (mgpu/mem.h); NULL = $MGPU_ALLOC_CONF */
} mgpu_backend_config;

/* Open a backend. AUTO picks cuda when the build has it, a driver loads and
 * at least one GPU is visible, otherwise sim; mgpu_backend_reason() says why. */
mgpu_result mgpu_backend_open(const mgpu_backend_config *cfg, mgpu_backend **out);
void mgpu_backend_close(mgpu_backend *be);
const char *mgpu_backend_name(const mgpu_backend *be);    /* "cuda" or "sim" */
int mgpu_backend_simulated(const mgpu_backend *be);       /* 1 for sim */
const char *mgpu_backend_reason(const mgpu_backend *be);  /* why this backend was chosen, short */
/* What ruled cuda out when auto fell back to the sim ("no NVIDIA driver
 * (libcuda.so.1) ..."); "" otherwise. Banners leave it out. */
const char *mgpu_backend_reason_detail(const mgpu_backend *be);
/* One line for banners: "SIMULATED machine dgx-h100 (sim backend requested)"
 * or "cuda: 8 GPUs (NVIDIA H200)". */
void mgpu_backend_describe(mgpu_backend *be, char *buf, size_t len);
/* The machine: discovered (cuda) or modelled (sim). Owned by the backend. */
const mgpu_topo *mgpu_backend_topo(const mgpu_backend *be);
/* Discover this host: the device facts (PCI ids, names, memory, NUMA node,
 * peer access for every pair) through this backend's device API, then
 * mgpu_topo_discover_host adds NVML and sysfs (dev_discover.c). */
mgpu_result mgpu_topo_discover(mgpu_backend *be, const char *sysfs_root, mgpu_topo **out);
/* 1 when the build contains the cuda backend. */
int mgpu_build_has_cuda(void);
/* GPUs the NVIDIA driver lists (/proc/driver/nvidia/gpus), narrowed by
 * CUDA_VISIBLE_DEVICES; no CUDA call, so no context (driver_probe.c). */
int mgpu_driver_gpu_count(void);
/* 1 when opening `cfg` will give the sim without touching CUDA: --backend
 * sim, or auto with --machine/--fault, without the cuda backend built in,
 * or with no GPU listed by the driver (mgpu_backend_open's own rule). The
 * coordinator uses it to ask the sim's machine (below) where the workers
 * will run on the sim. */
int mgpu_backend_config_is_sim(const mgpu_backend_config *cfg);
/* The machine a sim backend of this config models - its --machine preset or
 * XML (default dgx-h100) with its --fault list applied - without opening a
 * backend: what a coordinator asks (rank count, banner, --predict), since
 * it never opens one. Free it with mgpu_topo_free. */
mgpu_result mgpu_backend_config_sim_topo(const mgpu_backend_config *cfg, mgpu_topo **out);
mgpu_result mgpu_backend_kind_parse(const char *text, mgpu_backend_kind *out);
/* "auto", "cuda" or "sim" (an out-of-range kind reads "auto"). */
const char *mgpu_backend_kind_name(mgpu_backend_kind kind);

/*--- Devices ----------------------------------------------------------*/

typedef struct mgpu_device_info {
    int index;                /* device ordinal on this host */
    char name[96];
    char pci_bus_id[32];      /* "0000:19:00.0" (lower case) */
    char uuid[48];            /* "GPU-xxxxxxxx-..." or "" */
    uint64_t total_mem;
    int sm_count;
    int cc_major, cc_minor;
    int numa_node;            /* -1 when unknown */
    int async_engines;        /* copy engines */
    int can_map_host_memory;
    int unified_addressing;
    char host[64];            /* the host it is on: this machine's name, or on
                               * sim the modelled host ("SIMULATED-node1"), as
                               * the sim's NCCL INFO lines name it */
} mgpu_device_info;

mgpu_result mgpu_device_count(mgpu_backend *be, int *count);
mgpu_result mgpu_device_info_get(mgpu_backend *be, int dev, mgpu_device_info *out);
mgpu_result mgpu_device_mem_info(mgpu_backend *be, int dev, uint64_t *free_b, uint64_t *total_b);
mgpu_result mgpu_device_synchronize(mgpu_backend *be, int dev);

/*--- Memory -----------------------------------------------------------*/

typedef enum mgpu_mem_kind {
    MGPU_MEM_DEVICE = 0,
    MGPU_MEM_PINNED,    /* page-locked host memory, mapped for all devices */
    MGPU_MEM_PAGEABLE,  /* ordinary malloc'd host memory */
    MGPU_MEM_UNKNOWN    /* a pointer the backend did not allocate */
} mgpu_mem_kind;

typedef struct mgpu_buffer {
    mgpu_backend *be;
    mgpu_mem_kind kind;
    int device;          /* owning device for MGPU_MEM_DEVICE, else -1 */
    void *ptr;           /* a UVA address (device) or host address */
    size_t bytes;
    void *impl;          /* backend's own bookkeeping */
    int phantom;         /* 1: shape-only (timing) memory: its bytes count against the
                          * device's memory, but nothing stands behind ptr; ops and
                          * collectives on it take modelled time and move no data,
                          * and reading its values is an error */
    struct mgpu_mem_block *mem_block; /* the caching allocator's block (engine/dev/mem);
                                       * NULL for a plain allocation */
    int ipc_exported;    /* 1 once an IPC handle was made of it (dev_ipc.c) */
    struct mgpu_race_buf *race; /* the race detector's records (mgpu/race.h); NULL when off */
} mgpu_buffer;

/* Allocate `bytes` of `kind` memory (device ignored for host kinds). Device
 * memory comes from the caching allocator unless MGPU_ALLOC_CONF says
 * backend:plain (mgpu/mem.h). Device OOM returns MGPU_ERR_DEVICE_OOM with
 * PyTorch's sentence: what was asked, the capacity and what is free, what is
 * allocated, what is reserved but unallocated, the largest free block. */
mgpu_result mgpu_mem_alloc(mgpu_backend *be, mgpu_mem_kind kind, int device, size_t bytes,
                           mgpu_buffer **out);
void mgpu_mem_free(mgpu_buffer *buf);
const char *mgpu_mem_kind_name(mgpu_mem_kind k); /* "device", "pinned", "pageable" */

/* Host memory that buffers hold: pinned and pageable ones on every backend,
 * and on the sim every real (non-phantom) buffer, device memory included.
 * With a limit set here (0: none), mgpu_mem_alloc refuses a buffer that
 * would take this backend's live buffers past `bytes`; `what` names the
 * limit in the message ("--mem-limit"). Phantom buffers are not host
 * memory. (The sim also refuses one buffer over half of the host memory
 * available, mgpu_host_available_bytes, the figure bench checks.) */
void mgpu_backend_limit_host_memory(mgpu_backend *be, uint64_t bytes, const char *what);
uint64_t mgpu_backend_host_memory_used(const mgpu_backend *be);

typedef struct mgpu_ptr_attr {
    mgpu_mem_kind kind;
    int device;          /* -1 for host memory */
    void *device_ptr;    /* address usable in kernels, NULL if none */
    void *host_ptr;      /* address usable on the host, NULL if none */
} mgpu_ptr_attr;

/* A host address through which the host may read and write buf's bytes
 * after synchronising the streams that use it: host memory itself, or a
 * device buffer on a backend whose device memory is host memory (sim).
 * NULL on a GPU's device memory: copy through pinned memory instead. Bulk
 * host-side data set-up and checking (the bench) use it to skip staging. */
void *mgpu_buffer_host_view(mgpu_buffer *buf);

/* UVA pointer attributes (cudaPointerGetAttributes), also for pointers into
 * the middle of a buffer. Unknown pointers give kind MGPU_MEM_UNKNOWN. */
mgpu_result mgpu_pointer_attributes(mgpu_backend *be, const void *ptr, mgpu_ptr_attr *out);

/*--- Streams and events -----------------------------------------------*/

/* A non-blocking stream on `dev` unless `legacy_default` (then the device's
 * legacy default stream, which serialises with other blocking streams). */
mgpu_result mgpu_stream_create(mgpu_backend *be, int dev, int legacy_default, mgpu_stream **out);
/* Destroy drops the creator's reference; a stream someone retained (the
 * communicator watchdog, which records events on it from its own thread)
 * is destroyed when the last reference is dropped. */
void mgpu_stream_destroy(mgpu_stream *s);
void mgpu_stream_retain(mgpu_stream *s);
/* 1 when only one reference is left (a watchdog lane's, once the owner
 * destroyed the stream). */
int mgpu_stream_last_ref(const mgpu_stream *s);
int mgpu_stream_device(const mgpu_stream *s);
mgpu_backend *mgpu_stream_backend(const mgpu_stream *s);
mgpu_result mgpu_stream_synchronize(mgpu_stream *s);
/* *done = 1 when all work queued so far has finished. */
mgpu_result mgpu_stream_query(mgpu_stream *s, int *done);

/* The backend's own handle (cudaStream_t for cuda; NULL for sim), for the
 * communicator backend that pairs with it (NCCL). */
void *mgpu_stream_native(mgpu_stream *s);

/* Modelled time (sim only; cuda answers MGPU_ERR_UNSUPPORTED): the stream's
 * virtual clock in ns, and moving it forward to `ns` (never back), so the
 * sim communicator can make a collective start when the last rank arrives
 * and end after its modelled duration. */
mgpu_result mgpu_stream_model_time(mgpu_stream *s, double *ns);
mgpu_result mgpu_stream_model_advance(mgpu_stream *s, double ns);
/* A collective on s's GPU from t0 to t1 (ns) holds `ctas` SMs (NCCL: one CTA
 * per channel) and moves hbm_gbs of the GPU's memory bandwidth: compute
 * kernels that overlap it in modelled time run slower (docs/sim-model.md,
 * "Collectives compete with compute"). A no-op where the GPU is real. */
mgpu_result mgpu_stream_model_contend(mgpu_stream *s, double t0, double t1, int ctas, double hbm_gbs);

/* MGPU_EVENT_UNTRACKED: an event the engine records for itself (timeline
 * spans, the watchdog's fences): it orders nothing for the race detector
 * (mgpu/race.h), whose verdict must not depend on when a span was flushed. */
enum { MGPU_EVENT_TIMING = 1u, MGPU_EVENT_INTERPROCESS = 2u, MGPU_EVENT_BLOCKING_SYNC = 4u, MGPU_EVENT_UNTRACKED = 8u };

mgpu_result mgpu_event_create(mgpu_backend *be, int dev, unsigned flags, mgpu_event **out);
void mgpu_event_destroy(mgpu_event *e);
mgpu_result mgpu_event_record(mgpu_event *e, mgpu_stream *s);
/* Work queued on `s` after this call waits until `e` has completed. */
mgpu_result mgpu_stream_wait_event(mgpu_stream *s, mgpu_event *e);
mgpu_result mgpu_event_synchronize(mgpu_event *e);
mgpu_result mgpu_event_query(mgpu_event *e, int *done);
/* Milliseconds between two recorded timing events (both completed). */
mgpu_result mgpu_event_elapsed_ms(mgpu_event *start, mgpu_event *end, double *ms);

/* Hold a stream: work queued after mgpu_gate_hold waits until
 * mgpu_gate_open (or until timeout_ms passes, so a lost gate never hangs the
 * GPU). Used to queue copies without launch latency in the measurement, as
 * nvbandwidth's spin kernel does. */
mgpu_result mgpu_gate_hold(mgpu_stream *s, double timeout_ms, mgpu_gate **out);
mgpu_result mgpu_gate_open(mgpu_gate *g);  /* opens and frees the gate */

/*--- Copies -----------------------------------------------------------*/

typedef enum mgpu_copy_engine {
    MGPU_COPY_CE = 0,  /* copy engine: cudaMemcpyAsync / cudaMemcpyPeerAsync */
    MGPU_COPY_SM       /* a copy kernel run on the stream's device */
} mgpu_copy_engine;

/* Copy `bytes` from src+src_off to dst+dst_off, in stream order on `s`. The
 * direction (H2D, D2H, D2D, peer) follows from the buffers, as with UVA. SM
 * copies need the stream's device to reach both buffers (pinned host memory
 * or its own memory, or a peer's with peer access enabled); CE peer copies
 * without peer access are staged through the host, as CUDA does. */
mgpu_result mgpu_copy(mgpu_stream *s, mgpu_buffer *dst, size_t dst_off, const mgpu_buffer *src,
                      size_t src_off, size_t bytes, mgpu_copy_engine how);
const char *mgpu_copy_engine_name(mgpu_copy_engine e); /* "ce", "sm" */

/* Memory latency as nvbandwidth's *_latency_sm testcases measure it: a
 * pointer-chase kernel on the stream's device follows `accesses` dependent
 * loads through a ring laid out in buf[0, bytes) (device, peer device or
 * pinned host memory), and *ns is the mean time per load. Synchronous. */
mgpu_result mgpu_memory_latency(mgpu_stream *s, mgpu_buffer *buf, size_t bytes, uint64_t accesses,
                                double *ns);

/*--- Peer access ------------------------------------------------------*/

typedef struct mgpu_p2p_attr {
    int access_supported;
    int native_atomic_supported;
    int performance_rank;      /* lower is better; CUDA's ranking */
    int cuda_array_access_supported;
} mgpu_p2p_attr;

mgpu_result mgpu_peer_can_access(mgpu_backend *be, int dev, int peer, int *can);
mgpu_result mgpu_peer_attributes(mgpu_backend *be, int dev, int peer, mgpu_p2p_attr *out);
/* Let `dev` map `peer`'s memory. Errors say why (not supported on this
 * topology, already enabled, ...). */
mgpu_result mgpu_peer_enable(mgpu_backend *be, int dev, int peer);
mgpu_result mgpu_peer_disable(mgpu_backend *be, int dev, int peer);

/* Peer access as a switch, for scripts that turn it on and off around a
 * measurement: enabling what is already enabled (by us or by NCCL in the
 * same context) and disabling what is off both succeed; a pair that cannot
 * peer-access fails with MGPU_ERR_PEER and the reason. */
mgpu_result mgpu_peer_access_enable(mgpu_backend *be, int dev, int peer, int on);
/* *can: the topology allows dev to map peer's memory; *enabled: it is
 * mapped now (copies dev<->peer go direct, kernels on dev may touch it). */
mgpu_result mgpu_peer_access_query(mgpu_backend *be, int dev, int peer, int *can, int *enabled);

/*--- Interprocess memory (CUDA IPC) -----------------------------------*/

/* What another process needs to map a device buffer: opaque, fixed size,
 * plain bytes (it can be sent anywhere; mgpu_ipc_handle_to_string makes
 * it text). cuda: cudaIpcMemHandle_t; sim: the exporter's pid and the
 * shared-memory file behind the buffer. Valid only while the exporter keeps
 * the buffer: once it frees it (or exits), the sim refuses to open the
 * handle and to use mappings of it; on cuda the outcome is CUDA's (opening
 * may fail, or map memory that now holds other data). */
#define MGPU_IPC_HANDLE_BYTES 128
typedef struct mgpu_ipc_handle {
    unsigned char bytes[MGPU_IPC_HANDLE_BYTES];
} mgpu_ipc_handle;
/* Text form: "mgpu-ipc:" followed by 256 lower-case hex digits. */
#define MGPU_IPC_HANDLE_STRLEN (9 + 2 * MGPU_IPC_HANDLE_BYTES)

/* Export a whole device buffer (cudaIpcGetMemHandle). Host memory and
 * buffers that were themselves opened from a handle cannot be exported. */
mgpu_result mgpu_ipc_export(mgpu_buffer *buf, mgpu_ipc_handle *out);
/* Map another process's exported buffer on `dev` (cudaIpcOpenMemHandle
 * with cudaIpcMemLazyEnablePeerAccess). The new buffer's `device` is where
 * the memory lives. Opening in the exporting process itself is refused, as
 * CUDA does. Close it with mgpu_ipc_close (mgpu_mem_free also does). */
mgpu_result mgpu_ipc_open(mgpu_backend *be, int dev, const mgpu_ipc_handle *h, mgpu_buffer **out);
/* Unmap an opened buffer (cudaIpcCloseMemHandle) and free `buf`. Fails,
 * leaving buf alone, for a buffer that was not opened from a handle. */
mgpu_result mgpu_ipc_close(mgpu_buffer *buf);
/* Size in bytes and backend name ("cuda"/"sim") a handle describes; fails
 * on bytes that are not a handle. */
mgpu_result mgpu_ipc_handle_info(const mgpu_ipc_handle *h, size_t *bytes, const char **backend);
/* out must hold MGPU_IPC_HANDLE_STRLEN + 1 chars. */
void mgpu_ipc_handle_to_string(const mgpu_ipc_handle *h, char *out);
mgpu_result mgpu_ipc_handle_from_string(const char *text, mgpu_ipc_handle *out);

/*--- Tensor data: fill, checksum -------------------------------------*/

/* Fill `count` elements of `dtype` at buf+off, in stream order. */
mgpu_result mgpu_fill(mgpu_stream *s, mgpu_buffer *buf, size_t off, size_t count, mgpu_dtype dtype,
                      const mgpu_fill_spec *spec);
/* Synchronous: waits for the stream, then returns the checksum (dtype.h). */
mgpu_result mgpu_checksum(mgpu_stream *s, const mgpu_buffer *buf, size_t off, size_t count,
                          mgpu_dtype dtype, uint64_t *out);

/*--- The sim's modelled link load (engine/dev/link_load.c) -------------*/

/* NET: the GPU's traffic through its NIC to other nodes (publish it on
 * PCIe as well: it crosses the GPU's PCIe link on the way) */
typedef enum mgpu_link_kind { MGPU_LINK_NVLINK = 0, MGPU_LINK_PCIE = 1, MGPU_LINK_NET = 2 } mgpu_link_kind;
/* Where the sim's copies (dev_sim.c) and collectives (comm/sim_telemetry.c)
 * say what they load: `gpu` (the machine's GPU index) moves tx/rx bytes per
 * second over `kind` for the next `seconds`. The process that shows it
 * sets the hook - a rank worker sets mgpu_telemetry_publish (trace/, above
 * dev/ and comm/, which must not call it); unset, the load goes nowhere.
 * Set it once, before any backend opens. */
typedef void (*mgpu_link_load_fn)(int gpu, mgpu_link_kind kind, double tx_bps, double rx_bps, double seconds);
void mgpu_link_load_set_hook(mgpu_link_load_fn fn);
void mgpu_link_load(int gpu, mgpu_link_kind kind, double tx_bps, double rx_bps, double seconds);

#ifdef __cplusplus
}
#endif
#endif
