/* run.c - running one step: run(lab), then check(lab, result), each through
 * the sandbox's protected call; the verdict judged, progress saved.
 *
 * The time budget. The sandbox's budget is wall-clock (lua_sandbox.h), and a
 * step's run may legitimately wait minutes for rank workers (a 256 MiB
 * sweep, a watchdog exercise). Rather than one huge budget, which would let
 * an endless loop in a lab hold the shell for minutes, every engine call of
 * the `lab` object restarts the budget when it returns
 * (mgpu_lua_restart_budget): LAB_STEP_BUDGET_S bounds the Lua time between
 * two engine calls, while the engine calls are bounded by the runtime's own
 * timeout and by cancellation. */
#include "lab/lab_internal.h"
#include "mgpu/clock.h"
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void copy_field(lua_State *L, int t, const char *k, char *dst, size_t len)
{
    lua_getfield(L, t, k);
    const char *s = luaL_tolstring(L, -1, NULL);
    if (!lua_isnil(L, -2)) snprintf(dst, len, "%s", s);
    lua_pop(L, 2);
}

static int is_verdict(lua_State *L, int idx)
{
    if (!lua_istable(L, idx)) return 0;
    lua_getfield(L, idx, "ok");
    int t = lua_type(L, -1);
    lua_pop(L, 1);
    return t != LUA_TNIL;
}

static int has_flag(lua_State *L, int idx, const char *flag)
{
    lua_getfield(L, idx, flag);
    int u = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return u;
}

/* A failed verdict that only says a question is not answered yet
 * (`unanswered = true`, checks/values.lua): the step waits for answers. */
static int is_unanswered(lua_State *L, int idx) { return has_flag(L, idx, "unanswered"); }

/* One verdict table at idx: 1 passed, 0 failed, -1 malformed (message set). */
static int one_verdict(lua_State *L, int idx, mgpu_lab_verdict *v)
{
    lua_getfield(L, idx, "ok");
    int ty = lua_type(L, -1), ok = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (ty != LUA_TBOOLEAN) {
        snprintf(v->message, sizeof v->message, "the check returned a verdict whose `ok` is a %s, not a boolean",
                 lua_typename(L, ty));
        return -1;
    }
    copy_field(L, idx, "msg", v->message, sizeof v->message);
    copy_field(L, idx, "saw", v->saw, sizeof v->saw);
    copy_field(L, idx, "wanted", v->wanted, sizeof v->wanted);
    copy_field(L, idx, "where", v->where, sizeof v->where);
    return ok;
}

/* Field k of the verdict table at idx as a JSON string ("" when absent). */
static json_t *field_json(lua_State *L, int idx, const char *k)
{
    lua_getfield(L, idx, k);
    int absent = lua_isnil(L, -1);
    json_t *j = json_string(absent ? "" : luaL_tolstring(L, -1, NULL));
    lua_pop(L, absent ? 1 : 2);
    return j ? j : json_string("(not UTF-8)");
}

/* The verdict table at idx, whole, appended to v->checks: the shell's full
 * verdict view and the headless JSON list every check, not the summary. */
