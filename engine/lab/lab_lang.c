/* lab_lang.c - a lab in two languages (issue 29; docs/lab-authoring.md,
 * "Two languages").
 *
 * Catalogs: labs/NN-name/lang/ko.lua and checks/lang/ko.lua are chunks that
 * return {["English, exactly as the code writes it"] = "Korean"}. They are
 * data, not code: each runs in an empty environment (no globals, no
 * libraries) under the load budget, and its table must map strings to
 * UTF-8 strings; anything else is a load error naming the file and the
 * entry. The lab's entries and the check library's are merged into one
 * table in the lab's sandbox (the lab's win), which both uses serve:
 *
 *  - static fields (title, summary, backends, step titles, hints, asks) are
 *    looked up once at load: both languages are kept, the *_local fields of
 *    the public structs point at the current one (mgpu_lab_catalog_set_lang);
 *  - L(fmt, ...), a global of every lab's sandbox (the lab, the check
 *    library and exercises read it), formats fmt's entry in Korean, or fmt
 *    itself in English, with string.format. A missing entry, or one whose
 *    placeholders do not take the arguments, gives the English with
 *    MGPU_LANG_MISSING_MARK in front: the learner still reads the message,
 *    and tests/structure/i18n.sh fails the suite on it.
 *
 * A step's text in Korean is steps/NN-name.ko.md beside steps/NN-name.md. */
#include "lab/lab_internal.h"
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mgpu/utf8.h"

#define KO_KEY "mgpu.lang.ko"

/* 1 when s[0..len) is well-formed UTF-8 (no overlongs, no surrogates). */
static int utf8_ok(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0, n; i < len; i += n)
        if ((n = mgpu_utf8_seq_len(p + i, len - i)) == 0) return 0;
    return 1;
}

/* A short, one-line quote of an entry's English for an error message. */
static void quote(char *out, size_t len, const char *s)
{
    size_t n = 0;
    for (; *s && n + 4 < len && n < 60; s++) out[n++] = *s == '\n' ? ' ' : *s;
    if (*s && n + 4 < len) out[n++] = '.', out[n++] = '.', out[n++] = '.';
    out[n] = '\0';
}

/* Run catalog text `text` (chunk name "@<name>") as data and copy its
 * entries into the table at absolute stack index `into`. 0, or -1 with
 * err set ("<name>: ..."). */
static int load_catalog_text(mgpu_lua *sb, const char *text, size_t len, const char *name, int into, char *err,
                             size_t errlen)
{
    lua_State *L = mgpu_lua_state(sb);
    int top = lua_gettop(L);
    char chunk[PATH_MAX + 8];
    snprintf(chunk, sizeof chunk, "@%s", name);
    if (mgpu_lua_load(sb, text, len, chunk) != MGPU_OK) {
        snprintf(err, errlen, "%s: %s", name, mgpu_lua_error_message(sb));
        mgpu_error_clear();
        return -1;
    }
    lua_newtable(L); /* its whole world: data needs no globals */
    if (!lua_setupvalue(L, -2, 1)) lua_pop(L, 1);
    if (mgpu_lua_pcall(sb, 0, 1) != MGPU_OK) {
        snprintf(err, errlen, "%s: %s", name, mgpu_lua_error_message(sb));
        mgpu_error_clear();
        lua_settop(L, top);
        return -1;
    }
    if (!lua_istable(L, -1) || lua_getmetatable(L, -1)) {
        snprintf(err, errlen, "%s must return a plain table {[\"English text\"] = \"Korean text\", ...}, not %s", name,
                 lua_istable(L, -1) ? "a table with a metatable" : luaL_typename(L, -1));
        lua_settop(L, top);
        return -1;
    }
    int t = lua_gettop(L);
    char q[80];
    lua_pushnil(L);
    while (lua_next(L, t)) {
        if (lua_type(L, -2) != LUA_TSTRING) {
            snprintf(err, errlen, "%s: a key is a %s; every key must be the English text, a string", name,
                     luaL_typename(L, -2));
            lua_settop(L, top);
            return -1;
        }
        size_t kl, vl;
        const char *k = lua_tolstring(L, -2, &kl);
        quote(q, sizeof q, k);
        if (lua_type(L, -1) != LUA_TSTRING) {
            snprintf(err, errlen, "%s: the entry for \"%s\" is a %s; it must be the Korean text, a string", name, q,
                     luaL_typename(L, -1));
            lua_settop(L, top);
            return -1;
        }
        const char *v = lua_tolstring(L, -1, &vl);
        if (!utf8_ok(k, kl) || !utf8_ok(v, vl) || vl == 0) {
            snprintf(err, errlen, "%s: the entry for \"%s\" %s", name, q,
                     vl == 0 ? "is empty (leave an entry out rather than empty)" : "is not valid UTF-8");
            lua_settop(L, top);
            return -1;
        }
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, into);
    }
    lua_settop(L, top);
    return 0;
}

