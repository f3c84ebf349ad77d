/* lua_mgpu_nn.c - the training ops in the rank API: the `mgpu.nn` table
 * over mgpu/nn.h. Every function takes tensors first and an optional
 * options table last (scalars, and stream= for a stream other than the
 * default); each op is a kernel span on the timeline named after it.
 * Models and training loops are Lua (labs/lib/nn); only ops live here. */
#include "lua/lua_mgpu_internal.h"
#include "mgpu/nn.h"
#include <string.h>

/* A tensor argument, or NULL for nil when `optional`. */
static mgpu_tensor *T(lua_State *L, int idx, int optional)
{
    if (optional && lua_isnoneornil(L, idx)) return NULL;
    return &lm_check_tensor(L, idx)->t;
}

static float opt_num(lua_State *L, int o, const char *k, float dflt)
{
    if (!lua_istable(L, o)) return dflt;
    lua_getfield(L, o, k);
    float v = lua_isnil(L, -1) ? dflt : (float)luaL_checknumber(L, -1);
    lua_pop(L, 1);
    return v;
}

static int opt_int(lua_State *L, int o, const char *k, int dflt)
{
    if (!lua_istable(L, o)) return dflt;
    lua_getfield(L, o, k);
    int v = lua_isnil(L, -1) ? dflt : lua_isboolean(L, -1) ? lua_toboolean(L, -1) : (int)luaL_checkinteger(L, -1);
    lua_pop(L, 1);
    return v;
}

/* The options table at o (or nothing there): its stream= or the default. */
static mgpu_stream *opt_stream(lua_State *L, int o)
{
    if (!lua_istable(L, o)) {
        if (!lua_isnoneornil(L, o)) luaL_error(L, "the last argument must be an options table {...}");
        return lm_ctx_get(L)->stream;
    }
    lua_getfield(L, o, "stream");
    mgpu_stream *s = lm_opt_stream(L, lua_gettop(L));
    lua_pop(L, 1);
    return s;
}

/* Run one op between a span's begin and end; raise on failure. */
#define RUN_SPAN(name, span, s, call)                                        \
    do {                                                                    \
        int tok_ = lm_span_begin(L, (s), MGPU_SPAN_KERNEL, (span));         \
        mgpu_result r_ = (call);                                            \
        lm_span_end(L, tok_, r_);                                           \
        if (r_ != MGPU_OK) return mgpu_lua_raise_engine(L, "mgpu.nn." name); \
        return 0;                                                           \
    } while (0)
#define RUN(name, s, call) RUN_SPAN(name, name, s, call)

/* gemm(a, b, c, {ta=, tb=, alpha=1, beta=0}) */
static int l_gemm(lua_State *L)
{
    mgpu_tensor *a = T(L, 1, 0), *b = T(L, 2, 0), *c = T(L, 3, 0);
    mgpu_stream *s = opt_stream(L, 4);
    RUN("gemm", s, mgpu_nn_gemm(s, a, opt_int(L, 4, "ta", 0), b, opt_int(L, 4, "tb", 0), c, opt_num(L, 4, "alpha", 1),
                                opt_num(L, 4, "beta", 0)));
}

static int l_bias_add(lua_State *L) /* bias_add(x, bias, y) */
{
    mgpu_tensor *x = T(L, 1, 0), *b = T(L, 2, 0), *y = T(L, 3, 0);
    mgpu_stream *s = opt_stream(L, 4);
    RUN("bias_add", s, mgpu_nn_bias_add(s, x, b, y));
}

static int l_bias_grad(lua_State *L) /* bias_grad(dy, db, {beta=0}) */
{
    mgpu_tensor *dy = T(L, 1, 0), *db = T(L, 2, 0);
    mgpu_stream *s = opt_stream(L, 3);
    RUN("bias_grad", s, mgpu_nn_bias_grad(s, dy, db, opt_num(L, 3, "beta", 0)));
}

static mgpu_nn_act check_act(lua_State *L, int idx)
{
    const char *name = luaL_checkstring(L, idx);
    int a = mgpu_nn_act_parse(name);
    if (a < 0) luaL_error(L, "activation '%s' is not relu, gelu or silu", name);
    return (mgpu_nn_act)a;
}

static int l_act(lua_State *L) /* act("relu", x, y) */
{
    mgpu_nn_act act = check_act(L, 1);
    mgpu_tensor *x = T(L, 2, 0), *y = T(L, 3, 0);
    mgpu_stream *s = opt_stream(L, 4);
    RUN_SPAN("act", mgpu_nn_act_name(act), s, mgpu_nn_activation(s, act, x, y));
}

