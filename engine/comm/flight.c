/* flight.c - the flight recorder: a ring buffer of the last collectives of
 * one communicator, with states and host timestamps, and its JSON dump. */
#include "comm/flight.h"
#include "mgpu/clock.h"
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

struct mgpu_flight {
    pthread_mutex_t lock;
    int cap;
    uint64_t next;           /* slot id of the next entry; entry k lives at ring[k % cap] */
    uint64_t t0_ns;          /* monotonic start */
    double t0_unix_us;       /* the same instant on the wall clock, so ranks' dumps line up */
    mgpu_flight_entry *ring;
    const void **lane;       /* ring[k]'s watchdog lane (an opaque tag), NULL when none */
};

mgpu_flight *mgpu_flight_create(int entries)
{
    if (entries <= 0) entries = MGPU_FLIGHT_DEFAULT_ENTRIES;
    mgpu_flight *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->ring = calloc((size_t)entries, sizeof *f->ring);
    f->lane = calloc((size_t)entries, sizeof *f->lane);
    if (!f->ring || !f->lane) {
        free(f->ring);
        free(f->lane);
        free(f);
        return NULL;
    }
    f->cap = entries;
    pthread_mutex_init(&f->lock, NULL);
    f->t0_ns = mgpu_now_ns();
    struct timeval tv;
    gettimeofday(&tv, NULL);
    f->t0_unix_us = (double)tv.tv_sec * 1e6 + (double)tv.tv_usec;
    return f;
}

void mgpu_flight_free(mgpu_flight *f)
{
    if (!f) return;
    pthread_mutex_destroy(&f->lock);
    free(f->ring);
    free(f->lane);
    free(f);
}

double mgpu_flight_now_us(const mgpu_flight *f)
{
    /* Never exactly 0: 0 means "not yet" in the entries. */
    double us = (double)(mgpu_now_ns() - f->t0_ns) / 1e3;
    return us > 0 ? us : 1e-3;
}

int mgpu_flight_capacity(const mgpu_flight *f) { return f->cap; }

uint64_t mgpu_flight_add_on(mgpu_flight *f, const mgpu_flight_entry *e, const void *lane)
{
    pthread_mutex_lock(&f->lock);
    uint64_t slot = f->next;
    __atomic_store_n(&f->next, slot + 1, __ATOMIC_RELEASE);
    mgpu_flight_entry *d = &f->ring[slot % (uint64_t)f->cap];
    *d = *e;
    f->lane[slot % (uint64_t)f->cap] = lane;
    d->comm[sizeof d->comm - 1] = '\0';
    d->t_enqueue_us = mgpu_flight_now_us(f);
    d->t_start_us = d->t_end_us = 0;
    if (d->state >= MGPU_FLIGHT_STARTED) d->t_start_us = d->t_enqueue_us;
    if (d->state >= MGPU_FLIGHT_COMPLETED) d->t_end_us = d->t_enqueue_us;
    pthread_mutex_unlock(&f->lock);
    return slot;
}

uint64_t mgpu_flight_add(mgpu_flight *f, const mgpu_flight_entry *e) { return mgpu_flight_add_on(f, e, NULL); }

/* Slot k's entry while the ring still keeps it, else NULL (lock held). */
static mgpu_flight_entry *kept_locked(mgpu_flight *f, uint64_t k)
{
    return k < f->next && f->next - k <= (uint64_t)f->cap ? &f->ring[k % (uint64_t)f->cap] : NULL;
}

/* An unfinished entry moves to `state` (started, completed, failed) with
 * its times; a finished one stays finished: a late completion after the
 * watchdog declared it failed must not make it look healthy. */
static void set_state_locked(mgpu_flight_entry *d, mgpu_flight_state state, double now)
{
    if (d->state >= MGPU_FLIGHT_COMPLETED) return;
    d->state = state;
    if (state >= MGPU_FLIGHT_STARTED && d->t_start_us == 0) d->t_start_us = now;
    if (state >= MGPU_FLIGHT_COMPLETED) d->t_end_us = now;
}

int mgpu_flight_finish_lane(mgpu_flight *f, const void *lane, uint64_t upto, mgpu_flight_state state)
{
    int n = 0;
    pthread_mutex_lock(&f->lock);
    double now = mgpu_flight_now_us(f);
    uint64_t first = f->next > (uint64_t)f->cap ? f->next - (uint64_t)f->cap : 0;
    for (uint64_t k = first; k < f->next && k <= upto; k++)
        if (f->lane[k % (uint64_t)f->cap] == lane && f->ring[k % (uint64_t)f->cap].state < MGPU_FLIGHT_COMPLETED) {
            set_state_locked(&f->ring[k % (uint64_t)f->cap], state, now);
            n++;
        }
    pthread_mutex_unlock(&f->lock);
    return n;
}

