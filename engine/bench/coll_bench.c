/* coll_bench.c - the timing and checking core of `mgpulab bench`: for each
 * size, out-of-place then in-place, nccl-tests' method - data set up,
 * warm-up, an event pair around `iters` calls on the communicator's stream,
 * time / iters, then one more call on fresh data checked element by element
 * against the exact expected result (on the sim, large blocks in a stated
 * sample: mgpu/collbench.h, "What is checked"). Times are combined over ranks with an
 * all-reduce (-a), wrong counts summed, as nccl-tests does over MPI. */
#include "mgpu/collbench.h"
#include "mgpu/collmodel.h"
#include "mgpu/mem.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Data is written and read through a pinned host chunk, so one code path
 * serves both backends and memory stays bounded for large sizes; 64 Ki
 * elements keep the chunk and its expected values in L2 while the host
 * generates and compares (the sim does that for every rank on a few cores). */
#define CHUNK_ELEMS (16u * MGPU_CB_PERIOD) /* a multiple of the period: periodic expectations repeat per chunk */

typedef struct sweep {
    mgpu_comm *c;
    mgpu_backend *be;
    mgpu_stream *s;
    int rank, nranks, dev;
    const mgpu_collbench_coll *coll;
    const mgpu_collbench_options *o;
    mgpu_buffer *send, *recv, *stage, *scalar;
    mgpu_event *start, *end;
    double *expect;
    uint32_t *expect_bits; /* f32 / i32 exact checks compare bit patterns (a loop that vectorises) */
    uint64_t seed;
    /* w->send already holds input elements [0, send_valid) of the data
     * seeded send_seed (inputs depend on the element, not the size, and
     * nothing writes the send buffer, so the next size adds only the rest) */
    uint64_t send_seed;
    size_t send_valid;
    int sampled; /* host-addressable buffers (sim): large blocks are sampled */
} sweep;

/*--- What is checked (mgpu/collbench.h) ----------------------------------------*/

/* The checked element ranges of a buffer of `total` elements made of blocks
 * of L (the call's count): in every block the same spans, all of the block
 * or the sim's evenly spaced sample, the first and the last at its ends. */
typedef struct ranges {
    size_t first[MGPU_CB_SAMPLE_BLOCKS], len[MGPU_CB_SAMPLE_BLOCKS];
    int nspans, span;
    size_t L, blocks, block;
} ranges;

static void ranges_init(ranges *r, const sweep *w, size_t L, size_t total, size_t ts)
{
    memset(r, 0, sizeof *r);
    r->L = L;
    r->blocks = L ? total / L : 0;
    size_t b = MGPU_CB_SAMPLE_BYTES / ts;
    if (!w->sampled || L * ts <= MGPU_CB_FULL_CHECK_BYTES) {
        r->nspans = 1;
        r->len[0] = L;
        return;
    }
    /* Spans start on multiples of b (whole huge pages of a block that
     * starts on one, and the same places for several sizes), except the
     * last, which ends the block; L > 8b keeps them apart. */
    r->nspans = MGPU_CB_SAMPLE_BLOCKS;
    for (int i = 0; i < MGPU_CB_SAMPLE_BLOCKS; i++) {
        r->first[i] = (uint64_t)(L - b) * (uint64_t)i / (MGPU_CB_SAMPLE_BLOCKS - 1) / b * b;
        r->len[i] = b;
    }
    r->first[MGPU_CB_SAMPLE_BLOCKS - 1] = L - b;
}

/* Every element of every block. */
static int ranges_whole(const ranges *r) { return r->nspans == 1; }

/* The next range [*first, *first + *n) in buffer elements; 0 at the end. */
static int ranges_next(ranges *r, size_t *first, size_t *n)
{
    if (r->block >= r->blocks) return 0;
    *first = r->block * r->L + r->first[r->span];
    *n = r->len[r->span];
    if (++r->span == r->nspans) r->span = 0, r->block++;
    return 1;
}

