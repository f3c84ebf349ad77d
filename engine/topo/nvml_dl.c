/* nvml_dl.c - NVML through dlopen: own declarations, no nvml.h, and a clear
 * message instead of a crash when the driver or a symbol is missing. */
#include "mgpu/nvml_dl.h"
#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/*--- The library and its entry points ------------------------------------*/

typedef nvml_return (*fn_void)(void);
typedef const char *(*fn_errstr)(nvml_return);
typedef nvml_return (*fn_count)(unsigned *);
typedef nvml_return (*fn_by_index)(unsigned, nvml_device *);
typedef nvml_return (*fn_by_busid)(const char *, nvml_device *);
typedef nvml_return (*fn_name)(nvml_device, char *, unsigned);
typedef nvml_return (*fn_pci)(nvml_device, nvml_pci_info *);
typedef nvml_return (*fn_mem)(nvml_device, nvml_memory *);
typedef nvml_return (*fn_uint)(nvml_device, unsigned *);
typedef nvml_return (*fn_affinity)(nvml_device, unsigned, unsigned long *);
typedef nvml_return (*fn_ancestor)(nvml_device, nvml_device, int *);
typedef nvml_return (*fn_link_state)(nvml_device, unsigned, int *);
typedef nvml_return (*fn_link_pci)(nvml_device, unsigned, nvml_pci_info *);
typedef nvml_return (*fn_link_cap)(nvml_device, unsigned, int, unsigned *);
typedef nvml_return (*fn_fields)(nvml_device, int, nvml_field_value *);
typedef nvml_return (*fn_pcie_tp)(nvml_device, int, unsigned *);
typedef nvml_return (*fn_clock)(nvml_device, int, unsigned *);
typedef nvml_return (*fn_ecc)(nvml_device, int, int, unsigned long long *);
typedef nvml_return (*fn_ull)(nvml_device, unsigned long long *);

static pthread_mutex_t nv_lock = PTHREAD_MUTEX_INITIALIZER;

static struct nv_fns {
    int refs;
    void *lib;
    fn_void init, shutdown;
    fn_errstr error_string;
    fn_count count;
    fn_by_index by_index;
    fn_by_busid by_busid;
    fn_name name;
    fn_pci pci;
    fn_mem memory;
    fn_uint numa;           /* optional: nvmlDeviceGetNumaNodeId (driver >= 545) */
    fn_affinity affinity;
    fn_ancestor ancestor;
    fn_link_state link_state;
    fn_link_pci link_pci;
    fn_link_cap link_cap;   /* optional */
    fn_fields fields;
    fn_pcie_tp pcie_tp;     /* optional: nvmlDeviceGetPcieThroughput (Maxwell and newer) */
    fn_uint facts[NVML_FACT_COUNT]; /* optional: nvml_uint_fact, in its order */
    fn_clock clock, max_clock;
    fn_ecc ecc;
    fn_ull reasons, reasons_old;
    nvml_return (*temperature)(nvml_device, int, unsigned *);
    nvml_return (*remapped)(nvml_device, unsigned *, unsigned *, unsigned *, unsigned *);
    nvml_return (*retired)(nvml_device, int, unsigned *, unsigned long long *);
    /* XID events (optional): an event set the run's devices register with */
    nvml_return (*set_create)(nvml_event_set *);
    nvml_return (*set_free)(nvml_event_set);
    nvml_return (*supported_events)(nvml_device, unsigned long long *);
    nvml_return (*register_events)(nvml_device, unsigned long long, nvml_event_set);
    nvml_return (*set_wait)(nvml_event_set, nvml_event_data *, unsigned);
} nv;

