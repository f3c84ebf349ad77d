/* spans.c - the per-rank timeline recorder (mgpu/spans.h): event pairs
 * around operations, timed against a base event per device. */
#include "mgpu/spans.h"
#include "mgpu/clock.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STREAMS 256
#define NAME_LEN 48

typedef struct slot {
    int used, ended;
    long seq;                  /* begin order: flushes hand spans out oldest first */
    int stream, dev;
    mgpu_stream *s;            /* where the end event goes; NULL once the stream is gone */
    mgpu_span_kind kind;
    char name[NAME_LEN];
    mgpu_event *a, *b;
} slot;

typedef struct stream_ent {
    mgpu_stream *s;            /* NULL once forgotten: the id stays with its spans */
    char name[24];
} stream_ent;

typedef struct dev_state {
    mgpu_event *base;          /* NULL until the first span on this device */
    mgpu_stream *priv;         /* idle stream the base was recorded on (not on the zero's device) */
    double offset_us;          /* base - zero */
    mgpu_event **pool;         /* free timing events of this device */
    int npool, cap_pool;
} dev_state;

struct mgpu_spans {
    mgpu_backend *be;
    int sim, zero_dev, ndev;
    uint64_t zero_host_ns;
    dev_state *devs;
    stream_ent streams[MAX_STREAMS];
    int nstreams, user_streams;
    slot *slots;
    int max, *free_slots, nfree, *order;
    long seq, dropped;
};

const char *mgpu_span_kind_name(mgpu_span_kind k)
{
    static const char *const names[] = {"kernel", "copy", "collective", "wait"};
    return (unsigned)k < 4 ? names[k] : "other";
}

static int find_stream(const mgpu_spans *rec, const mgpu_stream *s)
{
    for (int i = 0; i < rec->nstreams; i++)
        if (rec->streams[i].s == s) return i;
    return -1;
}

static int add_stream(mgpu_spans *rec, mgpu_stream *s, const char *name)
{
    if (rec->nstreams == MAX_STREAMS) return -1;
    stream_ent *e = &rec->streams[rec->nstreams];
    e->s = s;
    if (name) {
        snprintf(e->name, sizeof e->name, "%s", name);
    } else {
        int dev = mgpu_stream_device(s);
        rec->user_streams++;
        if (dev == rec->zero_dev) snprintf(e->name, sizeof e->name, "s%d", rec->user_streams);
        else snprintf(e->name, sizeof e->name, "s%d@gpu%d", rec->user_streams, dev);
    }
    return rec->nstreams++;
}

static mgpu_result take_event(mgpu_spans *rec, int dev, mgpu_event **out)
{
    dev_state *d = &rec->devs[dev];
    if (d->npool) {
        *out = d->pool[--d->npool];
        return MGPU_OK;
    }
    MGPU_CHECK(mgpu_event_create(rec->be, dev, MGPU_EVENT_TIMING | MGPU_EVENT_UNTRACKED, out));
    return MGPU_OK;
}

/* Back to the pool; the pool never holds more than the pending spans had,
 * so it stays within 2 x max events per device. */
static void give_event(mgpu_spans *rec, int dev, mgpu_event *e)
{
    if (!e) return;
    dev_state *d = &rec->devs[dev];
    if (d->npool == d->cap_pool) {
        int cap = d->cap_pool ? d->cap_pool * 2 : 64;
        mgpu_event **n = realloc(d->pool, (size_t)cap * sizeof *n);
        if (!n) {
            mgpu_event_destroy(e);
            return;
        }
        d->pool = n;
        d->cap_pool = cap;
    }
    d->pool[d->npool++] = e;
}

/* The base event of a device other than the zero's (see spans.h). */
static mgpu_result ensure_device(mgpu_spans *rec, int dev)
{
    if (dev < 0 || dev >= rec->ndev) return mgpu_fail(MGPU_ERR_INVALID, "spans: device %d out of range", dev);
    dev_state *d = &rec->devs[dev];
    if (d->base) return MGPU_OK;
    mgpu_stream *priv = NULL;
    mgpu_event *base = NULL;
    mgpu_result r;
    MGPU_CHECKGOTO(mgpu_stream_create(rec->be, dev, 0, &priv), r, fail);
    MGPU_CHECKGOTO(mgpu_event_create(rec->be, dev, MGPU_EVENT_TIMING | MGPU_EVENT_UNTRACKED, &base), r, fail);
    uint64_t host_ns = mgpu_now_ns();
    MGPU_CHECKGOTO(mgpu_event_record(base, priv), r, fail);
    if (rec->sim) {
        double ms = 0;
        MGPU_CHECKGOTO(mgpu_event_elapsed_ms(rec->devs[rec->zero_dev].base, base, &ms), r, fail);
        d->offset_us = ms * 1e3;
    } else {
        d->offset_us = (double)(host_ns - rec->zero_host_ns) / 1e3;
    }
    d->base = base;
    d->priv = priv;
    return MGPU_OK;
fail:
    mgpu_event_destroy(base);
    mgpu_stream_destroy(priv);
    return r;
}

