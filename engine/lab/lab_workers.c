/* lab_workers.c - how the `lab` object runs rank workers: which backend,
 * ranks and launcher a call gets, one mgpu_rt_run per engine call (captured
 * output, cancellation, the Lua budget restarted afterwards), and worker
 * messages turned into the step's events and collected for the caller. */
#include "lab/lab_object.h"
#include "mgpu/jobs.h"
#include "mgpu/lua_mgpu.h"
#include "mgpu/topo.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*--- Which backend, how many ranks, which launcher -------------------------*/

mgpu_result lab_run_backend(lab_run *run)
{
    if (run->backend_known) return MGPU_OK;
    const mgpu_backend_config *bc = &run->env->backend;
    if (bc->kind == MGPU_BACKEND_CUDA && (bc->machine || bc->fault))
        return mgpu_fail(MGPU_ERR_INVALID, "--machine and --fault describe a simulated machine; use them with "
                                           "--backend sim (the cuda backend uses the real one)");
    int hosts = 0, per_host = 0, total = 0;
    MGPU_CHECK(mgpu_rt_sim_layout(bc, &hosts, &per_host, &total));
    run->simulated = total > 0;
    /* cuda: the driver's GPU list (no CUDA call in this process) */
    run->gpus = run->simulated ? total : mgpu_rt_default_ranks(MGPU_LAUNCH_LOCAL, 0);
    snprintf(run->machine, sizeof run->machine, "%s", run->simulated ? (bc->machine ? bc->machine : "dgx-h100") : "");
    run->backend_known = 1;
    return MGPU_OK;
}

void lab_run_free(lab_run *run)
{
    json_decref(run->topo_doc);
    run->topo_doc = NULL;
    json_decref(run->whatif_topo_doc);
    run->whatif_topo_doc = NULL;
    run->whatif_topo_machine[0] = '\0';
    json_decref(run->measurements);
    run->measurements = NULL;
    json_decref(run->races);
    run->races = NULL;
}

void lab_pick_target(lua_State *L, lab_run *run, const char *what, const char *preset, lab_target *t)
{
    memset(t, 0, sizeof *t);
    if (lab_run_backend(run) != MGPU_OK) mgpu_lua_raise_engine(L, what);
    if (!preset) {
        t->backend = run->env->backend;
        t->simulated = run->simulated;
        t->gpus = run->gpus;
        snprintf(t->machine, sizeof t->machine, "%s", run->machine);
        return;
    }
    /* a preset name only: a lab names machines every learner has, never a
     * file of its own machine */
    const char *const *names = mgpu_topo_preset_names();
    int known = 0;
    char list[256] = "";
    for (int i = 0; names[i]; i++) {
        known |= strcmp(names[i], preset) == 0;
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names[i]);
    }
    if (!known) luaL_error(L, "%s: opts.machine '%s' is not a sim preset; the presets: %s", what, preset, list);
    snprintf(t->machine, sizeof t->machine, "%s", preset);
    t->backend = (mgpu_backend_config){.kind = MGPU_BACKEND_SIM, .machine = t->machine,
                                       .alloc_conf = run->env->backend.alloc_conf};
    int hosts = 0, per_host = 0;
    if (mgpu_rt_sim_layout(&t->backend, &hosts, &per_host, &t->gpus) != MGPU_OK) mgpu_lua_raise_engine(L, what);
    t->simulated = 1;
    t->whatif = 1;
}

/* ranks: the user's --ranks, else the call's, else the lab's. */
int lab_pick_ranks(lab_run *run, int call_ranks)
{
    if (run->env->ranks > 0) return run->env->ranks;
    return call_ranks > 0 ? call_ranks : run->lab->info.ranks;
}

int lab_target_ranks(lab_run *run, const lab_target *t, int call_ranks)
{
    if (!t->whatif) return lab_pick_ranks(run, call_ranks);
    return call_ranks > 0 ? call_ranks : run->lab->info.ranks;
}

