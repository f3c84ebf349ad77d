/* test_lua_mgpu.c - the rank API on one rank of the sim backend, in
 * process: identity, tensors (fill, get/set, to_table, checksum, compare),
 * copies, streams and events, log lines, result rows, and clear errors for
 * bad use. Communicators are in test_lua_mgpu_comm.c. */
#include "mgpu/lua_mgpu.h"
#include "tap.h"
#include <string.h>

static char logged[4096];
static json_t *rows;

static void on_log(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    size_t used = strlen(logged);
    if (used + n + 2 >= sizeof logged) return;
    memcpy(logged + used, s, n);
    logged[used + n] = '\n';
    logged[used + n + 1] = '\0';
}

static mgpu_result on_result(void *ctx, json_t *row)
{
    (void)ctx;
    json_array_append(rows, row);
    return MGPU_OK;
}

static mgpu_backend *be;
static mgpu_lua *sb;

static void ok(const char *code)
{
    mgpu_result r = mgpu_lua_run(sb, code, strlen(code), "@t.lua", 0);
    CHECKF(r == MGPU_OK, "%s\n-> %s", code, mgpu_error_message());
}

static void fails(const char *code, mgpu_result want, const char *msg)
{
    mgpu_result r = mgpu_lua_run(sb, code, strlen(code), "@t.lua", 0);
    CHECKF(r == want, "%s -> %s (want %s): %s", code, mgpu_result_name(r), mgpu_result_name(want),
           mgpu_error_message());
    CHECKF(strstr(mgpu_lua_error_message(sb), msg) != NULL, "%s: message '%s' lacks '%s'", code,
           mgpu_lua_error_message(sb), msg);
}

static void test_identity(void)
{
    ok("assert(mgpu.rank == 0 and mgpu.world == 1 and mgpu.local_rank == 0 and mgpu.device == 0)\n"
       "assert(mgpu.backend == 'sim' and mgpu.simulated == true and mgpu.device_count == 8)\n"
       "assert(#mgpu.args == 2 and mgpu.args[1] == '--size' and mgpu.args[2] == '4K')\n"
       "local t0 = mgpu.time(); assert(type(t0) == 'number' and mgpu.time() >= t0)\n"
       "mgpu.synchronize()\n"
       "assert(tostring(mgpu.default_stream()):find('stream %(default, device 0%)'))");
}

