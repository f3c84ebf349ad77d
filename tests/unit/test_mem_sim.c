/* test_mem_sim.c - device memory on the sim through the caching allocator:
 * statistics, PyTorch's out-of-memory sentence, per-stream reuse, phantom
 * buffers (counted like real ones, timed, never read), expandable segments
 * mapped page by page, and the plain backend's statistics. */
#include "mgpu/dev.h"
#include "mgpu/mem.h"
#include "tap.h"
#include <stdlib.h>
#include <string.h>

#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)

static mgpu_backend *open_sim(const char *machine, const char *conf)
{
    mgpu_backend_config cfg = {MGPU_BACKEND_SIM, machine, NULL, conf};
    mgpu_backend *be = NULL;
    mgpu_result r = mgpu_backend_open(&cfg, &be);
    CHECKF(r == MGPU_OK, "open %s (%s): %s", machine, conf ? conf : "default", mgpu_error_message());
    return r == MGPU_OK ? be : NULL;
}

static void test_stats_and_stream_reuse(void)
{
    mgpu_backend *be = open_sim("dgx-h100", NULL);
    if (!be) return;
    CHECK(mgpu_memory_conf(be)->caching == 1); /* native by default, as PyTorch */
    mgpu_stream *s = NULL;
    CHECK_OK(mgpu_stream_create(be, 0, 0, &s));
    mgpu_buffer *a = NULL, *b = NULL;
    CHECK_OK(mgpu_mem_alloc_stream(s, 3 * MiB, &a));
    CHECK_OK(mgpu_mem_alloc_stream(s, 1000, &b));
    if (!a || !b) return;
    memset(a->ptr, 1, a->bytes); /* real memory, writable end to end */
    mgpu_memory_stats st;
    CHECK_OK(mgpu_memory_stats_get(be, 0, &st));
    CHECK(st.caching == 1);
    CHECK(st.allocated_bytes.current == (int64_t)(3 * MiB + 1024));
    CHECK(st.requested_bytes.current == (int64_t)(3 * MiB + 1000));
    CHECK(st.reserved_bytes.current == (int64_t)(22 * MiB)); /* a 20 MiB and a 2 MiB segment */
    CHECK(st.segment.current == 2 && st.active.current == 2);
    uint64_t fr, tot;
    CHECK_OK(mgpu_device_mem_info(be, 0, &fr, &tot));
    CHECK(tot - fr == 22 * MiB); /* the device sees the segments */
    void *at = a->ptr;
    mgpu_mem_free(a);
    CHECK_OK(mgpu_mem_alloc_stream(s, 3 * MiB, &a)); /* the same stream gets it back */
    CHECK(a && a->ptr == at);
    mgpu_mem_free(a);
    mgpu_mem_free(b);
    CHECK_OK(mgpu_memory_stats_get(be, 0, &st));
    CHECK(st.allocated_bytes.current == 0 && st.allocated_bytes.peak == (int64_t)(3 * MiB + 1024));
    CHECK(st.reserved_bytes.current == (int64_t)(22 * MiB)); /* cached */
    CHECK_OK(mgpu_memory_reset_peak(be, 0));
    CHECK_OK(mgpu_memory_stats_get(be, 0, &st));
    CHECK(st.allocated_bytes.peak == 0);
    CHECK_OK(mgpu_memory_empty_cache(be, 0));
    CHECK_OK(mgpu_memory_stats_get(be, 0, &st));
    CHECK(st.reserved_bytes.current == 0);
    CHECK_OK(mgpu_device_mem_info(be, 0, &fr, &tot));
    CHECK(fr == tot);
    CHECK(mgpu_memory_stats_get(be, 9, &st) == MGPU_ERR_INVALID);
    mgpu_stream_destroy(s);
    mgpu_backend_close(be);
}

static void test_oom_sentence(void)
{
    mgpu_backend *be = open_sim("dgx-h100", NULL);
    if (!be) return;
    uint64_t fr, tot;
    CHECK_OK(mgpu_device_mem_info(be, 0, &fr, &tot));
    /* 70 GiB of phantom weights, one real buffer, then more than is left */
    mgpu_buffer *ph = NULL, *real = NULL, *x = NULL;
    CHECK_OK(mgpu_mem_alloc_phantom(be, 0, NULL, 70 * GiB, 0, &ph));
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 0, 5 * MiB, &real));
    CHECK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 0, 20 * GiB, &x) == MGPU_ERR_DEVICE_OOM && x == NULL);
    const char *m = mgpu_error_message();
    CHECKF(strstr(m, "out of memory on simulated GPU 0. Tried to allocate 20.00 GiB (21474836480 bytes)") != NULL, "%s", m);
    CHECKF(strstr(m, "GPU 0 has a total capacity of ") != NULL && strstr(m, " is free") != NULL, "%s", m);
    CHECKF(strstr(m, "Of the allocated memory 70.00 GiB is allocated by mgpulab (70.00 GiB of it phantom)") != NULL,
           "%s", m);
    CHECKF(strstr(m, "15.00 MiB is reserved by mgpulab but unallocated") != NULL, "%s", m);
    CHECKF(strstr(m, "the largest free block is 15.00 MiB") != NULL, "%s", m);
    CHECKF(strstr(m, "MGPU_ALLOC_CONF=expandable_segments:True") != NULL, "%s", m);
    mgpu_memory_stats st;
    CHECK_OK(mgpu_memory_stats_get(be, 0, &st));
    CHECK(st.num_ooms == 1);
    CHECK(st.phantom_bytes.current == (int64_t)(70 * GiB));
    mgpu_mem_free(real);
    mgpu_mem_free(ph);
    mgpu_backend_close(be);
}

