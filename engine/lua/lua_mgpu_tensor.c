/* lua_mgpu_tensor.c - tensors of the rank API: mgpu.tensor() and the
 * tensor methods (fill, checksum, compare, element reads and writes for
 * debugging). Host reads go through the default stream, so they see what
 * that stream ordered before them, as a CUDA program would. */
#include "lua/lua_mgpu_internal.h"
#include "mgpu/race.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

/* to_table refuses more than this without an explicit max: a table of a
 * 256 MiB tensor would only hit the sandbox's memory cap. */
#define TO_TABLE_DEFAULT_MAX (1 << 20)

/* A shape from a Lua table {d0, d1, ...} at idx: 1..4 positive dims. */
static int check_shape(lua_State *L, int idx, const char *what, size_t *dims)
{
    luaL_checktype(L, idx, LUA_TTABLE);
    int nd = (int)lua_rawlen(L, idx);
    if (nd < 1 || nd > MGPU_TENSOR_MAX_DIMS)
        return luaL_error(L, "%s: a shape is a list of 1 to %d dims, got %d", what, MGPU_TENSOR_MAX_DIMS, nd);
    for (int i = 0; i < nd; i++) {
        lua_rawgeti(L, idx, i + 1);
        int ok = 0;
        lua_Integer d = lua_tointegerx(L, -1, &ok);
        lua_pop(L, 1);
        if (!ok || d < 1) return luaL_error(L, "%s: dim %d of the shape must be an integer >= 1", what, i + 1);
        dims[i] = (size_t)d;
    }
    return nd;
}

/* Push a view of the tensor at idx described by v. */
static int push_view(lua_State *L, int idx, const mgpu_tensor *v)
{
    lm_tensor *parent = lm_check_tensor(L, idx);
    lm_tensor *t = lua_newuserdatauv(L, sizeof *t, 1);
    memset(t, 0, sizeof *t);
    luaL_setmetatable(L, LM_TENSOR);
    lua_pushvalue(L, idx);
    lua_setiuservalue(L, -2, 1);
    t->t = *v;
    t->kind = parent->kind;
    t->parent = parent;
    return 1;
}

/* t:view{d0, d1, ...} (also t:reshape): the same elements in another shape */
static int l_view(lua_State *L)
{
    lm_tensor *t = lm_check_tensor(L, 1);
    size_t dims[MGPU_TENSOR_MAX_DIMS];
    int nd = check_shape(L, 2, "tensor:view", dims);
    mgpu_tensor v;
    if (mgpu_tensor_reshape(&t->t, nd, dims, &v) != MGPU_OK) return mgpu_lua_raise_engine(L, "tensor:view");
    return push_view(L, 1, &v);
}

/* t:slice(start, len): rows start..start+len-1 (0-based) along dim 0 */
static int l_slice(lua_State *L)
{
    lua_Integer start = luaL_checkinteger(L, 2), len = luaL_checkinteger(L, 3);
    lm_tensor *t = lm_check_tensor(L, 1);
    if (start < 0 || len < 1) return luaL_error(L, "tensor:slice: start must be >= 0 and len >= 1 (got %I, %I)", start, len);
    mgpu_tensor v;
    if (mgpu_tensor_slice0(&t->t, (size_t)start, (size_t)len, &v) != MGPU_OK) return mgpu_lua_raise_engine(L, "tensor:slice");
    return push_view(L, 1, &v);
}

/* t:flat(first, n): elements first..first+n-1 (0-based) as a 1-dim view */
static int l_flat(lua_State *L)
{
    lua_Integer first = luaL_checkinteger(L, 2), n = luaL_checkinteger(L, 3);
    lm_tensor *t = lm_check_tensor(L, 1);
    if (first < 0 || n < 1) return luaL_error(L, "tensor:flat: first must be >= 0 and n >= 1 (got %I, %I)", first, n);
    mgpu_tensor v;
    if (mgpu_tensor_flat_range(&t->t, (size_t)first, (size_t)n, &v) != MGPU_OK) return mgpu_lua_raise_engine(L, "tensor:flat");
    return push_view(L, 1, &v);
}

