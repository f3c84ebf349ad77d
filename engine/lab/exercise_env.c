/* exercise_env.c - the environment a learner's exercise runs in (lab.load).
 *
 * An exercise is the learner's code, loaded into the lab's sandbox so that a
 * step's check can call what it returns. Run in the lab's own globals it
 * could replace `checks.near` (or string.format, which the checks use) and
 * make its own check pass. So each loaded exercise gets a fresh global
 * table: its own globals stay its own, and `checks` and the standard
 * libraries are read-only views - reading works as before, writing raises
 * "checks.near belongs to the lab". `load` inside the exercise defaults to
 * the same fresh table, `_G` names it, and getmetatable("") (a path to the
 * string library itself) gives nothing. */
#include "lab/lab_internal.h"
#include <lauxlib.h>

#define ENV_KEY "mgpu.exercise_env"

static const char env_maker[] =
    "local G = ...\n"
    "local setmetatable, getmetatable, error, tostring, next, type, select = "
    "  setmetatable, getmetatable, error, tostring, next, type, select\n"
    "local load0 = G.load\n"
    "local function frozen(t, name)\n"
    "  return setmetatable({}, {\n"
    "    __index = t,\n"
    "    __newindex = function(_, k) error(name .. '.' .. tostring(k) ..\n"
    "      ' belongs to the lab: an exercise can read it but not change it', 2) end,\n"
    "    __pairs = function() return next, t, nil end,\n"
    "    __len = function() return #t end,\n"
    "    __metatable = false,\n"
    "  })\n"
    "end\n"
    "local shared = {}\n"
    "for _, name in ipairs{'checks', 'string', 'table', 'math', 'utf8', 'coroutine', 'os'} do\n"
    "  if type(G[name]) == 'table' then shared[name] = frozen(G[name], name) end\n"
    "end\n"
    "return function()\n"
    "  local env = {}\n"
    "  env._G = env\n"
    "  env.load = function(chunk, name, mode, e)\n"
    "    if select('#', chunk, name, mode, e) < 4 or e == nil then e = env end\n"
    "    return load0(chunk, name, mode, e)\n"
    "  end\n"
    "  env.getmetatable = function(o)\n"
    "    if type(o) == 'string' then return nil end\n"
    "    return getmetatable(o)\n"
    "  end\n"
    "  return setmetatable(env, {\n"
    "    __index = function(_, k) local v = shared[k]; if v ~= nil then return v end; return G[k] end,\n"
    "    __metatable = false,\n"
    "  })\n"
    "end\n";

mgpu_result lab_exercise_env_install(mgpu_lua *sb)
{
    lua_State *L = mgpu_lua_state(sb);
    MGPU_CHECK(mgpu_lua_load(sb, env_maker, sizeof env_maker - 1, "=exercise_env"));
    lua_pushglobaltable(L);
    MGPU_CHECK(mgpu_lua_pcall(sb, 1, 1));
    lua_setfield(L, LUA_REGISTRYINDEX, ENV_KEY);
    return MGPU_OK;
}

void lab_exercise_env_apply(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, ENV_KEY);
    if (lua_type(L, -1) != LUA_TFUNCTION) {
        lua_pop(L, 1);
        luaL_error(L, "lab.load: the exercise sandbox was not set up");
    }
    lua_call(L, 0, 1);
    /* a main chunk's first (and only) upvalue is its _ENV */
    if (!lua_setupvalue(L, -2, 1)) lua_pop(L, 1);
}