const char *mgpu_collbench_check_note(int sampled)
{
    if (!sampled) return "# Check: every output element against its exact expected value";
    return "# Check: every output element of blocks up to 16 MiB (the call's count); a larger block in "
           "8 evenly spaced 2 MiB spans, its first and last included (input written there only; every byte "
           "still moves, and pages never touched are neither read nor rewritten with the zeros they hold)";
}

/*--- Data in and out ---------------------------------------------------------*/

/* Rank input elements [from, n) -> buf, element 0 at byte offset off. */
static mgpu_result write_input(sweep *w, const mgpu_cb_data *d, mgpu_buffer *buf, size_t off, size_t from, size_t n)
{
    size_t ts = mgpu_dtype_size(d->dtype);
    char *view = mgpu_buffer_host_view(buf);
    if (view) { /* host-addressable (sim): write in place, no staging pass */
        MGPU_CHECK(mgpu_stream_synchronize(w->s));
        if (n > from) mgpu_cb_input_store(d, w->rank, from, n - from, view + off + from * ts);
        return MGPU_OK;
    }
    for (size_t first = from; first < n; first += CHUNK_ELEMS) {
        size_t m = n - first < CHUNK_ELEMS ? n - first : CHUNK_ELEMS;
        mgpu_cb_input_store(d, w->rank, first, m, w->stage->ptr);
        MGPU_CHECK(mgpu_copy(w->s, buf, off + first * ts, w->stage, 0, m * ts, MGPU_COPY_CE));
        MGPU_CHECK(mgpu_stream_synchronize(w->s)); /* the chunk is reused */
    }
    return MGPU_OK;
}

/* Rank input where it is checked, skipping the elements below `from` that
 * the buffer already holds. */
static mgpu_result write_checked_input(sweep *w, const mgpu_cb_data *d, const mgpu_cb_counts *k, mgpu_buffer *buf,
                                       size_t off, size_t from)
{
    ranges r;
    size_t first, n;
    ranges_init(&r, w, k->param, k->send, mgpu_dtype_size(d->dtype));
    while (ranges_next(&r, &first, &n))
        if (first + n > from) MGPU_CHECK(write_input(w, d, buf, off, first > from ? first : from, first + n));
    return MGPU_OK;
}

/* A value no correct result can hold (far beyond the exact range), so
 * output the collective never wrote is always counted wrong: the one whose
 * bytes are all 0x7B (f32 1.3e36, bf16 1.3e36, f16 61280, i32 2071690107),
 * so a fill of it is a memset where the backend can do one. */
static double sentinel(mgpu_dtype t)
{
    unsigned char bytes[4] = {0x7B, 0x7B, 0x7B, 0x7B};
    if (t == MGPU_I32) return (double)*(const int32_t *)(const void *)bytes;
    return mgpu_elem_f32(bytes, t, 0);
}

/* Sentinel in elements [first, first+n) of buf. */
static mgpu_result clear(sweep *w, mgpu_buffer *buf, size_t first, size_t n, mgpu_dtype t)
{
    if (n == 0) return MGPU_OK;
    mgpu_fill_spec spec = {.kind = MGPU_FILL_CONST, .value = sentinel(t)};
    MGPU_CHECK(mgpu_fill(w->s, buf, first * mgpu_dtype_size(t), n, t, &spec));
    return MGPU_OK;
}

/* Float averages are computed by NCCL as a pre-multiplied sum (x/n summed)
 * or sum-then-divide; either rounds, so they get a bound of a few ulps of
 * the largest partial result. Everything else must match exactly. */
static double tolerance(const mgpu_cb_data *d)
{
    if (d->op != MGPU_AVG || d->dtype == MGPU_I32) return 0;
    double eps = d->dtype == MGPU_F32 ? 0x1p-23 : d->dtype == MGPU_F16 ? 0x1p-10 : 0x1p-7;
    return eps * (double)(d->nranks + 2) * (double)(d->arange + d->crange);
}

