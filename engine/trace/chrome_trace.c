/* chrome_trace.c - timeline spans streamed to a file as Chrome trace JSON
 * (mgpu/chrome_trace.h). Each event is written as it arrives: a lane's
 * metadata (process and thread names, sort indices) just before its first
 * event, so a reader of the file sees the lanes before their events and the
 * writer keeps nothing but the lanes. */
#include "mgpu/chrome_trace.h"
#include "mgpu/file.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mgpu_chrome_trace {
    char path[PATH_MAX], tmp[PATH_MAX + 48];
    int fd;
    FILE *f;
    int io_error;          /* errno of the first failed write, 0 none */
    int events;            /* events written so far (metadata too): the next needs a comma */
    size_t spans;          /* X events written */
    long max_spans, dropped;
    json_t *lanes;         /* "pid/stream name" -> tid */
    json_t *pids;          /* "pid" -> true once its process_name is out */
    int nlanes;
};

mgpu_result mgpu_chrome_trace_open(const char *path, long max_spans, mgpu_chrome_trace **out)
{
    *out = NULL;
    if (!path || !*path) return mgpu_fail(MGPU_ERR_INVALID, "chrome trace: no file to write");
    mgpu_chrome_trace *tr = calloc(1, sizeof *tr);
    if (!tr) return mgpu_fail(MGPU_ERR_NOMEM, "chrome trace: out of memory");
    tr->fd = -1;
    snprintf(tr->path, sizeof tr->path, "%s", path);
    tr->max_spans = max_spans > 0 ? max_spans : MGPU_CHROME_TRACE_MAX_SPANS;
    tr->lanes = json_object();
    tr->pids = json_object();
    mgpu_result r = mgpu_file_begin_atomic(path, tr->tmp, sizeof tr->tmp, &tr->fd);
    if (r == MGPU_OK && !(tr->f = fdopen(tr->fd, "w"))) r = mgpu_fail(MGPU_ERR_IO, "%s", strerror(errno));
    if (r == MGPU_OK && (!tr->lanes || !tr->pids)) r = mgpu_fail(MGPU_ERR_NOMEM, "out of memory");
    if (r != MGPU_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", mgpu_error_message());
        mgpu_chrome_trace_free(tr);
        return mgpu_fail(r, "cannot write the trace to %s: %s", path, why);
    }
    fputs("{\"traceEvents\":[\n", tr->f);
    *out = tr;
    return MGPU_OK;
}

void mgpu_chrome_trace_free(mgpu_chrome_trace *tr)
{
    if (!tr) return;
    if (tr->f) {
        fclose(tr->f);
        unlink(tr->tmp);
    } else if (tr->fd >= 0 && tr->tmp[0]) {
        mgpu_file_abort_atomic(tr->tmp, tr->fd);
    }
    json_decref(tr->lanes);
    json_decref(tr->pids);
    free(tr);
}

size_t mgpu_chrome_trace_count(const mgpu_chrome_trace *tr) { return tr ? tr->spans : 0; }
long mgpu_chrome_trace_dropped(const mgpu_chrome_trace *tr) { return tr ? tr->dropped : 0; }
long mgpu_chrome_trace_max_spans(const mgpu_chrome_trace *tr) { return tr ? tr->max_spans : 0; }

/* One event (consumed) onto the file. */
static mgpu_result emit(mgpu_chrome_trace *tr, json_t *ev)
{
    if (!ev) return mgpu_fail(MGPU_ERR_NOMEM, "chrome trace: out of memory");
    char *text = json_dumps(ev, JSON_COMPACT);
    json_decref(ev);
    if (!text) return mgpu_fail(MGPU_ERR_NOMEM, "chrome trace: out of memory");
    if (!tr->io_error && fprintf(tr->f, "%s%s", tr->events ? ",\n" : "", text) < 0) tr->io_error = errno ? errno : EIO;
    free(text);
    tr->events++;
    return MGPU_OK;
}

static mgpu_result meta(mgpu_chrome_trace *tr, const char *what, int pid, int tid, const char *key, json_t *value)
{
    return emit(tr, json_pack("{s:s, s:s, s:i, s:i, s:{s:o}}", "name", what, "ph", "M", "pid", pid, "tid", tid,
                              "args", key, value));
}

/* The tid of a stream: its id on the rank when the span carries one (so
 * the default stream, id 0, sorts first), else one given in order of
 * arrival; its lane named before its first event. -1: past the lanes' cap. */
