/* test_comm_flight.c - the flight recorder's ring buffer, states and
 * timestamps, and its JSON dump. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "comm/flight.h"
#include "tap.h"

static mgpu_flight_entry entry(uint64_t seq, mgpu_coll op, uint64_t count)
{
    mgpu_flight_entry e;
    memset(&e, 0, sizeof e);
    e.seq = seq;
    e.op = op;
    e.count = count;
    e.dtype = MGPU_BF16;
    e.redop = MGPU_MAX;
    e.root_or_peer = -1;
    strcpy(e.comm, "world");
    e.comm_id = 0xfeedface12345678ull;
    e.state = MGPU_FLIGHT_ENQUEUED;
    return e;
}

int main(void)
{
    mgpu_flight *f = mgpu_flight_create(4);
    CHECK(f && mgpu_flight_capacity(f) == 4);
    mgpu_flight_entry out[8];
    CHECK(mgpu_flight_copy(f, out, 8) == 0);

    /* States move forward with their timestamps. */
    mgpu_flight_entry e = entry(1, MGPU_COLL_ALL_REDUCE, 100);
    uint64_t s1 = mgpu_flight_add(f, &e);
    CHECK(mgpu_flight_copy(f, out, 8) == 1);
    CHECK(out[0].state == MGPU_FLIGHT_ENQUEUED && out[0].t_enqueue_us > 0 && out[0].t_start_us == 0);
    CHECK(mgpu_flight_set_state(f, s1, MGPU_FLIGHT_STARTED));
    CHECK(mgpu_flight_set_state(f, s1, MGPU_FLIGHT_COMPLETED));
    mgpu_flight_copy(f, out, 8);
    CHECK(out[0].state == MGPU_FLIGHT_COMPLETED);
    CHECK(out[0].t_start_us >= out[0].t_enqueue_us && out[0].t_end_us >= out[0].t_start_us);
    /* A finished entry stays as it finished (a late event after a timeout). */
    CHECK(mgpu_flight_set_state(f, s1, MGPU_FLIGHT_FAILED));
    mgpu_flight_copy(f, out, 8);
    CHECK(out[0].state == MGPU_FLIGHT_COMPLETED);

    /* Wrap: 6 entries into 4 slots keep the newest 4, oldest first. */
    for (uint64_t i = 2; i <= 6; i++) {
        e = entry(i, i % 2 ? MGPU_COLL_BROADCAST : MGPU_COLL_ALL_GATHER, i * 10);
        mgpu_flight_add(f, &e);
    }
    int n = mgpu_flight_copy(f, out, 8);
    CHECK(n == 4);
    for (int i = 0; i < n; i++) CHECKF(out[i].seq == (uint64_t)(3 + i), "slot %d seq %llu", i, (unsigned long long)out[i].seq);
    CHECK(mgpu_flight_copy(f, out, 2) == 2 && out[0].seq == 5 && out[1].seq == 6);
    /* The overwritten slot is gone: updating it must not touch its successor. */
    CHECK(!mgpu_flight_set_state(f, s1, MGPU_FLIGHT_FAILED));
    CHECK(!mgpu_flight_set_state(f, 1000, MGPU_FLIGHT_FAILED));
    mgpu_flight_copy(f, out, 8);
    CHECK(out[0].state == MGPU_FLIGHT_ENQUEUED);
    CHECK(mgpu_flight_set_state(f, 5, MGPU_FLIGHT_FAILED)); /* slot 5 holds seq 6 */
    mgpu_flight_copy(f, out, 8);
    CHECK(out[3].state == MGPU_FLIGHT_FAILED && out[3].t_end_us > 0);

    /* The dump. */
    char *text = mgpu_flight_dump(f, 2, 4, "world", 0xfeedface12345678ull, "sim");
    CHECK(text != NULL);
    json_error_t err;
    json_t *j = text ? json_loads(text, 0, &err) : NULL;
    CHECKF(j != NULL, "%s", text ? text : "(null)");
    if (j) {
        CHECK(json_integer_value(json_object_get(j, "rank")) == 2);
        CHECK(json_integer_value(json_object_get(j, "size")) == 4);
        CHECK(strcmp(json_string_value(json_object_get(j, "comm")), "world") == 0);
        CHECK(strcmp(json_string_value(json_object_get(j, "comm_id")), "feedface12345678") == 0);
        CHECK(strcmp(json_string_value(json_object_get(j, "backend")), "sim") == 0);
        json_t *es = json_object_get(j, "entries");
        CHECK(json_array_size(es) == 4);
        json_t *last = json_array_get(es, 3);
        CHECK(json_integer_value(json_object_get(last, "seq")) == 6);
        CHECK(strcmp(json_string_value(json_object_get(last, "op")), "all_gather") == 0);
        CHECK(json_integer_value(json_object_get(last, "count")) == 60);
        CHECK(strcmp(json_string_value(json_object_get(last, "dtype")), "bf16") == 0);
        CHECK(strcmp(json_string_value(json_object_get(last, "redop")), "max") == 0);
        CHECK(strcmp(json_string_value(json_object_get(last, "state")), "failed") == 0);
        CHECK(json_integer_value(json_object_get(last, "root")) == -1);
        json_decref(j);
    }
    free(text);

    /* Names round-trip. */
    for (int s = 0; s < 4; s++)
        CHECK(mgpu_flight_state_parse(mgpu_flight_state_name((mgpu_flight_state)s)) == s);
    CHECK(mgpu_flight_state_parse("bogus") == -1 && mgpu_flight_state_parse(NULL) == -1);
    mgpu_flight_free(f);

    /* Defaults and an empty dump. */
    f = mgpu_flight_create(0);
    CHECK(mgpu_flight_capacity(f) == MGPU_FLIGHT_DEFAULT_ENTRIES);
    text = mgpu_flight_dump(f, 0, 1, "w", 1, "nccl");
    CHECK(text && strstr(text, "\"entries\":[]"));
    free(text);
    mgpu_flight_free(f);
    return tap_done();
}