/* The user's --launcher, except the default "local"; then emulate when a
 * real machine has fewer GPUs than ranks (two ranks on one GPU cannot
 * share it as two NCCL ranks of one node). */
const char *lab_pick_launcher(lab_run *run, int ranks, const char *call_launcher)
{
    if (call_launcher) return call_launcher;
    const char *l = run->env->launcher;
    if (l && strcmp(l, "local") != 0) return l;
    return !run->simulated && ranks > run->gpus ? "emulate" : "local";
}

const char *lab_target_launcher(lab_run *run, const lab_target *t, int ranks, const char *call_launcher)
{
    if (!t->whatif) return lab_pick_launcher(run, ranks, call_launcher);
    return call_launcher ? call_launcher : "local";
}

void lab_push_target_fields(lua_State *L, const lab_target *t)
{
    if (t->simulated) {
        lua_pushstring(L, t->machine);
        lua_setfield(L, -2, "machine");
    }
    lua_pushboolean(L, t->simulated);
    lua_setfield(L, -2, "simulated");
    lua_pushinteger(L, t->gpus);
    lua_setfield(L, -2, "gpus");
    lua_pushboolean(L, t->whatif);
    lua_setfield(L, -2, "whatif");
}

void lab_push_backend(lua_State *L, lab_run *run)
{
    lua_createtable(L, 0, 8);
    char why[256];
    if (lab_run_backend(run) != MGPU_OK) {
        /* never raise here: this runs outside the protected call */
        lua_pushstring(L, "unknown");
        lua_setfield(L, -2, "kind");
        lua_pushstring(L, mgpu_error_message());
        lua_setfield(L, -2, "why");
        return;
    }
    int ranks = lab_pick_ranks(run, 0);
    const char *launcher = lab_pick_launcher(run, ranks, NULL);
    int emulated = strcmp(launcher, "emulate") == 0;
    if (run->simulated)
        snprintf(why, sizeof why, "SIMULATED machine %s: %d GPU%s, %d rank%s", run->machine, run->gpus,
                 run->gpus == 1 ? "" : "s", ranks, ranks == 1 ? "" : "s");
    else if (emulated)
        snprintf(why, sizeof why, "%d GPU%s, %d ranks: emulated nodes over NCCL's socket transport; bandwidth is "
                 "the socket's, not NVLink's", run->gpus, run->gpus == 1 ? "" : "s", ranks);
    else snprintf(why, sizeof why, "%d GPU%s, %d rank%s", run->gpus, run->gpus == 1 ? "" : "s", ranks, ranks == 1 ? "" : "s");
    lua_pushstring(L, run->simulated ? "sim" : "cuda");
    lua_setfield(L, -2, "kind");
    lua_pushboolean(L, run->simulated);
    lua_setfield(L, -2, "simulated");
    if (run->simulated) {
        lua_pushstring(L, run->machine);
        lua_setfield(L, -2, "machine");
        /* the run's --fault (the user's or the class configuration's): a
         * lab that hides a fault (12) takes this one instead of drawing */
        const char *fault = run->env->backend.fault;
        if (fault && *fault) {
            lua_pushstring(L, fault);
            lua_setfield(L, -2, "fault");
        }
    }
    lua_pushinteger(L, run->gpus);
    lua_setfield(L, -2, "gpus");
    lua_pushstring(L, launcher);
    lua_setfield(L, -2, "launcher");
    lua_pushinteger(L, ranks);
    lua_setfield(L, -2, "ranks");
    lua_pushboolean(L, emulated);
    lua_setfield(L, -2, "emulated");
    lua_pushstring(L, why);
    lua_setfield(L, -2, "why");
}

/*--- Messages from the workers --------------------------------------------*/

#define ROW_FIXED_BYTES (1u << 20) /* a row's fixed cost, as bytes moved: ~ what 1 MiB costs */

double lab_bench_row_weight(uint64_t bytes) { return (double)bytes + (double)ROW_FIXED_BYTES; }


