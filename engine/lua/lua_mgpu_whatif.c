/* lua_mgpu_whatif.c - mgpu.whatif{...}: one training step of a Llama-shaped
 * model under DP x TP x PP on a cluster, timing-only (mgpu/whatif.h), as a
 * table. Pure arithmetic in this process: no device, no other rank. */
#include <lauxlib.h>
#include <string.h>
#include "lua/lua_mgpu_internal.h"
#include "mgpu/lua_sandbox.h"
#include "mgpu/topo.h"
#include "mgpu/whatif.h"

/* Through lm_opt_int_field, as every other binding's integers: 2^40 said
 * "must be an integer, got 1099511627776.0" here and "is out of range"
 * everywhere else. Every field is a count or a level (the engine says
 * which must be positive). */
static void opt_int(lua_State *L, const char *key, int *v)
{
    *v = lm_opt_int_field(L, 1, key, "mgpu.whatif", *v, 0, LM_INT_HI);
}

/* machine: a preset only. A script may not name a file: the topology
 * parser's errors would tell it what a host file holds (its first line,
 * whether it exists), and a lab names machines every learner has
 * (lab_pick_target holds labs to the same rule). */
static const char *sandboxed_machine(lua_State *L, int idx)
{
    if (lua_type(L, idx) != LUA_TSTRING)
        luaL_error(L, "mgpu.whatif: machine must be a preset name (a string), got %s", luaL_typename(L, idx));
    const char *m = lua_tostring(L, idx);
    const char *const *names = mgpu_topo_preset_names();
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 0; names[i]; i++) {
        if (strcmp(names[i], m) == 0) return m;
        if (i) luaL_addstring(&b, ", ");
        luaL_addstring(&b, names[i]);
    }
    luaL_pushresult(&b);
    if (strchr(m, '/') || strstr(m, ".xml"))
        luaL_error(L, "mgpu.whatif: machine names a file; a script cannot read topology files, only name a sim "
                      "preset: %s", lua_tostring(L, -1));
    int plain = strlen(m) <= 32;
    for (const char *p = m; plain && *p; p++) plain = *p > ' ' && *p < 127;
    luaL_error(L, "mgpu.whatif: machine %s%s%s is not a sim preset; the presets: %s", plain ? "'" : "",
               plain ? m : "(that name)", plain ? "'" : "", lua_tostring(L, -1));
    return NULL;
}

static void set_num(lua_State *L, const char *k, double v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}
static void set_str(lua_State *L, const char *k, const char *v)
{
    lua_pushstring(L, v);
    lua_setfield(L, -2, k);
}

static void push_traffic(lua_State *L, const mgpu_whatif_traffic *t)
{
    lua_createtable(L, 0, 10);
    set_str(L, "axis", t->axis);
    set_num(L, "group", t->group);
    set_str(L, "collective", t->collective);
    set_num(L, "bytes", t->bytes);
    set_num(L, "calls", (double)t->calls);
    set_num(L, "nodes", t->nodes);
    set_str(L, "link", t->link);
    set_str(L, "algo", t->algo);
    set_num(L, "call_us", t->call_us);
    set_num(L, "total_ms", t->total_ms);
}

