/* test_lua_sandbox.c - the sandbox refuses what reaches outside the process
 * with clear errors, stops endless loops and allocation bombs, and reports
 * errors with a traceback that names the line. */
#include "mgpu/lua_sandbox.h"
#include "lua/lua_runaway.h"
#include "mgpu/clock.h"
#include "tap.h"
#include <lauxlib.h>
#include <lualib.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char printed[1024];

static void capture(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    size_t used = strlen(printed);
    if (used + n + 2 >= sizeof printed) return;
    memcpy(printed + used, s, n);
    printed[used + n] = '\n';
    printed[used + n + 1] = '\0';
}

static mgpu_lua *open_sb(size_t mem, double secs)
{
    mgpu_lua_config cfg = {.mem_limit = mem, .time_limit_s = secs, .print = capture};
    mgpu_lua *sb = NULL;
    CHECK_OK(mgpu_lua_open(&cfg, &sb));
    return sb;
}

/* Run `code`; it must fail with `code_want` and a message containing `want`. */
static void expect_error(mgpu_lua *sb, const char *code, mgpu_result code_want, const char *want)
{
    mgpu_result r = mgpu_lua_run(sb, code, strlen(code), "@test.lua", 0);
    CHECKF(r == code_want, "%s: result %s, want %s (%s)", code, mgpu_result_name(r), mgpu_result_name(code_want),
           mgpu_error_message());
    CHECKF(strstr(mgpu_lua_error_message(sb), want) != NULL, "%s: message '%s' lacks '%s'", code,
           mgpu_lua_error_message(sb), want);
}

static void expect_ok(mgpu_lua *sb, const char *code)
{
    mgpu_result r = mgpu_lua_run(sb, code, strlen(code), "@test.lua", 0);
    CHECKF(r == MGPU_OK, "%s: %s", code, mgpu_error_message());
}

static void test_refusals(void)
{
    mgpu_lua *sb = open_sb(0, 5);
    expect_error(sb, "os.execute('touch /tmp/mgpulab-sandbox-escape')", MGPU_ERR_INVALID,
                 "os.execute is not available in the mgpulab sandbox");
    expect_error(sb, "os.exit(3)", MGPU_ERR_INVALID, "os.exit is not available");
    expect_error(sb, "return os.getenv('HOME')", MGPU_ERR_INVALID, "os.getenv is not available");
    expect_error(sb, "io.popen('id')", MGPU_ERR_INVALID, "io.popen is not available in the mgpulab sandbox");
    expect_error(sb, "io.open('/etc/passwd')", MGPU_ERR_INVALID, "io.open is not available");
    expect_error(sb, "require('os')", MGPU_ERR_INVALID, "require is not available");
    expect_error(sb, "package.loadlib('libc.so.6', 'system')", MGPU_ERR_INVALID, "package.loadlib is not available");
    expect_error(sb, "debug.sethook()", MGPU_ERR_INVALID, "debug.sethook is not available");
    expect_error(sb, "dofile('/etc/passwd')", MGPU_ERR_INVALID, "dofile is not available");
    expect_error(sb, "loadfile('/etc/passwd')", MGPU_ERR_INVALID, "loadfile is not available");
    expect_error(sb, "collectgarbage('stop')", MGPU_ERR_INVALID, "collectgarbage('stop') is not available");
    expect_error(sb, "os.foo = 1", MGPU_ERR_INVALID, "os.foo is not available");
    /* the refusal names the script's line */
    expect_error(sb, "local x = 1\nio.write('x')", MGPU_ERR_INVALID, "test.lua:2: io.write");
    /* the library tables cannot be unlocked */
    expect_ok(sb, "assert(getmetatable(io) == 'locked'); assert(not pcall(setmetatable, io, nil))");

    /* bytecode: string.dump works, loading it does not */
    expect_error(sb, "local bc = string.dump(function() return 1 end)\nassert(load(bc))", MGPU_ERR_INVALID,
                 "binary chunks (bytecode) are refused");
    expect_error(sb, "load(string.dump(function() end), 'x', 'b')", MGPU_ERR_INVALID, "mode 'b' is refused");
    expect_error(sb, "load(string.dump(function() end), 'x', 'bt')", MGPU_ERR_INVALID, "mode 'bt' is refused");
    /* a reader function that yields bytecode is refused by mode "t" too */
    expect_error(sb,
                 "local bc, done = string.dump(function() end), false\n"
                 "assert(load(function() if done then return nil end done = true return bc end))",
                 MGPU_ERR_INVALID, "binary chunk");
    /* bytecode handed to the host loader */
    {
        lua_State *plain = luaL_newstate();
        luaL_openlibs(plain);
        CHECK(luaL_dostring(plain, "return string.dump(function() return 42 end)") == LUA_OK);
        size_t n = 0;
        const char *bc = lua_tolstring(plain, -1, &n);
        CHECK(bc && n > 4 && bc[0] == 0x1b);
        mgpu_result r = mgpu_lua_load(sb, bc, n, "=bytecode");
        CHECKF(r == MGPU_ERR_INVALID && strstr(mgpu_error_message(), "bytecode"), "host load of bytecode: %s",
               mgpu_error_message());
        lua_close(plain);
    }

    /* what is allowed still works */
    expect_ok(sb, "assert(load('return 1 + 1')() == 2)\n"
                  "assert(load('return x', 'c', 't', {x = 5})() == 5)\n"
                  "assert(type(os.time()) == 'number' and type(os.clock()) == 'number')\n"
                  "assert(os.date('!%Y', 0) == '1970')\n"
                  "assert(collectgarbage('count') > 0)\n"
                  "assert(string.rep('ab', 3) == 'ababab' and math.max(1, 2) == 2 and utf8.char(65) == 'A')\n"
                  "local co = coroutine.wrap(function() coroutine.yield(7) end)\n"
                  "assert(co() == 7)\n"
                  "assert(table.concat({1, 2}, ',') == '1,2')");
    printed[0] = '\0';
    expect_ok(sb, "print('a', 1, nil, true)");
    CHECKF(strcmp(printed, "a\t1\tnil\ttrue\n") == 0, "print gave '%s'", printed);
    mgpu_lua_close(sb);
}

