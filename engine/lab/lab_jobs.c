/* lab_jobs.c - the `lab` calls that measure or discover: lab.bench,
 * lab.topo, lab.topo_xml, lab.copy, each one job on rank workers (the
 * process running the lab never opens CUDA); results come back as the
 * documents `mgpulab bench/topo/copy --json` print. lab.spmd is in
 * lab_spmd.c, the machinery in lab_workers.c. */
#include "lab/lab_object.h"
#include "mgpu/lua_mgpu.h"
#include "mgpu/coll_doc.h"
#include "mgpu/jobs.h"
#include "mgpu/size.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*--- lab.bench ---------------------------------------------------------------*/

/* lab.bench's opts: nccl-tests' flags that take a value (their values
 * checked by the same setter as `mgpulab bench`'s) and what lab_run_job
 * reads. Any other key is refused: a typo ("B", "minbytes") must not run
 * the default sweep in silence. */
static const char bench_flags[] = "befinwcodrza";
static const char *const bench_run_keys[] = {"ranks", "launcher", "per_node", "env", "fault", NULL};
#define BENCH_KEYS "b, e, f, i, n, w, c, o, d, r, z, a (nccl-tests' flags), ranks, launcher, per_node, env or fault"

/* opts into the run's options, each value set as it is met; an error names
 * the key, the value and what is allowed. Then the one check of the whole
 * (mgpu_collbench_options_check), as the CLI runs it. */
static void bench_options(lua_State *L, int opts, const mgpu_collbench_coll *coll, mgpu_collbench_options *o)
{
    mgpu_collbench_options_default(o);
    if (opts) lua_pushnil(L);
    while (opts && lua_next(L, opts)) {
        if (lua_type(L, -2) != LUA_TSTRING) {
            const char *type = luaL_typename(L, -2);
            const char *key = luaL_tolstring(L, -2, NULL); /* pushes a copy: the key itself stays unchanged */
            luaL_error(L, "lab.bench: opts has a %s key (%s); opts are named fields: %s", type, key, BENCH_KEYS);
        }
        const char *k = lua_tostring(L, -2);
        if (k[0] && !k[1] && strchr(bench_flags, k[0])) {
            if (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER)
                luaL_error(L, "lab.bench: opts.%s is a %s; give nccl-tests' -%s value as a string or a number "
                              "(e.g. \"256M\", 8)", k, luaL_typename(L, -1), k);
            char as[16];
            snprintf(as, sizeof as, "opts.%s", k);
            if (mgpu_collbench_set(o, k[0], lua_tostring(L, -1), as) != MGPU_OK) mgpu_lua_raise_engine(L, "lab.bench");
        } else {
            int known = 0;
            for (int i = 0; bench_run_keys[i] && !known; i++) known = strcmp(k, bench_run_keys[i]) == 0;
            if (!known) luaL_error(L, "lab.bench: opts.%s is not an option of lab.bench; use %s", k, BENCH_KEYS);
        }
        lua_pop(L, 1); /* the value; the key stays for lua_next */
    }
    /* its words are nccl-tests' flags, -b for opts.b */
    if (mgpu_collbench_options_check(o, coll) != MGPU_OK)
        luaL_error(L, "lab.bench: the sweep of opts.b, e, f, i: %s", mgpu_error_message());
}

/* The sweep's rows and their weights, for the progress bar. */
static void bench_expect(const mgpu_collbench_options *o, lab_collect *c)
{
    long sizes = 0;
    for (uint64_t s = o->min_bytes; s <= o->max_bytes && sizes < 100000; s = mgpu_collbench_next_size(o, s)) {
        sizes++;
        c->weight_total += lab_bench_row_weight(s) * o->ndtypes * o->nops;
        if (mgpu_collbench_next_size(o, s) <= s) break;
    }
    c->expected_rows = sizes * o->ndtypes * o->nops;
}

