/* copy_dispatch.c - nvbandwidth's measuring method for one dispatch of
 * concurrent copies: buffers filled and checksummed, the streams held by a
 * gate while loopCount copies are queued (launch latency stays out), events
 * around them, median (or mean) of the samples, data verified after. */
#include "bench/copy_dispatch.h"
#include "mgpu/host_memory.h"
#include "mgpu/mem.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*--- One dispatch: concurrent copies, gated, timed, verified -----------*/

void copy_dispatch_add(dispatch *d, int src_dev, int dst_dev, int issue_dev, size_t bytes)
{
    if (d->n >= (int)(sizeof d->spec / sizeof d->spec[0])) return; /* callers stay far below */
    d->spec[d->n++] = (copy_spec){src_dev, dst_dev, issue_dev, bytes};
}

/* The sim keeps every byte in host memory, and nobody wants the OOM killer
 * to end a benchmark: refuse a dispatch that needs more than the device
 * memory free, or (sim) more than half the free physical memory. */
static mgpu_result check_fits(mgpu_backend *be, const dispatch *d)
{
    int ndev = 0;
    MGPU_CHECK(mgpu_device_count(be, &ndev));
    unsigned long long host_total = 0;
    for (int dev = 0; dev < ndev; dev++) {
        unsigned long long need = 0;
        for (int i = 0; i < d->n; i++) {
            if (d->spec[i].src_dev == dev) need += d->spec[i].bytes;
            if (d->spec[i].dst_dev == dev) need += d->spec[i].bytes;
        }
        host_total += need;
        if (!need) continue;
        uint64_t free_b = 0, total_b = 0;
        MGPU_CHECK(mgpu_device_mem_info(be, dev, &free_b, &total_b));
        if (need > free_b)
            return mgpu_fail(MGPU_ERR_DEVICE_OOM,
                             "this testcase needs %.1f MiB on GPU %d but only %.1f MiB of its %.1f MiB are "
                             "free; use a smaller --bufferSize (-b, in MiB)",
                             need / 1048576.0, dev, free_b / 1048576.0, total_b / 1048576.0);
    }
    for (int i = 0; i < d->n; i++) {
        if (d->spec[i].src_dev < 0) host_total += d->spec[i].bytes;
        if (d->spec[i].dst_dev < 0) host_total += d->spec[i].bytes;
    }
    if (mgpu_backend_simulated(be)) {
        uint64_t avail = mgpu_host_available_bytes();
        if (host_total > avail / 2)
            return mgpu_fail(MGPU_ERR_NOMEM,
                             "the sim backend keeps every buffer in host memory: this testcase needs %.1f MiB "
                             "and this machine has %.1f MiB available (half of it may be used); use a smaller --bufferSize (-b, in MiB)",
                             host_total / 1048576.0, (double)avail / 1048576.0);
    }
    return MGPU_OK;
}

typedef struct run_state {
    int n;
    mgpu_buffer *src[64], *dst[64];
    mgpu_stream *stream[64];
    mgpu_event *start[64], *end[64], *warm[64], *total_end;
    mgpu_gate *gate[64];
    uint64_t want[64];
    double *samples;   /* (n + 1) * o->samples: per copy, then the total */
} run_state;

static void run_cleanup(run_state *st)
{
    /* Open any gate still held (error path) and drain the streams before
     * freeing buffers that queued copies may still use. */
    for (int i = 0; i < st->n; i++)
        if (st->gate[i]) {
            mgpu_gate_open(st->gate[i]);
            st->gate[i] = NULL;
        }
    for (int i = 0; i < st->n; i++)
        if (st->stream[i]) mgpu_stream_synchronize(st->stream[i]);
    mgpu_event_destroy(st->total_end);
    for (int i = 0; i < st->n; i++) {
        mgpu_event_destroy(st->start[i]);
        mgpu_event_destroy(st->end[i]);
        mgpu_event_destroy(st->warm[i]);
        mgpu_stream_destroy(st->stream[i]);
        mgpu_mem_free(st->src[i]);
        mgpu_mem_free(st->dst[i]);
    }
    free(st->samples);
}

static const char *where(int dev, char *buf, size_t len)
{
    if (dev < 0) snprintf(buf, len, "host");
    else snprintf(buf, len, "GPU %d", dev);
    return buf;
}

/* Plain allocations, as nvbandwidth's cudaMalloc: a fresh allocation per
 * test case at its own base, given back between cases (mgpu/mem.h). */
