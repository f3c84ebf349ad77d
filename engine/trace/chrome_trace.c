/* chrome_trace.c - timeline spans as Chrome trace JSON (mgpu/chrome_trace.h). */
#include "mgpu/chrome_trace.h"
#include "mgpu/file.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct thread_ent {
    int pid, tid;
    char name[32];
} thread_ent;

struct mgpu_chrome_trace {
    json_t *events;        /* the X events, in arrival order */
    thread_ent *threads;   /* one per (rank, stream) seen */
    int nthreads, cap;
    int max_pid;
};

mgpu_result mgpu_chrome_trace_create(mgpu_chrome_trace **out)
{
    *out = calloc(1, sizeof **out);
    if (!*out) return mgpu_fail(MGPU_ERR_NOMEM, "chrome trace: out of memory");
    (*out)->events = json_array();
    (*out)->max_pid = -1;
    if (!(*out)->events) {
        free(*out);
        *out = NULL;
        return mgpu_fail(MGPU_ERR_NOMEM, "chrome trace: out of memory");
    }
    return MGPU_OK;
}

void mgpu_chrome_trace_free(mgpu_chrome_trace *tr)
{
    if (!tr) return;
    json_decref(tr->events);
    free(tr->threads);
    free(tr);
}

size_t mgpu_chrome_trace_count(const mgpu_chrome_trace *tr) { return tr ? json_array_size(tr->events) : 0; }

/* The tid of a stream: its id on the rank when the span carries one (so the
 * default stream, id 0, sorts first), else one given in order of arrival. */
static int thread_of(mgpu_chrome_trace *tr, int pid, const char *name, json_t *jid)
{
    for (int i = 0; i < tr->nthreads; i++)
        if (tr->threads[i].pid == pid && strcmp(tr->threads[i].name, name) == 0) return tr->threads[i].tid;
    if (tr->nthreads == tr->cap) {
        int cap = tr->cap ? tr->cap * 2 : 16;
        thread_ent *n = realloc(tr->threads, (size_t)cap * sizeof *n);
        if (!n) return -1;
        tr->threads = n;
        tr->cap = cap;
    }
    int tid = json_is_integer(jid) && json_integer_value(jid) >= 0 && json_integer_value(jid) < 100000
                  ? (int)json_integer_value(jid)
                  : 100000 + tr->nthreads;
    thread_ent *t = &tr->threads[tr->nthreads++];
    t->pid = pid;
    t->tid = tid;
    snprintf(t->name, sizeof t->name, "%s", name);
    if (pid > tr->max_pid) tr->max_pid = pid;
    return tid;
}

mgpu_result mgpu_chrome_trace_add(mgpu_chrome_trace *tr, int rank, json_t *span)
{
    if (!tr || !json_is_object(span)) return mgpu_fail(MGPU_ERR_INVALID, "chrome trace: a span must be an object");
    if (rank < 0) rank = (int)json_integer_value(json_object_get(span, "rank"));
    json_t *js = json_object_get(span, "start_us"), *je = json_object_get(span, "end_us");
    double s = json_number_value(js), e = json_number_value(je);
    if (!json_is_number(js) || !json_is_number(je) || !(e >= s) || rank < 0)
        return mgpu_fail(MGPU_ERR_INVALID, "chrome trace: a span needs a rank and start_us <= end_us");
    json_t *jst = json_object_get(span, "stream");
    char sname[32];
    if (json_is_string(jst)) snprintf(sname, sizeof sname, "%s", json_string_value(jst));
    else snprintf(sname, sizeof sname, "s%lld", (long long)json_integer_value(jst));
    int tid = thread_of(tr, rank, sname, json_object_get(span, "stream_id"));
    if (tid < 0) return mgpu_fail(MGPU_ERR_NOMEM, "chrome trace: out of memory");
    const char *name = json_string_value(json_object_get(span, "name"));
    const char *kind = json_string_value(json_object_get(span, "kind"));
    json_t *ev = json_pack("{s:s, s:s, s:s, s:i, s:i, s:f, s:f, s:{s:s}}", "name", name ? name : "", "cat",
                           kind ? kind : "other", "ph", "X", "pid", rank, "tid", tid, "ts", s, "dur", e - s, "args",
                           "kind", kind ? kind : "other");
    if (!ev || json_array_append_new(tr->events, ev) != 0)
        return mgpu_fail(MGPU_ERR_NOMEM, "chrome trace: out of memory");
    return MGPU_OK;
}

static void add_meta(json_t *arr, const char *what, int pid, int tid, const char *key, json_t *value)
{
    json_t *m = json_pack("{s:s, s:s, s:i, s:i, s:{s:o}}", "name", what, "ph", "M", "pid", pid, "tid", tid, "args",
                          key, value);
    if (m) json_array_append_new(arr, m);
}

json_t *mgpu_chrome_trace_json(const mgpu_chrome_trace *tr, json_t *other)
{
    json_t *arr = json_array();
    if (!arr) return NULL;
    /* metadata first: viewers name lanes from it whatever the order, but a
     * reader of the file sees the lanes before their events */
    for (int pid = 0; pid <= tr->max_pid; pid++) {
        int any = 0;
        for (int i = 0; i < tr->nthreads && !any; i++) any = tr->threads[i].pid == pid;
        if (!any) continue;
        char pname[32];
        snprintf(pname, sizeof pname, "rank %d", pid);
        add_meta(arr, "process_name", pid, 0, "name", json_string(pname));
        add_meta(arr, "process_sort_index", pid, 0, "sort_index", json_integer(pid));
    }
    for (int i = 0; i < tr->nthreads; i++) {
        const thread_ent *t = &tr->threads[i];
        add_meta(arr, "thread_name", t->pid, t->tid, "name", json_string(t->name));
        add_meta(arr, "thread_sort_index", t->pid, t->tid, "sort_index", json_integer(t->tid));
    }
    size_t i;
    json_t *ev;
    json_array_foreach(tr->events, i, ev) json_array_append(arr, ev);
    json_t *doc = json_pack("{s:o, s:s}", "traceEvents", arr, "displayTimeUnit", "ns");
    if (doc && other) json_object_set(doc, "otherData", other);
    return doc;
}

mgpu_result mgpu_chrome_trace_write(const mgpu_chrome_trace *tr, const char *path, json_t *other)
{
    if (!tr || !path || !*path) return mgpu_fail(MGPU_ERR_INVALID, "chrome trace: no file to write");
    json_t *doc = mgpu_chrome_trace_json(tr, other);
    if (!doc) return mgpu_fail(MGPU_ERR_NOMEM, "chrome trace: out of memory");
    char *text = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    if (!text) return mgpu_fail(MGPU_ERR_NOMEM, "chrome trace: out of memory");
    /* never over a device node or through a symbolic link (mgpu/file.h) */
    mgpu_result r = mgpu_file_write_atomic(path, text, strlen(text));
    free(text);
    if (r != MGPU_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", mgpu_error_message());
        return mgpu_fail(r, "cannot write the trace to %s: %s", path, why);
    }
    return MGPU_OK;
}
