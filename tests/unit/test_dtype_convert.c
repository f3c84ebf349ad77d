/* test_dtype_convert.c - f16/bf16 round-to-nearest-even conversions and the
 * i32 store of dtype.h against known bit patterns: normals, ties,
 * subnormals, overflow, infinities and NaN. */
#include "mgpu/dtype.h"
#include "tap.h"
#include <math.h>

static float f(uint32_t bits) { return mgpu_bits_f32(bits); }

#define F16(x, want) CHECKF(mgpu_f32_to_f16(x) == (want), "f16(%a) = 0x%04x, want 0x%04x", (double)(x), \
                            mgpu_f32_to_f16(x), (unsigned)(want))
#define BF16(x, want) CHECKF(mgpu_f32_to_bf16(x) == (want), "bf16(%a) = 0x%04x, want 0x%04x", (double)(x), \
                             mgpu_f32_to_bf16(x), (unsigned)(want))

static void test_f16_from_f32(void)
{
    F16(0.0f, 0x0000);
    F16(-0.0f, 0x8000);
    F16(1.0f, 0x3C00);
    F16(-2.0f, 0xC000);
    F16(0.1f, 0x2E66);
    F16(1.0f / 3.0f, 0x3555);
    F16(65504.0f, 0x7BFF);                  /* largest finite */
    /* ties to even in the normal range */
    F16(1.0f + 0x1p-11f, 0x3C00);           /* halfway 0x3C00/0x3C01 -> even 0x3C00 */
    F16(1.0f + 3 * 0x1p-11f, 0x3C02);       /* halfway 0x3C01/0x3C02 -> even 0x3C02 */
    F16(2049.0f, 0x6800);                   /* halfway 2048/2050 -> 2048 */
    F16(2051.0f, 0x6802);                   /* halfway 2050/2052 -> 2052 */
    F16(f(0x3F801001), 0x3C01);             /* just above a tie rounds up */
    /* overflow */
    F16(65519.0f, 0x7BFF);                  /* below the halfway point to 65536 */
    F16(65520.0f, 0x7C00);                  /* tie: 65504 is odd -> rounds to inf */
    F16(1e6f, 0x7C00);
    F16(-1e6f, 0xFC00);
    F16(INFINITY, 0x7C00);
    F16(-INFINITY, 0xFC00);
    /* subnormals */
    F16(0x1p-24f, 0x0001);                  /* smallest subnormal */
    F16(0x1p-25f, 0x0000);                  /* tie with 0 -> even 0 */
    F16(f(0x33000001), 0x0001);             /* just above 2^-25 */
    F16(3 * 0x1p-25f, 0x0002);              /* 1.5 units: tie -> even 2 */
    F16(5 * 0x1p-25f, 0x0002);              /* 2.5 units: tie -> even 2 */
    F16(1023 * 0x1p-24f, 0x03FF);           /* largest subnormal */
    F16(1023.5f * 0x1p-24f, 0x0400);        /* tie -> rounds up into the smallest normal */
    F16(0x1p-14f, 0x0400);                  /* smallest normal */
    F16(-0x1p-24f, 0x8001);
    F16(0x1p-30f, 0x0000);
    F16(-0x1p-30f, 0x8000);
    F16(f(0x00000001), 0x0000);             /* f32 subnormal */
    /* NaN stays NaN (quiet) */
    uint16_t h = mgpu_f32_to_f16(NAN);
    CHECK((h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0);
    h = mgpu_f32_to_f16(f(0x7F800001)); /* signalling NaN with a low payload */
    CHECK((h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0);
}

static void test_f16_to_f32(void)
{
    CHECK(mgpu_f16_to_f32(0x3C00) == 1.0f);
    CHECK(mgpu_f16_to_f32(0x0001) == 0x1p-24f);
    CHECK(mgpu_f16_to_f32(0x03FF) == 1023 * 0x1p-24f);
    CHECK(mgpu_f16_to_f32(0x0400) == 0x1p-14f);
    CHECK(mgpu_f16_to_f32(0x7BFF) == 65504.0f);
    CHECK(mgpu_f16_to_f32(0x7C00) == INFINITY);
    CHECK(mgpu_f16_to_f32(0xFC00) == -INFINITY);
    CHECK(mgpu_f32_bits(mgpu_f16_to_f32(0x8000)) == 0x80000000u);
    CHECK(mgpu_f16_to_f32(0x8001) == -0x1p-24f);
    CHECK(isnan(mgpu_f16_to_f32(0x7E00)));
    CHECK(mgpu_f16_to_f32(0x3555) == 0.333251953125f);
    /* Every finite f16 survives f16 -> f32 -> f16 bit for bit. */
    int bad = 0;
    for (uint32_t x = 0; x < 0x10000; x++) {
        if ((x & 0x7C00) == 0x7C00 && (x & 0x3FF)) continue; /* NaN payloads may be quietened */
        if (mgpu_f32_to_f16(mgpu_f16_to_f32((uint16_t)x)) != x) bad++;
    }
    CHECKF(bad == 0, "%d f16 values do not round-trip", bad);
}

static void test_bf16(void)
{
    BF16(1.0f, 0x3F80);
    BF16(-2.0f, 0xC000);
    BF16(0.1f, 0x3DCD);                      /* 0x3DCCCCCD rounds up */
    BF16(f(0x3F808000), 0x3F80);             /* tie -> even 0x3F80 */
    BF16(f(0x3F818000), 0x3F82);             /* tie -> even 0x3F82 */
    BF16(f(0x3F808001), 0x3F81);             /* above the tie */
    BF16(f(0x3F807FFF), 0x3F80);             /* below the tie */
    BF16(f(0x7F7F7FFF), 0x7F7F);             /* largest finite stays finite */
    BF16(f(0x7F7FFFFF), 0x7F80);             /* FLT_MAX rounds to inf */
    BF16(INFINITY, 0x7F80);
    BF16(-INFINITY, 0xFF80);
    BF16(f(0x00008000), 0x0000);             /* subnormal tie -> even 0 */
    BF16(f(0x00018000), 0x0002);             /* subnormal tie -> even 2 */
    BF16(f(0x00010000), 0x0001);             /* smallest bf16 subnormal exact */
    BF16(f(0x80008001), 0x8001);             /* negative subnormal rounds up in magnitude */
    BF16(-0.0f, 0x8000);
    uint16_t b = mgpu_f32_to_bf16(f(0x7F800001)); /* signalling NaN must not become inf */
    CHECK((b & 0x7F80) == 0x7F80 && (b & 0x7F) != 0);
    b = mgpu_f32_to_bf16(f(0xFFC00000));
    CHECK(b == 0xFFC0);
    CHECK(mgpu_f32_bits(mgpu_bf16_to_f32(0x0001)) == 0x00010000u);
    CHECK(mgpu_bf16_to_f32(0x3F80) == 1.0f);
    /* RANDOM fill values k/1024 need 10 significant bits: bf16 rounds them */
    CHECK(mgpu_bf16_to_f32(mgpu_f32_to_bf16(1023.0f / 1024.0f)) == 1.0f);
}

static void test_i32_store(void)
{
    int32_t v[6];
    mgpu_fill_store(v, MGPU_I32, 0, 3.9f);
    mgpu_fill_store(v, MGPU_I32, 1, -3.9f);
    mgpu_fill_store(v, MGPU_I32, 2, 1e20f);
    mgpu_fill_store(v, MGPU_I32, 3, -1e20f);
    mgpu_fill_store(v, MGPU_I32, 4, NAN);
    mgpu_fill_store(v, MGPU_I32, 5, 2147483520.0f); /* largest float below 2^31 */
    CHECK(v[0] == 3);
    CHECK(v[1] == -3);
    CHECK(v[2] == INT32_MAX);
    CHECK(v[3] == INT32_MIN);
    CHECK(v[4] == 0);
    CHECK(v[5] == 2147483520);
}

static void test_names(void)
{
    CHECK(mgpu_dtype_parse("half") == MGPU_F16);
    CHECK(mgpu_dtype_parse("bfloat16") == MGPU_BF16);
    CHECK(mgpu_dtype_parse("f64") == -1);
    CHECK(mgpu_dtype_size(MGPU_BF16) == 2 && mgpu_dtype_size(MGPU_I32) == 4);
}

int main(void)
{
    test_f16_from_f32();
    test_f16_to_f32();
    test_bf16();
    test_i32_store();
    test_names();
    return tap_done();
}