/* Sentinel where output elements [0, n) are checked, except [skip, skip_end). */
static mgpu_result clear_checked(sweep *w, const mgpu_cb_counts *k, size_t n, size_t skip, size_t skip_end,
                                 mgpu_dtype t)
{
    ranges r;
    size_t first, m;
    ranges_init(&r, w, k->param, n, mgpu_dtype_size(t));
    while (ranges_next(&r, &first, &m)) {
        size_t end = first + m;
        if (first < skip) MGPU_CHECK(clear(w, w->recv, first, (end < skip ? end : skip) - first, t));
        if (end > skip_end) {
            size_t from = first > skip_end ? first : skip_end;
            MGPU_CHECK(clear(w, w->recv, from, end - from, t));
        }
    }
    return MGPU_OK;
}

/* Count the checked output elements at byte offset off that differ from
 * the expected (recv elements [0, k->recv)). */
static mgpu_result check_output(sweep *w, const mgpu_cb_data *d, const mgpu_cb_counts *k, mgpu_buffer *buf,
                                size_t off, int64_t *wrong)
{
    size_t ts = mgpu_dtype_size(d->dtype);
    double tol = tolerance(d);
    *wrong = 0;
    const char *view = mgpu_buffer_host_view(buf);
    if (view) MGPU_CHECK(mgpu_stream_synchronize(w->s));
    ranges rg;
    size_t start, len;
    ranges_init(&rg, w, k->param, k->recv, ts);
    while (ranges_next(&rg, &start, &len))
    for (size_t first = start; first < start + len; first += CHUNK_ELEMS) {
        size_t m = start + len - first < CHUNK_ELEMS ? start + len - first : CHUNK_ELEMS;
        /* chunks of a range lie a multiple of the period apart: periodic
         * expectations are computed once per range */
        int again = first > start && w->coll->periodic && d->op != MGPU_PROD;
        if (!again && !w->coll->expected(d, w->rank, k, first, m, w->expect)) return MGPU_OK; /* undefined here */
        const void *h = w->stage->ptr;
        if (view) h = view + off + first * ts; /* host-addressable (sim): read in place */
        else {
            MGPU_CHECK(mgpu_copy(w->s, w->stage, 0, buf, off + first * ts, m * ts, MGPU_COPY_CE));
            MGPU_CHECK(mgpu_stream_synchronize(w->s));
        }
        const double *e = w->expect;
        int64_t bad = 0;
        if (d->dtype == MGPU_I32 || (d->dtype == MGPU_F32 && tol == 0)) {
            /* Exact: equal values are equal bits (the expected values are
             * integers, never -0 or NaN), and integer compares vectorise. */
            uint32_t *eb = w->expect_bits;
            if (!again) {
                if (d->dtype == MGPU_I32)
                    for (size_t j = 0; j < m; j++) eb[j] = (uint32_t)(int32_t)e[j];
                else
                    for (size_t j = 0; j < m; j++) {
                        float f = (float)e[j];
                        memcpy(&eb[j], &f, 4);
                    }
            }
            const uint32_t *g = h;
            for (size_t j = 0; j < m; j++) bad += g[j] != eb[j];
            *wrong += bad;
        } else {
            for (size_t j = 0; j < m; j++) {
                double got = mgpu_elem_f32(h, d->dtype, j);
                *wrong += !(fabs(got - w->expect[j]) <= tol); /* NaN counts */
            }
        }
    }
    return MGPU_OK;
}

/* The test hook: overwrite the first and the last output element with the
 * sentinel, so a test can see wrong values counted (in the first chunk and
 * in a later one, whose expected values may be reused) and the run fail. */
static mgpu_result tamper(sweep *w, mgpu_buffer *buf, size_t off, size_t n, mgpu_dtype t)
{
    if (w->o->tamper_rank != w->rank || n == 0) return MGPU_OK;
    mgpu_fill_spec spec = {.kind = MGPU_FILL_CONST, .value = sentinel(t)};
    MGPU_CHECK(mgpu_fill(w->s, buf, off, 1, t, &spec));
    return mgpu_fill(w->s, buf, off + (n - 1) * mgpu_dtype_size(t), 1, t, &spec);
}

/*--- Combining over ranks ---------------------------------------------------*/

/* All-reduce one value through the device (nccl-tests does it over MPI;
 * here the communicator is the only channel every launcher has). */