/* With expandable segments on, the sentence must not tell the learner to
 * turn them on (issue 34, second hostile pass: it did). */
static void test_oom_expandable(void)
{
    mgpu_backend *be = open_sim("dgx-h100", "backend:native,expandable_segments:True");
    if (!be) return;
    mgpu_buffer *x = NULL;
    CHECK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 0, 200 * GiB, &x) == MGPU_ERR_DEVICE_OOM && x == NULL);
    const char *m = mgpu_error_message();
    CHECKF(strstr(m, "try setting MGPU_ALLOC_CONF=expandable_segments:True") == NULL, "%s", m);
    CHECKF(strstr(m, "Expandable segments are already on") != NULL, "%s", m);
    mgpu_backend_close(be);
}

static void test_phantom(void)
{
    mgpu_backend *be = open_sim("dgx-h100", NULL);
    if (!be) return;
    mgpu_stream *s = NULL;
    mgpu_event *e0 = NULL, *e1 = NULL;
    CHECK_OK(mgpu_stream_create(be, 0, 0, &s));
    CHECK_OK(mgpu_event_create(be, 0, MGPU_EVENT_TIMING, &e0));
    CHECK_OK(mgpu_event_create(be, 0, MGPU_EVENT_TIMING, &e1));
    mgpu_buffer *p = NULL, *q = NULL, *r = NULL;
    /* bigger than this machine's RAM would allow for real memory */
    CHECK_OK(mgpu_mem_alloc_phantom(be, 0, s, 60 * GiB, 0, &p));
    CHECK_OK(mgpu_mem_alloc_phantom(be, 0, s, 1 * GiB, 0, &q));
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 0, 1 * MiB, &r));
    if (!p || !q || !r || !s || !e1) return;
    CHECK(p->phantom == 1 && r->phantom == 0);
    CHECK(mgpu_buffer_host_view(p) == NULL);
    uint64_t sum = 0;
    CHECK(mgpu_checksum(s, p, 0, 16, MGPU_F32, &sum) == MGPU_ERR_INVALID);
    CHECK(strstr(mgpu_error_message(), "phantom") != NULL);
    CHECK(mgpu_copy(s, r, 0, p, 0, 1024, MGPU_COPY_CE) == MGPU_ERR_INVALID); /* reading it */
    CHECK(strstr(mgpu_error_message(), "phantom") != NULL);
    /* writing into it and phantom-to-phantom: modelled time, no data */
    CHECK_OK(mgpu_event_record(e0, s));
    CHECK_OK(mgpu_copy(s, q, 0, p, 0, 1 * GiB, MGPU_COPY_CE));
    CHECK_OK(mgpu_copy(s, q, 0, r, 0, 1 * MiB, MGPU_COPY_CE));
    mgpu_fill_spec fs = {.kind = MGPU_FILL_CONST, .value = 1.0};
    CHECK_OK(mgpu_fill(s, p, 0, 1u << 20, MGPU_F32, &fs));
    CHECK_OK(mgpu_event_record(e1, s));
    double ms = 0;
    CHECK_OK(mgpu_event_elapsed_ms(e0, e1, &ms));
    CHECK(ms > 0.1); /* 1 GiB device to device takes its modelled time */
    mgpu_ipc_handle h;
    CHECK(mgpu_ipc_export(p, &h) == MGPU_ERR_INVALID);
    mgpu_memory_stats st;
    CHECK_OK(mgpu_memory_stats_get(be, 0, &st));
    CHECK(st.phantom_bytes.current == (int64_t)(61 * GiB));
    CHECK(st.allocated_bytes.current == (int64_t)(61 * GiB + 1 * MiB));
    mgpu_mem_free(p);
    mgpu_mem_free(q);
    mgpu_mem_free(r);
    mgpu_event_destroy(e0);
    mgpu_event_destroy(e1);
    mgpu_stream_destroy(s);
    mgpu_backend_close(be);
}

