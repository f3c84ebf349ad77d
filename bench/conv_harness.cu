/* conv_harness.cu - conv2d's implicit GEMMs (engine/dev/cuda/cuda_nn_conv_igemm.cu
 * and the halo kernels of cuda_nn_conv_halo.cu, both included here as one
 * translation unit) alone on a GPU: each of nn_bench.lua's conv shapes in
 * f32 and bf16, checked against a direct convolution (a naive kernel, f32
 * sums of the same inputs), repeated to prove the bits are the same, and
 * timed as compare-nn-torch.py times torch (3 warm-up calls, 10 between
 * two events; the median of 3 such). bench/conv_torch.py prints torch's
 * figures for the same cases.
 *
 *   nvcc -O3 -std=c++17 -arch=sm_90 -Iengine -Iengine/include \
 *        bench/conv_harness.cu -o /tmp/conv_harness
 *   conv_harness [FILTER]     (FILTER: a substring of the case name)
 *
 * Prints "case NAME ms MS err E tol T repeat same|DIFFERS" lines; exit 1 when
 * a case is outside its tolerance or differs on a repeat. */
#include "../engine/dev/cuda/cuda_nn_conv_igemm.cu"
#include "../engine/dev/cuda/cuda_nn_conv_halo.cu"
#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#define CK(x)                                                                                                   \
    do {                                                                                                        \
        cudaError_t e_ = (x);                                                                                   \
        if (e_ != cudaSuccess) {                                                                                \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                        \
            exit(2);                                                                                            \
        }                                                                                                       \
    } while (0)

template <typename T> __device__ float ld(const T *p, size_t i) { return to_f(p[i]); }

/* The references, one thread an output element, f32 sums in (c|k, r, s) or (n, p, q) order. */
template <typename T>
__global__ void ref_fwd(const T *x, const T *w, float *y, int N, int C, int H, int W, int K, int R, int P, int Q, int st,
                        int pad)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x, total = (size_t)N * K * P * Q;
    if (i >= total) return;
    int q = i % Q, p = (i / Q) % P, k = (i / Q / P) % K, n = i / Q / P / K;
    float s = 0;
    for (int c = 0; c < C; c++)
        for (int r = 0; r < R; r++)
            for (int u = 0; u < R; u++) {
                int h = p * st - pad + r, ww = q * st - pad + u;
                if (h < 0 || ww < 0 || h >= H || ww >= W) continue;
                s += ld(x, ((size_t)(n * C + c) * H + h) * W + ww) * ld(w, ((size_t)(k * C + c) * R + r) * R + u);
            }
    y[i] = s;
}

template <typename T>
__global__ void ref_dgrad(const T *dy, const T *w, float *dx, int N, int C, int H, int W, int K, int R, int P, int Q,
                          int st, int pad)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x, total = (size_t)N * C * H * W;
    if (i >= total) return;
    int ww = i % W, h = (i / W) % H, c = (i / W / H) % C, n = i / W / H / C;
    float s = 0;
    for (int k = 0; k < K; k++)
        for (int r = 0; r < R; r++)
            for (int u = 0; u < R; u++) {
                int ph = h + pad - r, qw = ww + pad - u;
                if (ph < 0 || qw < 0 || ph % st || qw % st) continue;
                int p = ph / st, q = qw / st;
                if (p >= P || q >= Q) continue;
                s += ld(dy, ((size_t)(n * K + k) * P + p) * Q + q) * ld(w, ((size_t)(k * C + c) * R + r) * R + u);
            }
    dx[i] = s;
}

template <typename T>
__global__ void ref_wgrad(const T *x, const T *dy, float *dw, int N, int C, int H, int W, int K, int R, int P, int Q,
                          int st, int pad)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x, total = (size_t)K * C * R * R;
    if (i >= total) return;
    int u = i % R, r = (i / R) % R, c = (i / R / R) % C, k = i / R / R / C;
    float s = 0;
    for (int n = 0; n < N; n++)
        for (int p = 0; p < P; p++)
            for (int q = 0; q < Q; q++) {
                int h = p * st - pad + r, ww = q * st - pad + u;
                if (h < 0 || ww < 0 || h >= H || ww >= W) continue;
                s += ld(x, ((size_t)(n * C + c) * H + h) * W + ww) * ld(dy, ((size_t)(n * K + k) * P + p) * Q + q);
            }
    dw[i] = s;
}

static float host_f(const void *p, size_t i, int bf)
{
    if (!bf) return ((const float *)p)[i];
    uint32_t u = (uint32_t)((const uint16_t *)p)[i] << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

struct buf {
    void *d = nullptr;
    size_t n = 0, esz = 0;
};

static buf make(size_t n, int bf, uint32_t seed)
{
    buf b;
    b.n = n, b.esz = bf ? 2 : 4;
    std::vector<unsigned char> h(n * b.esz);
    uint32_t s = seed * 2654435761u + 12345;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        float v = ((s >> 8) & 0xffff) / 32768.0f - 1.0f;
        if (bf) {
            uint32_t u;
            memcpy(&u, &v, 4);
            ((uint16_t *)h.data())[i] = (uint16_t)(u >> 16);
        } else {
            ((float *)h.data())[i] = v;
        }
    }
    CK(cudaMalloc(&b.d, n * b.esz + 16));
    CK(cudaMemcpy(b.d, h.data(), n * b.esz, cudaMemcpyHostToDevice));
    return b;
}

