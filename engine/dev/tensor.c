/* tensor.c - typed views over buffers (tensor.h): allocation, fills,
 * checksums, comparison and conversion to host floats. Built on dev.h
 * only, so it works the same on every backend; host-side work goes through
 * a pinned staging buffer filled by copies on the caller's stream. */
#include "mgpu/tensor.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Staging chunk per tensor: large tensors are compared piece by piece so
 * a compare never needs twice the tensor's size in host memory. */
#define STAGE_BYTES ((size_t)16 << 20)

static mgpu_result check_tensor(const mgpu_tensor *t, const char *what)
{
    if (!t || !t->buf) return mgpu_fail(MGPU_ERR_INVALID, "%s: no tensor (was it allocated?)", what);
    if ((unsigned)t->dtype >= MGPU_DTYPE_COUNT)
        return mgpu_fail(MGPU_ERR_INVALID, "%s: unknown dtype %d", what, (int)t->dtype);
    size_t esz = mgpu_dtype_size(t->dtype);
    if (t->count > SIZE_MAX / esz || t->offset > t->buf->bytes || t->count * esz > t->buf->bytes - t->offset)
        return mgpu_fail(MGPU_ERR_INVALID, "%s: %zu %s elements at offset %zu do not fit the %zu-byte buffer",
                         what, t->count, mgpu_dtype_name(t->dtype), t->offset, t->buf->bytes);
    return MGPU_OK;
}

mgpu_result mgpu_tensor_alloc(mgpu_backend *be, mgpu_mem_kind kind, int device, mgpu_dtype dtype,
                              size_t count, mgpu_tensor *out)
{
    memset(out, 0, sizeof *out);
    if ((unsigned)dtype >= MGPU_DTYPE_COUNT) return mgpu_fail(MGPU_ERR_INVALID, "unknown dtype %d", (int)dtype);
    if (count == 0) return mgpu_fail(MGPU_ERR_INVALID, "a tensor needs at least one element");
    size_t esz = mgpu_dtype_size(dtype);
    if (count > SIZE_MAX / esz)
        return mgpu_fail(MGPU_ERR_INVALID, "a tensor of %zu %s elements is too large to address", count,
                         mgpu_dtype_name(dtype));
    MGPU_CHECK(mgpu_mem_alloc(be, kind, device, count * esz, &out->buf));
    out->count = count;
    out->dtype = dtype;
    out->ndim = 1;
    out->shape[0] = count;
    return MGPU_OK;
}

/*--- Shapes and views ----------------------------------------------------*/

int mgpu_tensor_dims(const mgpu_tensor *t, size_t *dims)
{
    if (t->ndim < 1 || t->ndim > MGPU_TENSOR_MAX_DIMS) {
        dims[0] = t->count;
        return 1;
    }
    for (int i = 0; i < t->ndim; i++) dims[i] = t->shape[i];
    return t->ndim;
}

static const char *dims_str(int ndim, const size_t *dims, char *buf, size_t len)
{
    size_t n = 0;
    n += (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < ndim && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%zu", i ? ", " : "", dims[i]);
    if (n < len) snprintf(buf + n, len - n, "]");
    return buf;
}

const char *mgpu_tensor_shape_str(const mgpu_tensor *t, char *buf, size_t len)
{
    size_t d[MGPU_TENSOR_MAX_DIMS];
    int nd = mgpu_tensor_dims(t, d);
    char s[96];
    snprintf(buf, len, "%s %s", dims_str(nd, d, s, sizeof s), mgpu_dtype_name(t->dtype));
    return buf;
}

int mgpu_tensor_same_shape(const mgpu_tensor *a, const mgpu_tensor *b)
{
    size_t da[MGPU_TENSOR_MAX_DIMS], db[MGPU_TENSOR_MAX_DIMS];
    int na = mgpu_tensor_dims(a, da), nb = mgpu_tensor_dims(b, db);
    if (na != nb) return 0;
    for (int i = 0; i < na; i++)
        if (da[i] != db[i]) return 0;
    return 1;
}

/* ndim and dims valid (1..4 dims, each >= 1, product fits); *count = product. */
static mgpu_result check_dims(int ndim, const size_t *shape, size_t *count, const char *what)
{
    if (ndim < 1 || ndim > MGPU_TENSOR_MAX_DIMS)
        return mgpu_fail(MGPU_ERR_INVALID, "%s: a shape has 1 to %d dims, not %d", what, MGPU_TENSOR_MAX_DIMS, ndim);
    size_t n = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] == 0) return mgpu_fail(MGPU_ERR_INVALID, "%s: dim %d is 0; every dim needs at least 1", what, i);
        if (n > SIZE_MAX / shape[i]) return mgpu_fail(MGPU_ERR_INVALID, "%s: the shape's element count overflows", what);
        n *= shape[i];
    }
    *count = n;
    return MGPU_OK;
}