int mgpu_flight_oldest_unfinished(mgpu_flight *f, const void *lane, mgpu_flight_entry *out)
{
    int found = 0;
    pthread_mutex_lock(&f->lock);
    uint64_t first = f->next > (uint64_t)f->cap ? f->next - (uint64_t)f->cap : 0;
    for (uint64_t k = first; k < f->next && !found; k++)
        if (f->lane[k % (uint64_t)f->cap] == lane && f->ring[k % (uint64_t)f->cap].state < MGPU_FLIGHT_COMPLETED) {
            *out = f->ring[k % (uint64_t)f->cap];
            found = 1;
        }
    pthread_mutex_unlock(&f->lock);
    return found;
}

int mgpu_flight_set_state(mgpu_flight *f, uint64_t slot, mgpu_flight_state state)
{
    pthread_mutex_lock(&f->lock);
    mgpu_flight_entry *d = kept_locked(f, slot);
    if (d) set_state_locked(d, state, mgpu_flight_now_us(f));
    pthread_mutex_unlock(&f->lock);
    return d != NULL;
}

double mgpu_flight_age_s(mgpu_flight *f, uint64_t slot)
{
    double age = -1;
    pthread_mutex_lock(&f->lock);
    const mgpu_flight_entry *d = kept_locked(f, slot);
    if (d) age = (mgpu_flight_now_us(f) - d->t_enqueue_us) / 1e6;
    pthread_mutex_unlock(&f->lock);
    return age;
}

int mgpu_flight_copy(mgpu_flight *f, mgpu_flight_entry *out, int max)
{
    pthread_mutex_lock(&f->lock);
    uint64_t have = f->next < (uint64_t)f->cap ? f->next : (uint64_t)f->cap;
    if (max < 0) max = 0;
    if (have > (uint64_t)max) have = (uint64_t)max;
    for (uint64_t i = 0; i < have; i++) out[i] = f->ring[(f->next - have + i) % (uint64_t)f->cap];
    pthread_mutex_unlock(&f->lock);
    return (int)have;
}

const char *mgpu_flight_state_name(mgpu_flight_state s)
{
    static const char *const names[] = {"enqueued", "started", "completed", "failed"};
    return (unsigned)s < 4 ? names[s] : "unknown";
}

int mgpu_flight_state_parse(const char *name)
{
    for (int i = 0; i < 4 && name; i++)
        if (strcmp(name, mgpu_flight_state_name((mgpu_flight_state)i)) == 0) return i;
    return -1;
}

static json_t *entry_json(const mgpu_flight_entry *e)
{
    return json_pack("{s:I, s:s, s:I, s:s, s:s, s:i, s:i, s:s, s:f, s:f, s:f, s:s}", "seq", (json_int_t)e->seq, "op",
                     mgpu_coll_name(e->op), "count", (json_int_t)e->count, "dtype", mgpu_dtype_name(e->dtype),
                     "redop", mgpu_redop_name(e->redop), "root", e->root_or_peer, "device", e->stream_device,
                     "state", mgpu_flight_state_name(e->state), "t_enqueue_us", e->t_enqueue_us, "t_start_us",
                     e->t_start_us, "t_end_us", e->t_end_us, "where", e->where);
}

char *mgpu_flight_dump(mgpu_flight *f, int rank, int size, const char *comm_name, uint64_t comm_id,
                       const char *backend)
{
    int cap = mgpu_flight_capacity(f);
    mgpu_flight_entry *es = malloc((size_t)cap * sizeof *es);
    if (!es) return NULL;
    int n = mgpu_flight_copy(f, es, cap);
    char id[24];
    /* A string: a 64-bit hash does not fit JSON's (and jansson's) integers. */
    snprintf(id, sizeof id, "%016llx", (unsigned long long)comm_id);
    json_t *arr = json_array();
    json_t *root = json_pack("{s:i, s:i, s:i, s:s, s:s, s:s, s:f, s:i}", "version", 1, "rank", rank, "size", size,
                             "comm", comm_name ? comm_name : "", "comm_id", id, "backend", backend ? backend : "",
                             "t0_unix_us", f->t0_unix_us, "capacity", cap);
    char *text = NULL;
    if (arr && root) {
        for (int i = 0; i < n; i++) json_array_append_new(arr, entry_json(&es[i]));
        json_object_set(root, "entries", arr);
        text = json_dumps(root, JSON_COMPACT);
    }
    json_decref(arr);
    json_decref(root);
    free(es);
    return text;
}
