/* race_access.c - the race detector's accesses (mgpu/race.h): per buffer
 * the writes and reads that may still race, the check of a new access
 * against them, the report's sentence, and on the sim the poison a racing
 * read sees. The clocks are race.c. */
#include "dev/race/race_internal.h"
#include "mgpu/size.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void forget_poison(struct mgpu_race *r, const mgpu_buffer *b);

/*--- A buffer's records ------------------------------------------------------*/

static mgpu_race_buf *buf_state(struct mgpu_race *r, const mgpu_buffer *cb)
{
    mgpu_buffer *b = (mgpu_buffer *)cb; /* the record is bookkeeping, not the buffer's data */
    mgpu_race_buf *st = b->race;
    if (!st) {
        st = calloc(1, sizeof *st);
        if (!st) return NULL;
        st->epoch = r->epoch;
        b->race = st;
    }
    if (st->epoch != r->epoch) { /* from an earlier run: its streams are gone */
        st->n = 0;
        st->swept_gen = 0;
        st->alloc_site = 0;
        st->epoch = r->epoch;
    }
    return st;
}

void mgpu_race_buffer_alloc(mgpu_buffer *b)
{
    struct mgpu_race *r = b->be->race;
    if (!r || !r->flags) return;
    pthread_mutex_lock(&r->lock);
    mgpu_race_buf *st = buf_state(r, b);
    if (st) st->alloc_site = race_site_here(r);
    pthread_mutex_unlock(&r->lock);
}

void mgpu_race_buffer_free(mgpu_buffer *b)
{
    struct mgpu_race *r = b->be->race;
    if (r && r->nsaved + r->nwritten) {
        pthread_mutex_lock(&r->lock);
        forget_poison(r, b);
        pthread_mutex_unlock(&r->lock);
    }
    mgpu_race_buf *st = b->race;
    if (!st) return;
    free(st->acc);
    free(st);
    b->race = NULL;
}

void mgpu_race_label_buffer(mgpu_buffer *b, const char *label)
{
    struct mgpu_race *r = b && label ? b->be->race : NULL;
    if (!r || !r->flags) return;
    pthread_mutex_lock(&r->lock);
    mgpu_race_buf *st = buf_state(r, b);
    if (st) snprintf(st->label, sizeof st->label, "%s", label);
    pthread_mutex_unlock(&r->lock);
}

static void drop(mgpu_race_buf *st, int i)
{
    memmove(&st->acc[i], &st->acc[i + 1], (size_t)(st->n - i - 1) * sizeof st->acc[0]);
    st->n--;
}

/* Keep the new access. Same stream, same kind, same line, touching an
 * earlier record, and no event or host wait has taken the stream's clock
 * out since that record: one record with the later counter. Nothing can be
 * ordered after the one and not after the other then, so the merge loses
 * nothing. Across such a point they stay apart: a pipeline's slice i is
 * waited for by its own event while slice i+1 (the same line, the bytes
 * next to it) is still in flight. Past RACE_BUF_ACCS the oldest goes. */
static void keep(struct mgpu_race *r, mgpu_race_buf *st, const race_acc *a)
{
    uint64_t published = r->slots[a->slot].published;
    for (int i = 0; i < st->n; i++) {
        race_acc *o = &st->acc[i];
        /* the cheap tests that fail most often first: most records are
         * neither next to the new one nor from before the last publication */
        if (o->lo <= a->hi && a->lo <= o->hi && published < o->seq && o->site == a->site && o->slot == a->slot &&
            o->write == a->write && o->host == a->host) {
            if (a->lo < o->lo) o->lo = a->lo;
            if (a->hi > o->hi) o->hi = a->hi;
            o->seq = a->seq;
            o->what = a->what;
            return;
        }
    }
    if (st->n == st->cap) {
        if (st->cap >= RACE_BUF_ACCS) {
            drop(st, 0);
            r->stats.forgotten++;
        } else {
            int cap = st->cap ? 2 * st->cap : 4;
            race_acc *acc = realloc(st->acc, (size_t)cap * sizeof *acc);
            if (!acc) return;
            st->acc = acc;
            st->cap = cap;
        }
    }
    st->acc[st->n++] = *a;
}

/* Drop the records the host has seen done: every stream joins the host's
 * clock before its next access (and a new stream starts from it), so
 * nothing can race them any more. Once per buffer after each host wait: it
 * keeps the lists of a script that writes one slice at a time with a host
 * wait between (a data loader's labels) short, now that keep() no longer
 * folds those slices together. */