static void on_msg(void *ctx, const mgpu_rt_msg *m)
{
    lab_collect *c = ctx;
    const mgpu_lab_events *ev = &c->run->env->events;
    int spmd = strcmp(c->kind, "spmd") == 0;
    if (strcmp(m->type, "log") == 0) {
        const char *text = json_string_value(json_object_get(m->body, "text"));
        if (!text) text = json_string_value(json_object_get(m->body, "message"));
        const char *line = json_string_value(json_object_get(m->body, "line")); /* captured stdout/stderr */
        if (!text) text = line;
        if (!text) return;
        if (line && strstr(line, "NCCL ")) {
            if (!c->nccl && (c->nccl = malloc(sizeof *c->nccl)) != NULL) mgpu_nccl_summary_init(c->nccl);
            if (c->nccl) mgpu_nccl_summary_feed(c->nccl, line);
        }
        if (spmd) mgpu_log_keep_add(&c->kept, m->rank, text);
        if (ev->log) ev->log(ev->ctx, m->rank, text);
    } else if (strcmp(m->type, "span") == 0) {
        if (!ev->span) return;
        json_t *s = json_deep_copy(m->body);
        if (json_is_object(s) && !json_object_get(s, "rank")) json_object_set_new(s, "rank", json_integer(m->rank));
        if (json_is_object(s) && c->run_index > 0) { /* the step's run it belongs to */
            json_object_set_new(s, "run", json_integer(c->run_index));
            json_object_set_new(s, "run_label", json_string(c->run_label));
        }
        ev->span(ev->ctx, s);
        json_decref(s);
    } else if (spmd && mgpu_spmd_result_add(&c->spmd, m)) {
        if (strcmp(m->type, "race") != 0) return;
        /* the log pane shows a race as it happens */
        const char *text = json_string_value(json_object_get(m->body, "text"));
        char line[1024];
        snprintf(line, sizeof line, "RACE: %s", text ? text : "?");
        if (ev->log) ev->log(ev->ctx, m->rank, line);
    } else if (strcmp(m->type, "result") == 0) {
        if (m->rank == 0) {
            json_array_append(c->results, m->body);
            json_t *size = json_object_get(m->body, "size");
            uint64_t bytes = json_is_integer(size) ? (uint64_t)json_integer_value(size) : 0;
            c->weight_done += lab_bench_row_weight(bytes);
            /* "bench: 128 MiB done": where the sweep stands, beside the bar */
            char sz[32], what[64];
            if (bytes >= (1u << 20)) snprintf(sz, sizeof sz, "%llu MiB", (unsigned long long)(bytes >> 20));
            else if (bytes >= 1024) snprintf(sz, sizeof sz, "%llu KiB", (unsigned long long)(bytes >> 10));
            else snprintf(sz, sizeof sz, "%llu B", (unsigned long long)bytes);
            snprintf(what, sizeof what, "%s: %s done", c->kind, sz);
            /* The row itself, as it completes: a sweep's table comes when the
             * sweep ends (lab 2's first run: 9 s on a busy 2-core machine),
             * and the learner should see results from the first second */
            if (ev->log && strcmp(c->kind, "bench") == 0) {
                json_t *oop = json_object_get(m->body, "out_of_place"), *nw = json_object_get(oop, "nwrong");
                const char *type = json_string_value(json_object_get(m->body, "type"));
                char line[256], wrong[32];
                if (json_is_integer(nw)) snprintf(wrong, sizeof wrong, "%lld", (long long)json_integer_value(nw));
                else snprintf(wrong, sizeof wrong, "-");
                snprintf(line, sizeof line, "%s row %zu/%ld: %s %s, %.2f us, algbw %.2f GB/s, busbw %.2f GB/s, #wrong %s",
                         c->kind, json_array_size(c->results), c->expected_rows, sz, type ? type : "?",
                         json_number_value(json_object_get(oop, "time")), json_number_value(json_object_get(oop, "alg_bw")),
                         json_number_value(json_object_get(oop, "bus_bw")), wrong);
                ev->log(ev->ctx, -1, line);
            }
            if (ev->progress && c->weight_total > 0)
                ev->progress(ev->ctx, c->weight_done < c->weight_total ? c->weight_done / c->weight_total : 1.0, what);
            else if (ev->progress && c->expected_rows > 0)
                ev->progress(ev->ctx, (double)json_array_size(c->results) / (double)c->expected_rows, c->kind);
        }
    } else if (spmd && strcmp(m->type, "flight") == 0 && c->flights) {
        /* a failed run's flight records, for a lab that teaches reading them */
        const char *dump = json_string_value(json_object_get(m->body, "dump"));
        json_t *d = dump ? json_loads(dump, 0, NULL) : NULL;
        char k[16];
        snprintf(k, sizeof k, "%d", m->rank);
        if (d) json_object_set_new(c->flights, k, d);
    } else if (m->rank == 0 && strcmp(m->type, "devices") == 0) {
        json_decref(c->devices);
        c->devices = json_incref(m->body);
    } else if (m->rank == 0 && strcmp(m->type, "summary") == 0) {
        json_decref(c->summary);
        c->summary = json_incref(m->body);
    } else if (m->rank == 0 && strcmp(m->type, "progress") == 0 && ev->progress) {
        const char *tc = json_string_value(json_object_get(m->body, "testcase"));
        if (tc) ev->progress(ev->ctx, -1, tc);
    }
}