int lab_l_bench(lua_State *L)
{
    lab_run *run = lab_run_of(L);
    const char *coll_name = luaL_checkstring(L, 1);
    int opts = lua_istable(L, 2) ? 2 : 0;
    if (!opts && !lua_isnoneornil(L, 2)) return luaL_error(L, "lab.bench(coll, opts): opts must be a table");
    const mgpu_collbench_coll *coll = NULL;
    if (mgpu_collbench_lookup(coll_name, &coll) != MGPU_OK) return mgpu_lua_raise_engine(L, "lab.bench");
    mgpu_collbench_options o;
    bench_options(L, opts, coll, &o);
    if (lab_run_backend(run) != MGPU_OK) return mgpu_lua_raise_engine(L, "lab.bench");
    int ranks = lab_pick_ranks(run, lab_opt_int(L, opts, "ranks", 0));
    const char *launcher = lab_pick_launcher(run, ranks, lab_opt_string(L, opts, "launcher"));
    lab_collect c = {.run = run, .kind = "bench", .results = json_array()};
    bench_expect(&o, &c);
    mgpu_rt_report rep;
    lab_run_job(L, run, NULL, "lab.bench", "bench", mgpu_collbench_params_json(coll, &o), ranks, launcher, opts, 0, &c, &rep);
    if (!rep.ok) lab_raise_failed(L, "lab.bench", &rep, &c);
    /* the document `mgpulab bench --json` prints, and where it ran */
    mgpu_collbench_result res;
    mgpu_collbench_result_init(&res, coll, &o, NULL);
    mgpu_collbench_result_devices(&res, c.devices);
    for (size_t i = 0; i < json_array_size(c.results); i++) mgpu_collbench_result_add(&res, json_array_get(c.results, i), NULL);
    json_t *doc = mgpu_collbench_result_finish(&res, &rep);
    json_object_set_new(doc, "ranks", json_integer(ranks));
    json_object_set_new(doc, "launcher", json_string(launcher));
    json_t *nccl = lab_collect_nccl_json(&c);
    if (nccl) json_object_set_new(doc, "nccl", nccl);
    lab_collect_free(&c);
    if (run->env->events.result) run->env->events.result(run->env->events.ctx, "bench", doc);
    lab_push_json(L, doc);
    json_decref(doc);
    return 1;
}

/*--- lab.topo, lab.topo_xml -----------------------------------------------------*/

json_t *lab_topo_doc(lua_State *L, lab_run *run, const lab_target *t)
{
    int whatif = t && t->whatif;
    if (!whatif && run->topo_doc) return run->topo_doc;
    if (whatif && run->whatif_topo_doc && strcmp(run->whatif_topo_machine, t->machine) == 0) return run->whatif_topo_doc;
    lab_collect c = {.run = run, .kind = "topo", .results = json_array()};
    mgpu_rt_report rep;
    lab_run_job(L, run, whatif ? t : NULL, "lab.topo", "topo", json_pack("{s:b}", "peer", 1), 1, "local", 0, 0, &c,
                &rep);
    if (!rep.ok) lab_raise_failed(L, "lab.topo", &rep, &c);
    json_t *doc = json_array_get(c.results, 0);
    if (!json_is_object(doc)) {
        lab_collect_free(&c);
        luaL_error(L, "lab.topo: the topo job sent no document");
    }
    if (mgpu_topo_doc_expand(doc) != MGPU_OK) { /* the job's packed rows */
        lab_collect_free(&c);
        luaL_error(L, "lab.topo: %s", mgpu_error_message());
    }
    json_incref(doc);
    lab_collect_free(&c);
    if (whatif) {
        /* the shell's topology pane stays this machine's: a what-if's
         * document is the step's to show */
        json_decref(run->whatif_topo_doc);
        run->whatif_topo_doc = doc;
        snprintf(run->whatif_topo_machine, sizeof run->whatif_topo_machine, "%s", t->machine);
        return doc;
    }
    run->topo_doc = doc;
    if (run->env->events.result) run->env->events.result(run->env->events.ctx, "topo", run->topo_doc);
    return run->topo_doc;
}

/* The topology with a fault of this call (opts.fault, as lab.bench's): a
 * step that hides a fault from the learner (lab 12) shows the machine with
 * it. Never cached, never the shell's topology pane (that stays the
 * machine's); the caller owns the document. */