static void sweep(struct mgpu_race *r, mgpu_race_buf *st)
{
    if (st->swept_gen == r->host_gen) return;
    st->swept_gen = r->host_gen;
    int n = 0;
    for (int i = 0; i < st->n; i++)
        if (r->host_vc[st->acc[i].slot] < st->acc[i].seq) st->acc[n++] = st->acc[i];
    st->n = n;
}

/* Records the new access makes redundant: a write replaces whatever it
 * covers (a later access ordered after the write is ordered after them,
 * or the write raced them and was reported); a read replaces the reads it
 * covers that happen before it. Writes stay for reads: a read ordered
 * after a write says nothing of another stream's next read. */
static void prune(struct mgpu_race *r, mgpu_race_buf *st, const race_acc *a, int slot)
{
    for (int i = st->n - 1; i >= 0; i--) {
        race_acc *o = &st->acc[i];
        if (o->lo < a->lo || o->hi > a->hi) continue;
        if (a->write || (!o->write && race_ordered(r, o->slot, o->seq, slot))) drop(st, i);
    }
}

/*--- The sentence ------------------------------------------------------------*/

static void side(struct mgpu_race *r, mgpu_race_side *s, const char *what, int slot, uint32_t site)
{
    snprintf(s->op, sizeof s->op, "%s", what ? what : "?");
    snprintf(s->stream, sizeof s->stream, "%s", slot >= 0 ? r->slots[slot].label : "?");
    snprintf(s->site, sizeof s->site, "%s", race_site_text(r, site));
}

/* A named tensor is "x"; another "the 4 KiB tensor made at t.lua:2".
 * Returns 1 for a name. */
static int tensor_name(struct mgpu_race *r, const mgpu_buffer *b, const mgpu_race_buf *st, char *out, size_t len)
{
    if (st->label[0]) {
        snprintf(out, len, "%s", st->label);
        return 1;
    }
    char size[32];
    mgpu_human_bytes(b->bytes, size, sizeof size);
    if (st->alloc_site) snprintf(out, len, "the %s tensor made at %s", size, race_site_text(r, st->alloc_site));
    else snprintf(out, len, "a %s %s buffer", size, mgpu_mem_kind_name(b->kind));
    return 0;
}

static void sentence(mgpu_race_report *p)
{
    char range[160];
    if (p->named) snprintf(range, sizeof range, "%s[%zu:%zu]", p->tensor, p->first, p->last);
    else snprintf(range, sizeof range, "elements [%zu:%zu] of %s", p->first, p->last, p->tensor);
    const char *then_kind = strcmp(p->kind, "write-after-read") == 0 ? "read" : "write";
    size_t n;
    if (p->stale)
        n = (size_t)snprintf(p->text, sizeof p->text,
                             "stale data: the host read %s (%s) at %s through the default stream, which is not "
                             "ordered after the write on %s (%s) at %s; make the default stream wait on an event "
                             "recorded after the write (or synchronize that stream) before reading",
                             range, p->now.op, p->now.site, p->then.stream, p->then.op, p->then.site);
    else
        n = (size_t)snprintf(p->text, sizeof p->text,
                             "%s of %s on %s (%s) at %s is not ordered after the %s on %s (%s) at %s%s; record an "
                             "event on %s after the %s and make %s wait on it",
                             strcmp(p->kind, "read-after-write") == 0 ? "read" : "write", range, p->now.stream,
                             p->now.op, p->now.site, then_kind, p->then.stream, p->then.op, p->then.site,
                             strcmp(p->kind, "write-after-read") == 0   ? ": the write may land before the read"
                             : strcmp(p->kind, "write-after-write") == 0 ? ": either may land last"
                                                                         : "",
                             p->then.stream, then_kind, p->now.stream);
    if (p->shown && n < sizeof p->text)
        snprintf(p->text + n, sizeof p->text - n,
                 " (the sim showed it: the read saw NaN there, as a GPU may show the data from before the write)");
}

/*--- The sim's poison ----------------------------------------------------------*/

static void poison_bytes(void *p, size_t bytes, mgpu_dtype t)
{
    unsigned char *q = p;
    if (t == MGPU_I32 || t == MGPU_F32) {
        const uint32_t v = t == MGPU_I32 ? 0x7fbadbadu : 0x7fc0badbu; /* a quiet NaN for f32 */
        for (size_t i = 0; i + 4 <= bytes; i += 4) memcpy(q + i, &v, 4);
    } else {
        const uint16_t v = t == MGPU_F16 ? 0x7e00u : 0x7fc1u; /* quiet NaNs of f16 and bf16 */
        for (size_t i = 0; i + 2 <= bytes; i += 2) memcpy(q + i, &v, 2);
    }
}

