/* lua_strict.c - strict globals for one chunk (see lua_sandbox.h): the
 * globals table gets an __index that raises when the chunk reads a name
 * that was never defined, naming the option key the line gives it
 * ("seed = rnk") and a defined name close to it. */
#include "mgpu/lua_sandbox.h"
#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#define MAX_NAME 64

/* Edit distance of two short names, capped: used only for "did you mean". */
static int distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la >= MAX_NAME || lb >= MAX_NAME) return 99;
    int row[MAX_NAME + 1];
    for (size_t j = 0; j <= lb; j++) row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best) best = row[j] + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static int is_ident(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

/* Line `n` (1-based) of the source: start and length. */
static int source_line(const char *src, size_t len, int n, const char **start, size_t *out_len)
{
    const char *p = src, *end = src + len;
    for (int i = 1; i < n && p < end; i++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) return 0;
        p = nl + 1;
    }
    if (p >= end) return 0;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    *start = p;
    *out_len = nl ? (size_t)(nl - p) : (size_t)(end - p);
    return 1;
}

/* In `line`, the key of "key = name" (a table field or an assignment),
 * copied to key; 0 when the name is not assigned to a key on this line. */
static int assigned_key(const char *line, size_t len, const char *name, char *key, size_t key_len)
{
    size_t nl = strlen(name);
    for (size_t i = 0; i + nl <= len; i++) {
        if (memcmp(line + i, name, nl) != 0) continue;
        if ((i > 0 && is_ident(line[i - 1])) || (i + nl < len && is_ident(line[i + nl]))) continue;
        size_t j = i;
        while (j > 0 && line[j - 1] == ' ') j--;
        if (j == 0 || line[j - 1] != '=') continue;
        j--; /* the '=' */
        if (j > 0 && strchr("=~<>", line[j - 1])) continue; /* a comparison */
        while (j > 0 && line[j - 1] == ' ') j--;
        size_t e = j;
        while (j > 0 && is_ident(line[j - 1])) j--;
        if (j == e || e - j >= key_len) continue;
        memcpy(key, line + j, e - j);
        key[e - j] = 0;
        return 1;
    }
    return 0;
}

/* The defined name (a global, or a local of the reading function) closest
 * to `name`, within two edits; "" when none. */
static void closest_name(lua_State *L, lua_Debug *ar, const char *name, char *out, size_t out_len)
{
    int best = 3;
    out[0] = 0;
    const char *local;
    for (int i = 1; (local = lua_getlocal(L, ar, i)) != NULL; i++) {
        lua_pop(L, 1);
        int d = local[0] != '(' ? distance(name, local) : 99;
        if (d < best) best = d, snprintf(out, out_len, "%s", local);
    }
    lua_pushnil(L);
    while (lua_next(L, 1)) { /* the globals table */
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) continue;
        int d = distance(name, lua_tostring(L, -1));
        if (d < best) best = d, snprintf(out, out_len, "%s", lua_tostring(L, -1));
    }
}

/* __index(globals, name); upvalues: the chunk's name and its source. */
static int strict_index(lua_State *L)
{
    lua_Debug ar;
    const char *chunk = lua_tostring(L, lua_upvalueindex(1));
    if (lua_type(L, 2) != LUA_TSTRING || !lua_getstack(L, 1, &ar) || !lua_getinfo(L, "Sl", &ar) ||
        strcmp(ar.what, "C") == 0 || strcmp(ar.source, chunk) != 0) {
        lua_pushnil(L);
        return 1;
    }
    const char *name = lua_tostring(L, 2);
    size_t src_len = 0;
    const char *src = lua_tolstring(L, lua_upvalueindex(2), &src_len), *line = NULL;
    size_t line_len = 0;
    char key[MAX_NAME], near[MAX_NAME], hint[MAX_NAME + 32] = "";
    closest_name(L, &ar, name, near, sizeof near);
    if (near[0]) snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
    if (ar.currentline > 0 && source_line(src, src_len, ar.currentline, &line, &line_len) &&
        assigned_key(line, line_len, name, key, sizeof key))
        return luaL_error(L, "'%s' is not defined: `%s = %s` gives %s nil, which would silently mean its default%s",
                          name, key, name, key, hint);
    return luaL_error(L, "'%s' is not defined (a misspelt name reads as nil)%s", name, hint);
}

static int install(lua_State *L)
{
    /* upvalues pushed by the caller: chunk name, source */
    lua_pushcclosure(L, strict_index, 2);
    lua_pushglobaltable(L);
    if (!lua_getmetatable(L, -1)) lua_newtable(L);
    lua_pushvalue(L, -3);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    return 0;
}

mgpu_result mgpu_lua_strict_globals(mgpu_lua *sb, const char *text, size_t len, const char *chunkname)
{
    lua_State *L = mgpu_lua_state(sb);
    lua_pushcfunction(L, install);
    lua_pushstring(L, chunkname);
    lua_pushlstring(L, text, len);
    if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
        lua_pop(L, 1);
        return mgpu_fail(MGPU_ERR_NOMEM, "no memory for the script's strict globals");
    }
    return MGPU_OK;
}
