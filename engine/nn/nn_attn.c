/* nn_attn.c - the decoder's pieces: embedding, (causal) softmax, and the
 * swap of dims 1 and 2 that moves heads between [B, T, H, D] and [B, H, T, D]. */
#include "nn/nn_call.h"
#include "mgpu/mem.h"
#include <stdio.h>
#include <string.h>

/*--- Embedding, attention pieces ------------------------------------------------*/

static void embedding_check(nn_call *c, const mgpu_tensor *ids, const mgpu_tensor *table, const mgpu_tensor *o,
                            const char *oname, mgpu_nn_args *a)
{
    if (c->r != MGPU_OK) return;
    size_t dt[MGPU_TENSOR_MAX_DIMS], di[MGPU_TENSOR_MAX_DIMS];
    char sh[128];
    int ni = mgpu_tensor_dims(ids, di);
    if (mgpu_tensor_dims(table, dt) != 2 || ni >= MGPU_TENSOR_MAX_DIMS) {
        c->r = mgpu_fail(MGPU_ERR_INVALID, "%s: the table is %s but must be [vocab, dim] (ids up to 3 dims)", c->what,
                         mgpu_tensor_shape_str(table, sh, sizeof sh));
        return;
    }
    di[ni] = dt[1];
    nn_want_dims(c, o, oname, ni + 1, di);
    a->n[0] = ids->count;
    a->n[1] = dt[1];
    a->n[2] = dt[0];
}

mgpu_result mgpu_nn_embedding(mgpu_stream *s, const mgpu_tensor *ids, const mgpu_tensor *table, mgpu_tensor *o)
{
    nn_call c;
    nn_call_init(&c, s, "embedding");
    mgpu_nn_args a = {.op = MGPU_NNK_EMBEDDING};
    a.t[0] = nn_in(&c, ids, "ids", K_I32);
    a.t[1] = nn_in(&c, table, "table", K_FLOAT);
    a.t[2] = nn_out(&c, o, "out", K_FLOAT);
    embedding_check(&c, ids, table, o, "out", &a);
    if (c.r != MGPU_OK) return c.r;
    c.bytes -= (double)mgpu_tensor_bytes(table); /* only the rows read */
    c.bytes += (double)mgpu_tensor_bytes(o);
    return nn_run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, 0);
}

mgpu_result mgpu_nn_embedding_backward(mgpu_stream *s, const mgpu_tensor *ids, const mgpu_tensor *dout,
                                       mgpu_tensor *dtable)
{
    nn_call c;
    nn_call_init(&c, s, "embedding_backward");
    mgpu_nn_args a = {.op = MGPU_NNK_EMBEDDING_BACKWARD};
    a.t[0] = nn_in(&c, ids, "ids", K_I32);
    a.t[1] = nn_in(&c, dout, "dout", K_FLOAT);
    a.t[2] = nn_out(&c, dtable, "dtable", K_FLOAT);
    embedding_check(&c, ids, dtable, dout, "dout", &a);
    if (c.r != MGPU_OK) return c.r;
    c.bytes += (double)mgpu_tensor_bytes(dout) - (double)mgpu_tensor_bytes(dtable);
    return nn_run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, (double)dout->count);
}

mgpu_result mgpu_nn_softmax(mgpu_stream *s, const mgpu_tensor *scores, mgpu_tensor *p, float scale, int causal)
{
    nn_call c;
    nn_call_init(&c, s, causal ? "softmax_causal" : "softmax");
    mgpu_nn_args a = {.op = MGPU_NNK_SOFTMAX, .f = {scale}, .i = {causal ? 1 : 0}};
    a.t[0] = nn_in(&c, scores, "scores", K_FLOAT);
    a.t[1] = nn_out(&c, p, "p", K_FLOAT);
    nn_want_same(&c, p, "p", scores, "scores");
    if (c.r != MGPU_OK) return c.r;
    nn_rows_cols(scores, &a.n[0], &a.n[1]);
    /* Priced by element accesses (mgpu_nn_softmax_accesses, shared with
     * the what-if): rows held in registers at their measured rate, other
     * rows by the memory kernel's one-element loads. */
    return nn_run_kernel(&c, &a, MGPU_NN_CLASS_GATHER,
                         mgpu_nn_softmax_accesses((double)a.n[0], (double)a.n[1], causal));
}

mgpu_result mgpu_nn_softmax_backward(mgpu_stream *s, const mgpu_tensor *p, const mgpu_tensor *dp, mgpu_tensor *ds,
                                     float scale)
{
    nn_call c;
    nn_call_init(&c, s, "softmax_backward");
    mgpu_nn_args a = {.op = MGPU_NNK_SOFTMAX_BACKWARD, .f = {scale}};
    a.t[0] = nn_in(&c, p, "p", K_FLOAT);
    a.t[1] = nn_in(&c, dp, "dp", K_FLOAT);
    a.t[2] = nn_out(&c, ds, "ds", K_FLOAT);
    nn_want_same(&c, dp, "dp", p, "p");
    nn_want_same(&c, ds, "ds", p, "p");
    if (c.r != MGPU_OK) return c.r;
    nn_rows_cols(p, &a.n[0], &a.n[1]);
    /* A row in registers streams (an H100: 0.27 ms for 65536 x 2048 bf16,
     * 2.9-3.0 TB/s); the memory kernel's two passes are bound by the SMs. */
    mgpu_nn_class cls = mgpu_nn_row_in_registers(a.n[1], mgpu_dtype_size(p->dtype)) ? MGPU_NN_CLASS_ELEMENTWISE
                                                                                     : MGPU_NN_CLASS_REDUCE;
    return nn_run_kernel(&c, &a, cls, 4 * (double)p->count);
}

mgpu_result mgpu_nn_swap12(mgpu_stream *s, const mgpu_tensor *x, mgpu_tensor *y)
{
    nn_call c;
    nn_call_init(&c, s, "swap12");
    mgpu_nn_args a = {.op = MGPU_NNK_SWAP12};
    a.t[0] = nn_in(&c, x, "x", K_FLOAT);
    a.t[1] = nn_out(&c, y, "y", K_FLOAT);
    if (c.r != MGPU_OK) return c.r;
    size_t d[MGPU_TENSOR_MAX_DIMS];
    if (nn_want_ndim(&c, x, "x", 4, "have 4 dims", d) != MGPU_OK) return c.r;
    size_t want[4] = {d[0], d[2], d[1], d[3]};
    nn_want_dims(&c, y, "y", 4, want);
    nn_want_apart(&c, y, "y", x, "x");
    memcpy(a.n, d, sizeof d);
    return nn_run_kernel(&c, &a, MGPU_NN_CLASS_ELEMENTWISE, 0);
}