static void test_time_budget(void)
{
    mgpu_lua *sb = open_sb(0, 0.3);
    uint64_t t0 = mgpu_now_ns();
    expect_error(sb, "local n = 0\nwhile true do n = n + 1 end", MGPU_ERR_TIMEOUT, "time budget of 0.3 s");
    double s = (double)(mgpu_now_ns() - t0) / 1e9;
    /* the upper bound is about a hang only: a busy machine (ASan, load 25
     * on 2 cores) may leave the thread waiting for a CPU for seconds */
    CHECKF(s >= 0.25 && s < 60.0, "endless loop stopped after %.2f s (budget 0.3 s)", s);
    CHECKF(strstr(mgpu_lua_error_message(sb), "test.lua:2:") != NULL, "names the loop's line: %s",
           mgpu_lua_error_message(sb));

    /* catching the error with pcall does not let the script go on */
    t0 = mgpu_now_ns();
    expect_error(sb, "while true do pcall(function() while true do end end) end", MGPU_ERR_TIMEOUT, "time budget");
    s = (double)(mgpu_now_ns() - t0) / 1e9;
    CHECKF(s < 60.0, "pcall-wrapped loop stopped after %.2f s", s);
    expect_error(sb, "local co = coroutine.wrap(function() while true do end end)\nco()", MGPU_ERR_TIMEOUT,
                 "time budget");

    /* each call gets a fresh budget: the state still works */
    expect_ok(sb, "local s = 0 for i = 1, 1000 do s = s + i end assert(s == 500500)");
    mgpu_lua_close(sb);
}

