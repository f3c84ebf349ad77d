/* lua_mgpu_mem.c - device memory in the rank API, as PyTorch shows it:
 * mgpu.memory_stats() (torch.cuda.memory_stats), mgpu.memory_reset_peak(),
 * mgpu.empty_cache(), mgpu.memory_conf(), and phantom (shape-only) tensors:
 * mgpu.phantom_tensor{count=, dtype=, device=, phantom_on_cuda=}, on the
 * rank's default stream's free list. */
#include "lua/lua_mgpu_internal.h"
#include "mgpu/mem.h"
#include <string.h>

static int opt_device(lua_State *L, int idx, const char *fn)
{
    lm_ctx *c = lm_ctx_get(L);
    return lm_opt_int(L, idx, fn, "device", c->host.device, 0, LM_INT_HI);
}

static void set_int(lua_State *L, const char *key, int64_t v)
{
    lua_pushinteger(L, (lua_Integer)v);
    lua_setfield(L, -2, key);
}

/* PyTorch's flat keys for one statistic: "<name>.all.current" and friends. */
static void torch_keys(lua_State *L, const char *name, const mgpu_mem_stat *s)
{
    char key[96];
    const char *part[] = {"current", "peak", "allocated", "freed"};
    const int64_t v[] = {s->current, s->peak, s->allocated, s->freed};
    for (int i = 0; i < 4; i++) {
        snprintf(key, sizeof key, "%s.all.%s", name, part[i]);
        set_int(L, key, v[i]);
    }
}

/* mgpu.memory_stats([device]) -> a table: short names for reading
 * (allocated, reserved, peak_allocated, ...) and PyTorch's own keys
 * ("allocated_bytes.all.current", ...) for those who know them. */
static int l_memory_stats(lua_State *L)
{
    lm_ctx *c = lm_ctx_get(L);
    int dev = opt_device(L, 1, "mgpu.memory_stats");
    mgpu_memory_stats st;
    if (mgpu_memory_stats_get(c->host.be, dev, &st) != MGPU_OK) return mgpu_lua_raise_engine(L, "mgpu.memory_stats");
    const mgpu_alloc_conf *conf = mgpu_memory_conf(c->host.be);
    lua_createtable(L, 0, 64);
    lua_pushstring(L, st.caching ? "native" : "plain");
    lua_setfield(L, -2, "backend");
    lua_pushboolean(L, conf->expandable_segments);
    lua_setfield(L, -2, "expandable_segments");
    if (st.max_split_size != UINT64_MAX) set_int(L, "max_split_size", (int64_t)st.max_split_size);
    set_int(L, "allocated", st.allocated_bytes.current);
    set_int(L, "requested", st.requested_bytes.current);
    set_int(L, "reserved", st.reserved_bytes.current);
    set_int(L, "peak_allocated", st.allocated_bytes.peak);
    set_int(L, "peak_reserved", st.reserved_bytes.peak);
    set_int(L, "reserved_unallocated", st.reserved_bytes.current - st.allocated_bytes.current);
    set_int(L, "active_blocks", st.active.current);
    set_int(L, "active_bytes", st.active_bytes.current);
    set_int(L, "inactive_split_blocks", st.inactive_split.current);
    set_int(L, "inactive_split_bytes", st.inactive_split_bytes.current);
    set_int(L, "segments", st.segment.current);
    set_int(L, "largest_free_block", (int64_t)st.largest_free_block);
    set_int(L, "phantom", st.phantom_bytes.current);
    set_int(L, "peak_phantom", st.phantom_bytes.peak);
    set_int(L, "num_alloc_retries", st.num_alloc_retries);
    set_int(L, "num_ooms", st.num_ooms);
    set_int(L, "num_device_alloc", st.num_device_alloc);
    set_int(L, "num_device_free", st.num_device_free);
    torch_keys(L, "allocated_bytes", &st.allocated_bytes);
    torch_keys(L, "requested_bytes", &st.requested_bytes);
    torch_keys(L, "reserved_bytes", &st.reserved_bytes);
    torch_keys(L, "active_bytes", &st.active_bytes);
    torch_keys(L, "inactive_split_bytes", &st.inactive_split_bytes);
    torch_keys(L, "allocation", &st.allocation);
    torch_keys(L, "segment", &st.segment);
    torch_keys(L, "active", &st.active);
    torch_keys(L, "inactive_split", &st.inactive_split);
    return 1;
}

static int l_memory_reset_peak(lua_State *L)
{
    lm_ctx *c = lm_ctx_get(L);
    if (mgpu_memory_reset_peak(c->host.be, opt_device(L, 1, "mgpu.memory_reset_peak")) != MGPU_OK)
        return mgpu_lua_raise_engine(L, "mgpu.memory_reset_peak");
    return 0;
}

static int l_empty_cache(lua_State *L)
{
    lm_ctx *c = lm_ctx_get(L);
    if (mgpu_memory_empty_cache(c->host.be, opt_device(L, 1, "mgpu.empty_cache")) != MGPU_OK)
        return mgpu_lua_raise_engine(L, "mgpu.empty_cache");
    return 0;
}