static const struct sym {
    const char *name;
    size_t offset;
    int required;
} syms[] = {
#define SYM(field, name, req) {name, offsetof(struct nv_fns, field), req}
    SYM(init, "nvmlInit_v2", 1),
    SYM(shutdown, "nvmlShutdown", 1),
    SYM(error_string, "nvmlErrorString", 1),
    SYM(count, "nvmlDeviceGetCount_v2", 1),
    SYM(by_index, "nvmlDeviceGetHandleByIndex_v2", 1),
    SYM(by_busid, "nvmlDeviceGetHandleByPciBusId_v2", 1),
    SYM(name, "nvmlDeviceGetName", 0),
    SYM(pci, "nvmlDeviceGetPciInfo_v3", 0),
    SYM(memory, "nvmlDeviceGetMemoryInfo", 0),
    SYM(numa, "nvmlDeviceGetNumaNodeId", 0),
    SYM(affinity, "nvmlDeviceGetCpuAffinity", 0),
    SYM(ancestor, "nvmlDeviceGetTopologyCommonAncestor", 0),
    SYM(link_state, "nvmlDeviceGetNvLinkState", 0),
    SYM(link_pci, "nvmlDeviceGetNvLinkRemotePciInfo_v2", 0),
    SYM(link_cap, "nvmlDeviceGetNvLinkCapability", 0),
    SYM(fields, "nvmlDeviceGetFieldValues", 0),
    SYM(pcie_tp, "nvmlDeviceGetPcieThroughput", 0),
    SYM(facts[NVML_FACT_PCIE_GEN_CURRENT], "nvmlDeviceGetCurrPcieLinkGeneration", 0),
    SYM(facts[NVML_FACT_PCIE_GEN_MAX], "nvmlDeviceGetMaxPcieLinkGeneration", 0),
    SYM(facts[NVML_FACT_PCIE_GEN_GPU_MAX], "nvmlDeviceGetGpuMaxPcieLinkGeneration", 0),
    SYM(facts[NVML_FACT_PCIE_WIDTH_CURRENT], "nvmlDeviceGetCurrPcieLinkWidth", 0),
    SYM(facts[NVML_FACT_PCIE_WIDTH_MAX], "nvmlDeviceGetMaxPcieLinkWidth", 0),
    SYM(facts[NVML_FACT_POWER_MW], "nvmlDeviceGetPowerUsage", 0),
    SYM(facts[NVML_FACT_POWER_LIMIT_MW], "nvmlDeviceGetEnforcedPowerLimit", 0),
    SYM(facts[NVML_FACT_PCIE_REPLAYS], "nvmlDeviceGetPcieReplayCounter", 0),
    SYM(temperature, "nvmlDeviceGetTemperature", 0),
    SYM(remapped, "nvmlDeviceGetRemappedRows", 0),
    SYM(retired, "nvmlDeviceGetRetiredPages", 0),
    SYM(clock, "nvmlDeviceGetClockInfo", 0),
    SYM(max_clock, "nvmlDeviceGetMaxClockInfo", 0),
    SYM(ecc, "nvmlDeviceGetTotalEccErrors", 0),
    SYM(reasons, "nvmlDeviceGetCurrentClocksEventReasons", 0),
    SYM(reasons_old, "nvmlDeviceGetCurrentClocksThrottleReasons", 0),
    SYM(set_create, "nvmlEventSetCreate", 0),
    SYM(set_free, "nvmlEventSetFree", 0),
    SYM(supported_events, "nvmlDeviceGetSupportedEventTypes", 0),
    SYM(register_events, "nvmlDeviceRegisterEvents", 0),
    SYM(set_wait, "nvmlEventSetWait_v2", 0),
#undef SYM
};

static void unload_locked(void)
{
    if (nv.lib) dlclose(nv.lib);
    memset(&nv, 0, sizeof nv);
}

static const char *nvml_error(nvml_return r)
{
    const char *s = nv.error_string ? nv.error_string(r) : NULL;
    return s ? s : "unknown NVML error";
}

mgpu_result nvml_dl_open(void)
{
    mgpu_result res = MGPU_OK;
    pthread_mutex_lock(&nv_lock);
    if (nv.refs > 0) {
        nv.refs++;
        goto out;
    }
    /* The versioned name is what the driver package installs; the bare .so
     * only exists with development files. */
    nv.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!nv.lib) {
        const char *why = dlerror();
        unload_locked();
        res = mgpu_fail(MGPU_ERR_UNSUPPORTED,
                        "NVML is not available (libnvidia-ml.so.1 did not load: %s); the NVIDIA "
                        "driver is not installed or not on the library path",
                        why ? why : "not found");
        goto out;
    }
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *p = dlsym(nv.lib, syms[i].name);
        if (!p && syms[i].required) {
            unload_locked();
            res = mgpu_fail(MGPU_ERR_UNSUPPORTED,
                            "NVML is too old: libnvidia-ml.so.1 lacks %s; update the NVIDIA driver",
                            syms[i].name);
            goto out;
        }
        /* Function pointers stored through their offset: the table above
         * keeps names and fields in one place. */
        memcpy((char *)&nv + syms[i].offset, &p, sizeof p);
    }
    nvml_return r = nv.init();
    if (r != NVML_OK) {
        const char *msg = nvml_error(r);
        char copy[160];
        snprintf(copy, sizeof copy, "%s", msg);
        unload_locked();
        res = mgpu_fail(MGPU_ERR_UNSUPPORTED,
                        "NVML did not initialise (nvmlInit_v2: %s); is the NVIDIA driver loaded?", copy);
        goto out;
    }
    nv.refs = 1;