static int l_act_backward(lua_State *L) /* act_backward("relu", x, dy, dx) */
{
    mgpu_nn_act act = check_act(L, 1);
    mgpu_tensor *x = T(L, 2, 0), *dy = T(L, 3, 0), *dx = T(L, 4, 0);
    mgpu_stream *s = opt_stream(L, 5);
    static const char *const bw[MGPU_ACT_COUNT] = {"relu_backward", "gelu_backward", "silu_backward"};
    RUN_SPAN("act_backward", bw[act], s, mgpu_nn_activation_backward(s, act, x, dy, dx));
}

static int l_swiglu(lua_State *L) /* swiglu(gate, up, y) */
{
    mgpu_tensor *g = T(L, 1, 0), *u = T(L, 2, 0), *y = T(L, 3, 0);
    mgpu_stream *s = opt_stream(L, 4);
    RUN("swiglu", s, mgpu_nn_swiglu(s, g, u, y));
}

static int l_swiglu_backward(lua_State *L) /* swiglu_backward(gate, up, dy, dgate, dup) */
{
    mgpu_tensor *g = T(L, 1, 0), *u = T(L, 2, 0), *dy = T(L, 3, 0), *dg = T(L, 4, 0), *du = T(L, 5, 0);
    mgpu_stream *s = opt_stream(L, 6);
    RUN("swiglu_backward", s, mgpu_nn_swiglu_backward(s, g, u, dy, dg, du));
}

static int l_add(lua_State *L) /* add(a, b, y, {alpha=1, beta=1}) */
{
    mgpu_tensor *a = T(L, 1, 0), *b = T(L, 2, 0), *y = T(L, 3, 0);
    mgpu_stream *s = opt_stream(L, 4);
    RUN("add", s, mgpu_nn_add(s, a, b, y, opt_num(L, 4, "alpha", 1), opt_num(L, 4, "beta", 1)));
}

static int l_cross_entropy(lua_State *L) /* cross_entropy(logits, labels, loss, dlogits|nil) */
{
    mgpu_tensor *x = T(L, 1, 0), *lab = T(L, 2, 0), *loss = T(L, 3, 0), *dx = T(L, 4, 1);
    mgpu_stream *s = opt_stream(L, 5);
    RUN("cross_entropy", s, mgpu_nn_cross_entropy(s, x, lab, loss, dx));
}

static int l_sgd(lua_State *L) /* sgd(p, g, m, {lr=, momentum=0.9, weight_decay=0}) */
{
    mgpu_tensor *p = T(L, 1, 0), *g = T(L, 2, 0), *m = T(L, 3, 0);
    mgpu_stream *s = opt_stream(L, 4);
    RUN("sgd", s, mgpu_nn_sgd(s, p, g, m, opt_num(L, 4, "lr", 0.1f), opt_num(L, 4, "momentum", 0.9f),
                              opt_num(L, 4, "weight_decay", 0)));
}

/* adamw(p, g, m, v, {lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.01, step=}) */
static int l_adamw(lua_State *L)
{
    mgpu_tensor *p = T(L, 1, 0), *g = T(L, 2, 0), *m = T(L, 3, 0), *v = T(L, 4, 0);
    mgpu_stream *s = opt_stream(L, 5);
    int step = opt_int(L, 5, "step", 0);
    RUN("adamw", s, mgpu_nn_adamw(s, p, g, m, v, opt_num(L, 5, "lr", 1e-3f), opt_num(L, 5, "beta1", 0.9f),
                                  opt_num(L, 5, "beta2", 0.999f), opt_num(L, 5, "eps", 1e-8f),
                                  opt_num(L, 5, "weight_decay", 0.01f), step));
}

static int l_sumsq(lua_State *L) /* sumsq(x, acc, {accumulate=false}) */
{
    mgpu_tensor *x = T(L, 1, 0), *acc = T(L, 2, 0);
    mgpu_stream *s = opt_stream(L, 3);
    RUN("sumsq", s, mgpu_nn_sumsq(s, x, acc, opt_int(L, 3, "accumulate", 0)));
}

static int l_clip_scale(lua_State *L) /* clip_scale(g, acc, {max_norm=}) */
{
    mgpu_tensor *g = T(L, 1, 0), *acc = T(L, 2, 0);
    mgpu_stream *s = opt_stream(L, 3);
    RUN("clip_scale", s, mgpu_nn_clip_scale(s, g, acc, opt_num(L, 3, "max_norm", 1)));
}

