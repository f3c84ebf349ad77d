/* test_dev_sim_timing.c - the sim backend's virtual time: event times and
 * elapsed times against the model (PCIe, pageable, HBM, NVLink, staged
 * peer copies), link sharing, bidirectional traffic, event waits, the
 * legacy default stream's serialisation, hidden host syncs, gates and the
 * memory-latency model. */
#include "mgpu/dev.h"
#include "mgpu/topo.h"
#include "tap.h"
#include <math.h>
#include <string.h>

#define MB16 ((size_t)16 << 20)

static mgpu_backend *open_sim(const char *machine, const char *fault)
{
    mgpu_backend_config cfg = {MGPU_BACKEND_SIM, machine, fault};
    mgpu_backend *be = NULL;
    if (mgpu_backend_open(&cfg, &be) != MGPU_OK) CHECKF(0, "open %s: %s", machine, mgpu_error_message());
    return be;
}

static mgpu_buffer *alloc(mgpu_backend *be, mgpu_mem_kind k, int dev, size_t bytes)
{
    mgpu_buffer *b = NULL;
    CHECK_OK(mgpu_mem_alloc(be, k, dev, bytes, &b));
    return b;
}

static mgpu_event *ev(mgpu_backend *be, int dev)
{
    mgpu_event *e = NULL;
    CHECK_OK(mgpu_event_create(be, dev, MGPU_EVENT_TIMING, &e));
    return e;
}

/* GB/s (1e9) of one copy timed with events on a fresh stream of `exec`. */
static double copy_gbs(mgpu_backend *be, int exec, mgpu_buffer *dst, mgpu_buffer *src, size_t bytes,
                       mgpu_copy_engine how, double *ms_out)
{
    mgpu_stream *s = NULL;
    CHECK_OK(mgpu_stream_create(be, exec, 0, &s));
    mgpu_event *a = ev(be, exec), *b = ev(be, exec);
    double ms = 0;
    CHECK_OK(mgpu_event_record(a, s));
    CHECK_OK(mgpu_copy(s, dst, 0, src, 0, bytes, how));
    CHECK_OK(mgpu_event_record(b, s));
    CHECK_OK(mgpu_event_synchronize(b));
    CHECK_OK(mgpu_event_elapsed_ms(a, b, &ms));
    mgpu_event_destroy(a);
    mgpu_event_destroy(b);
    mgpu_stream_destroy(s);
    if (ms_out) *ms_out = ms;
    return ms > 0 ? (double)bytes / (ms * 1e6) : 0;
}

static int near(double x, double want, double rel) { return fabs(x - want) <= rel * fabs(want); }

static void test_host_device_rates(void)
{
    /* dgx-h200: the machine docs/gpu-results.md's reference figures were measured on */
    mgpu_backend *be = open_sim("dgx-h200", NULL);
    if (!be) return;
    mgpu_buffer *pin = alloc(be, MGPU_MEM_PINNED, -1, MB16), *pg = alloc(be, MGPU_MEM_PAGEABLE, -1, MB16);
    mgpu_buffer *d = alloc(be, MGPU_MEM_DEVICE, 0, MB16), *d2 = alloc(be, MGPU_MEM_DEVICE, 0, MB16);
    if (pin && pg && d && d2) {
        double ms, g;
        g = copy_gbs(be, 0, d, pin, MB16, MGPU_COPY_CE, &ms);
        CHECKF(near(g, 55.3, 0.01), "pinned H2D %.2f GB/s, want ~55.3", g);
        /* elapsed is latency + bytes / bandwidth, from the GPU's PCIe link */
        const mgpu_topo_gpu *tg = mgpu_topo_gpu_at(mgpu_backend_topo(be), 0);
        CHECK(tg->pcie_gbs > 60 && tg->pcie_gbs < 66);
        CHECKF(near(ms, (double)MB16 / 55.3e6, 0.01), "H2D of 16 MiB took %.4f ms", ms);
        g = copy_gbs(be, 0, pin, d, MB16, MGPU_COPY_CE, NULL);
        CHECKF(near(g, 55.2, 0.01), "pinned D2H %.2f GB/s", g);
        g = copy_gbs(be, 0, d, pg, MB16, MGPU_COPY_CE, NULL);
        CHECKF(near(g, 17.6, 0.01), "pageable H2D %.2f GB/s", g);
        g = copy_gbs(be, 0, pg, d, MB16, MGPU_COPY_CE, NULL);
        CHECKF(near(g, 13.4, 0.01), "pageable D2H %.2f GB/s", g);
        /* local D2D: 0.5 us + bytes at 2010 GB/s (4020 counting read+write) */
        g = copy_gbs(be, 0, d2, d, MB16, MGPU_COPY_CE, &ms);
        CHECKF(near(ms, 0.0005 + (double)MB16 / 2010e6, 0.01), "local D2D %.0f GB/s read+write", 2 * g);
        g = copy_gbs(be, 0, d, pin, MB16, MGPU_COPY_SM, NULL);
        CHECKF(g > 40 && g < 63, "SM H2D %.2f GB/s", g);
    }
    mgpu_mem_free(pin);
    mgpu_mem_free(pg);
    mgpu_mem_free(d);
    mgpu_mem_free(d2);
    mgpu_backend_close(be);
}

