/* coll_doc.c - the "bench" job's params, rows and result document
 * (mgpu/coll_doc.h says their fields). A bench run's data used to cross
 * four files in four hand-kept copies of one format (the params written in
 * bench/, read back in the job, the rows written in the job, read back in
 * cli/ and counted again in lab/); here each is written and read once. */
#include "mgpu/coll_doc.h"
#include <string.h>

/*--- Params ------------------------------------------------------------------*/

json_t *mgpu_collbench_params_json(const mgpu_collbench_coll *coll, const mgpu_collbench_options *o)
{
    json_t *types = json_array(), *ops = json_array();
    for (int i = 0; i < o->ndtypes; i++) json_array_append_new(types, json_string(mgpu_dtype_name(o->dtypes[i])));
    for (int i = 0; i < o->nops; i++) json_array_append_new(ops, json_integer(o->ops[i]));
    return json_pack("{s:s, s:I, s:I, s:I, s:I, s:i, s:i, s:i, s:i, s:i, s:i, s:b, s:b, s:o, s:o}", "coll",
                     coll->name, "min_bytes", (json_int_t)o->min_bytes, "max_bytes", (json_int_t)o->max_bytes,
                     "step_bytes", (json_int_t)o->step_bytes, "step_factor", (json_int_t)o->step_factor, "iters",
                     o->iters, "warmup", o->warmup, "check", o->check, "root", o->root, "blocking", o->blocking,
                     "average", o->average, "set_iters", o->set_iters, "set_warmup", o->set_warmup, "dtypes", types,
                     "ops", ops);
}

mgpu_result mgpu_collbench_params_read(json_t *p, mgpu_collbench_options *o, const mgpu_collbench_coll **coll)
{
    mgpu_collbench_options_default(o);
    const char *name = json_string_value(json_object_get(p, "coll"));
    *coll = mgpu_collbench_find(name);
    if (!*coll) return mgpu_fail(MGPU_ERR_INVALID, "bench job: unknown collective '%s'", name ? name : "(none)");
    json_int_t b = 0, e = 0, i = 0, f = 0;
    if (json_unpack(p, "{s:I, s:I, s:I, s:I, s:i, s:i, s:i, s:i, s:i, s:i, s:b, s:b}", "min_bytes", &b, "max_bytes",
                    &e, "step_bytes", &i, "step_factor", &f, "iters", &o->iters, "warmup", &o->warmup, "check",
                    &o->check, "root", &o->root, "blocking", &o->blocking, "average", &o->average, "set_iters",
                    &o->set_iters, "set_warmup", &o->set_warmup) != 0 ||
        b < 0 || e < 0 || i < 0 || f < 1 || o->iters < 1 || o->warmup < 0)
        return mgpu_fail(MGPU_ERR_INVALID, "bench job: malformed parameters");
    o->min_bytes = (uint64_t)b;
    o->max_bytes = (uint64_t)e;
    o->step_bytes = (uint64_t)i;
    o->step_factor = (uint64_t)f;
    json_t *types = json_object_get(p, "dtypes"), *ops = json_object_get(p, "ops");
    size_t nt = json_array_size(types), no = json_array_size(ops);
    if (nt < 1 || nt > MGPU_DTYPE_COUNT || no < 1 || no > MGPU_REDOP_COUNT)
        return mgpu_fail(MGPU_ERR_INVALID, "bench job: malformed type or op list");
    o->ndtypes = (int)nt;
    for (size_t k = 0; k < nt; k++) {
        int t = mgpu_dtype_parse(json_string_value(json_array_get(types, k)));
        if (t < 0) return mgpu_fail(MGPU_ERR_INVALID, "bench job: unknown type");
        o->dtypes[k] = (mgpu_dtype)t;
    }
    o->nops = (int)no;
    for (size_t k = 0; k < no; k++) {
        json_int_t op = json_integer_value(json_array_get(ops, k));
        if (op < 0 || op >= MGPU_REDOP_COUNT) return mgpu_fail(MGPU_ERR_INVALID, "bench job: unknown op");
        o->ops[k] = (mgpu_redop)op;
    }
    /* the same check the coordinator ran: a worker never sweeps forever on
     * params someone else wrote */
    return mgpu_collbench_options_check(o, *coll);
}

/*--- Rows --------------------------------------------------------------------*/

static json_t *half_json(const mgpu_collbench_half *h)
{
    return json_pack("{s:f, s:f, s:f, s:o}", "time", h->time_us, "alg_bw", h->algbw, "bus_bw", h->busbw, "nwrong",
                     h->wrong < 0 ? json_null() : json_integer((json_int_t)h->wrong));
}

/* "none" for a collective that does not reduce (op -1) */
static const char *op_name(int op)
{
    return op >= 0 && op < MGPU_REDOP_COUNT ? mgpu_redop_name((mgpu_redop)op) : "none";
}

