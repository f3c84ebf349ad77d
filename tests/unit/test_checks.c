/* test_checks.c - the shared check library (checks/ *.lua) in the same
 * sandbox the labs use: every check passes on good input, fails on bad
 * input with the numbers it saw and wanted, and answers garbage (nil,
 * strings, NaN, missing tables) with a failed verdict instead of a Lua
 * error. The checks are loaded as the lab framework loads them: each file
 * returns a table of functions, merged into one global `checks`. */
#include "tap.h"
#include "mgpu/lua_sandbox.h"
#include "mgpu/err.h"
#include <dirent.h>
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
    fclose(f);
    if (buf) { buf[n] = 0; *len = (size_t)n; }
    return buf;
}

/* expect(cond, name, detail): one TAP result per Lua expectation */
static int l_expect(lua_State *L)
{
    int ok = lua_toboolean(L, 1);
    const char *name = luaL_optstring(L, 2, "?");
    const char *detail = luaL_optstring(L, 3, "");
    if (ok) tap_passed++;
    else tap_fail("checks", 0, name, "%s", detail);
    return 0;
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static const char TESTS[] =
"local function shape(v)\n"
"  return type(v) == 'table' and type(v.ok) == 'boolean' and type(v.msg) == 'string' and\n"
"         type(v.saw) == 'string' and type(v.wanted) == 'string' and type(v.where) == 'string'\n"
"end\n"
"local function desc(v)\n"
"  if type(v) ~= 'table' then return tostring(v) end\n"
"  return string.format('ok=%s msg=[%s] saw=[%s] wanted=[%s] where=[%s]', tostring(v.ok), tostring(v.msg),\n"
"                       tostring(v.saw), tostring(v.wanted), tostring(v.where))\n"
"end\n"
"-- t(name, function returning a verdict, ok wanted, substrings of msg..saw..wanted..where)\n"
"local function t(name, f, want_ok, ...)\n"
"  local fine, v = pcall(f)\n"
"  expect(fine, name .. ': no Lua error', tostring(v))\n"
"  if not fine then return end\n"
"  expect(shape(v), name .. ': a verdict {ok,msg,saw,wanted,where}', desc(v))\n"
"  if not shape(v) then return end\n"
"  expect(v.ok == want_ok, name .. ': ok == ' .. tostring(want_ok), desc(v))\n"
"  local all = v.msg .. '|' .. v.saw .. '|' .. v.wanted .. '|' .. v.where\n"
"  for _, s in ipairs({...}) do\n"
"    expect(all:find(s, 1, true) ~= nil, name .. ': mentions ' .. s, desc(v))\n"
"  end\n"
"end\n"
"for _, n in ipairs({'bandwidth','close','equals','identical','count','overlap','hang_caught','no_race','all'}) do\n"
"  expect(type(checks[n]) == 'function', 'checks.' .. n .. ' exists', type(checks[n]))\n"
"end\n"
"-- bandwidth\n"
"t('bw pass', function() return checks.bandwidth{value = 374.39, peak = 450, what = 'busbw', peak_what = 'NV18'} end, true,\n"
"  '374.39 GB/s', '83.2 %', '>= 360 GB/s', '450 GB/s', 'NV18')\n"
"t('bw fail', function() return checks.bandwidth{value = 40, peak = 450, fraction = 0.8, where = 'row 256M'} end, false,\n"
"  '40 GB/s', '8.9 %', '>= 360 GB/s', 'row 256M')\n"
"t('bw exact boundary', function() return checks.bandwidth{value = 360, peak = 450} end, true)\n"
"t('bw just below', function() return checks.bandwidth{value = 359.99, peak = 450} end, false)\n"
"-- a speedup over a baseline (fraction > 1) reads as a factor, not '1381 % of the peak'\n"
"t('bw speedup', function() return checks.bandwidth{value = 380, peak = 27.5, fraction = 2, peak_what = 'peer access off'} end,\n"
"  true, '13.82x the 27.50 GB/s of peer access off', 'at least 2.00x')\n"
"t('bw speedup short', function() return checks.bandwidth{value = 40, peak = 27.5, fraction = 2} end, false, 'only 1.45x')\n"
"t('bw string number', function() return checks.bandwidth{value = '400', peak = '450'} end, true)\n"
"t('bw nil value', function() return checks.bandwidth{peak = 450} end, false, 'no measured value')\n"
"t('bw garbage value', function() return checks.bandwidth{value = 'fast', peak = 450} end, false, '\"fast\"')\n"
"t('bw NaN', function() return checks.bandwidth{value = 0/0, peak = 450} end, false)\n"
"t('bw inf', function() return checks.bandwidth{value = math.huge, peak = 450} end, false)\n"
"t('bw negative', function() return checks.bandwidth{value = -5, peak = 450} end, false, 'negative')\n"
"t('bw no peak', function() return checks.bandwidth{value = 10} end, false, 'no usable peak')\n"
"t('bw zero peak', function() return checks.bandwidth{value = 10, peak = 0} end, false, 'no usable peak')\n"
"t('bw bad fraction', function() return checks.bandwidth{value = 10, peak = 20, fraction = 'most'} end, false, 'fraction')\n"
"t('bw not a table', function() return checks.bandwidth(42) end, false, 'instead of a table')\n"
"t('bw nil args', function() return checks.bandwidth() end, false)\n"
"t('bw ratio as fraction 1', function() return checks.bandwidth{value = 95, peak = 352, fraction = 1, unit = 'GB/s'} end, false, '27.0 %')\n"
"-- a share in % is a share, not a bandwidth against a '100 % peak' (issue 26: '39.81 % reaches 39.8 % of the\n"
"-- 100 % peak of all of it')\n"
"local HID = {value = 39.81, peak = 100, fraction = 0.25, unit = '%', what = 'all-reduce time hidden behind backward',\n"
"  peak_what = 'all of it (the bar: a quarter)'}\n"
"t('bw percent pass', function() return checks.bandwidth(HID) end, true,\n"
"  'all-reduce time hidden behind backward: 39.8 %; the bar is 25 %', '>= 25 %')\n"
"local HV = checks.bandwidth(HID)\n"
"expect(not HV.msg:find('peak', 1, true) and not HV.msg:find('reaches', 1, true) and not HV.saw:find('of peak', 1, true),\n"
"  'bw percent: no peak of 100 %', desc(HV))\n"
"t('bw percent fail', function() return checks.bandwidth{value = 12, peak = 100, fraction = 0.5, unit = '%',\n"
"  what = 'overlap of compute and all_reduce', peak_what = 'full overlap'} end, false,\n"
"  'overlap of compute and all_reduce: only 12 %; the bar is 50 %')\n"
"-- close\n"
"t('close pass', function() return checks.close{value = 1.0000001, expected = 1, rtol = 1e-6} end, true)\n"
"t('close fail', function() return checks.close{value = 1.1, expected = 1, rtol = 0.01, what = 'busbw', unit = 'GB/s'} end, false,\n"
"  'busbw', 'off by 0.1', '1 GB/s +/- 1 %')\n"
"t('close atol', function() return checks.close{value = 0.05, expected = 0, atol = 0.1} end, true)\n"
"t('close exact', function() return checks.close{value = 3, expected = 3, rtol = 0} end, true)\n"
"t('close nil', function() return checks.close{expected = 3} end, false, 'no number')\n"
"t('close nil missing', function() return checks.close{expected = 3, missing = 'press a'} end, false, 'no value yet - press a')\n"
"t('close bad expected', function() return checks.close{value = 3, expected = 'x'} end, false, 'no expected number')\n"
"t('close bad rtol', function() return checks.close{value = 3, expected = 3, rtol = -1} end, false, 'tolerances')\n"
"t('close list pass', function() return checks.close{value = {1, 2, 3}, expected = {1, 2, 3.0000001}, rtol = 1e-5} end, true, 'all 3 values')\n"
"t('close list fail', function() return checks.close{value = {1, 2.5, 3, 9}, expected = {1, 2, 3, 4},\n"
"  rtol = 0.01, labels = {'8 B', '16 B', '32 B', '64 B'}} end, false, '2 of 4', '64 B')\n"
"t('close list garbage element', function() return checks.close{value = {1, 'x'}, expected = {1, 2}} end, false, '1 of 2')\n"
"t('close list length', function() return checks.close{value = {1}, expected = {1, 2}} end, false, '1 values', '2 values')\n"
"t('close list vs scalar', function() return checks.close{value = 1, expected = {1, 2}} end, false)\n"
"t('close empty list', function() return checks.close{value = {}, expected = {}} end, false, 'nothing to compare')\n"
"-- equals\n"
"t('eq strings trimmed, case', function() return checks.equals{value = '  nv18 ', expected = 'NV18', what = 'link'} end, true, 'link')\n"
"t('eq strings differ', function() return checks.equals{value = 'SYS', expected = 'NV18'} end, false, '\"SYS\"', '\"NV18\"')\n"
"t('eq number vs string', function() return checks.equals{value = '0', expected = 0} end, true)\n"
"t('eq number vs bad string', function() return checks.equals{value = 'zero', expected = 0} end, false)\n"
"t('eq numbers', function() return checks.equals{value = 112, expected = 112.0} end, true)\n"
"t('eq numbers differ', function() return checks.equals{value = 111, expected = 112} end, false, '111', '112')\n"
"t('eq yes/true', function() return checks.equals{value = 'Yes', expected = true} end, true)\n"
"t('eq no/true', function() return checks.equals{value = 'no', expected = true} end, false, 'is not yes')\n"
"t('eq any', function() return checks.equals{value = 'nvlink', expected = {any = {'NV18', 'NVLink'}}} end, true)\n"
"t('eq any miss', function() return checks.equals{value = 'PIX', expected = {any = {'NV18', 'NVLink'}}} end, false, 'one of')\n"
"t('eq nil value', function() return checks.equals{expected = 'NV18', missing = 'answer it in the shell'} end, false, 'no value yet', 'answer it')\n"
"t('eq nil expected', function() return checks.equals{value = 'NV18'} end, false, 'could not work out')\n"
"t('eq table value', function() return checks.equals{value = {}, expected = 'x'} end, false)\n"
"t('eq not a table', function() return checks.equals('x') end, false)\n"
"-- identical\n"
"t('ident pass', function() return checks.identical{values = {[0] = 7, [1] = 7, [2] = 7}, ranks = 3, what = 'checksum'} end, true, 'all 3 ranks')\n"
"t('ident fail', function() return checks.identical{values = {[0] = 7, [1] = 7, [2] = 8}} end, false, 'rank 2: 8', 'rank 0,1: 7')\n"
"t('ident missing rank', function() return checks.identical{values = {[0] = 7, [2] = 7}, ranks = 3} end, false, 'rank 1')\n"
"t('ident one value', function() return checks.identical{values = {[0] = 7}} end, false, 'only one')\n"
"t('ident one rank of one', function() return checks.identical{values = {[0] = 7}, ranks = 1} end, true)\n"
"t('ident empty', function() return checks.identical{values = {}} end, false, 'no rank')\n"
"t('ident nil', function() return checks.identical{} end, false, 'no values')\n"
"t('ident tables', function() return checks.identical{values = {[0] = {a = 1, b = {2}}, [1] = {a = 1, b = {2}}}} end, true)\n"
"t('ident tables differ', function() return checks.identical{values = {[0] = {a = 1}, [1] = {a = 2}}} end, false)\n"
"t('ident string keys', function() return checks.identical{values = {seen = 1, truth = 2}} end, false, 'seen', 'truth')\n"
"-- all\n"
"local P, F = checks.equals{value = 1, expected = 1}, checks.equals{value = 1, expected = 2, where = 'here'}\n"
"t('all pass', function() return checks.all{P, P} end, true, 'all 2 checks')\n"
"t('all fail', function() return checks.all{P, F} end, false, '1 of 2', 'here')\n"
"t('all varargs', function() return checks.all(P, F) end, false)\n"
"t('all garbage', function() return checks.all{P, 'x'} end, false, 'not a verdict')\n"
"t('all empty', function() return checks.all{} end, false, 'no verdicts')\n"
"t('all nil', function() return checks.all() end, false)\n"
"t('all single verdict', function() return checks.all(P) end, true)\n"
"-- an unanswered question waits: not counted as a failure, flagged unanswered\n"
"local U = checks.equals{value = nil, expected = 'NV18', what = 'link', where = 'row GPU0', answer = true}\n"
"expect(U.unanswered == true and U.ok == false, 'unanswered flag', desc(U))\n"
"local AU = checks.all{P, U, U}\n"
"expect(AU.ok == false and AU.unanswered == true, 'all: only unanswered waits', desc(AU))\n"
"expect(AU.msg:find('2 questions not answered yet', 1, true) and not AU.msg:find('NV18', 1, true), 'all: waits, no value', desc(AU))\n"
"local AF = checks.all{F, U}\n"
"expect(AF.ok == false and not AF.unanswered, 'all: a failure beside a question fails', desc(AF))\n"
"expect(AF.msg:find('1 of 1 checks failed (1 question waits for your answer)', 1, true), 'all: counts apart', desc(AF))\n"
"-- how to answer is the front end's to say (the shell: press a; headless: --answer ID=VALUE), not the check's\n"
"for _, v in ipairs({U, AU, AF}) do\n"
"  expect(not v.msg:find('press a', 1, true) and not v.msg:find('--answer', 1, true), 'no front-end keys in a verdict', desc(v))\n"
"end\n"
"-- an answered question's wanted reads as a sentence whatever `where` says\n"
"t('eq answered wrong', function() return checks.equals{value = '12', expected = 9, answer = true, what = 'calls',\n"
"  where = 'results pane (3): the gradient size'} end, false, 'the value shown in results pane (3): the gradient size')\n"
"local AW = checks.equals{value = '12', expected = 9, answer = true, where = 'results pane (3): the gradient size'}\n"
"expect(not AW.wanted:find('^what '), 'answered wanted: not \"what ... shows\"', desc(AW))\n"
"-- count\n"
"local ev = {{op = 'all_reduce'}, {op = 'ALL_REDUCE'}, {name = 'broadcast'}, 'all_reduce', 42, {}}\n"
"t('count pass', function() return checks.count{events = ev, op = 'all_reduce', expected = 3} end, true, '3 x all_reduce')\n"
"t('count fail', function() return checks.count{events = ev, op = 'all_reduce', expected = 4} end, false, 'broadcast 1')\n"
"t('count at least', function() return checks.count{events = ev, op = 'all_reduce', expected = 2, at_least = true} end, true)\n"
"t('count no events', function() return checks.count{op = 'all_reduce', expected = 1} end, false, 'no trace')\n"
"t('count no op', function() return checks.count{events = ev, expected = 1} end, false, 'op')\n"
"t('count bad expected', function() return checks.count{events = ev, op = 'x', expected = 'many'} end, false)\n"
"t('count zero', function() return checks.count{events = {}, op = 'x', expected = 0} end, true)\n"
"-- overlap\n"
"local sp = {\n"
"  {rank = 0, name = 'comm', start_us = 0, end_us = 100}, {rank = 0, name = 'compute', start_us = 50, end_us = 200},\n"
"  {rank = 1, name = 'comm', start_us = 0, end_us = 100}, {rank = 1, name = 'compute', start_us = 0, end_us = 100},\n"
"  {rank = 0, name = 'comm', start_us = 'x'}, 'junk'}\n"
"t('overlap pass', function() return checks.overlap{spans = sp, a = 'comm', b = 'compute', min_fraction = 0.7} end, true, '75 %')\n"
"t('overlap fail', function() return checks.overlap{spans = sp, a = 'comm', b = 'compute', min_fraction = 0.8} end, false, '150 of 200')\n"
"t('overlap across ranks does not count', function() return checks.overlap{spans = {\n"
"  {rank = 0, name = 'comm', start_us = 0, end_us = 10}, {rank = 1, name = 'compute', start_us = 0, end_us = 10}},\n"
"  a = 'comm', b = 'compute', min_fraction = 0.1} end, false, '0 %')\n"
"t('overlap merged spans', function() return checks.overlap{spans = {\n"
"  {name = 'a', start_us = 0, end_us = 10}, {name = 'a', start_us = 5, end_us = 10}, {name = 'b', start_us = 0, end_us = 10}},\n"
"  a = 'a', b = 'b', min_fraction = 1} end, true, '100 %')\n"
"t('overlap no a', function() return checks.overlap{spans = sp, a = 'nothing', b = 'compute'} end, false, 'no nothing spans')\n"
"t('overlap nil spans', function() return checks.overlap{a = 'a', b = 'b'} end, false, 'no timeline spans')\n"
"t('overlap bad fraction', function() return checks.overlap{spans = sp, a = 'comm', b = 'compute', min_fraction = 2} end, false)\n"
"-- hang_caught\n"
"local hung = {ok = false, failed_rank = 1, wall_s = 2.02,\n"
"  reason = 'rank 1: broadcast #2 on comm world did not complete within 2 s',\n"
"  analysis = 'rank 0 entered all_reduce #2 with 1048576 f32; rank 1 entered broadcast #2 with 524288 f32'}\n"
"t('hang pass', function() return checks.hang_caught{report = hung, within = 5} end, true, '2.02 s', 'all_reduce #2')\n"
"t('hang pattern', function() return checks.hang_caught{report = hung, within = 5, mismatch = 'broadcast'} end, true)\n"
"t('hang pattern miss', function() return checks.hang_caught{report = hung, within = 5, mismatch = 'alltoall'} end, false)\n"
"t('hang too slow', function() return checks.hang_caught{report = hung, within = 1} end, false, 'later than 1 s')\n"
"t('hang completed', function() return checks.hang_caught{report = {ok = true, wall_s = 1}, within = 5} end, false, 'nothing hung')\n"
"t('hang other failure', function() return checks.hang_caught{report = {ok = false, wall_s = 1, reason = 'rank 0: bad argument'}, within = 5} end, false, 'not by a timeout')\n"
"t('hang no analysis', function() return checks.hang_caught{report = {ok = false, wall_s = 1, reason = 'timeout'}, within = 5} end, false, 'no analysis')\n"
"t('hang error per rank', function() return checks.hang_caught{report = {ok = false, wall_s = 1, analysis = 'x',\n"
"  ranks = {[0] = {error = {message = 'y', code = 'timeout'}}}}, within = 5} end, true)\n"
"t('hang nil report', function() return checks.hang_caught{within = 5} end, false, 'no run report')\n"
"t('hang bad within', function() return checks.hang_caught{report = hung} end, false)\n"
"-- hang_caught judges by the flight records' own clocks when they are there\n"
"-- and the watchdog's sentence is not: the run's wall time (30 s: a busy\n"
"-- machine) is not the watchdog's reaction\n"
"local flown = {ok = false, wall_s = 30, reason = 'rank 1: all_reduce #2 was aborted by the watchdog', analysis = 'x',\n"
"  ranks = {[0] = {flight = {{comm = 'world', entries = {\n"
"    {seq = 1, state = 'completed', t_enqueue_us = 0, t_end_us = 10},\n"
"    {seq = 2, state = 'failed', t_enqueue_us = 1000000, t_end_us = 3050000}}}}},\n"
"           [1] = {flight = {{comm = 'world', entries = {{seq = 2, state = 'failed', t_enqueue_us = 0, t_end_us = 900000}}}}}}}\n"
"t('hang flight clocks', function() return checks.hang_caught{report = flown, within = 4} end, true, '2.05 s')\n"
"t('hang flight late', function() return checks.hang_caught{report = flown, within = 2} end, false, 'later than 2 s')\n"
"expect(math.abs(checks.hang_waited(flown) - 2.05) < 1e-9, 'hang_waited', tostring(checks.hang_waited(flown)))\n"
"-- the watchdog's sentence names the timeout it ended the hang at: that is\n"
"-- its decision, however late a busy machine let the records' clocks read\n"
"local busy = {ok = false, wall_s = 30, reason = 'rank 1: all_reduce #2 on comm world did not complete within 2 s', analysis = 'x',\n"
"  ranks = {[1] = {flight = {{comm = 'world', entries = {{seq = 2, state = 'failed', t_enqueue_us = 0, t_end_us = 9050000}}}}}}}\n"
"t('hang busy machine', function() return checks.hang_caught{report = busy, within = 4} end, true, '9.05 s')\n"
"t('hang timeout too long', function() return checks.hang_caught{report = busy, within = 1} end, false, 'later than 1 s')\n"
"expect(checks.hang_waited(hung) == nil, 'hang_waited without flight records')\n"
"-- no_race\n"
"t('no race', function() return checks.no_race{report = {ok = true, races = {}}} end, true, 'no race')\n"
"t('no race field', function() return checks.no_race{report = {ok = true}} end, true)\n"
"t('a race', function() return checks.no_race{report = {races = {{rank = 1, text = 'read of x[0:4] on the comm stream'},\n"
"  {rank = 0, text = 'other'}}}, what = 'the fixed run'} end, false, 'the fixed run: 2 stream-ordering races', 'rank 1: read of x')\n"
"t('no race nil', function() return checks.no_race{} end, false, 'no run report')\n";

int main(void)
{
    mgpu_lua *sb = NULL;
    CHECK_OK(mgpu_lua_open(NULL, &sb));
    if (!sb) return tap_done();
    lua_State *L = mgpu_lua_state(sb);
    lua_newtable(L);
    lua_setglobal(L, "checks");
    lua_pushcfunction(L, l_expect);
    lua_setglobal(L, "expect");
    /* the lab framework's L() in English: the format itself, formatted
     * (engine/lab/lab_lang.c); the checks' texts go through it */
    static const char english_L[] = "L = function(fmt, ...) return string.format(fmt, ...) end";
    CHECK_OK(mgpu_lua_run(sb, english_L, sizeof english_L - 1, "=english_L", 0));

    const char *dir = MGPU_SOURCE_DIR "/checks";
    DIR *d = opendir(dir);
    CHECKF(d != NULL, "cannot open %s", dir);
    char *names[64];
    int n = 0;
    struct dirent *de;
    while (d && (de = readdir(d)) && n < 64) {
        size_t len = strlen(de->d_name);
        if (len > 4 && strcmp(de->d_name + len - 4, ".lua") == 0) names[n++] = strdup(de->d_name);
    }
    if (d) closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp);
    CHECKF(n >= 2, "only %d check files in %s", n, dir);

    for (int i = 0; i < n; i++) {
        char path[1024], chunk[1100];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        snprintf(chunk, sizeof chunk, "@checks/%s", names[i]);
        size_t len = 0;
        char *text = slurp(path, &len);
        CHECKF(text != NULL, "cannot read %s", path);
        if (!text) continue;
        mgpu_result r = mgpu_lua_run(sb, text, len, chunk, 1);
        CHECKF(r == MGPU_OK, "%s: %s", names[i], mgpu_error_message());
        if (r == MGPU_OK) {
            CHECKF(lua_istable(L, -1), "%s does not return a table", names[i]);
            if (lua_istable(L, -1)) {
                lua_getglobal(L, "checks");
                lua_pushnil(L);
                while (lua_next(L, -3)) {
                    CHECKF(lua_type(L, -2) == LUA_TSTRING && lua_isfunction(L, -1),
                           "%s: every entry is a named function", names[i]);
                    if (lua_type(L, -2) == LUA_TSTRING) {
                        lua_getfield(L, -3, lua_tostring(L, -2));
                        CHECKF(lua_isnil(L, -1), "%s: checks.%s defined twice", names[i], lua_tostring(L, -3));
                        lua_pop(L, 1);
                        lua_pushvalue(L, -2);
                        lua_insert(L, -2);
                        lua_settable(L, -4);
                    } else {
                        lua_pop(L, 1);
                    }
                }
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
        free(text);
        free(names[i]);
    }

    mgpu_result r = mgpu_lua_run(sb, TESTS, sizeof TESTS - 1, "=test_checks", 0);
    CHECKF(r == MGPU_OK, "the test script: %s", mgpu_error_message());
    mgpu_lua_close(sb);
    return tap_done();
}