static int l_conv2d(lua_State *L) /* conv2d(x, w, y, {stride=1, pad=0}) */
{
    mgpu_tensor *x = T(L, 1, 0), *w = T(L, 2, 0), *y = T(L, 3, 0);
    mgpu_stream *s = opt_stream(L, 4);
    RUN("conv2d", s, mgpu_nn_conv2d(s, x, w, y, opt_int(L, 4, "stride", 1), opt_int(L, 4, "pad", 0)));
}

static int l_conv2d_backward(lua_State *L) /* conv2d_backward(x, w, dy, dx|nil, dw, {stride=, pad=}) */
{
    mgpu_tensor *x = T(L, 1, 0), *w = T(L, 2, 0), *dy = T(L, 3, 0), *dx = T(L, 4, 1), *dw = T(L, 5, 0);
    mgpu_stream *s = opt_stream(L, 6);
    RUN("conv2d_backward", s,
        mgpu_nn_conv2d_backward(s, x, w, dy, dx, dw, opt_int(L, 6, "stride", 1), opt_int(L, 6, "pad", 0)));
}

/* batchnorm(x, gamma, beta, running_mean, running_var, save_mean, save_invstd, y,
 *           {train=true, momentum=0.1, eps=1e-5}) */
static int l_batchnorm(lua_State *L)
{
    mgpu_tensor *x = T(L, 1, 0), *g = T(L, 2, 0), *b = T(L, 3, 0), *rm = T(L, 4, 0), *rv = T(L, 5, 0),
                *sm = T(L, 6, 1), *si = T(L, 7, 1), *y = T(L, 8, 0);
    mgpu_stream *s = opt_stream(L, 9);
    int train = opt_int(L, 9, "train", 1);
    RUN("batchnorm", s,
        mgpu_nn_batchnorm(s, x, g, b, rm, rv, sm, si, y, train, opt_num(L, 9, "momentum", 0.1f), opt_num(L, 9, "eps", 1e-5f)));
}

/* batchnorm_backward(x, gamma, save_mean, save_invstd, dy, dx, dgamma, dbeta) */
static int l_batchnorm_backward(lua_State *L)
{
    mgpu_tensor *x = T(L, 1, 0), *g = T(L, 2, 0), *sm = T(L, 3, 0), *si = T(L, 4, 0), *dy = T(L, 5, 0),
                *dx = T(L, 6, 0), *dg = T(L, 7, 0), *db = T(L, 8, 0);
    mgpu_stream *s = opt_stream(L, 9);
    RUN("batchnorm_backward", s, mgpu_nn_batchnorm_backward(s, x, g, sm, si, dy, dx, dg, db));
}

static int l_avgpool(lua_State *L) /* avgpool(x, y) */
{
    mgpu_tensor *x = T(L, 1, 0), *y = T(L, 2, 0);
    mgpu_stream *s = opt_stream(L, 3);
    RUN("avgpool", s, mgpu_nn_avgpool(s, x, y));
}

static int l_avgpool_backward(lua_State *L) /* avgpool_backward(dy, dx) */
{
    mgpu_tensor *dy = T(L, 1, 0), *dx = T(L, 2, 0);
    mgpu_stream *s = opt_stream(L, 3);
    RUN("avgpool_backward", s, mgpu_nn_avgpool_backward(s, dy, dx));
}

/* rmsnorm(x, gamma, y, save_rstd, {eps=1e-6});
 * layernorm(x, gamma, beta|nil, y, save_mean, save_rstd, {eps=1e-5}) */
static int l_rmsnorm(lua_State *L)
{
    mgpu_tensor *x = T(L, 1, 0), *g = T(L, 2, 0), *y = T(L, 3, 0), *rs = T(L, 4, 0);
    mgpu_stream *s = opt_stream(L, 5);
    RUN("rmsnorm", s, mgpu_nn_norm(s, 0, x, g, NULL, y, NULL, rs, opt_num(L, 5, "eps", 1e-6f)));
}

static int l_layernorm(lua_State *L)
{
    mgpu_tensor *x = T(L, 1, 0), *g = T(L, 2, 0), *b = T(L, 3, 1), *y = T(L, 4, 0), *sm = T(L, 5, 0), *rs = T(L, 6, 0);
    mgpu_stream *s = opt_stream(L, 7);
    RUN("layernorm", s, mgpu_nn_norm(s, 1, x, g, b, y, sm, rs, opt_num(L, 7, "eps", 1e-5f)));
}

/* rmsnorm_backward(x, gamma, save_rstd, dy, dx, dgamma);
 * layernorm_backward(x, gamma, save_mean, save_rstd, dy, dx, dgamma, dbeta|nil) */
