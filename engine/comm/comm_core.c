/* comm_core.c - the per-communicator state every file of comm/ shares
 * (comm_core.h): timeout, the first asynchronous error, the backend abort,
 * whether a comm is still usable, and the pool of completion events. comm.c,
 * comm_coll.c, watchdog.c and fingerprint.c call down into it; it calls
 * none of them. */
#include "comm/comm_core.h"
#include <stdio.h>
#include <stdlib.h>

void mgpu_comm_core_set_error(mgpu_comm *c, mgpu_result r, const char *msg)
{
    mgpu_comm_core *k = mgpu_core(c);
    pthread_mutex_lock(&k->lock);
    if (k->async_err == MGPU_OK) {
        snprintf(k->async_msg, sizeof k->async_msg, "%s", msg);
        __atomic_store_n(&k->async_err, r, __ATOMIC_RELEASE); /* read without the lock: check_usable */
    }
    pthread_mutex_unlock(&k->lock);
}

void mgpu_comm_core_abort_backend(mgpu_comm *c)
{
    mgpu_comm_core *k = mgpu_core(c);
    pthread_mutex_lock(&k->lock);
    int first = !k->backend_aborted;
    __atomic_store_n(&k->backend_aborted, 1, __ATOMIC_RELEASE);
    c->aborted = 1;
    pthread_mutex_unlock(&k->lock);
    if (first && c->impl) c->ops->abort(c);
}

void mgpu_comm_timeout_sentence(const mgpu_comm *c, mgpu_coll op, uint64_t seq, char *buf, size_t len)
{
    snprintf(buf, len,
             "%s #%llu on comm %s did not complete within %g s: a rank is missing or called a different "
             "collective",
             mgpu_coll_name(op), (unsigned long long)seq, c->name, mgpu_core(c)->timeout_s);
}

mgpu_result mgpu_comm_core_event_get(mgpu_comm *c, mgpu_event **out)
{
    mgpu_comm_core *k = mgpu_core(c);
    pthread_mutex_lock(&k->lock);
    *out = k->npool ? k->pool[--k->npool] : NULL;
    pthread_mutex_unlock(&k->lock);
    if (!*out) MGPU_CHECK(mgpu_event_create(c->be, c->device, MGPU_EVENT_UNTRACKED, out));
    return MGPU_OK;
}

void mgpu_comm_core_event_put(mgpu_comm *c, mgpu_event *e)
{
    mgpu_comm_core *k = mgpu_core(c);
    pthread_mutex_lock(&k->lock);
    if (k->npool == k->cappool) {
        int cap = k->cappool ? 2 * k->cappool : 8;
        mgpu_event **p = realloc(k->pool, (size_t)cap * sizeof *p);
        if (p) {
            k->pool = p;
            k->cappool = cap;
        }
    }
    if (k->npool < k->cappool) {
        k->pool[k->npool++] = e;
        e = NULL;
    }
    pthread_mutex_unlock(&k->lock);
    if (e) mgpu_event_destroy(e);
}

mgpu_result mgpu_comm_core_check_usable(mgpu_comm *c, const char *api)
{
    if (!c) return mgpu_fail(MGPU_ERR_INVALID, "%s: no communicator", api);
    mgpu_comm_core *k = mgpu_core(c);
    /* Every collective asks: the healthy answer takes no lock. */
    if (__atomic_load_n(&k->async_err, __ATOMIC_ACQUIRE) == MGPU_OK &&
        !__atomic_load_n(&k->backend_aborted, __ATOMIC_ACQUIRE))
        return MGPU_OK;
    pthread_mutex_lock(&k->lock);
    mgpu_result r = k->async_err;
    char msg[sizeof k->async_msg];
    snprintf(msg, sizeof msg, "%s", k->async_msg);
    int aborted = k->backend_aborted;
    pthread_mutex_unlock(&k->lock);
    if (r != MGPU_OK)
        return mgpu_fail(r, "%s; communicator %s is unusable now: destroy it and create a new one", msg, c->name);
    if (aborted)
        return mgpu_fail(MGPU_ERR_INVALID, "%s: communicator %s was aborted; destroy it and create a new one", api,
                         c->name);
    return MGPU_OK;
}