/* Lab 9 on the sim: phantom filler takes all but ~104 MiB of the GPU;
 * twenty real 5 MiB tensors fill five 20 MiB segments; freeing every other
 * one leaves 50 MiB free in 5 MiB holes between live tensors, so 12 MiB
 * fails - unless expandable segments unmap the holes and map it whole. */
static void fragment_then_ask(const char *conf, int want_ok)
{
    mgpu_backend *be = open_sim("dgx-h100", conf);
    if (!be) return;
    uint64_t fr, tot;
    CHECK_OK(mgpu_device_mem_info(be, 0, &fr, &tot));
    mgpu_stream *s = NULL;
    CHECK_OK(mgpu_stream_create(be, 0, 0, &s));
    mgpu_buffer *filler = NULL;
    size_t fill = ((size_t)tot - 104 * MiB) / (2 * MiB) * (2 * MiB);
    CHECK_OK(mgpu_mem_alloc_phantom(be, 0, NULL, fill, 0, &filler));
    mgpu_buffer *t[20] = {0};
    int n = 0;
    while (n < 20 && mgpu_mem_alloc_stream(s, 5 * MiB, &t[n]) == MGPU_OK) n++;
    CHECKF(n == 20, "%s: %d of 20 tensors of 5 MiB fit in 100 MiB (%s)", conf, n, mgpu_error_message());
    for (int i = 0; i < n; i += 2) {
        mgpu_mem_free(t[i]);
        t[i] = NULL;
    }
    mgpu_buffer *big = NULL;
    mgpu_result r = mgpu_mem_alloc_stream(s, 12 * MiB, &big);
    if (want_ok) {
        CHECKF(r == MGPU_OK, "%s: %s", conf, mgpu_error_message());
    } else {
        CHECK(r == MGPU_ERR_DEVICE_OOM);
        CHECKF(strstr(mgpu_error_message(), "50.00 MiB is reserved by mgpulab but unallocated") != NULL, "%s",
               mgpu_error_message());
        CHECKF(strstr(mgpu_error_message(), "the largest free block is 5.00 MiB") != NULL, "%s", mgpu_error_message());
    }
    mgpu_mem_free(big);
    for (int i = 0; i < n; i++) mgpu_mem_free(t[i]);
    mgpu_mem_free(filler);
    mgpu_stream_destroy(s);
    mgpu_backend_close(be);
}

static void test_fragmentation(void)
{
    fragment_then_ask("backend:native", 0);
    fragment_then_ask("backend:native,expandable_segments:True", 1);
}

static void test_plain(void)
{
    mgpu_backend *be = open_sim("dgx-h100", "backend:plain");
    if (!be) return;
    mgpu_buffer *a = NULL, *p = NULL;
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 1, 1000, &a));
    CHECK_OK(mgpu_mem_alloc_phantom(be, 1, NULL, 2 * GiB, 0, &p));
    mgpu_memory_stats st;
    CHECK_OK(mgpu_memory_stats_get(be, 1, &st));
    CHECK(st.caching == 0);
    CHECK(st.allocated_bytes.current == (int64_t)(2 * GiB + 1000)); /* exact: nothing rounded */
    CHECK(st.reserved_bytes.current == st.allocated_bytes.current);
    CHECK(st.phantom_bytes.current == (int64_t)(2 * GiB) && st.segment.current == 2);
    mgpu_buffer *x = NULL;
    CHECK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 1, 200 * GiB, &x) == MGPU_ERR_DEVICE_OOM);
    CHECKF(strstr(mgpu_error_message(), "nothing is cached (MGPU_ALLOC_CONF=backend:plain)") != NULL, "%s",
           mgpu_error_message());
    mgpu_mem_free(a);
    mgpu_mem_free(p);
    CHECK_OK(mgpu_memory_stats_get(be, 1, &st));
    CHECK(st.allocated_bytes.current == 0 && st.allocated_bytes.peak == (int64_t)(2 * GiB + 1000));
    mgpu_backend_close(be);

    mgpu_backend_config cfg = {MGPU_BACKEND_SIM, "dgx-h100", NULL, "backend:nope"};
    CHECK(mgpu_backend_open(&cfg, &be) == MGPU_ERR_INVALID);
    CHECK(strstr(mgpu_error_message(), "MGPU_ALLOC_CONF") != NULL);
    setenv("MGPU_ALLOC_CONF", "expandable_segments:True", 1);
    be = open_sim("dgx-h100", NULL);
    if (be) CHECK(mgpu_memory_conf(be)->expandable_segments == 1);
    mgpu_backend_close(be);
    unsetenv("MGPU_ALLOC_CONF");
}

int main(void)
{
    test_stats_and_stream_reuse();
    test_oom_sentence();
    test_oom_expandable();
    test_phantom();
    test_fragmentation();
    test_plain();
    return tap_done();
}
