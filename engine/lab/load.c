/* load.c - load one lab: its own sandbox with the `checks` library, lab.lua
 * run as text, the returned table checked for shape and kept for runs. */
#include "lab/lab_internal.h"
#include "mgpu/env.h"
#include "mgpu/file.h"
#include <lauxlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void lab_entry_free(lab_entry *e)
{
    if (e->sb) mgpu_lua_close(e->sb);
    lab_lang_free(e);
    for (int i = 0; i < e->info.nsteps; i++) {
        free((void *)e->steps[i].hints);
        free(e->questions ? e->questions[i] : NULL);
    }
    free(e->questions);
    free(e->steps);
    for (int i = 0; i < e->nstrings; i++) free(e->strings[i]);
    free(e->strings);
    memset(e, 0, sizeof *e);
}

/* print() in a lab goes to the running step's log, else nowhere (loading). */
static void lab_print(void *ctx, const char *text, size_t len)
{
    lab_entry *e = ctx;
    if (e->run && e->run->env && e->run->env->events.log) {
        char *line = strndup(text, len);
        if (line) e->run->env->events.log(e->run->env->events.ctx, -1, line);
        free(line);
    }
}

/* checks._asked(): the question whose answer the running step's check read
 * last (lab.answer), or nil. checks.equals / checks.close with `answer =
 * true` tag their verdict with it, so a report can count each question's
 * right and wrong answers (the check is built right after it reads the
 * answer it judges). */
static int l_asked(lua_State *L)
{
    lab_entry *e = lua_touserdata(L, lua_upvalueindex(1));
    if (e && e->run && e->run->last_question) lua_pushstring(L, e->run->last_question);
    else lua_pushnil(L);
    return 1;
}

/* Merge every checks file's table into the global `checks`. */
static mgpu_result load_checks(mgpu_lab_catalog *cat, lab_entry *e, mgpu_lua *sb)
{
    lua_State *L = mgpu_lua_state(sb);
    lua_newtable(L);
    for (size_t off = 0; off < cat->checks_len;) {
        const char *name = cat->checks_text + off;
        const char *text = name + strlen(name) + 1;
        off = (size_t)(text - cat->checks_text) + strlen(text) + 1;
        char chunk[PATH_MAX + 16];
        snprintf(chunk, sizeof chunk, "@checks/%s", name);
        if (mgpu_lua_run(sb, text, strlen(text), chunk, 1) != MGPU_OK) continue; /* reported at catalog open */
        if (lua_istable(L, -1)) {
            lua_pushnil(L);
            while (lua_next(L, -2)) {
                lua_pushvalue(L, -2);
                lua_insert(L, -2);
                lua_settable(L, -5);
            }
        }
        lua_pop(L, 1);
    }
    lua_pushlightuserdata(L, e);
    lua_pushcclosure(L, l_asked, 1);
    lua_setfield(L, -2, "_asked");
    lua_setglobal(L, "checks");
    return MGPU_OK;
}

static const char *field_str(lua_State *L, int t, const char *k)
{
    lua_getfield(L, t, k);
    const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    lua_pop(L, 1); /* the string stays alive: the table holds it */
    return s;
}

typedef struct shape_err {
    char msg[512];
} shape_err;

static int shape_fail(shape_err *se, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int shape_fail(shape_err *se, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(se->msg, sizeof se->msg, fmt, ap);
    va_end(ap);
    return -1;
}

/* An optional list of strings at t[k]; returns count or -1. */
static int string_list(lua_State *L, int t, const char *k, lab_entry *e, const char ***out, shape_err *se,
                       const char *where)
{
    lua_getfield(L, t, k);
    int n = 0;
    *out = NULL;
    if (lua_isnil(L, -1)) goto done;
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        return shape_fail(se, "%s: `%s` must be a list of strings", where, k);
    }
    n = (int)luaL_len(L, -1);
    *out = calloc((size_t)n + 1, sizeof **out);
    for (int i = 1; i <= n && *out; i++) {
        lua_geti(L, -1, i);
        if (lua_type(L, -1) != LUA_TSTRING) {
            lua_pop(L, 2);
            return shape_fail(se, "%s: %s[%d] is not a string", where, k, i);
        }
        (*out)[i - 1] = lab_keep(e, lua_tostring(L, -1));
        lua_pop(L, 1);
    }
done:
    lua_pop(L, 1);
    return n;
}

