/* spmd_doc.c - the "spmd" job's params and the document of a run
 * (mgpu/spmd_doc.h says their fields). `mgpulab spmd` and lab.spmd each
 * wrote the params and kept the ranks' results, races and errors their own
 * way into the same document; here that is done once. */
#include "mgpu/spmd_doc.h"
#include <stdio.h>
#include <string.h>

#define MAX_ARGS 4096

/*--- Params ------------------------------------------------------------------*/

json_t *mgpu_spmd_params_json(const mgpu_spmd_params *p)
{
    json_t *params = json_pack("{s:s%, s:s, s:o}", "script", p->script, p->len, "chunkname",
                               p->chunkname ? p->chunkname : "=script", "args",
                               p->args ? json_incref(p->args) : json_array());
    if (!params) {
        mgpu_fail(MGPU_ERR_INVALID, "the script is not UTF-8 text");
        return NULL;
    }
    if (p->time_limit_s > 0) json_object_set_new(params, "time_limit_s", json_real(p->time_limit_s));
    if (p->time_limit_cpu) json_object_set_new(params, "time_limit_cpu", json_true());
    if (p->mem_limit) json_object_set_new(params, "mem_limit", json_integer((json_int_t)p->mem_limit));
    if (p->spans) json_object_set_new(params, "spans", json_true());
    if (p->race_off) json_object_set_new(params, "race", json_false());
    return params;
}

mgpu_result mgpu_spmd_params_read(json_t *params, mgpu_spmd_params *p)
{
    memset(p, 0, sizeof *p);
    json_t *script = json_object_get(params, "script");
    if (!json_is_string(script)) return mgpu_fail(MGPU_ERR_INVALID, "spmd job: params need \"script\" (the Lua source text)");
    p->script = json_string_value(script);
    p->len = json_string_length(script);
    const char *chunk = json_string_value(json_object_get(params, "chunkname"));
    p->chunkname = chunk && *chunk ? chunk : "=script";
    json_t *args = json_object_get(params, "args");
    size_t nargs = json_is_array(args) ? json_array_size(args) : 0;
    if (nargs > MAX_ARGS) return mgpu_fail(MGPU_ERR_INVALID, "spmd job: %zu script arguments is too many", nargs);
    for (size_t i = 0; i < nargs; i++)
        if (!json_is_string(json_array_get(args, i)))
            return mgpu_fail(MGPU_ERR_INVALID, "spmd job: argument %zu is not a string", i + 1);
    p->args = nargs ? args : NULL;
    json_t *jt = json_object_get(params, "time_limit_s"), *jm = json_object_get(params, "mem_limit");
    p->time_limit_s = json_is_number(jt) && json_number_value(jt) > 0 ? json_number_value(jt) : 0;
    p->time_limit_cpu = json_is_true(json_object_get(params, "time_limit_cpu"));
    p->mem_limit = json_is_integer(jm) && json_integer_value(jm) > 0 ? (uint64_t)json_integer_value(jm) : 0;
    p->spans = json_is_true(json_object_get(params, "spans"));
    p->race_off = json_is_false(json_object_get(params, "race"));
    return MGPU_OK;
}

/*--- What the coordinator keeps -----------------------------------------------*/

void mgpu_spmd_result_init(mgpu_spmd_result *r)
{
    memset(r, 0, sizeof *r);
    r->results = json_array();
    r->errors = json_object();
    r->races = json_array();
    r->race_summary = json_object();
}

static void rank_key(int rank, char *k, size_t len) { snprintf(k, len, "%d", rank); }

int mgpu_spmd_result_add(mgpu_spmd_result *r, const mgpu_rt_msg *m)
{
    char k[16];
    rank_key(m->rank, k, sizeof k);
    if (strcmp(m->type, "result") == 0) {
        json_array_append_new(r->results, json_pack("{s:i, s:O}", "rank", m->rank, "row", m->body));
    } else if (strcmp(m->type, "race") == 0) {
        json_t *row = json_deep_copy(m->body);
        json_object_set_new(row, "rank", json_integer(m->rank));
        json_array_append_new(r->races, row);
    } else if (strcmp(m->type, "race_summary") == 0) {
        r->racing += (long)json_integer_value(json_object_get(m->body, "races"));
        json_object_set(r->race_summary, k, m->body);
    } else if (strcmp(m->type, "spmd_error") == 0) {
        json_object_set(r->errors, k, m->body);
    } else {
        return 0;
    }
    return 1;
}

json_t *mgpu_spmd_result_error(const mgpu_spmd_result *r, int rank)
{
    char k[16];
    rank_key(rank, k, sizeof k);
    return json_object_get(r->errors, k);
}

json_t *mgpu_spmd_result_doc(const mgpu_spmd_result *r, const char *script, json_t *logs, int nranks,
                             const mgpu_rt_report *rep)
{
    json_t *errs = json_array();
    for (int k = 0; k < nranks; k++) {
        json_t *e = mgpu_spmd_result_error(r, k);
        if (e) json_array_append_new(errs, json_pack("{s:i, s:O}", "rank", k, "error", e));
    }
    return json_pack("{s:s, s:s, s:O, s:O, s:o, s:O, s:O, s:b, s:o, s:s, s:s, s:f}", "tool", "mgpulab spmd", "script",
                     script, "logs", logs ? logs : json_null(), "results", r->results, "errors", errs, "races",
                     r->races, "race_summary", r->race_summary, "ok", rep->ok, "failed_rank",
                     rep->ok ? json_null() : json_integer(rep->failed_rank), "reason", rep->reason, "analysis",
                     rep->analysis, "wall_s", rep->wall_s);
}

void mgpu_spmd_result_free(mgpu_spmd_result *r)
{
    json_decref(r->results);
    json_decref(r->errors);
    json_decref(r->races);
    json_decref(r->race_summary);
    memset(r, 0, sizeof *r);
}