static json_t *topo_doc_with_fault(lua_State *L, lab_run *run, const lab_target *t, int opts)
{
    if (lab_run_backend(run) != MGPU_OK) mgpu_lua_raise_engine(L, "lab.topo");
    lab_collect c = {.run = run, .kind = "topo", .results = json_array()};
    mgpu_rt_report rep;
    lab_run_job(L, run, t && t->whatif ? t : NULL, "lab.topo", "topo", json_pack("{s:b}", "peer", 1), 1, "local", opts,
                0, &c, &rep);
    if (!rep.ok) lab_raise_failed(L, "lab.topo", &rep, &c);
    json_t *doc = json_array_get(c.results, 0);
    if (!json_is_object(doc) || mgpu_topo_doc_expand(doc) != MGPU_OK) {
        lab_collect_free(&c);
        luaL_error(L, "lab.topo: the topo job sent no document");
    }
    json_incref(doc);
    lab_collect_free(&c);
    return doc;
}

/* lab.topo(opts), lab.topo_xml(opts): opts.machine a what-if preset, as
 * lab.spmd's; opts.fault a sim fault for this call. Returns a reference. */
static json_t *topo_doc_of_call(lua_State *L, const char *what)
{
    lab_run *run = lab_run_of(L);
    int opts = lua_istable(L, 1) ? 1 : 0;
    if (!opts && !lua_isnoneornil(L, 1)) luaL_error(L, "%s(opts): opts must be a table", what);
    lab_target t;
    lab_pick_target(L, run, what, lab_opt_string(L, opts, "machine"), &t);
    const char *fault = lab_opt_string(L, opts, "fault");
    if (fault && *fault) return topo_doc_with_fault(L, run, &t, opts);
    return json_incref(lab_topo_doc(L, run, &t));
}

int lab_l_topo(lua_State *L)
{
    json_t *ref = topo_doc_of_call(L, "lab.topo");
    json_t *doc = json_deep_copy(ref);
    json_decref(ref);
    json_object_del(doc, "xml"); /* lab.topo_xml() has it */
    lab_push_json(L, doc);
    json_decref(doc);
    return 1;
}

int lab_l_topo_xml(lua_State *L)
{
    json_t *doc = topo_doc_of_call(L, "lab.topo_xml");
    const char *xml = json_string_value(json_object_get(doc, "xml"));
    if (!xml) {
        json_decref(doc);
        return luaL_error(L, "lab.topo_xml: the topo job sent no XML");
    }
    lua_pushstring(L, xml);
    json_decref(doc);
    return 1;
}

/*--- lab.copy -----------------------------------------------------------------*/

int lab_l_copy(lua_State *L)
{
    lab_run *run = lab_run_of(L);
    const char *tc = luaL_optstring(L, 1, NULL);
    int opts = lua_istable(L, 2) ? 2 : 0;
    json_t *params = json_pack("{s:s?}", "testcase", tc);
    static const char *const nums[] = {"size", "copies", "samples", NULL};
    for (int i = 0; nums[i]; i++) {
        const char *v = lab_opt_string(L, opts, nums[i]);
        uint64_t n = 0;
        if (!v) continue;
        if (mgpu_parse_size(v, nums[i], &n) != MGPU_OK) {
            json_decref(params);
            return mgpu_lua_raise_engine(L, "lab.copy");
        }
        json_object_set_new(params, nums[i], json_integer((json_int_t)n));
    }
    if (lab_run_backend(run) != MGPU_OK) {
        json_decref(params);
        return mgpu_lua_raise_engine(L, "lab.copy");
    }
    lab_collect c = {.run = run, .kind = "copy", .results = json_array()};
    mgpu_rt_report rep;
    /* one rank: the copy bench drives every GPU of its host itself */
    lab_run_job(L, run, NULL, "lab.copy", "copy", params, 1, "local", opts, 0, &c, &rep);
    if (!rep.ok) lab_raise_failed(L, "lab.copy", &rep, &c);
    json_t *doc = json_is_object(c.devices) ? json_deep_copy(c.devices) : json_object();
    json_object_set(doc, "testcases", c.results);
    if (c.summary) json_object_set(doc, "failed", json_object_get(c.summary, "failed"));
    lab_collect_free(&c);
    if (run->env->events.result) run->env->events.result(run->env->events.ctx, "copy", doc);
    lab_push_json(L, doc);
    json_decref(doc);
    return 1;
}