static mgpu_result alloc_side(mgpu_backend *be, int dev, size_t bytes, mgpu_buffer **out)
{
    return mgpu_mem_alloc_uncached(be, dev < 0 ? MGPU_MEM_PINNED : MGPU_MEM_DEVICE, dev < 0 ? -1 : dev, bytes, out);
}

/* One sample: hold every stream, queue warm-up copies, the start events,
 * loopCount copies and the end events, then open the gates, so the time
 * between the events holds copies only, not the host's enqueueing. */
static mgpu_result one_sample(run_state *st, const dispatch *d, const mgpu_copy_options *o,
                              mgpu_copy_engine how, report_mode mode, unsigned s)
{
    double gate_ms = o->gate_timeout_ms > 0 ? o->gate_timeout_ms : 60000.0;
    mgpu_fill_spec poison = {MGPU_FILL_RANDOM, 0xDEAD0000u + s, 0};
    for (int i = 0; i < st->n; i++) /* stale data from an earlier sample must not pass verification */
        MGPU_CHECK(mgpu_fill(st->stream[i], st->dst[i], 0, d->spec[i].bytes / 4, MGPU_I32, &poison));
    for (int i = 0; i < st->n; i++) {
        MGPU_CHECK(mgpu_gate_hold(st->stream[i], gate_ms, &st->gate[i]));
        for (int w = 0; w < MGPU_COPY_WARMUP; w++)
            MGPU_CHECK(mgpu_copy(st->stream[i], st->dst[i], 0, st->src[i], 0, d->spec[i].bytes, how));
    }
    /* The start waits until every stream is warm: otherwise, when copies
     * share a link, one stream's warm-up would be timed as another's copies
     * (nvbandwidth starts after stream 0's warm-up only). */
    for (int i = 1; i < st->n; i++) {
        MGPU_CHECK(mgpu_event_record(st->warm[i], st->stream[i]));
        MGPU_CHECK(mgpu_stream_wait_event(st->stream[0], st->warm[i]));
    }
    MGPU_CHECK(mgpu_event_record(st->start[0], st->stream[0]));
    for (int i = 1; i < st->n; i++) { /* every copy starts when the first does */
        MGPU_CHECK(mgpu_stream_wait_event(st->stream[i], st->start[0]));
        MGPU_CHECK(mgpu_event_record(st->start[i], st->stream[i]));
    }
    for (int i = 0; i < st->n; i++) {
        for (uint64_t l = 0; l < o->loop_count; l++)
            MGPU_CHECK(mgpu_copy(st->stream[i], st->dst[i], 0, st->src[i], 0, d->spec[i].bytes, how));
        MGPU_CHECK(mgpu_event_record(st->end[i], st->stream[i]));
        if (mode == REPORT_TOTAL && i > 0) MGPU_CHECK(mgpu_stream_wait_event(st->stream[0], st->end[i]));
    }
    if (mode == REPORT_TOTAL) MGPU_CHECK(mgpu_event_record(st->total_end, st->stream[0]));
    for (int i = 0; i < st->n; i++) {
        mgpu_gate *g = st->gate[i];
        st->gate[i] = NULL;
        MGPU_CHECK(mgpu_gate_open(g));
    }
    for (int i = 0; i < st->n; i++) MGPU_CHECK(mgpu_stream_synchronize(st->stream[i]));

    char a[16], b[16];
    for (int i = 0; i < st->n && !o->skip_verify; i++) {
        if (o->tamper) MGPU_CHECK(o->tamper(o->tamper_ctx, st->stream[i], st->dst[i], d->spec[i].bytes));
        uint64_t got = 0;
        MGPU_CHECK(mgpu_checksum(st->stream[i], st->dst[i], 0, d->spec[i].bytes / 4, MGPU_I32, &got));
        if (got != st->want[i])
            return mgpu_fail(MGPU_ERR_INTERNAL,
                             "data verification failed: after the %s copy %s -> %s (%zu bytes, sample %u) "
                             "the destination's checksum is %016llx, the source's %016llx; the copy "
                             "moved wrong data, so no bandwidth is reported",
                             mgpu_copy_engine_name(how), where(d->spec[i].src_dev, a, sizeof a),
                             where(d->spec[i].dst_dev, b, sizeof b), d->spec[i].bytes, s + 1,
                             (unsigned long long)got, (unsigned long long)st->want[i]);
    }

    unsigned ns = o->samples;
    for (int i = 0; i < st->n; i++) {
        double ms = 0;
        MGPU_CHECK(mgpu_event_elapsed_ms(st->start[i], st->end[i], &ms));
        if (!(ms > 0))
            return mgpu_fail(MGPU_ERR_INTERNAL, "the events around %llu copies measured %.6f ms; cannot "
                             "compute a bandwidth", (unsigned long long)o->loop_count, ms);
        st->samples[i * ns + s] = (double)d->spec[i].bytes * (double)o->loop_count / (ms * 1e-3) / 1e9;
    }
    if (mode == REPORT_TOTAL) {
        double ms = 0, bytes = 0;
        MGPU_CHECK(mgpu_event_elapsed_ms(st->start[0], st->total_end, &ms));
        for (int i = 0; i < st->n; i++) bytes += (double)d->spec[i].bytes;
        if (!(ms > 0))
            return mgpu_fail(MGPU_ERR_INTERNAL, "the events around the copies measured %.6f ms", ms);
        st->samples[st->n * ns + s] = bytes * (double)o->loop_count / (ms * 1e-3) / 1e9;
    }
    return MGPU_OK;
}

