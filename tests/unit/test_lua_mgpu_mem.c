/* test_lua_mgpu_mem.c - device memory in the rank API on the sim:
 * mgpu.memory_stats (short names and PyTorch's keys), reset_peak,
 * empty_cache, the out-of-memory sentence as a script sees it, and phantom
 * tensors (counted, writable in time only, never readable). */
#include "mgpu/lua_mgpu.h"
#include "tap.h"
#include <string.h>

static mgpu_backend *be;
static mgpu_lua *sb;

static void on_log(void *ctx, const char *s, size_t n) { (void)ctx, (void)s, (void)n; }
static mgpu_result on_result(void *ctx, json_t *row)
{
    (void)ctx, (void)row;
    return MGPU_OK;
}

static void ok(const char *code)
{
    mgpu_result r = mgpu_lua_run(sb, code, strlen(code), "@t.lua", 0);
    CHECKF(r == MGPU_OK, "%s\n-> %s", code, mgpu_error_message());
}

static void fails(const char *code, const char *msg)
{
    mgpu_result r = mgpu_lua_run(sb, code, strlen(code), "@t.lua", 0);
    CHECKF(r != MGPU_OK, "%s succeeded", code);
    CHECKF(strstr(mgpu_lua_error_message(sb), msg) != NULL, "%s: message '%s' lacks '%s'", code,
           mgpu_lua_error_message(sb), msg);
}

static void test_stats(void)
{
    ok("assert(mgpu.memory_conf() == 'backend:native,expandable_segments:False', mgpu.memory_conf())\n"
       "mgpu.empty_cache(); mgpu.memory_reset_peak()\n"
       "local s0 = mgpu.memory_stats()\n"
       "assert(s0.backend == 'native' and s0.allocated == 0 and s0.reserved == 0, s0.allocated)\n"
       "local a = mgpu.tensor(1000)            -- 4000 B -> a 4096 B block of a 2 MiB segment\n"
       "local b = mgpu.tensor(3 * 1024 * 1024) -- 12 MiB: a segment of its own\n"
       "local s = mgpu.memory_stats()\n"
       "assert(s.allocated == 4096 + 12 * 2^20, s.allocated)\n"
       "assert(s.requested == 4000 + 12 * 2^20)\n"
       "assert(s.reserved == 2 * 2^20 + 12 * 2^20, s.reserved)\n"
       "assert(s.segments == 2 and s.active_blocks == 2 and s.inactive_split_blocks == 1)\n"
       "assert(s.largest_free_block == 2 * 2^20 - 4096)\n"
       "assert(s['allocated_bytes.all.current'] == s.allocated)\n"
       "assert(s['reserved_bytes.all.peak'] == s.reserved and s['segment.all.current'] == 2)\n"
       "b:free()\n"
       "s = mgpu.memory_stats()\n"
       "assert(s.allocated == 4096 and s.peak_allocated == 4096 + 12 * 2^20)\n"
       "assert(s.reserved_unallocated == s.reserved - 4096)\n"
       "mgpu.memory_reset_peak()\n"
       "assert(mgpu.memory_stats().peak_allocated == 4096)\n"
       "mgpu.empty_cache()\n"
       "assert(mgpu.memory_stats().reserved == 2 * 2^20) -- a's segment stays\n"
       "a:free(); mgpu.empty_cache()\n"
       "assert(mgpu.memory_stats().reserved == 0)\n"
       "assert(mgpu.memory_stats(3).allocated == 0)");
    fails("mgpu.memory_stats(42)", "device 42 does not exist");
    /* switched at run time, as torch.cuda.memory._set_allocator_settings */
    ok("local a = mgpu.tensor(3 * 2^20) -- 12 MiB, an ordinary segment\n"
       "mgpu.memory_configure('expandable_segments:True')\n"
       "assert(mgpu.memory_conf() == 'backend:native,expandable_segments:True')\n"
       "local b = mgpu.tensor(3 * 2^20) -- mapped in pages of an expandable segment\n"
       "local s = mgpu.memory_stats()\n"
       "assert(s.expandable_segments and s.segments == 2 and s.reserved == 24 * 2^20, s.reserved)\n"
       "mgpu.memory_configure('backend:plain')\n"
       "local c = mgpu.tensor(1000)\n"
       "assert(mgpu.memory_stats().backend == 'plain')\n"
       "a:free(); b:free(); c:free()\n"
       "mgpu.memory_configure('backend:native')\n"
       "mgpu.empty_cache()\n"
       "assert(mgpu.memory_stats().reserved == 0)");
    fails("mgpu.memory_configure('max_split_size_mb:1')", "below 20");
}

