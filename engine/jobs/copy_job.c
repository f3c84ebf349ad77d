/* copy_job.c - the worker job "copy": rank 0 runs nvbandwidth's testcases
 * on every device of its backend and sends each testcase's result up, so
 * the coordinator never opens CUDA to measure copies.
 *
 * params (every member optional):
 *   testcase   a name, index or prefix (mgpu_copy_case_select), an array of
 *              them, or null/absent for every testcase in nvbandwidth's order
 *   size       bytes per copy (a multiple of 16); absent/null: 512 MiB on
 *              cuda, 16 MiB on sim (whose timings are modelled)
 *   copies     copies per sample (nvbandwidth's loopCount); absent: 16, sim 4
 *   samples    timed samples; absent: 3, sim 1
 *   use_mean   report the mean instead of the median (default false)
 *   skip_verify  do not check the copied data (default false)
 * Rank 0 sends, in order:
 *   "devices"  the header of `mgpulab copy --json` (less "version", which
 *              the program adds): {tool, backend,
 *              simulated, machine, backend_line, unit_note, options{...},
 *              devices[], sim_defaults (true when unset options took the
 *              sim's smaller values)}
 *   "progress" {testcase} before running a testcase the machine can run
 *   "result"   one per testcase: exactly its object in the --json output's
 *              "testcases" (name, status, engine, unit, bytes, matrices[],
 *              sum, notes[], waived_reason or error/error_code, ...)
 *   "summary"  {testcases, failed}
 * A failed testcase (out of memory, wrong data) is a result with status
 * "error", not a failed job; bad params fail the job. */
#include "mgpu/copybench.h"
#include "mgpu/rt.h"
#include "mgpu/topo.h"
#include <stdio.h>
#include <string.h>

#define MAX_SELECTED 64

/* The sim moves every byte for real but its timings are modelled and
 * deterministic: nvbandwidth's 512 MiB x 16 x 3 would only be slow. */
#define SIM_DEFAULT_BUFFER (16ull << 20)
#define SIM_DEFAULT_LOOPS 4
#define SIM_DEFAULT_SAMPLES 1

/*--- JSON ------------------------------------------------------------------*/

static json_t *matrix_json(const mgpu_copy_matrix *m)
{
    json_t *rows = json_array();
    for (int r = 0; r < m->rows; r++) {
        json_t *row = json_array();
        for (int c = 0; c < m->cols; c++)
            json_array_append_new(row, m->have[r * m->cols + c] ? json_real(m->value[r * m->cols + c]) : json_null());
        json_array_append_new(rows, row);
    }
    return json_pack("{s:s, s:s, s:i, s:i, s:o, s:f}", "key", m->key, "title", m->title, "rows", m->rows,
                     "cols", m->cols, "values", rows, "sum", m->sum);
}

static json_t *result_json(const mgpu_copy_result *r)
{
    static const char *const status[] = {"passed", "waived", "error"};
    json_t *o = json_pack("{s:s, s:s, s:s}", "name", r->tc->name, "status", status[r->status], "engine",
                          mgpu_copy_engine_name(r->tc->engine));
    if (r->status == MGPU_COPY_WAIVED) {
        json_object_set_new(o, "waived_reason", json_string(r->reason));
        return o;
    }
    if (r->status == MGPU_COPY_ERROR) {
        json_object_set_new(o, "error", json_string(r->reason));
        json_object_set_new(o, "error_code", json_string(mgpu_result_name(r->code)));
        return o;
    }
    json_object_set_new(o, "unit", json_string(r->unit));
    json_object_set_new(o, "bytes", json_integer((json_int_t)r->bytes));
    json_t *mats = json_array();
    for (int k = 0; k < r->nmat; k++) json_array_append_new(mats, matrix_json(&r->mat[k]));
    json_object_set_new(o, "matrices", mats);
    /* the testcase's headline SUM: the total matrix of a bidirectional pair */
    json_object_set_new(o, "sum", json_real(r->mat[r->nmat - 1].sum));
    if (r->tc->pattern == MGPU_PAT_LOCAL) {
        json_t *rw = json_array();
        for (int c = 0; c < r->mat[0].cols; c++)
            json_array_append_new(rw, r->mat[0].have[c] ? json_real(2.0 * r->mat[0].value[c]) : json_null());
        json_object_set_new(o, "read_write_gbs", rw);
        json_object_set_new(o, "read_write_sum", json_real(r->local_rw_sum));
        json_object_set_new(o, "read_write_convention",
                            json_string("read_write_gbs and read_write_sum count every copied byte twice (read + write)"));
    }
    json_t *notes = json_array();
    for (int i = 0; i < r->nnotes; i++) json_array_append_new(notes, json_string(r->notes[i]));
    json_object_set_new(o, "notes", notes);
    return o;
}

static json_t *header_json(mgpu_backend *be, const mgpu_copy_options *o, int sim_defaults)
{
    const mgpu_topo *t = mgpu_backend_topo(be);
    char line[512];
    mgpu_backend_describe(be, line, sizeof line);
    json_t *devs = json_array();
    int n = 0;
    mgpu_device_count(be, &n);
    for (int d = 0; d < n; d++) {
        mgpu_device_info info;
        if (mgpu_device_info_get(be, d, &info) == MGPU_OK)
            json_array_append_new(devs, json_pack("{s:i, s:s, s:s}", "index", d, "name", info.name,
                                                  "pci_bus_id", info.pci_bus_id));
    }
    json_t *opts = json_pack("{s:I, s:f, s:I, s:i, s:s, s:b}", "buffer_bytes", (json_int_t)o->buffer_bytes,
                             "buffer_mib", o->buffer_bytes / 1048576.0, "loop_count", (json_int_t)o->loop_count,
                             "samples", (int)o->samples, "statistic", o->use_mean ? "mean" : "median", "verify",
                             !o->skip_verify);
    return json_pack("{s:s, s:s, s:b, s:s?, s:s, s:s, s:o, s:o, s:b}", "tool", "mgpulab copy", "backend", mgpu_backend_name(be), "simulated", mgpu_backend_simulated(be),
                     "machine", t ? mgpu_topo_machine_name(t) : NULL, "backend_line", line, "unit_note",
                     "GB/s = 1e9 bytes per second", "options", opts, "devices", devs, "sim_defaults", sim_defaults);
}

