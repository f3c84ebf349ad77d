/* ipc_wire.h - the layout inside an mgpu_ipc_handle, shared by dev.c (which
 * checks it) and the backends (which fill their payload). */
#ifndef MGPU_IPC_WIRE_H
#define MGPU_IPC_WIRE_H
#include <stdint.h>
#include "mgpu/dev.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MGPU_IPC_MAGIC "MGIP"
#define MGPU_IPC_VERSION 2 /* 2: the run's MAC (mac) */
enum { MGPU_IPC_BACKEND_CUDA = 1, MGPU_IPC_BACKEND_SIM = 2 };

/* Same host, same binary on both ends: native byte order is fine. The
 * check word catches a mistyped or truncated handle string before any
 * backend acts on it. The mac binds the handle to the run: keyed with the
 * run's secret token (MGPU_TOKEN), so a script cannot forge a handle that
 * makes a worker open /proc/PID/fd/N of some other process; anyone can
 * recompute an FNV check word, no one without the token the mac. */
typedef struct mgpu_ipc_wire {
    char magic[4];
    uint8_t version;
    uint8_t backend;        /* MGPU_IPC_BACKEND_* */
    int16_t rank;           /* exporter's MGPU_RANK, -1 when not a rank */
    int32_t device;         /* exporter's device ordinal */
    int32_t pid;            /* exporter's process */
    uint64_t offset;        /* bytes from the shared allocation's base */
    uint64_t bytes;
    uint32_t check;         /* FNV-1a of the handle with this field 0 */
    uint32_t host;          /* sim: the modelled host; cuda: 0 */
    uint64_t mac;           /* SipHash-2-4 of the handle (check and mac 0) keyed with the run's token */
    unsigned char payload[MGPU_IPC_HANDLE_BYTES - 48];
} mgpu_ipc_wire;

#ifdef __cplusplus
static_assert(sizeof(mgpu_ipc_wire) == MGPU_IPC_HANDLE_BYTES, "handle layout");
#else
_Static_assert(sizeof(mgpu_ipc_wire) == MGPU_IPC_HANDLE_BYTES, "handle layout");
#endif

/* Fill magic, version, rank, pid, mac and check; backends call it last. */
void mgpu_ipc_wire_seal(mgpu_ipc_wire *w);
/* Recompute mac and check only (with this process's run key), keeping
 * rank and pid: for tests that stand in for another process of the run. */
void mgpu_ipc_wire_reseal(mgpu_ipc_wire *w);
/* "rank 0 (pid 1234)" or "pid 1234": names the exporter in messages. */
const char *mgpu_ipc_wire_who(const mgpu_ipc_wire *w, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
/* dev_ipc.c, for dev_mem.c: buf is being freed; if it was exported, its
 * handles go stale now (the backend's ipc_revoke), even when the caching
 * allocator keeps the segment behind it. */
void mgpu_ipc_forget(mgpu_buffer *buf);

#endif