/* Measure a dispatch: out[0] is the first copy's bandwidth (REPORT_FIRST),
 * the total (REPORT_TOTAL), or out[i] each copy's (REPORT_EACH), in GB/s. */
mgpu_result copy_measure(mgpu_backend *be, const dispatch *d, const mgpu_copy_options *o,
                           mgpu_copy_engine how, report_mode mode, double *out)
{
    run_state st;
    memset(&st, 0, sizeof st);
    mgpu_result r = MGPU_OK;
    char saved[512] = "";
    MGPU_CHECK(check_fits(be, d));
    st.n = d->n;
    st.samples = calloc((size_t)(d->n + 1) * o->samples, sizeof *st.samples);
    if (!st.samples) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory");
    for (int i = 0; i < d->n; i++) {
        const copy_spec *c = &d->spec[i];
        MGPU_CHECKGOTO(alloc_side(be, c->src_dev, c->bytes, &st.src[i]), r, done);
        MGPU_CHECKGOTO(alloc_side(be, c->dst_dev, c->bytes, &st.dst[i]), r, done);
        MGPU_CHECKGOTO(mgpu_stream_create(be, c->issue_dev, 0, &st.stream[i]), r, done);
        MGPU_CHECKGOTO(mgpu_event_create(be, c->issue_dev, MGPU_EVENT_TIMING, &st.start[i]), r, done);
        MGPU_CHECKGOTO(mgpu_event_create(be, c->issue_dev, MGPU_EVENT_TIMING, &st.end[i]), r, done);
        MGPU_CHECKGOTO(mgpu_event_create(be, c->issue_dev, 0, &st.warm[i]), r, done);
        mgpu_fill_spec fill = {MGPU_FILL_RANDOM, 0xC0FFEEu + 7919u * (uint64_t)i, 0};
        MGPU_CHECKGOTO(mgpu_fill(st.stream[i], st.src[i], 0, c->bytes / 4, MGPU_I32, &fill), r, done);
        MGPU_CHECKGOTO(mgpu_checksum(st.stream[i], st.src[i], 0, c->bytes / 4, MGPU_I32, &st.want[i]), r, done);
    }
    MGPU_CHECKGOTO(mgpu_event_create(be, d->spec[0].issue_dev, MGPU_EVENT_TIMING, &st.total_end), r, done);
    for (unsigned s = 0; s < o->samples; s++) MGPU_CHECKGOTO(one_sample(&st, d, o, how, mode, s), r, done);

    unsigned ns = o->samples;
    if (mode == REPORT_TOTAL) out[0] = mgpu_copy_statistic(st.samples + (size_t)d->n * ns, ns, o->use_mean);
    else if (mode == REPORT_FIRST) out[0] = mgpu_copy_statistic(st.samples, ns, o->use_mean);
    else
        for (int i = 0; i < d->n; i++) out[i] = mgpu_copy_statistic(st.samples + (size_t)i * ns, ns, o->use_mean);
done:
    if (r != MGPU_OK) snprintf(saved, sizeof saved, "%s", mgpu_error_message());
    run_cleanup(&st);
    if (r != MGPU_OK) return mgpu_fail(r, "%s", saved); /* cleanup calls must not hide the cause */
    return MGPU_OK;
}