/*--- Params ----------------------------------------------------------------*/

static mgpu_result read_count(json_t *p, const char *key, long long min, long long max, long long *out, int *given)
{
    json_t *v = json_object_get(p, key);
    *given = v && !json_is_null(v);
    if (!*given) return MGPU_OK;
    if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
        return mgpu_fail(MGPU_ERR_INVALID, "copy job: \"%s\" must be a whole number in %lld..%lld", key, min, max);
    *out = json_integer_value(v);
    return MGPU_OK;
}

static mgpu_result read_selection(json_t *p, const mgpu_copy_case **sel, int *n)
{
    json_t *tc = json_object_get(p, "testcase");
    *n = 0;
    if (!tc || json_is_null(tc)) {
        int count = 0;
        const mgpu_copy_case *c = mgpu_copy_cases(&count);
        for (int i = 0; i < count && *n < MAX_SELECTED; i++) sel[(*n)++] = &c[i];
        return MGPU_OK;
    }
    if (json_is_string(tc)) return mgpu_copy_case_select(json_string_value(tc), sel, MAX_SELECTED, n);
    if (!json_is_array(tc) || json_array_size(tc) == 0)
        return mgpu_fail(MGPU_ERR_INVALID, "copy job: \"testcase\" must be a name, an array of names, or null");
    for (size_t i = 0; i < json_array_size(tc); i++) {
        const char *s = json_string_value(json_array_get(tc, i));
        if (!s) return mgpu_fail(MGPU_ERR_INVALID, "copy job: \"testcase\"[%zu] is not a string", i);
        MGPU_CHECK(mgpu_copy_case_select(s, sel, MAX_SELECTED, n));
    }
    return MGPU_OK;
}

static mgpu_result read_params(json_t *p, int sim, mgpu_copy_options *o, int *sim_defaults)
{
    if (p && !json_is_object(p) && !json_is_null(p))
        return mgpu_fail(MGPU_ERR_INVALID, "copy job: params must be an object");
    mgpu_copy_options_default(o);
    long long size = 0, copies = 0, samples = 0;
    int gs, gc, gn;
    MGPU_CHECK(read_count(p, "size", 16, 1ll << 40, &size, &gs));
    MGPU_CHECK(read_count(p, "copies", 1, 1000000, &copies, &gc));
    MGPU_CHECK(read_count(p, "samples", 1, 1000, &samples, &gn));
    if (gs && size % 16)
        return mgpu_fail(MGPU_ERR_INVALID, "copy job: \"size\" %lld is not a multiple of 16 bytes", size);
    o->buffer_bytes = gs ? (uint64_t)size : sim ? SIM_DEFAULT_BUFFER : o->buffer_bytes;
    o->loop_count = gc ? (uint64_t)copies : sim ? SIM_DEFAULT_LOOPS : o->loop_count;
    o->samples = gn ? (unsigned)samples : sim ? SIM_DEFAULT_SAMPLES : o->samples;
    o->use_mean = json_is_true(json_object_get(p, "use_mean"));
    o->skip_verify = json_is_true(json_object_get(p, "skip_verify"));
    *sim_defaults = sim && !(gs && gc && gn);
    MGPU_CHECK(mgpu_copy_options_check(o));
    return MGPU_OK;
}

/*--- The job ---------------------------------------------------------------*/

static mgpu_result send(mgpu_worker *w, const char *type, json_t *body)
{
    mgpu_result r = mgpu_worker_send(w, type, body);
    json_decref(body);
    MGPU_CHECK(r);
    return MGPU_OK;
}

static mgpu_result run(mgpu_worker *w, json_t *params)
{
    mgpu_backend *be = mgpu_worker_backend(w);
    mgpu_copy_options o;
    const mgpu_copy_case *sel[MAX_SELECTED];
    int nsel = 0, sim_defaults = 0, ndev = 0, failed = 0;
    MGPU_CHECK(read_params(params, mgpu_backend_simulated(be), &o, &sim_defaults));
    MGPU_CHECK(read_selection(params, sel, &nsel));
    if (mgpu_worker_rank(w) != 0) return MGPU_OK; /* one process measures all of its devices */
    MGPU_CHECK(mgpu_device_count(be, &ndev));
    MGPU_CHECK(send(w, "devices", header_json(be, &o, sim_defaults)));
    for (int i = 0; i < nsel; i++) {
        if (sel[i]->min_gpus <= ndev) MGPU_CHECK(send(w, "progress", json_pack("{s:s}", "testcase", sel[i]->name)));
        mgpu_copy_result r;
        MGPU_CHECK(mgpu_copy_run(be, sel[i], &o, &r));
        failed += r.status == MGPU_COPY_ERROR;
        json_t *body = result_json(&r);
        mgpu_copy_result_free(&r);
        MGPU_CHECK(send(w, "result", body));
    }
    MGPU_CHECK(send(w, "summary", json_pack("{s:i, s:i}", "testcases", nsel, "failed", failed)));
    return MGPU_OK;
}

const mgpu_job_handler mgpu_job_copy = {.type = "copy", .run = run};
