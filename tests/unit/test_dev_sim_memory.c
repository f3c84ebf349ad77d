/* test_dev_sim_memory.c - the sim backend's devices and memory: opening
 * machines, device properties, allocation of each kind, device OOM,
 * accounting, and UVA pointer attributes anywhere inside a buffer. */
#include "mgpu/dev.h"
#include "mgpu/topo.h"
#include "tap.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Plain allocations: these tests hold the backend to cudaMalloc's semantics
 * (exact accounting, an address unknown once freed); the caching allocator
 * above it has its own tests (test_mem_*). */
static mgpu_backend *open_sim(const char *machine, const char *fault)
{
    mgpu_backend_config cfg = {MGPU_BACKEND_SIM, machine, fault, "backend:plain"};
    mgpu_backend *be = NULL;
    mgpu_result r = mgpu_backend_open(&cfg, &be);
    CHECKF(r == MGPU_OK, "open %s: %s", machine ? machine : "(default)", mgpu_error_message());
    return r == MGPU_OK ? be : NULL;
}

static void test_open_and_info(void)
{
    mgpu_backend *be = open_sim(NULL, NULL);
    if (!be) return;
    int n = 0;
    CHECK_OK(mgpu_device_count(be, &n));
    CHECK(n == 8); /* default machine: dgx-h100 */
    CHECK(mgpu_backend_simulated(be));
    CHECK(strcmp(mgpu_backend_name(be), "sim") == 0);
    mgpu_device_info info;
    CHECK_OK(mgpu_device_info_get(be, 3, &info));
    CHECK(info.index == 3);
    CHECK(strstr(info.name, "H100") != NULL);
    CHECK(info.sm_count == 132);
    CHECK(info.cc_major == 9 && info.cc_minor == 0);
    CHECK(info.total_mem > (70ull << 30));
    CHECK(info.unified_addressing == 1 && info.can_map_host_memory == 1);
    CHECK(info.async_engines >= 2);
    CHECK(strlen(info.pci_bus_id) >= 12);
    for (const char *p = info.pci_bus_id; *p; p++) CHECK(!(*p >= 'A' && *p <= 'F'));
    CHECK(mgpu_device_info_get(be, 8, &info) == MGPU_ERR_INVALID);
    uint64_t fr = 0, tot = 0;
    CHECK_OK(mgpu_device_mem_info(be, 0, &fr, &tot));
    CHECK(fr == tot && tot > 0);
    mgpu_backend_close(be);

    be = open_sim("single-gpu", NULL);
    if (be) {
        CHECK_OK(mgpu_device_count(be, &n));
        CHECK(n == 1);
        mgpu_backend_close(be);
    }
    be = open_sim("dgx-h200", NULL);
    if (be) {
        CHECK_OK(mgpu_device_info_get(be, 0, &info));
        CHECK(strstr(info.name, "H200") != NULL);
        mgpu_backend_close(be);
    }
}

static void test_open_errors(void)
{
    mgpu_backend_config cfg = {MGPU_BACKEND_SIM, "no-such-machine", NULL};
    mgpu_backend *be = NULL;
    CHECK(mgpu_backend_open(&cfg, &be) != MGPU_OK && be == NULL);
    CHECK(strstr(mgpu_error_message(), "no-such-machine") != NULL);
    cfg.machine = "dgx-h100";
    cfg.fault = "cosmic-rays";
    CHECK(mgpu_backend_open(&cfg, &be) != MGPU_OK && be == NULL);

    /* MGPU_SIM_HOST picks the host of a multi-host machine. */
    cfg.fault = NULL;
    cfg.machine = "2x-dgx-h100";
    setenv("MGPU_SIM_HOST", "1", 1);
    CHECK_OK(mgpu_backend_open(&cfg, &be));
    if (be) {
        int n = 0;
        mgpu_device_count(be, &n);
        CHECK(n == 8);
        mgpu_backend_close(be);
        be = NULL;
    }
    setenv("MGPU_SIM_HOST", "2", 1);
    CHECK(mgpu_backend_open(&cfg, &be) == MGPU_ERR_INVALID && be == NULL);
    CHECK(strstr(mgpu_error_message(), "MGPU_SIM_HOST") != NULL);
    setenv("MGPU_SIM_HOST", "1x", 1);
    CHECK(mgpu_backend_open(&cfg, &be) == MGPU_ERR_INVALID && be == NULL);
    unsetenv("MGPU_SIM_HOST");
}

