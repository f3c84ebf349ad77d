/* race_internal.h - what the race detector's two files share: race.c (the
 * clocks: streams, events, the host; sites; the reports) and race_access.c
 * (per-buffer records, the conflict check, the sim's poison). */
#ifndef MGPU_RACE_INTERNAL_H
#define MGPU_RACE_INTERNAL_H
#include "dev/backend.h"
#include "mgpu/race.h"
#include <pthread.h>

#define RACE_MAX_STREAMS 4096   /* beyond, new streams go unchecked (counted in stats.forgotten) */
#define RACE_MAX_SITES 65536
#define RACE_SITE_LEN 64
#define RACE_LABEL_LEN 64

typedef struct race_slot {
    uint64_t *vc;            /* the stream's vector clock, r->cap entries */
    uint64_t host_gen;       /* the host clock's generation last joined */
    uint64_t published;      /* the highest of its own counter an event or a host wait
                              * carried out of it: another stream (or the host) can be
                              * ordered after one access and not after the next only
                              * when such a value falls between them */
    int device;
    int legacy;              /* the device's legacy default stream (one clock for every handle) */
    char label[RACE_LABEL_LEN];
} race_slot;

typedef struct race_site {
    char text[RACE_SITE_LEN];
    uint32_t hash;
} race_site;

/* One access kept for a buffer: a byte range, who made it and when. */
typedef struct race_acc {
    size_t lo, hi;
    uint64_t seq;            /* the stream's own counter at the access */
    uint32_t slot;           /* the stream (index into r->slots) */
    uint32_t site;           /* index into r->sites */
    const char *what;        /* the operation ("copy"): a literal */
    unsigned char write, host;
} race_acc;

/* Records kept per buffer (past it the oldest goes, counted in
 * stats.forgotten). A ring cut in slices keeps a record per slice, chunk
 * and stream until the host waits: 8 ranks x 16 slices fit. */
#define RACE_BUF_ACCS 256
#define RACE_OP_RANGES 16

typedef struct mgpu_race_buf {
    uint64_t epoch;          /* the detector's epoch it belongs to */
    uint64_t swept_gen;      /* the host clock's generation its records were last swept at */
    int n, cap;
    race_acc *acc;
    uint32_t alloc_site;
    char label[RACE_LABEL_LEN];
} mgpu_race_buf;

struct mgpu_race {
    pthread_mutex_t lock;
    mgpu_backend *be;
    unsigned flags;
    uint64_t epoch;
    pthread_t owner;         /* the thread that may ask the site function */

    race_slot *slots;
    int nslots, cap;         /* slots used; entries in every vector clock */
    int *legacy_slot;        /* per device, slot + 1 of its legacy default stream */
    uint64_t *host_vc;
    uint64_t host_gen;

    race_site *sites;        /* 0 is "?" */
    uint32_t nsites, site_cap;
    uint32_t *site_index;    /* open addressing: site + 1, 0 empty */
    uint32_t index_cap;
    /* (key, line) -> site, direct-mapped: the text is made and interned only
     * for a line not seen before */
    struct { const void *key; int line; uint32_t site; } line_cache[1024];

    mgpu_race_site_fn site_fn;
    void *site_ctx;
    mgpu_race_report_fn report_fn;
    void *report_ctx;

    int host_read_depth;
    const char *host_read_what;

    /* the sim's poison: what the current operation's racing reads covered,
     * and what it wrote (not to be put back) */
    int nsaved;
    struct {
        const mgpu_buffer *buf;
        size_t off, bytes;
        void *saved;
    } saved[RACE_OP_RANGES];
    int nwritten;
    struct {
        const mgpu_buffer *buf;
        size_t off, bytes;
    } written[RACE_OP_RANGES];

    mgpu_race_report reports[MGPU_RACE_MAX_REPORTS];
    uint32_t report_key[MGPU_RACE_MAX_REPORTS][3]; /* kind, site now, site then */
    int nreports;
    mgpu_race_sync syncs[MGPU_RACE_MAX_SYNCS];
    int nsyncs;
    mgpu_race_stats stats;
};

/* race.c, with the lock held */
uint32_t race_site_here(struct mgpu_race *r);
/* The same, once per operation: every access of one operation is one line. */
uint32_t race_op_site(struct mgpu_race *r, mgpu_race_op *op);
const char *race_site_text(const struct mgpu_race *r, uint32_t site);
/* The slot of a stream (made on first use); -1 when past RACE_MAX_STREAMS. */
int race_slot_of(struct mgpu_race *r, mgpu_stream *s);
/* Ticks the stream's own counter after joining the host's clock; returns
 * the access's counter. */
uint64_t race_tick(struct mgpu_race *r, int slot);
/* 1 when the access (slot a, seq) happens before what stream b does now. */
static inline int race_ordered(const struct mgpu_race *r, uint32_t a, uint64_t seq, int b)
{
    return (int)a == b || r->slots[b].vc[a] >= seq;
}
/* Put back what the last operation's racing reads saw poisoned. */
void race_restore_locked(struct mgpu_race *r);
/* A new distinct race, or a count more of a known one; fills *out and
 * returns 1 when the report function should be told (outside the lock). */
int race_add_report(struct mgpu_race *r, const mgpu_race_report *rep, uint32_t site_now, uint32_t site_then,
                    mgpu_race_report *out);

#endif
