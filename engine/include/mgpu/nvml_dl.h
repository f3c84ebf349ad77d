/* nvml_dl.h - NVML loaded at run time with dlopen (for the engine only:
 * topology discovery and the telemetry sampler share it; no UI code).
 *
 * There is no nvml.h on the build machine, and the binary must start on
 * machines without the NVIDIA driver, so the few NVML types and entry points
 * mgpulab uses are declared here (layouts as in NVIDIA's nvml.h, as nvtop
 * does) and resolved with dlsym. Every wrapper returns an mgpu_result; a
 * missing library or symbol is MGPU_ERR_UNSUPPORTED with a message that says
 * which, never a crash. Topology discovery uses it, and the bandwidth pane's
 * telemetry sampler (engine/trace/telemetry_nvml.c). */
#ifndef MGPU_NVML_DL_H
#define MGPU_NVML_DL_H
#include <stdint.h>
#include "mgpu/err.h"

/*--- NVML's own types (subset, ABI-compatible) -------------------------*/

typedef struct nvmlDevice_st *nvml_device;
typedef int nvml_return;                 /* nvmlReturn_t: 0 = NVML_SUCCESS */
enum {
    NVML_OK = 0,
    NVML_RET_NOT_SUPPORTED = 3,
    NVML_RET_NOT_FOUND = 6,
    NVML_RET_TIMEOUT = 10,
    NVML_RET_FUNCTION_NOT_FOUND = 13,
};

/* nvmlPciInfo_t as nvmlDeviceGetPciInfo_v3 and
 * nvmlDeviceGetNvLinkRemotePciInfo_v2 fill it. The trailing pad only gives a
 * future, longer layout room; NVML never reads it. */
typedef struct nvml_pci_info {
    char bus_id_legacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pci_device_id;     /* (device << 16) | vendor */
    unsigned int pci_subsystem_id;
    char bus_id[32];                /* "00000000:19:00.0" (upper case hex) */
    unsigned char pad_[64];
} nvml_pci_info;

typedef struct nvml_memory {        /* nvmlMemory_t (v1) */
    unsigned long long total, free, used;
} nvml_memory;

/* nvmlGpuTopologyLevel_t: what nvidia-smi prints as PIX/PXB/PHB/NODE/SYS. */
typedef enum nvml_topo_level {
    NVML_TOPO_INTERNAL = 0,
    NVML_TOPO_SINGLE = 10,      /* PIX */
    NVML_TOPO_MULTIPLE = 20,    /* PXB */
    NVML_TOPO_HOSTBRIDGE = 30,  /* PHB */
    NVML_TOPO_NODE = 40,        /* NODE */
    NVML_TOPO_SYSTEM = 50       /* SYS */
} nvml_topo_level;

/* nvmlValue_t / nvmlFieldValue_t: 40 bytes, 8-byte aligned value. */
typedef union nvml_value {
    double d;
    unsigned int ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
    int si;
    unsigned short us;
} nvml_value;

typedef struct nvml_field_value {
    unsigned int field_id;
    unsigned int scope_id;      /* the NVLink for per-link fields */
    long long timestamp_us;
    long long latency_us;
    int value_type;             /* nvmlValueType_t */
    nvml_return ret;            /* per-field result; value is valid only on NVML_OK */
    nvml_value value;
} nvml_field_value;

/* Field ids (nvml.h NVML_FI_DEV_*). */
enum {
    NVML_FIELD_NVLINK_THROUGHPUT_DATA_TX = 138, /* KiB, cumulative, all links when scope is UINT_MAX */
    NVML_FIELD_NVLINK_THROUGHPUT_DATA_RX = 139,
    NVML_FIELD_NVLINK_LINK_COUNT = 91,          /* NVLinks the GPU has */
    NVML_FIELD_NVLINK_GET_SPEED = 164,          /* per link (scope = link): MB/s of the link */
    NVML_FIELD_NVLINK_GET_STATE = 165,
    NVML_FIELD_PCIE_COUNT_TX_BYTES = 197,       /* bytes, cumulative */
    NVML_FIELD_PCIE_COUNT_RX_BYTES = 198,
};
/* scope_id of the NVLink fields that asks for the sum over all links */
#define NVML_DL_ALL_LINKS 0xffffffffu

/* nvmlPcieUtilCounter_t */
enum { NVML_PCIE_UTIL_TX = 0, NVML_PCIE_UTIL_RX = 1 };

#define NVML_DL_MAX_NVLINKS 18

/*--- Wrappers --------------------------------------------------------*/

/* Load the library and call nvmlInit_v2. Reference-counted: each successful
 * nvml_dl_open needs one nvml_dl_close. On failure the message says what is
 * missing (no driver, no library, init error). */
mgpu_result nvml_dl_open(void);
void nvml_dl_close(void);
/* 1 when the symbol was found in the loaded library (optional entry points). */
int nvml_dl_has(const char *symbol);

mgpu_result nvml_dl_device_count(unsigned *count);
mgpu_result nvml_dl_device_by_index(unsigned index, nvml_device *dev);
/* busid in any case, with a 4- or 8-digit domain ("0000:19:00.0"). */
mgpu_result nvml_dl_device_by_busid(const char *busid, nvml_device *dev);
mgpu_result nvml_dl_device_name(nvml_device dev, char *buf, unsigned len);
mgpu_result nvml_dl_pci_info(nvml_device dev, nvml_pci_info *out);
mgpu_result nvml_dl_memory(nvml_device dev, nvml_memory *out);
/* NUMA node of the GPU's memory/affinity; MGPU_ERR_UNSUPPORTED on old drivers. */
mgpu_result nvml_dl_numa_node(nvml_device dev, int *node);
/* The CPUs near the GPU as 64-bit words, word 0 = CPUs 0..63. */
mgpu_result nvml_dl_cpu_affinity(nvml_device dev, unsigned nwords, unsigned long *mask);
mgpu_result nvml_dl_common_ancestor(nvml_device a, nvml_device b, nvml_topo_level *level);

