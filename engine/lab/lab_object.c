/* lab_object.c - the `lab` object a step's run and check receive: files of the
 * lab and workspace, answers, recorded measurements, log/progress/table
 * output, and pushing the object. The calls that run rank workers are in
 * lab_jobs.c and lab_spmd.c; the helpers they share with this file are in
 * lab_aux.c. */
#include "lab/lab_object.h"
#include "mgpu/classcfg.h"
#include "mgpu/lua_mgpu.h"
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*--- Files -----------------------------------------------------------------*/

static char *read_allowed(lua_State *L, lab_run *run, const char *path, size_t *len, char *real, size_t rlen)
{
    char *text = NULL;
    if (lab_resolve_path(run->lab, path, real, rlen) != MGPU_OK || lab_read_file(real, &text, len) != MGPU_OK)
        mgpu_lua_raise_engine(L, "lab.read");
    return text;
}

static int l_read(lua_State *L)
{
    lab_run *run = lab_run_of(L);
    const char *path = luaL_checkstring(L, 1);
    char real[PATH_MAX];
    size_t len = 0;
    char *text = read_allowed(L, run, path, &len, real, sizeof real);
    lua_pushlstring(L, text, len);
    free(text);
    return 1;
}

/* Compile the file as text in this sandbox and call it: an exercise that is
 * a module (a function, a table of answers). Errors propagate with their
 * traceback into the step's verdict. */
static int l_load(lua_State *L)
{
    lab_run *run = lab_run_of(L);
    const char *path = luaL_checkstring(L, 1);
    char real[PATH_MAX], chunk[PATH_MAX + 2];
    size_t len = 0;
    char *text = read_allowed(L, run, path, &len, real, sizeof real);
    /* the learner sees their own file name in errors, not the state dir */
    const char *base = strrchr(real, '/');
    snprintf(chunk, sizeof chunk, "@%s", base ? base + 1 : real);
    int top = lua_gettop(L);
    mgpu_result r = mgpu_lua_load(mgpu_lua_from_state(L), text, len, chunk);
    free(text);
    if (r != MGPU_OK) return luaL_error(L, "%s", mgpu_lua_error_message(mgpu_lua_from_state(L)));
    lab_exercise_env_apply(L); /* its own globals; checks and libraries read-only */
    lua_call(L, 0, LUA_MULTRET);
    return lua_gettop(L) - top;
}

/*--- Answers and measurements ------------------------------------------------*/

static int l_answer(lua_State *L)
{
    lab_run *run = lab_run_of(L);
    const char *id = luaL_checkstring(L, 1);
    const mgpu_lab_step_info *s = &run->lab->steps[run->step];
    for (int q = 0; q < s->nquestions; q++)
        if (strcmp(s->questions[q].id, id) == 0) {
            run->last_question = s->questions[q].id;
            if (s->questions[q].answer) lua_pushstring(L, s->questions[q].answer);
            else lua_pushnil(L);
            return 1;
        }
    return luaL_error(L, "lab.answer: step %s has no question '%s'", s->id, id);
}

/* The machine a measurement belongs to: a number measured on dgx-h100 says
 * nothing about pcie-4gpu, nor about dgx-h100 with a link down, nor about
 * the real host. "sim dgx-h100", "sim dgx-h100 fault nvlink-down",
 * "cuda host gpu-node-3". */
mgpu_result lab_machine_key(lab_run *run, char *out, size_t len)
{
    out[0] = '\0';
    MGPU_CHECK(lab_run_backend(run));
    const mgpu_backend_config *bc = &run->env->backend;
    if (run->simulated) {
        snprintf(out, len, "sim %s%s%s", run->machine, bc->fault ? " fault " : "", bc->fault ? bc->fault : "");
        return MGPU_OK;
    }
    char host[128] = "";
    if (gethostname(host, sizeof host - 1) != 0) snprintf(host, sizeof host, "?");
    snprintf(out, len, "cuda host %s", host);
    return MGPU_OK;
}

static void machine_key(lua_State *L, lab_run *run, char *out, size_t len)
{
    if (lab_machine_key(run, out, len) != MGPU_OK) mgpu_lua_raise_engine(L, "lab.record");
}

/* progress: step.by_machine[key], created on demand when `create` */
static json_t *machine_obj(lua_State *L, lab_run *run, const char *lab, const char *step, int create)
{
    char key[512];
    machine_key(L, run, key, sizeof key);
    json_t *all = create ? lab_progress_step_obj(&run->cat->progress, lab, step, "by_machine")
                         : json_object_get(lab_progress_step(&run->cat->progress, lab, step, 0), "by_machine");
    json_t *m = json_object_get(all, key);
    if (!m && create && all) {
        m = json_object();
        json_object_set_new(all, key, m);
    }
    return m;
}

