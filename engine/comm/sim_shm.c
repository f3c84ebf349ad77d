/* sim_shm.c - the sim communicator's shared segment: creation (POSIX shm,
 * random name, unlinked once mapped), doorbell waits (futex), the blob
 * exchange and the chunked mailboxes every algorithm moves data through. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "mgpu/cleanup.h"
#include "mgpu/clock.h"
#include "sim_shm.h"

#define SIM_MAGIC 0x4d47505553494d31ull /* "MGPUSIM1" */
#define CACHELINE 64

struct sim_hdr {
    uint64_t magic;
    int32_t n;
    uint32_t slot_bytes;
    _Atomic int aborted;      /* 1 + the rank that aborted, 0 = healthy */
    /* Barrier: arrivals so far (all barriers; barrier b completes at n*b,
     * mod 2^32) and how many ranks sleep on it (so the last arrival only
     * makes the wake syscall when someone waits). Own cache line: every
     * rank hits it. */
    _Atomic uint32_t bar __attribute__((aligned(CACHELINE)));
    _Atomic uint32_t bar_sleepers;
};

/* One rank's doorbell: bumped by anyone who changed something it may wait for. */
struct sim_rank {
    _Atomic uint32_t bell;
    _Atomic int sleeping;
    _Atomic int32_t pid;
    _Atomic uint64_t xseq;    /* exchanges posted */
    _Atomic uint64_t arrived; /* barriers reached (names the missing ranks on a timeout) */
    _Atomic int32_t left;     /* how it left the communicator (sim_left), 0 while a member */
    unsigned char blob[2][SIM_BLOB] __attribute__((aligned(CACHELINE)));
} __attribute__((aligned(CACHELINE)));

/* A mailbox from one rank to another: a ring of SIM_SLOTS chunks. */
struct sim_chan {
    _Atomic uint64_t head __attribute__((aligned(CACHELINE))); /* chunks written (sender) */
    _Atomic uint64_t tail __attribute__((aligned(CACHELINE))); /* chunks consumed (receiver) */
} __attribute__((aligned(CACHELINE)));

typedef struct slot_hdr {
    uint64_t total, off;      /* the message's size and this chunk's place in it */
    uint64_t len;
    double model_ns;
} slot_hdr;
#define SLOT_HDR 64

static size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

/* Mailbox chunk size: large (memcpy speed, few wake-ups) for few ranks,
 * smaller as n^2 mailboxes grow; the pages are touched only when used. */
static size_t pick_slot_bytes(int n)
{
    size_t budget = (size_t)256 << 20, pairs = (size_t)n * (size_t)n;
    size_t s = budget / (pairs * SIM_SLOTS);
    size_t p = 4096;
    while (p * 2 <= s && p < ((size_t)1 << 20)) p *= 2;
    return p;
}

/* Collective staging slot: 1 MiB per rank and parity up to 95 ranks, so a
 * round's n slots and the result stay in the caches between the copy-in,
 * the reduce and the copy-out (measured, 8 ranks x 256 MiB on 2 cores:
 * 8 MiB slots 1.1 s, 1 MiB 0.5 s; 256 KiB no better, more barriers);
 * smaller as the 2n+1 buffers grow, under ~192 MiB of tmpfs in all. */
static size_t pick_coll_bytes(int n)
{
    size_t budget = (size_t)192 << 20, s = budget / (2 * (size_t)n + 1), p = 64 << 10;
    while (p * 2 <= s && p < ((size_t)1 << 20)) p *= 2;
    return p;
}

static size_t layout(int n, size_t slot, size_t *off_ranks, size_t *off_chans, size_t *off_data, size_t *off_coll)
{
    *off_ranks = round_up(sizeof(struct sim_hdr), 4096);
    *off_chans = round_up(*off_ranks + (size_t)n * sizeof(struct sim_rank), 4096);
    *off_data = round_up(*off_chans + (size_t)n * n * sizeof(struct sim_chan), 4096);
    *off_coll = round_up(*off_data + (size_t)n * n * SIM_SLOTS * (SLOT_HDR + slot), 4096);
    return *off_coll + (2 * (size_t)n + 1) * pick_coll_bytes(n);
}