/* t:shape() -> {d0, d1, ...} */
static int l_shape(lua_State *L)
{
    lm_tensor *t = lm_check_tensor(L, 1);
    size_t d[MGPU_TENSOR_MAX_DIMS];
    int nd = mgpu_tensor_dims(&t->t, d);
    lua_createtable(L, nd, 0);
    for (int i = 0; i < nd; i++) {
        lua_pushinteger(L, (lua_Integer)d[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static mgpu_mem_kind parse_kind(lua_State *L, const char *k)
{
    if (strcmp(k, "device") == 0) return MGPU_MEM_DEVICE;
    if (strcmp(k, "pinned") == 0 || strcmp(k, "host") == 0) return MGPU_MEM_PINNED;
    if (strcmp(k, "pageable") == 0) return MGPU_MEM_PAGEABLE;
    luaL_error(L, "tensor kind '%s' is not device, pinned (host) or pageable", k);
    return MGPU_MEM_DEVICE;
}

static mgpu_dtype parse_dtype(lua_State *L, const char *name)
{
    int d = mgpu_dtype_parse(name);
    if (d < 0) luaL_error(L, "dtype '%s' is not f32, f16, bf16 or i32", name);
    return (mgpu_dtype)d;
}

/* mgpu.tensor(count [, dtype [, kind [, device]]]) or
 * mgpu.tensor{count= or shape={d0, ..}, dtype="f32", kind="device",
 * device=this rank's, phantom=false} */
static int l_tensor_new(lua_State *L)
{
    lm_ctx *c = lm_ctx_get(L);
    lua_Integer count;
    const char *dtype = "f32", *kind = "device";
    const char *name = NULL;
    int dev = c->host.device, nd = 0, phantom = 0;
    size_t dims[MGPU_TENSOR_MAX_DIMS];
    if (lua_istable(L, 1)) {
        static const char *const known[] = {"count", "dtype", "kind", "device", "shape", "phantom", "name", NULL};
        lm_check_options(L, 1, "mgpu.tensor", known);
        lua_Integer shape_count = 0;
        lua_getfield(L, 1, "shape");
        if (!lua_isnil(L, -1)) {
            nd = check_shape(L, lua_gettop(L), "mgpu.tensor", dims);
            lua_Integer n = 1;
            for (int i = 0; i < nd; i++) {
                if ((size_t)n > SIZE_MAX / 8 / dims[i]) return luaL_error(L, "mgpu.tensor: the shape is too large");
                n *= (lua_Integer)dims[i];
            }
            shape_count = n;
        }
        lua_getfield(L, 1, "phantom");
        phantom = lua_toboolean(L, -1);
        lua_pop(L, 2);
        if (phantom) {
            lua_pushcfunction(L, lm_phantom_tensor);
            lua_pushvalue(L, 1);
            if (nd) lua_pushinteger(L, shape_count);
            lua_call(L, nd ? 2 : 1, 1);
            lm_tensor *t = lm_check_tensor(L, -1);
            if (nd && mgpu_tensor_reshape(&t->t, nd, dims, &t->t) != MGPU_OK) return mgpu_lua_raise_engine(L, "mgpu.tensor");
            return 1;
        }
        lua_getfield(L, 1, "count");
        lua_getfield(L, 1, "dtype");
        lua_getfield(L, 1, "kind");
        lua_getfield(L, 1, "device");
        lua_getfield(L, 1, "name");
        if (nd) count = shape_count;
        else if (lua_isnil(L, -5)) return luaL_error(L, "mgpu.tensor{...} needs count= or shape=");
        else count = luaL_checkinteger(L, -5);
        dtype = luaL_optstring(L, -4, dtype);
        kind = luaL_optstring(L, -3, kind);
        dev = lm_opt_int(L, -2, "mgpu.tensor", "device", dev, 0, LM_INT_HI);
        name = lua_isnil(L, -1) ? NULL : lm_check_name(L, lua_gettop(L), "mgpu.tensor", "name=");
    } else {
        count = luaL_checkinteger(L, 1);
        dtype = luaL_optstring(L, 2, dtype);
        kind = luaL_optstring(L, 3, kind);
        dev = lm_opt_int(L, 4, "mgpu.tensor", "device", dev, 0, LM_INT_HI);
    }
    if (count < 1) return luaL_error(L, "mgpu.tensor: count must be at least 1, got %I", count);
    mgpu_dtype dt = parse_dtype(L, dtype);
    mgpu_mem_kind mk = parse_kind(L, kind);
    lm_tensor *t = lua_newuserdatauv(L, sizeof *t, 0);
    memset(t, 0, sizeof *t);
    luaL_setmetatable(L, LM_TENSOR);
    if (nd ? mgpu_tensor_alloc_shape(c->host.be, mk, dev, dt, nd, dims, &t->t)
           : mgpu_tensor_alloc(c->host.be, mk, dev, dt, (size_t)count, &t->t))
        return mgpu_lua_raise_engine(L, "mgpu.tensor");
    t->kind = mk;
    if (name) mgpu_race_label_buffer(t->t.buf, name);
    return 1;
}

/* t:name("grads") -> t: what the race detector calls the tensor (a view
 * names its whole tensor) */
static int l_name(lua_State *L)
{
    const char *name = lm_check_name(L, 2, "tensor:name", "the name");
    lm_tensor *t = lm_check_tensor(L, 1);
    mgpu_race_label_buffer(t->t.buf, name);
    lua_settop(L, 1);
    return 1;
}

/* free, __gc, __close: the memory goes now, or when the calls and the
 * group using it let go */
static int l_tensor_gc(lua_State *L)
{
    lm_tensor_release(luaL_checkudata(L, 1, LM_TENSOR));
    return 0;
}

/* A finite value the dtype cannot hold would be stored as inf with no word
 * (1e39 in an f32, 1e10 in an f16, a fill's index values past an f16's
 * 65504), while an i32 refuses what does not fit: every dtype refuses it
 * the same way. inf and nan given as such are stored as asked. */
static void check_fits(lua_State *L, const char *fn, mgpu_dtype dt, double v, const char *what)
{
    if (!isfinite(v)) return;
    int fits;
    double max;
    if (dt == MGPU_I32) {
        fits = v >= INT32_MIN && v <= INT32_MAX;
        max = INT32_MAX;
    } else {
        unsigned char buf[4];
        max = dt == MGPU_F16 ? 65504.0 : dt == MGPU_BF16 ? 3.3895313892515355e38 : FLT_MAX;
        fits = fabs(v) <= FLT_MAX; /* first: a double past FLT_MAX must not be cast */
        if (fits) mgpu_fill_store(buf, dt, 0, (float)v);
        fits = fits && isfinite(mgpu_elem_f32(buf, dt, 0));
    }
    if (!fits) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s%.9g does not fit %s %s (its largest magnitude is %.10g)", what, v,
                 dt == MGPU_BF16 ? "a" : "an", mgpu_dtype_name(dt), max);
        luaL_error(L, "%s: %s; it would be stored as %s", fn, msg, dt == MGPU_I32 ? "a saturated integer" : "inf");
    }
}

/* t:fill{kind="random"|"const"|"index", seed=0, value=0, stream=} or t:fill(v) */
static int l_fill(lua_State *L)
{
    mgpu_fill_spec spec = {.kind = MGPU_FILL_RANDOM, .seed = 0, .value = 0};
    lua_settop(L, 3);
    /* every option before any pointer: an __index may run the script */
    if (lua_type(L, 2) == LUA_TNUMBER) {
        spec.kind = MGPU_FILL_CONST;
        spec.value = lua_tonumber(L, 2);
        lua_pushvalue(L, 3); /* the stream, at 4 */
    } else if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        static const char *const known[] = {"kind", "seed", "value", "stream", NULL};
        lm_check_options(L, 2, "tensor:fill", known);
        lua_getfield(L, 2, "stream"); /* at 4 */
        /* each option named in its error: luaL_opt* on a field's stack
         * slot said "bad argument #-2 to 'fill'" */
        lua_getfield(L, 2, "value");
        int has_value = !lua_isnil(L, -1);
        lua_pop(L, 1);
        spec.value = lm_opt_num_field(L, 2, "value", "tensor:fill", 0, 0);
        lua_getfield(L, 2, "kind");
        if (!lua_isnil(L, -1) && lua_type(L, -1) != LUA_TSTRING)
            return luaL_error(L, "tensor:fill: option 'kind' must be a string (random, const or index), got %s",
                              luaL_typename(L, -1));
        const char *k = lua_isnil(L, -1) ? (has_value ? "const" : "random") : lua_tostring(L, -1);
        if (strcmp(k, "random") == 0) spec.kind = MGPU_FILL_RANDOM;
        else if (strcmp(k, "const") == 0) spec.kind = MGPU_FILL_CONST;
        else if (strcmp(k, "index") == 0) spec.kind = MGPU_FILL_INDEX;
        else return luaL_error(L, "tensor:fill: kind '%s' is not random, const or index", k);
        if (spec.kind == MGPU_FILL_CONST && !has_value) return luaL_error(L, "tensor:fill{kind='const'} needs value=");
        lua_getfield(L, 2, "seed");
        int is_int = 1;
        if (!lua_isnil(L, -1)) spec.seed = (uint64_t)lua_tointegerx(L, -1, &is_int);
        if (!is_int)
            return luaL_error(L, "tensor:fill: option 'seed' must be an integer, got %s",
                              lua_type(L, -1) == LUA_TNUMBER ? "a number with a fraction" : luaL_typename(L, -1));
        lua_settop(L, 4);
    } else {
        lua_pushnil(L);
    }
    lm_frame *f = lm_frame_open(L);
    lm_tensor *t = lm_pin_tensor(L, f, 1);
    mgpu_stream *s = lm_pin_stream(L, f, 4);
    if (spec.kind != MGPU_FILL_RANDOM) { /* an index fill reaches value + min(count - 1, 1023) */
        size_t top = spec.kind == MGPU_FILL_INDEX ? (t->t.count > 1024 ? 1023 : t->t.count - 1) : 0;
        check_fits(L, "tensor:fill", t->t.dtype, spec.value, "value ");
        if (top) {
            char what[64];
            snprintf(what, sizeof what, "an index fill's last value, value + %zu = ", top);
            check_fits(L, "tensor:fill", t->t.dtype, spec.value + (double)top, what);
        }
    }
    int token = 0;
    if (lm_ctx_get(L)->spans) {
        char name[40], size[24];
        snprintf(name, sizeof name, "fill %s", lm_size_label(mgpu_tensor_bytes(&t->t), size, sizeof size));
        token = lm_span_begin(L, s, MGPU_SPAN_KERNEL, name);
    }
    mgpu_result r = mgpu_tensor_fill(s, &t->t, &spec);
    lm_span_end(L, token, r);
    if (r != MGPU_OK) return mgpu_lua_raise_engine(L, "tensor:fill");
    lua_settop(L, 1);
    return 1; /* chainable: mgpu.tensor(n):fill{...} */
}

/* t:checksum([stream]) -> integer (the 64-bit checksum's bits) */
static int l_checksum(lua_State *L)
{
    lua_settop(L, 2);
    lm_frame *f = lm_frame_open(L);
    lm_tensor *t = lm_pin_tensor(L, f, 1);
    uint64_t sum = 0;
    mgpu_stream *s = lm_pin_stream(L, f, 2);
    mgpu_race_host_read_begin(t->t.buf->be, "t:checksum");
    mgpu_result r = mgpu_tensor_checksum(s, &t->t, &sum);
    mgpu_race_host_read_end(t->t.buf->be);
    if (r != MGPU_OK) return mgpu_lua_raise_engine(L, "tensor:checksum");
    lua_pushinteger(L, (lua_Integer)sum);
    return 1;
}

/* t:compare(other [, rtol [, atol]]) -> mismatches, max_abs_err, first (0-based index or nil) */
static int l_compare(lua_State *L)
{
    double rtol = luaL_optnumber(L, 3, 0), atol = luaL_optnumber(L, 4, 0);
    lua_settop(L, 4);
    lm_frame *f = lm_frame_open(L);
    lm_tensor *a = lm_pin_tensor(L, f, 1), *b = lm_pin_tensor(L, f, 2);
    mgpu_compare_result r;
    mgpu_race_host_read_begin(a->t.buf->be, "t:compare");
    mgpu_result res = mgpu_tensor_compare(lm_ctx_get(L)->stream, &a->t, &b->t, rtol, atol, &r);
    mgpu_race_host_read_end(a->t.buf->be);
    if (res != MGPU_OK) return mgpu_lua_raise_engine(L, "tensor:compare");
    lua_pushinteger(L, (lua_Integer)r.mismatches);
    lua_pushnumber(L, r.max_abs_err);
    if (r.mismatches) lua_pushinteger(L, (lua_Integer)r.first_mismatch);
    else lua_pushnil(L);
    return 3;
}

static void push_elem(lua_State *L, const void *base, mgpu_dtype t, size_t i)
{
    if (t == MGPU_I32) lua_pushinteger(L, ((const int32_t *)base)[i]);
    else lua_pushnumber(L, mgpu_elem_f32(base, t, i));
}

static size_t check_index(lua_State *L, const lm_tensor *t, lua_Integer i, const char *what)
{
    if (i < 0 || (size_t)i >= t->t.count)
        luaL_error(L, "%s: index %I is outside 0..%I (indices start at 0)", what, i, (lua_Integer)t->t.count - 1);
    return (size_t)i;
}

/* t:get(i) -> element i (0-based), read through the default stream */
static int l_get(lua_State *L)
{
    lua_Integer at = luaL_checkinteger(L, 2);
    lua_settop(L, 2);
    lm_tensor *t = lm_pin_tensor(L, lm_frame_open(L), 1);
    size_t i = check_index(L, t, at, "tensor:get");
    lm_ctx *c = lm_ctx_get(L);
    size_t esz = mgpu_dtype_size(t->t.dtype);
    mgpu_race_host_read_begin(c->host.be, "t:get");
    mgpu_result r = mgpu_copy(c->stream, c->stage, 0, t->t.buf, t->t.offset + i * esz, esz, MGPU_COPY_CE);
    if (r == MGPU_OK) r = mgpu_stream_synchronize(c->stream);
    mgpu_race_host_read_end(c->host.be);
    if (r != MGPU_OK) return mgpu_lua_raise_engine(L, "tensor:get");
    push_elem(L, c->stage->ptr, t->t.dtype, 0);
    return 1;
}

/* t:set(i, v): write element i (0-based) through the default stream */
static int l_set(lua_State *L)
{
    lua_Integer at = luaL_checkinteger(L, 2);
    lua_Number v = luaL_checknumber(L, 3);
    int v_int = 0;
    lua_Integer vi = lua_tointegerx(L, 3, &v_int);
    lua_settop(L, 3);
    lm_tensor *t = lm_pin_tensor(L, lm_frame_open(L), 1);
    size_t i = check_index(L, t, at, "tensor:set");
    lm_ctx *c = lm_ctx_get(L);
    if (t->t.dtype == MGPU_I32) {
        if (!v_int) return luaL_argerror(L, 3, "number has no integer representation");
        if (vi < INT32_MIN || vi > INT32_MAX) return luaL_error(L, "tensor:set: %I does not fit an i32", vi);
        ((int32_t *)c->stage->ptr)[0] = (int32_t)vi;
    } else {
        check_fits(L, "tensor:set", t->t.dtype, v, "");
        mgpu_fill_store(c->stage->ptr, t->t.dtype, 0, (float)v);
    }
    size_t esz = mgpu_dtype_size(t->t.dtype);
    /* synchronous: the staging buffer is reused by the next call */
    if (mgpu_copy(c->stream, t->t.buf, t->t.offset + i * esz, c->stage, 0, esz, MGPU_COPY_CE) != MGPU_OK ||
        mgpu_stream_synchronize(c->stream) != MGPU_OK)
        return mgpu_lua_raise_engine(L, "tensor:set");
    return 0;
}

/* t:to_table([max]) -> {elements 0..n-1 at keys 1..n} */
static int l_to_table(lua_State *L)
{
    lua_Integer max = luaL_optinteger(L, 2, -1);
    lua_settop(L, 2);
    lm_tensor *t = lm_pin_tensor(L, lm_frame_open(L), 1);
    size_t n = t->t.count;
    if (max >= 0 && (size_t)max < n) n = (size_t)max;
    else if (max < 0 && n > TO_TABLE_DEFAULT_MAX)
        return luaL_error(L, "tensor:to_table: %I elements is a lot for a Lua table; pass a max "
                             "(t:to_table(16)) or use checksum/compare", (lua_Integer)n);
    lm_ctx *c = lm_ctx_get(L);
    lua_createtable(L, (int)n, 0);
    if (n == 0) return 1;
    size_t esz = mgpu_dtype_size(t->t.dtype);
    mgpu_buffer *st = NULL;
    if (mgpu_mem_alloc(c->host.be, MGPU_MEM_PINNED, -1, n * esz, &st) != MGPU_OK)
        return mgpu_lua_raise_engine(L, "tensor:to_table");
    mgpu_race_host_read_begin(c->host.be, "t:to_table");
    mgpu_result r = mgpu_copy(c->stream, st, 0, t->t.buf, t->t.offset, n * esz, MGPU_COPY_CE);
    if (r == MGPU_OK) r = mgpu_stream_synchronize(c->stream);
    mgpu_race_host_read_end(c->host.be);
    if (r != MGPU_OK) {
        mgpu_mem_free(st);
        return mgpu_lua_raise_engine(L, "tensor:to_table");
    }
    /* nothing below can raise while st is held: the table's array part was
     * sized above, so storing numbers at 1..n allocates nothing */
    for (size_t i = 0; i < n; i++) {
        push_elem(L, st->ptr, t->t.dtype, i);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    mgpu_mem_free(st);
    return 1;
}

static int l_count(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)lm_check_tensor(L, 1)->t.count);
    return 1;
}

