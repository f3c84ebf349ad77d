/* test_tensor_compare.c - tensors on the sim backend: allocation, fill and
 * checksum through tensor.h, compare with and without tolerance (NaN,
 * infinities, -0.0, i32), tensors in different memories, to_host_f32, and
 * the argument errors. */
#include "mgpu/tensor.h"
#include "tap.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static mgpu_backend *be;
static mgpu_stream *s;

/* Write element i of a tensor living in host-visible (sim) memory. */
static void put(mgpu_tensor *t, size_t i, float v) { mgpu_fill_store((char *)t->buf->ptr + t->offset, t->dtype, i, v); }

static void test_alloc_fill_checksum(void)
{
    mgpu_tensor a, b;
    CHECK_OK(mgpu_tensor_alloc(be, MGPU_MEM_DEVICE, 0, MGPU_BF16, 1000, &a));
    CHECK_OK(mgpu_tensor_alloc(be, MGPU_MEM_DEVICE, 1, MGPU_BF16, 1000, &b));
    CHECK(mgpu_tensor_bytes(&a) == 2000 && a.offset == 0 && a.buf->device == 0);
    mgpu_fill_spec fs = {MGPU_FILL_RANDOM, 7, 0};
    CHECK_OK(mgpu_tensor_fill(s, &a, &fs));
    CHECK_OK(mgpu_tensor_fill(s, &b, &fs)); /* runs on GPU 0: needs peer access 0 -> 1 */
    uint64_t ca = 0, cb = 1;
    CHECK_OK(mgpu_tensor_checksum(s, &a, &ca));
    CHECK_OK(mgpu_tensor_checksum(s, &b, &cb));
    CHECK(ca == cb);
    mgpu_compare_result r;
    CHECK_OK(mgpu_tensor_compare(s, &a, &b, 0, 0, &r));
    CHECK(r.mismatches == 0 && r.first_mismatch == SIZE_MAX && r.max_abs_err == 0);
    put(&b, 999, 0.75f);
    CHECK_OK(mgpu_tensor_checksum(s, &b, &cb));
    CHECK(ca != cb);
    CHECK_OK(mgpu_tensor_compare(s, &a, &b, 0, 0, &r));
    CHECK(r.mismatches == (mgpu_elem_f32(a.buf->ptr, MGPU_BF16, 999) != 0.75f ? 1u : 0u));
    mgpu_tensor_free(&a);
    mgpu_tensor_free(&b);
    CHECK(a.buf == NULL);
    mgpu_tensor_free(&a); /* freeing twice is harmless */
}