mgpu_result mgpu_tensor_alloc_shape(mgpu_backend *be, mgpu_mem_kind kind, int device, mgpu_dtype dtype,
                                    int ndim, const size_t *shape, mgpu_tensor *out)
{
    size_t n;
    memset(out, 0, sizeof *out);
    MGPU_CHECK(check_dims(ndim, shape, &n, "tensor"));
    MGPU_CHECK(mgpu_tensor_alloc(be, kind, device, dtype, n, out));
    out->ndim = ndim;
    for (int i = 0; i < ndim; i++) out->shape[i] = shape[i];
    return MGPU_OK;
}

mgpu_result mgpu_tensor_reshape(const mgpu_tensor *t, int ndim, const size_t *shape, mgpu_tensor *out)
{
    MGPU_CHECK(check_tensor(t, "reshape"));
    size_t n;
    MGPU_CHECK(check_dims(ndim, shape, &n, "reshape"));
    if (n != t->count) {
        char a[128], b[96];
        return mgpu_fail(MGPU_ERR_INVALID, "cannot reshape %s (%zu elements) to %s (%zu elements)",
                         mgpu_tensor_shape_str(t, a, sizeof a), t->count, dims_str(ndim, shape, b, sizeof b), n);
    }
    mgpu_tensor v = *t;
    v.ndim = ndim;
    for (int i = 0; i < ndim; i++) v.shape[i] = shape[i];
    *out = v;
    return MGPU_OK;
}

mgpu_result mgpu_tensor_slice0(const mgpu_tensor *t, size_t start, size_t len, mgpu_tensor *out)
{
    MGPU_CHECK(check_tensor(t, "slice"));
    size_t d[MGPU_TENSOR_MAX_DIMS];
    int nd = mgpu_tensor_dims(t, d);
    if (len == 0 || start >= d[0] || len > d[0] - start) {
        char a[128];
        return mgpu_fail(MGPU_ERR_INVALID, "slice: rows %zu..%zu (%zu rows) are not inside dim 0 of %s (rows 0..%zu)",
                         start, start + len, len, mgpu_tensor_shape_str(t, a, sizeof a), d[0]);
    }
    size_t row = t->count / d[0];
    mgpu_tensor v = *t;
    v.ndim = nd;
    for (int i = 0; i < nd; i++) v.shape[i] = d[i];
    v.shape[0] = len;
    v.count = len * row;
    v.offset = t->offset + start * row * mgpu_dtype_size(t->dtype);
    *out = v;
    return MGPU_OK;
}

mgpu_result mgpu_tensor_flat_range(const mgpu_tensor *t, size_t first, size_t n, mgpu_tensor *out)
{
    MGPU_CHECK(check_tensor(t, "flat range"));
    if (n == 0 || first >= t->count || n > t->count - first) {
        char a[128];
        return mgpu_fail(MGPU_ERR_INVALID, "flat range: elements %zu..%zu are not inside %s (%zu elements)", first,
                         first + n, mgpu_tensor_shape_str(t, a, sizeof a), t->count);
    }
    mgpu_tensor v = *t;
    v.ndim = 1;
    v.shape[0] = n;
    v.count = n;
    v.offset = t->offset + first * mgpu_dtype_size(t->dtype);
    *out = v;
    return MGPU_OK;
}

/* Frees the tensor's buffer: only for tensors from mgpu_tensor_alloc, not
 * for views over a buffer someone else owns. */
void mgpu_tensor_free(mgpu_tensor *t)
{
    if (!t) return;
    mgpu_mem_free(t->buf);
    memset(t, 0, sizeof *t);
}

size_t mgpu_tensor_bytes(const mgpu_tensor *t) { return t->count * mgpu_dtype_size(t->dtype); }

mgpu_result mgpu_tensor_fill(mgpu_stream *s, mgpu_tensor *t, const mgpu_fill_spec *spec)
{
    MGPU_CHECK(check_tensor(t, "tensor fill"));
    if (!spec) return mgpu_fail(MGPU_ERR_INVALID, "tensor fill: no fill specification");
    MGPU_CHECK(mgpu_fill(s, t->buf, t->offset, t->count, t->dtype, spec));
    return MGPU_OK;
}

mgpu_result mgpu_tensor_checksum(mgpu_stream *s, const mgpu_tensor *t, uint64_t *out)
{
    MGPU_CHECK(check_tensor(t, "tensor checksum"));
    MGPU_CHECK(mgpu_checksum(s, t->buf, t->offset, t->count, t->dtype, out));
    return MGPU_OK;
}

/* Copy elements [first, first+n) of t into stage at byte stage_off. */
static mgpu_result stage(mgpu_stream *s, const mgpu_tensor *t, size_t first, size_t n, mgpu_buffer *st,
                         size_t stage_off)
{
    size_t esz = mgpu_dtype_size(t->dtype);
    MGPU_CHECK(mgpu_copy(s, st, stage_off, t->buf, t->offset + first * esz, n * esz, MGPU_COPY_CE));
    return MGPU_OK;
}

/* An element as a double: exact for every dtype (i32 included, which a
 * float would round above 2^24). */
