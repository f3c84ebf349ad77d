/* conv_emu.cc - bench/conv_emu/run's driver: each shape, f32 and bf16, the three
 * implicit GEMMs on the CPU emulation against a direct convolution in double
 * (error over the largest |reference|; f32 within 1e-5, bf16 1e-2). */
#include "dev/cuda/cuda_internal.h"
#include "dev/cuda/cuda_nn.h"
#include <cstdio>
#include <vector>
#include <cmath>
dim3 gridDim, blockIdx, blockDim;
thread_local dim3 threadIdx;
std::barrier<> *emu_bar;
thread_local std::barrier<> *emu_warp_bar;
uint64_t emu_shfl_slot[1024];
size_t cuda_nn_conv_igemm_scratch(const mgpu_nn_args *a);
cudaError_t cuda_nn_conv_igemm(cudaStream_t st, const mgpu_nn_args *a, void *ws);
static float bf(uint16_t h) { uint32_t u = (uint32_t)h << 16; float f; memcpy(&f, &u, 4); return f; }
int main(int argc, char **argv)
{
    static const int shapes[][7] = {{3, 40, 11, 13, 70, 3, 1}, {3, 40, 11, 13, 70, 3, 2}, {5, 7, 9, 10, 9, 1, 2},
        {4, 6, 13, 11, 5, 3, 3}, {2, 5, 12, 12, 6, 5, 2}, {2, 32, 13, 11, 32, 5, 3}, {2, 16, 8, 8, 32, 3, 2},
        {4, 64, 8, 8, 64, 3, 1}, {2, 64, 6, 6, 64, 3, 2}, {3, 16, 9, 7, 16, 3, 1}, {2, 32, 5, 6, 16, 1, 2},
        /* the bf16 halo kernels (3x3 s1; fwd, dgrad: M % 32, W 16/32/64; wgrad: K % 64, C % 32, W 16/32), 1-2 row tiles, 1-4 slices */
        {1, 64, 16, 16, 64, 3, 1}, {2, 16, 16, 32, 64, 3, 1}, {1, 32, 8, 64, 128, 3, 1}, {2, 64, 8, 32, 128, 3, 1},
        {4, 32, 32, 32, 64, 3, 1} /* the halo weight grad in 8 parts */, {2, 32, 16, 16, 32, 3, 1} /* halo BM 32 */,
        /* f32 narrow weight grads: 16 x 27 (the stem), 32 x 16 (1x1 s2), 64 x 63; the stride-1 data grad in parts */
        {8, 3, 16, 16, 16, 3, 1}, {4, 16, 16, 16, 32, 1, 2}, {2, 7, 10, 10, 64, 3, 1}, {2, 64, 8, 8, 64, 3, 1},
        {66, 16, 8, 8, 40, 3, 1} /* f32 forward uncut (33 tiles), M < 64 */,
        {9, 32, 8, 32, 64, 3, 1} /* the halo weight grad: 4 parts of 9 steps (odd: its two-step register pipeline) */,
        /* the f32 forward's deep tile (run lowers its threshold to 18 tiles of 64 x 256): 1x1 uncut (33 tiles, the
         * last half full); C 20 (not tap-major, a partial last step), M 72 and 4275 columns (partial tiles in m and
         * j), planes of 225 (runs of 4 that cross images, unaligned); 18 tiles in 2 parts, tap-major, planes of 121 */
        {130, 16, 8, 8, 64, 1, 1}, {19, 20, 15, 15, 72, 3, 1}, {37, 16, 11, 11, 64, 3, 1},
        /* the halo weight grad's cp.async ring: one step (the prologue's second stage empty); W 16 in 4 parts of 8 steps */
        {1, 32, 4, 16, 64, 3, 1}, {8, 32, 16, 16, 64, 3, 1},
        {34, 32, 16, 16, 64, 3, 1} /* the halo weight grad in 17 parts: the combine's batch of 16 and one more */};
    /* argv[1]: one shape's index, or "i/n": the shapes with index % n == i
     * (ctest runs the list in shards: 26 shapes under ASan on a loaded
     * machine outlast one test's hang budget) */
    int bad = 0, only = -1, shard = 0, shards = 1;
    if (argc > 1 && sscanf(argv[1], "%d/%d", &shard, &shards) == 2) {
        if (shards < 1 || shard < 0 || shard >= shards) {
            fprintf(stderr, "conv_emu: want a shard i/n with 0 <= i < n, not %s\n", argv[1]);
            return 2;
        }
    } else if (argc > 1) {
        only = atoi(argv[1]), shard = 0, shards = 1;
    }
    for (int bfm = 0; bfm < 2; bfm++)
        for (int si = 0; si < (int)(sizeof shapes / sizeof shapes[0]); si++) {
            if ((only >= 0 && si != only) || si % shards != shard) continue;
            const int *sh = shapes[si];
            int N = sh[0], C = sh[1], H = sh[2], W = sh[3], K = sh[4], R = sh[5], S = sh[6], pad = R / 2;
            int P = (H + 2 * pad - R) / S + 1, Q = (W + 2 * pad - R) / S + 1;
            size_t nx = (size_t)N * C * H * W, nw = (size_t)K * C * R * R, ny = (size_t)N * K * P * Q;
            auto mk = [&](size_t n, unsigned seed, std::vector<float> &f) {
                std::vector<unsigned char> raw(n * (bfm ? 2 : 4));
                f.resize(n);
                uint32_t s = seed * 2654435761u + 1;
                for (size_t i = 0; i < n; i++) {
                    s = s * 1664525u + 1013904223u;
                    float v = ((s >> 8) & 0xffff) / 32768.0f - 1.0f;
                    if (bfm) { uint32_t u; memcpy(&u, &v, 4); ((uint16_t *)raw.data())[i] = u >> 16; f[i] = bf(u >> 16); }
                    else { ((float *)raw.data())[i] = v; f[i] = v; }
                }
                return raw;
            };
            std::vector<float> fx, fw, fdy;
            auto x = mk(nx, 1, fx), w = mk(nw, 2, fw), dy = mk(ny, 3, fdy);
            std::vector<double> ry(ny, 0), rdx(nx, 0), rdw(nw, 0);
            for (int n = 0; n < N; n++) for (int k = 0; k < K; k++) for (int p = 0; p < P; p++) for (int q = 0; q < Q; q++)
                for (int c = 0; c < C; c++) for (int r = 0; r < R; r++) for (int u = 0; u < R; u++) {
                    int h = p * S - pad + r, ww = q * S - pad + u;
                    if (h < 0 || ww < 0 || h >= H || ww >= W) continue;
                    size_t xi = ((size_t)(n * C + c) * H + h) * W + ww, wi = ((size_t)(k * C + c) * R + r) * R + u, yi = ((size_t)(n * K + k) * P + p) * Q + q;
                    ry[yi] += (double)fx[xi] * fw[wi];
                    rdx[xi] += (double)fdy[yi] * fw[wi];
                    rdw[wi] += (double)fx[xi] * fdy[yi];
                }
            std::vector<unsigned char> y(ny * (bfm ? 2 : 4)), dx(nx * (bfm ? 2 : 4)), dw(nw * (bfm ? 2 : 4));
            struct { const char *what; mgpu_nn_kernel op; void *t0, *t1, *t2; std::vector<double> *ref; size_t n; } ops[3] = {
                {"fwd", MGPU_NNK_CONV2D, x.data(), w.data(), y.data(), &ry, ny},
                {"dgrad", MGPU_NNK_CONV2D_DGRAD, dy.data(), w.data(), dx.data(), &rdx, nx},
                {"wgrad", MGPU_NNK_CONV2D_WGRAD, x.data(), dy.data(), dw.data(), &rdw, nw}};
            for (auto &o : ops) {
                mgpu_nn_args a; memset(&a, 0, sizeof a);
                a.op = o.op, a.dtype = bfm ? MGPU_BF16 : MGPU_F32, a.t[0] = o.t0, a.t[1] = o.t1, a.t[2] = o.t2;
                a.n[0] = N, a.n[1] = C, a.n[2] = H, a.n[3] = W, a.n[4] = R, a.n[5] = P, a.n[6] = Q;
                a.i[0] = S, a.i[1] = pad, a.i[2] = K;
                size_t wsb = cuda_nn_conv_igemm_scratch(&a);
                void *ws = wsb ? malloc(wsb) : nullptr;
                if (ws) memset(ws, 0xff, wsb);
                memset(o.t2, 0xff, o.n * (bfm ? 2 : 4));
                cuda_nn_conv_igemm(0, &a, ws);
                free(ws);
                double big = 1, err = 0;
                for (size_t i = 0; i < o.n; i++) big = std::max(big, fabs((*o.ref)[i]));
                for (size_t i = 0; i < o.n; i++) {
                    double v = bfm ? bf(((uint16_t *)o.t2)[i]) : ((float *)o.t2)[i];
                    double e = fabs(v - (*o.ref)[i]);
                    if (!(e <= err)) err = e;
                }
                err /= big;
                double tol = bfm ? 1e-2 : 1e-5;
                bool ok = err <= tol;
                bad += !ok;
                printf("%s %dx%dx%dx%d>%d %dx%d s%d %s err %.2e%s\n", bfm ? "bf16" : "f32", N, C, H, W, K, R, R, S, o.what, err, ok ? "" : "  FAIL");
                fflush(stdout);
            }
        }
    printf(bad ? "FAILED %d\n" : "all ok\n", bad);
    return bad != 0;
}