static mgpu_result all_reduce_value(sweep *w, mgpu_dtype t, mgpu_redop op, double *v)
{
    if (w->nranks == 1) return MGPU_OK;
    void *h = w->stage->ptr;
    if (t == MGPU_I32) *(int32_t *)h = (int32_t)*v;
    else *(float *)h = (float)*v;
    MGPU_CHECK(mgpu_copy(w->s, w->scalar, 0, w->stage, 0, 4, MGPU_COPY_CE));
    MGPU_CHECK(mgpu_all_reduce(w->c, w->scalar, 0, w->scalar, 0, 1, t, op, w->s));
    MGPU_CHECK(mgpu_copy(w->s, w->stage, 0, w->scalar, 0, 4, MGPU_COPY_CE));
    MGPU_CHECK(mgpu_stream_synchronize(w->s));
    *v = t == MGPU_I32 ? (double)*(int32_t *)h : (double)*(float *)h;
    return MGPU_OK;
}

static mgpu_result combine_time(sweep *w, double *us)
{
    switch (w->o->average) {
    case 1: MGPU_CHECK(all_reduce_value(w, MGPU_F32, MGPU_SUM, us)); *us /= w->nranks; break;
    case 2: MGPU_CHECK(all_reduce_value(w, MGPU_F32, MGPU_MIN, us)); break;
    case 3: MGPU_CHECK(all_reduce_value(w, MGPU_F32, MGPU_MAX, us)); break;
    default: { /* rank 0's time for everyone */
        double v = w->rank == 0 ? *us : 0;
        MGPU_CHECK(all_reduce_value(w, MGPU_F32, MGPU_SUM, &v));
        *us = v;
    }
    }
    return MGPU_OK;
}

/*--- One half of a row --------------------------------------------------------*/

typedef struct call {
    const mgpu_buffer *send;
    mgpu_buffer *recv;
    size_t send_off, recv_off; /* bytes */
    size_t param;
    mgpu_dtype t;
    mgpu_redop op;
    int root;
} call;

static mgpu_result run_once(sweep *w, const call *k)
{
    return w->coll->run(w->c, k->send, k->send_off, k->recv, k->recv_off, k->param, k->t, k->op, k->root, w->s);
}

/* Sentinel in the whole output buffer, then this rank's input where the call reads it. */
static mgpu_result prepare(sweep *w, const mgpu_cb_data *d, const mgpu_cb_counts *k, const call *cl, int in_place)
{
    if (!in_place) {
        MGPU_CHECK(clear_checked(w, k, k->recv, 0, 0, d->dtype));
        size_t from = w->send_seed == d->seed ? w->send_valid : 0;
        MGPU_CHECK(write_checked_input(w, d, k, w->send, cl->send_off, from));
        ranges r;
        ranges_init(&r, w, k->param, k->send, mgpu_dtype_size(d->dtype));
        if (from < k->send && ranges_whole(&r)) w->send_seed = d->seed, w->send_valid = k->send;
        return MGPU_OK;
    }
    /* In place the input overwrites its part of the output anyway: the
     * sentinel goes only around it. (Where an input element already equals
     * its expected result, leaving it alone is correct.) */
    size_t recv_elems = k->recv > k->send ? k->recv : k->send, ts = mgpu_dtype_size(d->dtype);
    size_t in_first = cl->send_off / ts, in_end = in_first + k->send;
    MGPU_CHECK(clear_checked(w, k, recv_elems, in_first, in_end, d->dtype));
    return write_checked_input(w, d, k, w->recv, cl->send_off, 0);
}

