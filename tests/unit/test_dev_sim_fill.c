/* test_dev_sim_fill.c - fills and checksums on the sim backend: the values
 * follow dtype.h for every dtype and kind, are deterministic, respect
 * offsets, and the checksum sees a single changed element. */
#include "mgpu/dev.h"
#include "tap.h"
#include <string.h>

#define COUNT 5000

static mgpu_backend *be;
static mgpu_stream *s;

static void test_fill_values(mgpu_dtype t)
{
    mgpu_buffer *b = NULL;
    size_t esz = mgpu_dtype_size(t);
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 0, COUNT * esz + 64, &b));
    if (!b) return;
    memset(b->ptr, 0x77, b->bytes);
    mgpu_fill_spec kinds[] = {{MGPU_FILL_RANDOM, 42, 0}, {MGPU_FILL_CONST, 0, -2.5}, {MGPU_FILL_INDEX, 0, 3}};
    for (int k = 0; k < 3; k++) {
        const mgpu_fill_spec *fs = &kinds[k];
        CHECK_OK(mgpu_fill(s, b, 8 * esz, COUNT, t, fs));
        const char *base = (const char *)b->ptr + 8 * esz;
        int bad = 0;
        for (size_t i = 0; i < COUNT; i++) {
            char want[4];
            mgpu_fill_store(want, t, 0, mgpu_fill_value(t, fs->kind, fs->seed, fs->value, i));
            if (memcmp(base + i * esz, want, esz) != 0) bad++;
        }
        CHECKF(bad == 0, "%s fill kind %d: %d elements differ from dtype.h", mgpu_dtype_name(t), k, bad);
        /* the bytes before the offset are untouched */
        CHECK(((unsigned char *)b->ptr)[8 * esz - 1] == 0x77);
    }
    /* spot values: CONST -2.5 and INDEX 3 + (i mod 1024) in the dtype */
    CHECK_OK(mgpu_fill(s, b, 0, COUNT, t, &kinds[2]));
    float v1030 = mgpu_elem_f32(b->ptr, t, 1030);
    CHECKF(v1030 == 9.0f, "%s index fill [1030] = %g", mgpu_dtype_name(t), v1030);
    float v1023 = mgpu_elem_f32(b->ptr, t, 1023); /* 1026: bf16 keeps 8 significant bits */
    CHECKF(v1023 == (t == MGPU_BF16 ? 1024.0f : 1026.0f), "%s index fill [1023] = %g", mgpu_dtype_name(t), v1023);
    CHECK_OK(mgpu_fill(s, b, 0, COUNT, t, &kinds[1]));
    CHECK(mgpu_elem_f32(b->ptr, t, 17) == (t == MGPU_I32 ? -2.0f : -2.5f));
    /* RANDOM values lie in [-1, 1) (i32: [-1024, 1024)) and depend on the seed */
    uint64_t c42 = 0, c43 = 0, again = 0;
    CHECK_OK(mgpu_fill(s, b, 0, COUNT, t, &kinds[0]));
    float lo = 1e9f, hi = -1e9f;
    for (size_t i = 0; i < COUNT; i++) {
        float v = mgpu_elem_f32(b->ptr, t, i);
        if (v < lo) lo = v;
        if (v > hi) hi = v;
    }
    float lim = t == MGPU_I32 ? 1024.0f : 1.0f;
    CHECK(lo >= -lim && hi <= lim && lo < 0 && hi > 0);
    CHECK_OK(mgpu_checksum(s, b, 0, COUNT, t, &c42));
    mgpu_fill_spec other = {MGPU_FILL_RANDOM, 43, 0};
    CHECK_OK(mgpu_fill(s, b, 0, COUNT, t, &other));
    CHECK_OK(mgpu_checksum(s, b, 0, COUNT, t, &c43));
    CHECK(c42 != c43);
    CHECK_OK(mgpu_fill(s, b, 0, COUNT, t, &kinds[0]));
    CHECK_OK(mgpu_checksum(s, b, 0, COUNT, t, &again));
    CHECK(again == c42); /* deterministic */
    /* checksum = sum of dtype.h terms */
    uint64_t want = 0;
    for (size_t i = 0; i < COUNT; i++) want += mgpu_checksum_term(mgpu_elem_bits(b->ptr, t, i), i);
    CHECK(want == c42);
    /* one element changed by one bit changes the checksum; so does -0.0 vs 0.0 */
    ((unsigned char *)b->ptr)[esz * 1234] ^= 1;
    CHECK_OK(mgpu_checksum(s, b, 0, COUNT, t, &again));
    CHECK(again != c42);
    ((unsigned char *)b->ptr)[esz * 1234] ^= 1;
    /* swapping two elements changes it too (the index is in each term) */
    char tmp[4];
    memcpy(tmp, (char *)b->ptr + 3 * esz, esz);
    memcpy((char *)b->ptr + 3 * esz, (char *)b->ptr + 4 * esz, esz);
    memcpy((char *)b->ptr + 4 * esz, tmp, esz);
    CHECK_OK(mgpu_checksum(s, b, 0, COUNT, t, &again));
    CHECK(again != c42 || memcmp((char *)b->ptr + 3 * esz, (char *)b->ptr + 4 * esz, esz) == 0);
    mgpu_mem_free(b);
}