/* A barrier's short spin pays when the ranks it waits for are running on
 * other cores. When ranks outnumber the CPUs (16 ranks on 2 cores) the
 * awaited rank is usually not running: each yield is a system call and a
 * switch to another waiter that yields in turn, and 64 of them per waiting
 * rank per barrier were half of lab 7's CPU time on 2 cores (8 of 16 s
 * were system time). There the barrier goes straight to its futex. */
static int barrier_spins(int n)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 && n > cpus ? 0 : 64;
}

static mgpu_result map_seg(int fd, int n, size_t slot, sim_seg *s)
{
    size_t orank, ochan, odata, ocoll, bytes = layout(n, slot, &orank, &ochan, &odata, &ocoll);
    void *base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED)
        return mgpu_fail(MGPU_ERR_NOMEM, "could not map the sim communicator's %zu-byte shared segment: %s", bytes,
                         strerror(errno));
    memset(s, 0, sizeof *s);
    s->base = base;
    s->bytes = bytes;
    s->n = n;
    s->slot_bytes = slot;
    s->hdr = base;
    s->ranks = (struct sim_rank *)((char *)base + orank);
    s->chans = (struct sim_chan *)((char *)base + ochan);
    s->data = (unsigned char *)base + odata;
    s->coll = (unsigned char *)base + ocoll;
    s->coll_bytes = pick_coll_bytes(n);
    s->barrier_spins = barrier_spins(n);
    s->cleanup = -1;
    return MGPU_OK;
}

mgpu_result sim_seg_create(int n, sim_seg *s, char name[SIM_NAME_LEN])
{
    if (n < 1 || n > SIM_MAX_RANKS)
        return mgpu_fail(MGPU_ERR_INVALID, "the sim communicator supports 1-%d ranks, not %d", SIM_MAX_RANKS, n);
    size_t slot = pick_slot_bytes(n), orank, ochan, odata, ocoll;
    size_t bytes = layout(n, slot, &orank, &ochan, &odata, &ocoll);
    static atomic_int swept; /* once a process: ranks killed with SIGKILL */
    if (atomic_exchange(&swept, 1) == 0) mgpu_cleanup_shm_stale("mgpu-sim");
    int fd = -1, cleanup = -1;
    char path[SIM_NAME_LEN + 16];
    for (int tries = 0; tries < 8 && fd < 0; tries++) {
        uint64_t rnd = 0;
        if (getrandom(&rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) rnd = mgpu_now_ns() ^ ((uint64_t)getpid() << 32);
        int k = mgpu_shm_prefix("mgpu-sim", (int)getpid(), name, SIM_NAME_LEN);
        snprintf(name + k, SIM_NAME_LEN - (size_t)k, "%016llx", (unsigned long long)rnd);
        /* registered before it exists: a signal between the two would leave it */
        snprintf(path, sizeof path, "/dev/shm%s", name);
        cleanup = mgpu_cleanup_register(path, 0);
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd < 0) mgpu_cleanup_forget(cleanup), cleanup = -1;
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0)
        return mgpu_fail(MGPU_ERR_IO, "could not create the sim communicator's shared memory (%s): %s; is /dev/shm "
                         "mounted and writable?", name, strerror(errno));
    if (ftruncate(fd, (off_t)bytes) != 0) {
        int e = errno;
        close(fd);
        shm_unlink(name);
        mgpu_cleanup_forget(cleanup);
        return mgpu_fail(MGPU_ERR_IO, "could not size the sim communicator's shared memory to %zu bytes: %s", bytes,
                         strerror(e));
    }
    mgpu_result r = map_seg(fd, n, slot, s);
    close(fd);
    if (r != MGPU_OK) {
        shm_unlink(name);
        mgpu_cleanup_forget(cleanup);
        return r;
    }
    s->cleanup = cleanup;
    snprintf(s->name, sizeof s->name, "%s", name);
    s->hdr->n = n;
    s->hdr->slot_bytes = (uint32_t)slot;
    atomic_store(&s->hdr->aborted, 0);
    s->hdr->magic = SIM_MAGIC;
    return MGPU_OK;
}

