/* dtype.h - element types, the deterministic fill and the checksum, defined
 * once for host and device code.
 *
 * Every backend must produce bit-identical fills and checksums, so the
 * formulas live here as static inline functions that compile both as C (sim
 * backend, host code) and as CUDA (__host__ __device__ in dev_cuda.cu). */
#ifndef MGPU_DTYPE_H
#define MGPU_DTYPE_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define MGPU_HD __host__ __device__ __forceinline__
#else
#define MGPU_HD static inline
#endif

typedef enum mgpu_dtype {
    MGPU_F32 = 0,
    MGPU_F16,
    MGPU_BF16,
    MGPU_I32,
    MGPU_DTYPE_COUNT
} mgpu_dtype;

#ifdef __cplusplus
extern "C" {
#endif
/* "f32", "f16", "bf16", "i32"; and back (also accepts nccl-tests' "float",
 * "half", "bfloat16", "int32"). Returns -1 for an unknown name. */
const char *mgpu_dtype_name(mgpu_dtype t);
int mgpu_dtype_parse(const char *name);
#ifdef __cplusplus
}
#endif

MGPU_HD size_t mgpu_dtype_size(mgpu_dtype t)
{
    return (t == MGPU_F16 || t == MGPU_BF16) ? 2u : 4u;
}

/* splitmix64 finaliser: the one mixing function of fills and checksums. */
MGPU_HD uint64_t mgpu_mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

MGPU_HD uint32_t mgpu_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

MGPU_HD float mgpu_bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Round-to-nearest-even conversions in integer arithmetic, so host and
 * device agree bit for bit whatever the hardware's conversion modes. */
MGPU_HD uint16_t mgpu_f32_to_bf16(float f)
{
    uint32_t u = mgpu_f32_bits(f);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)((u >> 16) | 0x40u); /* NaN */
    u += 0x7FFFu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

MGPU_HD float mgpu_bf16_to_f32(uint16_t h) { return mgpu_bits_f32((uint32_t)h << 16); }

MGPU_HD uint16_t mgpu_f32_to_f16(float f)
{
    uint32_t u = mgpu_f32_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t absu = u & 0x7FFFFFFFu;
    if (absu > 0x7F800000u) return (uint16_t)(sign | 0x7E00u);          /* NaN */
    if (absu >= 0x477FF000u) return (uint16_t)(sign | 0x7C00u);         /* overflow -> inf */
    if (absu < 0x38800000u) {                                           /* subnormal or zero */
        if (absu < 0x33000000u) return (uint16_t)sign;
        uint32_t e = absu >> 23;
        uint32_t m = (absu & 0x7FFFFFu) | 0x800000u;
        /* value = m * 2^(e-150); f16 subnormal unit = 2^-24 -> q = m * 2^(e-126) */
        uint32_t s = 126u - e;              /* right shift amount, 1..24 */
        uint32_t q = m >> s;
        uint32_t rem = m & ((1u << s) - 1u);
        uint32_t half = 1u << (s - 1u);
        if (rem > half || (rem == half && (q & 1u))) q++;
        return (uint16_t)(sign | q);
    }
    uint32_t h = ((absu - 0x38000000u) >> 13);  /* rebias exponent 127 -> 15 */
    uint32_t rem = absu & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++;
    return (uint16_t)(sign | h);
}

MGPU_HD float mgpu_f16_to_f32(uint16_t h)
{
    uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1Fu;
    uint32_t m = h & 0x3FFu;
    if (e == 0x1Fu) return mgpu_bits_f32(sign | 0x7F800000u | (m << 13));
    if (e == 0) {
        if (m == 0) return mgpu_bits_f32(sign);
        /* subnormal: m * 2^-24 */
        float v = (float)m * 5.9604644775390625e-8f;
        return sign ? -v : v;
    }
    return mgpu_bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}

/* Float to i32 as the GPU's cvt.rzi.s32.f32 does it: truncate toward zero,
 * saturate out-of-range values, NaN -> 0. A plain C cast is undefined
 * behaviour out of range, so host and device could disagree. */
MGPU_HD int32_t mgpu_f32_to_i32(float v)
{
    if (v != v) return 0;
    if (v >= 2147483648.0f) return INT32_MAX;
    if (v <= -2147483648.0f) return INT32_MIN;
    return (int32_t)v;
}

/* Fill kinds. RANDOM: uniform in [-1, 1) with 2^-10 granularity, so values
 * are exact in f32 and f16 (bf16, with 8 significant bits, stores them
 * rounded to nearest even) and sums of a few thousand stay exact in f32.
 * CONST: every element is `value`. INDEX: element i is value + (i mod 1024). */
typedef enum mgpu_fill_kind { MGPU_FILL_RANDOM = 0, MGPU_FILL_CONST, MGPU_FILL_INDEX } mgpu_fill_kind;

typedef struct mgpu_fill_spec {
    mgpu_fill_kind kind;
    uint64_t seed;
    double value;
} mgpu_fill_spec;

/* The value of element i as a float. For i32, RANDOM gives integers in
 * [-1024, 1024) instead of fractions; CONST and INDEX are truncated. */
MGPU_HD float mgpu_fill_value(mgpu_dtype t, mgpu_fill_kind kind, uint64_t seed, double value,
                              uint64_t i)
{
    if (kind == MGPU_FILL_CONST) return (float)value;
    if (kind == MGPU_FILL_INDEX) return (float)value + (float)(i & 1023u);
    int64_t k = (int64_t)(mgpu_mix64(seed * 0x100000001B3ull ^ i) >> 53) - 1024; /* [-1024, 1024) */
    return t == MGPU_I32 ? (float)k : (float)k * (1.0f / 1024.0f);
}

/* Store element i of a fill into memory of the given type. */
MGPU_HD void mgpu_fill_store(void *base, mgpu_dtype t, uint64_t i, float v)
{
    switch (t) {
    case MGPU_F32: ((float *)base)[i] = v; break;
    case MGPU_F16: ((uint16_t *)base)[i] = mgpu_f32_to_f16(v); break;
    case MGPU_BF16: ((uint16_t *)base)[i] = mgpu_f32_to_bf16(v); break;
    default: ((int32_t *)base)[i] = mgpu_f32_to_i32(v); break;
    }
}

/* Checksum: order-independent sum over i of mix64(bits_i + i * golden), so a
 * GPU can reduce it in any order and still match the host bit for bit. It
 * sees the raw bits: -0.0 and 0.0 differ, as a stale byte would. */
MGPU_HD uint64_t mgpu_checksum_term(uint64_t bits, uint64_t i)
{
    return mgpu_mix64(bits + i * 0x9E3779B97F4A7C15ull);
}

MGPU_HD uint64_t mgpu_elem_bits(const void *base, mgpu_dtype t, uint64_t i)
{
    if (t == MGPU_F16 || t == MGPU_BF16) return ((const uint16_t *)base)[i];
    return ((const uint32_t *)base)[i];
}

MGPU_HD float mgpu_elem_f32(const void *base, mgpu_dtype t, uint64_t i)
{
    switch (t) {
    case MGPU_F32: return ((const float *)base)[i];
    case MGPU_F16: return mgpu_f16_to_f32(((const uint16_t *)base)[i]);
    case MGPU_BF16: return mgpu_bf16_to_f32(((const uint16_t *)base)[i]);
    default: return (float)((const int32_t *)base)[i];
    }
}

#endif