out:
    pthread_mutex_unlock(&nv_lock);
    return res;
}

void nvml_dl_close(void)
{
    pthread_mutex_lock(&nv_lock);
    if (nv.refs > 0 && --nv.refs == 0) {
        nv.shutdown();
        unload_locked();
    }
    pthread_mutex_unlock(&nv_lock);
}

int nvml_dl_has(const char *symbol)
{
    if (!nv.lib) return 0;
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++)
        if (strcmp(syms[i].name, symbol) == 0) {
            void *p;
            memcpy(&p, (char *)&nv + syms[i].offset, sizeof p);
            return p != NULL;
        }
    return 0;
}

/*--- Wrappers ------------------------------------------------------------*/

/* Common checks: library open, entry point present, then the call's result. */
#define NEED(fn, what)                                                                    \
    do {                                                                                  \
        if (!nv.lib) return mgpu_fail(MGPU_ERR_UNSUPPORTED, "NVML is not loaded (%s)", what); \
        if (!nv.fn)                                                                       \
            return mgpu_fail(MGPU_ERR_UNSUPPORTED,                                        \
                             "this NVML has no %s; update the NVIDIA driver", what);      \
    } while (0)

static mgpu_result result(nvml_return r, const char *what)
{
    if (r == NVML_OK) return MGPU_OK;
    return mgpu_fail(r == NVML_RET_NOT_SUPPORTED ? MGPU_ERR_UNSUPPORTED : MGPU_ERR_CUDA, "%s: %s", what,
                     nvml_error(r));
}

mgpu_result nvml_dl_device_count(unsigned *count)
{
    NEED(count, "nvmlDeviceGetCount_v2");
    return result(nv.count(count), "nvmlDeviceGetCount_v2");
}

mgpu_result nvml_dl_device_by_index(unsigned index, nvml_device *dev)
{
    NEED(by_index, "nvmlDeviceGetHandleByIndex_v2");
    return result(nv.by_index(index, dev), "nvmlDeviceGetHandleByIndex_v2");
}

mgpu_result nvml_dl_device_by_busid(const char *busid, nvml_device *dev)
{
    NEED(by_busid, "nvmlDeviceGetHandleByPciBusId_v2");
    return result(nv.by_busid(busid, dev), "nvmlDeviceGetHandleByPciBusId_v2");
}

mgpu_result nvml_dl_device_name(nvml_device dev, char *buf, unsigned len)
{
    NEED(name, "nvmlDeviceGetName");
    if (len) buf[0] = '\0';
    mgpu_result r = result(nv.name(dev, buf, len), "nvmlDeviceGetName");
    if (len) buf[len - 1] = '\0';
    return r;
}

mgpu_result nvml_dl_pci_info(nvml_device dev, nvml_pci_info *out)
{
    NEED(pci, "nvmlDeviceGetPciInfo_v3");
    memset(out, 0, sizeof *out);
    return result(nv.pci(dev, out), "nvmlDeviceGetPciInfo_v3");
}

mgpu_result nvml_dl_memory(nvml_device dev, nvml_memory *out)
{
    NEED(memory, "nvmlDeviceGetMemoryInfo");
    return result(nv.memory(dev, out), "nvmlDeviceGetMemoryInfo");
}

mgpu_result nvml_dl_numa_node(nvml_device dev, int *node)
{
    NEED(numa, "nvmlDeviceGetNumaNodeId");
    unsigned n = 0;
    MGPU_CHECK(result(nv.numa(dev, &n), "nvmlDeviceGetNumaNodeId"));
    *node = (int)n;
    return MGPU_OK;
}

mgpu_result nvml_dl_cpu_affinity(nvml_device dev, unsigned nwords, unsigned long *mask)
{
    NEED(affinity, "nvmlDeviceGetCpuAffinity");
    memset(mask, 0, nwords * sizeof *mask);
    return result(nv.affinity(dev, nwords, mask), "nvmlDeviceGetCpuAffinity");
}