json_t *lab_collect_nccl_json(const lab_collect *c)
{
    return c->nccl && c->nccl->nccl_lines > 0 ? mgpu_nccl_summary_json(c->nccl) : NULL;
}

void lab_collect_free(lab_collect *c)
{
    free(c->nccl);
    c->nccl = NULL;
    json_decref(c->devices);
    json_decref(c->summary);
    json_decref(c->results);
    json_decref(c->logs);
    mgpu_log_keep_free(&c->kept);
    mgpu_spmd_result_free(&c->spmd);
    json_decref(c->flights);
}

/* "K=V" strings: the environment's (telemetry) and the call's opts.env. */
static char **build_env(lua_State *L, lab_run *run, int opts)
{
    int n = 0;
    for (const char *const *e = run->env->extra_env; e && *e; e++) n++;
    int extra = 0;
    if (opts && lua_istable(L, opts)) {
        lua_getfield(L, opts, "env");
        if (lua_istable(L, -1)) {
            lua_pushnil(L);
            while (lua_next(L, -2)) {
                extra++;
                lua_pop(L, 1);
            }
        } else if (!lua_isnil(L, -1)) {
            luaL_error(L, "opts.env must be a table {NAME = value}");
        }
        lua_pop(L, 1);
    }
    char **env = calloc((size_t)(n + extra + 2), sizeof *env);
    if (!env) luaL_error(L, "out of memory");
    int k = 0;
    for (const char *const *e = run->env->extra_env; e && *e; e++) env[k++] = strdup(*e);
    if (extra) {
        lua_getfield(L, opts, "env");
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            const char *name = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
            int ok = name && *name && !isdigit((unsigned char)*name);
            for (const char *p = name; ok && *p; p++) ok = isalnum((unsigned char)*p) || *p == '_';
            if (!ok || (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER)) {
                for (int i = 0; i < k; i++) free(env[i]);
                free(env);
                luaL_error(L, "opts.env: '%s' is not NAME = string or number", name ? name : "?");
            }
            size_t len = strlen(name) + lua_rawlen(L, -1) + 2;
            char *kv = malloc(len + 32);
            if (kv) snprintf(kv, len + 32, "%s=%s", name, lua_tostring(L, -1));
            env[k++] = kv;
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    return env;
}

static void free_env(char **env)
{
    for (int i = 0; env && env[i]; i++) free(env[i]);
    free(env);
}

const char *lab_opt_string(lua_State *L, int opts, const char *k)
{
    if (!opts || !lua_istable(L, opts)) return NULL;
    lua_getfield(L, opts, k);
    const char *s = lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER ? lua_tostring(L, -1) : NULL;
    lua_pop(L, 1); /* the table keeps the string alive */
    return s;
}

int lab_opt_int(lua_State *L, int opts, const char *k, int dflt)
{
    if (!opts || !lua_istable(L, opts)) return dflt;
    lua_getfield(L, opts, k);
    int isnum = 0;
    lua_Integer v = lua_tointegerx(L, -1, &isnum);
    int nil = lua_isnil(L, -1);
    lua_pop(L, 1);
    if (nil) return dflt;
    if (!isnum || v < 0 || v > 1 << 30) luaL_error(L, "opts.%s must be a non-negative integer", k);
    return (int)v;
}

/* Run a job and wait; raises a Lua error when it could not start or was
 * cancelled. The budget restarts afterwards (run.c explains why). */
void lab_run_job(lua_State *L, lab_run *run, const lab_target *t, const char *what, const char *job, json_t *params,
                 int ranks, const char *launcher, int opts, double timeout_s, lab_collect *c, mgpu_rt_report *rep)
{
    lab_check_cancel(L, run);
    /* a what-if's workers open its sim preset: the machine reaches them
     * in the job's backend description, as --machine does */
    int simulated = t ? t->simulated : run->simulated;
    /* captured output: NCCL's INFO lines reach the log pane as "log"
     * messages, never the shell's terminal */
    mgpu_rt_config cfg = {.jobs = mgpu_jobs, .ranks = ranks, .backend = t ? t->backend : run->env->backend,
                          .timeout_s = timeout_s > 0 ? timeout_s : run->env->timeout_s,
                          .cancel = run->env->cancel, .capture_output = 1,
                          .ranks_per_host = lab_opt_int(L, opts, "per_node", 0)};
    /* opts.fault: a sim fault for this call only, added to --fault (a lab
     * compares GPUDirect RDMA on and off in one step) */
    char fault[256];
    const char *extra_fault = lab_opt_string(L, opts, "fault");
    if (extra_fault && *extra_fault) {
        if (!simulated) {
            json_decref(params);
            lab_collect_free(c);
            luaL_error(L, "%s: opts.fault ('%s') describes a simulated machine; on the cuda backend use NCCL's own "
                          "variables in opts.env (NCCL_P2P_DISABLE, NCCL_NET_GDR_LEVEL)", what, extra_fault);
        }
        const char *base = cfg.backend.fault;
        snprintf(fault, sizeof fault, "%s%s%s", base && *base ? base : "", base && *base ? "," : "", extra_fault);
        cfg.backend.fault = fault;
    }
    if (mgpu_launcher_parse(launcher, &cfg.launcher) != MGPU_OK) {
        json_decref(params);
        lab_collect_free(c);
        mgpu_lua_raise_engine(L, what);
    }
    char **env = build_env(L, run, opts);
    cfg.extra_env = (const char *const *)env;
    memset(rep, 0, sizeof *rep);
    mgpu_lua_hold_budget(mgpu_lua_from_state(L)); /* the workers have their own timeout */
    mgpu_result r = mgpu_rt_run(&cfg, job, params, on_msg, c, rep);
    free_env(env);
    json_decref(params);
    mgpu_lua_restart_budget(mgpu_lua_from_state(L));
    if (r != MGPU_OK) {
        lab_collect_free(c);
        mgpu_lua_raise_engine(L, what);
    }
    if (run->env->cancel && *run->env->cancel) {
        lab_collect_free(c);
        lab_check_cancel(L, run);
    }
}

/* A failed bench/copy/topo run is a lab error; spmd reports instead. */
void lab_raise_failed(lua_State *L, const char *what, const mgpu_rt_report *rep, lab_collect *c)
{
    char msg[1200];
    snprintf(msg, sizeof msg, "%s: the run failed: %s%s%s", what, rep->reason[0] ? rep->reason : "(no reason given)",
             rep->analysis[0] ? "; flight recorder: " : "", rep->analysis);
    lab_collect_free(c);
    lua_pushstring(L, msg);
    lua_error(L);
}
