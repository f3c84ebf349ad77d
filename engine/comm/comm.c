/* comm.c - the communicator core above both backends: creation, split,
 * destroy and abort, the registry of live communicators, group depth, and
 * the one path every collective takes (checks, flight recorder, fingerprint
 * check, launch, completion tracking for the watchdog). */
#include "comm/comm_args.h"
#include "comm/comm_core.h"
#include "comm/flight.h"
#include "mgpu/log.h"
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*--- Registry of live communicators ------------------------------------*/

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static mgpu_comm_core *registry;

static void registry_add(mgpu_comm_core *k)
{
    pthread_mutex_lock(&registry_lock);
    k->next = registry;
    registry = k;
    pthread_mutex_unlock(&registry_lock);
}

static void registry_remove(mgpu_comm_core *k)
{
    pthread_mutex_lock(&registry_lock);
    for (mgpu_comm_core **p = &registry; *p; p = &(*p)->next)
        if (*p == k) {
            *p = k->next;
            break;
        }
    pthread_mutex_unlock(&registry_lock);
}

static void comm_free(mgpu_comm *c)
{
    if (!c) return;
    mgpu_comm_core *k = mgpu_core(c);
    if (k) {
        mgpu_fingerprint_release(c);
        for (int i = 0; i < k->npool; i++) mgpu_event_destroy(k->pool[i]);
        free(k->pool);
        pthread_mutex_destroy(&k->lock);
        free(k);
    }
    if (c->stream) mgpu_stream_destroy(c->stream);
    mgpu_flight_free(c->flight);
    free(c);
}

/* Everything but the backend: struct, core, flight recorder, own stream. */
static mgpu_result comm_alloc(mgpu_backend *be, const struct mgpu_comm_ops *ops, const mgpu_comm_config *cfg,
                              const char *name, mgpu_comm **out)
{
    mgpu_comm *c = calloc(1, sizeof *c);
    mgpu_comm_core *k = calloc(1, sizeof *k);
    if (!c || !k) {
        free(c);
        free(k);
        return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory creating a communicator");
    }
    c->core = k;
    pthread_mutex_init(&k->lock, NULL);
    k->comm = c;
    c->ops = ops;
    c->be = be;
    c->cfg = *cfg;
    c->device = cfg->device;
    c->next_seq = 0;
    snprintf(c->name, sizeof c->name, "%s", name && *name ? name : "world");
    c->cfg.name = c->name;
    k->timeout_s = mgpu_comm_resolve_timeout(cfg);
    const char *fp = getenv("MGPU_FINGERPRINT");
    k->fingerprint = cfg->fingerprint || (fp && strcmp(fp, "1") == 0);
    c->flight = mgpu_flight_create(cfg->flight_entries);
    if (!c->flight) {
        comm_free(c);
        return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory creating a flight recorder of %d entries",
                         cfg->flight_entries);
    }
    mgpu_result r = mgpu_stream_create(be, c->device, 0, &c->stream);
    if (r != MGPU_OK) {
        c->stream = NULL;
        comm_free(c);
        return r;
    }
    *out = c;
    return MGPU_OK;
}

/*--- Creation and teardown ---------------------------------------------*/