static mgpu_result bench_half(sweep *w, const mgpu_cb_data *d, const mgpu_cb_counts *k, int in_place,
                              uint64_t bytes, mgpu_collbench_half *out)
{
    const mgpu_collbench_options *o = w->o;
    size_t ts = mgpu_dtype_size(d->dtype);
    call cl = {.send = in_place ? w->recv : w->send, .recv = w->recv,
               .send_off = in_place ? (size_t)w->rank * k->send_inplace_off * ts : 0,
               .recv_off = in_place ? (size_t)w->rank * k->recv_inplace_off * ts : 0,
               .param = k->param, .t = d->dtype, .op = d->op >= 0 ? (mgpu_redop)d->op : MGPU_SUM, .root = d->root};
    int checked = o->check && (!in_place || w->coll->inplace_checked);
    if (checked) MGPU_CHECK(prepare(w, d, k, &cl, in_place));
    if (o->warmup > 0) MGPU_CHECK(run_once(w, &cl)); /* nccl-tests' untimed "sync" call */
    MGPU_CHECK(mgpu_event_record(w->start, w->s));
    for (int it = 0; it < o->iters; it++) {
        MGPU_CHECK(run_once(w, &cl));
        if (o->blocking) MGPU_CHECK(mgpu_stream_synchronize(w->s));
    }
    MGPU_CHECK(mgpu_event_record(w->end, w->s));
    MGPU_CHECK(mgpu_event_synchronize(w->end));
    double ms = 0;
    MGPU_CHECK(mgpu_event_elapsed_ms(w->start, w->end, &ms));
    double us = ms * 1e3 / o->iters;
    MGPU_CHECK(combine_time(w, &us));
    out->time_us = us;
    mgpu_collbench_bw(bytes, us, mgpu_coll_busbw_factor(w->coll->coll, w->nranks), &out->algbw, &out->busbw);
    out->wrong = -1;
    if (!checked) return MGPU_OK;
    /* With one timed call on fresh data and no warm-up, that call's output is
     * the checked one; otherwise in-place calls have consumed their input,
     * so start again from fresh data, as nccl-tests does. */
    if (!(o->iters == 1 && o->warmup == 0)) {
        MGPU_CHECK(prepare(w, d, k, &cl, in_place));
        MGPU_CHECK(run_once(w, &cl));
    }
    MGPU_CHECK(tamper(w, w->recv, cl.recv_off, k->recv, d->dtype));
    MGPU_CHECK(mgpu_stream_synchronize(w->s));
    int64_t wrong = 0;
    MGPU_CHECK(check_output(w, d, k, w->recv, cl.recv_off, &wrong));
    double total = (double)(wrong < INT32_MAX / w->nranks ? wrong : INT32_MAX / w->nranks);
    MGPU_CHECK(all_reduce_value(w, MGPU_I32, MGPU_SUM, &total));
    out->wrong = (int64_t)total;
    return MGPU_OK;
}

/*--- The sweep ---------------------------------------------------------------*/

static mgpu_result sweep_one(sweep *w, mgpu_dtype t, int op, mgpu_collbench_emit emit, void *ctx)
{
    const mgpu_collbench_options *o = w->o;
    size_t ts = mgpu_dtype_size(t);
    int root = w->coll->rooted ? o->root : -1;
    mgpu_cb_data d;
    mgpu_cb_data_init(&d, t, op, w->nranks, root < 0 ? 0 : root, ++w->seed);
    if (o->warmup > 0) { /* nccl-tests warms up at the largest, then the smallest size */
        uint64_t sizes[2] = {o->max_bytes, o->min_bytes};
        for (int s = 0; s < 2; s++) {
            mgpu_cb_counts k;
            w->coll->counts(sizes[s] / ts, w->nranks, &k);
            call cl = {.send = w->send, .recv = w->recv, .param = k.param, .t = t,
                       .op = op >= 0 ? (mgpu_redop)op : MGPU_SUM, .root = d.root};
            for (int i = 0; i < o->warmup; i++) MGPU_CHECK(run_once(w, &cl));
        }
        MGPU_CHECK(mgpu_stream_synchronize(w->s));
    }
    for (uint64_t size = o->min_bytes; size <= o->max_bytes; size = mgpu_collbench_next_size(o, size)) {
        mgpu_cb_counts k;
        w->coll->counts(size / ts, w->nranks, &k);
        mgpu_collbench_row row = {.bytes = (k.send > k.recv ? k.send : k.recv) * ts, .count = k.param,
                                  .dtype = t, .op = op, .root = root};
        MGPU_CHECK(bench_half(w, &d, &k, 0, row.bytes, &row.oop));
        MGPU_CHECK(bench_half(w, &d, &k, 1, row.bytes, &row.ip));
        MGPU_CHECK(emit(ctx, &row));
        if (mgpu_collbench_next_size(o, size) <= size) break; /* -b 0 with -f: one row, not forever */
    }
    return MGPU_OK;
}