static int l_sleep_ms(lua_State *L)
{
    long ms = (long)luaL_checkinteger(L, 1);
    struct timespec ts = {.tv_sec = (time_t)(ms / 1000), .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    return 0;
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A budget in CPU time (cfg.cpu_time, a lab's): time the thread spends off
 * the CPU (here a sleep; on a busy machine, waiting for a core) does not
 * count, the CPU an endless loop spends does. The same script under a
 * wall-clock budget is stopped. */
static void test_cpu_budget(void)
{
    const char *sleepy = "for i = 1, 6 do sleep_ms(100) end local n = 0 for i = 1, 100000 do n = n + i end";
    mgpu_lua *wall = open_sb(0, 0.3);
    lua_register(mgpu_lua_state(wall), "sleep_ms", l_sleep_ms);
    expect_error(wall, sleepy, MGPU_ERR_TIMEOUT, "time budget of 0.3 s");
    mgpu_lua_close(wall);

    mgpu_lua_config cfg = {.time_limit_s = 0.3, .cpu_time = 1, .print = capture};
    mgpu_lua *sb = NULL;
    CHECK_OK(mgpu_lua_open(&cfg, &sb));
    lua_register(mgpu_lua_state(sb), "sleep_ms", l_sleep_ms);
    expect_ok(sb, sleepy);
    uint64_t c0 = thread_cpu_ns();
    expect_error(sb, "local n = 0\nwhile true do n = n + 1 end", MGPU_ERR_TIMEOUT, "time budget of 0.3 s");
    double cpu = (double)(thread_cpu_ns() - c0) / 1e9;
    CHECKF(cpu >= 0.29, "the loop was stopped after %.2f s of CPU (budget 0.3 s)", cpu);
    CHECKF(strstr(mgpu_lua_error_message(sb), "test.lua:2:") != NULL, "names the loop's line: %s",
           mgpu_lua_error_message(sb));
    /* string.rep in a loop grows memory without the hook: refused past the CPU budget too */
    expect_error(sb, "local t = {} while true do t[#t + 1] = string.rep('x', 1 << 16) if #t > 64 then t = {} end end",
                 MGPU_ERR_TIMEOUT, "time budget");
    expect_ok(sb, "local s = 0 for i = 1, 1000 do s = s + i end assert(s == 500500)");
    mgpu_lua_close(sb);
}

/* A cancel (Ctrl-C) set before or during a call stops the script at its next
 * instruction, through pcall, and a string.rep loop at its next allocation;
 * the budget (an hour here) plays no part. */
static void test_interrupt(void)
{
    mgpu_lua *sb = open_sb(0, 3600);
    volatile int flag = 1;
    mgpu_lua_set_interrupt(sb, &flag, 0);
    expect_error(sb, "local n = 0\nwhile true do n = n + 1 end", MGPU_ERR_TIMEOUT, "test.lua:2: cancelled by the user");
    expect_error(sb, "while true do pcall(function() while true do end end) end", MGPU_ERR_TIMEOUT, "cancelled");
    expect_error(sb, "while true do local s = string.rep('z', 1e7) end", MGPU_ERR_TIMEOUT, "cancelled by the user");
    flag = 0; /* the flag cleared: the state works again */
    expect_ok(sb, "local s = 0 for i = 1, 1000 do s = s + i end assert(s == 500500)");
    mgpu_lua_set_interrupt(sb, NULL, 0);
    mgpu_lua_close(sb);
}

static void test_memory_cap(void)
{
    mgpu_lua *sb = open_sb(16u << 20, 10);
    uint64_t t0 = mgpu_now_ns();
    expect_error(sb, "local s = 'x'\nwhile true do s = s .. s end", MGPU_ERR_NOMEM, "memory cap of 16 MiB");
    expect_error(sb, "local t = {}\nfor i = 1, 1e9 do t[i] = i end", MGPU_ERR_NOMEM, "memory cap");
    expect_error(sb, "local s = string.rep('x', 1 << 30)", MGPU_ERR_NOMEM, "memory cap");
    /* a bomb caught by pcall: the cap still holds, the state recovers */
    expect_ok(sb, "local ok, e = pcall(function() local s = 'y' while true do s = s .. s end end)\n"
                  "assert(not ok and e:find('not enough memory'))");
    CHECKF((double)(mgpu_now_ns() - t0) / 1e9 < 60, "bombs took %.1f s (a hang?)", (double)(mgpu_now_ns() - t0) / 1e9);
    CHECK(mgpu_lua_mem_used(sb) <= mgpu_lua_mem_limit(sb));
    expect_ok(sb, "collectgarbage() assert(#string.rep('z', 1000) == 1000)");
    mgpu_lua_close(sb);

    /* a cap too small to even open the libraries fails cleanly */
    mgpu_lua_config tiny = {.mem_limit = 2048};
    mgpu_lua *t = NULL;
    mgpu_result r = mgpu_lua_open(&tiny, &t);
    CHECKF(r == MGPU_ERR_NOMEM && t == NULL, "tiny cap: %s", mgpu_error_message());
}

static void test_errors(void)
{
    mgpu_lua *sb = open_sb(0, 5);
    const char *code = "local function inner()\n"
                       "  local t = nil\n"
                       "  return t.field\n"
                       "end\n"
                       "local function outer() return inner() + 1 end\n"
                       "outer()\n";
    expect_error(sb, code, MGPU_ERR_INVALID, "test.lua:3: attempt to index a nil value (local 't')");
    const char *tb = mgpu_lua_error_traceback(sb);
    CHECKF(strncmp(tb, "stack traceback:", 16) == 0, "traceback: %s", tb);
    CHECKF(strstr(tb, "test.lua:3: in") && strstr(tb, "test.lua:5: in") && strstr(tb, "test.lua:6: in"),
           "traceback names lines 3, 5, 6: %s", tb);
    CHECK(strstr(mgpu_error_message(), "stack traceback:") != NULL);

    /* error() with a table and with a __tostring object */
    expect_error(sb, "error({})", MGPU_ERR_INVALID, "(error object is a table value)");
    expect_error(sb, "error(setmetatable({}, {__tostring = function() return 'custom' end}))", MGPU_ERR_INVALID,
                 "custom");

    /* syntax errors fail to load, naming the line */
    const char *bad = "local x = 1\nlocal y = = 2\n";
    mgpu_result r = mgpu_lua_load(sb, bad, strlen(bad), "@bad.lua");
    CHECKF(r == MGPU_ERR_PARSE && strstr(mgpu_error_message(), "bad.lua:2:"), "syntax error: %s",
           mgpu_error_message());
    CHECK(lua_gettop(mgpu_lua_state(sb)) == 0);

    /* results stay on the stack */
    CHECK_OK(mgpu_lua_run(sb, "return 6 * 7, 'x'", 17, "=t", LUA_MULTRET));
    CHECK(lua_gettop(mgpu_lua_state(sb)) == 2 && lua_tointeger(mgpu_lua_state(sb), 1) == 42);
    lua_settop(mgpu_lua_state(sb), 0);
    mgpu_lua_close(sb);
}

/* A bound C function failing with an engine error keeps the engine's code. */
static int engine_fails(lua_State *L)
{
    mgpu_fail(MGPU_ERR_PEER, "peer access from GPU 0 to GPU 1 is not enabled");
    return mgpu_lua_raise_engine(L, "copy");
}

static void test_engine_errors(void)
{
    mgpu_lua *sb = open_sb(0, 5);
    lua_register(mgpu_lua_state(sb), "engine_fails", engine_fails);
    expect_error(sb, "local a = 1\nengine_fails()", MGPU_ERR_PEER,
                 "test.lua:2: copy: peer access from GPU 0 to GPU 1 is not enabled");
    /* caught and replaced by the script's own error: the script's verdict */
    expect_error(sb, "pcall(engine_fails)\nerror('mine')", MGPU_ERR_INVALID, "test.lua:2: mine");
    mgpu_lua_close(sb);
}

/* The runaway watch's grace: the budget itself, and never under 10 s (the
 * hook needs a moment; a collective's watchdog reports first). The test
 * hook that shortens it (MGPU_RUNAWAY_GRACE_S) is unset in main. */
static void test_runaway_grace(void)
{
    CHECKF(lua_runaway_grace_s(1.0) == 10.0, "grace after a 1 s budget: %g s", lua_runaway_grace_s(1.0));
    CHECKF(lua_runaway_grace_s(0) == 10.0, "grace with no budget: %g s", lua_runaway_grace_s(0));
    CHECKF(lua_runaway_grace_s(30.0) == 30.0, "grace after a 30 s budget: %g s", lua_runaway_grace_s(30.0));
}

int main(void)
{
    unsetenv("MGPU_RUNAWAY_GRACE_S"); /* read once, at the first arming */
    test_runaway_grace();
    test_refusals();
    test_time_budget();
    test_cpu_budget();
    test_interrupt();
    test_memory_cap();
    test_errors();
    test_engine_errors();
    return tap_done();
}