mgpu_result mgpu_comm_init(mgpu_backend *be, const mgpu_bootstrap *bs, const mgpu_comm_config *cfg,
                           mgpu_comm **out)
{
    static const mgpu_comm_config defaults = {0, 1, 0, 0, 0, "world"};
    if (!out) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_comm_init: no output pointer");
    *out = NULL;
    if (!be) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_comm_init: no device backend");
    if (!bs || !bs->allgather)
        return mgpu_fail(MGPU_ERR_INVALID, "mgpu_comm_init: a bootstrap with an all-gather is needed");
    if (bs->size < 1 || bs->rank < 0 || bs->rank >= bs->size)
        return mgpu_fail(MGPU_ERR_INVALID, "mgpu_comm_init: rank %d of size %d is not a valid rank", bs->rank,
                         bs->size);
    if (!cfg) cfg = &defaults;
    if (cfg->timeout_s < 0)
        return mgpu_fail(MGPU_ERR_INVALID, "mgpu_comm_init: timeout %g s is negative", cfg->timeout_s);
    if (cfg->flight_entries < 0)
        return mgpu_fail(MGPU_ERR_INVALID, "mgpu_comm_init: flight recorder size %d is negative",
                         cfg->flight_entries);
    MGPU_CHECK(mgpu_comm_timeout_env_check());
    int ndev = 0;
    MGPU_CHECK(mgpu_device_count(be, &ndev));
    if (cfg->device < 0 || cfg->device >= ndev)
        return mgpu_fail(MGPU_ERR_INVALID, "mgpu_comm_init: device %d does not exist (the %s backend has %d)",
                         cfg->device, mgpu_backend_name(be), ndev);
    const struct mgpu_comm_ops *ops = mgpu_comm_backend_for(mgpu_backend_name(be));
    if (!ops)
        return mgpu_fail(MGPU_ERR_UNSUPPORTED, "no communicator backend pairs with the %s device backend in this build",
                         mgpu_backend_name(be));
    mgpu_comm *c = NULL;
    MGPU_CHECK(comm_alloc(be, ops, cfg, cfg->name, &c));
    c->rank = bs->rank;
    c->size = bs->size;
    mgpu_result r = ops->init(c, bs);
    if (r != MGPU_OK) {
        comm_free(c);
        mgpu_error_breadcrumb(__FILE__, __LINE__, __func__);
        return r;
    }
    registry_add(mgpu_core(c));
    *out = c;
    return MGPU_OK;
}

mgpu_result mgpu_comm_split(mgpu_comm *parent, int color, int key, const char *name, mgpu_comm **out)
{
    if (!out) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_comm_split: no output pointer");
    *out = NULL;
    MGPU_CHECK(mgpu_comm_core_check_usable(parent, "mgpu_comm_split"));
    if (color < 0 && color != MGPU_SPLIT_NOCOLOR)
        return mgpu_fail(MGPU_ERR_INVALID, "mgpu_comm_split: color %d is negative; use a color >= 0, or "
                         "MGPU_SPLIT_NOCOLOR (-1) to stay out", color);
    char auto_name[32];
    if (!name || !*name) {
        /* Same on every member of one group: parent name and color. */
        snprintf(auto_name, sizeof auto_name, "%.20s/%d", parent->name, color);
        name = auto_name;
    }
    mgpu_comm *child = NULL;
    MGPU_CHECK(comm_alloc(parent->be, parent->ops, &parent->cfg, name, &child));
    int member = 1;
    mgpu_result r = parent->ops->split(parent, color, key, child, &member);
    parent->split_count++;
    if (r != MGPU_OK || !member || color < 0) {
        if (r == MGPU_OK && member && child->impl) child->ops->destroy(child);
        comm_free(child);
        if (r != MGPU_OK) mgpu_error_breadcrumb(__FILE__, __LINE__, __func__);
        return r;
    }
    registry_add(mgpu_core(child));
    *out = child;
    return MGPU_OK;
}

mgpu_result mgpu_comm_destroy(mgpu_comm *c)
{
    if (!c) return MGPU_OK;
    mgpu_comm_core *k = mgpu_core(c);
    /* Let queued collectives settle while the watchdog still watches them:
     * a script that returns right after a mismatched collective must end
     * with the watchdog's verdict, not hang in the backend's teardown nor
     * pass for a success. The watchdog bounds this wait by its timeout. */
    while (mgpu_watchdog_pending_for(c) > 0 && !k->backend_aborted) usleep(1000);
    registry_remove(k);
    mgpu_watchdog_forget(c);
    mgpu_result r = MGPU_OK;
    if (!k->backend_aborted && c->impl) r = c->ops->destroy(c);
    comm_free(c);
    return r;
}