json_t *mgpu_collbench_row_json(const mgpu_collbench_row *r)
{
    return json_pack("{s:I, s:I, s:s, s:s, s:i, s:o, s:o}", "size", (json_int_t)r->bytes, "count",
                     (json_int_t)r->count, "type", mgpu_collbench_type_name(r->dtype), "redop", op_name(r->op), "root",
                     r->root, "out_of_place", half_json(&r->oop), "in_place", half_json(&r->ip));
}

mgpu_result mgpu_collbench_row_read(json_t *j, mgpu_collbench_row *r)
{
    json_t *h[2] = {json_object_get(j, "out_of_place"), json_object_get(j, "in_place")};
    mgpu_collbench_half *dst[2] = {&r->oop, &r->ip};
    json_int_t size = -1, count = -1;
    const char *type = NULL, *op = NULL;
    if (json_unpack(j, "{s:I, s:I, s:s, s:s, s:i}", "size", &size, "count", &count, "type", &type, "redop", &op,
                    "root", &r->root) != 0 || size < 0 || count < 0)
        return mgpu_fail(MGPU_ERR_INVALID, "bench: a malformed result row");
    r->bytes = (uint64_t)size;
    r->count = (uint64_t)count;
    int t = mgpu_dtype_parse(type);
    if (t < 0) return mgpu_fail(MGPU_ERR_INVALID, "bench: a result row of type '%s'", type);
    r->dtype = (mgpu_dtype)t;
    r->op = -1; /* "none": a collective without a reduction */
    for (int i = 0; i < MGPU_REDOP_COUNT; i++)
        if (strcmp(op, mgpu_redop_name((mgpu_redop)i)) == 0) r->op = i;
    for (int k = 0; k < 2; k++) {
        json_t *w = json_object_get(h[k], "nwrong");
        if (!json_is_object(h[k]) || !json_is_number(json_object_get(h[k], "time")))
            return mgpu_fail(MGPU_ERR_INVALID, "bench: a result row without its times");
        dst[k]->time_us = json_number_value(json_object_get(h[k], "time"));
        dst[k]->algbw = json_number_value(json_object_get(h[k], "alg_bw"));
        dst[k]->busbw = json_number_value(json_object_get(h[k], "bus_bw"));
        dst[k]->wrong = json_is_integer(w) ? (int64_t)json_integer_value(w) : -1;
    }
    return MGPU_OK;
}

/*--- The result document -------------------------------------------------------*/

void mgpu_collbench_result_init(mgpu_collbench_result *res, const mgpu_collbench_coll *coll,
                                const mgpu_collbench_options *o, const char *version)
{
    memset(res, 0, sizeof *res);
    res->rows = json_array();
    res->doc = json_pack("{s:s}", "tool", "mgpulab bench");
    if (version) json_object_set_new(res->doc, "version", json_string(version));
    json_object_set_new(res->doc, "collective", json_string(coll->name));
    json_object_set_new(res->doc, "options", mgpu_collbench_params_json(coll, o));
}

void mgpu_collbench_result_devices(mgpu_collbench_result *res, json_t *devices)
{
    if (json_is_object(devices)) json_object_set(res->doc, "devices", devices);
}

mgpu_result mgpu_collbench_result_add(mgpu_collbench_result *res, json_t *body, mgpu_collbench_row *row)
{
    mgpu_collbench_row scratch;
    mgpu_collbench_row *r = row ? row : &scratch;
    if (mgpu_collbench_row_read(body, r) != MGPU_OK) {
        res->wrong_checks++;
        return MGPU_ERR_INVALID;
    }
    res->wrong_checks += (r->oop.wrong > 0) + (r->ip.wrong > 0);
    res->bw_sum += r->oop.busbw + r->ip.busbw;
    res->bw_count += 2;
    json_array_append(res->rows, body);
    return MGPU_OK;
}

double mgpu_collbench_result_avg(const mgpu_collbench_result *res)
{
    return res->bw_count ? res->bw_sum / (double)res->bw_count : 0;
}

json_t *mgpu_collbench_result_finish(mgpu_collbench_result *res, const mgpu_rt_report *rep)
{
    json_t *doc = res->doc;
    json_object_set_new(doc, "rows", res->rows);
    json_object_set_new(doc, "avg_bus_bw", json_real(mgpu_collbench_result_avg(res)));
    json_object_set_new(doc, "wrong_checks", json_integer((json_int_t)res->wrong_checks));
    json_object_set_new(doc, "report", json_pack("{s:b, s:i, s:s, s:s, s:f}", "ok", rep->ok, "failed_rank",
                                                 rep->failed_rank, "reason", rep->reason, "analysis", rep->analysis,
                                                 "wall_s", rep->wall_s));
    res->doc = res->rows = NULL;
    return doc;
}

void mgpu_collbench_result_free(mgpu_collbench_result *res)
{
    json_decref(res->rows);
    json_decref(res->doc);
    res->doc = res->rows = NULL;
}