static int is_fn_or_nil(lua_State *L, int t, const char *k, int *has)
{
    lua_getfield(L, t, k);
    int ty = lua_type(L, -1);
    lua_pop(L, 1);
    *has = ty == LUA_TFUNCTION;
    return ty == LUA_TFUNCTION || ty == LUA_TNIL;
}

static int file_exists(const char *p) { return access(p, R_OK) == 0; }

/* A file the step names must stay inside the lab (no link out of it, no
 * FIFO or device): a shape error otherwise. */
static int own_file(const lab_entry *e, const char *path, const char *where, const char *what, shape_err *se)
{
    char w[96];
    snprintf(w, sizeof w, "%s: its %s", where, what);
    if (lab_own_file(e, path, w) == MGPU_OK) return 0;
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", mgpu_error_message());
    mgpu_error_clear();
    return shape_fail(se, "%s", msg);
}

/* One step table at the top of the stack into e->steps[i]; `seen` is the
 * stack index of a table of the ids read so far (id -> step number), so the
 * uniqueness check is one hash lookup per step whatever the lab's size. */
static int read_step(lua_State *L, lab_entry *e, int i, int seen, shape_err *se)
{
    int t = lua_gettop(L);
    mgpu_lab_step_info *s = &e->steps[i];
    char where[64], path[PATH_MAX * 2];
    snprintf(where, sizeof where, "step %d", i + 1);
    if (!lua_istable(L, t)) return shape_fail(se, "%s is not a table", where);
    const char *id = field_str(L, t, "id"), *title = field_str(L, t, "title");
    if (!id || !*id) return shape_fail(se, "%s has no `id` (a short name such as \"sweep\")", where);
    if (!title || !*title) return shape_fail(se, "%s (%s) has no `title`", where, id);
    if (lua_getfield(L, seen, id) != LUA_TNIL)
        return shape_fail(se, "steps %d and %d share the id \"%s\"", (int)lua_tointeger(L, -1), i + 1, id);
    lua_pop(L, 1);
    lua_pushinteger(L, i + 1);
    lua_setfield(L, seen, id);
    s->id = lab_keep(e, id);
    s->title = lab_keep(e, title);
    snprintf(where, sizeof where, "step %d (%s)", i + 1, id);
    const char *text = field_str(L, t, "text"), *ex = field_str(L, t, "exercise");
    if (text) {
        if (!mgpu_file_relpath_inside(text)) return shape_fail(se, "%s: text \"%s\" must be a path inside the lab", where, text);
        snprintf(path, sizeof path, "%s/%s", e->info.dir, text);
        if (!file_exists(path)) return shape_fail(se, "%s: its text %s does not exist", where, path);
        if (own_file(e, path, where, "text", se)) return -1;
        s->text_path = lab_keep(e, path);
    }
    if (ex) {
        if (!mgpu_file_relpath_inside(ex)) return shape_fail(se, "%s: exercise \"%s\" must be a file name", where, ex);
        snprintf(path, sizeof path, "%s/exercises/%s", e->info.dir, ex);
        if (!file_exists(path)) return shape_fail(se, "%s: its exercise %s does not exist", where, path);
        if (own_file(e, path, where, "exercise", se)) return -1;
        s->exercise_src = lab_keep(e, path);
        snprintf(path, sizeof path, "%s/solutions/%s", e->info.dir, ex);
        if (file_exists(path) && own_file(e, path, where, "solution", se)) return -1;
        s->solution = file_exists(path) ? lab_keep(e, path) : NULL;
        snprintf(path, sizeof path, "%s/%s", e->info.workspace, ex);
        s->exercise = lab_keep(e, path);
    }
    const char **hints = NULL;
    int nh = string_list(L, t, "hints", e, &hints, se, where);
    if (nh < 0) return -1;
    s->hints = hints;
    s->nhints = nh;
    if (!is_fn_or_nil(L, t, "run", &s->has_run)) return shape_fail(se, "%s: `run` must be a function", where);
    if (!is_fn_or_nil(L, t, "check", &s->has_check)) return shape_fail(se, "%s: `check` must be a function", where);
    lua_getfield(L, t, "questions");
    if (!lua_isnil(L, -1)) {
        if (!lua_istable(L, -1)) return shape_fail(se, "%s: `questions` must be a list of {id=, ask=}", where);
        int nq = (int)luaL_len(L, -1);
        e->questions[i] = calloc((size_t)nq + 1, sizeof **e->questions);
        for (int q = 1; q <= nq; q++) {
            lua_geti(L, -1, q);
            const char *qid = lua_istable(L, -1) ? field_str(L, lua_gettop(L), "id") : NULL;
            const char *ask = lua_istable(L, -1) ? field_str(L, lua_gettop(L), "ask") : NULL;
            if (!qid || !ask) return shape_fail(se, "%s: question %d needs `id` and `ask` strings", where, q);
            e->questions[i][q - 1].id = lab_keep(e, qid);
            e->questions[i][q - 1].ask = lab_keep(e, ask);
            lua_pop(L, 1);
        }
        s->nquestions = nq;
        s->questions = e->questions[i];
    }
    lua_pop(L, 1);
    return 0;
}