static int lane_of(mgpu_chrome_trace *tr, int pid, const char *name, json_t *jid, mgpu_result *r)
{
    char key[64];
    snprintf(key, sizeof key, "%d/%s", pid, name);
    json_t *known = json_object_get(tr->lanes, key);
    if (known) return (int)json_integer_value(known);
    if (tr->nlanes >= MGPU_CHROME_TRACE_MAX_LANES) return -1;
    int tid = json_is_integer(jid) && json_integer_value(jid) >= 0 && json_integer_value(jid) < 100000
                  ? (int)json_integer_value(jid)
                  : 100000 + tr->nlanes;
    json_object_set_new_nocheck(tr->lanes, key, json_integer(tid));
    tr->nlanes++;
    char pkey[16];
    snprintf(pkey, sizeof pkey, "%d", pid);
    if (!json_object_get(tr->pids, pkey)) {
        char pname[32];
        snprintf(pname, sizeof pname, "rank %d", pid);
        json_object_set_new_nocheck(tr->pids, pkey, json_true());
        if (*r == MGPU_OK) *r = meta(tr, "process_name", pid, 0, "name", json_string(pname));
        if (*r == MGPU_OK) *r = meta(tr, "process_sort_index", pid, 0, "sort_index", json_integer(pid));
    }
    if (*r == MGPU_OK) *r = meta(tr, "thread_name", pid, tid, "name", json_string(name));
    if (*r == MGPU_OK) *r = meta(tr, "thread_sort_index", pid, tid, "sort_index", json_integer(tid));
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
    if ((long)tr->spans >= tr->max_spans) {
        tr->dropped++;
        return MGPU_OK;
    }
    json_t *jst = json_object_get(span, "stream");
    char sname[32];
    if (json_is_string(jst) && snprintf(sname, sizeof sname, "%s", json_string_value(jst)) >= (int)sizeof sname) {
        /* cut at a character, not inside one (json_string wants UTF-8) */
        size_t n = strlen(sname);
        while (n > 0 && ((unsigned char)sname[n - 1] & 0xC0) == 0x80) n--;
        if (n > 0 && ((unsigned char)sname[n - 1] & 0xC0) == 0xC0) n--;
        sname[n] = '\0';
    } else if (!json_is_string(jst)) {
        snprintf(sname, sizeof sname, "s%lld", (long long)json_integer_value(jst));
    }
    mgpu_result r = MGPU_OK;
    int tid = lane_of(tr, rank, sname, json_object_get(span, "stream_id"), &r);
    MGPU_CHECK(r);
    if (tid < 0) {
        tr->dropped++;
        return MGPU_OK;
    }
    const char *name = json_string_value(json_object_get(span, "name"));
    const char *kind = json_string_value(json_object_get(span, "kind"));
    MGPU_CHECK(emit(tr, json_pack("{s:s, s:s, s:s, s:i, s:i, s:f, s:f, s:{s:s}}", "name", name ? name : "", "cat",
                                  kind ? kind : "other", "ph", "X", "pid", rank, "tid", tid, "ts", s, "dur", e - s,
                                  "args", "kind", kind ? kind : "other")));
    tr->spans++;
    return MGPU_OK;
}

mgpu_result mgpu_chrome_trace_close(mgpu_chrome_trace *tr, json_t *other)
{
    if (!tr) return mgpu_fail(MGPU_ERR_INVALID, "chrome trace: no trace");
    json_t *o = other ? json_deep_copy(other) : json_object();
    if (o && tr->dropped) {
        char why[200];
        snprintf(why, sizeof why, "the trace keeps the first %ld spans (and %d lanes); %ld later spans were dropped",
                 tr->max_spans, MGPU_CHROME_TRACE_MAX_LANES, tr->dropped);
        json_object_set_new(o, "dropped_spans", json_integer(tr->dropped));
        json_object_set_new(o, "dropped_why", json_string(why));
    }
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    if (!tr->io_error && fprintf(tr->f, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":%s}\n", text ? text : "{}") < 0)
        tr->io_error = errno ? errno : EIO;
    free(text);
    if (!tr->io_error && fflush(tr->f) != 0) tr->io_error = errno ? errno : EIO;
    mgpu_result r = MGPU_OK;
    if (tr->io_error) {
        r = mgpu_fail(MGPU_ERR_IO, "cannot write the trace to %s: %s", tr->path, strerror(tr->io_error));
    } else {
        /* the FILE lets go of the descriptor the commit closes */
        int fd = dup(tr->fd);
        fclose(tr->f);
        tr->f = NULL;
        tr->fd = -1;
        if (fd < 0) r = mgpu_fail(MGPU_ERR_IO, "cannot write the trace to %s: %s", tr->path, strerror(errno));
        else if (mgpu_file_commit_atomic(tr->path, tr->tmp, fd) != MGPU_OK) {
            char why[512];
            snprintf(why, sizeof why, "%s", mgpu_error_message());
            r = mgpu_fail(MGPU_ERR_IO, "cannot write the trace to %s: %s", tr->path, why);
        }
        tr->tmp[0] = '\0';
    }
    mgpu_chrome_trace_free(tr);
    return r;
}