static void test_tolerances(void)
{
    mgpu_tensor a, b;
    CHECK_OK(mgpu_tensor_alloc(be, MGPU_MEM_DEVICE, 0, MGPU_F32, 8, &a));
    CHECK_OK(mgpu_tensor_alloc(be, MGPU_MEM_PINNED, -1, MGPU_F32, 8, &b));
    const float av[8] = {1.0f, 100.0f, 0.0f, NAN, NAN, INFINITY, 5.0f, -0.0f};
    const float bv[8] = {1.001f, 100.0f, 1e-7f, NAN, 1.0f, INFINITY, 5.0f, 0.0f};
    for (int i = 0; i < 8; i++) put(&a, (size_t)i, av[i]), put(&b, (size_t)i, bv[i]);
    mgpu_compare_result r;
    /* bit-exact: [0] [2] differ in value, [4] NaN vs 1, [7] -0.0 vs 0.0;
     * [3] is the same NaN bit pattern */
    CHECK_OK(mgpu_tensor_compare(s, &a, &b, 0, 0, &r));
    CHECKF(r.mismatches == 4, "%zu", r.mismatches);
    CHECK(r.first_mismatch == 0);
    CHECK(fabs(r.max_abs_err - 0.001) < 1e-5);
    /* rtol 1e-2: [0] within, [2] |0-1e-7| > 0 + 1e-2*1e-7, [4] NaN vs number */
    CHECK_OK(mgpu_tensor_compare(s, &a, &b, 1e-2, 0, &r));
    CHECKF(r.mismatches == 2, "%zu", r.mismatches);
    CHECK(r.first_mismatch == 2);
    /* atol 1e-6 catches [2]; NaN vs number is still a mismatch */
    CHECK_OK(mgpu_tensor_compare(s, &a, &b, 1e-2, 1e-6, &r));
    CHECK(r.mismatches == 1 && r.first_mismatch == 4);
    /* tight tolerance: [0] fails again */
    CHECK_OK(mgpu_tensor_compare(s, &a, &b, 1e-4, 1e-6, &r));
    CHECK(r.mismatches == 2 && r.first_mismatch == 0);
    CHECK(r.max_rel_err == 1.0); /* [2]: |0 - 1e-7| / 1e-7 */
    /* a tensor compared with itself, and symmetric infinity handling */
    CHECK_OK(mgpu_tensor_compare(s, &a, &a, 0, 0, &r));
    CHECK(r.mismatches == 0);
    put(&b, 5, -INFINITY);
    CHECK_OK(mgpu_tensor_compare(s, &a, &b, 1, 1, &r));
    CHECK(r.mismatches == 2); /* [4] and +inf vs -inf */
    /* errors */
    CHECK(mgpu_tensor_compare(s, &a, &b, -1, 0, &r) == MGPU_ERR_INVALID);
    CHECK(mgpu_tensor_compare(s, &a, &b, NAN, 0, &r) == MGPU_ERR_INVALID);
    CHECK(mgpu_tensor_compare(s, &a, &b, 0, INFINITY, &r) == MGPU_ERR_INVALID);
    mgpu_tensor c;
    CHECK_OK(mgpu_tensor_alloc(be, MGPU_MEM_DEVICE, 0, MGPU_F32, 9, &c));
    CHECK(mgpu_tensor_compare(s, &a, &c, 0, 0, &r) == MGPU_ERR_INVALID);
    mgpu_tensor_free(&c);
    CHECK_OK(mgpu_tensor_alloc(be, MGPU_MEM_DEVICE, 0, MGPU_I32, 8, &c));
    CHECK(mgpu_tensor_compare(s, &a, &c, 0, 0, &r) == MGPU_ERR_INVALID);
    CHECK(strstr(mgpu_error_message(), "f32") != NULL);
    mgpu_tensor_free(&c);
    mgpu_tensor_free(&a);
    mgpu_tensor_free(&b);
}