mgpu_result sim_seg_open(const char *name, int n, sim_seg *s)
{
    int fd = shm_open(name, O_RDWR, 0600);
    if (fd < 0)
        return mgpu_fail(MGPU_ERR_IO, "could not open the sim communicator's shared memory %s: %s", name,
                         strerror(errno));
    size_t slot = pick_slot_bytes(n), orank, ochan, odata, ocoll;
    size_t bytes = layout(n, slot, &orank, &ochan, &odata, &ocoll);
    struct stat st;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size != bytes) {
        close(fd);
        return mgpu_fail(MGPU_ERR_INVALID, "the sim communicator's shared memory %s does not have the layout for %d "
                         "ranks: do all ranks agree on the size?", name, n);
    }
    mgpu_result r = map_seg(fd, n, slot, s);
    close(fd);
    MGPU_CHECK(r);
    if (s->hdr->magic != SIM_MAGIC || s->hdr->n != n) {
        sim_seg_close(s);
        return mgpu_fail(MGPU_ERR_INVALID, "the shared memory %s is not a %d-rank sim communicator", name, n);
    }
    return MGPU_OK;
}

void sim_seg_unlink(sim_seg *s, const char *name)
{
    if (name && *name) shm_unlink(name);
    mgpu_cleanup_forget(s->cleanup);
    s->cleanup = -1;
}

void sim_seg_close(sim_seg *s)
{
    /* the creator never got to unlink it (a split whose exchange failed) */
    if (s->base && s->cleanup >= 0) sim_seg_unlink(s, s->name);
    if (s->base) munmap(s->base, s->bytes);
    s->base = NULL;
}

/*--- Doorbells ---------------------------------------------------------*/

static long futex(_Atomic uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
    return syscall(SYS_futex, (uint32_t *)addr, op, val, ts, NULL, 0);
}

static void ring(sim_seg *s, int r)
{
    struct sim_rank *k = &s->ranks[r];
    atomic_fetch_add(&k->bell, 1);
    if (atomic_load(&k->sleeping)) futex(&k->bell, FUTEX_WAKE, 1 << 30, NULL);
}

void sim_seg_wake_all(sim_seg *s)
{
    for (int r = 0; r < s->n; r++) ring(s, r);
}

void sim_seg_abort(sim_seg *s, int who)
{
    int expected = 0;
    atomic_compare_exchange_strong(&s->hdr->aborted, &expected, who + 1);
    sim_seg_wake_all(s);
    /* Move the barrier word so a rank between its last check and its futex
     * wait cannot sleep through the abort; barrier waiters test the abort
     * flag before the count, so the bump never passes a barrier. */
    atomic_fetch_add(&s->hdr->bar, 1);
    futex(&s->hdr->bar, FUTEX_WAKE, INT_MAX, NULL);
}

int sim_seg_aborted(const sim_seg *s) { return atomic_load(&s->hdr->aborted) - 1; }

void sim_seg_set_pid(sim_seg *s, int rank, pid_t pid) { atomic_store(&s->ranks[rank].pid, (int32_t)pid); }

/* How long one futex wait may sleep: until the deadline, at most 100 ms
 * (the dead-rank probe's period). Aborts and progress wake it at once. */
static struct timespec slice(const sim_ctx *x)
{
    uint64_t now = mgpu_now_ns(), ns = 100 * 1000 * 1000ull;
    if (x->deadline_ns > now && x->deadline_ns - now < ns) ns = x->deadline_ns - now;
    if (x->deadline_ns <= now) ns = 1000 * 1000;
    struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
    return ts;
}

/* Sleep until the bell moves from `seen` (whoever changes what this rank
 * waits for rings it; an abort rings every bell) or the slice ends (to look
 * at the clock and dead peers). */
static void doze(sim_ctx *x, uint32_t seen)
{
    sim_seg *s = x->seg;
    struct sim_rank *k = &s->ranks[x->me];
    struct timespec ts = slice(x);
    atomic_store(&k->sleeping, 1);
    if (atomic_load(&k->bell) == seen) futex(&k->bell, FUTEX_WAIT, seen, &ts);
    atomic_store(&k->sleeping, 0);
}

static int rank_dead(sim_seg *s, int r)
{
    pid_t pid = atomic_load(&s->ranks[r].pid);
    return pid > 0 && kill(pid, 0) != 0 && errno == ESRCH;
}

