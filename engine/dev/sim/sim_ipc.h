/* sim_ipc.h - sim device memory that other processes can map (the sim's
 * CUDA IPC): every device buffer is its own mapping, moved into a memfd
 * when first exported; importers map that memfd through /proc/PID/fd/N. */
#ifndef MGPU_SIM_IPC_H
#define MGPU_SIM_IPC_H
#include "dev/sim/sim_internal.h"

/* buf->impl of every sim device buffer. */
typedef struct sim_devmem {
    void *map;              /* the data mapping; buf->ptr points into it */
    size_t map_len;
    int memfd;              /* -1 until exported (exporter only) */
    struct sim_ipc_header *hdr; /* shared header page once exported or opened */
    int imported;           /* opened from another process's handle */
    int open_dev;           /* importer: the device the handle was opened on */
    int exp_pid, exp_rank;  /* importer: who exported it (for messages) */
    uint64_t exp_start;     /* importer: exporter's start time (pid reuse) */
    int slot;               /* importer: the exported range's slot in the header (-1: none) */
    uint32_t gen;           /* importer: that slot's generation when exported */
} sim_devmem;

/* Map `buf->bytes` of private device memory (huge-page aligned when big). */
mgpu_result sim_devmem_alloc(mgpu_buffer *buf);
/* Unmap; an exporter first marks the shared header freed, so handles and
 * importers see it. */
void sim_devmem_release(mgpu_buffer *buf);

/* The backend's ipc ops (struct mgpu_dev_ops). */
mgpu_result sim_ipc_export(mgpu_buffer *buf, size_t off, size_t bytes, mgpu_ipc_wire *w);
void sim_ipc_revoke(mgpu_buffer *buf, size_t off, size_t bytes);
mgpu_result sim_ipc_open(mgpu_backend *be, int dev, const mgpu_ipc_wire *w, mgpu_buffer *buf);
mgpu_result sim_ipc_close(mgpu_buffer *buf);

/* 1 when b was opened from a handle on device `exec` (lazy peer access:
 * reachable from there without enabling peer access). */
int sim_ipc_reachable(const mgpu_buffer *b, int exec);
/* For an opened buffer: fails clearly once the exporter freed it or
 * exited (the handle-lifetime pitfall); MGPU_OK for every other buffer. */
mgpu_result sim_ipc_check_live(const mgpu_buffer *b);

/* sim_memory.c: add an opened buffer to the pointer registry; take one out. */
mgpu_result sim_registry_add_locked(sim_state *st, mgpu_buffer *buf);
void sim_registry_remove_locked(sim_state *st, mgpu_buffer *buf);

/* sim_vmm.c: the backend's virtual memory ops (expandable segments). */
mgpu_result sim_vmm_reserve(mgpu_backend *be, mgpu_buffer *seg);
mgpu_result sim_vmm_map(mgpu_buffer *seg, size_t off, size_t bytes);
void sim_vmm_unmap(mgpu_buffer *seg, size_t off, size_t bytes);
void sim_vmm_release(mgpu_buffer *seg);
size_t sim_vmm_granularity(mgpu_backend *be, int dev);

#endif