static void record_check(lua_State *L, int idx, int ok, mgpu_lab_verdict *v)
{
    if (!v->checks) v->checks = json_array();
    json_t *c = json_object();
    json_object_set_new(c, "ok", json_boolean(ok));
    if (!ok && is_unanswered(L, idx)) json_object_set_new(c, "unanswered", json_true());
    /* `unavailable = true`: this machine cannot show the thing at all (one
     * node, one GPU). Still a failure for the learner, who must go where it
     * can be seen; tests and reports tell it from a wrong answer. */
    if (!ok && has_flag(L, idx, "unavailable")) json_object_set_new(c, "unavailable", json_true());
    static const char *const keys[] = {"msg", "saw", "wanted", "where"};
    for (int i = 0; i < 4; i++) json_object_set_new(c, keys[i], field_json(L, idx, keys[i]));
    /* the question an answer check judged (checks.equals/close tag it;
     * checks.all keeps its parts' as `judged`): the class report's
     * per-question counts */
    json_t *judged = json_array();
    lua_getfield(L, idx, "question");
    if (lua_type(L, -1) == LUA_TSTRING)
        json_array_append_new(judged, json_pack("{s:s, s:b}", "question", lua_tostring(L, -1), "ok", ok > 0));
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "judged") == LUA_TTABLE) {
        for (lua_Integer i = 1; i <= 64 && lua_geti(L, -1, i) == LUA_TTABLE; i++) {
            lua_getfield(L, -1, "question");
            lua_getfield(L, -2, "ok");
            if (lua_type(L, -2) == LUA_TSTRING)
                json_array_append_new(judged, json_pack("{s:s, s:b}", "question", lua_tostring(L, -2), "ok",
                                                        lua_toboolean(L, -1)));
            lua_pop(L, 3);
        }
        lua_pop(L, 1); /* the value that ended the loop */
    }
    lua_pop(L, 1);
    if (json_array_size(judged)) json_object_set_new(c, "questions", judged);
    else json_decref(judged);
    json_array_append_new(v->checks, c);
}

/* The check's return value (top of stack) into v->state and texts. */
static void judge(lua_State *L, mgpu_lab_verdict *v)
{
    int top = lua_gettop(L);
    if (is_verdict(L, top)) {
        int r = one_verdict(L, top, v);
        if (r >= 0) record_check(L, top, r, v);
        v->state = r > 0 ? MGPU_STEP_PASSED : r < 0 ? MGPU_STEP_ERROR
                 : is_unanswered(L, top) ? MGPU_STEP_AWAITING : MGPU_STEP_FAILED;
        if (r >= 0 && !v->message[0]) snprintf(v->message, sizeof v->message, "%s", lab_tr(r ? "check passed" : "check failed"));
        return;
    }
    if (!lua_istable(L, top) || luaL_len(L, top) < 1) {
        v->state = MGPU_STEP_ERROR;
        snprintf(v->message, sizeof v->message,
                 "the check returned a %s; it must return a verdict {ok =, msg =, saw =, wanted =, where =} or a "
                 "list of them", luaL_typename(L, top));
        return;
    }
    /* a list: all must pass; the message names the failing ones, the
     * saw/wanted/where of the first failure stand for the whole. An
     * unanswered question is not a failure: with no other failure the
     * step waits for answers, and the first unanswered one stands. */
    int n = (int)luaL_len(L, top), failed = 0, waiting = 0;
    mgpu_lab_verdict first_wait;
    memset(&first_wait, 0, sizeof first_wait);
    size_t used = 0, wused = 0;
    char msg[sizeof v->message] = "", waits[512] = "";
    for (int i = 1; i <= n; i++) {
        lua_geti(L, top, i);
        mgpu_lab_verdict one;
        memset(&one, 0, sizeof one);
        int r = is_verdict(L, -1) ? one_verdict(L, lua_gettop(L), &one) : -1;
        if (r >= 0) record_check(L, lua_gettop(L), r, v);
        int unanswered = r == 0 && is_unanswered(L, -1);
        lua_pop(L, 1);
        if (r < 0) {
            v->state = MGPU_STEP_ERROR;
            snprintf(v->message, sizeof v->message, "verdict %d of the check's list is not a verdict table%s%.900s", i,
                     one.message[0] ? ": " : "", one.message);
            return;
        }
        if (unanswered) {
            if (waiting++ == 0) first_wait = one;
            /* "link GPU0-GPU1: not answered yet" -> "link GPU0-GPU1", as checks.all lists them */
            const char *cut = strstr(one.message, ": not answered yet");
            if (!cut) cut = strstr(one.message, lab_tr(": not answered yet"));
            int len = cut ? (int)(cut - one.message) : (int)strlen(one.message);
            if (wused < sizeof waits)
                wused += (size_t)snprintf(waits + wused, sizeof waits - wused, "%s%.*s", wused ? "; " : "", len,
                                          one.message);
            continue;
        }
        if (r == 0 && failed++ == 0) {
            snprintf(v->saw, sizeof v->saw, "%s", one.saw);
            snprintf(v->wanted, sizeof v->wanted, "%s", one.wanted);
            snprintf(v->where, sizeof v->where, "%s", one.where);
        }
        if (r == 0 && used < sizeof msg)
            used += (size_t)snprintf(msg + used, sizeof msg - used, "%s%s", used ? "; " : "",
                                     one.message[0] ? one.message : lab_tr("(a check failed without a message)"));
    }
    v->state = failed ? MGPU_STEP_FAILED : waiting ? MGPU_STEP_AWAITING : MGPU_STEP_PASSED;
    /* how to answer (the shell's a, headless --answer ID=VALUE) is for the
     * front end to add: the message is shown by both and kept in progress */
    char wait_note[96] = "";
    if (waiting)
        snprintf(wait_note, sizeof wait_note, lab_tr(" (%d question%s wait%s for your answer%s)"), waiting,
                 mgpu_lang_get() == MGPU_LANG_KO || waiting == 1 ? "" : "s",
                 mgpu_lang_get() != MGPU_LANG_KO && waiting == 1 ? "s" : "",
                 mgpu_lang_get() == MGPU_LANG_KO || waiting == 1 ? "" : "s");
    if (failed) {
        snprintf(v->message, sizeof v->message, lab_tr("%d of %d checks failed%s: %.860s"), failed, n - waiting, wait_note, msg);
    } else if (waiting) {
        if (waiting == 1) snprintf(v->message, sizeof v->message, "%s", first_wait.message);
        else snprintf(v->message, sizeof v->message, lab_tr("%d questions not answered yet: %s"), waiting, waits);
        snprintf(v->saw, sizeof v->saw, "%s", first_wait.saw);
        snprintf(v->wanted, sizeof v->wanted, "%s", first_wait.wanted);
        snprintf(v->where, sizeof v->where, "%s", first_wait.where);
    } else {
        snprintf(v->message, sizeof v->message, lab_tr("all %d checks passed"), n);
    }
}

