/* job_selftest.c - the "selftest" job: small behaviours the runtime's tests
 * (and a user checking a cluster) run on every rank. params:
 *   {"action": "ok" | "error" | "crash" | "hang" | "sleep" | "print" | "burst" | "allgather" | "world_allreduce",
 *    "rank": R,          the rank that misbehaves (default 0; -1 = every rank, for sleep)
 *    "seconds": S,       sleep: how long
 *    "signal": "SIGKILL" | "SIGSEGV" | "SIGABRT",   crash: which (default SIGKILL)
 *    "bytes": B, "rounds": K,                        allgather: payload per rank, repetitions;
 *                                                    burst: K results of B bytes each
 *    "count": N, "iters": I, "at": A,                world_allreduce: f32 elements, iterations,
 *    "mismatch": "none" | "broadcast" | "count" | "skip" | "crash" | "hang"}
 *                                                    what rank R does at iteration A
 * burst: every rank sends K results as fast as it can and finishes, so its
 * last frames and its "done" are still in the socket when it exits.
 * print: every rank writes "selftest: rank N on stdout" (printf, no flush)
 * and "selftest: rank N on stderr" - output capture's test.
 * Ranks other than R in error/crash/hang wait in a bootstrap all-gather that
 * R never joins (after one they all join), so the test sees the coordinator
 * abort them while they wait. */
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "mgpu/rt.h"
#include "mgpu/tensor.h"

typedef struct selftest {
    const char *action, *signal, *mismatch;
    int rank, bytes, rounds, iters, at;
    double seconds;
    long long count;
} selftest;

static mgpu_result parse(json_t *p, selftest *t)
{
    memset(t, 0, sizeof *t);
    t->action = "ok";
    t->signal = "SIGKILL";
    t->mismatch = "none";
    t->bytes = 16;
    t->rounds = 2;
    t->iters = 1;
    t->count = 1024;
    json_int_t rank = 0, bytes = 16, rounds = 2, iters = 1, at = 0, count = 1024;
    if (p && !json_is_null(p) &&
        json_unpack(p, "{s?s, s?I, s?F, s?s, s?I, s?I, s?I, s?I, s?I, s?s}", "action", &t->action, "rank", &rank,
                    "seconds", &t->seconds, "signal", &t->signal, "bytes", &bytes, "rounds", &rounds, "count", &count,
                    "iters", &iters, "at", &at, "mismatch", &t->mismatch) != 0)
        return mgpu_fail(MGPU_ERR_INVALID, "selftest: params must be an object of action/rank/seconds/signal/bytes/"
                                           "rounds/count/iters/at/mismatch with the right types");
    if (bytes < 4 || bytes > (1 << 20) || rounds < 1 || rounds > 1000 || count < 1 || count > (1 << 26) ||
        iters < 1 || iters > 100000 || at < 0 || t->seconds < 0 || t->seconds > 86400)
        return mgpu_fail(MGPU_ERR_INVALID, "selftest: a parameter is out of range (bytes 4..1M, rounds 1..1000, "
                                           "count 1..64M, iters 1..100000, seconds 0..86400)");
    t->rank = (int)rank;
    t->bytes = (int)bytes;
    t->rounds = (int)rounds;
    t->iters = (int)iters;
    t->at = (int)at;
    t->count = count;
    return MGPU_OK;
}

/* A barrier through the coordinator. */
static mgpu_result sync_all(mgpu_worker *w)
{
    const mgpu_bootstrap *bs = mgpu_worker_bootstrap(w);
    char mine = 1, *all = calloc((size_t)mgpu_worker_size(w), 1);
    if (!all) return mgpu_fail(MGPU_ERR_NOMEM, "selftest: out of memory");
    mgpu_result r = bs->allgather(bs->ctx, &mine, all, 1);
    free(all);
    return r;
}

/* Block in an all-gather rank `culprit` never joins; returns the abort. */
static mgpu_result wait_for_abort(mgpu_worker *w)
{
    const mgpu_bootstrap *bs = mgpu_worker_bootstrap(w);
    size_t n = (size_t)mgpu_worker_size(w);
    char mine = 1, *all = calloc(n, 1);
    if (!all) return mgpu_fail(MGPU_ERR_NOMEM, "selftest: out of memory");
    mgpu_result r = bs->allgather(bs->ctx, &mine, all, 1);
    free(all);
    if (r == MGPU_OK) return mgpu_fail(MGPU_ERR_INTERNAL, "selftest: the all-gather completed without the culprit");
    return r;
}

static void sleep_s(double s)
{
    struct timespec ts = {.tv_sec = (time_t)s, .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0) continue;
}