mgpu_result mgpu_spans_create(mgpu_backend *be, mgpu_stream *zero_stream, const char *zero_name, int max_pending,
                              mgpu_spans **out)
{
    *out = NULL;
    if (!be || !zero_stream) return mgpu_fail(MGPU_ERR_INVALID, "spans: need a backend and a stream for the zero");
    if (max_pending <= 0) max_pending = MGPU_SPANS_MAX_PENDING;
    mgpu_spans *rec = calloc(1, sizeof *rec);
    if (!rec) return mgpu_fail(MGPU_ERR_NOMEM, "spans: out of memory");
    rec->be = be;
    rec->sim = mgpu_backend_simulated(be);
    rec->zero_dev = mgpu_stream_device(zero_stream);
    rec->max = max_pending;
    mgpu_result r = mgpu_device_count(be, &rec->ndev);
    if (r != MGPU_OK) goto fail;
    rec->devs = calloc((size_t)rec->ndev, sizeof *rec->devs);
    rec->slots = calloc((size_t)max_pending, sizeof *rec->slots);
    rec->free_slots = malloc((size_t)max_pending * sizeof *rec->free_slots);
    rec->order = malloc((size_t)max_pending * sizeof *rec->order);
    if (!rec->devs || !rec->slots || !rec->free_slots || !rec->order) {
        r = mgpu_fail(MGPU_ERR_NOMEM, "spans: out of memory for %d pending spans", max_pending);
        goto fail;
    }
    for (int i = 0; i < max_pending; i++) rec->free_slots[i] = max_pending - 1 - i; /* slot 0 first */
    rec->nfree = max_pending;
    dev_state *z = &rec->devs[rec->zero_dev];
    MGPU_CHECKGOTO(mgpu_event_create(be, rec->zero_dev, MGPU_EVENT_TIMING | MGPU_EVENT_UNTRACKED, &z->base), r, fail);
    rec->zero_host_ns = mgpu_now_ns();
    MGPU_CHECKGOTO(mgpu_event_record(z->base, zero_stream), r, fail);
    add_stream(rec, zero_stream, zero_name ? zero_name : "default");
    *out = rec;
    return MGPU_OK;
fail:
    mgpu_spans_destroy(rec);
    return r;
}

void mgpu_spans_destroy(mgpu_spans *rec)
{
    if (!rec) return;
    for (int i = 0; rec->slots && i < rec->max; i++) {
        mgpu_event_destroy(rec->slots[i].a);
        mgpu_event_destroy(rec->slots[i].b);
    }
    for (int d = 0; rec->devs && d < rec->ndev; d++) {
        for (int i = 0; i < rec->devs[d].npool; i++) mgpu_event_destroy(rec->devs[d].pool[i]);
        free(rec->devs[d].pool);
        mgpu_event_destroy(rec->devs[d].base);
        mgpu_stream_destroy(rec->devs[d].priv);
    }
    free(rec->devs);
    free(rec->slots);
    free(rec->free_slots);
    free(rec->order);
    free(rec);
}

mgpu_result mgpu_spans_name_stream(mgpu_spans *rec, mgpu_stream *s, const char *name)
{
    if (!rec || !s || !name) return mgpu_fail(MGPU_ERR_INVALID, "spans: naming a stream needs a stream and a name");
    int i = find_stream(rec, s);
    if (i >= 0) snprintf(rec->streams[i].name, sizeof rec->streams[i].name, "%s", name);
    else if (add_stream(rec, s, name) < 0)
        return mgpu_fail(MGPU_ERR_INVALID, "spans: more than %d streams", MAX_STREAMS);
    return MGPU_OK;
}

static void release(mgpu_spans *rec, int idx)
{
    slot *sl = &rec->slots[idx];
    give_event(rec, sl->dev, sl->a);
    give_event(rec, sl->dev, sl->b);
    memset(sl, 0, sizeof *sl);
    rec->free_slots[rec->nfree++] = idx;
}

void mgpu_spans_forget_stream(mgpu_spans *rec, mgpu_stream *s)
{
    if (!rec || !s) return;
    int i = find_stream(rec, s);
    if (i >= 0) rec->streams[i].s = NULL;
    /* a span begun on it but not ended has no stream left to end on: its
     * holder's end (or cancel) gives it back, so the token is never reused
     * under its holder's feet */
    for (int k = 0; k < rec->max; k++)
        if (rec->slots[k].used && rec->slots[k].s == s) rec->slots[k].s = NULL;
}