mgpu_result mgpu_collbench_sweep(mgpu_backend *be, mgpu_comm *c, const mgpu_collbench_coll *coll,
                                 const mgpu_collbench_options *o, mgpu_collbench_emit emit, void *ctx)
{
    if (!be || !c || !coll || !o || !emit) return mgpu_fail(MGPU_ERR_INVALID, "bench: missing argument");
    sweep w = {.be = be, .c = c, .s = mgpu_comm_stream(c), .rank = mgpu_comm_rank(c), .nranks = mgpu_comm_size(c),
               .dev = mgpu_comm_device(c), .coll = coll, .o = o};
    mgpu_result res = MGPU_OK;
    if (coll->rooted && o->root >= w.nranks)
        return mgpu_fail(MGPU_ERR_INVALID, "-r %d: the root must be a rank, 0..%d", o->root, w.nranks - 1);
    /* Buffers for the largest size of the widest type: the sizes in bytes
     * are the same for every type, the counts differ. */
    size_t send_b = 256, recv_b = 256;
    for (int i = 0; i < o->ndtypes; i++) {
        size_t ts = mgpu_dtype_size(o->dtypes[i]);
        mgpu_cb_counts k;
        coll->counts(o->max_bytes / ts, w.nranks, &k);
        if (k.send * ts > send_b) send_b = k.send * ts;
        size_t r = (k.recv > k.send ? k.recv : k.send) * ts;
        if (r > recv_b) recv_b = r;
    }
    /* Plain cudaMalloc'd buffers, as nccl-tests has (mgpu/mem.h): the cache
     * would keep them reserved after the run, beside NCCL's own buffers. */
    MGPU_CHECKGOTO(mgpu_mem_alloc_uncached(w.be, MGPU_MEM_DEVICE, w.dev, send_b, &w.send), res, out);
    MGPU_CHECKGOTO(mgpu_mem_alloc_uncached(w.be, MGPU_MEM_DEVICE, w.dev, recv_b, &w.recv), res, out);
    MGPU_CHECKGOTO(mgpu_mem_alloc_uncached(w.be, MGPU_MEM_DEVICE, w.dev, 16, &w.scalar), res, out);
    w.sampled = mgpu_buffer_host_view(w.send) != NULL;
    MGPU_CHECKGOTO(mgpu_mem_alloc(w.be, MGPU_MEM_PINNED, -1, (size_t)CHUNK_ELEMS * 4, &w.stage), res, out);
    MGPU_CHECKGOTO(mgpu_event_create(w.be, w.dev, MGPU_EVENT_TIMING, &w.start), res, out);
    MGPU_CHECKGOTO(mgpu_event_create(w.be, w.dev, MGPU_EVENT_TIMING, &w.end), res, out);
    w.expect = malloc(sizeof(double) * CHUNK_ELEMS);
    w.expect_bits = malloc(sizeof(uint32_t) * CHUNK_ELEMS);
    if (!w.expect || !w.expect_bits) {
        res = mgpu_fail(MGPU_ERR_NOMEM, "bench: no host memory for the check");
        goto out;
    }
    for (int i = 0; i < o->ndtypes && res == MGPU_OK; i++) {
        if (!coll->reduces) {
            MGPU_CHECKGOTO(sweep_one(&w, o->dtypes[i], -1, emit, ctx), res, out);
            continue;
        }
        for (int j = 0; j < o->nops; j++) MGPU_CHECKGOTO(sweep_one(&w, o->dtypes[i], (int)o->ops[j], emit, ctx), res, out);
    }
out:
    free(w.expect);
    free(w.expect_bits);
    if (w.end) mgpu_event_destroy(w.end);
    if (w.start) mgpu_event_destroy(w.start);
    if (w.stage) mgpu_mem_free(w.stage);
    if (w.scalar) mgpu_mem_free(w.scalar);
    if (w.recv) mgpu_mem_free(w.recv);
    if (w.send) mgpu_mem_free(w.send);
    return res;
}