/* The step's scripts raced (lab.spmd saw races it did not expect): one
 * verdict more beside the check's, failing, naming the first race and both
 * its lines. The check's value at the top of the stack becomes a list. */
static void add_race_verdict(lua_State *L, const json_t *races)
{
    size_t n = json_array_size(races);
    if (n == 0) return;
    int top = lua_gettop(L);
    lua_newtable(L);
    if (is_verdict(L, top)) {
        lua_pushvalue(L, top);
        lua_seti(L, -2, 1);
    } else if (lua_istable(L, top)) {
        for (lua_Integer i = 1; i <= luaL_len(L, top); i++) {
            lua_geti(L, top, i);
            lua_seti(L, -2, i);
        }
    }
    const json_t *first = json_array_get(races, 0);
    const char *text = json_string_value(json_object_get(first, "text"));
    const json_t *now = json_object_get(first, "now"), *then = json_object_get(first, "then");
    char more[48] = "";
    if (n > 1) snprintf(more, sizeof more, lab_tr(" (and %zu more)"), n - 1);
    lua_createtable(L, 0, 6);
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "ok");
    lua_pushfstring(L, lab_tr("a stream-ordering race%s: %s"), more, text ? text : "?");
    lua_setfield(L, -2, "msg");
    lua_pushfstring(L, "rank %d: %s", (int)json_integer_value(json_object_get(first, "rank")), text ? text : "?");
    lua_setfield(L, -2, "saw");
    lua_pushstring(L, lab_tr("every access ordered after the ones it conflicts with - on the device (an event "
                             "recorded after the write, waited on by the stream that reads) - so the result does not "
                             "depend on which stream runs first"));
    lua_setfield(L, -2, "wanted");
    lua_pushfstring(L, lab_tr("%s, then %s (the log pane lists every race)"),
                    json_string_value(json_object_get(then, "site")) ? json_string_value(json_object_get(then, "site")) : "?",
                    json_string_value(json_object_get(now, "site")) ? json_string_value(json_object_get(now, "site")) : "?");
    lua_setfield(L, -2, "where");
    lua_seti(L, -2, (lua_Integer)luaL_len(L, -2) + 1);
    lua_replace(L, top);
}