/* Peer copy GPU0 -> GPU1 with peer access enabled when possible. */
static double peer_gbs(const char *machine, const char *fault, int enable, mgpu_copy_engine how)
{
    mgpu_backend *be = open_sim(machine, fault);
    if (!be) return 0;
    double g = 0;
    size_t n = 16u << 20;
    mgpu_buffer *a = alloc(be, MGPU_MEM_DEVICE, 0, n), *b = alloc(be, MGPU_MEM_DEVICE, 1, n);
    if (enable) CHECK_OK(mgpu_peer_enable(be, 0, 1));
    if (a && b) g = copy_gbs(be, 0, b, a, n, how, NULL);
    mgpu_mem_free(a);
    mgpu_mem_free(b);
    mgpu_backend_close(be);
    return g;
}

static void test_peer_rates(void)
{
    double nv = peer_gbs("dgx-h100", NULL, 1, MGPU_COPY_CE);
    CHECKF(nv > 360 && nv < 400, "NV18 CE peer copy %.1f GB/s, want 370-390", nv);
    double nv_sm = peer_gbs("dgx-h100", NULL, 1, MGPU_COPY_SM);
    CHECKF(nv_sm > 360 && nv_sm < 400, "NV18 SM peer copy %.1f GB/s", nv_sm);
    double staged = peer_gbs("dgx-h100", "p2p-disabled", 0, MGPU_COPY_CE);
    CHECKF(staged > 0 && nv > 5 * staged, "NVLink %.1f vs p2p-disabled %.1f GB/s", nv, staged);
    double no_enable = peer_gbs("dgx-h100", NULL, 0, MGPU_COPY_CE);
    CHECKF(near(no_enable, staged, 0.01), "no peer access %.1f should equal staged %.1f", no_enable, staged);
    double pcie = peer_gbs("pcie-4gpu", NULL, 1, MGPU_COPY_CE);
    CHECKF(pcie > staged && pcie < 70, "PCIe P2P %.1f GB/s", pcie);
}

/* Two operations on two streams: total time from the first start to the
 * last end. legacy: both streams are the device's legacy default stream. */
