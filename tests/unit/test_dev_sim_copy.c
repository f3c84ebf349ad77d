/* test_dev_sim_copy.c - data correctness of every copy direction on the sim
 * backend, CE and SM, and the copy errors: SM with pageable memory, SM into
 * a peer without peer access, ranges outside a buffer. */
#include "mgpu/dev.h"
#include "tap.h"
#include <string.h>

#define N 4096

static mgpu_backend *be;

static void pattern(mgpu_buffer *b, unsigned seed)
{
    unsigned char *p = b->ptr;
    for (size_t i = 0; i < b->bytes; i++) p[i] = (unsigned char)(i * 31u + seed);
}

static mgpu_buffer *alloc(mgpu_mem_kind k, int dev)
{
    mgpu_buffer *b = NULL;
    CHECK_OK(mgpu_mem_alloc(be, k, dev, N, &b));
    if (b) memset(b->ptr, 0, N);
    return b;
}

/* Copy src -> dst (with offsets) on a stream of `exec`; the bytes arrive. */
static void roundtrip(mgpu_mem_kind sk, int sdev, mgpu_mem_kind dk, int ddev, int exec, mgpu_copy_engine how)
{
    mgpu_buffer *s = alloc(sk, sdev), *d = alloc(dk, ddev);
    mgpu_stream *st = NULL;
    CHECK_OK(mgpu_stream_create(be, exec, 0, &st));
    if (!s || !d || !st) goto out;
    pattern(s, (unsigned)(sk * 7 + dk + how));
    CHECKF(mgpu_copy(st, d, 100, s, 7, N - 200, how) == MGPU_OK, "%s %s->%s: %s", mgpu_copy_engine_name(how),
           mgpu_mem_kind_name(sk), mgpu_mem_kind_name(dk), mgpu_error_message());
    CHECK_OK(mgpu_stream_synchronize(st));
    CHECKF(memcmp((char *)d->ptr + 100, (char *)s->ptr + 7, N - 200) == 0, "%s %s(%d)->%s(%d) data",
           mgpu_copy_engine_name(how), mgpu_mem_kind_name(sk), sdev, mgpu_mem_kind_name(dk), ddev);
    const unsigned char *dp = d->ptr;
    CHECK(dp[99] == 0 && dp[N - 100] == 0); /* nothing outside the range */
out:
    mgpu_stream_destroy(st);
    mgpu_mem_free(s);
    mgpu_mem_free(d);
}

static void test_ce_all_directions(void)
{
    roundtrip(MGPU_MEM_PINNED, -1, MGPU_MEM_DEVICE, 0, 0, MGPU_COPY_CE);   /* H2D pinned */
    roundtrip(MGPU_MEM_PAGEABLE, -1, MGPU_MEM_DEVICE, 0, 0, MGPU_COPY_CE); /* H2D pageable */
    roundtrip(MGPU_MEM_DEVICE, 0, MGPU_MEM_PINNED, -1, 0, MGPU_COPY_CE);   /* D2H pinned */
    roundtrip(MGPU_MEM_DEVICE, 0, MGPU_MEM_PAGEABLE, -1, 0, MGPU_COPY_CE); /* D2H pageable */
    roundtrip(MGPU_MEM_DEVICE, 1, MGPU_MEM_DEVICE, 1, 1, MGPU_COPY_CE);    /* D2D local */
    roundtrip(MGPU_MEM_DEVICE, 0, MGPU_MEM_DEVICE, 1, 0, MGPU_COPY_CE);    /* peer, no access: staged */
    roundtrip(MGPU_MEM_PINNED, -1, MGPU_MEM_PAGEABLE, -1, 0, MGPU_COPY_CE);/* H2H */
    roundtrip(MGPU_MEM_DEVICE, 2, MGPU_MEM_DEVICE, 3, 5, MGPU_COPY_CE);    /* stream on a third GPU */
}

static void test_sm_all_directions(void)
{
    roundtrip(MGPU_MEM_PINNED, -1, MGPU_MEM_DEVICE, 0, 0, MGPU_COPY_SM);
    roundtrip(MGPU_MEM_DEVICE, 0, MGPU_MEM_PINNED, -1, 0, MGPU_COPY_SM);
    roundtrip(MGPU_MEM_DEVICE, 0, MGPU_MEM_DEVICE, 0, 0, MGPU_COPY_SM);
    roundtrip(MGPU_MEM_PINNED, -1, MGPU_MEM_PINNED, -1, 0, MGPU_COPY_SM);
    CHECK_OK(mgpu_peer_enable(be, 0, 1));
    roundtrip(MGPU_MEM_DEVICE, 0, MGPU_MEM_DEVICE, 1, 0, MGPU_COPY_SM);    /* push to the peer */
    roundtrip(MGPU_MEM_DEVICE, 1, MGPU_MEM_DEVICE, 0, 0, MGPU_COPY_SM);    /* pull from the peer */
    roundtrip(MGPU_MEM_DEVICE, 0, MGPU_MEM_DEVICE, 1, 0, MGPU_COPY_CE);    /* CE peer, direct */
    CHECK_OK(mgpu_peer_disable(be, 0, 1));
}