static mgpu_result crash(const char *name)
{
    int sig = strcmp(name, "SIGSEGV") == 0 ? SIGSEGV : strcmp(name, "SIGABRT") == 0 ? SIGABRT : SIGKILL;
    signal(sig, SIG_DFL); /* past any sanitizer's handler: die of the signal itself */
    raise(sig);
    return mgpu_fail(MGPU_ERR_INTERNAL, "selftest: raise(%s) returned", name);
}

static mgpu_result hang(void)
{
    raise(SIGSTOP); /* every thread stops: no heartbeats, as a wedged process */
    return mgpu_fail(MGPU_ERR_INTERNAL, "selftest: continued after SIGSTOP");
}

static mgpu_result send_result(mgpu_worker *w, json_t *body)
{
    if (!body) return mgpu_fail(MGPU_ERR_NOMEM, "selftest: out of memory for a result");
    mgpu_result r = mgpu_worker_send(w, "result", body);
    json_decref(body);
    return r;
}

static mgpu_result do_allgather(mgpu_worker *w, const selftest *t)
{
    int size = mgpu_worker_size(w), rank = mgpu_worker_rank(w);
    size_t b = (size_t)t->bytes;
    unsigned char *mine = malloc(b), *all = malloc(b * (size_t)size);
    json_t *seen = json_array();
    mgpu_result r = MGPU_OK;
    long long bad = -1;
    if (!mine || !all || !seen) {
        r = mgpu_fail(MGPU_ERR_NOMEM, "selftest: out of memory for %zu bytes", b * (size_t)size);
        goto out;
    }
    for (int round = 0; round < t->rounds && r == MGPU_OK; round++) {
        /* First 4 bytes: the rank; then a pattern of rank, round and index. */
        memcpy(mine, &rank, 4);
        for (size_t i = 4; i < b; i++) mine[i] = (unsigned char)(rank * 131 + round * 17 + (int)i);
        const mgpu_bootstrap *bs = mgpu_worker_bootstrap(w);
        r = bs->allgather(bs->ctx, mine, all, b);
        for (int o = 0; r == MGPU_OK && o < size; o++) {
            int who;
            memcpy(&who, all + (size_t)o * b, 4);
            if (round == t->rounds - 1) json_array_append_new(seen, json_integer(who));
            for (size_t i = 4; i < b && bad < 0; i++)
                if (all[(size_t)o * b + i] != (unsigned char)(o * 131 + round * 17 + (int)i)) bad = (long long)(o * b + i);
            if (who != o && bad < 0) bad = (long long)(o * b);
        }
    }
    if (r == MGPU_OK)
        r = send_result(w, json_pack("{s:b, s:i, s:i, s:O, s:I}", "ok", bad < 0, "bytes", t->bytes, "rounds",
                                     t->rounds, "ranks_seen", seen, "first_bad", (json_int_t)bad));
out:
    free(mine);
    free(all);
    json_decref(seen);
    return r;
}

/* One all_reduce (or rank R's deliberate deviation from it). */
static mgpu_result one_allreduce(mgpu_worker *w, const selftest *t, mgpu_comm *c, mgpu_tensor *send,
                                 mgpu_tensor *recv, int it)
{
    int culprit = mgpu_worker_rank(w) == t->rank && it == t->at;
    const char *m = culprit ? t->mismatch : "none";
    size_t n = recv->count;
    if (strcmp(m, "crash") == 0) return crash(t->signal);
    if (strcmp(m, "hang") == 0) return hang();
    if (strcmp(m, "skip") == 0) return MGPU_OK;
    if (strcmp(m, "broadcast") == 0)
        return mgpu_broadcast(c, send->buf, 0, recv->buf, 0, n / 2 ? n / 2 : 1, MGPU_F32, 0, NULL);
    if (strcmp(m, "count") == 0) return mgpu_all_reduce(c, send->buf, 0, recv->buf, 0, n / 2 ? n / 2 : 1, MGPU_F32, MGPU_SUM, NULL);
    if (strcmp(m, "none") != 0)
        return mgpu_fail(MGPU_ERR_INVALID, "selftest: mismatch '%s' is not none, broadcast, count, skip, crash or hang", m);
    return mgpu_all_reduce(c, send->buf, 0, recv->buf, 0, n, MGPU_F32, MGPU_SUM, NULL);
}