/* mgpu.mem_info([device]) -> free, total bytes of the device, as
 * cudaMemGetInfo (lab 9 fills a GPU to a known margin). */
static int l_mem_info(lua_State *L)
{
    lm_ctx *c = lm_ctx_get(L);
    int dev = opt_device(L, 1, "mgpu.mem_info");
    uint64_t fr = 0, tot = 0;
    if (mgpu_device_mem_info(c->host.be, dev, &fr, &tot) != MGPU_OK) return mgpu_lua_raise_engine(L, "mgpu.mem_info");
    lua_pushinteger(L, (lua_Integer)fr);
    lua_pushinteger(L, (lua_Integer)tot);
    return 2;
}

/* "backend:native,expandable_segments:False": what MGPU_ALLOC_CONF gave. */
static int l_memory_conf(lua_State *L)
{
    lm_ctx *c = lm_ctx_get(L);
    char text[160];
    mgpu_alloc_conf_format(mgpu_memory_conf(c->host.be), text, sizeof text);
    lua_pushstring(L, text);
    return 1;
}

/* mgpu.memory_configure("expandable_segments:True") - as
 * torch.cuda.memory._set_allocator_settings: for what is allocated next. */
static int l_memory_configure(lua_State *L)
{
    lm_ctx *c = lm_ctx_get(L);
    if (mgpu_memory_configure(c->host.be, luaL_checkstring(L, 1)) != MGPU_OK)
        return mgpu_lua_raise_engine(L, "mgpu.memory_configure");
    return 0;
}

/* mgpu.phantom_tensor{count=, dtype="f32", device=this rank's,
 * phantom_on_cuda=false}: a device tensor with no values. (It becomes the
 * phantom= option of the shaped tensors' constructor, which passes the
 * shape's count second.) */
int lm_phantom_tensor(lua_State *L)
{
    lm_ctx *c = lm_ctx_get(L);
    luaL_checktype(L, 1, LUA_TTABLE);
    /* "shape" and "phantom": mgpu.tensor{shape =, phantom = true} hands its table on */
    static const char *const known[] = {"count", "dtype", "device", "phantom_on_cuda", "shape", "phantom", NULL};
    lm_check_options(L, 1, "mgpu.phantom_tensor", known);
    lua_getfield(L, 1, "count");
    lua_getfield(L, 1, "dtype");
    lua_getfield(L, 1, "device");
    lua_getfield(L, 1, "phantom_on_cuda");
    lua_Integer count = lua_isnoneornil(L, 2) ? luaL_checkinteger(L, -4) : luaL_checkinteger(L, 2);
    const char *dtype = luaL_optstring(L, -3, "f32");
    int dev = lm_opt_int(L, -2, "mgpu.phantom_tensor", "device", c->host.device, 0, LM_INT_HI);
    int on_cuda = lua_toboolean(L, -1);
    if (count < 1) return luaL_error(L, "mgpu.phantom_tensor: count must be at least 1, got %I", count);
    int dt = mgpu_dtype_parse(dtype);
    if (dt < 0) return luaL_error(L, "dtype '%s' is not f32, f16, bf16 or i32", dtype);
    size_t esz = mgpu_dtype_size((mgpu_dtype)dt);
    if ((size_t)count > SIZE_MAX / esz) return luaL_error(L, "mgpu.phantom_tensor: %I elements overflow", count);
    lm_tensor *t = lua_newuserdatauv(L, sizeof *t, 0);
    memset(t, 0, sizeof *t);
    luaL_setmetatable(L, LM_TENSOR);
    mgpu_stream *s = dev == c->host.device ? c->stream : NULL;
    mgpu_buffer *buf = NULL;
    if (mgpu_mem_alloc_phantom(c->host.be, dev, s, (size_t)count * esz, on_cuda, &buf) != MGPU_OK)
        return mgpu_lua_raise_engine(L, "mgpu.phantom_tensor");
    t->t.buf = buf;
    t->t.count = (size_t)count;
    t->t.dtype = (mgpu_dtype)dt;
    t->kind = MGPU_MEM_DEVICE;
    return 1;
}

static int l_is_phantom(lua_State *L)
{
    lua_pushboolean(L, lm_check_tensor(L, 1)->t.buf->phantom);
    return 1;
}

void lm_open_mem(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"memory_stats", l_memory_stats}, {"memory_reset_peak", l_memory_reset_peak},
        {"empty_cache", l_empty_cache},   {"memory_conf", l_memory_conf},
        {"memory_configure", l_memory_configure},
        {"phantom_tensor", lm_phantom_tensor}, {"mem_info", l_mem_info}, {NULL, NULL},
    };
    lua_getglobal(L, "mgpu");
    luaL_setfuncs(L, fns, 0);
    lua_pop(L, 1);
    static const luaL_Reg methods[] = {{"is_phantom", l_is_phantom}, {NULL, NULL}};
    luaL_getmetatable(L, LM_TENSOR);
    lua_getfield(L, -1, "__index");
    luaL_setfuncs(L, methods, 0);
    lua_pop(L, 2);
}