static double two_ops_ms(mgpu_backend *be, int legacy, mgpu_buffer *d1, mgpu_buffer *s1, mgpu_buffer *d2,
                         mgpu_buffer *s2, size_t bytes)
{
    mgpu_stream *a = NULL, *b = NULL;
    CHECK_OK(mgpu_stream_create(be, 0, legacy, &a));
    CHECK_OK(mgpu_stream_create(be, 0, legacy, &b));
    mgpu_event *e0 = ev(be, 0), *ea = ev(be, 0), *eb = ev(be, 0);
    double ma = 0, mb = 0;
    CHECK_OK(mgpu_device_synchronize(be, 0));
    CHECK_OK(mgpu_event_record(e0, a));
    CHECK_OK(mgpu_copy(a, d1, 0, s1, 0, bytes, MGPU_COPY_CE));
    CHECK_OK(mgpu_copy(b, d2, 0, s2, 0, bytes, MGPU_COPY_CE));
    CHECK_OK(mgpu_event_record(ea, a));
    CHECK_OK(mgpu_event_record(eb, b));
    CHECK_OK(mgpu_event_elapsed_ms(e0, ea, &ma));
    CHECK_OK(mgpu_event_elapsed_ms(e0, eb, &mb));
    mgpu_event_destroy(e0);
    mgpu_event_destroy(ea);
    mgpu_event_destroy(eb);
    mgpu_stream_destroy(a);
    mgpu_stream_destroy(b);
    return ma > mb ? ma : mb;
}

static void test_overlap_and_serialisation(void)
{
    mgpu_backend *be = open_sim("dgx-h100", NULL);
    if (!be) return;
    size_t n = 16u << 20;
    mgpu_buffer *h1 = alloc(be, MGPU_MEM_PINNED, -1, n), *h2 = alloc(be, MGPU_MEM_PINNED, -1, n);
    mgpu_buffer *d1 = alloc(be, MGPU_MEM_DEVICE, 0, n), *d2 = alloc(be, MGPU_MEM_DEVICE, 0, n);
    if (h1 && h2 && d1 && d2) {
        double one = 0;
        copy_gbs(be, 0, d1, h1, n, MGPU_COPY_CE, &one);
        /* H2D and D2H on two non-blocking streams use both link directions */
        double bidir = two_ops_ms(be, 0, d1, h1, h2, d2, n);
        CHECKF(near(bidir, one, 0.02), "bidirectional %.4f ms vs one copy %.4f", bidir, one);
        /* two H2D on one link serialise: twice the time, same aggregate rate */
        double same = two_ops_ms(be, 0, d1, h1, d2, h2, n);
        CHECKF(near(same, 2 * one, 0.02), "two H2D %.4f ms vs %.4f", same, 2 * one);
        /* the legacy default stream serialises even H2D with D2H */
        double legacy = two_ops_ms(be, 1, d1, h1, h2, d2, n);
        CHECKF(legacy > 1.9 * one, "legacy default stream %.4f ms, want ~%.4f", legacy, 2 * one);
    }
    mgpu_mem_free(h1);
    mgpu_mem_free(h2);
    mgpu_mem_free(d1);
    mgpu_mem_free(d2);
    mgpu_backend_close(be);
}

