/* lab_spmd.c - lab.spmd: a learner's or the lab's SPMD script on rank
 * workers (the "spmd" job, docs/spmd.md); a failing script is a result the
 * check judges (ok = false, the rank, the reason), not a lab error. */
#include "lab/lab_object.h"
#include "mgpu/lua_mgpu.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ranks = {[0] = {logs = {...}, results = {...}, error = "...", traceback = "...",
 *                flight = {{comm =, rank =, size =, entries = {{seq =, op =, count =, where =, ...}}}}}, ...};
 * flight is there when the rank sent its flight recorder (a failed run). */
static void push_ranks(lua_State *L, lab_collect *c, int nranks)
{
    lua_createtable(L, 0, nranks);
    for (int r = 0; r < nranks; r++) {
        lua_createtable(L, 0, 4);
        lua_newtable(L);
        for (size_t i = 0, n = 0; i < json_array_size(c->logs); i++) {
            json_t *e = json_array_get(c->logs, i);
            if (json_integer_value(json_object_get(e, "rank")) != r) continue;
            lua_pushstring(L, json_string_value(json_object_get(e, "text")));
            lua_seti(L, -2, (lua_Integer)++n);
        }
        lua_setfield(L, -2, "logs");
        lua_newtable(L);
        for (size_t i = 0, n = 0; i < json_array_size(c->spmd.results); i++) {
            json_t *e = json_array_get(c->spmd.results, i);
            if (json_integer_value(json_object_get(e, "rank")) != r) continue;
            lab_push_json(L, json_object_get(e, "row"));
            lua_seti(L, -2, (lua_Integer)++n);
        }
        lua_setfield(L, -2, "results");
        char k[16];
        snprintf(k, sizeof k, "%d", r);
        json_t *err = mgpu_spmd_result_error(&c->spmd, r);
        if (err) {
            lua_pushstring(L, json_string_value(json_object_get(err, "message")));
            lua_setfield(L, -2, "error");
            lua_pushstring(L, json_string_value(json_object_get(err, "traceback")));
            lua_setfield(L, -2, "traceback");
        }
        json_t *fl = json_object_get(c->flights, k);
        if (fl) {
            lab_push_json(L, fl);
            lua_setfield(L, -2, "flight");
        }
        json_t *rs = json_object_get(c->spmd.race_summary, k);
        if (rs) {
            lab_push_json(L, rs);
            lua_setfield(L, -2, "race");
        }
        lua_seti(L, -2, r);
    }
}

/* The spmd job's params from the script at `path` and opts (args, timeout):
 * the script's text and chunk name, the timeline's spans, the budgets.
 * real gets the resolved path; *timeout the watchdog's (0: the default). */
static json_t *script_params(lua_State *L, lab_run *run, int opts, const char *path, char *real, size_t reallen,
                             double *timeout)
{
    char chunk[PATH_MAX + 2];
    char *text = NULL;
    size_t len = 0;
    if (lab_resolve_path(run->lab, path, real, reallen) != MGPU_OK || lab_read_file(real, &text, &len) != MGPU_OK) {
        mgpu_lua_raise_engine(L, "lab.spmd");
        return NULL;
    }
    const char *base = strrchr(real, '/');
    snprintf(chunk, sizeof chunk, "@%s", base ? base + 1 : real);
    json_t *args = json_array();
    if (opts) {
        lua_getfield(L, opts, "args");
        for (lua_Integer i = 1; lua_istable(L, -1) && i <= luaL_len(L, -1); i++) {
            lua_geti(L, -1, i);
            const char *a = lua_tostring(L, -1);
            json_array_append_new(args, json_string(a ? a : ""));
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    *timeout = 0;
    if (opts) {
        lua_getfield(L, opts, "timeout");
        *timeout = lua_isnumber(L, -1) ? lua_tonumber(L, -1) : 0;
        lua_pop(L, 1);
    }
    mgpu_spmd_params p = {
        .script = text, .len = len, .chunkname = chunk, .args = args,
        /* the shell's timeline pane shows where the ranks' work ran; without
         * a span listener (headless verify) the events are not worth their cost */
        .spans = run->env->events.span != NULL,
        /* The rank script's budget guards against an endless loop: in CPU
         * time, as a busy machine (ASan, load 25) stretched a healthy
         * script's wall time past it (the default budget too: twice the
         * run's timeout) */
        .time_limit_cpu = 1,
        /* the script's budget outlasts the watchdog: a hung collective is
         * ended by the watchdog, with its flight records, while a script
         * that polls in a loop (lab 8's async mode) would otherwise be
         * stopped by its budget at the same moment */
        .time_limit_s = *timeout > 0 ? 2 * *timeout : 0,
    };
    json_t *params = mgpu_spmd_params_json(&p);
    free(text);
    json_decref(args);
    if (!params) luaL_error(L, "lab.spmd: %s is not UTF-8 text", path);
    return params;
}

/* opts.fingerprint: the fingerprint check is the workers' MGPU_FINGERPRINT
 * (docs/spmd.md), set in opts.env (made when there is none). */
static void fingerprint_env(lua_State *L, int opts)
{
    if (!opts) return;
    lua_getfield(L, opts, "fingerprint");
    int fp = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (!fp) return;
    lua_getfield(L, opts, "env");
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, opts, "env");
    }
    lua_pushstring(L, "1");
    lua_setfield(L, -2, "MGPU_FINGERPRINT");
    lua_pop(L, 1);
}