static int l_whatif(lua_State *L)
{
    static const char *const known[] = {"dp", "tp", "pp", "micro_batches", "micro_batch_size", "global_batch",
                                        "zero", "recompute", "machine", "nodes", "layers", "hidden", "ffn", "heads",
                                        "kv_heads", "vocab", "seq", NULL};
    if (lua_isnoneornil(L, 1)) lua_newtable(L);
    luaL_checktype(L, 1, LUA_TTABLE);
    lm_check_options(L, 1, "mgpu.whatif", known);
    mgpu_whatif_config c;
    mgpu_whatif_defaults(&c);
    opt_int(L, "dp", &c.dp);
    opt_int(L, "tp", &c.tp);
    opt_int(L, "pp", &c.pp);
    opt_int(L, "micro_batches", &c.micro_batches);
    opt_int(L, "micro_batch_size", &c.micro_batch_size);
    opt_int(L, "global_batch", &c.global_batch);
    opt_int(L, "zero", &c.zero);
    opt_int(L, "recompute", &c.recompute);
    opt_int(L, "nodes", &c.nodes);
    opt_int(L, "layers", &c.model.layers);
    opt_int(L, "hidden", &c.model.hidden);
    opt_int(L, "ffn", &c.model.ffn);
    opt_int(L, "heads", &c.model.heads);
    opt_int(L, "kv_heads", &c.model.kv_heads);
    opt_int(L, "vocab", &c.model.vocab);
    opt_int(L, "seq", &c.model.seq);
    lua_getfield(L, 1, "machine");
    if (!lua_isnil(L, -1)) c.machine = sandboxed_machine(L, lua_gettop(L)); /* stays on the stack while we run */
    /* the schedule's memory counts against the script's cap: what the cap
     * leaves is all the what-if may take (10^7 micro-batches took 2 GB
     * under --mem-limit 64M, issue 34) */
    mgpu_lua *sb = mgpu_lua_from_state(L);
    size_t limit = mgpu_lua_mem_limit(sb), used = mgpu_lua_mem_used(sb);
    c.mem_limit = limit > used ? limit - used : 1;
    c.mem_what = "what the script's memory cap leaves; spmd's --mem-limit sets the cap";

    mgpu_whatif_result r;
    if (mgpu_whatif_run(&c, &r) != MGPU_OK) return mgpu_lua_raise_engine(L, "mgpu.whatif");
    lua_createtable(L, 0, 32);
    set_str(L, "machine", r.machine);
    set_str(L, "gpu", r.gpu);
    set_num(L, "dp", c.dp);
    set_num(L, "tp", c.tp);
    set_num(L, "pp", c.pp);
    set_num(L, "world", r.world);
    set_num(L, "nodes", r.nodes);
    set_num(L, "gpus_per_node", r.gpus_per_node);
    set_num(L, "micro_batches", r.micro_batches);
    set_num(L, "params", r.params);
    set_num(L, "step_ms", r.step_ms);
    set_num(L, "pipeline_ms", r.pipeline_ms);
    set_num(L, "dp_ms", r.dp_ms);
    set_num(L, "optimizer_ms", r.optimizer_ms);
    set_num(L, "fwd_ms", r.fwd_ms);
    set_num(L, "bwd_ms", r.bwd_ms);
    set_num(L, "bubble", r.bubble);
    set_num(L, "bubble_ideal", r.bubble_ideal);
    set_num(L, "tokens_per_s", r.tokens_per_s);
    set_num(L, "mfu", r.mfu);
    lua_pushboolean(L, r.fits);
    lua_setfield(L, -2, "fits");
    lua_createtable(L, 0, 10);
    set_num(L, "stage", r.mem.stage);
    set_num(L, "params", r.mem.params);
    set_num(L, "weights", r.mem.weights);
    set_num(L, "grads", r.mem.grads);
    set_num(L, "optimizer", r.mem.optimizer);
    set_num(L, "activations", r.mem.activations);
    set_num(L, "transient", r.mem.transient);
    set_num(L, "total", r.mem.total);
    set_num(L, "inflight", r.mem.inflight);
    set_num(L, "gpu", r.gpu_mem);
    lua_setfield(L, -2, "memory");
    lua_createtable(L, 0, 3);
    static const char *const keys[MGPU_WHATIF_AXES] = {"tp", "pp", "dp"};
    for (int a = 0; a < MGPU_WHATIF_AXES; a++) {
        push_traffic(L, &r.traffic[a]);
        lua_setfield(L, -2, keys[a]);
    }
    lua_setfield(L, -2, "traffic");
    return 1;
}

void lm_open_whatif(lua_State *L)
{
    lua_getglobal(L, "mgpu");
    lua_pushcfunction(L, l_whatif);
    lua_setfield(L, -2, "whatif");
    lua_pop(L, 1);
}