void sim_seg_leave(sim_seg *s, int rank, sim_left how)
{
    if (s->base && rank >= 0 && rank < s->n) atomic_store(&s->ranks[rank].left, (int32_t)how);
}

/* A peer whose process is gone, in the words of how it went: a rank that
 * finished its script while this one waited in a collective was said to
 * have "died" (issue 34, second hostile pass); one that left without a
 * word did die (a crash, a signal, _exit after an error). */
static mgpu_result peer_gone(sim_ctx *x, int r, double waited_s)
{
    sim_seg *s = x->seg;
    int pid = (int)atomic_load(&s->ranks[r].pid);
    switch (atomic_load(&s->ranks[r].left)) {
    case SIM_LEFT_FINISHED:
        return mgpu_fail(MGPU_ERR_IO, "%s: rank %d (pid %d) finished its script and exited while this rank waited "
                         "for it (waited %.1f s); every rank must make the same collective calls in the same order",
                         x->what, r, pid, waited_s);
    case SIM_LEFT_DESTROYED:
        return mgpu_fail(MGPU_ERR_IO, "%s: rank %d (pid %d) destroyed this communicator (comm:destroy, or the end "
                         "of its script) and exited while this rank waited for it (waited %.1f s)",
                         x->what, r, pid, waited_s);
    default:
        return mgpu_fail(MGPU_ERR_IO, "%s: rank %d (pid %d) died while this rank waited for it (waited %.1f s)",
                         x->what, r, pid, waited_s);
    }
}

/* Why a wait must stop now, or MGPU_OK to keep waiting. `peers` (or all
 * ranks when NULL) are the ranks it waits for; `waiting` describes them. */
static mgpu_result check_wait(sim_ctx *x, const int *peers, int npeers, const char *waiting, uint64_t *next_probe)
{
    sim_seg *s = x->seg;
    int ab = atomic_load(&s->hdr->aborted);
    if ((x->local_abort && *x->local_abort) || (x->impl_abort && *x->impl_abort))
        return mgpu_fail(MGPU_ERR_TIMEOUT, "%s: the communicator was aborted", x->what);
    if (ab)
        return mgpu_fail(MGPU_ERR_TIMEOUT, "%s: rank %d aborted the communicator", x->what, ab - 1);
    uint64_t now = mgpu_now_ns();
    if (now >= *next_probe) {
        *next_probe = now + 100 * 1000 * 1000ull;
        int total = peers ? npeers : s->n;
        for (int i = 0; i < total; i++) {
            int r = peers ? peers[i] : i;
            if (r != x->me && rank_dead(s, r)) {
                /* how long it waited, as an aborted call says it: "within
                 * 120 s" or no figure at all misleads after a short wait */
                double left_s = x->deadline_ns > now ? (double)(x->deadline_ns - now) / 1e9 : 0;
                return peer_gone(x, r, x->timeout_s - left_s);
            }
        }
    }
    if (now >= x->deadline_ns)
        return mgpu_fail(MGPU_ERR_TIMEOUT, "%s: %s within %.3g s", x->what, waiting, x->timeout_s);
    return MGPU_OK;
}

/*--- Exchange ----------------------------------------------------------*/

/* "3" or "1, 4-6": ranks in a sorted list, runs collapsed. */
static void rank_list(char *out, size_t len, const int *ranks, int n)
{
    size_t used = 0;
    out[0] = 0;
    for (int i = 0; i < n && used + 16 < len; i++) {
        int j = i;
        while (j + 1 < n && ranks[j + 1] == ranks[j] + 1) j++;
        used += (size_t)snprintf(out + used, len - used, j > i ? "%s%d-%d" : "%s%d", used ? ", " : "", ranks[i],
                                 ranks[j]);
        i = j;
    }
}