mgpu_result lab_lang_read_checks_catalog(mgpu_lab_catalog *cat, char *warn, size_t warnlen)
{
    warn[0] = '\0';
    char path[PATH_MAX * 2];
    snprintf(path, sizeof path, "%s/lang/ko.lua", cat->checks_dir);
    if (access(path, F_OK) != 0) return MGPU_OK;
    char *text = NULL;
    size_t len = 0;
    if (lab_read_file(path, &text, &len) != MGPU_OK) {
        snprintf(warn, warnlen, "checks/lang/ko.lua: %s (the check library's messages stay English)",
                 mgpu_error_message());
        mgpu_error_clear();
        return MGPU_OK;
    }
    /* validated once here, in a probe: a broken catalog is one warning at
     * open, and the labs load without it */
    mgpu_lua *probe = NULL;
    mgpu_lua_config lc = {.mem_limit = LAB_MEM_LIMIT, .time_limit_s = LAB_LOAD_BUDGET_S, .cpu_time = 1};
    mgpu_result r = mgpu_lua_open(&lc, &probe);
    if (r != MGPU_OK) {
        free(text);
        return r;
    }
    lua_State *L = mgpu_lua_state(probe);
    lua_newtable(L);
    char err[1024];
    if (load_catalog_text(probe, text, len, "checks/lang/ko.lua", lua_gettop(L), err, sizeof err) != 0) {
        snprintf(warn, warnlen, "%s (the check library's messages stay English)", err);
        free(text);
    } else {
        cat->checks_ko_text = text;
        cat->checks_ko_len = len;
    }
    mgpu_lua_close(probe);
    return MGPU_OK;
}

/* L(fmt, ...): fmt's Korean entry formatted, in Korean; fmt formatted, in
 * English. Upvalues: the catalog, string.format. */
static int l_L(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TSTRING)
        return luaL_error(L, "L: the first argument must be the English text (a format string), got %s",
                          luaL_typename(L, 1));
    int n = lua_gettop(L);
    if (mgpu_lang_get() == MGPU_LANG_KO) {
        lua_pushvalue(L, 1);
        if (lua_rawget(L, lua_upvalueindex(1)) == LUA_TSTRING) {
            lua_pushvalue(L, lua_upvalueindex(2));
            lua_insert(L, -2);
            for (int i = 2; i <= n; i++) lua_pushvalue(L, i);
            if (lua_pcall(L, n, 1, 0) == LUA_OK) return 1;
            /* the entry's placeholders do not take these arguments: the
             * English, marked, rather than a broken step */
        }
        lua_settop(L, n);
        lua_pushstring(L, MGPU_LANG_MISSING_MARK);
        lua_pushvalue(L, lua_upvalueindex(2));
        for (int i = 1; i <= n; i++) lua_pushvalue(L, i);
        lua_call(L, n, 1);
        lua_concat(L, 2);
        return 1;
    }
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_insert(L, 1);
    lua_call(L, n, 1);
    return 1;
}

int lab_lang_install(lab_entry *e, char *err, size_t errlen)
{
    mgpu_lab_catalog *cat = e->cat;
    lua_State *L = mgpu_lua_state(e->sb);
    int top = lua_gettop(L);
    lua_newtable(L);
    int t = lua_gettop(L);
    if (cat->checks_ko_text &&
        load_catalog_text(e->sb, cat->checks_ko_text, cat->checks_ko_len, "checks/lang/ko.lua", t, err, errlen) != 0) {
        lua_settop(L, top);
        return -1;
    }
    char path[PATH_MAX * 2], name[PATH_MAX];
    snprintf(path, sizeof path, "%s/lang/ko.lua", e->info.dir);
    snprintf(name, sizeof name, "labs/%s/lang/ko.lua", e->info.id);
    if (access(path, F_OK) == 0) {
        char *text = NULL;
        size_t len = 0;
        if (lab_own_file(e, path, "its Korean catalog") != MGPU_OK || lab_read_file(path, &text, &len) != MGPU_OK) {
            snprintf(err, errlen, "%s", mgpu_error_message());
            mgpu_error_clear();
            lua_settop(L, top);
            return -1;
        }
        int bad = load_catalog_text(e->sb, text, len, name, t, err, errlen);
        free(text);
        if (bad) {
            lua_settop(L, top);
            return -1;
        }
    }
    lua_pushvalue(L, t);
    lua_setfield(L, LUA_REGISTRYINDEX, KO_KEY);
    /* L's own string.format: a lab that replaces the global's cannot
     * change how the check library's messages are made */
    lua_getglobal(L, "string");
    lua_getfield(L, -1, "format");
    lua_remove(L, -2);
    lua_pushcclosure(L, l_L, 2);
    lua_setglobal(L, "L");
    lua_settop(L, top);
    return 0;
}