static void test_fill_errors_and_reach(void)
{
    mgpu_buffer *d1 = NULL, *pin = NULL;
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_DEVICE, 1, 4096, &d1));
    CHECK_OK(mgpu_mem_alloc(be, MGPU_MEM_PINNED, 0, 4096, &pin));
    if (!d1 || !pin) goto out;
    mgpu_fill_spec fs = {MGPU_FILL_CONST, 0, 1.0};
    uint64_t c = 0;
    /* a kernel on GPU 0 cannot touch GPU 1's memory without peer access */
    CHECK(mgpu_fill(s, d1, 0, 16, MGPU_F32, &fs) == MGPU_ERR_PEER);
    CHECK(mgpu_checksum(s, d1, 0, 16, MGPU_F32, &c) == MGPU_ERR_PEER);
    CHECK_OK(mgpu_peer_enable(be, 0, 1));
    CHECK_OK(mgpu_fill(s, d1, 0, 16, MGPU_F32, &fs));
    CHECK(((float *)d1->ptr)[15] == 1.0f);
    CHECK_OK(mgpu_peer_disable(be, 0, 1));
    /* pinned host memory is reachable */
    CHECK_OK(mgpu_fill(s, pin, 0, 1024, MGPU_I32, &fs));
    CHECK(((int32_t *)pin->ptr)[1023] == 1);
    /* ranges, alignment, dtype */
    CHECK(mgpu_fill(s, pin, 0, 1025, MGPU_F32, &fs) == MGPU_ERR_INVALID);
    CHECK(mgpu_fill(s, pin, 2, 4, MGPU_F32, &fs) == MGPU_ERR_INVALID);
    CHECK(mgpu_fill(s, pin, 0, 4, (mgpu_dtype)9, &fs) == MGPU_ERR_INVALID);
    CHECK(mgpu_checksum(s, pin, 0, (size_t)-1, MGPU_F32, &c) == MGPU_ERR_INVALID);
    CHECK_OK(mgpu_checksum(s, pin, 0, 0, MGPU_F32, &c));
    CHECK(c == 0);
out:
    mgpu_mem_free(d1);
    mgpu_mem_free(pin);
}

int main(void)
{
    mgpu_backend_config cfg = {MGPU_BACKEND_SIM, "dgx-h100", NULL};
    if (mgpu_backend_open(&cfg, &be) != MGPU_OK) {
        CHECKF(0, "open: %s", mgpu_error_message());
        return tap_done();
    }
    CHECK_OK(mgpu_stream_create(be, 0, 0, &s));
    for (int t = 0; t < MGPU_DTYPE_COUNT; t++) test_fill_values((mgpu_dtype)t);
    test_fill_errors_and_reach();
    mgpu_stream_destroy(s);
    mgpu_backend_close(be);
    return tap_done();
}