static int l_dtype(lua_State *L)
{
    lua_pushstring(L, mgpu_dtype_name(lm_check_tensor(L, 1)->t.dtype));
    return 1;
}

static int l_kind(lua_State *L)
{
    lua_pushstring(L, mgpu_mem_kind_name(lm_check_tensor(L, 1)->kind));
    return 1;
}

static int l_device(lua_State *L)
{
    lua_pushinteger(L, lm_check_tensor(L, 1)->t.buf->device);
    return 1;
}

static int l_bytes(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)mgpu_tensor_bytes(&lm_check_tensor(L, 1)->t));
    return 1;
}

static int l_tostring(lua_State *L)
{
    lm_tensor *t = luaL_checkudata(L, 1, LM_TENSOR);
    char sh[128];
    if (lm_tensor_freed(t)) lua_pushstring(L, "tensor (freed)"); /* a view of a freed tensor too: its buffer is gone */
    else if (t->kind == MGPU_MEM_DEVICE)
        lua_pushfstring(L, "tensor(%s, device %d%s)", mgpu_tensor_shape_str(&t->t, sh, sizeof sh), t->t.buf->device,
                        t->t.buf->phantom ? ", phantom" : "");
    else
        lua_pushfstring(L, "tensor(%s, %s host memory)", mgpu_tensor_shape_str(&t->t, sh, sizeof sh),
                        mgpu_mem_kind_name(t->kind));
    return 1;
}

void lm_open_tensor(lua_State *L)
{
    static const luaL_Reg methods[] = {
        {"fill", l_fill},   {"checksum", l_checksum}, {"compare", l_compare}, {"get", l_get},
        {"set", l_set},     {"to_table", l_to_table}, {"count", l_count},     {"dtype", l_dtype},
        {"kind", l_kind},   {"device", l_device},     {"bytes", l_bytes},     {"free", l_tensor_gc},
        {"view", l_view},   {"reshape", l_view},      {"slice", l_slice},     {"flat", l_flat},
        {"shape", l_shape}, {"name", l_name},     {NULL, NULL},
    };
    static const luaL_Reg meta[] = {
        {"__gc", l_tensor_gc}, {"__close", l_tensor_gc}, {"__len", l_count}, {"__tostring", l_tostring},
        {NULL, NULL},
    };
    lm_new_class(L, LM_TENSOR, methods, meta);
    lua_getglobal(L, "mgpu");
    lua_pushcfunction(L, l_tensor_new);
    lua_setfield(L, -2, "tensor");
    lua_pop(L, 1);
}
