/* lua_mgpu_ipc.c - the rank API's peer access, UVA pointer attributes and
 * CUDA IPC (lab 3): mgpu.peer_access, mgpu.can_access_peer,
 * mgpu.pointer_info, t:ipc_handle(), mgpu.ipc_open, t:ipc_close(), and
 * mgpu.share, which hands a short string (a handle) from one rank to all. */
#include "lua/lua_mgpu_internal.h"
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* mgpu.share moves handles and names, not data: data goes through tensors. */
#define SHARE_MAX_BYTES (64u << 10)
#define SHARE_KEY "mgpu.share_bufs"

/* mgpu.peer_access(peer [, on]) -> can, enabled (this rank's device -> peer) */
static int l_peer_access(lua_State *L)
{
    lm_ctx *c = lm_ctx_get(L);
    int peer = lm_check_int(L, 1, "mgpu.peer_access", "peer", 0, LM_INT_HI);
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TBOOLEAN);
        if (mgpu_peer_access_enable(c->host.be, c->host.device, peer, lua_toboolean(L, 2)) != MGPU_OK)
            return mgpu_lua_raise_engine(L, "mgpu.peer_access");
    }
    int can = 0, on = 0;
    if (mgpu_peer_access_query(c->host.be, c->host.device, peer, &can, &on) != MGPU_OK)
        return mgpu_lua_raise_engine(L, "mgpu.peer_access");
    lua_pushboolean(L, can);
    lua_pushboolean(L, on);
    return 2;
}

/* mgpu.can_access_peer(dev, peer) -> boolean (cudaDeviceCanAccessPeer) */
static int l_can_access_peer(lua_State *L)
{
    lm_ctx *c = lm_ctx_get(L);
    int can = 0;
    int dev = lm_check_int(L, 1, "mgpu.can_access_peer", "device", 0, LM_INT_HI);
    int peer = lm_check_int(L, 2, "mgpu.can_access_peer", "peer", 0, LM_INT_HI);
    if (mgpu_peer_can_access(c->host.be, dev, peer, &can) != MGPU_OK)
        return mgpu_lua_raise_engine(L, "mgpu.can_access_peer");
    lua_pushboolean(L, can);
    return 1;
}

static void set_str(lua_State *L, const char *k, const char *v)
{
    lua_pushstring(L, v);
    lua_setfield(L, -2, k);
}

static void set_ptr(lua_State *L, const char *k, const void *p)
{
    char text[32];
    snprintf(text, sizeof text, "0x%" PRIxPTR, (uintptr_t)p);
    set_str(L, k, text);
}

/* mgpu.pointer_info(t [, element_offset]) -> {kind, device, device_ptr,
 * host_ptr, address} from the UVA pointer attributes of that element. */
static int l_pointer_info(lua_State *L)
{
    lm_ctx *c = lm_ctx_get(L);
    lua_Integer i = luaL_optinteger(L, 2, 0);
    lua_settop(L, 2);
    lm_tensor *t = lm_pin_tensor(L, lm_frame_open(L), 1);
    if (i < 0 || (size_t)i >= t->t.count)
        return luaL_error(L, "mgpu.pointer_info: element offset %I is outside 0..%I", i, (lua_Integer)t->t.count - 1);
    const char *p = (const char *)t->t.buf->ptr + t->t.offset + (size_t)i * mgpu_dtype_size(t->t.dtype);
    mgpu_ptr_attr a;
    if (mgpu_pointer_attributes(c->host.be, p, &a) != MGPU_OK) return mgpu_lua_raise_engine(L, "mgpu.pointer_info");
    lua_createtable(L, 0, 7);
    set_str(L, "kind", mgpu_mem_kind_name(a.kind));
    lua_pushinteger(L, a.device);
    lua_setfield(L, -2, "device");
    lua_pushboolean(L, a.device_ptr != NULL);
    lua_setfield(L, -2, "device_ptr");
    lua_pushboolean(L, a.host_ptr != NULL);
    lua_setfield(L, -2, "host_ptr");
    set_ptr(L, "address", p);
    /* Where the two differ (pinned memory without UVA) a script sees it. */
    if (a.device_ptr) set_ptr(L, "device_address", a.device_ptr);
    if (a.host_ptr) set_ptr(L, "host_address", a.host_ptr);
    return 1;
}