/* The read's racing bytes [lo, hi) hold poison until the operation ends.
 * Returns 1 when they do. */
static int show(mgpu_race_op *op, const mgpu_buffer *b, size_t lo, size_t hi, mgpu_dtype t)
{
    struct mgpu_race *r = op->r;
    if (!op->show) return 0;
    void *base = mgpu_buffer_host_view((mgpu_buffer *)b);
    if (!base) return 0;
    for (int i = 0; i < r->nsaved; i++) /* already poisoned (two records over one range) */
        if (r->saved[i].buf == b && r->saved[i].off <= lo && hi <= r->saved[i].off + r->saved[i].bytes) return 1;
    if (r->nsaved >= RACE_OP_RANGES) return 0;
    void *keep = malloc(hi - lo);
    if (!keep) return 0;
    memcpy(keep, (char *)base + lo, hi - lo);
    poison_bytes((char *)base + lo, hi - lo, t);
    r->saved[r->nsaved].buf = b;
    r->saved[r->nsaved].off = lo;
    r->saved[r->nsaved].bytes = hi - lo;
    r->saved[r->nsaved++].saved = keep;
    return 1;
}

/* Put back [lo, hi) of saved range i, less what the operation wrote
 * (written ranges from `from` on). */
static void restore(struct mgpu_race *r, int i, size_t lo, size_t hi, int from)
{
    if (lo >= hi) return;
    for (int w = from; w < r->nwritten; w++) {
        if (r->written[w].buf != r->saved[i].buf) continue;
        size_t wlo = r->written[w].off, whi = wlo + r->written[w].bytes;
        if (whi <= lo || hi <= wlo) continue;
        restore(r, i, lo, wlo > lo ? wlo : lo, w + 1);
        restore(r, i, whi < hi ? whi : hi, hi, w + 1);
        return;
    }
    char *base = mgpu_buffer_host_view((mgpu_buffer *)r->saved[i].buf);
    if (base) memcpy(base + lo, (char *)r->saved[i].saved + (lo - r->saved[i].off), hi - lo);
}

void race_restore_locked(struct mgpu_race *r)
{
    for (int i = 0; i < r->nsaved; i++) {
        restore(r, i, r->saved[i].off, r->saved[i].off + r->saved[i].bytes, 0);
        free(r->saved[i].saved);
    }
    r->nsaved = r->nwritten = 0;
}

/* A buffer going away takes its poison with it: nothing to put back. */
static void forget_poison(struct mgpu_race *r, const mgpu_buffer *b)
{
    for (int i = r->nsaved - 1; i >= 0; i--) {
        if (r->saved[i].buf != b) continue;
        free(r->saved[i].saved);
        r->saved[i] = r->saved[--r->nsaved];
    }
    for (int w = r->nwritten - 1; w >= 0; w--)
        if (r->written[w].buf == b) r->written[w] = r->written[--r->nwritten];
}

/*--- One operation ---------------------------------------------------------------*/

/* 1 when this operation already raced the earlier access o (its read did;
 * its write over the same bytes is the same fault, told once). */
static int told_before(mgpu_race_op *op, const race_acc *o)
{
    for (int i = 0; i < op->ntold; i++)
        if (op->told[i].slot == o->slot && op->told[i].seq == o->seq) return 1;
    if (op->ntold < (int)(sizeof op->told / sizeof op->told[0])) {
        op->told[op->ntold].slot = o->slot;
        op->told[op->ntold++].seq = o->seq;
    }
    return 0;
}

void mgpu_race_op_begin(mgpu_race_op *op, mgpu_stream *s, const char *what)
{
    struct mgpu_race *r = s && s->be->race && s->be->race->flags ? s->be->race : NULL;
    op->r = r;
    op->s = s;
    op->what = what;
    op->site = 0;
    op->ntold = 0;
    op->show = r && (r->flags & MGPU_RACE_SHOW) && mgpu_backend_simulated(s->be);
    if (r && r->nsaved + r->nwritten) { /* the last operation left no end */
        pthread_mutex_lock(&r->lock);
        race_restore_locked(r);
        pthread_mutex_unlock(&r->lock);
    }
}

/* Where the new access races earlier records of one side (stream, line,
 * operation, read or write): the bytes they share with it. Records of one
 * side next to each other are one report over their union - slices one
 * line wrote with events between them are kept apart (keep()) but named
 * together - and the sim poisons the union once. */
typedef struct race_hit {
    const race_acc *o;
    size_t lo, hi;
} race_hit;

static int same_side(const race_acc *x, const race_acc *y)
{
    return x->slot == y->slot && x->site == y->site && x->write == y->write && x->host == y->host &&
           x->what == y->what;
}

