/* lab_jobs.c - the `lab` calls that measure or discover: lab.bench,
 * lab.topo, lab.topo_xml, lab.copy, each one job on rank workers (the
 * process running the lab never opens CUDA); results come back as the
 * documents `mgpulab bench/topo/copy --json` print. lab.spmd is in
 * lab_spmd.c, the machinery in lab_workers.c. */
#include "lab/lab_object.h"
#include "mgpu/lua_mgpu.h"
#include "mgpu/collbench.h"
#include "mgpu/jobs.h"
#include "mgpu/size.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*--- lab.bench ---------------------------------------------------------------*/

int lab_l_bench(lua_State *L)
{
    lab_run *run = lab_run_of(L);
    const char *coll_name = luaL_checkstring(L, 1);
    int opts = lua_istable(L, 2) ? 2 : 0;
    if (!opts && !lua_isnoneornil(L, 2)) return luaL_error(L, "lab.bench(coll, opts): opts must be a table");
    /* nccl-tests' flags through the same parser as `mgpulab bench` */
    static const char *const flags[] = {"b", "e", "f", "i", "n", "w", "c", "o", "d", "r", "z", "a", NULL};
    char *argv[2 + 2 * 12 + 1];
    char flagbuf[12][4];
    int argc = 0;
    argv[argc++] = (char *)"bench";
    argv[argc++] = (char *)coll_name;
    for (int i = 0; flags[i]; i++) {
        const char *v = lab_opt_string(L, opts, flags[i]);
        if (!v) continue;
        snprintf(flagbuf[i], sizeof flagbuf[i], "-%s", flags[i]);
        argv[argc++] = flagbuf[i];
        argv[argc++] = (char *)v;
    }
    argv[argc] = NULL;
    mgpu_collbench_options o;
    const mgpu_collbench_coll *coll = NULL;
    if (mgpu_collbench_parse(argc, argv, &o, &coll) != MGPU_OK) return mgpu_lua_raise_engine(L, "lab.bench");
    if (lab_run_backend(run) != MGPU_OK) return mgpu_lua_raise_engine(L, "lab.bench");
    int ranks = lab_pick_ranks(run, lab_opt_int(L, opts, "ranks", 0));
    const char *launcher = lab_pick_launcher(run, ranks, lab_opt_string(L, opts, "launcher"));
    lab_collect c = {.run = run, .kind = "bench", .results = json_array()};
    long sizes = 0;
    for (uint64_t s = o.min_bytes; s <= o.max_bytes && sizes < 100000; s = mgpu_collbench_next_size(&o, s)) {
        sizes++;
        c.weight_total += lab_bench_row_weight(s) * o.ndtypes * o.nops;
        if (mgpu_collbench_next_size(&o, s) <= s) break;
    }
    c.expected_rows = sizes * o.ndtypes * o.nops;
    mgpu_rt_report rep;
    lab_run_job(L, run, NULL, "lab.bench", "bench", mgpu_collbench_params_json(coll, &o), ranks, launcher, opts, 0, &c, &rep);
    if (!rep.ok) lab_raise_failed(L, "lab.bench", &rep, &c);
    double sum = 0;
    long nbw = 0, wrong = 0;
    for (size_t i = 0; i < json_array_size(c.results); i++) {
        json_t *row = json_array_get(c.results, i);
        static const char *const halves[] = {"out_of_place", "in_place"};
        for (int h = 0; h < 2; h++) {
            json_t *half = json_object_get(row, halves[h]);
            sum += json_number_value(json_object_get(half, "bus_bw"));
            nbw++;
            wrong += json_integer_value(json_object_get(half, "nwrong")) > 0;
        }
    }
    json_t *doc = json_pack("{s:s, s:s, s:o, s:O?, s:O, s:f, s:i, s:o, s:i, s:s, s:o?}", "tool", "mgpulab bench",
                            "collective", coll->name, "options", mgpu_collbench_params_json(coll, &o), "devices",
                            c.devices, "rows", c.results, "avg_bus_bw", nbw ? sum / (double)nbw : 0.0,
                            "wrong_checks", (int)wrong, "report", lab_report_json(&rep), "ranks", ranks, "launcher",
                            launcher, "nccl", lab_collect_nccl_json(&c));
    lab_collect_free(&c);
    if (!doc) return luaL_error(L, "lab.bench: out of memory");
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