static int l_record(lua_State *L)
{
    lab_run *run = lab_run_of(L);
    const char *key = luaL_checkstring(L, 1);
    int t = lua_type(L, 2);
    if (t != LUA_TNUMBER && t != LUA_TSTRING && t != LUA_TBOOLEAN)
        return luaL_error(L, "lab.record: '%s' must be a number, string or boolean, not a %s", key, luaL_typename(L, 2));
    const mgpu_lab_step_info *s = &run->lab->steps[run->step];
    json_t *mine = machine_obj(L, run, run->lab->info.id, s->id, 1); /* may raise: before v exists */
    json_t *v = NULL;
    if (mgpu_lua_to_json(L, 2, &v) != MGPU_OK) return mgpu_lua_raise_engine(L, "lab.record");
    json_t *m = lab_progress_step_obj(&run->cat->progress, run->lab->info.id, s->id, "measurements");
    json_object_set(m, key, v);
    json_object_set(mine, key, v);
    json_object_set_new(run->measurements, key, v);
    return 0;
}

static int l_measured(lua_State *L)
{
    lab_run *run = lab_run_of(L);
    const char *lab = luaL_checkstring(L, 1), *step = luaL_checkstring(L, 2), *key = luaL_checkstring(L, 3);
    int li = mgpu_lab_find(run->cat, lab);
    const char *labid = li >= 0 ? run->cat->labs[li].info.id : lab;
    int si = li >= 0 ? mgpu_lab_find_step(run->cat, li, step) : -1;
    const char *stepid = si >= 0 ? run->cat->labs[li].steps[si].id : step;
    /* only what was measured on this machine (nil otherwise: the lab falls
     * back to what the machine shows now) */
    json_t *v = json_object_get(machine_obj(L, run, labid, stepid, 0), key);
    if (v) lab_push_json(L, v);
    else lua_pushnil(L);
    return 1;
}

/*--- Output --------------------------------------------------------------------*/

static int l_log(lua_State *L)
{
    lab_run *run = lab_run_of(L);
    const char *line = mgpu_lua_join_args(L, NULL);
    if (run->env->events.log) run->env->events.log(run->env->events.ctx, -1, line);
    return 0;
}

static int l_progress(lua_State *L)
{
    lab_run *run = lab_run_of(L);
    double f = luaL_optnumber(L, 1, -1);
    const char *what = luaL_optstring(L, 2, "");
    lab_check_cancel(L, run);
    if (run->env->events.progress) run->env->events.progress(run->env->events.ctx, f > 1 ? 1 : f, what);
    return 0;
}

static int l_table(lua_State *L)
{
    lab_run *run = lab_run_of(L);
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_getfield(L, 1, "columns");
    lua_getfield(L, 1, "rows");
    if (!lua_istable(L, -2) || !lua_istable(L, -1))
        return luaL_error(L, "lab.table: give {title =, columns = {...}, rows = {{...}, ...}}");
    lua_pop(L, 2);
    json_t *doc = NULL;
    if (mgpu_lua_to_json(L, 1, &doc) != MGPU_OK) return mgpu_lua_raise_engine(L, "lab.table");
    if (run->env->events.result) run->env->events.result(run->env->events.ctx, "table", doc);
    json_decref(doc);
    return 0;
}

void lab_push_object(lua_State *L, lab_run *run)
{
    static const luaL_Reg fns[] = {
        {"read", l_read},         {"load", l_load},       {"answer", l_answer},   {"record", l_record},
        {"measured", l_measured}, {"log", l_log},         {"progress", l_progress}, {"table", l_table},
        {"bench", lab_l_bench},   {"spmd", lab_l_spmd},   {"topo", lab_l_topo},   {"topo_xml", lab_l_topo_xml},
        {"copy", lab_l_copy},     {"peak", lab_l_peak},   {NULL, NULL},
    };
    lua_createtable(L, 0, 20);
    lua_pushlightuserdata(L, run);
    luaL_setfuncs(L, fns, 1);
    const mgpu_lab_step_info *s = &run->lab->steps[run->step];
    if (s->exercise) lua_pushstring(L, s->exercise);
    else lua_pushnil(L);
    lua_setfield(L, -2, "exercise");
    lua_pushstring(L, run->lab->info.dir);
    lua_setfield(L, -2, "dir");
    lua_pushstring(L, s->id);
    lua_setfield(L, -2, "step");
    lab_push_backend(L, run);
    lua_setfield(L, -2, "backend");
    /* who runs the lab (the login, as a report's learner id defaults to):
     * what a lab seeds a per-learner draw with (lab 12's hidden fault) */
    const char *user = getenv("USER");
    struct passwd *pw = user && *user ? NULL : getpwuid(getuid());
    lua_pushstring(L, user && *user ? user : pw ? pw->pw_name : "unknown");
    lua_setfield(L, -2, "learner");
    /* the class's seed for such draws: another class, other faults */
    const mgpu_class_config *cc = NULL;
    if (mgpu_class_config_active(&cc) != MGPU_OK) mgpu_error_clear();
    lua_pushstring(L, cc ? cc->draw_seed : "");
    lua_setfield(L, -2, "draw_seed");
}
