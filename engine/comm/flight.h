/* flight.h - the flight recorder (private to engine/comm): a per-communicator
 * ring buffer of the last collectives with their state and host timestamps.
 *
 * Entries are identified by a monotonically growing slot id; once the ring
 * wraps, updates to a slot that was overwritten are ignored (the entry is
 * gone, and the newer one must not be touched). Thread-safe: the watchdog
 * thread completes entries while the caller's thread adds new ones. */
#ifndef MGPU_FLIGHT_H
#define MGPU_FLIGHT_H
#include "mgpu/comm.h"

struct mgpu_flight;
typedef struct mgpu_flight mgpu_flight;

#define MGPU_FLIGHT_DEFAULT_ENTRIES 256

/* entries <= 0: the default. NULL when out of memory. */
mgpu_flight *mgpu_flight_create(int entries);
void mgpu_flight_free(mgpu_flight *f);

/* Append an entry (its state and t_enqueue_us are set here from e->state
 * and the recorder's clock); returns its slot id. */
uint64_t mgpu_flight_add(mgpu_flight *f, const mgpu_flight_entry *e);
/* The same, on a watchdog lane: `lane` is an opaque tag the watchdog
 * finishes the lane's entries by (NULL: none). */
uint64_t mgpu_flight_add_on(mgpu_flight *f, const mgpu_flight_entry *e, const void *lane);
/* Move every unfinished entry of `lane` with a slot <= upto that the ring
 * still keeps to `state` (completed or failed); returns how many. */
int mgpu_flight_finish_lane(mgpu_flight *f, const void *lane, uint64_t upto, mgpu_flight_state state);
/* The oldest unfinished entry of `lane` the ring still keeps: 1 and *out, or 0. */
int mgpu_flight_oldest_unfinished(mgpu_flight *f, const void *lane, mgpu_flight_entry *out);
/* Move an entry to `state`, stamping the matching time (started: t_start,
 * completed/failed: t_end). Returns 0 when the slot was overwritten. */
int mgpu_flight_set_state(mgpu_flight *f, uint64_t slot, mgpu_flight_state state);
/* Seconds since the entry was added; -1 when the slot was overwritten. */
double mgpu_flight_age_s(mgpu_flight *f, uint64_t slot);
/* Copy out the newest entries, oldest first; returns how many (<= max). */
int mgpu_flight_copy(mgpu_flight *f, mgpu_flight_entry *out, int max);
/* Microseconds since the recorder was created. */
double mgpu_flight_now_us(const mgpu_flight *f);
int mgpu_flight_capacity(const mgpu_flight *f);

const char *mgpu_flight_state_name(mgpu_flight_state s); /* "enqueued", "started", "completed", "failed" */
int mgpu_flight_state_parse(const char *name);           /* -1 if unknown */

/* The dump the analyser reads:
 *   {"version":1, "rank":R, "size":N, "comm":"world", "comm_id":"0123abcd...",
 *    "backend":"nccl", "t0_unix_us":..., "capacity":256,
 *    "entries":[{"seq":7, "op":"all_reduce", "count":1048576, "dtype":"f32",
 *                "redop":"sum", "root":-1, "device":0, "state":"completed",
 *                "t_enqueue_us":.., "t_start_us":.., "t_end_us":..}, ...]}
 * Caller frees; NULL when out of memory. */
char *mgpu_flight_dump(mgpu_flight *f, int rank, int size, const char *comm_name, uint64_t comm_id,
                       const char *backend);

#endif
