/* coll_params.c - the "bench" job's parameters from parsed options: what a
 * coordinator (cli/cmd_bench.c, a lab's lab.bench) sends and
 * coll_job.c's read_params reads back. */
#include "mgpu/collbench.h"

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
