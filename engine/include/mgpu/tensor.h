/* tensor.h - typed views over buffers: allocation, deterministic fills,
 * checksums and comparison with tolerance. Backend-agnostic: built on dev.h. */
#ifndef MGPU_TENSOR_H
#define MGPU_TENSOR_H
#include "mgpu/dev.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mgpu_tensor {
    mgpu_buffer *buf;   /* owned when allocated by mgpu_tensor_alloc */
    size_t offset;      /* bytes into buf */
    size_t count;       /* elements */
    mgpu_dtype dtype;
} mgpu_tensor;

mgpu_result mgpu_tensor_alloc(mgpu_backend *be, mgpu_mem_kind kind, int device, mgpu_dtype dtype,
                              size_t count, mgpu_tensor *out);
void mgpu_tensor_free(mgpu_tensor *t);
size_t mgpu_tensor_bytes(const mgpu_tensor *t);

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
