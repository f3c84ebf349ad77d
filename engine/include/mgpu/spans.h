/* spans.h - a per-rank timeline recorder: spans (kernel, copy, collective,
 * wait) per stream, timed with device events against a zero per device.
 *
 * mgpu_spans_begin records a timing event on the stream before an operation
 * is queued, mgpu_spans_end one after it; mgpu_spans_flush turns the spans
 * whose end event has completed into {stream, kind, name, start_us, end_us}
 * relative to the recorder's zero (a base event recorded when the recorder
 * was created, on the stream it was given). Events are pooled and reused,
 * and at most MGPU_SPANS_MAX_PENDING spans wait for a flush: beyond that
 * new spans are dropped and counted, never blocking the work they time.
 *
 * Events cost a little per operation, so recording is opt-in (the spmd job
 * turns it on when the coordinator asks); benchmarks never use it.
 *
 * Time across devices: CUDA measures elapsed time only between events of one
 * device, so each device gets its own base event, recorded on an idle
 * private stream when the first span on that device begins. Its offset from
 * the zero is the modelled time between the bases on sim (one virtual clock
 * per process), and the host clock's time between recording them on cuda
 * (an idle stream runs an event at once, so the error is the launch latency,
 * a few microseconds). */
#ifndef MGPU_SPANS_H
#define MGPU_SPANS_H
#include "mgpu/dev.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MGPU_SPANS_MAX_PENDING 4096

typedef enum mgpu_span_kind {
    MGPU_SPAN_KERNEL = 0,
    MGPU_SPAN_COPY,
    MGPU_SPAN_COLLECTIVE,
    MGPU_SPAN_WAIT
} mgpu_span_kind;

/* "kernel", "copy", "collective", "wait" (the timeline pane's kinds). */
const char *mgpu_span_kind_name(mgpu_span_kind k);

typedef struct mgpu_spans mgpu_spans;

/* One finished span, borrowed for the callback's duration. */
typedef struct mgpu_span {
    int stream;               /* small id per stream of this recorder, from 0 (the zero's stream) */
    const char *stream_name;  /* "default", "comm", "s1", "s2@gpu1", ... */
    mgpu_span_kind kind;
    const char *name;         /* "all_reduce 4 MiB" */
    double start_us, end_us;  /* from the recorder's zero */
} mgpu_span;

typedef void (*mgpu_span_cb)(void *ctx, const mgpu_span *s);

/* A recorder whose zero is an event recorded now on `zero_stream` (named
 * `zero_name`, e.g. "default"). `max_pending` 0 means MGPU_SPANS_MAX_PENDING. */
mgpu_result mgpu_spans_create(mgpu_backend *be, mgpu_stream *zero_stream, const char *zero_name, int max_pending,
                              mgpu_spans **out);
/* Frees every event and private stream; pending spans are dropped. */
void mgpu_spans_destroy(mgpu_spans *rec);

/* Name a stream before its first span ("comm", "comm tp"); streams never
 * named are "sN" (with "@gpuD" when not on the zero's device). */
mgpu_result mgpu_spans_name_stream(mgpu_spans *rec, mgpu_stream *s, const char *name);
/* The stream is being destroyed: a later stream at the same address is a
 * new stream with its own id. Its ended spans stay pending; one begun but
 * not ended is dropped when its holder ends or cancels it (the token stays
 * the holder's until then). */
void mgpu_spans_forget_stream(mgpu_spans *rec, mgpu_stream *s);

/* Record the start of a span on `s`; *token = 0 when the span was dropped
 * (too many pending, or recording failed: see mgpu_spans_dropped). Never
 * fails the caller's operation: a recorder problem only loses spans. */
void mgpu_spans_begin(mgpu_spans *rec, mgpu_stream *s, mgpu_span_kind kind, const char *name, int *token);
/* Record the end (on the stream of the begin). Token 0 is a no-op. */
void mgpu_spans_end(mgpu_spans *rec, int token);
/* The operation failed or was never queued: forget the span. */
void mgpu_spans_cancel(mgpu_spans *rec, int token);
/* Replace a span's name before it ends (group calls learn theirs late). */
void mgpu_spans_rename(mgpu_spans *rec, int token, const char *name);

/* Hand every span whose end event has completed to cb, oldest first, and
 * give its events back to the pool; spans still running stay pending.
 * Never waits. */
mgpu_result mgpu_spans_flush(mgpu_spans *rec, mgpu_span_cb cb, void *ctx);
/* Wait for every ended span's events, then flush. Spans begun but not
 * ended are left pending. */
mgpu_result mgpu_spans_drain(mgpu_spans *rec, mgpu_span_cb cb, void *ctx);

int mgpu_spans_pending(const mgpu_spans *rec);
/* Spans lost: the pending cap was reached, or an event could not be
 * created or recorded. */
long mgpu_spans_dropped(const mgpu_spans *rec);

#ifdef __cplusplus
}
#endif
#endif