static void test_alloc_kinds_and_attributes(void)
{
    mgpu_backend *be = open_sim("dgx-h100", NULL);
    if (!be) return;
    mgpu_buffer *d = NULL, *p = NULL, *h = NULL;
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 2, 1000, &d));
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_PINNED, 0, 4096, &p));
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_PAGEABLE, 0, 333, &h));
    if (!d || !p || !h) goto done;
    CHECK(d->kind == MGPU_MEM_DEVICE && d->device == 2 && d->bytes == 1000);
    CHECK(p->device == -1 && h->device == -1);
    CHECK((uintptr_t)d->ptr % 256 == 0 && (uintptr_t)p->ptr % 256 == 0);
    /* memory is real: writable end to end */
    memset(d->ptr, 0xAB, d->bytes);
    memset(h->ptr, 0xCD, h->bytes);

    mgpu_ptr_attr a;
    char *mid = (char *)d->ptr + 999;
    CHECK_OK(mgpu_pointer_attributes(be, mid, &a));
    CHECK(a.kind == MGPU_MEM_DEVICE && a.device == 2);
    CHECK(a.device_ptr == mid && a.host_ptr == NULL);
    CHECK_OK(mgpu_pointer_attributes(be, (char *)d->ptr + 1000, &a)); /* one past the end */
    CHECK(a.kind != MGPU_MEM_DEVICE || a.device_ptr != (char *)d->ptr + 1000);

    mid = (char *)p->ptr + 2048;
    CHECK_OK(mgpu_pointer_attributes(be, mid, &a));
    CHECK(a.kind == MGPU_MEM_PINNED && a.device == -1);
    CHECK(a.device_ptr == mid && a.host_ptr == mid);

    mid = (char *)h->ptr + 100;
    CHECK_OK(mgpu_pointer_attributes(be, mid, &a));
    CHECK(a.kind == MGPU_MEM_PAGEABLE && a.device == -1);
    CHECK(a.device_ptr == NULL && a.host_ptr == mid);

    int local = 0;
    CHECK_OK(mgpu_pointer_attributes(be, &local, &a));
    CHECK(a.kind == MGPU_MEM_UNKNOWN && a.device == -1 && !a.device_ptr && !a.host_ptr);

    uint64_t fr, tot;
    CHECK_OK(mgpu_device_mem_info(be, 2, &fr, &tot));
    CHECK(tot - fr == 1000);
    CHECK_OK(mgpu_device_mem_info(be, 1, &fr, &tot));
    CHECK(tot == fr); /* host kinds and other devices are not charged */
done:
    mgpu_mem_free(d);
    mgpu_mem_free(p);
    mgpu_mem_free(h);
    CHECK_OK(mgpu_device_mem_info(be, 2, &fr, &tot));
    CHECK(fr == tot);
    /* after free, the registry no longer knows the address */
    mgpu_buffer *x = NULL;
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 0, 64, &x));
    if (x) {
        void *addr = x->ptr;
        mgpu_mem_free(x);
        CHECK_OK(mgpu_pointer_attributes(be, addr, &a));
        CHECK(a.kind == MGPU_MEM_UNKNOWN);
    }
    mgpu_backend_close(be);
}

static void test_oom(void)
{
    mgpu_backend *be = open_sim("dgx-h100", NULL);
    if (!be) return;
    uint64_t fr, tot;
    CHECK_OK(mgpu_device_mem_info(be, 0, &fr, &tot));
    mgpu_buffer *b = NULL;
    /* more than the GPU has: refused before any host memory is touched */
    CHECK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 0, (size_t)tot + 1, &b) == MGPU_ERR_DEVICE_OOM);
    CHECK(b == NULL);
    CHECK(strstr(mgpu_error_message(), "out of memory on simulated GPU 0") != NULL);
    CHECK(strstr(mgpu_error_message(), "free") != NULL);
    /* fill part of the device, then ask for one byte more than is left */
    mgpu_buffer *big = NULL;
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 0, 256u << 20, &big));
    CHECK_OK(mgpu_device_mem_info(be, 0, &fr, &tot));
    CHECK(fr == tot - (256u << 20));
    CHECK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 0, (size_t)fr + 1, &b) == MGPU_ERR_DEVICE_OOM);
    char want[64];
    snprintf(want, sizeof want, "(%llu bytes)", (unsigned long long)fr + 1);
    CHECKF(strstr(mgpu_error_message(), want) != NULL, "%s", mgpu_error_message());
    /* another device is unaffected */
    mgpu_buffer *other = NULL;
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 1, 1u << 20, &other));
    mgpu_mem_free(other);
    mgpu_mem_free(big);
    /* host memory beyond this machine's RAM: a clear NOMEM, not a crash */
    CHECK(mgpu_mem_alloc(be, MGPU_MEM_PINNED, 0, (size_t)1 << 50, &b) == MGPU_ERR_NOMEM);
    CHECK(mgpu_mem_alloc(be, MGPU_MEM_PAGEABLE, 0, (size_t)1 << 50, &b) == MGPU_ERR_NOMEM);
    /* bad arguments */
    CHECK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 8, 64, &b) == MGPU_ERR_INVALID);
    CHECK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, -1, 64, &b) == MGPU_ERR_INVALID);
    CHECK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 0, 0, &b) == MGPU_ERR_INVALID);
    CHECK(mgpu_mem_alloc(be, MGPU_MEM_UNKNOWN, 0, 64, &b) == MGPU_ERR_INVALID);
    mgpu_backend_close(be);
}

int main(void)
{
    test_open_and_info();
    test_open_errors();
    test_alloc_kinds_and_attributes();
    test_oom();
    return tap_done();
}
