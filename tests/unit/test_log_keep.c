/* test_log_keep.c - a run's kept log lines are bounded (issue 16 item 7:
 * `spmd --json` kept 2 ranks x 1M lines, 1.1 GB): the first and the last
 * lines stay, in order, and one line says how many were left out. */
#include "mgpu/log_keep.h"
#include "tap.h"
#include <stdio.h>
#include <string.h>

static const char *text_at(json_t *a, size_t i) { return json_string_value(json_object_get(json_array_get(a, i), "text")); }

int main(void)
{
    /* few lines: all kept, no marker */
    mgpu_log_keep k;
    mgpu_log_keep_init(&k);
    for (int i = 0; i < 10; i++) {
        char line[32];
        snprintf(line, sizeof line, "line %d", i);
        mgpu_log_keep_add(&k, i % 2, line);
    }
    json_t *a = mgpu_log_keep_json(&k);
    CHECK(json_array_size(a) == 10);
    CHECK(strcmp(text_at(a, 9), "line 9") == 0);
    CHECK(json_integer_value(json_object_get(json_array_get(a, 3), "rank")) == 1);
    json_decref(a);
    mgpu_log_keep_free(&k);

    /* a flood: head and tail kept, the middle counted */
    const int total = 4 * MGPU_LOG_KEEP_LINES + 17;
    mgpu_log_keep_init(&k);
    for (int i = 0; i < total; i++) {
        char line[32];
        snprintf(line, sizeof line, "line %d", i);
        mgpu_log_keep_add(&k, 0, line);
    }
    a = mgpu_log_keep_json(&k);
    size_t n = json_array_size(a);
    CHECKF(n == 2 * MGPU_LOG_KEEP_LINES + 1, "%zu lines kept", n);
    CHECK(strcmp(text_at(a, 0), "line 0") == 0);
    CHECK(strcmp(text_at(a, MGPU_LOG_KEEP_LINES - 1), "line 4999") == 0);
    const char *marker = text_at(a, MGPU_LOG_KEEP_LINES);
    char want[64];
    snprintf(want, sizeof want, "... %d log lines left out", total - 2 * MGPU_LOG_KEEP_LINES);
    CHECKF(marker && strncmp(marker, want, strlen(want)) == 0, "marker: %s", marker ? marker : "(none)");
    CHECK(json_integer_value(json_object_get(json_array_get(a, MGPU_LOG_KEEP_LINES), "rank")) == -1);
    char last[32];
    snprintf(last, sizeof last, "line %d", total - 1);
    CHECK(strcmp(text_at(a, n - 1), last) == 0);
    snprintf(last, sizeof last, "line %d", total - MGPU_LOG_KEEP_LINES);
    CHECK(strcmp(text_at(a, MGPU_LOG_KEEP_LINES + 1), last) == 0);
    json_decref(a);
    mgpu_log_keep_free(&k);

    /* big lines: bounded by bytes too */
    static char big[64 * 1024];
    memset(big, 'x', sizeof big - 1);
    mgpu_log_keep_init(&k);
    for (int i = 0; i < 1000; i++) mgpu_log_keep_add(&k, 0, big);
    CHECK(k.head_bytes <= MGPU_LOG_KEEP_BYTES && k.tail_bytes <= MGPU_LOG_KEEP_BYTES);
    CHECKF(k.dropped > 0, "%zu dropped", k.dropped);
    a = mgpu_log_keep_json(&k);
    CHECK(json_array_size(a) < 1000);
    json_decref(a);
    mgpu_log_keep_free(&k);
    return tap_done();
}