static void test_tensors(void)
{
    ok("local t = mgpu.tensor(1000)\n"
       "assert(#t == 1000 and t:count() == 1000 and t:dtype() == 'f32' and t:kind() == 'device')\n"
       "assert(t:device() == 0 and t:bytes() == 4000)\n"
       "assert(tostring(t) == 'tensor([1000] f32, device 0)', tostring(t))\n"
       "t:fill{kind = 'index', value = 1}\n"
       "assert(t:get(0) == 1 and t:get(5) == 6 and t:get(999) == 1 + 999 % 1024)\n"
       "t:set(3, 2.5); assert(t:get(3) == 2.5)\n"
       "local tt = t:to_table(4)\n"
       "assert(#tt == 4 and tt[1] == 1 and tt[2] == 2 and tt[4] == 2.5)\n"
       "t:fill(7); assert(t:get(10) == 7)\n"
       "local i = mgpu.tensor{count = 4, dtype = 'i32'}\n"
       "i:set(0, 123456789); assert(i:get(0) == 123456789 and math.type(i:get(0)) == 'integer')\n"
       "local h = mgpu.tensor(8, 'bf16', 'pinned')\n"
       "assert(tostring(h):find('pinned host memory'))\n"
       "h:fill{kind = 'const', value = 3}; assert(h:get(7) == 3)");
    /* checksums and compare */
    ok("local a = mgpu.tensor(4096):fill{kind = 'random', seed = 1}\n"
       "local b = mgpu.tensor(4096):fill{seed = 1}\n"
       "local c = mgpu.tensor(4096):fill{seed = 2}\n"
       "assert(a:checksum() == b:checksum() and a:checksum() ~= c:checksum())\n"
       "local n, err, first = a:compare(b)\n"
       "assert(n == 0 and err == 0 and first == nil)\n"
       "b:set(7, 99)\n"
       "n, err, first = a:compare(b)\n"
       "assert(n == 1 and first == 7 and err > 97, n .. ' ' .. err)\n"
       "n = a:compare(b, 0, 100); assert(n == 0)");
    /* copies: CE and SM, device to pinned host, part of a tensor */
    ok("local src = mgpu.tensor(256):fill{kind = 'index'}\n"
       "local dst = mgpu.tensor(256)\n"
       "mgpu.copy(dst, src); assert(dst:compare(src) == 0)\n"
       "local d2 = mgpu.tensor(256); mgpu.copy(d2, src, {engine = 'sm'}); assert(d2:checksum() == src:checksum())\n"
       "local h = mgpu.tensor(256, 'f32', 'pinned'); mgpu.copy(h, src); assert(h:get(255) == 255)\n"
       "local part = mgpu.tensor(4); mgpu.copy(part, src, {count = 4, src_offset = 10})\n"
       "assert(part:get(0) == 10 and part:get(3) == 13)\n"
       "local peer = mgpu.tensor{count = 256, device = 1}; mgpu.copy(peer, src)\n"
       "assert(peer:device() == 1 and peer:compare(src) == 0)");
    /* to-be-closed and explicit free */
    ok("do local t <close> = mgpu.tensor(10) t:fill(1) end\n"
       "local t = mgpu.tensor(10); t:free(); assert(tostring(t) == 'tensor (freed)')");
}

/* Shapes and views (issue 11, item 1) and mgpu.nn through Lua. */
static void test_shapes_views(void)
{
    ok("local t = mgpu.tensor{shape = {2, 3, 4}, dtype = 'bf16'}:fill{kind = 'index'}\n"
       "local s = t:shape(); assert(#s == 3 and s[1] == 2 and s[3] == 4 and t:count() == 24)\n"
       "assert(tostring(t) == 'tensor([2, 3, 4] bf16, device 0)', tostring(t))\n"
       "local v = t:view{6, 4}; assert(v:shape()[1] == 6 and v:get(5) == t:get(5))\n"
       "local r = t:slice(1, 1); assert(r:count() == 12 and r:get(0) == t:get(12))\n"
       "local f = v:flat(10, 4); assert(#f:shape() == 1 and f:get(0) == t:get(10))\n"
       "f:set(1, 99); assert(t:get(11) == 99)   -- a view writes its tensor\n"
       "local p = mgpu.tensor{shape = {1024, 1024}, phantom = true}\n"
       "assert(p:is_phantom() and p:shape()[2] == 1024)");
    fails("local t = mgpu.tensor{shape = {2, 4}}; t:view{3, 3}", MGPU_ERR_INVALID,
          "cannot reshape [2, 4] f32 (8 elements) to [3, 3] (9 elements)");
    fails("local t = mgpu.tensor{shape = {2, 4}}; t:slice(1, 2)", MGPU_ERR_INVALID, "not inside dim 0 of [2, 4] f32");
    fails("local t = mgpu.tensor{shape = {2, 4}}; t:flat(6, 3)", MGPU_ERR_INVALID, "not inside [2, 4] f32");
    fails("local t = mgpu.tensor{shape = {2, 4}}; local v = t:view{8}; t:free(); v:get(0)", MGPU_ERR_INVALID,
          "this view's tensor was freed");
    fails("mgpu.tensor{shape = {2, 0}}", MGPU_ERR_INVALID, "dim 2 of the shape must be an integer >= 1");
    fails("mgpu.tensor{shape = {1, 2, 3, 4, 5}}", MGPU_ERR_INVALID, "1 to 4 dims, got 5");
    /* an op through Lua: a view of rows as a GEMM operand */
    ok("local a = mgpu.tensor{shape = {4, 3}}:fill(1)\n"
       "local b = mgpu.tensor{shape = {3, 2}}:fill(2)\n"
       "local c = mgpu.tensor{shape = {2, 2}}\n"
       "mgpu.nn.gemm(a:slice(2, 2), b, c)\n"
       "assert(c:get(3) == 6, c:get(3))");
    fails("mgpu.nn.gemm(mgpu.tensor{shape = {4, 3}}, mgpu.tensor{shape = {4, 3}}, mgpu.tensor{shape = {4, 4}})",
          MGPU_ERR_INVALID, "gemm: a [4, 3] f32 times b [4, 3] f32 does not give c [4, 4] f32");
    fails("mgpu.nn.act('tanh', mgpu.tensor(4), mgpu.tensor(4))", MGPU_ERR_INVALID, "'tanh' is not relu, gelu or silu");
}

