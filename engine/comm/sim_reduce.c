/* sim_reduce.c - the sim communicator's reduction loops: one plain loop per
 * (dtype, op) so the compiler vectorises them; no per-element dispatch. */
#include <string.h>
#include "sim_shm.h"

#define LOOP(T, EXPR)                                                        \
    do {                                                                     \
        T *d_ = (T *)dst;                                                    \
        const T *a_ = (const T *)a, *b_ = (const T *)b;                      \
        for (size_t i = 0; i < count; i++) {                                 \
            T x = a_[i], y = b_[i];                                          \
            d_[i] = (EXPR);                                                  \
        }                                                                    \
    } while (0)

static void reduce_f32(float *dst, const float *a, const float *b, size_t count, mgpu_redop op)
{
    switch (op) {
    case MGPU_PROD: LOOP(float, x * y); break;
    case MGPU_MAX: LOOP(float, x > y ? x : y); break;
    case MGPU_MIN: LOOP(float, x < y ? x : y); break;
    default: LOOP(float, x + y); break;
    }
}

/* Integer sums and products wrap as on the GPU (two's complement), without
 * C's signed-overflow undefined behaviour. */
static void reduce_i32(int32_t *dst, const int32_t *a, const int32_t *b, size_t count, mgpu_redop op)
{
    switch (op) {
    case MGPU_PROD: LOOP(int32_t, (int32_t)((uint32_t)x * (uint32_t)y)); break;
    case MGPU_MAX: LOOP(int32_t, x > y ? x : y); break;
    case MGPU_MIN: LOOP(int32_t, x < y ? x : y); break;
    default: LOOP(int32_t, (int32_t)((uint32_t)x + (uint32_t)y)); break;
    }
}

/* Half types: through f32 in blocks, so the conversions and the f32 loop
 * each vectorise. */
static void reduce_half(uint16_t *dst, const uint16_t *a, const uint16_t *b, size_t count, mgpu_dtype t,
                        mgpu_redop op)
{
    float fa[256], fb[256];
    int bf = t == MGPU_BF16;
    for (size_t base = 0; base < count; base += 256) {
        size_t m = count - base < 256 ? count - base : 256;
        for (size_t i = 0; i < m; i++) {
            fa[i] = bf ? mgpu_bf16_to_f32(a[base + i]) : mgpu_f16_to_f32(a[base + i]);
            fb[i] = bf ? mgpu_bf16_to_f32(b[base + i]) : mgpu_f16_to_f32(b[base + i]);
        }
        reduce_f32(fa, fa, fb, m, op);
        for (size_t i = 0; i < m; i++) dst[base + i] = bf ? mgpu_f32_to_bf16(fa[i]) : mgpu_f32_to_f16(fa[i]);
    }
}

void sim_reduce(void *dst, const void *a, const void *b, size_t count, mgpu_dtype t, mgpu_redop op)
{
    switch (t) {
    case MGPU_F32: reduce_f32(dst, a, b, count, op); break;
    case MGPU_I32: reduce_i32(dst, a, b, count, op); break;
    default: reduce_half(dst, a, b, count, t, op); break;
    }
}

void sim_divide(void *buf, size_t count, mgpu_dtype t, int n)
{
    if (n <= 1) return;
    switch (t) {
    case MGPU_F32: {
        float *p = buf;
        for (size_t i = 0; i < count; i++) p[i] = p[i] / (float)n;
        break;
    }
    case MGPU_I32: {
        int32_t *p = buf;
        for (size_t i = 0; i < count; i++) p[i] = p[i] / n;
        break;
    }
    default: {
        uint16_t *p = buf;
        int bf = t == MGPU_BF16;
        for (size_t i = 0; i < count; i++) {
            float v = (bf ? mgpu_bf16_to_f32(p[i]) : mgpu_f16_to_f32(p[i])) / (float)n;
            p[i] = bf ? mgpu_f32_to_bf16(v) : mgpu_f32_to_f16(v);
        }
        break;
    }
    }
}
