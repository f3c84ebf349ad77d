/* test_comm_watchdog.c - the watchdog thread completes a tracked
 * collective's flight entry once the fence it records on the stream is
 * done, keeps a stream the caller destroyed meanwhile alive until then, and
 * forgets a comm's entries when the comm goes (the sim's events are done at
 * record time, so the timeout path itself runs on the GPU machine: gpu
 * tests). It waits for the thread's work, never for a time. */
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
    /* Three calls on one stream: one fence covers them all. */
    uint64_t slot = 0;
    mgpu_wd_lane *lane = NULL, *again = NULL;
    CHECK_OK(mgpu_watchdog_lane(c, c->stream, &lane));
    CHECK_OK(mgpu_watchdog_lane(c, c->stream, &again));
    CHECK(lane && lane == again); /* one lane per (comm, stream) */
    for (uint64_t seq = 1; seq <= 3; seq++) {
        e.seq = seq;
        slot = mgpu_flight_add_on(c->flight, &e, lane);
        mgpu_watchdog_launched(lane, slot);
    }
    int pending = mgpu_watchdog_pending_for(c);
    CHECK(pending >= 0 && pending <= 3);
    struct timespec nap = {0, 2 * 1000 * 1000};
    for (int i = 0; i < 5000 && mgpu_watchdog_pending() > 0; i++) nanosleep(&nap, NULL);
    CHECK(mgpu_watchdog_pending() == 0);
    mgpu_flight_entry out[4];
    CHECK(mgpu_comm_flight_entries(c, out, 4) == 3);
    for (int i = 0; i < 3; i++) CHECK(out[i].state == MGPU_FLIGHT_COMPLETED);
    CHECK(mgpu_core(c)->npool == 1); /* one fence, back in the pool */

    /* A stream destroyed by its owner while the watchdog still has work on
     * it: the watchdog's reference keeps it until the fence is done (ASan
     * would see a use after free otherwise). */
    mgpu_stream *own = NULL;
    CHECK_OK(mgpu_stream_create(be, 0, 0, &own));
    e.seq = 4;
    mgpu_wd_lane *own_lane = NULL;
    CHECK_OK(mgpu_watchdog_lane(c, own, &own_lane));
    CHECK(own_lane && own_lane != lane);
    slot = mgpu_flight_add_on(c->flight, &e, own_lane);
    mgpu_watchdog_launched(own_lane, slot);
    mgpu_stream_destroy(own);
    for (int i = 0; i < 5000 && mgpu_watchdog_pending() > 0; i++) nanosleep(&nap, NULL);
    CHECK(mgpu_watchdog_pending() == 0);
    CHECK(mgpu_comm_flight_entries(c, out, 4) == 4 && out[3].state == MGPU_FLIGHT_COMPLETED);
    /* Its lane gave the stream back once idle (pending is read under the
     * thread's lock, so that poll is over): the next new stream takes it. */
    mgpu_stream *next = NULL;
    CHECK_OK(mgpu_stream_create(be, 0, 0, &next));
    mgpu_wd_lane *next_lane = NULL;
    CHECK_OK(mgpu_watchdog_lane(c, next, &next_lane));
    CHECK(next_lane == own_lane);
    mgpu_stream_destroy(next);

    /* Entries of a comm being destroyed are dropped, never touched later. */
    e.seq = 5;
    e.op = MGPU_COLL_BROADCAST;
    slot = mgpu_flight_add_on(c->flight, &e, lane);
    mgpu_watchdog_launched(lane, slot);
    mgpu_watchdog_forget(c);
    CHECK(mgpu_watchdog_pending() == 0);
    CHECK_OK(mgpu_comm_async_error(c));
    CHECK_OK(mgpu_comm_destroy(c));
    mgpu_backend_close(be);
    return tap_done();
}
