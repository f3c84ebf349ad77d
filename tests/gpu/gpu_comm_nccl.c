/* gpu_comm_nccl.c - the NCCL communicator backend on one GPU, one rank (a
 * bootstrap of size 1): every collective, dtype and reduction against a
 * host reference (out of place and in place), send/recv to self in a
 * group, split, a non-blocking communicator, and the watchdog: a
 * collective held behind a gate past its timeout fails the flight entry,
 * sets MGPU_ERR_TIMEOUT and aborts NCCL without hanging. Prints NCCL's version. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "comm/nccl_dl.h"
#include "mgpu/clock.h"
#include "mgpu/comm.h"
#include "tap.h"

#define COUNT 1001 /* odd: no multiple of a vector width */

static mgpu_result solo(void *ctx, const void *mine, void *all, size_t len)
{
    (void)ctx;
    memcpy(all, mine, len);
    return MGPU_OK;
}

/* Element i of dtype t: small integers, exact in every dtype. */
static void make(mgpu_dtype t, size_t n, unsigned char *out, int salt)
{
    for (size_t i = 0; i < n; i++) {
        float v = (float)((int)((i * 7 + (size_t)salt) % 61) - 30);
        switch (t) {
        case MGPU_F32: memcpy(out + 4 * i, &v, 4); break;
        case MGPU_I32: { int32_t x = (int32_t)v; memcpy(out + 4 * i, &x, 4); break; }
        case MGPU_F16: { uint16_t h = mgpu_f32_to_f16(v); memcpy(out + 2 * i, &h, 2); break; }
        default: { uint16_t h = mgpu_f32_to_bf16(v); memcpy(out + 2 * i, &h, 2); break; }
        }
    }
}

typedef struct env {
    mgpu_backend *be;
    mgpu_comm *c;
    mgpu_stream *s;
    mgpu_buffer *send, *recv, *host;
    size_t bytes;
} env;

/* One collective with one rank: every op's result equals its input. */
static int one(env *e, mgpu_comm *c, mgpu_coll op, mgpu_dtype t, mgpu_redop rop, int in_place)
{
    size_t es = mgpu_dtype_size(t), n = COUNT, bytes = n * es;
    unsigned char *want = malloc(bytes);
    make(t, n, want, (int)op * 5 + (int)t + (int)rop);
    memcpy(e->host->ptr, want, bytes);
    memset((char *)e->host->ptr + bytes, 0xA5, bytes);
    mgpu_buffer *dst = in_place ? e->send : e->recv;
    mgpu_result r = mgpu_copy(e->s, e->send, 0, e->host, 0, bytes, MGPU_COPY_CE);
    if (r == MGPU_OK && !in_place) r = mgpu_copy(e->s, e->recv, 0, e->host, bytes, bytes, MGPU_COPY_CE);
    if (r == MGPU_OK) {
        switch (op) {
        case MGPU_COLL_ALL_REDUCE: r = mgpu_all_reduce(c, e->send, 0, dst, 0, n, t, rop, e->s); break;
        case MGPU_COLL_ALL_GATHER: r = mgpu_all_gather(c, e->send, 0, dst, 0, n, t, e->s); break;
        case MGPU_COLL_REDUCE_SCATTER: r = mgpu_reduce_scatter(c, e->send, 0, dst, 0, n, t, rop, e->s); break;
        case MGPU_COLL_BROADCAST: r = mgpu_broadcast(c, e->send, 0, dst, 0, n, t, 0, e->s); break;
        case MGPU_COLL_REDUCE: r = mgpu_reduce(c, e->send, 0, dst, 0, n, t, rop, 0, e->s); break;
        case MGPU_COLL_ALLTOALL: r = mgpu_alltoall(c, e->send, 0, dst, 0, n, t, e->s); break;
        default: r = MGPU_ERR_INTERNAL;
        }
    }
    if (r == MGPU_OK) r = mgpu_copy(e->s, e->host, bytes, dst, 0, bytes, MGPU_COPY_CE);
    if (r == MGPU_OK) r = mgpu_stream_synchronize(e->s);
    int ok = r == MGPU_OK && memcmp((char *)e->host->ptr + bytes, want, bytes) == 0;
    printf("# %-14s %-4s %-4s %-10s %s%s%s\n", mgpu_coll_name(op), mgpu_dtype_name(t),
           mgpu_coll_parse(mgpu_coll_name(op)) == MGPU_COLL_ALL_REDUCE || op == MGPU_COLL_REDUCE ||
                   op == MGPU_COLL_REDUCE_SCATTER ? mgpu_redop_name(rop) : "-",
           in_place ? "in-place" : "out-place", ok ? "ok" : "WRONG", r ? ": " : "", r ? mgpu_error_message() : "");
    free(want);
    return ok;
}

static double now_s(void) { return (double)mgpu_now_ns() / 1e9; }