static mgpu_nn_args args_of(mgpu_nn_kernel op, int bf, const int *sh, void *t0, void *t1, void *t2)
{
    mgpu_nn_args a;
    memset(&a, 0, sizeof a);
    int N = sh[0], C = sh[1], H = sh[2], W = sh[3], K = sh[4], R = sh[5], st = sh[6], pad = R / 2;
    a.op = op, a.dtype = bf ? MGPU_BF16 : MGPU_F32;
    a.t[0] = t0, a.t[1] = t1, a.t[2] = t2;
    a.n[0] = N, a.n[1] = C, a.n[2] = H, a.n[3] = W, a.n[4] = R;
    a.n[5] = (H + 2 * pad - R) / st + 1, a.n[6] = (W + 2 * pad - R) / st + 1;
    a.i[0] = st, a.i[1] = pad, a.i[2] = K;
    return a;
}

/* max |ours - ref| / max(1, max |ref|) */
static double compare(const buf &ours, const float *dref, size_t n, int bf)
{
    std::vector<unsigned char> h(n * ours.esz);
    std::vector<float> r(n);
    CK(cudaMemcpy(h.data(), ours.d, n * ours.esz, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(r.data(), dref, n * 4, cudaMemcpyDeviceToHost));
    double worst = 0, big = 1;
    for (size_t i = 0; i < n; i++) big = std::max(big, (double)fabsf(r[i]));
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)host_f(h.data(), i, bf) - r[i]);
        if (!(e <= worst)) worst = e; /* NaN counts */
    }
    return worst / big;
}

static bool same_bits(const buf &b, const std::vector<unsigned char> &first)
{
    std::vector<unsigned char> h(b.n * b.esz);
    CK(cudaMemcpy(h.data(), b.d, h.size(), cudaMemcpyDeviceToHost));
    return h == first;
}

static std::vector<unsigned char> bits(const buf &b)
{
    std::vector<unsigned char> h(b.n * b.esz);
    CK(cudaMemcpy(h.data(), b.d, h.size(), cudaMemcpyDeviceToHost));
    return h;
}

template <typename F> static double timed(F fn, cudaStream_t st)
{
    for (int i = 0; i < 3; i++) fn();
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<float> t;
    for (int round = 0; round < 3; round++) {
        CK(cudaEventRecord(a, st));
        for (int i = 0; i < 10; i++) fn();
        CK(cudaEventRecord(b, st));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms / 10);
    }
    std::sort(t.begin(), t.end());
    return t[1];
}

