/* wmma for the host emulation: lane 0 of each warp holds and computes the
 * whole 16x16 fragment (the other lanes skip), so stores happen once. */
#pragma once
#include <cstring>
#include <cstdint>
namespace nvcuda { namespace wmma {
struct matrix_a {}; struct matrix_b {}; struct accumulator {};
struct row_major {}; struct col_major {};
enum layout_t { mem_row_major, mem_col_major };
template <class U, int M, int N, int K, class T, class L = void> struct fragment { float v[256]; };
inline bool emu_lane0() { return threadIdx.x % 32 == 0; }
inline float emu_bf(const __nv_bfloat16 &b) { uint32_t u = (uint32_t)b.x << 16; float f; memcpy(&f, &u, 4); return f; }
template <class U, class L> inline void load_matrix_sync(fragment<U, 16, 16, 16, __nv_bfloat16, L> &f, const __nv_bfloat16 *p, unsigned ld)
{
    if (!emu_lane0()) return;
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 16; c++) f.v[r * 16 + c] = emu_bf(std::is_same<L, row_major>::value ? p[r * ld + c] : p[c * ld + r]);
}
template <class F> inline void fill_fragment(F &f, float x) { for (auto &e : f.v) e = x; }
template <class A, class B, class C> inline void mma_sync(C &d, const A &a, const B &b, const C &c)
{
    if (!emu_lane0()) return;
    float t[256];
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) {
            float s = c.v[i * 16 + j];
            for (int k = 0; k < 16; k++) s += a.v[i * 16 + k] * b.v[k * 16 + j];
            t[i * 16 + j] = s;
        }
    memcpy(d.v, t, sizeof t);
}
template <class C> inline void store_matrix_sync(float *p, const C &c, unsigned ld, layout_t)
{
    if (!emu_lane0()) return;
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) p[i * ld + j] = c.v[i * 16 + j];
}
}}
