/* sim_nn_cols.c - what the sim's training ops share below them: the column
 * matrix of im2col/col2im in f32 (sim_nn.c's IM2COL/COL2IM and conv2d's
 * implicit GEMMs in sim_nn_conv.c both build it) and OpenBLAS's set-up. */
#include "dev/sim/sim_nn.h"
#include <cblas.h>
#include <pthread.h>
#include <string.h>

/* One BLAS thread: every rank is its own process already, and OpenBLAS's
 * threads spinning against each other on a shared machine cost more than
 * they give. */
static pthread_once_t blas_once = PTHREAD_ONCE_INIT;
static void blas_single_thread(void) { openblas_set_num_threads(1); }
void sim_nn_blas_init(void) { pthread_once(&blas_once, blas_single_thread); }

/* Where image n's P*Q columns of row `row` start in the column matrix
 * (nn_ops.h: by image [N, CRR, PQ] or by row [CRR, N, PQ]). */
size_t sim_nn_col_at(const mgpu_nn_args *a, size_t n, size_t row)
{
    size_t nimg = a->n[0], crr = a->n[1] * a->n[4] * a->n[4], pq = a->n[5] * a->n[6];
    return (a->i[2] == MGPU_NN_COL_BY_ROW ? row * nimg + n : n * crr + row) * pq;
}

/* A short run of floats copied or zeroed as plain loops rather than through
 * memcpy/memset: a run is one row of a feature map (tens of floats, millions
 * of runs per step), and in the sanitized build, which leaves this file
 * uninstrumented for speed (CMakeLists.txt), the library calls go through
 * ASan's interceptors, whose range checks cost more than such a copy. At
 * -O2 GCC vectorises the loops; the release build's lab 4 step 3 took the
 * same CPU time either way. */
static inline void copy_run(float *d, const float *s, size_t n)
{
    for (size_t k = 0; k < n; k++) d[k] = s[k];
}

static inline void zero_run(float *d, size_t n)
{
    for (size_t k = 0; k < n; k++) d[k] = 0;
}

/* f32, the common case, row by row of the column matrix: a row of P*Q
 * columns reads one kernel tap across the image (the sim spends most of a
 * ResNet step here). The columns q whose input w = q*stride - pad + s lies
 * inside the image are one range [q0, q1), found once per tap, so the
 * inner loops carry no bounds test: a copy (stride 1) or a strided gather,
 * and zeros only at the padded edges. */
void sim_nn_im2col_f32(const mgpu_nn_args *a, int back)
{
    size_t nimg = a->n[0], C = a->n[1], H = a->n[2], W = a->n[3], R = a->n[4], P = a->n[5], Q = a->n[6];
    long stride = a->i[0], pad = a->i[1];
    size_t img = C * H * W;
    float *x = a->t[0], *col = a->t[1];
    if (back) memset(x, 0, nimg * img * sizeof *x);
    for (size_t n = 0; n < nimg; n++)
        for (size_t row = 0; row < C * R * R; row++) {
            size_t c = row / (R * R), r = row / R % R, s = row % R;
            long off = (long)s - pad; /* w of column q is q*stride + off */
            size_t q0 = off >= 0 ? 0 : (size_t)((-off + stride - 1) / stride);
            size_t q1 = (long)W - off <= 0 ? 0 : (size_t)(((long)W - off + stride - 1) / stride);
            if (q1 > Q) q1 = Q;
            if (q0 > q1) q0 = q1;
            float *xc = x + n * img + c * H * W, *d = col + sim_nn_col_at(a, n, row);
            for (size_t p = 0; p < P; p++, d += Q) {
                long h = (long)p * stride - pad + (long)r;
                if (h < 0 || h >= (long)H) {
                    if (!back) zero_run(d, Q);
                    continue;
                }
                /* xs[k * stride] is the input of column q0 + k, inside the row */
                float *xs = xc + (size_t)((long)h * (long)W + off + (long)q0 * stride), *ds = d + q0;
                size_t m = q1 - q0;
                if (back) {
                    if (stride == 1)
                        for (size_t k = 0; k < m; k++) xs[k] += ds[k];
                    else
                        for (size_t k = 0; k < m; k++) xs[k * (size_t)stride] += ds[k];
                    continue;
                }
                zero_run(d, q0);
                if (stride == 1) copy_run(ds, xs, m);
                else
                    for (size_t k = 0; k < m; k++) ds[k] = xs[k * (size_t)stride];
                zero_run(d + q1, Q - q1);
            }
        }
}