static void test_events_and_host_syncs(void)
{
    mgpu_backend *be = open_sim("dgx-h100", NULL);
    if (!be) return;
    size_t n = 16u << 20;
    mgpu_buffer *h = alloc(be, MGPU_MEM_PINNED, -1, n), *pg = alloc(be, MGPU_MEM_PAGEABLE, -1, n);
    mgpu_buffer *d0 = alloc(be, MGPU_MEM_DEVICE, 0, n), *d1 = alloc(be, MGPU_MEM_DEVICE, 1, n);
    mgpu_stream *s0 = NULL, *s1 = NULL;
    CHECK_OK(mgpu_stream_create(be, 0, 0, &s0));
    CHECK_OK(mgpu_stream_create(be, 1, 0, &s1));
    mgpu_event *start = ev(be, 0), *done0 = ev(be, 0), *end1 = ev(be, 1), *plain = NULL;
    CHECK_OK(mgpu_event_create(be, 0, 0, &plain));
    if (h && pg && d0 && d1 && s0 && s1) {
        double one = 0, t = 0;
        copy_gbs(be, 0, d0, h, n, MGPU_COPY_CE, &one);
        /* GPU 1 waits on GPU 0's event: its copy starts after GPU 0's ends */
        CHECK_OK(mgpu_event_record(start, s0));
        CHECK_OK(mgpu_copy(s0, d0, 0, h, 0, n, MGPU_COPY_CE));
        CHECK_OK(mgpu_event_record(done0, s0));
        CHECK_OK(mgpu_stream_wait_event(s1, done0));
        CHECK_OK(mgpu_copy(s1, d1, 0, h, 0, n, MGPU_COPY_CE));
        CHECK_OK(mgpu_event_record(end1, s1));
        CHECK_OK(mgpu_event_elapsed_ms(start, end1, &t));
        CHECKF(near(t, 2 * one, 0.02), "waited copy ends at %.4f ms, want %.4f", t, 2 * one);
        CHECK_OK(mgpu_event_elapsed_ms(end1, start, &t));
        CHECK(t < 0);
        int done = 0;
        CHECK_OK(mgpu_event_query(end1, &done));
        CHECK(done == 1);
        CHECK_OK(mgpu_stream_query(s1, &done));
        CHECK(done == 1);
        /* elapsed needs timing events, both recorded */
        CHECK(mgpu_event_elapsed_ms(start, plain, &t) == MGPU_ERR_INVALID);
        mgpu_event *fresh = ev(be, 0);
        CHECK(mgpu_event_elapsed_ms(start, fresh, &t) == MGPU_ERR_INVALID);
        CHECK_OK(mgpu_stream_wait_event(s0, fresh)); /* never recorded: no-op */
        mgpu_event_destroy(fresh);
        CHECK(mgpu_event_record(end1, s0) == MGPU_ERR_INVALID); /* other device's event */

        /* a pageable D2H blocks the host, so the next copy on another
         * stream cannot start before it ends (a hidden host sync) */
        CHECK_OK(mgpu_device_synchronize(be, 0));
        CHECK_OK(mgpu_device_synchronize(be, 1));
        CHECK_OK(mgpu_event_record(start, s0));
        CHECK_OK(mgpu_copy(s0, pg, 0, d0, 0, n, MGPU_COPY_CE));
        CHECK_OK(mgpu_copy(s1, d1, 0, h, 0, n, MGPU_COPY_CE));
        CHECK_OK(mgpu_event_record(end1, s1));
        CHECK_OK(mgpu_event_elapsed_ms(start, end1, &t));
        double pageable_ms = (double)n / 13.4e6; /* modelled pageable D2H */
        CHECKF(t > pageable_ms * 0.9 + one * 0.9, "after a pageable D2H the next copy ends at %.4f ms", t);
        /* the same with pinned memory overlaps */
        CHECK_OK(mgpu_device_synchronize(be, 0));
        CHECK_OK(mgpu_device_synchronize(be, 1));
        CHECK_OK(mgpu_event_record(start, s0));
        CHECK_OK(mgpu_copy(s0, h, 0, d0, 0, n, MGPU_COPY_CE));
        CHECK_OK(mgpu_copy(s1, d1, 0, h, 0, n, MGPU_COPY_CE));
        CHECK_OK(mgpu_event_record(end1, s1));
        CHECK_OK(mgpu_event_elapsed_ms(start, end1, &t));
        CHECKF(near(t, one, 0.02), "pinned copies overlap: %.4f ms, want %.4f", t, one);

        /* a gate costs nothing in virtual time */
        mgpu_gate *g = NULL;
        CHECK_OK(mgpu_event_record(start, s0));
        CHECK_OK(mgpu_gate_hold(s0, 1000, &g));
        CHECK_OK(mgpu_copy(s0, d0, 0, h, 0, n, MGPU_COPY_CE));
        CHECK_OK(mgpu_event_record(done0, s0));
        CHECK_OK(mgpu_gate_open(g));
        CHECK_OK(mgpu_event_elapsed_ms(start, done0, &t));
        CHECKF(near(t, one, 0.001), "gated copy %.4f ms", t);
        CHECK(mgpu_gate_hold(s0, 0, &g) == MGPU_ERR_INVALID);

        /* fill time comes from HBM bandwidth (H100: 3350 GB/s spec) */
        mgpu_fill_spec fs = {MGPU_FILL_CONST, 0, 1.0};
        CHECK_OK(mgpu_event_record(start, s0));
        CHECK_OK(mgpu_fill(s0, d0, 0, n / 4, MGPU_F32, &fs));
        CHECK_OK(mgpu_event_record(done0, s0));
        CHECK_OK(mgpu_event_elapsed_ms(start, done0, &t));
        double fill_gbs = (double)n / (t * 1e6);
        CHECKF(fill_gbs > 2000 && fill_gbs < 3350, "fill %.0f GB/s", fill_gbs);
    }
    mgpu_event_destroy(start);
    mgpu_event_destroy(done0);
    mgpu_event_destroy(end1);
    mgpu_event_destroy(plain);
    mgpu_stream_destroy(s0);
    mgpu_stream_destroy(s1);
    mgpu_mem_free(h);
    mgpu_mem_free(pg);
    mgpu_mem_free(d0);
    mgpu_mem_free(d1);
    mgpu_backend_close(be);
}

