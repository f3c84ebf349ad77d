/* test_lua_mgpu_ipc.c - the rank API's peer access, pointer attributes and
 * IPC on the sim backend: mgpu.peer_access / can_access_peer /
 * pointer_info in process; t:ipc_handle() in this process and
 * mgpu.ipc_open / t:ipc_close() in a forked one, with the stale-handle
 * error after the exporter frees; bad handle strings; mgpu.share on one
 * rank. (Two-rank mgpu.share runs in tests/cli/spmd_ipc.sh.) */
#include "mgpu/lua_mgpu.h"
#include "tap.h"
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static mgpu_lua *open_rank(mgpu_backend *be, const char *const *args, int nargs)
{
    mgpu_lua_config lc = {.time_limit_s = 20};
    mgpu_lua *sb = NULL;
    if (mgpu_lua_open(&lc, &sb) != MGPU_OK) return NULL;
    mgpu_lua_rank_host host = {.be = be, .rank = 0, .world = 1, .local_rank = 0, .device = 0};
    if (mgpu_lua_open_rank_api(sb, &host, args, nargs) != MGPU_OK) {
        mgpu_lua_close(sb);
        return NULL;
    }
    return sb;
}

static void ok(mgpu_lua *sb, const char *code)
{
    mgpu_result r = mgpu_lua_run(sb, code, strlen(code), "@t.lua", 0);
    CHECKF(r == MGPU_OK, "%s\n-> %s", code, mgpu_error_message());
}

static void fails(mgpu_lua *sb, const char *code, const char *msg)
{
    mgpu_result r = mgpu_lua_run(sb, code, strlen(code), "@t.lua", 0);
    CHECKF(r != MGPU_OK, "%s: should fail", code);
    CHECKF(strstr(mgpu_lua_error_message(sb), msg) != NULL, "%s: message '%s' lacks '%s'", code,
           mgpu_lua_error_message(sb), msg);
}

static void test_peer_and_pointers(mgpu_lua *sb)
{
    ok(sb, "local can, on = mgpu.peer_access(1)\n"
           "assert(can == true and on == false)\n"
           "can, on = mgpu.peer_access(1, true); assert(can and on)\n"
           "can, on = mgpu.peer_access(1, true); assert(on)          -- already on: fine\n"
           "assert(mgpu.can_access_peer(3, 4) == true)\n"
           "can, on = mgpu.peer_access(1, false); assert(can and not on)");
    fails(sb, "mgpu.peer_access(0, true)", "cannot be its own peer");
    fails(sb, "mgpu.peer_access(8)", "device 8 does not exist");
    fails(sb, "mgpu.peer_access(1, 'yes')", "boolean expected");
    ok(sb, "local d = mgpu.tensor(16)\n"
           "local i = mgpu.pointer_info(d)\n"
           "assert(i.kind == 'device' and i.device == 0 and i.device_ptr and not i.host_ptr, i.kind)\n"
           "assert(i.address:match('^0x%x+$'))\n"
           "local j = mgpu.pointer_info(d, 4)\n"
           "assert(tonumber(j.address) - tonumber(i.address) == 16)\n"
           "local p = mgpu.pointer_info(mgpu.tensor(4, 'f32', 'pinned'))\n"
           "assert(p.kind == 'pinned' and p.device == -1 and p.device_ptr and p.host_ptr)\n"
           "local g = mgpu.pointer_info(mgpu.tensor(4, 'f32', 'pageable'))\n"
           "assert(g.kind == 'pageable' and not g.device_ptr and g.host_ptr)\n"
           "local o = mgpu.pointer_info(mgpu.tensor{count = 4, device = 6})\n"
           "assert(o.kind == 'device' and o.device == 6)");
    fails(sb, "mgpu.pointer_info(mgpu.tensor(4), 4)", "element offset 4 is outside 0..3");
}

static void test_handles_here(mgpu_lua *sb)
{
    ok(sb, "local t = mgpu.tensor(8)\n"
           "local h = t:ipc_handle()\n"
           "assert(type(h) == 'string' and #h == 9 + 256 and h:sub(1, 9) == 'mgpu-ipc:')\n"
           "assert(t:ipc_handle() == h)\n"
           "assert(mgpu.share(h) == h and mgpu.share('x', 0) == 'x')");
    fails(sb, "mgpu.tensor(8, 'f32', 'pinned'):ipc_handle()", "only device memory");
    fails(sb, "mgpu.ipc_open(mgpu.tensor(8):ipc_handle())", "its own IPC handle");
    fails(sb, "mgpu.ipc_open('mgpu-ipc:1234')", "cut or extended");
    fails(sb, "mgpu.ipc_open('hello')", "not an IPC handle string");
    fails(sb, "mgpu.ipc_open(mgpu.tensor(8):ipc_handle(), 'f64')", "dtype 'f64'");
    fails(sb, "mgpu.tensor(8):ipc_close()", "not opened with mgpu.ipc_open");
    fails(sb, "mgpu.share({})", "must be a string");
    fails(sb, "mgpu.share('x', 1)", "root 1 is not a rank");
}

