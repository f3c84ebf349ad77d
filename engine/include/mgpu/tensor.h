/* tensor.h - typed, shaped views over buffers: allocation, views without a
 * copy (reshape, a slice along dim 0, a flat range), deterministic fills,
 * checksums and comparison with tolerance. Backend-agnostic: built on dev.h.
 *
 * A shape has up to MGPU_TENSOR_MAX_DIMS dims, row-major and contiguous: the
 * last dim varies fastest, and count is the product of the dims. A tensor
 * whose ndim is 0 (set up by hand with only count) reads as one dim
 * [count]. */
#ifndef MGPU_TENSOR_H
#define MGPU_TENSOR_H
#include "mgpu/dev.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MGPU_TENSOR_MAX_DIMS 4

typedef struct mgpu_tensor {
    mgpu_buffer *buf;   /* owned when allocated by mgpu_tensor_alloc */
    size_t offset;      /* bytes into buf */
    size_t count;       /* elements */
    mgpu_dtype dtype;
    int ndim;           /* 0 reads as [count] */
    size_t shape[MGPU_TENSOR_MAX_DIMS];
} mgpu_tensor;

mgpu_result mgpu_tensor_alloc(mgpu_backend *be, mgpu_mem_kind kind, int device, mgpu_dtype dtype,
                              size_t count, mgpu_tensor *out);
void mgpu_tensor_free(mgpu_tensor *t);
size_t mgpu_tensor_bytes(const mgpu_tensor *t);

/* A device (or host) tensor of the given shape (ndim 1..4, every dim >= 1). */
mgpu_result mgpu_tensor_alloc_shape(mgpu_backend *be, mgpu_mem_kind kind, int device, mgpu_dtype dtype,
                                    int ndim, const size_t *shape, mgpu_tensor *out);

/* The tensor's dims into dims[MGPU_TENSOR_MAX_DIMS]; returns ndim (>= 1). */
int mgpu_tensor_dims(const mgpu_tensor *t, size_t *dims);
/* "[64, 3, 32, 32] f32" */
const char *mgpu_tensor_shape_str(const mgpu_tensor *t, char *buf, size_t len);
/* 1 when a and b have the same dims (not dtype). */
int mgpu_tensor_same_shape(const mgpu_tensor *a, const mgpu_tensor *b);

/* Views: share t's buffer (t keeps owning it; free only t). Errors name
 * both shapes. */
mgpu_result mgpu_tensor_reshape(const mgpu_tensor *t, int ndim, const size_t *shape, mgpu_tensor *out);
/* Rows [start, start+len) along dim 0: contiguous in row-major order. */
mgpu_result mgpu_tensor_slice0(const mgpu_tensor *t, size_t start, size_t len, mgpu_tensor *out);
/* Elements [first, first+n) of t read as flat: a 1-dim view (FSDP's flat
 * parameters, DDP's gradient buckets). */
mgpu_result mgpu_tensor_flat_range(const mgpu_tensor *t, size_t first, size_t n, mgpu_tensor *out);

mgpu_result mgpu_tensor_fill(mgpu_stream *s, mgpu_tensor *t, const mgpu_fill_spec *spec);
mgpu_result mgpu_tensor_checksum(mgpu_stream *s, const mgpu_tensor *t, uint64_t *out);

typedef struct mgpu_compare_result {
    size_t mismatches;      /* elements outside tolerance (NaN vs number counts) */
    size_t first_mismatch;  /* index of the first, SIZE_MAX when none */
    double max_abs_err;
    double max_rel_err;
} mgpu_compare_result;

/* Compare two tensors of equal count and dtype, wherever they live, after
 * both streams' work: |a-b| <= atol + rtol*|b| per element. rtol=atol=0
 * means bit-exact. */
mgpu_result mgpu_tensor_compare(mgpu_stream *s, const mgpu_tensor *a, const mgpu_tensor *b,
                                double rtol, double atol, mgpu_compare_result *out);

/* Copy a tensor's elements to a host array of floats (converted). */
mgpu_result mgpu_tensor_to_host_f32(mgpu_stream *s, const mgpu_tensor *t, float *dst);

#ifdef __cplusplus
}
#endif
#endif