/* t:ipc_handle() -> "mgpu-ipc:..." for another process's mgpu.ipc_open */
static int l_ipc_handle(lua_State *L)
{
    lua_settop(L, 1);
    lm_tensor *t = lm_pin_tensor(L, lm_frame_open(L), 1);
    if (t->t.offset != 0) return luaL_error(L, "tensor:ipc_handle: only a whole allocation can be exported");
    mgpu_ipc_handle h;
    if (mgpu_ipc_export(t->t.buf, &h) != MGPU_OK) return mgpu_lua_raise_engine(L, "tensor:ipc_handle");
    char text[MGPU_IPC_HANDLE_STRLEN + 1];
    mgpu_ipc_handle_to_string(&h, text);
    lua_pushstring(L, text);
    return 1;
}

/* mgpu.ipc_open(handle [, dtype [, count]]) -> a tensor over the exporter's
 * memory (on this rank's device; default f32, as many elements as fit). */
static int l_ipc_open(lua_State *L)
{
    lm_ctx *c = lm_ctx_get(L);
    const char *text = luaL_checkstring(L, 1);
    const char *dtname = luaL_optstring(L, 2, "f32");
    int dt = mgpu_dtype_parse(dtname);
    if (dt < 0) return luaL_error(L, "mgpu.ipc_open: dtype '%s' is not f32, f16, bf16 or i32", dtname);
    mgpu_ipc_handle h;
    size_t bytes = 0;
    if (mgpu_ipc_handle_from_string(text, &h) != MGPU_OK || mgpu_ipc_handle_info(&h, &bytes, NULL) != MGPU_OK)
        return mgpu_lua_raise_engine(L, "mgpu.ipc_open");
    size_t esz = mgpu_dtype_size((mgpu_dtype)dt);
    lua_Integer count = luaL_optinteger(L, 3, (lua_Integer)(bytes / esz));
    if (count < 1 || (size_t)count > bytes / esz)
        return luaL_error(L, "mgpu.ipc_open: %I %s elements do not fit the %I exported bytes", count, dtname,
                          (lua_Integer)bytes);
    lm_tensor *t = lua_newuserdatauv(L, sizeof *t, 0);
    memset(t, 0, sizeof *t);
    luaL_setmetatable(L, LM_TENSOR);
    if (mgpu_ipc_open(c->host.be, c->host.device, &h, &t->t.buf) != MGPU_OK)
        return mgpu_lua_raise_engine(L, "mgpu.ipc_open");
    t->t.count = (size_t)count;
    t->t.dtype = (mgpu_dtype)dt;
    t->kind = MGPU_MEM_DEVICE;
    return 1;
}

/* t:ipc_close(): unmap a tensor from mgpu.ipc_open (the collector also does) */
static int l_ipc_close(lua_State *L)
{
    lm_tensor *t = lm_check_tensor(L, 1);
    if (t->parent) return luaL_error(L, "tensor:ipc_close: this is a view; close the tensor mgpu.ipc_open returned");
    if (t->pins > 0)
        return luaL_error(L, "tensor:ipc_close: the tensor is in use by a call or an mgpu.group that has not "
                             "ended; close it after");
    if (mgpu_ipc_close(t->t.buf) != MGPU_OK)
        return luaL_error(L, "tensor:ipc_close: this tensor was not opened with mgpu.ipc_open; use t:free()");
    memset(&t->t, 0, sizeof t->t);
    return 0;
}

/*--- mgpu.share: a string from one rank to all ------------------------*/

typedef struct share_bufs {
    mgpu_buffer *dev, *stage;
} share_bufs;

/* Broadcast n bytes of stage from root through a device buffer (the
 * communicator moves device memory, as NCCL does). */
static mgpu_result bcast(lm_ctx *c, mgpu_comm *comm, share_bufs *b, size_t n, int root)
{
    size_t words = (n + 3) / 4;
    MGPU_CHECK(mgpu_copy(c->stream, b->dev, 0, b->stage, 0, words * 4, MGPU_COPY_CE));
    MGPU_CHECK(mgpu_broadcast(comm, b->dev, 0, b->dev, 0, words, MGPU_I32, root, c->stream));
    MGPU_CHECK(mgpu_copy(c->stream, b->stage, 0, b->dev, 0, words * 4, MGPU_COPY_CE));
    MGPU_CHECK(mgpu_stream_synchronize(c->stream));
    return MGPU_OK;
}

static int share_bufs_gc(lua_State *L)
{
    share_bufs *b = lua_touserdata(L, 1);
    mgpu_mem_free(b->dev);
    mgpu_mem_free(b->stage);
    b->dev = b->stage = NULL;
    return 0;
}