/* A Lua error of run or check into the verdict. */
static void lab_error(lab_run *run, mgpu_lua *sb, const char *phase, mgpu_lab_verdict *v)
{
    int cancelled = run->cancelled || (run->env && run->env->cancel && *run->env->cancel);
    v->state = cancelled ? MGPU_STEP_CANCELLED : MGPU_STEP_ERROR;
    if (cancelled) snprintf(v->message, sizeof v->message, lab_tr("cancelled during %s"), phase);
    else snprintf(v->message, sizeof v->message, lab_tr("lab error in %s: %s"), phase, mgpu_lua_error_message(sb));
    snprintf(v->traceback, sizeof v->traceback, "%s", mgpu_lua_error_traceback(sb));
}

/* Call step[field](lab, arg?) ; the result stays on the stack. */
static mgpu_result call_step_fn(lab_entry *e, int step, const char *field, int with_result, lab_run *run)
{
    lua_State *L = mgpu_lua_state(e->sb);
    int res_idx = lua_gettop(L); /* the run's result when with_result */
    lua_rawgeti(L, LUA_REGISTRYINDEX, e->lab_ref);
    lua_getfield(L, -1, "steps");
    lua_geti(L, -1, step + 1);
    lua_getfield(L, -1, field);
    lua_replace(L, -4);
    lua_pop(L, 2);
    lab_push_object(L, run);
    if (with_result) lua_pushvalue(L, res_idx);
    return mgpu_lua_pcall(e->sb, 1 + with_result, 1);
}

/* The last result of each step's run stays in the lab's sandbox (registry
 * table, keyed by step number): answering a question judges that result
 * again instead of repeating a sweep that took half a minute. */
static const char LAST_RESULTS[] = "mgpulab.last_results";

static void keep_result(lua_State *L, int step)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, LAST_RESULTS) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, LAST_RESULTS);
    }
    lua_pushvalue(L, -2);
    lua_seti(L, -2, step + 1);
    lua_pop(L, 1);
}

/* The races of the step's last run go with its kept result: answering a
 * question judges that run again, races included. */
static const char LAST_RACES[] = "mgpulab.last_races";

static void keep_races(lua_State *L, int step, const json_t *races)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, LAST_RACES) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, LAST_RACES);
    }
    char *text = races && json_array_size(races) ? json_dumps(races, JSON_COMPACT) : NULL;
    if (text) lua_pushstring(L, text);
    else lua_pushnil(L);
    free(text);
    lua_seti(L, -2, step + 1);
    lua_pop(L, 1);
}

static json_t *kept_races(lua_State *L, int step)
{
    json_t *races = NULL;
    /* both pushes are popped whatever they found: a run without races
     * keeps nil, and a nil left here was taken for the kept result (the
     * shell judged answers against this table) */
    if (lua_getfield(L, LUA_REGISTRYINDEX, LAST_RACES) == LUA_TTABLE) {
        if (lua_geti(L, -1, step + 1) == LUA_TSTRING) races = json_loads(lua_tostring(L, -1), 0, NULL);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return races;
}

/* Push the step's kept result; 0 (nothing pushed) when there is none. */
static int push_kept_result(lua_State *L, int step)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, LAST_RESULTS) != LUA_TTABLE) {
        lua_pop(L, 1);
        return 0;
    }
    int t = lua_geti(L, -1, step + 1);
    lua_remove(L, -2);
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return 0;
    }
    return 1;
}

/* Each answer a check judged, once per change (a new answer, or the same
 * one judged otherwise on another machine): {q, answer, ok, at} in
 * progress "answer_log", the last ANSWER_LOG_MAX kept - how many tried a
 * wrong answer first, and which, for the instructor's report. */