static void test_i32_and_views(void)
{
    mgpu_tensor a, b;
    CHECK_OK(mgpu_tensor_alloc(be, MGPU_MEM_DEVICE, 0, MGPU_I32, 4, &a));
    CHECK_OK(mgpu_tensor_alloc(be, MGPU_MEM_PAGEABLE, -1, MGPU_I32, 4, &b));
    int32_t *pa = a.buf->ptr, *pb = b.buf->ptr;
    pa[0] = pb[0] = 16777217; /* 2^24 + 1: not a float, still compared exactly */
    pa[1] = 16777216, pb[1] = 16777217;
    pa[2] = pb[2] = -5;
    pa[3] = 100, pb[3] = 101;
    mgpu_compare_result r;
    CHECK_OK(mgpu_tensor_compare(s, &a, &b, 0, 0, &r));
    CHECK(r.mismatches == 2 && r.first_mismatch == 1);
    CHECK_OK(mgpu_tensor_compare(s, &a, &b, 0, 1, &r));
    CHECK(r.mismatches == 0 && r.max_abs_err == 1);
    /* a view into the middle of a buffer */
    mgpu_tensor v = {a.buf, 8, 2, MGPU_I32}, w = {b.buf, 8, 2, MGPU_I32};
    CHECK_OK(mgpu_tensor_compare(s, &v, &w, 0, 0, &r));
    CHECK(r.mismatches == 1 && r.first_mismatch == 1);
    float f[2];
    CHECK_OK(mgpu_tensor_to_host_f32(s, &v, f));
    CHECK(f[0] == -5.0f && f[1] == 100.0f);
    mgpu_tensor bad = {a.buf, 8, 3, MGPU_I32}; /* runs past the buffer */
    CHECK(mgpu_tensor_compare(s, &bad, &bad, 0, 0, &r) == MGPU_ERR_INVALID);
    CHECK(mgpu_tensor_to_host_f32(s, &bad, f) == MGPU_ERR_INVALID);
    CHECK(mgpu_tensor_to_host_f32(s, &v, NULL) == MGPU_ERR_INVALID);
    mgpu_tensor none = {0};
    CHECK(mgpu_tensor_checksum(s, &none, NULL) == MGPU_ERR_INVALID);
    mgpu_tensor_free(&a);
    mgpu_tensor_free(&b);
    /* allocation errors */
    CHECK(mgpu_tensor_alloc(be, MGPU_MEM_DEVICE, 0, MGPU_F32, 0, &a) == MGPU_ERR_INVALID);
    CHECK(mgpu_tensor_alloc(be, MGPU_MEM_DEVICE, 0, (mgpu_dtype)7, 4, &a) == MGPU_ERR_INVALID);
    CHECK(mgpu_tensor_alloc(be, MGPU_MEM_DEVICE, 0, MGPU_F32, SIZE_MAX / 2, &a) == MGPU_ERR_INVALID);
    CHECK(mgpu_tensor_alloc(be, MGPU_MEM_DEVICE, 0, MGPU_F32, (size_t)1 << 40, &a) == MGPU_ERR_DEVICE_OOM);
    CHECK(a.buf == NULL);
}

static void test_large_and_to_host(void)
{
    /* more elements than one staging chunk (16 MiB), in f16 */
    size_t n = (size_t)9 << 20;
    mgpu_tensor a, b;
    CHECK_OK(mgpu_tensor_alloc(be, MGPU_MEM_DEVICE, 0, MGPU_F16, n, &a));
    CHECK_OK(mgpu_tensor_alloc(be, MGPU_MEM_DEVICE, 0, MGPU_F16, n, &b));
    if (!a.buf || !b.buf) return;
    mgpu_fill_spec fs = {MGPU_FILL_INDEX, 0, -512};
    CHECK_OK(mgpu_tensor_fill(s, &a, &fs));
    CHECK_OK(mgpu_tensor_fill(s, &b, &fs));
    put(&b, n - 3, 1e4f);
    mgpu_compare_result r;
    CHECK_OK(mgpu_tensor_compare(s, &a, &b, 0, 0, &r));
    CHECK(r.mismatches == 1 && r.first_mismatch == n - 3);
    float *h = malloc(n * sizeof *h);
    if (h) {
        CHECK_OK(mgpu_tensor_to_host_f32(s, &a, h));
        CHECK(h[0] == -512.0f && h[1023] == 511.0f && h[1024] == -512.0f);
        CHECK(h[n - 1] == (float)(-512 + (int)((n - 1) & 1023)));
        free(h);
    }
    mgpu_tensor_free(&a);
    mgpu_tensor_free(&b);
}

int main(void)
{
    mgpu_backend_config cfg = {MGPU_BACKEND_SIM, "dgx-h100", NULL};
    if (mgpu_backend_open(&cfg, &be) != MGPU_OK) {
        CHECKF(0, "open: %s", mgpu_error_message());
        return tap_done();
    }
    CHECK_OK(mgpu_stream_create(be, 0, 0, &s));
    CHECK_OK(mgpu_peer_enable(be, 0, 1)); /* the fill of a GPU 1 tensor runs on GPU 0 */
    test_alloc_fill_checksum();
    test_tolerances();
    test_i32_and_views();
    test_large_and_to_host();
    mgpu_stream_destroy(s);
    mgpu_backend_close(be);
    return tap_done();
}
