/* race.c - the race detector's clocks (mgpu/race.h): a vector clock per
 * stream, a copy per recorded event, the host's clock; the script lines
 * ("sites") accesses are made at; the reports and the host syncs. The
 * accesses themselves are race_access.c. */
#include "dev/race/race_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct mgpu_race *race_of(const mgpu_backend *be) { return be ? be->race : NULL; }

/*--- On and off ----------------------------------------------------------*/

static void reset_sites(struct mgpu_race *r)
{
    memset(r->line_cache, 0, sizeof r->line_cache);
    free(r->sites);
    free(r->site_index);
    r->sites = NULL;
    r->site_index = NULL;
    r->nsites = r->site_cap = r->index_cap = 0;
}

static void reset_slots(struct mgpu_race *r)
{
    for (int i = 0; i < r->nslots; i++) free(r->slots[i].vc);
    free(r->slots);
    free(r->legacy_slot);
    free(r->host_vc);
    r->slots = NULL;
    r->legacy_slot = NULL;
    r->host_vc = NULL;
    r->nslots = r->cap = 0;
    r->host_gen = 0;
}

void mgpu_race_enable(mgpu_backend *be, unsigned flags)
{
    if (!be) return;
    struct mgpu_race *r = be->race;
    if (!r) {
        if (!flags) return;
        r = calloc(1, sizeof *r);
        if (!r) return; /* no detector rather than no run */
        pthread_mutex_init(&r->lock, NULL);
        r->be = be;
        be->race = r;
    }
    pthread_mutex_lock(&r->lock);
    race_restore_locked(r);
    reset_slots(r);
    reset_sites(r);
    r->flags = flags;
    r->epoch++; /* buffers and streams of an earlier run start afresh */
    r->owner = pthread_self();
    if (!flags) { /* off: the job that set these is over */
        r->report_fn = NULL;
        r->report_ctx = NULL;
    }
    r->nreports = r->nsyncs = 0;
    r->host_read_depth = 0;
    memset(&r->stats, 0, sizeof r->stats);
    pthread_mutex_unlock(&r->lock);
}

unsigned mgpu_race_flags(const mgpu_backend *be)
{
    struct mgpu_race *r = race_of(be);
    return r ? r->flags : 0;
}

void mgpu_race_backend_closed(mgpu_backend *be)
{
    struct mgpu_race *r = race_of(be);
    if (!r) return;
    race_restore_locked(r);
    reset_slots(r);
    reset_sites(r);
    pthread_mutex_destroy(&r->lock);
    free(r);
    be->race = NULL;
}

void mgpu_race_set_site_fn(mgpu_backend *be, mgpu_race_site_fn fn, void *ctx)
{
    struct mgpu_race *r = race_of(be);
    if (!r) return;
    pthread_mutex_lock(&r->lock);
    r->site_fn = fn;
    r->site_ctx = ctx;
    pthread_mutex_unlock(&r->lock);
}

void mgpu_race_set_report_fn(mgpu_backend *be, mgpu_race_report_fn fn, void *ctx)
{
    struct mgpu_race *r = race_of(be);
    if (!r) return;
    pthread_mutex_lock(&r->lock);
    r->report_fn = fn;
    r->report_ctx = ctx;
    pthread_mutex_unlock(&r->lock);
}

/*--- Sites: the script lines, interned -------------------------------------*/