void mgpu_comm_abort(mgpu_comm *c)
{
    if (!c) return;
    registry_remove(mgpu_core(c));
    mgpu_watchdog_forget(c);
    mgpu_comm_core_abort_backend(c);
    comm_free(c);
}

void mgpu_comm_abort_all(void)
{
    pthread_mutex_lock(&registry_lock);
    for (mgpu_comm_core *k = registry; k; k = k->next) {
        char msg[160];
        snprintf(msg, sizeof msg, "communicator %s was aborted because another rank failed", k->comm->name);
        mgpu_comm_core_set_error(k->comm, MGPU_ERR_IO, msg);
        mgpu_comm_core_abort_backend(k->comm);
    }
    pthread_mutex_unlock(&registry_lock);
}

mgpu_result mgpu_comm_check_all(void)
{
    /* Queued collectives first settle under the watchdog (it bounds this
     * by its timeout), so a job that ends right after a mismatched call
     * gets the verdict instead of passing for a success. */
    while (mgpu_watchdog_pending() > 0) {
        int aborted_all = 1;
        pthread_mutex_lock(&registry_lock);
        for (mgpu_comm_core *k = registry; k; k = k->next)
            if (mgpu_watchdog_pending_for(k->comm) > 0 && !k->backend_aborted) aborted_all = 0;
        pthread_mutex_unlock(&registry_lock);
        if (aborted_all) break;
        usleep(1000);
    }
    mgpu_result r = MGPU_OK;
    pthread_mutex_lock(&registry_lock);
    for (mgpu_comm_core *k = registry; k && r == MGPU_OK; k = k->next) {
        mgpu_comm *c = k->comm;
        r = mgpu_comm_core_check_usable(c, "mgpu_comm_check_all");
        if (r == MGPU_OK && !k->backend_aborted && c->impl) {
            r = c->ops->async_error(c);
            if (r != MGPU_OK) mgpu_comm_core_set_error(c, r, mgpu_error_message());
        }
    }
    pthread_mutex_unlock(&registry_lock);
    return r;
}

char *mgpu_comm_flight_dump_all_json(void)
{
    json_t *arr = json_array();
    if (!arr) return NULL;
    pthread_mutex_lock(&registry_lock);
    for (mgpu_comm_core *k = registry; k; k = k->next) {
        char *one = mgpu_comm_flight_dump_json(k->comm);
        json_t *j = one ? json_loads(one, 0, NULL) : NULL;
        if (j) json_array_append_new(arr, j);
        free(one);
    }
    pthread_mutex_unlock(&registry_lock);
    char *text = json_dumps(arr, JSON_COMPACT);
    json_decref(arr);
    return text;
}

/*--- Accessors ---------------------------------------------------------*/

int mgpu_comm_rank(const mgpu_comm *c) { return c ? c->rank : -1; }
int mgpu_comm_size(const mgpu_comm *c) { return c ? c->size : 0; }
int mgpu_comm_device(const mgpu_comm *c) { return c ? c->device : -1; }
const char *mgpu_comm_name(const mgpu_comm *c) { return c ? c->name : ""; }
const char *mgpu_comm_backend_name(const mgpu_comm *c) { return c ? c->ops->name : ""; }
mgpu_stream *mgpu_comm_stream(mgpu_comm *c) { return c ? c->stream : NULL; }

mgpu_result mgpu_comm_async_error(mgpu_comm *c)
{
    MGPU_CHECK(mgpu_comm_core_check_usable(c, "mgpu_comm_async_error"));
    mgpu_result r = c->ops->async_error(c);
    if (r != MGPU_OK) mgpu_comm_core_set_error(c, r, mgpu_error_message());
    return r;
}

int mgpu_comm_flight_entries(mgpu_comm *c, mgpu_flight_entry *out, int max)
{
    return c && out ? mgpu_flight_copy(c->flight, out, max) : 0;
}

char *mgpu_comm_flight_dump_json(mgpu_comm *c)
{
    if (!c) return NULL;
    return mgpu_flight_dump(c->flight, c->rank, c->size, c->name, c->id, c->ops->name);
}