int main(void)
{
    const mgpu_nccl_api *api = NULL;
    if (mgpu_nccl_load(&api) != MGPU_OK) {
        printf("# %s\n", mgpu_error_message());
        CHECK(0);
        return tap_done();
    }
    printf("# NCCL version %d (library), NCCL_NVLS_ENABLE=%s\n", api->version, getenv("NCCL_NVLS_ENABLE"));
    CHECK(strcmp(getenv("NCCL_NVLS_ENABLE"), "0") == 0);

    env e = {0};
    mgpu_backend_config bc = {MGPU_BACKEND_CUDA, NULL, NULL};
    CHECK_OK(mgpu_backend_open(&bc, &e.be));
    if (!e.be) return tap_done();
    mgpu_bootstrap bs = {NULL, 0, 1, solo};
    mgpu_comm_config cfg = {0, 1, 30, 0, 0, "world"};
    double t0 = now_s();
    CHECK_OK(mgpu_comm_init(e.be, &bs, &cfg, &e.c));
    printf("# blocking init %.3f s\n", now_s() - t0);
    if (!e.c) return tap_done();
    CHECK(strcmp(mgpu_comm_backend_name(e.c), "nccl") == 0);
    e.bytes = COUNT * 4 * 2;
    CHECK_OK(mgpu_stream_create(e.be, 0, 0, &e.s));
    CHECK_OK(mgpu_mem_alloc(e.be, MGPU_MEM_DEVICE, 0, e.bytes, &e.send));
    CHECK_OK(mgpu_mem_alloc(e.be, MGPU_MEM_DEVICE, 0, e.bytes, &e.recv));
    CHECK_OK(mgpu_mem_alloc(e.be, MGPU_MEM_PINNED, -1, 2 * e.bytes, &e.host));

    int wrong = 0, total = 0;
    for (int op = MGPU_COLL_ALL_REDUCE; op <= MGPU_COLL_ALLTOALL; op++)
        for (int t = 0; t < MGPU_DTYPE_COUNT; t++) {
            int reduces = op == MGPU_COLL_ALL_REDUCE || op == MGPU_COLL_REDUCE_SCATTER || op == MGPU_COLL_REDUCE;
            for (int rop = 0; rop < (reduces ? MGPU_REDOP_COUNT : 1); rop++)
                for (int ip = 0; ip < 2; ip++) {
                    total++;
                    if (!one(&e, e.c, (mgpu_coll)op, (mgpu_dtype)t, (mgpu_redop)rop, ip)) wrong++;
                }
        }
    printf("# collectives: %d cases, %d wrong\n", total, wrong);
    CHECK(wrong == 0);

    /* Count 0 and the barrier. */
    CHECK_OK(mgpu_all_reduce(e.c, e.send, 0, e.recv, 0, 0, MGPU_F32, MGPU_SUM, e.s));
    CHECK_OK(mgpu_barrier(e.c, e.s));
    CHECK_OK(mgpu_stream_synchronize(e.s));

    /* Send/recv to self in a group. */
    {
        size_t bytes = COUNT * 4;
        make(MGPU_F32, COUNT, e.host->ptr, 3);
        CHECK_OK(mgpu_copy(e.s, e.send, 0, e.host, 0, bytes, MGPU_COPY_CE));
        CHECK_OK(mgpu_group_start());
        CHECK_OK(mgpu_send(e.c, e.send, 0, COUNT, MGPU_F32, 0, e.s));
        CHECK_OK(mgpu_recv(e.c, e.recv, 0, COUNT, MGPU_F32, 0, e.s));
        CHECK_OK(mgpu_group_end());
        CHECK_OK(mgpu_copy(e.s, e.host, bytes, e.recv, 0, bytes, MGPU_COPY_CE));
        CHECK_OK(mgpu_stream_synchronize(e.s));
        CHECK(memcmp(e.host->ptr, (char *)e.host->ptr + bytes, bytes) == 0);
        printf("# send/recv to self in a group: %s\n",
               memcmp(e.host->ptr, (char *)e.host->ptr + bytes, bytes) == 0 ? "ok" : "WRONG");
    }

    /* Split with one rank. */
    {
        mgpu_comm *sub = NULL;
        CHECK_OK(mgpu_comm_split(e.c, 0, 0, "sub", &sub));
        CHECK(sub && mgpu_comm_size(sub) == 1 && mgpu_comm_rank(sub) == 0);
        if (sub) CHECK(one(&e, sub, MGPU_COLL_ALL_REDUCE, MGPU_F32, MGPU_SUM, 0));
        CHECK_OK(mgpu_comm_destroy(sub));
        mgpu_comm *none = (mgpu_comm *)1;
        CHECK_OK(mgpu_comm_split(e.c, MGPU_SPLIT_NOCOLOR, 0, NULL, &none));
        CHECK(none == NULL);
    }

    /* The flight recorder saw all of it, completed (the watchdog's thread
     * completes entries from the fences it records): wait until it has
     * completed them, not for a time. */
    {
        struct timespec nap = {0, 2 * 1000 * 1000};
        mgpu_flight_entry fe[4];
        int n = 0, done = 0;
        for (int i = 0; i < 5000 && !done; i++) {
            n = mgpu_comm_flight_entries(e.c, fe, 4);
            done = n == 4;
            for (int j = 0; j < n; j++) done &= fe[j].state == MGPU_FLIGHT_COMPLETED;
            if (!done) nanosleep(&nap, NULL);
        }
        CHECK(n == 4);
        for (int i = 0; i < n; i++)
            CHECKF(fe[i].state == MGPU_FLIGHT_COMPLETED, "entry #%llu %s state %d", (unsigned long long)fe[i].seq,
                   mgpu_coll_name(fe[i].op), fe[i].state);
    }

    /* Non-blocking communicator. */
    {
        mgpu_comm_config nb = {0, 0, 30, 0, 0, "nonblocking"};
        mgpu_comm *c = NULL;
        t0 = now_s();
        CHECK_OK(mgpu_comm_init(e.be, &bs, &nb, &c));
        printf("# non-blocking init %.3f s\n", now_s() - t0);
        if (c) {
            CHECK(one(&e, c, MGPU_COLL_ALL_REDUCE, MGPU_BF16, MGPU_MAX, 0));
            CHECK(one(&e, c, MGPU_COLL_ALLTOALL, MGPU_I32, MGPU_SUM, 1));
            CHECK_OK(mgpu_comm_async_error(c));
            CHECK_OK(mgpu_comm_destroy(c));
        }
    }

    /* Fingerprint check on one rank: passes, and the collective runs. */
    {
        mgpu_comm_config fc = {0, 1, 30, 1, 0, "fp"};
        mgpu_comm *c = NULL;
        CHECK_OK(mgpu_comm_init(e.be, &bs, &fc, &c));
        if (c) {
            CHECK(one(&e, c, MGPU_COLL_BROADCAST, MGPU_F16, MGPU_SUM, 0));
            CHECK_OK(mgpu_comm_destroy(c));
        }
    }

    /* Watchdog: an all_reduce held behind a gate does not complete within
     * 1 s: the entry fails, the comm says why, NCCL is aborted. */
    {
        mgpu_comm_config wc = {0, 1, 1.0, 0, 0, "held"};
        mgpu_comm *c = NULL;
        CHECK_OK(mgpu_comm_init(e.be, &bs, &wc, &c));
        mgpu_gate *g = NULL;
        if (c) CHECK_OK(mgpu_gate_hold(e.s, 10000, &g));
        if (c && g) {
            t0 = now_s();
            CHECK_OK(mgpu_all_reduce(c, e.send, 0, e.recv, 0, COUNT, MGPU_F32, MGPU_SUM, e.s));
            mgpu_result r = MGPU_OK;
            while ((r = mgpu_comm_async_error(c)) == MGPU_OK && now_s() - t0 < 5) {
                struct timespec nap = {0, 10 * 1000 * 1000};
                nanosleep(&nap, NULL);
            }
            double took = now_s() - t0;
            printf("# watchdog: %s after %.2f s: %s\n", mgpu_result_name(r), took, mgpu_error_message());
            CHECK(r == MGPU_ERR_TIMEOUT);
            CHECK(took < 3.0);
            CHECK(strstr(mgpu_error_message(), "all_reduce #1 on comm held did not complete within 1 s") != NULL);
            mgpu_flight_entry fe[2];
            CHECK(mgpu_comm_flight_entries(c, fe, 2) == 1 && fe[0].state == MGPU_FLIGHT_FAILED);
            char *dump = mgpu_comm_flight_dump_json(c);
            printf("# dump: %s\n", dump ? dump : "(null)");
            free(dump);
            CHECK(mgpu_all_reduce(c, e.send, 0, e.recv, 0, COUNT, MGPU_F32, MGPU_SUM, e.s) == MGPU_ERR_TIMEOUT);
            CHECK_OK(mgpu_gate_open(g));
            mgpu_result sr = mgpu_stream_synchronize(e.s);
            printf("# stream after abort: %s %s\n", mgpu_result_name(sr), sr ? mgpu_error_message() : "");
            CHECK_OK(mgpu_comm_destroy(c));
        }
    }

    /* A user value of NCCL_NVLS_ENABLE other than 0 is refused. */
    setenv("NCCL_NVLS_ENABLE", "1", 1);
    {
        mgpu_comm *c = NULL;
        mgpu_result r = mgpu_comm_init(e.be, &bs, &cfg, &c);
        printf("# NCCL_NVLS_ENABLE=1: %s: %s\n", mgpu_result_name(r), mgpu_error_message());
        CHECK(r == MGPU_ERR_INVALID && !c);
    }
    setenv("NCCL_NVLS_ENABLE", "0", 1);

    mgpu_mem_free(e.send);
    mgpu_mem_free(e.recv);
    mgpu_mem_free(e.host);
    mgpu_stream_destroy(e.s);
    CHECK_OK(mgpu_comm_destroy(e.c));
    mgpu_backend_close(e.be);
    return tap_done();
}