mgpu_result sim_barrier(sim_ctx *x)
{
    sim_seg *s = x->seg;
    struct sim_hdr *h = s->hdr;
    uint64_t b = ++s->nbar;
    uint32_t target = (uint32_t)(b * (uint64_t)s->n);
    atomic_store(&s->ranks[x->me].arrived, b);
    uint32_t v = atomic_fetch_add(&h->bar, 1) + 1;
    if ((int32_t)(v - target) >= 0) { /* the last to arrive: release the others */
        if (atomic_load(&h->bar_sleepers)) futex(&h->bar, FUTEX_WAKE, INT_MAX, NULL);
        return MGPU_OK;
    }
    /* A short spin first: on an idle core the others often arrive within
     * microseconds, and a futex sleep + wake costs more than that. Each
     * turn yields the CPU to them (barrier_spins says when not to spin). */
    for (int i = 0; i < s->barrier_spins; i++) {
        if ((int32_t)(atomic_load(&h->bar) - target) >= 0 && !atomic_load(&h->aborted)) return MGPU_OK;
        sched_yield();
    }
    uint64_t probe = mgpu_now_ns() + 100 * 1000 * 1000ull;
    for (;;) {
        uint32_t cur = atomic_load(&h->bar);
        /* Abort first: sim_seg_abort bumps the word, which must not read as a pass. */
        int ab = atomic_load(&h->aborted) || (x->local_abort && *x->local_abort) ||
                 (x->impl_abort && *x->impl_abort);
        if (!ab && (int32_t)(cur - target) >= 0) return MGPU_OK;
        int missing[64], nmiss = 0, more = 0;
        for (int r = 0; r < s->n; r++)
            if (atomic_load(&s->ranks[r].arrived) < b) {
                if (nmiss < 64) missing[nmiss++] = r;
                else more = 1;
            }
        char list[160], why[200];
        rank_list(list, sizeof list, missing, nmiss);
        snprintf(why, sizeof why, "rank%s %s%s did not arrive", nmiss > 1 ? "s" : "", list, more ? ", ..." : "");
        MGPU_CHECK(check_wait(x, missing, nmiss, why, &probe));
        struct timespec ts = slice(x);
        atomic_fetch_add(&h->bar_sleepers, 1);
        if (atomic_load(&h->bar) == cur) futex(&h->bar, FUTEX_WAIT, cur, &ts);
        atomic_fetch_sub(&h->bar_sleepers, 1);
    }
}

unsigned char *sim_slot_next(sim_seg *s, int rank)
{
    return s->coll + (size_t)(2 * rank + (int)((s->nbar + 1) & 1)) * s->coll_bytes;
}

unsigned char *sim_slot_cur(sim_seg *s, int rank)
{
    return s->coll + (size_t)(2 * rank + (int)(s->nbar & 1)) * s->coll_bytes;
}

unsigned char *sim_result(sim_seg *s) { return s->coll + (size_t)(2 * s->n) * s->coll_bytes; }

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

void sim_seg_prepare(sim_seg *s, size_t bytes)
{
    if (bytes > s->coll_bytes) bytes = s->coll_bytes;
    bytes = round_up(bytes, 4096);
    if (bytes <= s->populated) return;
    /* Each process maps the pages itself; one madvise per buffer instead of
     * a fault per 4 KiB page (older kernels refuse it: then pages fault in
     * as they are touched, as before). */
    for (int i = 0; i <= 2 * s->n; i++)
        madvise(s->coll + (size_t)i * s->coll_bytes + s->populated, bytes - s->populated, MADV_POPULATE_WRITE);
    s->populated = bytes;
}

/* The blobs alternate by barrier parity like the slots: a blob written
 * before barrier b is read between b and b+1. */
mgpu_result sim_exchange(sim_ctx *x, const void *mine, void *all)
{
    sim_seg *s = x->seg;
    uint64_t k = ++s->xseq;
    struct sim_rank *me = &s->ranks[x->me];
    memcpy(me->blob[(s->nbar + 1) & 1], mine, SIM_BLOB);
    atomic_store(&me->xseq, k);
    MGPU_CHECK(sim_barrier(x));
    for (int r = 0; r < s->n; r++)
        memcpy((char *)all + (size_t)r * SIM_BLOB, s->ranks[r].blob[s->nbar & 1], SIM_BLOB);
    return MGPU_OK;
}

mgpu_result sim_stall(sim_ctx *x, const char *why)
{
    uint64_t probe = UINT64_MAX; /* nobody is dead: they are all waiting in the wrong call */
    for (;;) {
        uint32_t seen = atomic_load(&x->seg->ranks[x->me].bell);
        mgpu_result r = check_wait(x, NULL, 0, why, &probe);
        if (r != MGPU_OK) return r;
        doze(x, seen);
    }
}