static void test_memory_latency(void)
{
    mgpu_backend *be = open_sim("dgx-h100", NULL);
    if (!be) return;
    size_t n = 1u << 20;
    mgpu_buffer *d0 = alloc(be, MGPU_MEM_DEVICE, 0, n), *d1 = alloc(be, MGPU_MEM_DEVICE, 1, n);
    mgpu_buffer *h = alloc(be, MGPU_MEM_PINNED, -1, n), *pg = alloc(be, MGPU_MEM_PAGEABLE, -1, n);
    mgpu_stream *s = NULL;
    CHECK_OK(mgpu_stream_create(be, 0, 0, &s));
    if (d0 && d1 && h && pg && s) {
        double local = 0, peer = 0, host = 0;
        CHECK_OK(mgpu_memory_latency(s, d0, n, 1000, &local));
        CHECKF(local >= 400 && local <= 800, "HBM latency %.0f ns", local);
        CHECK(mgpu_memory_latency(s, d1, n, 1000, &peer) == MGPU_ERR_PEER);
        CHECK_OK(mgpu_peer_enable(be, 0, 1));
        CHECK_OK(mgpu_memory_latency(s, d1, n, 1000, &peer));
        CHECKF(peer > local && peer < 2500, "peer latency %.0f ns", peer);
        CHECK_OK(mgpu_memory_latency(s, h, n, 1000, &host));
        CHECKF(host >= 1000 && host <= 2500, "host latency %.0f ns", host);
        CHECK(mgpu_memory_latency(s, pg, n, 1000, &host) == MGPU_ERR_UNSUPPORTED);
        CHECK(mgpu_memory_latency(s, d0, 32, 1000, &host) == MGPU_ERR_INVALID);
        CHECK(mgpu_memory_latency(s, d0, n, 0, &host) == MGPU_ERR_INVALID);
        /* the stream's clock advanced by accesses x latency */
        mgpu_event *a = ev(be, 0), *b = ev(be, 0);
        double ms = 0;
        CHECK_OK(mgpu_event_record(a, s));
        CHECK_OK(mgpu_memory_latency(s, d0, n, 10000, &local));
        CHECK_OK(mgpu_event_record(b, s));
        CHECK_OK(mgpu_event_elapsed_ms(a, b, &ms));
        CHECKF(near(ms, local * 10000 / 1e6, 1e-6), "chase of 10000 loads took %.4f ms", ms);
        mgpu_event_destroy(a);
        mgpu_event_destroy(b);
    }
    mgpu_stream_destroy(s);
    mgpu_mem_free(d0);
    mgpu_mem_free(d1);
    mgpu_mem_free(h);
    mgpu_mem_free(pg);
    mgpu_backend_close(be);
}

int main(void)
{
    test_host_device_rates();
    test_peer_rates();
    test_overlap_and_serialisation();
    test_events_and_host_syncs();
    test_memory_latency();
    return tap_done();
}
