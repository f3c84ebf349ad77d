/* log_keep.c - head and tail of a run's log lines (mgpu/log_keep.h). */
#include "mgpu/log_keep.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mgpu_log_keep_init(mgpu_log_keep *k)
{
    memset(k, 0, sizeof *k);
    k->head = json_array();
}

static size_t text_bytes(json_t *e) { return strlen(json_string_value(json_object_get(e, "text"))); }

void mgpu_log_keep_add(mgpu_log_keep *k, int rank, const char *text)
{
    if (!text || !k->head) return;
    size_t n = strlen(text);
    json_t *e = json_pack("{s:i, s:s}", "rank", rank, "text", text);
    if (!e) return; /* not UTF-8 or no memory: the line is not kept */
    if (k->dropped == 0 && k->tail_n == 0 && json_array_size(k->head) < MGPU_LOG_KEEP_LINES &&
        k->head_bytes + n <= MGPU_LOG_KEEP_BYTES) {
        json_array_append_new(k->head, e);
        k->head_bytes += n;
        return;
    }
    if (!k->tail && !(k->tail = calloc(MGPU_LOG_KEEP_LINES, sizeof *k->tail))) {
        json_decref(e);
        k->dropped++;
        return;
    }
    /* make room: the oldest tail lines fall out, counted */
    while (k->tail_n > 0 && (k->tail_n == MGPU_LOG_KEEP_LINES || k->tail_bytes + n > MGPU_LOG_KEEP_BYTES)) {
        json_t *old = k->tail[k->tail_first];
        k->tail_bytes -= text_bytes(old);
        json_decref(old);
        k->tail_first = (k->tail_first + 1) % MGPU_LOG_KEEP_LINES;
        k->tail_n--;
        k->dropped++;
    }
    if (n > MGPU_LOG_KEEP_BYTES) { /* cannot happen with lines cut at 64 KiB; never keep it whole */
        json_decref(e);
        k->dropped++;
        return;
    }
    k->tail[(k->tail_first + k->tail_n) % MGPU_LOG_KEEP_LINES] = e;
    k->tail_n++;
    k->tail_bytes += n;
}

json_t *mgpu_log_keep_json(const mgpu_log_keep *k)
{
    json_t *out = json_array();
    if (!out || !k->head) return out;
    size_t i;
    json_t *e;
    json_array_foreach(k->head, i, e) json_array_append(out, e);
    if (k->dropped) {
        char line[160];
        snprintf(line, sizeof line, "... %zu log line%s left out here (a run keeps its first and last %d lines, "
                 "at most %u MiB each) ...", k->dropped, k->dropped == 1 ? "" : "s", MGPU_LOG_KEEP_LINES,
                 MGPU_LOG_KEEP_BYTES >> 20);
        json_array_append_new(out, json_pack("{s:i, s:s}", "rank", -1, "text", line));
    }
    for (i = 0; i < k->tail_n; i++) json_array_append(out, k->tail[(k->tail_first + i) % MGPU_LOG_KEEP_LINES]);
    return out;
}

void mgpu_log_keep_free(mgpu_log_keep *k)
{
    json_decref(k->head);
    for (size_t i = 0; k->tail && i < k->tail_n; i++) json_decref(k->tail[(k->tail_first + i) % MGPU_LOG_KEEP_LINES]);
    free(k->tail);
    memset(k, 0, sizeof *k);
}