static void test_streams_events(void)
{
    /* the note's pattern: produce on one stream, record, another waits */
    ok("local s0, s1 = mgpu.stream(), mgpu.stream()\n"
       "assert(tostring(s0):find('user'))\n"
       "local x = mgpu.tensor(1 << 20)\n"
       "local start, done = mgpu.event(), mgpu.event{timing = true}\n"
       "start:record(s0)\n"
       "x:fill{kind = 'index', stream = s0}\n"
       "done:record(s0)\n"
       "s1:wait(done)\n"
       "local y = mgpu.tensor(1 << 20)\n"
       "mgpu.copy(y, x, {stream = s1})\n"
       "done:wait()\n"
       "s1:synchronize()\n"
       "assert(s1:query() == true and done:query() == true)\n"
       "done:synchronize()\n"
       "assert(y:compare(x) == 0)\n"
       "local ms = start:elapsed(done)\n"
       "assert(type(ms) == 'number' and ms > 0, ms)\n"
       "assert(s0:device() == 0)\n"
       "local legacy = mgpu.stream{legacy_default = true}\n"
       "assert(tostring(legacy):find('legacy'))");
    fails("local a, b = mgpu.event{timing = false}, mgpu.event()\na:record(); b:record()\nreturn a:elapsed(b)",
          MGPU_ERR_INVALID, "t.lua:3: event:elapsed needs two timing events");
    fails("local a, b = mgpu.event(), mgpu.event()\nreturn a:elapsed(b)", MGPU_ERR_INVALID, "record both events");
}

static void test_log_and_results(void)
{
    logged[0] = '\0';
    ok("mgpu.log('hello', 1, nil)\nprint('via print', 2.5)\nmgpu.log(mgpu.tensor(3))");
    CHECKF(strcmp(logged, "hello\t1\tnil\nvia print\t2.5\ntensor([3] f32, device 0)\n") == 0, "logged: '%s'", logged);

    json_array_clear(rows);
    ok("mgpu.result{name = 'sum', value = 42, ok = true, list = {1, 2, 3}, nested = {x = 1.5}}\n"
       "mgpu.result{t = mgpu.tensor(2)}");
    CHECK(json_array_size(rows) == 2);
    json_t *r0 = json_array_get(rows, 0);
    CHECK(json_is_object(r0) && json_integer_value(json_object_get(r0, "value")) == 42);
    CHECK(json_is_true(json_object_get(r0, "ok")));
    CHECK(json_array_size(json_object_get(r0, "list")) == 3);
    CHECK(json_real_value(json_object_get(json_object_get(r0, "nested"), "x")) == 1.5);
    CHECK(strcmp(json_string_value(json_object_get(r0, "name")), "sum") == 0);
    CHECK(strstr(json_string_value(json_object_get(json_array_get(rows, 1), "t")), "tensor([2] f32") != NULL);

    fails("local t = {}; t.self = t\nmgpu.result{t = t}", MGPU_ERR_INVALID, "nest deeper than 32");
    fails("mgpu.result{f = print}", MGPU_ERR_INVALID, "a function value cannot be sent");
    fails("mgpu.result(5)", MGPU_ERR_INVALID, "table expected");
}