static mgpu_result do_world_allreduce(mgpu_worker *w, const selftest *t)
{
    mgpu_comm *c = NULL;
    MGPU_CHECK(mgpu_worker_world(w, &c));
    mgpu_backend *be = mgpu_worker_backend(w);
    int rank = mgpu_worker_rank(w), size = mgpu_worker_size(w), dev = mgpu_worker_device(w);
    size_t n = (size_t)t->count;
    mgpu_tensor send = {0}, recv = {0};
    float *host = malloc(n * sizeof *host);
    mgpu_result r = host ? MGPU_OK : mgpu_fail(MGPU_ERR_NOMEM, "selftest: out of memory for %zu floats", n);
    if (r == MGPU_OK) r = mgpu_tensor_alloc(be, MGPU_MEM_DEVICE, dev, MGPU_F32, n, &send);
    if (r == MGPU_OK) r = mgpu_tensor_alloc(be, MGPU_MEM_DEVICE, dev, MGPU_F32, n, &recv);
    mgpu_stream *s = mgpu_comm_stream(c);
    mgpu_fill_spec fill = {.kind = MGPU_FILL_CONST, .value = rank + 1};
    if (r == MGPU_OK) r = mgpu_tensor_fill(s, &send, &fill);
    long long wrong = 0;
    for (int it = 0; it < t->iters && r == MGPU_OK; it++) {
        r = one_allreduce(w, t, c, &send, &recv, it);
        if (r == MGPU_OK) r = mgpu_tensor_to_host_f32(s, &recv, host);
        float want = (float)size * (float)(size + 1) / 2.0f;
        for (size_t i = 0; r == MGPU_OK && i < n; i++) wrong += host[i] != want;
    }
    if (r == MGPU_OK)
        r = send_result(w, json_pack("{s:b, s:I, s:I, s:f}", "ok", wrong == 0, "count", (json_int_t)n, "wrong",
                                     (json_int_t)wrong, "value", n ? (double)host[0] : 0.0));
    mgpu_tensor_free(&send);
    mgpu_tensor_free(&recv);
    free(host);
    return r;
}

static mgpu_result run(mgpu_worker *w, json_t *params)
{
    selftest t;
    MGPU_CHECK(parse(params, &t));
    int me = mgpu_worker_rank(w);
    int culprit = t.rank < 0 || t.rank == me;
    if (strcmp(t.action, "ok") == 0) {
        mgpu_backend *be = mgpu_worker_backend(w);
        /* The environment the launcher gave, so tests can check it. */
        return send_result(w, json_pack("{s:b, s:i, s:i, s:i, s:s, s:i, s:s?, s:s?, s:s?}", "ok", 1, "size",
                                        mgpu_worker_size(w), "local_rank", mgpu_worker_local_rank(w), "device",
                                        mgpu_worker_device(w), "backend", mgpu_backend_name(be), "pid", (int)getpid(),
                                        "NCCL_NVLS_ENABLE", getenv("NCCL_NVLS_ENABLE"), "NCCL_HOSTID",
                                        getenv("NCCL_HOSTID"), "NCCL_SOCKET_IFNAME", getenv("NCCL_SOCKET_IFNAME")));
    }
    /* error/crash/hang: everyone is running before the culprit acts. */
    int misbehave = !strcmp(t.action, "error") || !strcmp(t.action, "crash") || !strcmp(t.action, "hang");
    if (misbehave) MGPU_CHECK(sync_all(w));
    if (strcmp(t.action, "error") == 0) {
        if (culprit) return mgpu_fail(MGPU_ERR_INVALID, "selftest: rank %d failed on purpose", me);
        return wait_for_abort(w);
    }
    if (strcmp(t.action, "crash") == 0) return culprit ? crash(t.signal) : wait_for_abort(w);
    if (strcmp(t.action, "hang") == 0) return culprit ? hang() : wait_for_abort(w);
    if (strcmp(t.action, "sleep") == 0) {
        if (culprit) sleep_s(t.seconds);
        return send_result(w, json_pack("{s:b, s:f}", "ok", 1, "slept", culprit ? t.seconds : 0.0));
    }
    if (strcmp(t.action, "print") == 0) {
        printf("selftest: rank %d on stdout\n", me); /* left to stdio's buffering, as a library would */
        fprintf(stderr, "selftest: rank %d on stderr\n", me);
        return send_result(w, json_pack("{s:b}", "ok", 1));
    }
    if (strcmp(t.action, "burst") == 0) {
        char *pad = calloc((size_t)t.bytes + 1, 1);
        if (!pad) return mgpu_fail(MGPU_ERR_NOMEM, "selftest: out of memory for a burst");
        memset(pad, 'x', (size_t)t.bytes);
        mgpu_result r = MGPU_OK;
        for (int i = 0; r == MGPU_OK && i < t.rounds; i++)
            r = send_result(w, json_pack("{s:b, s:i, s:s}", "ok", 1, "round", i + 1, "pad", pad));
        free(pad);
        return r;
    }
    if (strcmp(t.action, "allgather") == 0) return do_allgather(w, &t);
    if (strcmp(t.action, "world_allreduce") == 0) return do_world_allreduce(w, &t);
    return mgpu_fail(MGPU_ERR_INVALID,
                     "selftest: action '%s' is not ok, error, crash, hang, sleep, print, burst, allgather or world_allreduce",
                     t.action);
}

const mgpu_job_handler mgpu_job_selftest = {.type = "selftest", .run = run};