mgpu_result nvml_dl_common_ancestor(nvml_device a, nvml_device b, nvml_topo_level *level)
{
    NEED(ancestor, "nvmlDeviceGetTopologyCommonAncestor");
    int l = 0;
    MGPU_CHECK(result(nv.ancestor(a, b, &l), "nvmlDeviceGetTopologyCommonAncestor"));
    *level = (nvml_topo_level)l;
    return MGPU_OK;
}

void nvml_dl_normalize_busid(const char *in, char *out, unsigned len)
{
    if (!len) return;
    /* NVML writes an 8-digit domain; sysfs and CUDA use 4 digits. */
    const char *colon = strchr(in, ':');
    const char *s = in;
    if (colon && colon - in > 4) s = colon - 4;
    unsigned i = 0;
    for (; s[i] && i + 1 < len; i++) out[i] = (char)tolower((unsigned char)s[i]);
    out[i] = '\0';
}

mgpu_result nvml_dl_nvlink(nvml_device dev, unsigned link, int *active, char *remote_busid, unsigned len)
{
    NEED(link_state, "nvmlDeviceGetNvLinkState");
    *active = 0;
    if (len) remote_busid[0] = '\0';
    if (nv.link_cap) {
        unsigned p2p = 0; /* NVML_NVLINK_CAP_P2P_SUPPORTED = 0 */
        if (nv.link_cap(dev, link, 0, &p2p) != NVML_OK || !p2p) return MGPU_OK;
    }
    int state = 0; /* nvmlEnableState_t: 1 = enabled */
    nvml_return r = nv.link_state(dev, link, &state);
    /* Links past the GPU's last one answer INVALID_ARGUMENT or NOT_SUPPORTED:
     * that is "no link", not an error. */
    if (r != NVML_OK || state != 1) return MGPU_OK;
    *active = 1;
    if (nv.link_pci && len) {
        nvml_pci_info pci;
        memset(&pci, 0, sizeof pci);
        if (nv.link_pci(dev, link, &pci) == NVML_OK) {
            pci.bus_id[sizeof pci.bus_id - 1] = '\0';
            nvml_dl_normalize_busid(pci.bus_id, remote_busid, len);
        }
    }
    return MGPU_OK;
}

mgpu_result nvml_dl_field_values(nvml_device dev, int count, nvml_field_value *values)
{
    NEED(fields, "nvmlDeviceGetFieldValues");
    if (count <= 0) return mgpu_fail(MGPU_ERR_INVALID, "nvml_dl_field_values: no fields asked");
    return result(nv.fields(dev, count, values), "nvmlDeviceGetFieldValues");
}

mgpu_result nvml_dl_pcie_throughput(nvml_device dev, int rx, unsigned *kb_per_s)
{
    NEED(pcie_tp, "nvmlDeviceGetPcieThroughput");
    *kb_per_s = 0;
    return result(nv.pcie_tp(dev, rx ? NVML_PCIE_UTIL_RX : NVML_PCIE_UTIL_TX, kb_per_s),
                  "nvmlDeviceGetPcieThroughput");
}

mgpu_result nvml_dl_uint_fact(nvml_device dev, nvml_uint_fact which, unsigned *out)
{
    static const char *const what[NVML_FACT_COUNT] = {
        "nvmlDeviceGetCurrPcieLinkGeneration", "nvmlDeviceGetMaxPcieLinkGeneration",
        "nvmlDeviceGetGpuMaxPcieLinkGeneration", "nvmlDeviceGetCurrPcieLinkWidth", "nvmlDeviceGetMaxPcieLinkWidth",
        "nvmlDeviceGetPowerUsage", "nvmlDeviceGetEnforcedPowerLimit", "nvmlDeviceGetPcieReplayCounter"};
    if ((unsigned)which >= NVML_FACT_COUNT) return mgpu_fail(MGPU_ERR_INVALID, "nvml_dl_uint_fact: unknown fact %d", which);
    NEED(facts[which], what[which]);
    *out = 0;
    return result(nv.facts[which](dev, out), what[which]);
}

mgpu_result nvml_dl_clock(nvml_device dev, int type, int max, unsigned *mhz)
{
    *mhz = 0;
    if (max) {
        NEED(max_clock, "nvmlDeviceGetMaxClockInfo");
        return result(nv.max_clock(dev, type, mhz), "nvmlDeviceGetMaxClockInfo");
    }
    NEED(clock, "nvmlDeviceGetClockInfo");
    return result(nv.clock(dev, type, mhz), "nvmlDeviceGetClockInfo");
}