void mgpu_spans_begin(mgpu_spans *rec, mgpu_stream *s, mgpu_span_kind kind, const char *name, int *token)
{
    *token = 0;
    if (!rec || !s) return;
    int sid = find_stream(rec, s);
    if (sid < 0) sid = add_stream(rec, s, NULL);
    int dev = mgpu_stream_device(s);
    if (!rec->nfree || sid < 0 || ensure_device(rec, dev) != MGPU_OK) {
        rec->dropped++;
        return;
    }
    int idx = rec->free_slots[--rec->nfree];
    slot *sl = &rec->slots[idx];
    sl->used = 1;
    sl->dev = dev;
    if (take_event(rec, dev, &sl->a) != MGPU_OK || take_event(rec, dev, &sl->b) != MGPU_OK ||
        mgpu_event_record(sl->a, s) != MGPU_OK) {
        release(rec, idx);
        rec->dropped++;
        return;
    }
    sl->seq = rec->seq++;
    sl->stream = sid;
    sl->s = s;
    sl->kind = kind;
    snprintf(sl->name, sizeof sl->name, "%s", name ? name : "");
    *token = idx + 1;
}

static slot *open_slot(mgpu_spans *rec, int token)
{
    if (!rec || token <= 0 || token > rec->max) return NULL;
    slot *sl = &rec->slots[token - 1];
    return sl->used && !sl->ended ? sl : NULL;
}

void mgpu_spans_end(mgpu_spans *rec, int token)
{
    slot *sl = open_slot(rec, token);
    if (!sl) return;
    if (!sl->s || mgpu_event_record(sl->b, sl->s) != MGPU_OK) {
        release(rec, token - 1);
        rec->dropped++;
        return;
    }
    sl->ended = 1;
}

void mgpu_spans_cancel(mgpu_spans *rec, int token)
{
    if (open_slot(rec, token)) release(rec, token - 1);
}

void mgpu_spans_rename(mgpu_spans *rec, int token, const char *name)
{
    slot *sl = open_slot(rec, token);
    if (sl && name) snprintf(sl->name, sizeof sl->name, "%s", name);
}

static int by_seq(const void *x, const void *y, void *slots)
{
    const slot *s = slots;
    long a = s[*(const int *)x].seq, b = s[*(const int *)y].seq;
    return (a > b) - (a < b);
}

mgpu_result mgpu_spans_flush(mgpu_spans *rec, mgpu_span_cb cb, void *ctx)
{
    if (!rec) return MGPU_OK;
    int n = 0;
    for (int i = 0; i < rec->max; i++) {
        slot *sl = &rec->slots[i];
        if (!sl->used || !sl->ended) continue;
        /* the sim ran the work when it was queued, so its events are done;
         * asking would also move the modelled host clock, as a wait does */
        int done = 1;
        if (!rec->sim && mgpu_event_query(sl->b, &done) != MGPU_OK) {
            release(rec, i);
            rec->dropped++;
            continue;
        }
        if (done) rec->order[n++] = i;
    }
    qsort_r(rec->order, (size_t)n, sizeof *rec->order, by_seq, rec->slots);
    mgpu_result r = MGPU_OK;
    for (int k = 0; k < n; k++) {
        slot *sl = &rec->slots[rec->order[k]];
        dev_state *d = &rec->devs[sl->dev];
        double a = 0, b = 0;
        if (r == MGPU_OK) {
            r = mgpu_event_elapsed_ms(d->base, sl->a, &a);
            if (r == MGPU_OK) r = mgpu_event_elapsed_ms(d->base, sl->b, &b);
            if (r == MGPU_OK && cb) {
                mgpu_span sp = {.stream = sl->stream, .stream_name = rec->streams[sl->stream].name,
                                .kind = sl->kind, .name = sl->name, .start_us = d->offset_us + a * 1e3,
                                .end_us = d->offset_us + b * 1e3};
                cb(ctx, &sp);
            }
        }
        if (r != MGPU_OK) rec->dropped++;
        release(rec, rec->order[k]);
    }
    if (r != MGPU_OK) mgpu_error_breadcrumb(__FILE__, __LINE__, __func__);
    return r;
}

mgpu_result mgpu_spans_drain(mgpu_spans *rec, mgpu_span_cb cb, void *ctx)
{
    if (!rec) return MGPU_OK;
    for (int i = 0; !rec->sim && i < rec->max; i++)
        if (rec->slots[i].used && rec->slots[i].ended) MGPU_CHECK(mgpu_event_synchronize(rec->slots[i].b));
    MGPU_CHECK(mgpu_spans_flush(rec, cb, ctx));
    return MGPU_OK;
}

int mgpu_spans_pending(const mgpu_spans *rec) { return rec ? rec->max - rec->nfree : 0; }

long mgpu_spans_dropped(const mgpu_spans *rec) { return rec ? rec->dropped : 0; }