static void test_copy_errors(void)
{
    mgpu_buffer *d0 = alloc(MGPU_MEM_DEVICE, 0), *d1 = alloc(MGPU_MEM_DEVICE, 1);
    mgpu_buffer *pg = alloc(MGPU_MEM_PAGEABLE, -1);
    mgpu_stream *s0 = NULL, *s1 = NULL;
    CHECK_OK(mgpu_stream_create(be, 0, 0, &s0));
    CHECK_OK(mgpu_stream_create(be, 1, 0, &s1));
    if (!d0 || !d1 || !pg || !s0 || !s1) goto out;
    memset(d1->ptr, 0x5A, N);
    /* SM + pageable: a kernel cannot reach pageable memory */
    CHECK(mgpu_copy(s0, d0, 0, pg, 0, N, MGPU_COPY_SM) == MGPU_ERR_UNSUPPORTED);
    CHECK(strstr(mgpu_error_message(), "pinned") != NULL);
    CHECK(mgpu_copy(s0, pg, 0, d0, 0, N, MGPU_COPY_SM) == MGPU_ERR_UNSUPPORTED);
    /* SM touching a peer without peer access: refused, nothing written */
    CHECK(mgpu_copy(s0, d0, 0, d1, 0, N, MGPU_COPY_SM) == MGPU_ERR_PEER);
    CHECK(strstr(mgpu_error_message(), "mgpu_peer_enable(0, 1)") != NULL);
    CHECK(((unsigned char *)d0->ptr)[0] == 0);
    CHECK(mgpu_copy(s1, d0, 0, d1, 0, N, MGPU_COPY_SM) == MGPU_ERR_PEER); /* GPU 1 writing GPU 0 */
    CHECK(strstr(mgpu_error_message(), "mgpu_peer_enable(1, 0)") != NULL);
    /* access 0 -> 1 lets a kernel on 0 do it, not one on 1 */
    CHECK_OK(mgpu_peer_enable(be, 0, 1));
    CHECK_OK(mgpu_copy(s0, d0, 0, d1, 0, N, MGPU_COPY_SM));
    CHECK(((unsigned char *)d0->ptr)[N - 1] == 0x5A);
    CHECK(mgpu_copy(s1, d1, 0, d0, 0, N, MGPU_COPY_SM) == MGPU_ERR_PEER);
    CHECK_OK(mgpu_peer_disable(be, 0, 1));
    /* ranges */
    CHECK(mgpu_copy(s0, d0, 1, d1, 0, N, MGPU_COPY_CE) == MGPU_ERR_INVALID);
    CHECK(mgpu_copy(s0, d0, 0, d1, N + 1, 0, MGPU_COPY_CE) == MGPU_ERR_INVALID);
    CHECK(mgpu_copy(s0, d0, (size_t)-1, d1, 0, 2, MGPU_COPY_CE) == MGPU_ERR_INVALID);
    CHECK_OK(mgpu_copy(s0, d0, N, d1, 0, 0, MGPU_COPY_CE)); /* empty copy at the end */
    /* overlapping copy within one buffer behaves like memmove */
    unsigned char *p = d0->ptr;
    for (int i = 0; i < 16; i++) p[i] = (unsigned char)i;
    CHECK_OK(mgpu_copy(s0, d0, 4, d0, 0, 8, MGPU_COPY_CE));
    CHECK(p[4] == 0 && p[11] == 7);
out:
    mgpu_stream_destroy(s0);
    mgpu_stream_destroy(s1);
    mgpu_mem_free(d0);
    mgpu_mem_free(d1);
    mgpu_mem_free(pg);
}

int main(void)
{
    mgpu_backend_config cfg = {MGPU_BACKEND_SIM, "dgx-h100", NULL};
    if (mgpu_backend_open(&cfg, &be) != MGPU_OK) {
        CHECKF(0, "open: %s", mgpu_error_message());
        return tap_done();
    }
    test_ce_all_directions();
    test_sm_all_directions();
    test_copy_errors();
    mgpu_backend_close(be);
    return tap_done();
}
