/* race.h - the stream-ordering race detector: what PyTorch's CUDA Sanitizer
 * (torch.cuda._sanitizer, TORCH_CUDA_SANITIZER=1) does, one level down and
 * for every backend.
 *
 * It is bookkeeping of the calls, not of the hardware, so a script gets the
 * same verdict on the sim and on a GPU. Every stream has a vector clock (one
 * counter per stream of the process); each operation queued on a stream
 * ticks that stream's own counter. Recording an event copies the stream's
 * clock into the event; waiting on it joins the event's clock into the
 * waiting stream's; a synchronize (stream, event, device) joins into the
 * host's clock, which every stream joins before its next operation (work
 * queued after the host saw X finish comes after X). Per buffer, the
 * detector keeps the last writes and the reads since, each as (stream,
 * counter, byte range, script line). An access that conflicts with an
 * earlier one (one of the two writes, the byte ranges overlap) and is not
 * ordered after it is a race, reported with both sides:
 *
 *   read of grads[0:1048576] on the comm stream (all_reduce) at reducer.lua:41
 *   is not ordered after the write on the default stream (copy) at
 *   reducer.lua:38; record an event after the write and wait on it
 *
 * Host reads (t:get, t:to_table, t:compare, t:checksum) go through the
 * default stream and are reported as the note's stale-data pitfall.
 *
 * With MGPU_RACE_SHOW on the sim (which applies data when an operation is
 * queued, so a missing wait never shows in the numbers), a read that races a
 * write sees NaN (f32/f16/bf16) or 0x7fbadbad (i32) in the racing bytes
 * instead of the written data, for the length of that one operation: the
 * wrong result a GPU gives when the reader runs first, shown every time. */
#ifndef MGPU_RACE_H
#define MGPU_RACE_H
#include <stddef.h>
#include "mgpu/dev.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    MGPU_RACE_ON = 1u,   /* track and report */
    MGPU_RACE_SHOW = 2u  /* sim: a read that races a write sees poison */
};

/* Turn the detector on (flags) or off (0) for this backend. Off by default;
 * the spmd job turns it on (lab runs always). Turning it on starts from an
 * empty record. */
void mgpu_race_enable(mgpu_backend *be, unsigned flags);
unsigned mgpu_race_flags(const mgpu_backend *be);

/* The script line of the operation being recorded; the Lua rank API sets
 * it. Asked at every operation, so in two steps: *key and *line name the
 * line cheaply (a pointer that stays the same for one source while the
 * script runs, and the line number); only for a pair not seen before is
 * the function asked again with a buffer for its text ("reducer.lua:41").
 * Returns 0 when there is no script line. Without it, sites read "?". */
typedef int (*mgpu_race_site_fn)(void *ctx, const void **key, int *line, char *buf, size_t len);
void mgpu_race_set_site_fn(mgpu_backend *be, mgpu_race_site_fn fn, void *ctx);

typedef struct mgpu_race_side {
    char op[32];       /* "copy", "all_reduce", "gemm", "host read (t:get)" */
    char stream[64];   /* "the default stream", "the comm stream", "stream 3 (made at x.lua:4)" */
    char site[64];     /* "reducer.lua:41" */
} mgpu_race_side;

typedef struct mgpu_race_report {
    const char *kind;      /* "read-after-write", "write-after-read", "write-after-write" */
    int stale;             /* the later access is a host read: the stale-data pitfall */
    int shown;             /* the sim showed it: the reader saw poison */
    char tensor[80];       /* the tensor's name, or where it was allocated */
    int named;             /* tensor is a name the script gave ("x"), not a description */
    size_t first, last;    /* elements [first, last) of it that both touch */
    mgpu_race_side now;    /* the later access */
    mgpu_race_side then;   /* the earlier one it is not ordered after */
    unsigned long count;   /* times this pair (kind and both sites) was seen */
    char text[768];        /* the whole sentence, with what to do */
} mgpu_race_report;

/* Called once per distinct race (kind and both sites), when first seen. */
typedef void (*mgpu_race_report_fn)(void *ctx, const mgpu_race_report *r);
void mgpu_race_set_report_fn(mgpu_backend *be, mgpu_race_report_fn fn, void *ctx);

/* The distinct races so far, at most MGPU_RACE_MAX_REPORTS (the count of
 * each keeps growing); NULL when none. */
#define MGPU_RACE_MAX_REPORTS 32
const mgpu_race_report *mgpu_race_reports(const mgpu_backend *be, int *n);