#define ANSWER_LOG_MAX 64
static void log_answers(json_t *p, const mgpu_lab_step_info *s, const mgpu_lab_verdict *v, double at)
{
    json_t *log = json_object_get(p, "answer_log");
    size_t i, k;
    json_t *c, *q;
    json_array_foreach(v->checks, i, c) json_array_foreach(json_object_get(c, "questions"), k, q) {
        const char *id = json_string_value(json_object_get(q, "question"));
        const char *answer = NULL;
        for (int n = 0; id && n < s->nquestions; n++)
            if (strcmp(s->questions[n].id, id) == 0) answer = s->questions[n].answer;
        if (!answer) continue; /* judged, but not a question of this step */
        int ok = json_is_true(json_object_get(q, "ok"));
        json_t *last = NULL, *x;
        size_t j;
        json_array_foreach(log, j, x) if (strcmp(json_string_value(json_object_get(x, "q")) ?: "", id) == 0) last = x;
        if (last && strcmp(json_string_value(json_object_get(last, "answer")) ?: "", answer) == 0 &&
            json_is_true(json_object_get(last, "ok")) == ok)
            continue;
        if (!json_is_array(log)) {
            log = json_array();
            json_object_set_new(p, "answer_log", log);
        }
        json_t *entry = json_pack("{s:s, s:s, s:b, s:f}", "q", id, "answer", answer, "ok", ok, "at", at);
        if (entry) json_array_append_new(log, entry);
        while (json_array_size(log) > ANSWER_LOG_MAX) json_array_remove(log, 0);
    }
}

static void save_progress(mgpu_lab_catalog *cat, lab_entry *e, int step, const mgpu_lab_verdict *v, double started)
{
    const mgpu_lab_step_info *s = &e->steps[step];
    json_t *p = lab_progress_step(&cat->progress, e->info.id, s->id, 1);
    /* time on task runs from the first open (the shell's view of the step,
     * or the first run) to the first pass */
    if (!json_is_number(json_object_get(p, "opened"))) json_object_set_new(p, "opened", json_real(started));
    if (v->state == MGPU_STEP_PASSED && !json_is_number(json_object_get(p, "passed_at")))
        json_object_set_new(p, "passed_at", json_real(started + v->seconds));
    log_answers(p, s, v, started);
    /* the best result stays: a re-run that fails or is cancelled does not
     * take back a pass; it is shown beside it as the latest attempt */
    const char *old = json_string_value(json_object_get(p, "state"));
    int attempts = s->attempts;
    if (json_is_true(json_object_get(p, "untrusted"))) {
        /* the claims of a file edited outside mgpulab: this run replaces them */
        old = NULL;
        attempts = 0;
        json_object_del(p, "untrusted");
        json_object_del(p, "passed_at");
        json_object_del(p, "passed_on");
        json_object_del(p, "last_attempt");
        json_object_set_new(p, "opened", json_real(started));
        if (v->state == MGPU_STEP_PASSED) json_object_set_new(p, "passed_at", json_real(started + v->seconds));
    }
    if (old && strcmp(old, "passed") == 0 && v->state != MGPU_STEP_PASSED) {
        json_object_set_new(p, "last_attempt", json_string(mgpu_step_state_name(v->state)));
    } else {
        json_object_set_new(p, "state", json_string(mgpu_step_state_name(v->state)));
        json_object_del(p, "last_attempt");
    }
    json_object_set_new(p, "last_run", json_real(started));
    json_object_set_new(p, "seconds", json_real(v->seconds));
    json_object_set_new(p, "attempts", json_integer(attempts + 1));
    json_t *msg = json_string(v->message);
    json_object_set_new(p, "message", msg ? msg : json_string("(message not UTF-8)"));
    /* where it passed: answers read off one machine (lab 7's crash rank)
     * are wrong on another, and verify there says where they were right */
    if (v->state == MGPU_STEP_PASSED && v->machine[0]) json_object_set_new(p, "passed_on", json_string(v->machine));
    /* and where this run ran: the class report names a step run on a
     * machine other than the class's */
    if (v->machine[0]) json_object_set_new(p, "ran_on", json_string(v->machine));
}

/* Save the step's progress, then the class's shared folder gets the
 * learner's export (after every step: the instructor's live view reads
 * it); a share that cannot be written is said in the log, never a failure
 * of the step. */