static void test_errors(void)
{
    fails("mgpu.tensor(0)", MGPU_ERR_INVALID, "t.lua:1: mgpu.tensor: count must be at least 1");
    fails("mgpu.tensor(4, 'f64')", MGPU_ERR_INVALID, "dtype 'f64' is not f32, f16, bf16 or i32");
    fails("mgpu.tensor(4, 'f32', 'shared')", MGPU_ERR_INVALID, "tensor kind 'shared'");
    fails("local x = 1\nmgpu.tensor{count = 4, device = 99}", MGPU_ERR_INVALID, "t.lua:2: mgpu.tensor:");
    fails("mgpu.tensor(10):get(10)", MGPU_ERR_INVALID, "index 10 is outside 0..9");
    fails("mgpu.tensor(10):get(-1)", MGPU_ERR_INVALID, "index -1 is outside");
    fails("mgpu.tensor(10, 'i32'):set(0, 1 << 40)", MGPU_ERR_INVALID, "does not fit an i32");
    fails("local t = mgpu.tensor(10)\nt:free()\nt:fill(1)", MGPU_ERR_INVALID, "t.lua:3: this tensor was freed");
    fails("mgpu.tensor(10):fill{kind = 'const'}", MGPU_ERR_INVALID, "needs value=");
    fails("mgpu.tensor(10):fill{kind = 'zeros'}", MGPU_ERR_INVALID, "kind 'zeros' is not random, const or index");
    fails("mgpu.copy(mgpu.tensor(10), mgpu.tensor(11))", MGPU_ERR_INVALID, "pass count=");
    fails("mgpu.copy(mgpu.tensor(10), mgpu.tensor(10, 'f16'))", MGPU_ERR_INVALID, "dst is f32, src is f16");
    fails("mgpu.copy(mgpu.tensor(10), mgpu.tensor(10), {engine = 'dma'})", MGPU_ERR_INVALID, "engine 'dma'");
    fails("mgpu.copy(mgpu.tensor(10), mgpu.tensor(20), {count = 5, src_offset = 18})", MGPU_ERR_INVALID,
          "do not fit");
    fails("mgpu.tensor(10):compare(mgpu.tensor(11))", MGPU_ERR_INVALID, "cannot compare tensors of 10 and 11");
    fails("mgpu.tensor(10):fill(1, 'not a stream')", MGPU_ERR_INVALID, "mgpu.stream expected");
    fails("mgpu.tensor(1 << 21):to_table()", MGPU_ERR_INVALID, "pass a max");
    fails("getmetatable(mgpu.tensor(1)).__index = nil", MGPU_ERR_INVALID, "attempt to index a string value");
    /* the sandbox is still in force with the API installed */
    fails("os.execute('true')", MGPU_ERR_INVALID, "os.execute is not available");
}

int main(void)
{
    mgpu_backend_config cfg = {.kind = MGPU_BACKEND_SIM, .machine = "dgx-h100"};
    CHECK_OK(mgpu_backend_open(&cfg, &be));
    rows = json_array();
    mgpu_lua_config lc = {.time_limit_s = 20};
    CHECK_OK(mgpu_lua_open(&lc, &sb));
    mgpu_lua_rank_host host = {.be = be, .rank = 0, .world = 1, .local_rank = 0, .device = 0,
                               .log = on_log, .result = on_result};
    const char *args[] = {"--size", "4K"};
    CHECK_OK(mgpu_lua_open_rank_api(sb, &host, args, 2));
    if (sb && be) {
        test_identity();
        test_tensors();
    test_shapes_views();
        test_streams_events();
        test_log_and_results();
        test_errors();
    }
    mgpu_lua_close(sb); /* collects every tensor, stream and event before the backend goes */
    mgpu_backend_close(be);
    json_decref(rows);
    return tap_done();
}