/* Joins hits of one side that touch; keeps the order they were met in. */
static int coalesce(race_hit *h, int n)
{
    for (int i = 0; i < n; i++)
        for (int k = i + 1; k < n; k++) {
            if (!same_side(h[i].o, h[k].o) || h[k].hi < h[i].lo || h[i].hi < h[k].lo) continue;
            if (h[k].lo < h[i].lo) h[i].lo = h[k].lo;
            if (h[k].hi > h[i].hi) h[i].hi = h[k].hi;
            memmove(&h[k], &h[k + 1], (size_t)(n - k - 1) * sizeof h[0]);
            n--;
            k = i; /* h[i] grew: it may touch one passed already */
        }
    return n;
}

static void access(mgpu_race_op *op, const mgpu_buffer *b, size_t off, size_t bytes, mgpu_dtype t, int write)
{
    struct mgpu_race *r = op->r;
    if (!r || !b || bytes == 0) return; /* phantom work is ordered like any (show() skips it: no data) */
    mgpu_race_report rep, tell[4];
    int ntell = 0;
    pthread_mutex_lock(&r->lock);
    int slot = race_slot_of(r, op->s);
    mgpu_race_buf *st = slot >= 0 ? buf_state(r, b) : NULL;
    if (!st) {
        pthread_mutex_unlock(&r->lock);
        return;
    }
    r->stats.accesses++;
    int host = !write && r->host_read_depth > 0;
    race_acc a = {.lo = off, .hi = off + bytes, .seq = race_tick(r, slot), .slot = (uint32_t)slot,
                  .site = race_op_site(r, op), .what = host ? r->host_read_what : op->what, .write = (unsigned char)write,
                  .host = (unsigned char)host};
    sweep(r, st);
    race_hit hit[RACE_BUF_ACCS]; /* at most one per record */
    int nhit = 0;
    for (int i = 0; i < st->n; i++) {
        const race_acc *o = &st->acc[i];
        if (o->hi <= a.lo || a.hi <= o->lo || (!write && !o->write)) continue;
        if (race_ordered(r, o->slot, o->seq, slot) || told_before(op, o)) continue;
        hit[nhit].o = o;
        hit[nhit].lo = o->lo > a.lo ? o->lo : a.lo;
        hit[nhit++].hi = o->hi < a.hi ? o->hi : a.hi;
    }
    nhit = coalesce(hit, nhit);
    size_t esz = mgpu_dtype_size(t);
    for (int i = 0; i < nhit; i++) {
        const race_acc *o = hit[i].o;
        memset(&rep, 0, sizeof rep);
        rep.kind = !write ? "read-after-write" : o->write ? "write-after-write" : "write-after-read";
        rep.stale = host;
        if (!write) rep.shown = show(op, b, hit[i].lo, hit[i].hi, t);
        rep.named = tensor_name(r, b, st, rep.tensor, sizeof rep.tensor);
        rep.first = hit[i].lo / esz;
        rep.last = (hit[i].hi + esz - 1) / esz;
        side(r, &rep.now, a.what, slot, a.site);
        side(r, &rep.then, o->what, (int)o->slot, o->site);
        sentence(&rep);
        const int most = (int)(sizeof tell / sizeof tell[0]); /* past it, the last new one is told */
        if (race_add_report(r, &rep, a.site, o->site, &tell[ntell < most ? ntell : most - 1]) && ntell < most) ntell++;
    }
    prune(r, st, &a, slot);
    keep(r, st, &a);
    if (write && op->show && r->nwritten < RACE_OP_RANGES) {
        r->written[r->nwritten].buf = b;
        r->written[r->nwritten].off = off;
        r->written[r->nwritten++].bytes = bytes;
    }
    mgpu_race_report_fn fn = r->report_fn;
    void *ctx = r->report_ctx;
    pthread_mutex_unlock(&r->lock);
    for (int i = 0; fn && i < ntell; i++) fn(ctx, &tell[i]);
}

void mgpu_race_read(mgpu_race_op *op, const mgpu_buffer *b, size_t off, size_t bytes, mgpu_dtype t)
{
    access(op, b, off, bytes, t, 0);
}

void mgpu_race_write(mgpu_race_op *op, const mgpu_buffer *b, size_t off, size_t bytes, mgpu_dtype t)
{
    access(op, b, off, bytes, t, 1);
}

void mgpu_race_op_end(mgpu_race_op *op)
{
    struct mgpu_race *r = op->r;
    if (!r || r->nsaved + r->nwritten == 0) return;
    pthread_mutex_lock(&r->lock);
    race_restore_locked(r);
    pthread_mutex_unlock(&r->lock);
}
