/* test_lua_mgpu_comm.c - the communicator bindings on one rank of the sim
 * backend, in process (a 1-rank bootstrap): every collective with its
 * count taken from the tensors, in place and out of place, with and
 * without a stream; split; group; the flight recorder; argument errors.
 * Several ranks are covered by tests/cli/spmd.sh. */
#include "mgpu/lua_mgpu.h"
#include "tap.h"
#include <string.h>

static mgpu_backend *be;
static mgpu_lua *sb;
static mgpu_comm *world_comm;

static mgpu_result one_rank_allgather(void *ctx, const void *mine, void *all, size_t len)
{
    (void)ctx;
    memcpy(all, mine, len);
    return MGPU_OK;
}

static mgpu_result make_world(void *ctx, mgpu_comm **out)
{
    (void)ctx;
    if (!world_comm) {
        static mgpu_bootstrap bs = {.rank = 0, .size = 1, .allgather = one_rank_allgather};
        mgpu_comm_config cfg = {.device = 0, .blocking = 1, .timeout_s = 10, .name = "world"};
        MGPU_CHECK(mgpu_comm_init(be, &bs, &cfg, &world_comm));
    }
    *out = world_comm;
    return MGPU_OK;
}

static void ok(const char *code)
{
    mgpu_result r = mgpu_lua_run(sb, code, strlen(code), "@c.lua", 0);
    CHECKF(r == MGPU_OK, "%s\n-> %s", code, mgpu_error_message());
}

static void fails(const char *code, const char *msg)
{
    mgpu_result r = mgpu_lua_run(sb, code, strlen(code), "@c.lua", 0);
    CHECKF(r != MGPU_OK && strstr(mgpu_lua_error_message(sb), msg), "%s -> %s: '%s' lacks '%s'", code,
           mgpu_result_name(r), mgpu_lua_error_message(sb), msg);
}

int main(void)
{
    mgpu_backend_config cfg = {.kind = MGPU_BACKEND_SIM, .machine = "dgx-h100"};
    CHECK_OK(mgpu_backend_open(&cfg, &be));
    mgpu_lua_config lc = {.time_limit_s = 30};
    CHECK_OK(mgpu_lua_open(&lc, &sb));
    mgpu_lua_rank_host host = {.be = be, .world = 1, .world_comm = make_world};
    CHECK_OK(mgpu_lua_open_rank_api(sb, &host, NULL, 0));
    CHECK_OK(mgpu_lua_open_comm_api(sb));
    if (!be || !sb) return tap_done();

    ok("local c = mgpu.comm()\n"
       "assert(c == mgpu.comm(), 'mgpu.comm() is one object')\n"
       "assert(c:rank() == 0 and c:size() == 1 and c:name() == 'world' and c:backend() == 'sim')\n"
       "assert(tostring(c) == 'comm world (rank 0 of 1, sim)', tostring(c))\n"
       "assert(tostring(c:stream()):find('stream %(comm'))\n"
       "assert(c:async_error() == nil)");
    /* every collective; on one rank each is a copy (or the identity) */
    ok("local c = mgpu.comm()\n"
       "local a = mgpu.tensor(1000):fill{seed = 3}\n"
       "local b = mgpu.tensor(1000)\n"
       "c:all_reduce(a, b); assert(b:compare(a) == 0)\n"
       "b:fill(0); c:all_reduce(a, b, 'max', c:stream()); c:stream():synchronize(); assert(b:compare(a) == 0)\n"
       "c:all_reduce(b, 'sum'); assert(b:compare(a) == 0)\n"
       "b:fill(0); c:all_gather(a, b); assert(b:compare(a) == 0)\n"
       "b:fill(0); c:reduce_scatter(a, b, 'sum'); assert(b:compare(a) == 0)\n"
       "b:fill(0); c:broadcast(a, b, 0); assert(b:compare(a) == 0)\n"
       "b:fill(0); c:reduce(a, b, 'sum', 0); assert(b:compare(a) == 0)\n"
       "b:fill(0); c:alltoall(a, b); assert(b:compare(a) == 0)\n"
       "c:barrier()\n"
       "local i = mgpu.tensor(8, 'i32'):fill{kind = 'index', value = 5}\n"
       "c:all_reduce(i, 'prod'); assert(i:get(3) == 8)");
    /* send/recv to oneself inside a group, as NCCL allows */
    ok("local c = mgpu.comm()\n"
       "local s, r = mgpu.tensor(64):fill{kind = 'index'}, mgpu.tensor(64)\n"
       "mgpu.group(function() c:send(s, 0); c:recv(r, 0) end)\n"
       "mgpu.synchronize()\n"
       "assert(r:compare(s) == 0)");
    /* split and the flight recorder */
    ok("local c = mgpu.comm()\n"
       "local sub = c:split(0, 0)\n"
       "assert(sub and sub:size() == 1 and sub:rank() == 0)\n"
       "local t = mgpu.tensor(4):fill(2); sub:all_reduce(t); assert(t:get(0) == 2)\n"
       "sub:destroy(); assert(tostring(sub) == 'comm (destroyed)')\n"
       "assert(c:split(nil) == nil and c:split(-1) == nil)\n"
       "local f = c:flight(4)\n"
       "assert(#f >= 1 and f[#f].state == 'completed', #f)\n"
       "local last = f[#f]\n"
       "assert(type(last.seq) == 'number' and type(last.op) == 'string' and last.dtype)");
    /* argument errors say what is wrong */
    fails("mgpu.comm():all_reduce(mgpu.tensor(4), mgpu.tensor(4), 'median')", "'median' is not a reduction");
    fails("mgpu.comm():all_reduce(mgpu.tensor(4), mgpu.tensor(5))", "send has 4 elements, recv 5");
    fails("mgpu.comm():all_reduce(mgpu.tensor(4), mgpu.tensor(4, 'f16'))", "send is f32, recv is f16");
    fails("mgpu.comm():broadcast(mgpu.tensor(4), mgpu.tensor(4))", "needs a root rank");
    fails("mgpu.comm():broadcast(mgpu.tensor(4), 3)", "c.lua:1: comm:broadcast:");
    fails("mgpu.comm():all_gather(mgpu.tensor(4), mgpu.tensor(3))", "recv needs size x send = 4 elements, has 3");
    fails("mgpu.comm():send(mgpu.tensor(4))", "needs the peer's rank");
    fails("mgpu.comm():all_reduce(mgpu.tensor(4), {})", "expected an op name, a rank or a stream");
    fails("mgpu.comm():destroy()", "belongs to the runtime");
    fails("mgpu.group(function() error('inside the group') end)", "inside the group");
    /* the group was closed despite the error: a plain collective still works */
    ok("local t = mgpu.tensor(4):fill(1); mgpu.comm():all_reduce(t); assert(t:get(0) == 1)");

    mgpu_lua_close(sb);
    if (world_comm) CHECK_OK(mgpu_comm_destroy(world_comm));
    mgpu_backend_close(be);
    return tap_done();
}
