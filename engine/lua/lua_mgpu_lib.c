/* lua_mgpu_lib.c - mgpu.import(name): the sandbox's module loader for the
 * Lua library shipped with the labs (labs/lib: the `nn` models). It is not
 * `require`: names are dotted lower-case words ("nn", "nn.resnet") that map
 * to <labs>/lib/nn/init.lua and <labs>/lib/nn/resnet.lua, nothing outside
 * that directory can be named, the file runs as sandboxed source text, and
 * each module runs once per state (later imports return the same table). */
#include "lua/lua_mgpu_internal.h"
#include "mgpu/dirs.h"
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIB_CACHE_KEY "mgpu.lib.loaded"
#define LIB_MAX_BYTES ((long)1 << 20)

/* The library directory: $MGPULAB_LIB, else <labs>/lib. */
static int lib_dir(char *out, size_t len)
{
    const char *env = getenv("MGPULAB_LIB");
    if (env && *env) {
        snprintf(out, len, "%s", env);
        return 1;
    }
    char labs[PATH_MAX], checks[PATH_MAX];
    if (mgpu_lab_default_dirs(labs, sizeof labs, checks, sizeof checks) != MGPU_OK) return 0;
    snprintf(out, len, "%.*s/lib", (int)(len > 8 ? len - 8 : 0), labs);
    return 1;
}

/* Only [a-z0-9_] words joined by single dots. */
static int valid_name(const char *s)
{
    if (!*s || *s == '.') return 0;
    for (const char *p = s; *p; p++) {
        if (*p == '.') {
            if (p[1] == '.' || p[1] == '\0') return 0;
        } else if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_')) {
            return 0;
        }
    }
    return 1;
}

/* The file's text (malloc'd) or NULL. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 0 && n <= LIB_MAX_BYTES && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1))) {
            *len = fread(buf, 1, (size_t)n, f);
            buf[*len] = '\0';
        }
    }
    fclose(f);
    return buf;
}

/* mgpu.import(name) -> the module's value */
static int l_import(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    if (!valid_name(name))
        return luaL_error(L, "mgpu.import: '%s' is not a library module name (lower-case words joined by dots, "
                             "as \"nn\" or \"nn.resnet\")", name);
    lua_getfield(L, LUA_REGISTRYINDEX, LIB_CACHE_KEY);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, LIB_CACHE_KEY);
    }
    int cache = lua_gettop(L);
    lua_getfield(L, cache, name);
    if (!lua_isnil(L, -1)) {
        if (lua_toboolean(L, -1) && lua_type(L, -1) == LUA_TBOOLEAN)
            return luaL_error(L, "mgpu.import: '%s' imports itself (a cycle of imports)", name);
        return 1;
    }
    lua_pop(L, 1);

    char dir[PATH_MAX], rel[256], path[PATH_MAX + 300];
    if (!lib_dir(dir, sizeof dir)) return luaL_error(L, "mgpu.import: the labs directory (and its lib/) was not found");
    snprintf(rel, sizeof rel, "%s", name);
    for (char *p = rel; *p; p++)
        if (*p == '.') *p = '/';
    size_t len = 0;
    snprintf(path, sizeof path, "%s/%s.lua", dir, rel);
    char *text = slurp(path, &len);
    if (!text) {
        snprintf(path, sizeof path, "%s/%s/init.lua", dir, rel);
        text = slurp(path, &len);
    }
    if (!text) return luaL_error(L, "mgpu.import: no module '%s' in the library (looked for %s/%s.lua and %s/%s/init.lua)",
                                 name, dir, rel, dir, rel);
    char chunk[300];
    snprintf(chunk, sizeof chunk, "@lib/%s%s", rel, strstr(path, "/init.lua") ? "/init.lua" : ".lua");
    mgpu_lua *sb = mgpu_lua_from_state(L);
    mgpu_result r = mgpu_lua_load(sb, text, len, chunk);
    free(text);
    if (r != MGPU_OK) return luaL_error(L, "mgpu.import: %s", mgpu_lua_error_message(sb));
    lua_pushboolean(L, 1); /* loading: a cycle finds this */
    lua_setfield(L, cache, name);
    lua_pushstring(L, name);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) { /* forget the half-loaded module, then raise its error */
        lua_pushnil(L);
        lua_setfield(L, cache, name);
        return lua_error(L);
    }
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushboolean(L, 0); /* a module without a value: import returns false, as require gives true */
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, cache, name);
    return 1;
}

void lm_open_lib(lua_State *L)
{
    lua_getglobal(L, "mgpu");
    lua_pushcfunction(L, l_import);
    lua_setfield(L, -2, "import");
    lua_pop(L, 1);
}