static double elem_f64(const void *base, mgpu_dtype t, size_t i)
{
    if (t == MGPU_I32) return (double)((const int32_t *)base)[i];
    return (double)mgpu_elem_f32(base, t, i);
}

/* One pair: returns 1 when x and y agree. Bit-exact mode compares raw bits
 * (so -0.0 differs from 0.0 and only identical NaNs agree); tolerance mode
 * treats two NaNs as agreeing, a NaN and a number as not, and equal
 * infinities as agreeing. */
static int pair_matches(const void *a, const void *b, mgpu_dtype t, size_t i, double rtol, double atol,
                        mgpu_compare_result *r)
{
    double x = elem_f64(a, t, i), y = elem_f64(b, t, i);
    double diff = fabs(x - y);
    if (isfinite(diff)) {
        double rel = diff == 0 ? 0 : y != 0 ? diff / fabs(y) : INFINITY;
        if (diff > r->max_abs_err) r->max_abs_err = diff;
        if (rel > r->max_rel_err) r->max_rel_err = rel;
    }
    if (rtol == 0 && atol == 0) return mgpu_elem_bits(a, t, i) == mgpu_elem_bits(b, t, i);
    if (isnan(x) || isnan(y)) return isnan(x) && isnan(y);
    if (x == y) return 1;
    return isfinite(diff) && diff <= atol + rtol * fabs(y);
}

mgpu_result mgpu_tensor_compare(mgpu_stream *s, const mgpu_tensor *a, const mgpu_tensor *b, double rtol,
                                double atol, mgpu_compare_result *out)
{
    MGPU_CHECK(check_tensor(a, "tensor compare (first tensor)"));
    MGPU_CHECK(check_tensor(b, "tensor compare (second tensor)"));
    if (!out) return mgpu_fail(MGPU_ERR_INVALID, "tensor compare: no result pointer");
    if (a->dtype != b->dtype)
        return mgpu_fail(MGPU_ERR_INVALID, "cannot compare a %s tensor with a %s tensor; convert one first",
                         mgpu_dtype_name(a->dtype), mgpu_dtype_name(b->dtype));
    if (a->count != b->count)
        return mgpu_fail(MGPU_ERR_INVALID, "cannot compare tensors of %zu and %zu elements", a->count, b->count);
    if (!(rtol >= 0 && atol >= 0 && isfinite(rtol) && isfinite(atol)))
        return mgpu_fail(MGPU_ERR_INVALID, "tolerances must be finite and >= 0 (rtol=%g, atol=%g)", rtol, atol);
    memset(out, 0, sizeof *out);
    out->first_mismatch = SIZE_MAX;

    size_t esz = mgpu_dtype_size(a->dtype);
    size_t chunk = STAGE_BYTES / esz;
    if (chunk > a->count) chunk = a->count;
    mgpu_buffer *st = NULL;
    MGPU_CHECK(mgpu_mem_alloc(a->buf->be, MGPU_MEM_PINNED, -1, 2 * chunk * esz, &st));
    mgpu_result r = MGPU_OK;
    for (size_t first = 0; first < a->count; first += chunk) {
        size_t n = a->count - first < chunk ? a->count - first : chunk;
        MGPU_CHECKGOTO(stage(s, a, first, n, st, 0), r, done);
        MGPU_CHECKGOTO(stage(s, b, first, n, st, chunk * esz), r, done);
        MGPU_CHECKGOTO(mgpu_stream_synchronize(s), r, done);
        const char *pa = st->ptr, *pb = (const char *)st->ptr + chunk * esz;
        for (size_t i = 0; i < n; i++) {
            if (pair_matches(pa, pb, a->dtype, i, rtol, atol, out)) continue;
            if (out->mismatches++ == 0) out->first_mismatch = first + i;
        }
    }
done:
    mgpu_mem_free(st);
    return r;
}

mgpu_result mgpu_tensor_to_host_f32(mgpu_stream *s, const mgpu_tensor *t, float *dst)
{
    MGPU_CHECK(check_tensor(t, "tensor to host"));
    if (!dst) return mgpu_fail(MGPU_ERR_INVALID, "tensor to host: no destination array");
    size_t esz = mgpu_dtype_size(t->dtype);
    size_t chunk = STAGE_BYTES / esz;
    if (chunk > t->count) chunk = t->count;
    mgpu_buffer *st = NULL;
    MGPU_CHECK(mgpu_mem_alloc(t->buf->be, MGPU_MEM_PINNED, -1, chunk * esz, &st));
    mgpu_result r = MGPU_OK;
    for (size_t first = 0; first < t->count; first += chunk) {
        size_t n = t->count - first < chunk ? t->count - first : chunk;
        MGPU_CHECKGOTO(stage(s, t, first, n, st, 0), r, done);
        MGPU_CHECKGOTO(mgpu_stream_synchronize(s), r, done);
        for (size_t i = 0; i < n; i++) dst[first + i] = mgpu_elem_f32(st->ptr, t->dtype, i);
    }
done:
    mgpu_mem_free(st);
    return r;
}
