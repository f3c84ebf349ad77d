/* lab_aux.c - the helpers every file of the `lab` object uses (the run a
 * call belongs to, the cancel check, JSON to Lua); they call into none of
 * those files. lab_object.c pushes the object. */
#include "lab/lab_object.h"

lab_run *lab_run_of(lua_State *L) { return lua_touserdata(L, lua_upvalueindex(1)); }

void lab_check_cancel(lua_State *L, lab_run *run)
{
    if (run->cancelled || (run->env->cancel && *run->env->cancel)) {
        run->cancelled = 1;
        luaL_error(L, "cancelled by the user");
    }
}

void lab_push_json(lua_State *L, json_t *j)
{
    luaL_checkstack(L, 4, "JSON nested too deeply");
    switch (json_typeof(j)) {
    case JSON_OBJECT: {
        lua_createtable(L, 0, (int)json_object_size(j));
        const char *k;
        json_t *v;
        json_object_foreach(j, k, v) {
            lab_push_json(L, v);
            lua_setfield(L, -2, k);
        }
        break;
    }
    case JSON_ARRAY: {
        lua_createtable(L, (int)json_array_size(j), 0);
        for (size_t i = 0; i < json_array_size(j); i++) {
            lab_push_json(L, json_array_get(j, i));
            lua_seti(L, -2, (lua_Integer)i + 1);
        }
        break;
    }
    case JSON_STRING: lua_pushlstring(L, json_string_value(j), json_string_length(j)); break;
    case JSON_INTEGER: lua_pushinteger(L, (lua_Integer)json_integer_value(j)); break;
    case JSON_REAL: lua_pushnumber(L, json_real_value(j)); break;
    case JSON_TRUE: lua_pushboolean(L, 1); break;
    case JSON_FALSE: lua_pushboolean(L, 0); break;
    default: lua_pushnil(L); break;
    }
}