static void test_oom(void)
{
    fails("local t = mgpu.tensor(30 * 2^30)",
          "out of memory on simulated GPU 0. Tried to allocate 120.00 GiB (128849018880 bytes). GPU 0 has a "
          "total capacity of");
    fails("local t = mgpu.tensor(30 * 2^30)", "is reserved by mgpulab but unallocated; the largest free block is");
    ok("assert(mgpu.memory_stats().num_ooms == 2)");
}

static void test_phantom(void)
{
    ok("local w = mgpu.phantom_tensor{count = 35 * 2^30, dtype = 'bf16'} -- 70 GiB of weights\n"
       "assert(w:is_phantom() and w:bytes() == 70 * 2^30 and w:dtype() == 'bf16')\n"
       "local s = mgpu.memory_stats()\n"
       "assert(s.phantom == 70 * 2^30 and s.allocated >= 70 * 2^30)\n"
       "local r = mgpu.tensor(1024)\n"
       "assert(not r:is_phantom())\n"
       "local g = mgpu.phantom_tensor{count = 1024}\n"
       "local t0 = mgpu.time()\n"
       "mgpu.copy(g, r)           -- real into phantom: modelled time, nothing moved\n"
       "g:fill(1)\n"
       "w:fill(0)                 -- 70 GiB written in modelled time only\n"
       "mgpu.synchronize()\n"
       "assert(mgpu.time() > t0)\n"
       "w:free(); g:free()\n"
       "assert(mgpu.memory_stats().phantom == 0)");
    fails("local p = mgpu.phantom_tensor{count = 16}\nlocal r = mgpu.tensor(16)\nmgpu.copy(r, p)",
          "copy from a phantom buffer into a real one");
    fails("mgpu.phantom_tensor{count = 16}:get(0)", "phantom");
    fails("mgpu.phantom_tensor{count = 16}:checksum()", "is phantom (shape-only, timing only): it has no values");
    fails("mgpu.phantom_tensor{count = 0}", "count must be at least 1");
    fails("mgpu.phantom_tensor{count = 8, dtype = 'f64'}", "dtype 'f64'");
    /* more than the GPU: the same sentence for phantom memory */
    fails("mgpu.phantom_tensor{count = 100 * 2^30}", "Tried to allocate 400.00 GiB of phantom memory (429496729600 bytes)");
    /* torch's format_size never says TiB */
    fails("mgpu.phantom_tensor{count = 512 * 2^30}", "Tried to allocate 2048.00 GiB of phantom memory");
}

int main(void)
{
    mgpu_backend_config cfg = {.kind = MGPU_BACKEND_SIM, .machine = "dgx-h100"};
    CHECK_OK(mgpu_backend_open(&cfg, &be));
    mgpu_lua_config lc = {.time_limit_s = 20};
    CHECK_OK(mgpu_lua_open(&lc, &sb));
    mgpu_lua_rank_host host = {.be = be, .rank = 0, .world = 1, .local_rank = 0, .device = 0,
                               .log = on_log, .result = on_result};
    CHECK_OK(mgpu_lua_open_rank_api(sb, &host, NULL, 0));
    if (sb && be) {
        test_stats();
        test_oom();
        test_phantom();
    }
    mgpu_lua_close(sb);
    mgpu_backend_close(be);
    return tap_done();
}