mgpu_result nvml_dl_ecc(nvml_device dev, int uncorrected, int aggregate, unsigned long long *count)
{
    NEED(ecc, "nvmlDeviceGetTotalEccErrors");
    *count = 0;
    /* nvmlMemoryErrorType_t: 0 corrected, 1 uncorrected; nvmlEccCounterType_t: 0 volatile, 1 aggregate */
    return result(nv.ecc(dev, uncorrected ? 1 : 0, aggregate ? 1 : 0, count), "nvmlDeviceGetTotalEccErrors");
}

mgpu_result nvml_dl_temperature(nvml_device dev, unsigned *celsius)
{
    *celsius = 0;
    NEED(temperature, "nvmlDeviceGetTemperature");
    return result(nv.temperature(dev, 0 /* NVML_TEMPERATURE_GPU */, celsius), "nvmlDeviceGetTemperature");
}

mgpu_result nvml_dl_remapped_rows(nvml_device dev, unsigned *corrected, unsigned *uncorrected, unsigned *pending,
                                  unsigned *failed)
{
    *corrected = *uncorrected = *pending = *failed = 0;
    NEED(remapped, "nvmlDeviceGetRemappedRows");
    return result(nv.remapped(dev, corrected, uncorrected, pending, failed), "nvmlDeviceGetRemappedRows");
}

mgpu_result nvml_dl_retired_pages(nvml_device dev, int dbe, unsigned *count)
{
    *count = 0; /* 0 and no buffer: NVML only counts */
    NEED(retired, "nvmlDeviceGetRetiredPages");
    /* nvmlPageRetirementCause_t: 0 multiple single-bit ECC errors, 1 a double-bit ECC error */
    nvml_return rc = nv.retired(dev, dbe ? 1 : 0, count, NULL);
    return result(rc == 7 /* NVML_ERROR_INSUFFICIENT_SIZE: the count is set */ ? NVML_OK : rc,
                  "nvmlDeviceGetRetiredPages");
}

mgpu_result nvml_dl_throttle_reasons(nvml_device dev, unsigned long long *bits)
{
    *bits = 0;
    if (nv.lib && nv.reasons) return result(nv.reasons(dev, bits), "nvmlDeviceGetCurrentClocksEventReasons");
    NEED(reasons_old, "nvmlDeviceGetCurrentClocksThrottleReasons");
    return result(nv.reasons_old(dev, bits), "nvmlDeviceGetCurrentClocksThrottleReasons");
}

/*--- XID events ------------------------------------------------------------*/

mgpu_result nvml_dl_event_set_create(nvml_event_set *set)
{
    *set = NULL;
    NEED(set_create, "nvmlEventSetCreate");
    return result(nv.set_create(set), "nvmlEventSetCreate");
}

void nvml_dl_event_set_free(nvml_event_set set)
{
    if (set && nv.lib && nv.set_free) nv.set_free(set);
}

mgpu_result nvml_dl_register_xid(nvml_device dev, nvml_event_set set)
{
    NEED(register_events, "nvmlDeviceRegisterEvents");
    unsigned long long types = NVML_EVENT_XID;
    /* A device that cannot report XIDs says so here, not by silence later. */
    if (nv.supported_events) {
        MGPU_CHECK(result(nv.supported_events(dev, &types), "nvmlDeviceGetSupportedEventTypes"));
        if (!(types & NVML_EVENT_XID))
            return mgpu_fail(MGPU_ERR_UNSUPPORTED, "this GPU does not report XID events to NVML");
    }
    return result(nv.register_events(dev, NVML_EVENT_XID, set), "nvmlDeviceRegisterEvents");
}

mgpu_result nvml_dl_event_wait(nvml_event_set set, unsigned timeout_ms, nvml_event_data *out, int *got)
{
    *got = 0;
    memset(out, 0, sizeof *out);
    NEED(set_wait, "nvmlEventSetWait_v2");
    nvml_return r = nv.set_wait(set, out, timeout_ms);
    if (r == NVML_RET_TIMEOUT) return MGPU_OK; /* nothing happened */
    MGPU_CHECK(result(r, "nvmlEventSetWait_v2"));
    *got = 1;
    return MGPU_OK;
}