/* The run for a result listener (the shell): the document `mgpulab spmd
 * --json` writes (mgpu/spmd_doc.h). */
static void send_result(lab_run *run, const lab_target *t, const char *path, lab_collect *c, const mgpu_rt_report *rep,
                        int ranks)
{
    if (!run->env->events.result) return;
    json_t *doc = mgpu_spmd_result_doc(&c->spmd, path, c->logs, ranks, rep);
    /* a what-if names its machine wherever the run is shown */
    if (doc && t->whatif) json_object_set_new(doc, "whatif", json_string(t->machine));
    if (doc) run->env->events.result(run->env->events.ctx, "spmd", doc);
    json_decref(doc);
}

/* The result table the check reads: where it ran, ok, failed_rank, reason,
 * analysis, wall_s, ranks, races, nccl. */
static void push_result(lua_State *L, const lab_target *t, lab_collect *c, const mgpu_rt_report *rep, int ranks)
{
    lua_createtable(L, 0, 10);
    lab_push_target_fields(L, t); /* where it ran: a step can say "SIMULATED dgx-h100" */
    lua_pushboolean(L, rep->ok);
    lua_setfield(L, -2, "ok");
    if (!rep->ok) {
        lua_pushinteger(L, rep->failed_rank);
        lua_setfield(L, -2, "failed_rank");
    }
    lua_pushstring(L, rep->reason);
    lua_setfield(L, -2, "reason");
    lua_pushstring(L, rep->analysis);
    lua_setfield(L, -2, "analysis");
    lua_pushnumber(L, rep->wall_s);
    lua_setfield(L, -2, "wall_s");
    push_ranks(L, c, ranks);
    lua_setfield(L, -2, "ranks");
    lab_push_json(L, c->spmd.races);
    lua_setfield(L, -2, "races");
    json_t *nccl = lab_collect_nccl_json(c);
    if (nccl) {
        lab_push_json(L, nccl);
        lua_setfield(L, -2, "nccl");
        json_decref(nccl);
    }
}

int lab_l_spmd(lua_State *L)
{
    lab_run *run = lab_run_of(L);
    const char *path = luaL_checkstring(L, 1);
    int opts = lua_istable(L, 2) ? 2 : 0;
    /* opts.machine: a what-if on that sim preset (before anything is
     * allocated: an unknown preset raises) */
    lab_target t;
    lab_pick_target(L, run, "lab.spmd", lab_opt_string(L, opts, "machine"), &t);
    const char *expect = lab_opt_string(L, opts, "races");
    if (expect && strcmp(expect, "expected") != 0)
        return luaL_error(L, "lab.spmd: races = '%s': the one value is \"expected\"", expect);
    char real[PATH_MAX];
    double timeout = 0;
    json_t *params = script_params(L, run, opts, path, real, sizeof real, &timeout);
    const char *base = strrchr(real, '/');
    int ranks = lab_target_ranks(run, &t, lab_opt_int(L, opts, "ranks", 0));
    const char *launcher = lab_target_launcher(run, &t, ranks, lab_opt_string(L, opts, "launcher"));
    fingerprint_env(L, opts);
    lab_collect c = {.run = run, .kind = "spmd", .flights = json_object()};
    mgpu_spmd_result_init(&c.spmd);
    c.run_index = ++run->spmd_runs;
    snprintf(c.run_label, sizeof c.run_label, "%.80s, %d rank%s%s%.40s", base ? base + 1 : real, ranks, ranks == 1 ? "" : "s",
             t.whatif ? " on " : "", t.whatif ? t.machine : "");
    mgpu_log_keep_init(&c.kept);
    mgpu_rt_report rep;
    lab_run_job(L, run, &t, "lab.spmd", "spmd", params, ranks, launcher, opts, timeout, &c, &rep);
    c.logs = mgpu_log_keep_json(&c.kept);
    /* a race fails the step, unless the step runs this script to show one
     * (opts.races = "expected": lab 9's stale data); either way the check
     * has them in res.races */
    if (!expect && json_array_size(c.spmd.races) > 0) {
        if (!run->races) run->races = json_array();
        json_array_extend(run->races, c.spmd.races);
    }
    send_result(run, &t, path, &c, &rep, ranks);
    push_result(L, &t, &c, &rep, ranks);
    lab_collect_free(&c);
    return 1;
}