static mgpu_result save_and_export(mgpu_lab_catalog *cat, const mgpu_lab_env *env)
{
    mgpu_result r = lab_progress_save(&cat->progress);
    lab_sync_all_progress(cat); /* the save may have merged other labs' news */
    if (r == MGPU_OK && (!env || !env->instructor_rerun) && mgpu_lab_export_to_share(cat, NULL, 0) != MGPU_OK) {
        if (env && env->events.log) {
            char line[1200];
            snprintf(line, sizeof line, "the class export was not written: %s", mgpu_error_message());
            env->events.log(env->events.ctx, -1, line);
        }
        mgpu_error_clear();
    }
    return r;
}

static mgpu_result run_step_here(mgpu_lab_catalog *cat, int lab, int step, const mgpu_lab_env *env,
                                 mgpu_lab_verdict *out)
{
    memset(out, 0, sizeof *out);
    if (!cat || lab < 0 || lab >= cat->nlabs) return mgpu_fail(MGPU_ERR_INVALID, "no lab number %d", lab);
    lab_entry *e = &cat->labs[lab];
    if (e->info.load_error) {
        out->state = MGPU_STEP_ERROR;
        snprintf(out->message, sizeof out->message, lab_tr("lab %s did not load"), e->info.id);
        snprintf(out->traceback, sizeof out->traceback, "%s", e->info.load_error);
        return MGPU_OK;
    }
    if (step < 0 || step >= e->info.nsteps)
        return mgpu_fail(MGPU_ERR_INVALID, "lab %s has steps 1..%d, not %d", e->info.id, e->info.nsteps, step + 1);
    static const mgpu_lab_env no_env;
    char locked[400];
    if ((!env || !env->instructor_rerun) && mgpu_lab_step_locked(cat, lab, step, locked, sizeof locked)) {
        out->state = MGPU_STEP_ERROR; /* nothing ran: no attempt, nothing saved */
        snprintf(out->message, sizeof out->message, lab_tr("locked: %s"), locked);
        return MGPU_OK;
    }
    lab_run run = {.cat = cat, .lab = e, .step = step, .env = env ? env : &no_env};
    run.measurements = json_object();
    const mgpu_lab_step_info *s = &e->steps[step];
    uint64_t t0 = mgpu_now_ns();
    /* the wall clock to the microsecond: the runs of one second must
     * still order (the latest run's machine heads an export) */
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    double started = (double)wall.tv_sec + wall.tv_nsec / 1e9;
    lua_State *L = mgpu_lua_state(e->sb);
    int top = lua_gettop(L);
    e->run = &run;
    /* a cancel stops the step's own Lua too, not only its engine calls (a
     * loop in the lab or in an exercise it loaded ran on to its budget) */
    mgpu_lua_set_interrupt(e->sb, run.env->cancel, run.env->cancel_stops_process_s);
    int prepared = lab_workspace_prepare(e, step) == MGPU_OK;
    /* answering a question judges the kept result (and its races) again */
    int kept = prepared && s->has_run && run.env->check_only && push_kept_result(L, step);
    if (kept) run.races = kept_races(L, step);
    if (!prepared) {
        out->state = MGPU_STEP_ERROR;
        snprintf(out->message, sizeof out->message, "the exercise could not be copied: %s", mgpu_error_message());
    } else if (s->has_run && !kept && call_step_fn(e, step, "run", 0, &run) != MGPU_OK) {
        lab_error(&run, e->sb, "run", out);
    } else {
        if (!s->has_run) lua_pushnil(L);
        else {
            keep_result(L, step);
            keep_races(L, step, run.races);
        }
        if (!s->has_check) { /* nothing was judged: read, not passed */
            out->state = MGPU_STEP_READ;
            snprintf(out->message, sizeof out->message, "%s", lab_tr(s->has_run ? "ran" : "read"));
        } else if (call_step_fn(e, step, "check", 1, &run) != MGPU_OK) {
            lab_error(&run, e->sb, "check", out);
        } else {
            add_race_verdict(L, run.races);
            judge(L, out);
        }
    }
    if (out->state != MGPU_STEP_CANCELLED && env && env->cancel && *env->cancel) {
        out->state = MGPU_STEP_CANCELLED;
        snprintf(out->message, sizeof out->message, "%s", lab_tr("cancelled"));
    }
    mgpu_lua_set_interrupt(e->sb, NULL, 0);
    lua_settop(L, top);
    e->run = NULL;
    /* a long step's garbage (decoded benchmark tables) goes now, not at
     * some later step's expense */
    lua_gc(L, LUA_GCCOLLECT);
    out->seconds = (double)(mgpu_now_ns() - t0) / 1e9;
    /* the machine the step was judged on (an answer judged again ran
     * nothing, but its measurement is this machine's too) */
    if (lab_machine_key(&run, out->machine, sizeof out->machine) != MGPU_OK) {
        out->machine[0] = '\0';
        mgpu_error_clear(); /* a bad backend choice was the step's to report */
    }
    out->measurements = run.measurements;
    run.measurements = NULL;
    lab_run_free(&run);
    save_progress(cat, e, step, out, started);
    return save_and_export(cat, env);
}