int main(int argc, char **argv)
{
    static const int shapes[][7] = {
        {256, 3, 32, 32, 16, 3, 1},  {256, 16, 32, 32, 16, 3, 1}, {256, 16, 32, 32, 32, 3, 2},
        {256, 16, 32, 32, 32, 1, 2}, {256, 32, 16, 16, 32, 3, 1}, {256, 32, 16, 16, 64, 3, 2},
        {256, 64, 8, 8, 64, 3, 1},   {256, 64, 32, 32, 64, 3, 1}, {32, 64, 8, 8, 64, 3, 1},
        {32, 16, 32, 32, 16, 3, 1},  {3, 40, 11, 13, 70, 3, 1},   {3, 40, 11, 13, 70, 3, 2},
        {5, 7, 9, 10, 9, 1, 2},      {4, 6, 13, 11, 5, 3, 3},     {2, 5, 12, 12, 6, 5, 2},
        /* bf16 halo kernels: W = 16 (all three); 32 channels in (fwd BM 64, dx BM 32, dw) */
        {256, 64, 16, 16, 64, 3, 1}, {64, 32, 32, 32, 64, 3, 1},
        /* the stride-1 data grad cut in parts (32 tiles: 4 parts); a 1x1 downsample's narrow weight grad (64 x 32) */
        {64, 64, 8, 8, 64, 3, 1}, {256, 32, 16, 16, 64, 1, 2},
    };
    const char *filter = argc > 1 ? argv[1] : "";
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    int bad = 0;
    for (int bf = 0; bf < 2; bf++)
        for (const int *sh : shapes) {
            int N = sh[0], C = sh[1], H = sh[2], W = sh[3], K = sh[4], R = sh[5], s = sh[6], pad = R / 2;
            int P = (H + 2 * pad - R) / s + 1, Q = (W + 2 * pad - R) / s + 1;
            char name[128];
            snprintf(name, sizeof name, "conv %s %dx%dx%dx%d>%d %dx%d s%d", bf ? "bf16" : "f32", N, C, H, W, K, R, R, s);
            if (!strstr(name, filter)) continue;
            size_t nx = (size_t)N * C * H * W, nw = (size_t)K * C * R * R, ny = (size_t)N * K * P * Q;
            buf x = make(nx, bf, 1), w = make(nw, bf, 2), dy = make(ny, bf, 3), y = make(ny, bf, 4), dx = make(nx, bf, 5),
                dw = make(nw, bf, 6);
            float *ref;
            CK(cudaMalloc(&ref, std::max(std::max(nx, nw), ny) * 4));
            mgpu_nn_args fa = args_of(MGPU_NNK_CONV2D, bf, sh, x.d, w.d, y.d);
            mgpu_nn_args da = args_of(MGPU_NNK_CONV2D_DGRAD, bf, sh, dy.d, w.d, dx.d);
            mgpu_nn_args wa = args_of(MGPU_NNK_CONV2D_WGRAD, bf, sh, x.d, dy.d, dw.d);
            void *ws = nullptr;
            /* one scratch for the three ops: the largest (the stride-1 data grad cut in parts needs one too) */
            size_t wsb = std::max(std::max(cuda_nn_conv_igemm_scratch(&wa), cuda_nn_conv_igemm_scratch(&fa)), cuda_nn_conv_igemm_scratch(&da));
            if (wsb) CK(cudaMalloc(&ws, wsb));
            double tol = bf ? 2e-2 : 1e-4;
            struct {
                const char *what;
                mgpu_nn_args *a;
                buf *out;
                size_t n;
            } ops[3] = {{"fwd", &fa, &y, ny}, {"dw", &wa, &dw, nw}, {"dx", &da, &dx, nx}};
            for (auto &o : ops) {
                CK(cuda_nn_conv_igemm(st, o.a, ws));
                unsigned blocks = (unsigned)((o.n + 255) / 256);
                if (o.a == &fa) {
                    if (bf) ref_fwd<uint16_t><<<blocks, 256, 0, st>>>((uint16_t *)x.d, (uint16_t *)w.d, ref, N, C, H, W, K, R, P, Q, s, pad);
                    else ref_fwd<float><<<blocks, 256, 0, st>>>((float *)x.d, (float *)w.d, ref, N, C, H, W, K, R, P, Q, s, pad);
                } else if (o.a == &da) {
                    if (bf) ref_dgrad<uint16_t><<<blocks, 256, 0, st>>>((uint16_t *)dy.d, (uint16_t *)w.d, ref, N, C, H, W, K, R, P, Q, s, pad);
                    else ref_dgrad<float><<<blocks, 256, 0, st>>>((float *)dy.d, (float *)w.d, ref, N, C, H, W, K, R, P, Q, s, pad);
                } else {
                    if (bf) ref_wgrad<uint16_t><<<blocks, 256, 0, st>>>((uint16_t *)x.d, (uint16_t *)dy.d, ref, N, C, H, W, K, R, P, Q, s, pad);
                    else ref_wgrad<float><<<blocks, 256, 0, st>>>((float *)x.d, (float *)dy.d, ref, N, C, H, W, K, R, P, Q, s, pad);
                }
                CK(cudaStreamSynchronize(st));
                /* the weight gradient sums up to N*P*Q terms: scale its tolerance as the parity test's sqrt growth */
                double t = tol * (o.a == &wa && !bf ? 4 : 1);
                double err = compare(*o.out, ref, o.n, bf);
                std::vector<unsigned char> first = bits(*o.out);
                CK(cudaMemset(o.out->d, 0xff, o.n * o.out->esz));
                CK(cuda_nn_conv_igemm(st, o.a, ws));
                CK(cudaStreamSynchronize(st));
                bool same = same_bits(*o.out, first);
                double ms = 0;
                if (o.a == &fa) ms = timed([&] { cuda_nn_conv_igemm(st, &fa, ws); }, st);
                else if (o.a == &wa) ms = timed([&] { cuda_nn_conv_igemm(st, &wa, ws); }, st);
                else ms = timed([&] { cuda_nn_conv_igemm(st, &wa, ws); cuda_nn_conv_igemm(st, &da, ws); }, st);
                bool ok = err <= t && same;
                bad += !ok;
                printf("case %s %s ms %.4f err %.2e tol %.0e repeat %s%s\n", name, o.a == &da ? "dx+dw" : o.what, ms, err, t,
                       same ? "same" : "DIFFERS", ok ? "" : "  <-- FAIL");
                fflush(stdout);
            }
            CK(cudaGetLastError());
            cudaFree(x.d), cudaFree(w.d), cudaFree(dy.d), cudaFree(y.d), cudaFree(dx.d), cudaFree(dw.d), cudaFree(ref);
            if (ws) cudaFree(ws);
        }
    printf("%s\n", bad ? "FAILED" : "all cases within tolerance and repeatable");
    return bad ? 1 : 0;
}
