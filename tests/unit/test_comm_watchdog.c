/* test_comm_watchdog.c - the watchdog thread completes a tracked
 * collective's flight entry once its event is done, and forgets a comm's
 * entries when the comm goes (the sim's events are done at record time, so
 * the timeout path itself runs on the GPU machine: gpu tests). */
#include <string.h>
#include <time.h>
#include "comm/comm_core.h"
#include "comm/flight.h"
#include "tap.h"

static mgpu_result solo(void *ctx, const void *mine, void *all, size_t len)
{
    (void)ctx;
    memcpy(all, mine, len);
    return MGPU_OK;
}

int main(void)
{
    mgpu_backend_config bc = {MGPU_BACKEND_SIM, NULL, NULL};
    mgpu_backend *be = NULL;
    CHECK_OK(mgpu_backend_open(&bc, &be));
    mgpu_bootstrap bs = {NULL, 0, 1, solo};
    mgpu_comm_config cfg = {0, 1, 1.0, 0, 0, "wd"};
    mgpu_comm *c = NULL;
    CHECK_OK(mgpu_comm_init(be, &bs, &cfg, &c));
    if (!c) return tap_done();
    mgpu_flight_entry e;
    memset(&e, 0, sizeof e);
    e.seq = 1;
    e.state = MGPU_FLIGHT_STARTED;
    uint64_t slot = mgpu_flight_add(c->flight, &e);
    mgpu_event *ev = NULL;
    CHECK_OK(mgpu_comm_core_event_get(c, &ev));
    CHECK_OK(mgpu_event_record(ev, c->stream));
    CHECK_OK(mgpu_watchdog_track(c, c->stream, slot, MGPU_COLL_ALL_REDUCE, 1, ev));
    struct timespec nap = {0, 2 * 1000 * 1000};
    for (int i = 0; i < 500 && mgpu_watchdog_pending() > 0; i++) nanosleep(&nap, NULL);
    CHECK(mgpu_watchdog_pending() == 0);
    mgpu_flight_entry out[2];
    CHECK(mgpu_comm_flight_entries(c, out, 2) == 1 && out[0].state == MGPU_FLIGHT_COMPLETED);
    CHECK(mgpu_core(c)->npool == 1); /* the event went back to the pool */

    /* Entries of a comm being destroyed are dropped, never touched later. */
    CHECK_OK(mgpu_comm_core_event_get(c, &ev));
    slot = mgpu_flight_add(c->flight, &e);
    CHECK_OK(mgpu_watchdog_track(c, c->stream, slot, MGPU_COLL_BROADCAST, 2, ev));
    mgpu_watchdog_forget(c);
    CHECK(mgpu_watchdog_pending() == 0);
    CHECK_OK(mgpu_comm_async_error(c));
    CHECK_OK(mgpu_comm_destroy(c));
    mgpu_backend_close(be);
    return tap_done();
}
