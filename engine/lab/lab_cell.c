/* lab_cell.c - a value of a results table as one line of text, for the
 * shell's results pane and headless `mgpulab run` alike: a lab's table (or
 * an SPMD run's rows) may hold a list or a record, and a learner reading
 * '{"rank":0,"error":{...}}' in a cell read JSON, not the result. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "mgpu/lab.h"

/* Append to buf[*used..len), cut at len (always NUL-terminated). */
static void put(char *buf, size_t len, size_t *used, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
    if (*used + 1 >= len) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, len - *used, fmt, ap);
    va_end(ap);
    if (n > 0) *used += (size_t)n < len - *used ? (size_t)n : len - *used - 1;
}

static void brief(const json_t *v, char *buf, size_t len, size_t *used, int depth)
{
    const char *key;
    json_t *item;
    size_t i;
    if (depth > 8) { /* a cell, not a document */
        put(buf, len, used, "%s", "...");
        return;
    }
    switch (json_typeof(v)) {
    case JSON_STRING: put(buf, len, used, "%s", json_string_value(v)); break;
    case JSON_INTEGER: put(buf, len, used, "%lld", (long long)json_integer_value(v)); break;
    case JSON_REAL: put(buf, len, used, "%.4g", json_real_value(v)); break;
    case JSON_TRUE: put(buf, len, used, "%s", "yes"); break;
    case JSON_FALSE: put(buf, len, used, "%s", "no"); break;
    case JSON_ARRAY:
        /* a list inside a list gets brackets, so "1, 2, 3, 4" is not [[1, 2], [3, 4]] */
        if (depth) put(buf, len, used, "%s", "[");
        json_array_foreach(v, i, item) {
            if (i) put(buf, len, used, "%s", ", ");
            brief(item, buf, len, used, depth + 1);
        }
        if (depth) put(buf, len, used, "%s", "]");
        break;
    case JSON_OBJECT: {
        int first = 1;
        if (depth) put(buf, len, used, "%s", "(");
        json_object_foreach((json_t *)v, key, item) {
            put(buf, len, used, "%s%s: ", first ? "" : ", ", key);
            first = 0;
            brief(item, buf, len, used, depth + 1);
        }
        if (depth) put(buf, len, used, "%s", ")");
        break;
    }
    default: put(buf, len, used, "%s", "-"); break;
    }
}

void mgpu_lab_cell_text(const json_t *v, char *buf, size_t len)
{
    if (!buf || !len) return;
    buf[0] = '\0';
    size_t used = 0;
    if (!v) put(buf, len, &used, "%s", "-");
    else brief(v, buf, len, &used, 0);
}

void mgpu_lab_error_text(const json_t *e, char *buf, size_t len)
{
    if (!buf || !len) return;
    const json_t *rank = json_object_get(e, "rank"), *err = json_object_get(e, "error");
    const json_t *msg = json_is_object(err) ? json_object_get(err, "message") : err;
    if (!json_is_integer(rank) || !json_is_string(msg)) { /* not the usual shape: every field, readably */
        mgpu_lab_cell_text(e, buf, len);
        return;
    }
    snprintf(buf, len, "rank %lld: %s", (long long)json_integer_value(rank), json_string_value(msg));
}