static uint32_t hash_text(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static int grow_index(struct mgpu_race *r)
{
    uint32_t cap = r->index_cap ? 2 * r->index_cap : 256;
    uint32_t *idx = calloc(cap, sizeof *idx);
    if (!idx) return 0;
    for (uint32_t i = 1; i < r->nsites; i++) {
        uint32_t h = r->sites[i].hash & (cap - 1);
        while (idx[h]) h = (h + 1) & (cap - 1);
        idx[h] = i + 1;
    }
    free(r->site_index);
    r->site_index = idx;
    r->index_cap = cap;
    return 1;
}

static uint32_t intern(struct mgpu_race *r, const char *text)
{
    if (!*text) return 0;
    if (r->nsites == 0) { /* slot 0 is "?" */
        r->sites = calloc(64, sizeof *r->sites);
        if (!r->sites) return 0;
        r->site_cap = 64;
        snprintf(r->sites[0].text, RACE_SITE_LEN, "?");
        r->nsites = 1;
    }
    uint32_t h = hash_text(text);
    if (r->index_cap) {
        for (uint32_t i = h & (r->index_cap - 1); r->site_index[i]; i = (i + 1) & (r->index_cap - 1)) {
            race_site *s = &r->sites[r->site_index[i] - 1];
            if (s->hash == h && strcmp(s->text, text) == 0) return r->site_index[i] - 1;
        }
    }
    if (r->nsites >= RACE_MAX_SITES) return 0;
    if (r->nsites == r->site_cap) {
        race_site *s = realloc(r->sites, 2 * (size_t)r->site_cap * sizeof *s);
        if (!s) return 0;
        r->sites = s;
        r->site_cap *= 2;
    }
    if (2 * (r->nsites + 1) > r->index_cap && !grow_index(r)) return 0;
    race_site *s = &r->sites[r->nsites];
    snprintf(s->text, RACE_SITE_LEN, "%s", text);
    s->hash = h;
    uint32_t i = h & (r->index_cap - 1);
    while (r->site_index[i]) i = (i + 1) & (r->index_cap - 1);
    r->site_index[i] = ++r->nsites;
    return r->nsites - 1;
}

uint32_t race_site_here(struct mgpu_race *r)
{
    if (!r->site_fn || !pthread_equal(r->owner, pthread_self())) return 0;
    const void *key = NULL;
    int line = 0;
    if (!r->site_fn(r->site_ctx, &key, &line, NULL, 0)) return 0;
    size_t slot = (((uintptr_t)key >> 4) ^ (size_t)line * 2654435761u) % (sizeof r->line_cache / sizeof r->line_cache[0]);
    if (r->line_cache[slot].key == key && r->line_cache[slot].line == line && r->line_cache[slot].site)
        return r->line_cache[slot].site;
    char buf[RACE_SITE_LEN] = "";
    if (!r->site_fn(r->site_ctx, &key, &line, buf, sizeof buf)) return 0;
    uint32_t site = intern(r, buf);
    r->line_cache[slot].key = key;
    r->line_cache[slot].line = line;
    r->line_cache[slot].site = site;
    return site;
}

uint32_t race_op_site(struct mgpu_race *r, mgpu_race_op *op)
{
    if (!op->site) op->site = race_site_here(r);
    return op->site;
}

const char *race_site_text(const struct mgpu_race *r, uint32_t site)
{
    return site && site < r->nsites ? r->sites[site].text : "?";
}

/*--- Streams and their clocks ------------------------------------------------*/

/* Every vector clock (slots' and the host's) gets room for `want` streams. */
static int grow_clocks(struct mgpu_race *r, int want)
{
    if (want <= r->cap) return 1;
    int cap = r->cap ? r->cap : 8;
    while (cap < want) cap *= 2;
    for (int i = 0; i < r->nslots; i++) {
        uint64_t *vc = realloc(r->slots[i].vc, (size_t)cap * sizeof *vc);
        if (!vc) return 0;
        memset(vc + r->cap, 0, (size_t)(cap - r->cap) * sizeof *vc);
        r->slots[i].vc = vc;
    }
    uint64_t *h = realloc(r->host_vc, (size_t)cap * sizeof *h);
    if (!h) return 0;
    memset(h + r->cap, 0, (size_t)(cap - r->cap) * sizeof *h);
    r->host_vc = h;
    race_slot *s = realloc(r->slots, (size_t)cap * sizeof *s);
    if (!s) return 0;
    r->slots = s;
    r->cap = cap;
    return 1;
}

static int new_slot(struct mgpu_race *r, mgpu_stream *s)
{
    if (r->nslots >= RACE_MAX_STREAMS || !grow_clocks(r, r->nslots + 1)) {
        r->stats.forgotten++; /* this stream's accesses go unchecked */
        return -1;
    }
    race_slot *sl = &r->slots[r->nslots];
    memset(sl, 0, sizeof *sl);
    sl->vc = calloc((size_t)r->cap, sizeof *sl->vc);
    if (!sl->vc) return -1;
    sl->device = s->device;
    sl->legacy = s->legacy_default;
    if (s->race_label[0]) {
        snprintf(sl->label, sizeof sl->label, "%s", s->race_label);
    } else if (s->legacy_default) {
        snprintf(sl->label, sizeof sl->label, "the legacy default stream of GPU %d", s->device);
    } else {
        uint32_t site = race_site_here(r);
        if (site) snprintf(sl->label, sizeof sl->label, "stream %d (made at %.40s)", r->nslots, race_site_text(r, site));
        else snprintf(sl->label, sizeof sl->label, "stream %d", r->nslots);
    }
    /* a new stream starts after what the host has seen */
    memcpy(sl->vc, r->host_vc, (size_t)r->cap * sizeof *sl->vc);
    sl->host_gen = r->host_gen;
    return r->nslots++;
}

int race_slot_of(struct mgpu_race *r, mgpu_stream *s)
{
    if (s->race_epoch == r->epoch && s->race_slot > 0) return s->race_slot - 1;
    int slot = -1;
    if (s->legacy_default) {
        if (!r->legacy_slot) r->legacy_slot = calloc((size_t)r->be->device_count + 1, sizeof *r->legacy_slot);
        if (r->legacy_slot && s->device >= 0 && s->device < r->be->device_count) {
            if (!r->legacy_slot[s->device]) {
                int k = new_slot(r, s);
                if (k >= 0) r->legacy_slot[s->device] = k + 1;
            }
            slot = r->legacy_slot[s->device] - 1;
        }
    } else {
        slot = new_slot(r, s);
    }
    if (slot < 0) return -1;
    s->race_slot = slot + 1;
    s->race_epoch = r->epoch;
    return slot;
}

static void join(uint64_t *into, const uint64_t *from, int n)
{
    for (int i = 0; i < n; i++)
        if (from[i] > into[i]) into[i] = from[i];
}

uint64_t race_tick(struct mgpu_race *r, int slot)
{
    race_slot *sl = &r->slots[slot];
    if (sl->host_gen != r->host_gen) { /* queued after the host saw what it waited for */
        join(sl->vc, r->host_vc, r->nslots);
        sl->host_gen = r->host_gen;
    }
    return ++sl->vc[slot];
}

void mgpu_race_stream_created(mgpu_stream *s)
{
    struct mgpu_race *r = race_of(s->be);
    if (!r || !r->flags) return;
    pthread_mutex_lock(&r->lock);
    race_slot_of(r, s); /* its label names the line that made it */
    pthread_mutex_unlock(&r->lock);
}

void mgpu_race_label_stream(mgpu_stream *s, const char *label)
{
    if (!s || !label) return;
    snprintf(s->race_label, sizeof s->race_label, "%s", label); /* kept for a later run's detector */
    struct mgpu_race *r = race_of(s->be);
    if (!r || !r->flags) return;
    pthread_mutex_lock(&r->lock);
    int k = race_slot_of(r, s);
    if (k >= 0) snprintf(r->slots[k].label, RACE_LABEL_LEN, "%s", label);
    pthread_mutex_unlock(&r->lock);
}

/*--- Events and the host -------------------------------------------------------*/

/* Stream k's clock leaves it (into an event, or the host's clock): from now
 * on another stream can be ordered after its accesses so far and not after
 * its next ones, so race_access.c keeps those apart. */
static void publish(struct mgpu_race *r, int k)
{
    r->slots[k].published = r->slots[k].vc[k];
}

typedef struct race_event {
    uint64_t epoch;
    int n, cap;
    uint64_t vc[];
} race_event;

void mgpu_race_event_record(mgpu_event *e, mgpu_stream *s)
{
    struct mgpu_race *r = race_of(s->be);
    if (!r || !r->flags || (e->flags & MGPU_EVENT_UNTRACKED)) return;
    pthread_mutex_lock(&r->lock);
    race_restore_locked(r);
    int k = race_slot_of(r, s);
    race_event *ev = e->race;
    if (k >= 0 && (!ev || ev->cap < r->nslots)) {
        ev = realloc(ev, sizeof *ev + (size_t)r->cap * sizeof ev->vc[0]);
        if (ev) {
            ev->cap = r->cap;
            e->race = ev;
        } else {
            ev = e->race; /* kept as it was: waits on it order less, never more */
            k = -1;
        }
    }
    if (k >= 0) {
        race_tick(r, k); /* the record is queued after what the host has seen, too */
        publish(r, k);
        ev->epoch = r->epoch;
        ev->n = r->nslots;
        memcpy(ev->vc, r->slots[k].vc, (size_t)r->nslots * sizeof ev->vc[0]);
    }
    pthread_mutex_unlock(&r->lock);
}

/* The event's clock, or NULL for one never recorded in this run (waiting on
 * it orders nothing, as in CUDA). */
static const race_event *event_clock(const struct mgpu_race *r, const mgpu_event *e)
{
    const race_event *ev = e->race;
    return ev && ev->epoch == r->epoch ? ev : NULL;
}

void mgpu_race_stream_wait(mgpu_stream *s, mgpu_event *e)
{
    struct mgpu_race *r = race_of(s->be);
    if (!r || !r->flags || (e->flags & MGPU_EVENT_UNTRACKED)) return;
    pthread_mutex_lock(&r->lock);
    race_restore_locked(r);
    r->stats.waits++;
    int k = race_slot_of(r, s);
    const race_event *ev = event_clock(r, e);
    if (k >= 0 && ev) join(r->slots[k].vc, ev->vc, ev->n);
    pthread_mutex_unlock(&r->lock);
}

static void host_join(struct mgpu_race *r, const uint64_t *vc, int n)
{
    race_restore_locked(r); /* the host may look at the data now */
    join(r->host_vc, vc, n);
    r->host_gen++;
}

void mgpu_race_host_waited_stream(mgpu_stream *s)
{
    struct mgpu_race *r = race_of(s->be);
    if (!r || !r->flags) return;
    pthread_mutex_lock(&r->lock);
    int k = race_slot_of(r, s);
    if (k >= 0) {
        publish(r, k);
        host_join(r, r->slots[k].vc, r->nslots);
    }
    pthread_mutex_unlock(&r->lock);
}

void mgpu_race_host_waited_event(mgpu_event *e)
{
    struct mgpu_race *r = race_of(e->be);
    if (!r || !r->flags || (e->flags & MGPU_EVENT_UNTRACKED)) return;
    pthread_mutex_lock(&r->lock);
    const race_event *ev = event_clock(r, e);
    if (ev) host_join(r, ev->vc, ev->n);
    pthread_mutex_unlock(&r->lock);
}

void mgpu_race_host_waited_device(mgpu_backend *be, int dev)
{
    struct mgpu_race *r = race_of(be);
    if (!r || !r->flags) return;
    pthread_mutex_lock(&r->lock);
    for (int k = 0; k < r->nslots; k++)
        if (r->slots[k].device == dev) {
            publish(r, k);
            host_join(r, r->slots[k].vc, r->nslots);
        }
    pthread_mutex_unlock(&r->lock);
}

void mgpu_race_event_destroyed(mgpu_event *e)
{
    free(e->race);
    e->race = NULL;
}

void mgpu_race_note_host_sync(mgpu_backend *be, const char *what, mgpu_stream *s)
{
    struct mgpu_race *r = race_of(be);
    if (!r || !r->flags) return;
    pthread_mutex_lock(&r->lock);
    r->stats.host_syncs++;
    uint32_t site = race_site_here(r);
    char stream[64] = "";
    int k = s ? race_slot_of(r, s) : -1;
    if (k >= 0) snprintf(stream, sizeof stream, "%s", r->slots[k].label);
    mgpu_race_sync *found = NULL;
    for (int i = 0; i < r->nsyncs && !found; i++)
        if (strcmp(r->syncs[i].what, what) == 0 && strcmp(r->syncs[i].site, race_site_text(r, site)) == 0 &&
            strcmp(r->syncs[i].stream, stream) == 0)
            found = &r->syncs[i];
    if (!found && r->nsyncs < MGPU_RACE_MAX_SYNCS) {
        found = &r->syncs[r->nsyncs++];
        memset(found, 0, sizeof *found);
        snprintf(found->what, sizeof found->what, "%s", what);
        snprintf(found->stream, sizeof found->stream, "%s", stream);
        snprintf(found->site, sizeof found->site, "%s", race_site_text(r, site));
    }
    if (found) found->count++;
    pthread_mutex_unlock(&r->lock);
}

void mgpu_race_host_read_begin(mgpu_backend *be, const char *what)
{
    struct mgpu_race *r = race_of(be);
    if (!r || !r->flags) return;
    pthread_mutex_lock(&r->lock);
    if (r->host_read_depth++ == 0) r->host_read_what = what;
    pthread_mutex_unlock(&r->lock);
}

void mgpu_race_host_read_end(mgpu_backend *be)
{
    struct mgpu_race *r = race_of(be);
    if (!r || !r->flags) return;
    pthread_mutex_lock(&r->lock);
    if (r->host_read_depth > 0) r->host_read_depth--;
    pthread_mutex_unlock(&r->lock);
}

/*--- Reports ------------------------------------------------------------------*/

static uint32_t kind_id(const char *kind) { return (uint32_t)kind[0] + 256u * (uint32_t)kind[6]; }

int race_add_report(struct mgpu_race *r, const mgpu_race_report *rep, uint32_t site_now, uint32_t site_then,
                    mgpu_race_report *out)
{
    r->stats.races++;
    uint32_t key[3] = {kind_id(rep->kind), site_now, site_then};
    for (int i = 0; i < r->nreports; i++)
        if (memcmp(r->report_key[i], key, sizeof key) == 0) {
            r->reports[i].count++;
            r->reports[i].shown |= rep->shown;
            return 0;
        }
    r->stats.distinct++;
    if (r->nreports >= MGPU_RACE_MAX_REPORTS) return 0;
    memcpy(r->report_key[r->nreports], key, sizeof key);
    r->reports[r->nreports] = *rep;
    r->reports[r->nreports].count = 1;
    *out = r->reports[r->nreports++];
    return r->report_fn != NULL;
}

const mgpu_race_report *mgpu_race_reports(const mgpu_backend *be, int *n)
{
    struct mgpu_race *r = race_of(be);
    *n = r ? r->nreports : 0;
    return *n ? r->reports : NULL;
}

const mgpu_race_sync *mgpu_race_syncs(const mgpu_backend *be, int *n)
{
    struct mgpu_race *r = race_of(be);
    *n = r ? r->nsyncs : 0;
    return *n ? r->syncs : NULL;
}

void mgpu_race_stats_get(const mgpu_backend *be, mgpu_race_stats *out)
{
    struct mgpu_race *r = race_of(be);
    if (!r) {
        memset(out, 0, sizeof *out);
        return;
    }
    pthread_mutex_lock(&r->lock);
    *out = r->stats;
    pthread_mutex_unlock(&r->lock);
}
