/* lua_sandbox.c - a Lua state with only safe libraries, a memory cap, a
 * wall-clock or CPU-time budget checked from an instruction-count hook, and protected
 * calls with tracebacks (see lua_sandbox.h). */
#include "mgpu/lua_sandbox.h"
#include "mgpu/clock.h"
#include "lua/lua_runaway.h"
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct mgpu_lua {
    lua_State *L;
    size_t used, limit;
    int hit_limit;            /* the allocator refused a request since the call began */
    double time_limit_s;
    uint64_t deadline_ns;     /* 0 = no budget running; mgpu_now_ns clock (for a CPU budget,
                               * the earliest wall time it can be spent: see budget_spent) */
    int cpu_time;             /* the budget counts this thread's CPU time (mgpu_lua_config) */
    uint64_t cpu_start_ns;    /* the thread's CPU clock when the budget (re)started */
    int hook_count;
    int expired;              /* the budget ran out during this call */
    unsigned alloc_tick;      /* allocations since the allocator last read the clock */
    lua_runaway runaway;      /* the outside watch of the running call (lua_runaway.c) */
    volatile int *interrupt;  /* Ctrl-C (mgpu_lua_set_interrupt), or NULL */
    double interrupt_stop_s;
    int interrupted;          /* the flag was seen during this call */
    int depth;                /* nesting of mgpu_lua_pcall */
    mgpu_lua_print_fn print;
    void *print_ctx;
    char *err_msg, *err_tb;   /* last error, split in message and traceback */
    char *engine_msg;         /* the last error raised by mgpu_lua_raise_engine */
    mgpu_result engine_code;
    char warn_buf[512];       /* a warning arrives in pieces */
    size_t warn_len;
};

/*--- The budget's clock -----------------------------------------------*/

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return mgpu_now_ns(); /* never on Linux */
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t budget_ns(const mgpu_lua *sb) { return (uint64_t)(sb->time_limit_s * 1e9); }

/* Whether the running call's budget is spent. The wall clock is cheap (the
 * vDSO) and read every hook; a CPU budget's clock is a system call, read
 * only once the wall deadline has passed: a thread spends at most a second
 * of CPU per second, so the CPU budget cannot be spent before it. When
 * it is not spent, the deadline moves to the earliest time it can be. */
static int budget_spent(mgpu_lua *sb)
{
    uint64_t now = mgpu_now_ns();
    if (now < sb->deadline_ns) return 0;
    if (sb->cpu_time) {
        uint64_t used = thread_cpu_ns() - sb->cpu_start_ns;
        if (used < budget_ns(sb)) {
            sb->deadline_ns = now + (budget_ns(sb) - used);
            return 0;
        }
    }
    return 1;
}

/*--- Memory: a counting allocator with a cap ---------------------------*/

/* lua_Alloc: frees always succeed and shrinking is never refused (Lua
 * requires both); growth past the cap returns NULL, which Lua turns into a
 * "not enough memory" error in the script. */
static void *sb_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    mgpu_lua *sb = ud;
    if (!ptr) osize = 0; /* osize then encodes the object type, not a size */
    if (nsize == 0) {
        free(ptr);
        sb->used -= osize;
        return NULL;
    }
    if (nsize > osize && (nsize - osize > sb->limit || sb->used > sb->limit - (nsize - osize))) {
        sb->hit_limit = 1;
        return NULL;
    }
    /* C functions (string.rep of 100 MB in a loop) allocate without
     * running VM instructions, so the hook may not see the budget run out:
     * growth past the deadline is refused too, and the call unwinds with
     * the budget's message (mgpu_lua_pcall looks at `expired` first). The
     * clock is read for large requests and every 64th small one. */
    if (sb->deadline_ns && nsize > osize && (nsize - osize >= 4096 || (++sb->alloc_tick & 63) == 0) &&
        (sb->expired || budget_spent(sb))) {
        sb->expired = 1;
        return NULL;
    }
    /* the same for Ctrl-C: a string.rep loop never reaches the hook (large
     * requests only, so ordinary code stops in the hook, at its line) */
    if (sb->interrupt && nsize > osize && nsize - osize >= 4096 && sb->depth > 0 && (sb->interrupted || *sb->interrupt)) {
        sb->interrupted = 1;
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (!p) return NULL;
    sb->used = sb->used - osize + nsize;
    return p;
}

/*--- Time: the instruction-count hook ----------------------------------*/