static int l_rmsnorm_backward(lua_State *L)
{
    mgpu_tensor *x = T(L, 1, 0), *g = T(L, 2, 0), *rs = T(L, 3, 0), *dy = T(L, 4, 0), *dx = T(L, 5, 0), *dg = T(L, 6, 0);
    mgpu_stream *s = opt_stream(L, 7);
    RUN("rmsnorm_backward", s, mgpu_nn_norm_backward(s, 0, x, g, NULL, rs, dy, dx, dg, NULL));
}

static int l_layernorm_backward(lua_State *L)
{
    mgpu_tensor *x = T(L, 1, 0), *g = T(L, 2, 0), *sm = T(L, 3, 0), *rs = T(L, 4, 0), *dy = T(L, 5, 0),
                *dx = T(L, 6, 0), *dg = T(L, 7, 0), *db = T(L, 8, 1);
    mgpu_stream *s = opt_stream(L, 9);
    RUN("layernorm_backward", s, mgpu_nn_norm_backward(s, 1, x, g, sm, rs, dy, dx, dg, db));
}

static int l_embedding(lua_State *L) /* embedding(ids, table, out) */
{
    mgpu_tensor *ids = T(L, 1, 0), *tab = T(L, 2, 0), *o = T(L, 3, 0);
    mgpu_stream *s = opt_stream(L, 4);
    RUN("embedding", s, mgpu_nn_embedding(s, ids, tab, o));
}

static int l_embedding_backward(lua_State *L) /* embedding_backward(ids, dout, dtable): accumulates */
{
    mgpu_tensor *ids = T(L, 1, 0), *d = T(L, 2, 0), *dt = T(L, 3, 0);
    mgpu_stream *s = opt_stream(L, 4);
    RUN("embedding_backward", s, mgpu_nn_embedding_backward(s, ids, d, dt));
}

static int l_softmax(lua_State *L) /* softmax(scores, p, {scale=1, causal=false}) */
{
    mgpu_tensor *x = T(L, 1, 0), *p = T(L, 2, 0);
    mgpu_stream *s = opt_stream(L, 3);
    RUN("softmax", s, mgpu_nn_softmax(s, x, p, opt_num(L, 3, "scale", 1), opt_int(L, 3, "causal", 0)));
}

static int l_softmax_backward(lua_State *L) /* softmax_backward(p, dp, ds, {scale=1}) */
{
    mgpu_tensor *p = T(L, 1, 0), *dp = T(L, 2, 0), *ds = T(L, 3, 0);
    mgpu_stream *s = opt_stream(L, 4);
    RUN("softmax_backward", s, mgpu_nn_softmax_backward(s, p, dp, ds, opt_num(L, 4, "scale", 1)));
}

static int l_swap12(lua_State *L) /* swap12(x, y) */
{
    mgpu_tensor *x = T(L, 1, 0), *y = T(L, 2, 0);
    mgpu_stream *s = opt_stream(L, 3);
    RUN("swap12", s, mgpu_nn_swap12(s, x, y));
}

void lm_open_nn(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"gemm", l_gemm},
        {"bias_add", l_bias_add},
        {"bias_grad", l_bias_grad},
        {"act", l_act},
        {"act_backward", l_act_backward},
        {"swiglu", l_swiglu},
        {"swiglu_backward", l_swiglu_backward},
        {"add", l_add},
        {"cross_entropy", l_cross_entropy},
        {"sgd", l_sgd},
        {"adamw", l_adamw},
        {"sumsq", l_sumsq},
        {"clip_scale", l_clip_scale},
        {"conv2d", l_conv2d},
        {"conv2d_backward", l_conv2d_backward},
        {"batchnorm", l_batchnorm},
        {"batchnorm_backward", l_batchnorm_backward},
        {"avgpool", l_avgpool},
        {"avgpool_backward", l_avgpool_backward},
        {"rmsnorm", l_rmsnorm},
        {"rmsnorm_backward", l_rmsnorm_backward},
        {"layernorm", l_layernorm},
        {"layernorm_backward", l_layernorm_backward},
        {"embedding", l_embedding},
        {"embedding_backward", l_embedding_backward},
        {"softmax", l_softmax},
        {"softmax_backward", l_softmax_backward},
        {"swap12", l_swap12},
        {NULL, NULL},
    };
    lua_getglobal(L, "mgpu");
    luaL_newlib(L, fns);
    lua_setfield(L, -2, "nn");
    lua_pop(L, 1);
}