/* The returned table at the top of the stack into e->info and e->steps. */
static int read_lab(lua_State *L, lab_entry *e, shape_err *se)
{
    int t = lua_gettop(L);
    if (!lua_istable(L, t)) return shape_fail(se, "lab.lua must return a table of steps, not a %s", luaL_typename(L, t));
    const char *title = field_str(L, t, "title");
    if (!title) return shape_fail(se, "lab.lua: the table has no `title`");
    e->info.title = lab_keep(e, title);
    e->info.summary = lab_keep(e, field_str(L, t, "summary"));
    e->info.backends = lab_keep(e, field_str(L, t, "backends"));
    /* checked before it is narrowed: a cast read ranks = 2^32 + 2 as 2 */
    lua_getfield(L, t, "ranks");
    lua_Integer ranks = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : lua_isnil(L, -1) ? 1 : -1;
    if (ranks < 1 || ranks > 4096) {
        if (lua_isinteger(L, -1))
            return shape_fail(se, "lab.lua: `ranks` must be an integer 1..4096, got %lld", (long long)ranks);
        return shape_fail(se, "lab.lua: `ranks` must be an integer 1..4096, got %s",
                          lua_type(L, -1) == LUA_TNUMBER ? "a number with a fraction" : luaL_typename(L, -1));
    }
    lua_pop(L, 1);
    e->info.ranks = (int)ranks;
    lua_newtable(L); /* t + 1: the ids seen (read_step) */
    lua_getfield(L, t, "steps"); /* t + 2 */
    if (!lua_istable(L, -1) || lua_rawlen(L, -1) < 1)
        return shape_fail(se, "lab.lua: `steps` must be a non-empty list of step tables");
    /* The raw length: a __len metamethod cannot claim more steps than the
     * table holds, and the table itself is bounded by the lab's Lua memory.
     * Every per-step check is constant time, so no cap on the count. */
    lua_Unsigned nl = lua_rawlen(L, -1);
    if (nl > (lua_Unsigned)INT_MAX / 2) return shape_fail(se, "lab.lua: %llu steps are too many", (unsigned long long)nl);
    int n = (int)nl;
    e->steps = calloc((size_t)n, sizeof *e->steps);
    e->questions = calloc((size_t)n, sizeof *e->questions);
    if (!e->steps || !e->questions) return shape_fail(se, "out of memory");
    e->info.nsteps = n;
    for (int i = 0; i < n; i++) {
        lua_geti(L, -1, i + 1);
        if (read_step(L, e, i, t + 1, se) != 0) return -1;
        lua_settop(L, t + 2);
    }
    lua_pop(L, 2);
    return 0;
}