typedef struct mgpu_race_stats {
    unsigned long races;        /* every racing access */
    unsigned long distinct;     /* reports (kind and both sites) */
    unsigned long host_syncs;   /* explicit synchronizes (stream, event, device) */
    unsigned long waits;        /* stream waits on an event */
    unsigned long accesses;     /* accesses checked */
    unsigned long forgotten;    /* records dropped to keep a buffer's list short, and streams past RACE_MAX_STREAMS */
} mgpu_race_stats;
void mgpu_race_stats_get(const mgpu_backend *be, mgpu_race_stats *out);

/* An explicit host synchronize the script made, by site (distinct, first
 * MGPU_RACE_MAX_SYNCS): lab 3 wants device-side ordering, not a host that
 * blocks, and needs to say where the host blocked. */
#define MGPU_RACE_MAX_SYNCS 16
typedef struct mgpu_race_sync {
    char what[40];     /* "stream:synchronize", "event:synchronize", "mgpu.synchronize" */
    char stream[64];   /* what it waited for */
    char site[64];
    unsigned long count;
} mgpu_race_sync;
const mgpu_race_sync *mgpu_race_syncs(const mgpu_backend *be, int *n);

/* Names in reports: a tensor's ("grads"; views report the element range of
 * the whole buffer) and a stream's ("the comm stream"). */
void mgpu_race_label_buffer(mgpu_buffer *b, const char *label);
void mgpu_race_label_stream(mgpu_stream *s, const char *label);

/*--- Hooks the engine calls (dev.c, nn_call.c, comm_coll.c, tensor.c) --*/

/* One operation on a stream: begin, say each range it reads and writes,
 * run it, end. On the sim with MGPU_RACE_SHOW, read ranges that race are
 * poisoned from mgpu_race_read until the operation ends, when the data
 * comes back (except where the operation itself wrote). An operation that
 * cannot say where it ends (a training op with several return paths) may
 * leave out mgpu_race_op_end: the next operation's begin, any ordering
 * call and freeing the buffer end it. `what` must outlive the detector (a
 * literal). A caller whose operation does not read its inputs before it
 * returns (a collective the sim only queued inside a group) sets `show` to
 * 0 after begin. */
typedef struct mgpu_race_op {
    struct mgpu_race *r;   /* NULL: detector off, every call is a no-op */
    mgpu_stream *s;
    const char *what;
    int show;
    unsigned site;         /* the script line, asked once for all the operation's accesses (0: not yet) */
    int ntold;             /* the earlier accesses this operation raced: an in-place */
    struct { unsigned slot; uint64_t seq; } told[16]; /* one reads and writes, one report (16: a
                                                       * pipeline's slices are records of their own) */
} mgpu_race_op;

void mgpu_race_op_begin(mgpu_race_op *op, mgpu_stream *s, const char *what);
void mgpu_race_read(mgpu_race_op *op, const mgpu_buffer *b, size_t off, size_t bytes, mgpu_dtype t);
void mgpu_race_write(mgpu_race_op *op, const mgpu_buffer *b, size_t off, size_t bytes, mgpu_dtype t);
void mgpu_race_op_end(mgpu_race_op *op);

/* Host reads: between begin and end, accesses are host reads named `what`
 * ("t:get"), reported as the stale-data pitfall. Nests. */
void mgpu_race_host_read_begin(mgpu_backend *be, const char *what);
void mgpu_race_host_read_end(mgpu_backend *be);

/* Ordering edges (dev.c). The host "waited" when a synchronize returned or
 * a query answered done. */
void mgpu_race_event_record(mgpu_event *e, mgpu_stream *s);
void mgpu_race_stream_wait(mgpu_stream *s, mgpu_event *e);
void mgpu_race_host_waited_stream(mgpu_stream *s);
void mgpu_race_host_waited_event(mgpu_event *e);
void mgpu_race_host_waited_device(mgpu_backend *be, int dev);
/* An explicit synchronize of the script's (the Lua API calls it; the
 * engine's own waits, inside host reads, are not the script's).
 * `s` may be NULL (an event or the whole device). */
void mgpu_race_note_host_sync(mgpu_backend *be, const char *what, mgpu_stream *s);

/* Lifetimes (dev.c, dev_mem.c). */
void mgpu_race_buffer_alloc(mgpu_buffer *b);
void mgpu_race_buffer_free(mgpu_buffer *b);
void mgpu_race_stream_created(mgpu_stream *s);
void mgpu_race_event_destroyed(mgpu_event *e);
void mgpu_race_backend_closed(mgpu_backend *be);

#ifdef __cplusplus
}
#endif
#endif
