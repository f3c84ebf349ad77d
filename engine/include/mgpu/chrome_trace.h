/* chrome_trace.h - timeline spans written as a Chrome trace (JSON Object
 * Format: {"traceEvents": [...]}), which Perfetto and chrome://tracing open.
 *
 * Each span becomes a complete event (ph "X") with pid = rank, tid = the
 * stream's id on that rank, ts and dur in microseconds, cat = the kind; each
 * rank gets process_name "rank N" and each stream thread_name (its name:
 * "default", "comm", "s1"), with sort indices so ranks and streams appear in
 * order. Used by `mgpulab spmd --trace` and available to the lab framework. */
#ifndef MGPU_CHROME_TRACE_H
#define MGPU_CHROME_TRACE_H
#include <jansson.h>
#include "mgpu/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mgpu_chrome_trace mgpu_chrome_trace;

mgpu_result mgpu_chrome_trace_create(mgpu_chrome_trace **out);
void mgpu_chrome_trace_free(mgpu_chrome_trace *tr);

/* Add one "span" message body {stream, stream_id?, name, kind, start_us,
 * end_us} of `rank` (the body's own "rank" is used when rank < 0). A body
 * that is not a span (missing times, end before start) is refused with
 * MGPU_ERR_INVALID and nothing is added. */
mgpu_result mgpu_chrome_trace_add(mgpu_chrome_trace *tr, int rank, json_t *span);
size_t mgpu_chrome_trace_count(const mgpu_chrome_trace *tr);

/* The whole trace as a new JSON document; `other` (may be NULL) becomes
 * "otherData" (run facts: backend, machine, script). */
json_t *mgpu_chrome_trace_json(const mgpu_chrome_trace *tr, json_t *other);
/* Write it to `path` (through a temporary file renamed into place, so a
 * reader never sees half a trace). */
mgpu_result mgpu_chrome_trace_write(const mgpu_chrome_trace *tr, const char *path, json_t *other);

#ifdef __cplusplus
}
#endif
#endif