static void sb_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    mgpu_lua *sb = mgpu_lua_from_state(L);
    if (sb->interrupt && sb->depth > 0 && (sb->interrupted || *sb->interrupt)) {
        /* Ctrl-C: like an expired budget, every instruction raises from now on */
        sb->interrupted = 1;
        lua_sethook(L, sb_hook, LUA_MASKCOUNT, 1);
        luaL_where(L, 0);
        lua_pushstring(L, "cancelled by the user");
        lua_concat(L, 2);
        lua_error(L);
    }
    if (!sb->deadline_ns || !budget_spent(sb)) return;
    sb->expired = 1;
    /* From now on every instruction raises, so a pcall in the script can
     * catch the error but never run another line of its own. */
    lua_sethook(L, sb_hook, LUA_MASKCOUNT, 1);
    /* level 0 is the function the hook interrupted: name its line */
    char msg[160];
    snprintf(msg, sizeof msg, "the script ran past its time budget of %g s and was stopped (an endless loop?)",
             sb->time_limit_s);
    luaL_where(L, 0);
    lua_pushstring(L, msg);
    lua_concat(L, 2);
    lua_error(L);
}

/*--- Output: print and warnings ----------------------------------------*/

static void emit(mgpu_lua *sb, const char *s, size_t n)
{
    if (sb->print) {
        sb->print(sb->print_ctx, s, n);
        return;
    }
    fwrite(s, 1, n, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

const char *mgpu_lua_join_args(lua_State *L, size_t *len)
{
    int n = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 1; i <= n; i++) {
        if (i > 1) luaL_addchar(&b, '\t');
        luaL_tolstring(L, i, NULL);
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    return lua_tolstring(L, -1, len);
}

/* print(...): arguments through tostring (and __tostring), tab-separated. */
static int sb_print(lua_State *L)
{
    size_t len;
    const char *s = mgpu_lua_join_args(L, &len);
    emit(mgpu_lua_from_state(L), s, len);
    return 0;
}

/* lua_WarnFunction: pieces are joined until the last; control messages
 * ("@on", "@off") are ignored - warnings (e.g. an error in a __gc) always
 * reach the host, since a learner would want to see them. */
static void sb_warn(void *ud, const char *msg, int tocont)
{
    mgpu_lua *sb = ud;
    if (sb->warn_len == 0 && !tocont && msg[0] == '@') return;
    if (sb->warn_len == 0) {
        memcpy(sb->warn_buf, "warning: ", 9);
        sb->warn_len = 9;
    }
    size_t n = strlen(msg), room = sizeof sb->warn_buf - 1 - sb->warn_len;
    if (n > room) n = room;
    memcpy(sb->warn_buf + sb->warn_len, msg, n);
    sb->warn_len += n;
    if (tocont) return;
    sb->warn_buf[sb->warn_len] = '\0';
    emit(sb, sb->warn_buf, sb->warn_len);
    sb->warn_len = 0;
}

/*--- Refusals -----------------------------------------------------------*/

/* A stand-in for a refused function: upvalues are its name and why. */
static int refuse_call(lua_State *L)
{
    return luaL_error(L, "%s is not available in the mgpulab sandbox: %s", lua_tostring(L, lua_upvalueindex(1)),
                      lua_tostring(L, lua_upvalueindex(2)));
}

/* __index/__newindex of a refused library table: names the field. */
static int refuse_field(lua_State *L)
{
    const char *lib = lua_tostring(L, lua_upvalueindex(1));
    const char *why = lua_tostring(L, lua_upvalueindex(2));
    if (lua_type(L, 2) == LUA_TSTRING)
        return luaL_error(L, "%s.%s is not available in the mgpulab sandbox: %s", lib, lua_tostring(L, 2), why);
    return luaL_error(L, "%s is not available in the mgpulab sandbox: %s", lib, why);
}

static void push_refused_fn(lua_State *L, const char *name, const char *why)
{
    lua_pushstring(L, name);
    lua_pushstring(L, why);
    lua_pushcclosure(L, refuse_call, 2);
}

/* Give the table on top of the stack a locked metatable whose lookups of
 * missing fields (and stores) raise "lib.field is not available". */
static void refuse_missing_fields(lua_State *L, const char *lib, const char *why)
{
    lua_newtable(L);
    lua_pushstring(L, lib);
    lua_pushstring(L, why);
    lua_pushcclosure(L, refuse_field, 2);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "__index");
    lua_setfield(L, -2, "__newindex");
    lua_pushstring(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
}

static void set_refused_lib(lua_State *L, const char *lib, const char *why)
{
    lua_newtable(L);
    refuse_missing_fields(L, lib, why);
    lua_setglobal(L, lib);
}

/*--- Restricted base functions ------------------------------------------*/

/* load(chunk [, chunkname [, mode [, env]]]) with mode forced to "t". A
 * string of bytecode gets load's usual nil + message, worded for learners. */
static int sb_load(lua_State *L)
{
    int n = lua_gettop(L);
    if (n >= 3 && !lua_isnil(L, 3)) {
        const char *mode = luaL_checkstring(L, 3);
        if (strcmp(mode, "t") != 0)
            return luaL_error(L, "load: mode '%s' is refused: the mgpulab sandbox loads only source text "
                                 "(mode \"t\"), never bytecode", mode);
    }
    if (lua_type(L, 1) == LUA_TSTRING && lua_tostring(L, 1)[0] == LUA_SIGNATURE[0]) {
        luaL_pushfail(L);
        lua_pushliteral(L, "load: binary chunks (bytecode) are refused in the mgpulab sandbox; load source text");
        return 2;
    }
    if (n < 3) {
        lua_settop(L, 3); /* a nil env would be taken as "env = nil": only pad up to mode */
        n = 3;
    }
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

/* collectgarbage with the harmless options only: stopping the collector or
 * retuning it is not a learner's business and would only defeat the cap. */
static int sb_collectgarbage(lua_State *L)
{
    const char *opt = luaL_optstring(L, 1, "collect");
    static const char *const ok[] = {"collect", "count", "step", "isrunning", NULL};
    for (int i = 0; ok[i]; i++)
        if (strcmp(opt, ok[i]) == 0) {
            lua_pushvalue(L, lua_upvalueindex(1));
            lua_insert(L, 1);
            lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
            return lua_gettop(L);
        }
    return luaL_error(L, "collectgarbage('%s') is not available in the mgpulab sandbox (allowed: collect, "
                         "count, step, isrunning)", opt);
}

/* setmetatable without __gc: Lua runs finalizers with hooks off (and at
 * lua_close with no budget at all), so a finalizer with an endless loop
 * would escape the time budget. __close runs as an ordinary call and stays. */
static int sb_setmetatable(lua_State *L)
{
    if (lua_type(L, 2) == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        int gc = lua_rawget(L, 2) != LUA_TNIL;
        lua_pop(L, 1);
        if (gc)
            return luaL_error(L, "setmetatable: __gc finalizers are not available in the mgpulab sandbox (Lua "
                                 "runs them outside the script's time budget); use a to-be-closed variable "
                                 "(__close) to clean up");
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

static void wrap_global(lua_State *L, const char *name, lua_CFunction fn)
{
    lua_getglobal(L, name);
    lua_pushcclosure(L, fn, 1);
    lua_setglobal(L, name);
}

/* The os table a script sees: time and date only. */
static void open_safe_os(lua_State *L)
{
    luaL_requiref(L, LUA_OSLIBNAME, luaopen_os, 0);
    lua_newtable(L);
    static const char *const keep[] = {"clock", "time", "date", "difftime", NULL};
    for (int i = 0; keep[i]; i++) {
        lua_getfield(L, -2, keep[i]);
        lua_setfield(L, -2, keep[i]);
    }
    refuse_missing_fields(L, "os", "only os.clock, os.time, os.date and os.difftime are; scripts cannot run "
                                   "programs, exit, or touch files and the environment");
    /* replace the full library in the loaded table too, so nothing keeps a
     * path to os.execute */
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, LUA_OSLIBNAME);
    lua_pop(L, 1);
    lua_setglobal(L, LUA_OSLIBNAME);
    lua_pop(L, 1);
}

static int open_libs_protected(lua_State *L)
{
    static const luaL_Reg libs[] = {
        {LUA_GNAME, luaopen_base},          {LUA_STRLIBNAME, luaopen_string}, {LUA_TABLIBNAME, luaopen_table},
        {LUA_MATHLIBNAME, luaopen_math},    {LUA_UTF8LIBNAME, luaopen_utf8},  {LUA_COLIBNAME, luaopen_coroutine},
        {NULL, NULL},
    };
    for (const luaL_Reg *l = libs; l->func; l++) {
        luaL_requiref(L, l->name, l->func, 1);
        lua_pop(L, 1);
    }
    open_safe_os(L);

    static const char files[] = "scripts cannot read files; load() takes source text";
    push_refused_fn(L, "dofile", files);
    lua_setglobal(L, "dofile");
    push_refused_fn(L, "loadfile", files);
    lua_setglobal(L, "loadfile");
    push_refused_fn(L, "require", "a script is one file; Lua modules and C libraries cannot be loaded");
    lua_setglobal(L, "require");
    set_refused_lib(L, "package", "a script is one file; Lua modules and C libraries cannot be loaded");
    set_refused_lib(L, "io", "scripts cannot read or write files or run programs; print() sends text to "
                             "the coordinator");
    set_refused_lib(L, "debug", "it reaches inside other functions and would defeat the sandbox's limits");
    wrap_global(L, "load", sb_load);
    wrap_global(L, "collectgarbage", sb_collectgarbage);
    wrap_global(L, "setmetatable", sb_setmetatable);
    lua_pushcfunction(L, sb_print);
    lua_setglobal(L, "print");
    return 0;
}

/*--- Life cycle ---------------------------------------------------------*/

mgpu_result mgpu_lua_open(const mgpu_lua_config *cfg, mgpu_lua **out)
{
    *out = NULL;
    mgpu_lua *sb = calloc(1, sizeof *sb);
    if (!sb) return mgpu_fail(MGPU_ERR_NOMEM, "no memory for a Lua sandbox");
    sb->limit = cfg && cfg->mem_limit ? cfg->mem_limit : MGPU_LUA_DEFAULT_MEM;
    sb->time_limit_s = cfg && cfg->time_limit_s > 0 ? cfg->time_limit_s : 0;
    sb->cpu_time = cfg && cfg->cpu_time;
    sb->hook_count = cfg && cfg->hook_count > 0 ? cfg->hook_count : MGPU_LUA_DEFAULT_HOOK_COUNT;
    sb->print = cfg ? cfg->print : NULL;
    sb->print_ctx = cfg ? cfg->print_ctx : NULL;
    sb->engine_code = MGPU_OK;
    sb->L = lua_newstate(sb_alloc, sb);
    if (!sb->L) {
        free(sb);
        return mgpu_fail(MGPU_ERR_NOMEM, "cannot create a Lua state (memory cap %zu bytes too small?)",
                         cfg && cfg->mem_limit ? cfg->mem_limit : MGPU_LUA_DEFAULT_MEM);
    }
    lua_setwarnf(sb->L, sb_warn, sb);
    /* opening the libraries can only fail for want of memory: run it
     * protected so a tiny cap gives an error, not a panic */
    lua_pushcfunction(sb->L, open_libs_protected);
    if (lua_pcall(sb->L, 0, 0, 0) != LUA_OK) {
        mgpu_result r = mgpu_fail(MGPU_ERR_NOMEM, "cannot set up the Lua sandbox: %s (memory cap %zu bytes)",
                                  lua_tostring(sb->L, -1) ? lua_tostring(sb->L, -1) : "error", sb->limit);
        lua_close(sb->L);
        free(sb);
        return r;
    }
    lua_sethook(sb->L, sb_hook, LUA_MASKCOUNT, sb->hook_count);
    *out = sb;
    return MGPU_OK;
}

void mgpu_lua_close(mgpu_lua *sb)
{
    if (!sb) return;
    /* __gc metamethods at close run without a budget: only the host's own
     * (scripts cannot set __gc, see sb_setmetatable) */
    sb->deadline_ns = 0;
    lua_runaway_disarm(&sb->runaway);
    lua_close(sb->L);
    free(sb->err_msg);
    free(sb->err_tb);
    free(sb->engine_msg);
    free(sb);
}

lua_State *mgpu_lua_state(mgpu_lua *sb) { return sb->L; }

mgpu_lua *mgpu_lua_from_state(lua_State *L)
{
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return ud;
}

void mgpu_lua_set_time_limit(mgpu_lua *sb, double seconds) { sb->time_limit_s = seconds > 0 ? seconds : 0; }

void mgpu_lua_set_interrupt(mgpu_lua *sb, volatile int *flag, double stop_after_s)
{
    sb->interrupt = flag;
    sb->interrupt_stop_s = flag && stop_after_s > 0 ? stop_after_s : 0;
    lua_runaway_set_interrupt(&sb->runaway, sb->interrupt, sb->interrupt_stop_s);
}

/* Start the running call's budget from now (time_limit_s > 0), and the
 * outside watch on it: by the same clock, `grace` after the budget; a CPU
 * budget also by the wall-clock backstop (lua_sandbox.h). */
static void start_budget(mgpu_lua *sb)
{
    uint64_t now = mgpu_now_ns(), grace = (uint64_t)(lua_runaway_grace_s(sb->time_limit_s) * 1e9);
    sb->deadline_ns = now + budget_ns(sb);
    if (!sb->cpu_time) {
        lua_runaway_arm(&sb->runaway, sb->deadline_ns + grace, sb->time_limit_s);
        return;
    }
    sb->cpu_start_ns = thread_cpu_ns();
    double backstop_s = MGPU_LUA_WALL_BACKSTOP_X * sb->time_limit_s + grace / 1e9;
    if (backstop_s < MGPU_LUA_WALL_BACKSTOP_MIN_S) backstop_s = MGPU_LUA_WALL_BACKSTOP_MIN_S;
    lua_runaway_arm_cpu(&sb->runaway, sb->cpu_start_ns + budget_ns(sb) + grace, now + (uint64_t)(backstop_s * 1e9),
                        sb->time_limit_s);
}

void mgpu_lua_restart_budget(mgpu_lua *sb)
{
    if (sb->deadline_ns && !sb->expired) start_budget(sb);
}

void mgpu_lua_hold_budget(mgpu_lua *sb)
{
    if (sb->deadline_ns && !sb->expired) lua_runaway_disarm(&sb->runaway);
}
size_t mgpu_lua_mem_used(const mgpu_lua *sb) { return sb->used; }
size_t mgpu_lua_mem_limit(const mgpu_lua *sb) { return sb->limit; }
const char *mgpu_lua_error_message(const mgpu_lua *sb) { return sb->err_msg ? sb->err_msg : ""; }
const char *mgpu_lua_error_traceback(const mgpu_lua *sb) { return sb->err_tb ? sb->err_tb : ""; }

/*--- Errors -------------------------------------------------------------*/

/* Remember an error as message + traceback (split where luaL_traceback
 * begins). Uses plain malloc: the text must survive a state at its cap. */
static void set_error(mgpu_lua *sb, const char *text, size_t len)
{
    free(sb->err_msg);
    free(sb->err_tb);
    sb->err_msg = sb->err_tb = NULL;
    const char *tb = strstr(text, "\nstack traceback:");
    size_t mlen = tb ? (size_t)(tb - text) : len;
    sb->err_msg = strndup(text, mlen);
    sb->err_tb = strdup(tb ? tb + 1 : "");
}

/* The message handler: the error as text, then the traceback. */
static int sb_msgh(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            msg = lua_tostring(L, -1);
        else
            msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

int mgpu_lua_raise_engine(lua_State *L, const char *what)
{
    mgpu_lua *sb = mgpu_lua_from_state(L);
    luaL_where(L, 1);
    lua_pushfstring(L, "%s: %s", what, mgpu_error_message());
    lua_concat(L, 2);
    free(sb->engine_msg);
    sb->engine_msg = strdup(lua_tostring(L, -1));
    sb->engine_code = mgpu_error_code() != MGPU_OK ? mgpu_error_code() : MGPU_ERR_INTERNAL;
    return lua_error(L);
}

/*--- Calls --------------------------------------------------------------*/

mgpu_result mgpu_lua_load(mgpu_lua *sb, const char *text, size_t len, const char *chunkname)
{
    lua_State *L = sb->L;
    if (len > 0 && text[0] == LUA_SIGNATURE[0]) {
        static const char m[] = "refused: this is a binary chunk (precompiled bytecode); the mgpulab sandbox "
                                "loads only Lua source text";
        set_error(sb, m, sizeof m - 1);
        return mgpu_fail(MGPU_ERR_INVALID, "%s", m);
    }
    sb->hit_limit = 0;
    int st = luaL_loadbufferx(L, text, len, chunkname, "t");
    if (st == LUA_OK) return MGPU_OK;
    size_t n = 0;
    const char *msg = lua_tolstring(L, -1, &n);
    if (!msg) msg = "error while loading";
    if (st == LUA_ERRMEM) {
        char m[256];
        snprintf(m, sizeof m, "not enough memory to compile the script (the sandbox's memory cap is %zu MiB)",
                 sb->limit >> 20);
        set_error(sb, m, strlen(m));
    } else {
        set_error(sb, msg, n ? n : strlen(msg));
    }
    lua_pop(L, 1);
    return mgpu_fail(st == LUA_ERRSYNTAX ? MGPU_ERR_PARSE : MGPU_ERR_NOMEM, "%s", mgpu_lua_error_message(sb));
}

mgpu_result mgpu_lua_pcall(mgpu_lua *sb, int nargs, int nresults)
{
    lua_State *L = sb->L;
    int base = lua_gettop(L) - nargs; /* the function's index */
    if (base < 1 || !lua_isfunction(L, base)) {
        lua_pop(L, nargs + (base >= 1));
        return mgpu_fail(MGPU_ERR_INTERNAL, "mgpu_lua_pcall: no function to call");
    }
    int outer = sb->depth == 0;
    if (outer) {
        sb->expired = 0;
        sb->interrupted = 0;
        sb->hit_limit = 0;
        sb->engine_code = MGPU_OK;
        free(sb->engine_msg);
        sb->engine_msg = NULL;
        sb->deadline_ns = 0;
        lua_sethook(L, sb_hook, LUA_MASKCOUNT, sb->hook_count); /* undo a previous expiry's count of 1 */
        if (sb->time_limit_s > 0) start_budget(sb);
    }
    lua_pushcfunction(L, sb_msgh);
    lua_insert(L, base);
    sb->depth++;
    int st = lua_pcall(L, nargs, nresults, base);
    sb->depth--;
    lua_remove(L, base);
    int expired = sb->expired, interrupted = sb->interrupted;
    if (outer) {
        sb->deadline_ns = 0;
        lua_runaway_disarm(&sb->runaway);
    }
    if (st == LUA_OK) return MGPU_OK;

    size_t n = 0;
    const char *text = lua_tolstring(L, -1, &n);
    mgpu_result code = MGPU_ERR_INVALID;
    if (interrupted && !expired) {
        code = MGPU_ERR_TIMEOUT;
        if (st == LUA_ERRMEM || !text || strstr(text, "not enough memory")) {
            const char *m = "cancelled by the user (inside a library call: string.rep, table.concat, ...)";
            set_error(sb, m, strlen(m));
        } else {
            set_error(sb, text, n);
        }
    } else if (expired) {
        code = MGPU_ERR_TIMEOUT;
        if (st == LUA_ERRMEM || !text || strstr(text, "not enough memory")) {
            /* the allocator refused growth past the deadline (sb_alloc) */
            char m[200];
            snprintf(m, sizeof m, "the script ran past its time budget of %g s and was stopped (inside a "
                                  "library call: string.rep, table.concat, ...)", sb->time_limit_s);
            set_error(sb, m, strlen(m));
        } else {
            set_error(sb, text, n);
        }
    } else if (st == LUA_ERRMEM || (sb->hit_limit && text && strstr(text, "not enough memory"))) {
        /* no handler runs for memory errors: say which limit was hit */
        char m[256];
        snprintf(m, sizeof m, "not enough memory: the script reached the sandbox's memory cap of %zu MiB",
                 sb->limit >> 20);
        set_error(sb, m, strlen(m));
        if (text && strstr(text, "\nstack traceback:")) { /* caught and re-raised: keep the traceback */
            free(sb->err_tb);
            sb->err_tb = strdup(strstr(text, "\nstack traceback:") + 1);
        }
        code = MGPU_ERR_NOMEM;
    } else {
        set_error(sb, text ? text : "(error object is not a string)", text ? n : 30);
        if (sb->engine_msg && strcmp(mgpu_lua_error_message(sb), sb->engine_msg) == 0) code = sb->engine_code;
    }
    lua_pop(L, 1);
    const char *msg = mgpu_lua_error_message(sb), *tb = mgpu_lua_error_traceback(sb);
    if (*tb) return mgpu_fail(code, "%s\n%s", msg, tb);
    return mgpu_fail(code, "%s", msg);
}

mgpu_result mgpu_lua_run(mgpu_lua *sb, const char *text, size_t len, const char *chunkname, int nresults)
{
    MGPU_CHECK(mgpu_lua_load(sb, text, len, chunkname));
    MGPU_CHECK(mgpu_lua_pcall(sb, 0, nresults));
    return MGPU_OK;
}