/* The buffers live as long as the state (a userdata in the registry), so
 * an error raised anywhere in mgpu.share leaks nothing. */
static share_bufs *get_share_bufs(lua_State *L, lm_ctx *c)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, SHARE_KEY) == LUA_TUSERDATA) {
        share_bufs *b = lua_touserdata(L, -1);
        lua_pop(L, 1);
        return b;
    }
    lua_pop(L, 1);
    share_bufs *b = lua_newuserdatauv(L, sizeof *b, 0);
    b->dev = b->stage = NULL;
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, share_bufs_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, SHARE_KEY);
    if (mgpu_mem_alloc(c->host.be, MGPU_MEM_PINNED, -1, SHARE_MAX_BYTES, &b->stage) != MGPU_OK ||
        mgpu_mem_alloc(c->host.be, MGPU_MEM_DEVICE, c->host.device, SHARE_MAX_BYTES, &b->dev) != MGPU_OK)
        mgpu_lua_raise_engine(L, "mgpu.share");
    return b;
}

static mgpu_result share(lm_ctx *c, mgpu_comm *comm, const char *s, size_t len, int root, share_bufs *b,
                         size_t *out_len)
{
    uint32_t n = (uint32_t)len;
    memset(b->stage->ptr, 0, 4);
    if (c->host.rank == root) memcpy(b->stage->ptr, &n, 4);
    MGPU_CHECK(bcast(c, comm, b, 4, root));
    memcpy(&n, b->stage->ptr, 4);
    if (n > SHARE_MAX_BYTES) return mgpu_fail(MGPU_ERR_INTERNAL, "mgpu.share: received a length of %u bytes", n);
    if (c->host.rank == root) memcpy(b->stage->ptr, s, len);
    if (n) MGPU_CHECK(bcast(c, comm, b, n, root));
    *out_len = n;
    return MGPU_OK;
}

/* mgpu.share(value [, root=0]) -> root's string on every rank. Collective:
 * every rank calls it, in the same order as its other collectives. */
static int l_share(lua_State *L)
{
    lm_ctx *c = lm_ctx_get(L);
    lua_Integer root = luaL_optinteger(L, 2, 0);
    if (root < 0 || root >= c->host.world)
        return luaL_error(L, "mgpu.share: root %I is not a rank (0..%d)", root, c->host.world - 1);
    size_t len = 0;
    const char *s = NULL;
    if (c->host.rank == root) {
        if (lua_type(L, 1) != LUA_TSTRING && lua_type(L, 1) != LUA_TNUMBER)
            return luaL_error(L, "mgpu.share: the root's value must be a string (got %s)", luaL_typename(L, 1));
        s = lua_tolstring(L, 1, &len);
        if (len > SHARE_MAX_BYTES)
            return luaL_error(L, "mgpu.share is for short strings (handles, names): %I bytes is over the %d-byte limit; "
                                 "move data in tensors", (lua_Integer)len, (int)SHARE_MAX_BYTES);
    }
    if (c->host.world == 1) {
        lua_pushlstring(L, s, len);
        return 1;
    }
    if (!c->host.world_comm) return luaL_error(L, "mgpu.share: this host runs no communicator");
    mgpu_comm *comm = NULL;
    if (c->host.world_comm(c->host.ctx, &comm) != MGPU_OK) return mgpu_lua_raise_engine(L, "mgpu.share");
    share_bufs *b = get_share_bufs(L, c);
    size_t n = 0;
    if (share(c, comm, s, len, (int)root, b, &n) != MGPU_OK) return mgpu_lua_raise_engine(L, "mgpu.share");
    lua_pushlstring(L, (const char *)b->stage->ptr, n);
    return 1;
}

void lm_open_ipc(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"peer_access", l_peer_access}, {"can_access_peer", l_can_access_peer}, {"pointer_info", l_pointer_info},
        {"ipc_open", l_ipc_open},       {"share", l_share},                     {NULL, NULL},
    };
    lua_getglobal(L, "mgpu");
    luaL_setfuncs(L, fns, 0);
    lua_pop(L, 1);
    static const luaL_Reg methods[] = {
        {"ipc_handle", l_ipc_handle}, {"ipc_close", l_ipc_close}, {NULL, NULL},
    };
    luaL_getmetatable(L, LM_TENSOR);
    lua_getfield(L, -1, "__index");
    luaL_setfuncs(L, methods, 0);
    lua_pop(L, 2);
}
