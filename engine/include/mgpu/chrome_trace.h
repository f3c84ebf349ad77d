/* chrome_trace.h - timeline spans written as a Chrome trace (JSON Object
 * Format: {"traceEvents": [...]}), which Perfetto and chrome://tracing open.
 *
 * Each span becomes a complete event (ph "X") with pid = rank, tid = the
 * stream's id on that rank, ts and dur in microseconds, cat = the kind; each
 * rank gets process_name "rank N" and each stream thread_name (its name:
 * "default", "comm", "s1"), with sort indices so ranks and streams appear in
 * order. Used by `mgpulab spmd --trace` and available to the lab framework.
 * The trace is written as it grows: a run of any length holds no more than
 * the lanes' names, and the file stops at a stated number of spans. */
#ifndef MGPU_CHROME_TRACE_H
#define MGPU_CHROME_TRACE_H
#include <jansson.h>
#include "mgpu/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mgpu_chrome_trace mgpu_chrome_trace;

/* Spans a trace keeps: the first this many, the rest counted as dropped and
 * said in the file's otherData and by the caller. A span is about 250 bytes
 * of JSON: 62 MB, which Perfetto opens at once (600k spans made a 163 MB
 * file, and kept in memory until the end, 2.2 GB, issue 34). */
#define MGPU_CHROME_TRACE_MAX_SPANS 250000
/* (rank, stream) lanes a trace names; spans of more are dropped too. */
#define MGPU_CHROME_TRACE_MAX_LANES 4096

/* A trace streamed to `path` as spans arrive: each is written at once and
 * nothing of it kept but the lanes' names, into a temporary file beside
 * `path` that mgpu_chrome_trace_close renames into place (a reader never
 * sees half a trace; never over a device node or through a symbolic link,
 * mgpu/file.h). max_spans 0 = MGPU_CHROME_TRACE_MAX_SPANS. Fails, naming
 * the file, when it cannot be written. */
mgpu_result mgpu_chrome_trace_open(const char *path, long max_spans, mgpu_chrome_trace **out);
/* Abandon a trace: its temporary file is removed. NULL is a no-op. */
void mgpu_chrome_trace_free(mgpu_chrome_trace *tr);

/* Add one "span" message body {stream, stream_id?, name, kind, start_us,
 * end_us} of `rank` (the body's own "rank" is used when rank < 0). A body
 * that is not a span (missing times, end before start) is refused with
 * MGPU_ERR_INVALID and nothing is added; a span past the caps is counted
 * in mgpu_chrome_trace_dropped (MGPU_OK). */
mgpu_result mgpu_chrome_trace_add(mgpu_chrome_trace *tr, int rank, json_t *span);
/* Spans written, and spans dropped past the caps. */
size_t mgpu_chrome_trace_count(const mgpu_chrome_trace *tr);
long mgpu_chrome_trace_dropped(const mgpu_chrome_trace *tr);
long mgpu_chrome_trace_max_spans(const mgpu_chrome_trace *tr);

/* End the trace: `other` (may be NULL; run facts: backend, machine,
 * script) becomes "otherData", with "dropped_spans" and why when spans
 * were dropped; the file is renamed into place and tr freed, also on
 * failure (which names the file). */
mgpu_result mgpu_chrome_trace_close(mgpu_chrome_trace *tr, json_t *other);

#ifdef __cplusplus
}
#endif
#endif