/* Parent exports through Lua; a forked child opens the handle in its own
 * backend and sandbox, checks the data, writes, closes; then the parent
 * frees and the child's next open is refused as stale. */
static void test_two_processes(mgpu_backend *be, mgpu_lua *sb)
{
    ok(sb, "X = mgpu.tensor(1024):fill{kind = 'index', value = 1}\n"
           "H = X:ipc_handle(); SUM = X:checksum()");
    lua_State *L = mgpu_lua_state(sb);
    lua_getglobal(L, "H");
    lua_getglobal(L, "SUM");
    char handle[400], sum[32];
    snprintf(handle, sizeof handle, "%s", lua_tostring(L, -2) ? lua_tostring(L, -2) : "");
    snprintf(sum, sizeof sum, "%lld", (long long)lua_tointeger(L, -1));
    lua_pop(L, 2);
    int go[2], back[2];
    if (pipe(go) || pipe(back)) {
        CHECK(0);
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        int f0 = tap_failed;
        mgpu_backend_config cfg = {.kind = MGPU_BACKEND_SIM, .machine = "dgx-h100"};
        mgpu_backend *cb = NULL;
        CHECK_OK(mgpu_backend_open(&cfg, &cb));
        const char *args[] = {handle, sum};
        mgpu_lua *c = cb ? open_rank(cb, args, 2) : NULL;
        if (!c) _exit(1);
        ok(c, "local h, sum = mgpu.args[1], math.tointeger(mgpu.args[2])\n"
              "local y = mgpu.ipc_open(h, 'f32', 1024)\n"
              "assert(#y == 1024 and y:dtype() == 'f32' and y:kind() == 'device')\n"
              "assert(y:checksum() == sum, 'the exporter wrote something else')\n"
              "assert(y:get(5) == 6.0)\n"
              "local i = mgpu.pointer_info(y); assert(i.kind == 'device' and i.device == 0)\n"
              "y:fill(2.5)\n"
              "local z = mgpu.ipc_open(h, 'i32')     -- default count: all that fits\n"
              "assert(#z == 1024)\n"
              "z:ipc_close(); y:ipc_close()\n"
              "assert(not pcall(y.checksum, y))     -- closed\n"
              "local ok, e = pcall(y.ipc_close, y); assert(not ok and e:find('freed'))");
        fails(c, "mgpu.ipc_open(mgpu.args[1], 'f32', 1025)", "do not fit the 4096 exported bytes");
        (void)!write(back[1], "w", 1);
        char x;
        (void)!read(go[0], &x, 1); /* the parent freed X */
        fails(c, "mgpu.ipc_open(mgpu.args[1])", "stale");
        fails(c, "mgpu.ipc_open(mgpu.args[1])", "freed the exported buffer");
        mgpu_lua_close(c);
        mgpu_backend_close(cb);
        _exit(tap_failed > f0 ? 1 : 0);
    }
    char x;
    CHECK(read(back[0], &x, 1) == 1);
    ok(sb, "assert(X:get(0) == 2.5 and X:get(1023) == 2.5, 'the child wrote 2.5 everywhere')\n"
           "X:free()");
    (void)!write(go[1], "f", 1);
    int st = 0;
    waitpid(pid, &st, 0);
    CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the importing child failed its checks");
    close(go[0]), close(go[1]), close(back[0]), close(back[1]);
    (void)be;
}

int main(void)
{
    mgpu_backend_config cfg = {.kind = MGPU_BACKEND_SIM, .machine = "dgx-h100"};
    mgpu_backend *be = NULL;
    CHECK_OK(mgpu_backend_open(&cfg, &be));
    mgpu_lua *sb = be ? open_rank(be, NULL, 0) : NULL;
    CHECK(sb != NULL);
    if (sb) {
        test_peer_and_pointers(sb);
        test_handles_here(sb);
        test_two_processes(be, sb);
    }
    mgpu_lua_close(sb);
    mgpu_backend_close(be);
    return tap_done();
}