/* The Korean of `en` from the lab's catalog (kept in e), or the English
 * marked; NULL stays NULL. */
static const char *ko_of(lua_State *L, lab_entry *e, const char *en)
{
    if (!en) return NULL;
    int top = lua_gettop(L);
    const char *ko = NULL;
    if (lua_getfield(L, LUA_REGISTRYINDEX, KO_KEY) == LUA_TTABLE && lua_getfield(L, -1, en) == LUA_TSTRING)
        ko = lab_keep(e, lua_tostring(L, -1));
    lua_settop(L, top);
    if (ko) return ko;
    size_t n = strlen(MGPU_LANG_MISSING_MARK) + strlen(en) + 1;
    char *m = malloc(n);
    if (!m) return en;
    snprintf(m, n, "%s%s", MGPU_LANG_MISSING_MARK, en);
    ko = lab_keep(e, m);
    free(m);
    return ko ? ko : en;
}

/* A step's file in Korean: NAME.ko.EXT beside NAME.EXT (src), when there
 * is one; the lab must own it as it owns the English. *out stays NULL
 * without one. Returns -1 with err set when it is not the lab's. */
static int ko_twin(lab_entry *e, const char *src, const char *ext, int step, const char *id, const char *what,
                   const char **out, char *err, size_t errlen)
{
    size_t n = src ? strlen(src) : 0, x = strlen(ext);
    if (n <= x || strcmp(src + n - x, ext) != 0) return 0;
    char path[PATH_MAX * 2];
    snprintf(path, sizeof path, "%.*s.ko%s", (int)(n - x), src, ext);
    if (access(path, F_OK) != 0) return 0;
    char why[96];
    snprintf(why, sizeof why, "step %d (%s): its Korean %s", step + 1, id, what);
    if (lab_own_file(e, path, why) != MGPU_OK) {
        snprintf(err, errlen, "%s", mgpu_error_message());
        mgpu_error_clear();
        return -1;
    }
    *out = lab_keep(e, path);
    return 0;
}

int lab_lang_statics(lab_entry *e, char *err, size_t errlen)
{
    lua_State *L = mgpu_lua_state(e->sb);
    int top = lua_gettop(L);
    e->ko.title = ko_of(L, e, e->info.title);
    e->ko.summary = ko_of(L, e, e->info.summary);
    e->ko.backends = ko_of(L, e, e->info.backends);
    e->ko.steps = calloc((size_t)e->info.nsteps + 1, sizeof *e->ko.steps);
    if (!e->ko.steps) return snprintf(err, errlen, "out of memory"), -1;
    for (int i = 0; i < e->info.nsteps; i++) {
        mgpu_lab_step_info *s = &e->steps[i];
        lab_step_ko *k = &e->ko.steps[i];
        k->title = ko_of(L, e, s->title);
        k->hints = calloc((size_t)s->nhints + 1, sizeof *k->hints);
        k->asks = calloc((size_t)s->nquestions + 1, sizeof *k->asks);
        if (!k->hints || !k->asks) return snprintf(err, errlen, "out of memory"), -1;
        for (int h = 0; h < s->nhints; h++) k->hints[h] = ko_of(L, e, s->hints[h]);
        for (int q = 0; q < s->nquestions; q++) k->asks[q] = ko_of(L, e, s->questions[q].ask);
        if (ko_twin(e, s->text_path, ".md", i, s->id, "text", &k->text_path, err, errlen) ||
            /* exercises/NAME.ko.lua: the exercise with its comments in
             * Korean, the learner's first copy (and a reset's) in Korean */
            ko_twin(e, s->exercise_src, ".lua", i, s->id, "exercise", &k->exercise_src, err, errlen))
            return -1;
    }
    lua_settop(L, top);
    lab_lang_point(e, mgpu_lang_get());
    return 0;
}