/* Per link: *active = 1 when the NVLink is up (P2P capable when the driver
 * says so); remote_busid gets the lower-case, 4-digit-domain PCI id of the
 * far end ("0000:1a:00.0"), or "" when NVML cannot tell. */
mgpu_result nvml_dl_nvlink(nvml_device dev, unsigned link, int *active, char *remote_busid,
                           unsigned len);

/* nvmlDeviceGetFieldValues: fills each entry's ret and value. */
mgpu_result nvml_dl_field_values(nvml_device dev, int count, nvml_field_value *values);

/* nvmlDeviceGetPcieThroughput: the GPU's PCIe TX (rx = 0) or RX (rx = 1)
 * rate in KB/s, which NVML measures over a 20 ms window inside the call
 * (so the call itself takes that long; the sampler prefers the cumulative
 * NVML_FIELD_PCIE_COUNT_* byte counters where the driver has them). */
mgpu_result nvml_dl_pcie_throughput(nvml_device dev, int rx, unsigned *kb_per_s);

/* Single-number facts nvidia-smi -q prints (each an optional entry point). */
typedef enum nvml_uint_fact {
    NVML_FACT_PCIE_GEN_CURRENT = 0, /* nvmlDeviceGetCurrPcieLinkGeneration */
    NVML_FACT_PCIE_GEN_MAX,         /* nvmlDeviceGetMaxPcieLinkGeneration: the link (GPU and slot) */
    NVML_FACT_PCIE_GEN_GPU_MAX,     /* nvmlDeviceGetGpuMaxPcieLinkGeneration: the GPU alone */
    NVML_FACT_PCIE_WIDTH_CURRENT,   /* nvmlDeviceGetCurrPcieLinkWidth */
    NVML_FACT_PCIE_WIDTH_MAX,       /* nvmlDeviceGetMaxPcieLinkWidth */
    NVML_FACT_POWER_MW,             /* nvmlDeviceGetPowerUsage, milliwatts */
    NVML_FACT_POWER_LIMIT_MW,       /* nvmlDeviceGetEnforcedPowerLimit, milliwatts */
    NVML_FACT_PCIE_REPLAYS,         /* nvmlDeviceGetPcieReplayCounter: link-level retransmissions */
    NVML_FACT_COUNT
} nvml_uint_fact;
mgpu_result nvml_dl_uint_fact(nvml_device dev, nvml_uint_fact which, unsigned *out);

/* nvmlClockType_t */
enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };
/* nvmlDeviceGetClockInfo (max = 0) or nvmlDeviceGetMaxClockInfo (max = 1), MHz. */
mgpu_result nvml_dl_clock(nvml_device dev, int type, int max, unsigned *mhz);
/* nvmlDeviceGetTotalEccErrors: corrected or uncorrected, volatile (since the
 * driver loaded) or aggregate (the GPU's lifetime). */
mgpu_result nvml_dl_ecc(nvml_device dev, int uncorrected, int aggregate, unsigned long long *count);
/* nvmlDeviceGetCurrentClocksEventReasons (or the older ...ThrottleReasons):
 * the nvmlClocksEventReason bits. */
mgpu_result nvml_dl_throttle_reasons(nvml_device dev, unsigned long long *bits);

/* nvmlDeviceGetTemperature of the GPU die (sensor 0), degrees C. */
mgpu_result nvml_dl_temperature(nvml_device dev, unsigned *celsius);
/* nvmlDeviceGetRemappedRows (Ampere and newer): rows remapped for corrected
 * and uncorrected errors, a remap pending (needs a reset), a remap failed. */
mgpu_result nvml_dl_remapped_rows(nvml_device dev, unsigned *corrected, unsigned *uncorrected, unsigned *pending,
                                  unsigned *failed);
/* nvmlDeviceGetRetiredPages (before Ampere): pages retired for multiple
 * single-bit errors (dbe = 0) or a double-bit error (dbe = 1). */
mgpu_result nvml_dl_retired_pages(nvml_device dev, int dbe, unsigned *count);

/* XID events: nvmlEventSet_t and nvmlEventData_t (layout as in nvml.h). An
 * XID is the driver's report of a GPU error (dmesg's "NVRM: Xid"): 48 a
 * double-bit ECC error, 79 a GPU fallen off the bus, 74 an NVLink error... */
typedef struct nvmlEventSet_st *nvml_event_set;
typedef struct nvml_event_data {
    nvml_device device;
    unsigned long long event_type;
    unsigned long long event_data;   /* the XID number */
    unsigned int gpu_instance_id;
    unsigned int compute_instance_id;
} nvml_event_data;
#define NVML_EVENT_XID 0x0000000000000008ULL /* nvmlEventTypeXidCriticalError */

mgpu_result nvml_dl_event_set_create(nvml_event_set *set);
void nvml_dl_event_set_free(nvml_event_set set);
/* Register dev's XID events with set; MGPU_ERR_UNSUPPORTED when the GPU or
 * the driver cannot report them. */
mgpu_result nvml_dl_register_xid(nvml_device dev, nvml_event_set set);
/* One event, waiting at most timeout_ms (0: only what is queued): *got = 1
 * and *out filled, or *got = 0 when nothing came. */
mgpu_result nvml_dl_event_wait(nvml_event_set set, unsigned timeout_ms, nvml_event_data *out, int *got);

/* "0000:19:00.0" from NVML's "00000000:19:00.0", lower case. */
void nvml_dl_normalize_busid(const char *in, char *out, unsigned len);

#endif