static void set_error(lab_entry *e, const char *msg, const char *tb)
{
    char buf[8192];
    snprintf(buf, sizeof buf, "%s%s%s", msg, tb && *tb ? "\n" : "", tb ? tb : "");
    e->info.load_error = lab_keep(e, buf);
    /* a broken lab shows no steps, and owns no sandbox */
    lab_lang_free(e);
    for (int i = 0; i < e->info.nsteps; i++) {
        free((void *)e->steps[i].hints);
        free(e->questions[i]);
    }
    free(e->steps);
    free(e->questions);
    e->steps = NULL;
    e->questions = NULL;
    e->info.nsteps = 0;
    if (e->sb) mgpu_lua_close(e->sb);
    e->sb = NULL;
}

mgpu_result lab_load(mgpu_lab_catalog *cat, lab_entry *e)
{
    char path[PATH_MAX * 2], chunk[PATH_MAX];
    snprintf(path, sizeof path, "%s/lab.lua", e->info.dir);
    snprintf(chunk, sizeof chunk, "@labs/%s/lab.lua", e->info.id);
    char *text = NULL;
    size_t len = 0;
    if (lab_own_file(e, path, "lab.lua") != MGPU_OK || lab_read_file(path, &text, &len) != MGPU_OK) {
        set_error(e, mgpu_error_message(), NULL);
        return MGPU_OK;
    }
    mgpu_lua_config lc = {.mem_limit = LAB_MEM_LIMIT, .time_limit_s = LAB_LOAD_BUDGET_S, .cpu_time = 1, .print = lab_print,
                          .print_ctx = e};
    MGPU_CHECK(mgpu_lua_open(&lc, &e->sb));
    load_checks(cat, e, e->sb);
    if (lab_exercise_env_install(e->sb) != MGPU_OK) {
        free(text);
        set_error(e, mgpu_error_message(), NULL);
        return MGPU_OK;
    }
    char lerr[1200];
    if (lab_lang_install(e, lerr, sizeof lerr) != 0) {
        free(text);
        set_error(e, lerr, NULL);
        return MGPU_OK;
    }
    lua_State *L = mgpu_lua_state(e->sb);
    if (mgpu_lua_run(e->sb, text, len, chunk, 1) != MGPU_OK) {
        free(text);
        set_error(e, mgpu_lua_error_message(e->sb), mgpu_lua_error_traceback(e->sb));
        return MGPU_OK;
    }
    free(text);
    shape_err se = {""};
    int top = lua_gettop(L);
    if (read_lab(L, e, &se) != 0) {
        char msg[600];
        /* the shape messages begin "lab.lua: "; the path says it already */
        const char *m = strncmp(se.msg, "lab.lua: ", 9) == 0 ? se.msg + 9 : se.msg;
        snprintf(msg, sizeof msg, "labs/%s/lab.lua: %s", e->info.id, m);
        set_error(e, msg, NULL);
        return MGPU_OK;
    }
    lua_settop(L, top);
    if (lab_lang_statics(e, lerr, sizeof lerr) != 0) {
        set_error(e, lerr, NULL);
        return MGPU_OK;
    }
    e->lab_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    /* MGPU_LAB_STEP_BUDGET_S replaces the budget: a test hook, so the test
     * labs' endless loop (tests/data/labs/04-errors) spins for a second or
     * two, not ten, in each run of it (docs/lab-authoring.md) */
    double budget = mgpu_env_seconds("MGPU_LAB_STEP_BUDGET_S", 600);
    mgpu_lua_set_time_limit(e->sb, budget > 0 ? budget : LAB_STEP_BUDGET_S);
    return MGPU_OK;
}