/* The step in the catalog's runner child (runner.c). What runs no Lua (a
 * lab that did not load, a step out of range or locked) is answered here. */
static mgpu_result run_step_isolated(mgpu_lab_catalog *cat, int lab, int step, const mgpu_lab_env *env,
                                     mgpu_lab_verdict *out)
{
    static const mgpu_lab_env no_env;
    if (!env) env = &no_env;
    lab_entry *e = &cat->labs[lab];
    char locked[400];
    if (e->info.load_error || step < 0 || step >= e->info.nsteps ||
        (!env->instructor_rerun && mgpu_lab_step_locked(cat, lab, step, locked, sizeof locked)))
        return run_step_here(cat, lab, step, env, out);
    memset(out, 0, sizeof *out);
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    double started = (double)wall.tv_sec + wall.tv_nsec / 1e9;
    uint64_t t0 = mgpu_now_ns();
    int died = 0;
    mgpu_result r = lab_runner_step(cat, lab, step, env, out, &died);
    if (r != MGPU_OK && !died && !cat->runner) {
        /* no child could start (no program to run, no processes left):
         * the step runs here rather than not at all */
        if (env->events.log) {
            char line[1200];
            snprintf(line, sizeof line, "the step runs in this process: %s", mgpu_error_message());
            env->events.log(env->events.ctx, -1, line);
        }
        mgpu_error_clear();
        return run_step_here(cat, lab, step, env, out);
    }
    /* the child saved the step's progress (and exported it): read it
     * back, keeping the child's error, if any, for the caller */
    char why[1024] = "";
    mgpu_result code = r != MGPU_OK ? mgpu_error_code() : MGPU_OK;
    if (code != MGPU_OK) snprintf(why, sizeof why, "%s", mgpu_error_message());
    if (lab_progress_refresh(&cat->progress) != MGPU_OK) mgpu_error_clear();
    lab_sync_all_progress(cat);
    if (died) {
        /* it died before saving: the attempt is recorded here */
        out->seconds = (double)(mgpu_now_ns() - t0) / 1e9;
        save_progress(cat, e, step, out, started);
        return save_and_export(cat, env);
    }
    if (code != MGPU_OK) return mgpu_fail(code, "%s", why);
    return r;
}

mgpu_result mgpu_lab_run_step(mgpu_lab_catalog *cat, int lab, int step, const mgpu_lab_env *env,
                              mgpu_lab_verdict *out)
{
    if (cat && cat->runner_exe[0] && lab >= 0 && lab < cat->nlabs) return run_step_isolated(cat, lab, step, env, out);
    return run_step_here(cat, lab, step, env, out);
}

void mgpu_lab_verdict_clear(mgpu_lab_verdict *v)
{
    if (!v) return;
    json_decref(v->measurements);
    v->measurements = NULL;
    json_decref(v->checks);
    v->checks = NULL;
}