void lab_lang_point(lab_entry *e, mgpu_lang lang)
{
    int ko = lang == MGPU_LANG_KO && e->ko.steps;
    e->ko.pointed = (int)lang + 1;
    e->info.title_local = ko ? e->ko.title : e->info.title;
    e->info.summary_local = ko ? e->ko.summary : e->info.summary;
    e->info.backends_local = ko ? e->ko.backends : e->info.backends;
    for (int i = 0; i < e->info.nsteps; i++) {
        mgpu_lab_step_info *s = &e->steps[i];
        const lab_step_ko *k = ko ? &e->ko.steps[i] : NULL;
        s->title_local = k ? k->title : s->title;
        s->hints_local = k ? k->hints : s->hints;
        s->text_path_local = k && k->text_path ? k->text_path : s->text_path;
        s->text_missing = k && !k->text_path && s->text_path;
        for (int q = 0; q < s->nquestions; q++) e->questions[i][q].ask_local = k ? k->asks[q] : s->questions[q].ask;
    }
}

void lab_lang_follow(lab_entry *e)
{
    mgpu_lang now = mgpu_lang_get();
    if (e->ko.pointed != (int)now + 1) lab_lang_point(e, now);
}

void lab_lang_free(lab_entry *e)
{
    for (int i = 0; e->ko.steps && i < e->info.nsteps; i++) {
        free(e->ko.steps[i].hints);
        free(e->ko.steps[i].asks);
    }
    free(e->ko.steps);
    memset(&e->ko, 0, sizeof e->ko);
}

/* The framework's own verdict texts (run.c): what it says around the
 * check's messages, which the checks' L() already made in the language. */
static const mgpu_tr_entry framework_ko[] = {
    {"check passed", "check 통과"},
    {"check failed", "check 실패"},
    {"%d of %d checks failed%s: %.860s", "check %d 개 실패 (전체 %d 개)%s: %.860s"},
    {" (%d question%s wait%s for your answer%s)", " (답을 기다리는 질문 %d 개%s%s%s)"},
    {"%d questions not answered yet: %s", "아직 답하지 않은 질문 %d 개: %s"},
    {"all %d checks passed", "check %d 개 모두 통과"},
    {"(a check failed without a message)", "(메시지 없이 실패한 check)"},
    {"ran", "실행함"},
    {"read", "읽음"},
    {"cancelled", "취소됨"},
    {"cancelled during %s", "%s 중에 취소됨"},
    {"lab error in %s: %s", "%s 에서 lab 오류: %s"},
    {"lab %s did not load", "lab %s - 로드하지 못했다"},
    {"locked: %s", "잠김: %s"},
    {" (and %zu more)", " (그 밖에 %zu 개 더)"},
    {"a stream-ordering race%s: %s", "stream-ordering race%s: %s"},
    {"every access ordered after the ones it conflicts with - on the device (an event recorded after the write, "
     "waited on by the stream that reads) - so the result does not depend on which stream runs first",
     "충돌하는 접근 뒤로 모든 접근이 device 에서 순서가 잡혀 있을 것 (write 뒤에 record 한 event 를 읽는 stream 이 "
     "wait) - 그래야 어느 stream 이 먼저 돌든 결과가 같다"},
    {"%s, then %s (the log pane lists every race)", "%s, 그다음 %s (log pane 에 race 가 모두 나온다)"},
    {": not answered yet", ": 아직 답하지 않았다"},
    /* the class's pacing (pacing.c) */
    {"lab %s is not open yet: the class opens it when the instructor says so",
     "lab %s - 아직 열리지 않았다: 강사가 열면 수업에서 열린다"},
    {"step %d (%s) opens when step %d (%s) is done: the class takes each lab's steps in order",
     "step %d (%s) - 먼저 step %d (%s) 까지 마쳐야 열린다: 수업은 lab 의 step 을 차례대로 한다"},
};

const char *lab_tr(const char *en)
{
    return mgpu_tr_in(framework_ko, sizeof framework_ko / sizeof framework_ko[0], en);
}

void mgpu_lab_catalog_set_lang(mgpu_lab_catalog *cat, mgpu_lang lang)
{
    mgpu_lang_set(lang);
    for (int i = 0; cat && i < cat->nlabs; i++) lab_lang_point(&cat->labs[i], lang);
}