/*--- Transfers ---------------------------------------------------------*/

static struct sim_chan *chan(sim_seg *s, int from, int to) { return &s->chans[(size_t)from * s->n + to]; }

static unsigned char *slot_at(sim_seg *s, int from, int to, uint64_t i)
{
    size_t idx = ((size_t)from * s->n + to) * SIM_SLOTS + (size_t)(i % SIM_SLOTS);
    return s->data + idx * (SLOT_HDR + s->slot_bytes);
}

/* Move what can move now; returns 1 if anything moved, -1 on a protocol error. */
static int step(sim_ctx *x, sim_xfer *f)
{
    sim_seg *s = x->seg;
    int moved = 0;
    if (f->kind == SIM_SEND) {
        struct sim_chan *c = chan(s, x->me, f->peer);
        size_t limit = f->avail ? *f->avail : f->bytes;
        while (f->done < limit) {
            uint64_t h = atomic_load_explicit(&c->head, memory_order_relaxed);
            if (h - atomic_load_explicit(&c->tail, memory_order_acquire) >= SIM_SLOTS) break;
            unsigned char *sl = slot_at(s, x->me, f->peer, h);
            size_t len = limit - f->done < s->slot_bytes ? limit - f->done : s->slot_bytes;
            slot_hdr sh = {f->bytes, f->done, len, f->model_ns};
            memcpy(sl, &sh, sizeof sh);
            memcpy(sl + SLOT_HDR, f->src + f->done, len);
            atomic_store_explicit(&c->head, h + 1, memory_order_release);
            f->done += len;
            moved = 1;
            ring(s, f->peer);
        }
        return moved;
    }
    struct sim_chan *c = chan(s, f->peer, x->me);
    while (f->done < f->bytes) {
        uint64_t t = atomic_load_explicit(&c->tail, memory_order_relaxed);
        if (atomic_load_explicit(&c->head, memory_order_acquire) <= t) break;
        unsigned char *sl = slot_at(s, f->peer, x->me, t);
        slot_hdr sh;
        memcpy(&sh, sl, sizeof sh);
        if (sh.total != f->bytes || sh.off != f->done || sh.len > f->bytes - f->done) {
            mgpu_fail(MGPU_ERR_INVALID, "%s: rank %d sent a %llu-byte message where this rank expected %zu bytes "
                      "(a send/recv size mismatch)", x->what, f->peer, (unsigned long long)sh.total, f->bytes);
            return -1;
        }
        if (f->done == 0) f->model_ns = sh.model_ns;
        if (f->kind == SIM_RECV) {
            memcpy(f->dst + f->done, sl + SLOT_HDR, sh.len);
        } else {
            size_t es = mgpu_dtype_size(f->dtype);
            sim_reduce(f->dst + f->done, f->own + f->done, sl + SLOT_HDR, sh.len / es, f->dtype, f->redop);
        }
        atomic_store_explicit(&c->tail, t + 1, memory_order_release);
        f->done += sh.len;
        moved = 1;
        ring(s, f->peer);
    }
    return moved;
}

mgpu_result sim_run(sim_ctx *x, sim_xfer *xf, int n)
{
    uint64_t probe = mgpu_now_ns() + 100 * 1000 * 1000ull;
    for (;;) {
        uint32_t seen = atomic_load(&x->seg->ranks[x->me].bell);
        int pending = 0, moved = 0, blocked_on = -1, blocked_recv = 0;
        for (int i = 0; i < n; i++) {
            sim_xfer *f = &xf[i];
            if (f->done >= f->bytes) continue;
            int m = step(x, f);
            if (m < 0) return MGPU_ERR_INVALID;
            moved |= m;
            if (f->done < f->bytes) {
                pending++;
                if (blocked_on < 0) {
                    blocked_on = f->peer;
                    blocked_recv = f->kind != SIM_SEND;
                }
            }
        }
        if (!pending) return MGPU_OK;
        if (moved) continue;
        char why[128];
        snprintf(why, sizeof why, blocked_recv ? "rank %d sent no data" : "rank %d took no data", blocked_on);
        int peer = blocked_on;
        MGPU_CHECK(check_wait(x, &peer, 1, why, &probe));
        doze(x, seen);
    }
}
