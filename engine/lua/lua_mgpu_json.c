/* lua_mgpu_json.c - Lua values as JSON, for the result rows a script sends
 * to the coordinator (mgpu.result{...} and returned tables). */
#include "lua/lua_mgpu_internal.h"
#include <math.h>
#include <string.h>
#include <stdio.h>

#define MAX_DEPTH 32

/* 1..n with no other keys: a Lua sequence, sent as an array. */
static int is_sequence(lua_State *L, int idx, lua_Integer *n)
{
    lua_Integer count = 0, max = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1) {
            lua_pop(L, 1);
            return 0;
        }
        lua_Integer k = lua_tointeger(L, -1);
        if (k > max) max = k;
        count++;
    }
    *n = count;
    return count > 0 && max == count;
}

static mgpu_result convert(lua_State *L, int idx, int depth, json_t **out);

static mgpu_result convert_table(lua_State *L, int idx, int depth, json_t **out)
{
    /* a cycle would recurse forever: the depth limit also catches it */
    if (depth >= MAX_DEPTH)
        return mgpu_fail(MGPU_ERR_INVALID, "result tables nest deeper than %d levels (a table that contains "
                                           "itself?)", MAX_DEPTH);
    if (!lua_checkstack(L, 4)) return mgpu_fail(MGPU_ERR_NOMEM, "result: Lua stack exhausted");
    lua_Integer n = 0;
    if (is_sequence(L, idx, &n)) {
        json_t *arr = json_array();
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, idx, i);
            json_t *v = NULL;
            mgpu_result r = convert(L, lua_gettop(L), depth + 1, &v);
            lua_pop(L, 1);
            if (r != MGPU_OK) {
                json_decref(arr);
                return r;
            }
            json_array_append_new(arr, v);
        }
        *out = arr;
        return MGPU_OK;
    }
    json_t *obj = json_object();
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        char key[64];
        const char *k;
        if (lua_type(L, -2) == LUA_TSTRING) k = lua_tostring(L, -2);
        else if (lua_isinteger(L, -2)) {
            snprintf(key, sizeof key, "%lld", (long long)lua_tointeger(L, -2));
            k = key;
        } else {
            const char *type = luaL_typename(L, -2);
            json_decref(obj);
            return mgpu_fail(MGPU_ERR_INVALID, "result: a table key of type %s cannot be sent (use strings)",
                             type); /* the caller resets the stack */
        }
        json_t *v = NULL;
        mgpu_result r = convert(L, lua_gettop(L), depth + 1, &v);
        if (r != MGPU_OK) {
            json_decref(obj);
            return r; /* the caller resets the stack */
        }
        json_object_set_new(obj, k, v);
        lua_pop(L, 1);
    }
    *out = obj;
    return MGPU_OK;
}

static mgpu_result convert(lua_State *L, int idx, int depth, json_t **out)
{
    switch (lua_type(L, idx)) {
    case LUA_TNIL: *out = json_null(); return MGPU_OK;
    case LUA_TBOOLEAN: *out = json_boolean(lua_toboolean(L, idx)); return MGPU_OK;
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) *out = json_integer((json_int_t)lua_tointeger(L, idx));
        else {
            double d = lua_tonumber(L, idx);
            *out = isfinite(d) ? json_real(d) : json_null(); /* JSON has no NaN or inf */
        }
        return MGPU_OK;
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, idx, &len);
        if (memchr(s, '\0', len))
            return mgpu_fail(MGPU_ERR_INVALID, "result: a string holds a NUL byte; send text, or numbers for data");
        *out = json_stringn(s, len);
        return *out ? MGPU_OK : mgpu_fail(MGPU_ERR_INVALID, "result: strings sent to the coordinator must be UTF-8");
    }
    case LUA_TTABLE: return convert_table(L, idx, depth, out);
    case LUA_TUSERDATA:
        if (lm_is_tensor(L, idx)) { /* its description: a tensor's data stays on the rank */
            luaL_tolstring(L, idx, NULL);
            *out = json_string(lua_tostring(L, -1));
            lua_pop(L, 1);
            return MGPU_OK;
        }
        /* fall through */
    default:
        return mgpu_fail(MGPU_ERR_INVALID, "result: a %s value cannot be sent to the coordinator",
                         luaL_typename(L, idx));
    }
}

mgpu_result mgpu_lua_to_json(lua_State *L, int idx, json_t **out)
{
    *out = NULL;
    int top = lua_gettop(L);
    mgpu_result r = convert(L, lua_absindex(L, idx), 0, out);
    lua_settop(L, top);
    return r;
}
