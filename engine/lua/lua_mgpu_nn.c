/* lua_mgpu_nn.c - the training ops in the rank API: the `mgpu.nn` table
 * over mgpu/nn.h. Every function takes tensors first and an optional
 * options table last (scalars, and stream= for a stream other than the
 * default); each op is a kernel span on the timeline named after it.
 * Models and training loops are Lua (labs/lib/nn); only ops live here. */
#include "lua/lua_mgpu_internal.h"
#include "mgpu/nn.h"
#include <string.h>

/* A tensor argument, pinned for the call (the frame's copy), or NULL for nil
 * when `optional`. */
static mgpu_tensor *T(lua_State *L, lm_frame *f, int idx, int optional)
{
    if (optional && lua_isnoneornil(L, idx)) return NULL;
    return &lm_pin_tensor(L, f, idx)->t;
}

/* A scalar option: every one (eps, lr, betas, weight_decay, momentum,
 * alpha/beta, scale, max_norm) enters the op's arithmetic, where a nan or
 * inf (eps = 0/0) turns every value NaN with no word: refused, named. */
#define opt_num(L, o, fn, k, dflt) ((float)lm_opt_num_field((L), (o), (k), "mgpu.nn." fn, (dflt), 1))

/* A flag option: a boolean (or 0/1). */
static int opt_flag(lua_State *L, int o, const char *fn, const char *k, int dflt)
{
    if (!lua_istable(L, o)) return dflt;
    lua_getfield(L, o, k);
    int v = lua_isboolean(L, -1) ? lua_toboolean(L, -1) : lua_isnil(L, -1) ? dflt : -1;
    lua_pop(L, 1);
    if (v < 0) v = lm_opt_int_field(L, o, k, fn, dflt, 0, 1);
    return v;
}

/* Every op's options table holds only the keys it knows and stream=: a
 * misspelt key ({tA = true}) would silently mean its default. Checked
 * before any option is read. */
#define OPTIONS(o, fn, ...)                                                      \
    do {                                                                         \
        static const char *const known_[] = {__VA_ARGS__, "stream", NULL};       \
        lm_check_options(L, (o), "mgpu.nn." fn, known_);                         \
    } while (0)
#define NO_OPTIONS(o, fn)                                                        \
    do {                                                                         \
        static const char *const known_[] = {"stream", NULL};                    \
        lm_check_options(L, (o), "mgpu.nn." fn, known_);                         \
    } while (0)

/* The call's frame, once its options (at o) are read: the options' stream=
 * (or the default stream) pinned in *s. Every op reads its options before
 * it calls this, and its tensors after: an __index may run the script. */
static lm_frame *open_call(lua_State *L, int o, mgpu_stream **s)
{
    if (!lua_istable(L, o) && !lua_isnoneornil(L, o)) luaL_error(L, "the last argument must be an options table {...}");
    lua_settop(L, o);
    if (lua_istable(L, o)) lua_getfield(L, o, "stream");
    else lua_pushnil(L);
    lm_frame *f = lm_frame_open(L);
    *s = lm_pin_stream(L, f, o + 1);
    return f;
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
    OPTIONS(4, "gemm", "ta", "tb", "alpha", "beta");
    int o_ta = opt_flag(L, 4, "mgpu.nn.gemm", "ta", 0);
    int o_tb = opt_flag(L, 4, "mgpu.nn.gemm", "tb", 0);
    float o_alpha = opt_num(L, 4, "gemm", "alpha", 1);
    float o_beta = opt_num(L, 4, "gemm", "beta", 0);
    mgpu_stream *s;
    lm_frame *f = open_call(L, 4, &s);
    mgpu_tensor *a = T(L, f, 1, 0), *b = T(L, f, 2, 0), *c = T(L, f, 3, 0);
    RUN("gemm", s, mgpu_nn_gemm(s, a, o_ta, b, o_tb, c, o_alpha, o_beta));
}

static int l_bias_add(lua_State *L) /* bias_add(x, bias, y) */
{
    NO_OPTIONS(4, "bias_add");
    mgpu_stream *s;
    lm_frame *f = open_call(L, 4, &s);
    mgpu_tensor *x = T(L, f, 1, 0), *b = T(L, f, 2, 0), *y = T(L, f, 3, 0);
    RUN("bias_add", s, mgpu_nn_bias_add(s, x, b, y));
}

static int l_bias_grad(lua_State *L) /* bias_grad(dy, db, {beta=0}) */
{
    OPTIONS(3, "bias_grad", "beta");
    float o_beta = opt_num(L, 3, "bias_grad", "beta", 0);
    mgpu_stream *s;
    lm_frame *f = open_call(L, 3, &s);
    mgpu_tensor *dy = T(L, f, 1, 0), *db = T(L, f, 2, 0);
    RUN("bias_grad", s, mgpu_nn_bias_grad(s, dy, db, o_beta));
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
    NO_OPTIONS(4, "act");
    mgpu_nn_act act = check_act(L, 1);
    mgpu_stream *s;
    lm_frame *f = open_call(L, 4, &s);
    mgpu_tensor *x = T(L, f, 2, 0), *y = T(L, f, 3, 0);
    RUN_SPAN("act", mgpu_nn_act_name(act), s, mgpu_nn_activation(s, act, x, y));
}

static int l_act_backward(lua_State *L) /* act_backward("relu", x, dy, dx) */
{
    NO_OPTIONS(5, "act_backward");
    mgpu_nn_act act = check_act(L, 1);
    mgpu_stream *s;
    lm_frame *f = open_call(L, 5, &s);
    mgpu_tensor *x = T(L, f, 2, 0), *dy = T(L, f, 3, 0), *dx = T(L, f, 4, 0);
    static const char *const bw[MGPU_ACT_COUNT] = {"relu_backward", "gelu_backward", "silu_backward"};
    RUN_SPAN("act_backward", bw[act], s, mgpu_nn_activation_backward(s, act, x, dy, dx));
}

static int l_swiglu(lua_State *L) /* swiglu(gate, up, y) */
{
    NO_OPTIONS(4, "swiglu");
    mgpu_stream *s;
    lm_frame *f = open_call(L, 4, &s);
    mgpu_tensor *g = T(L, f, 1, 0), *u = T(L, f, 2, 0), *y = T(L, f, 3, 0);
    RUN("swiglu", s, mgpu_nn_swiglu(s, g, u, y));
}

static int l_swiglu_backward(lua_State *L) /* swiglu_backward(gate, up, dy, dgate, dup) */
{
    NO_OPTIONS(6, "swiglu_backward");
    mgpu_stream *s;
    lm_frame *f = open_call(L, 6, &s);
    mgpu_tensor *g = T(L, f, 1, 0), *u = T(L, f, 2, 0), *dy = T(L, f, 3, 0), *dg = T(L, f, 4, 0), *du = T(L, f, 5, 0);
    RUN("swiglu_backward", s, mgpu_nn_swiglu_backward(s, g, u, dy, dg, du));
}

static int l_add(lua_State *L) /* add(a, b, y, {alpha=1, beta=1}) */
{
    OPTIONS(4, "add", "alpha", "beta");
    float o_alpha = opt_num(L, 4, "add", "alpha", 1);
    float o_beta = opt_num(L, 4, "add", "beta", 1);
    mgpu_stream *s;
    lm_frame *f = open_call(L, 4, &s);
    mgpu_tensor *a = T(L, f, 1, 0), *b = T(L, f, 2, 0), *y = T(L, f, 3, 0);
    RUN("add", s, mgpu_nn_add(s, a, b, y, o_alpha, o_beta));
}

static int l_cross_entropy(lua_State *L) /* cross_entropy(logits, labels, loss, dlogits|nil) */
{
    NO_OPTIONS(5, "cross_entropy");
    mgpu_stream *s;
    lm_frame *f = open_call(L, 5, &s);
    mgpu_tensor *x = T(L, f, 1, 0), *lab = T(L, f, 2, 0), *loss = T(L, f, 3, 0), *dx = T(L, f, 4, 1);
    RUN("cross_entropy", s, mgpu_nn_cross_entropy(s, x, lab, loss, dx));
}

static int l_sgd(lua_State *L) /* sgd(p, g, m, {lr=, momentum=0.9, weight_decay=0}) */
{
    OPTIONS(4, "sgd", "lr", "momentum", "weight_decay");
    float o_lr = opt_num(L, 4, "sgd", "lr", 0.1f);
    float o_momentum = opt_num(L, 4, "sgd", "momentum", 0.9f);
    float o_weight_decay = opt_num(L, 4, "sgd", "weight_decay", 0);
    mgpu_stream *s;
    lm_frame *f = open_call(L, 4, &s);
    mgpu_tensor *p = T(L, f, 1, 0), *g = T(L, f, 2, 0), *m = T(L, f, 3, 0);
    RUN("sgd", s, mgpu_nn_sgd(s, p, g, m, o_lr, o_momentum, o_weight_decay));
}

/* adamw(p, g, m, v, {lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.01, step=}) */
static int l_adamw(lua_State *L)
{
    OPTIONS(5, "adamw", "lr", "beta1", "beta2", "eps", "weight_decay", "step");
    int step = lm_opt_int_field(L, 5, "step", "mgpu.nn.adamw", 0, 1, LM_INT_HI);
    float o_lr = opt_num(L, 5, "adamw", "lr", 1e-3f);
    float o_beta1 = opt_num(L, 5, "adamw", "beta1", 0.9f);
    float o_beta2 = opt_num(L, 5, "adamw", "beta2", 0.999f);
    float o_eps = opt_num(L, 5, "adamw", "eps", 1e-8f);
    float o_weight_decay = opt_num(L, 5, "adamw", "weight_decay", 0.01f);
    mgpu_stream *s;
    lm_frame *f = open_call(L, 5, &s);
    mgpu_tensor *p = T(L, f, 1, 0), *g = T(L, f, 2, 0), *m = T(L, f, 3, 0), *v = T(L, f, 4, 0);
    RUN("adamw", s, mgpu_nn_adamw(s, p, g, m, v, o_lr, o_beta1, o_beta2, o_eps, o_weight_decay, step));
}

static int l_sumsq(lua_State *L) /* sumsq(x, acc, {accumulate=false}) */
{
    OPTIONS(3, "sumsq", "accumulate");
    int o_accumulate = opt_flag(L, 3, "mgpu.nn.sumsq", "accumulate", 0);
    mgpu_stream *s;
    lm_frame *f = open_call(L, 3, &s);
    mgpu_tensor *x = T(L, f, 1, 0), *acc = T(L, f, 2, 0);
    RUN("sumsq", s, mgpu_nn_sumsq(s, x, acc, o_accumulate));
}

static int l_clip_scale(lua_State *L) /* clip_scale(g, acc, {max_norm=}) */
{
    OPTIONS(3, "clip_scale", "max_norm");
    float o_max_norm = opt_num(L, 3, "clip_scale", "max_norm", 1);
    mgpu_stream *s;
    lm_frame *f = open_call(L, 3, &s);
    mgpu_tensor *g = T(L, f, 1, 0), *acc = T(L, f, 2, 0);
    RUN("clip_scale", s, mgpu_nn_clip_scale(s, g, acc, o_max_norm));
}

static int l_conv2d(lua_State *L) /* conv2d(x, w, y, {stride=1, pad=0}) */
{
    OPTIONS(4, "conv2d", "stride", "pad");
    int o_stride = lm_opt_int_field(L, 4, "stride", "mgpu.nn.conv2d", 1, 1, LM_INT_HI);
    int o_pad = lm_opt_int_field(L, 4, "pad", "mgpu.nn.conv2d", 0, 0, LM_INT_HI);
    mgpu_stream *s;
    lm_frame *f = open_call(L, 4, &s);
    mgpu_tensor *x = T(L, f, 1, 0), *w = T(L, f, 2, 0), *y = T(L, f, 3, 0);
    RUN("conv2d", s, mgpu_nn_conv2d(s, x, w, y, o_stride, o_pad));
}

static int l_conv2d_backward(lua_State *L) /* conv2d_backward(x, w, dy, dx|nil, dw, {stride=, pad=}) */
{
    OPTIONS(6, "conv2d_backward", "stride", "pad");
    int o_stride = lm_opt_int_field(L, 6, "stride", "mgpu.nn.conv2d_backward", 1, 1, LM_INT_HI);
    int o_pad = lm_opt_int_field(L, 6, "pad", "mgpu.nn.conv2d_backward", 0, 0, LM_INT_HI);
    mgpu_stream *s;
    lm_frame *f = open_call(L, 6, &s);
    mgpu_tensor *x = T(L, f, 1, 0), *w = T(L, f, 2, 0), *dy = T(L, f, 3, 0), *dx = T(L, f, 4, 1), *dw = T(L, f, 5, 0);
    RUN("conv2d_backward", s, mgpu_nn_conv2d_backward(s, x, w, dy, dx, dw, o_stride, o_pad));
}

/* batchnorm(x, gamma, beta, running_mean, running_var, save_mean, save_invstd, y,
 *           {train=true, momentum=0.1, eps=1e-5}) */
static int l_batchnorm(lua_State *L)
{
    OPTIONS(9, "batchnorm", "train", "momentum", "eps");
    int train = opt_flag(L, 9, "mgpu.nn.batchnorm", "train", 1);
    float o_momentum = opt_num(L, 9, "batchnorm", "momentum", 0.1f);
    float o_eps = opt_num(L, 9, "batchnorm", "eps", 1e-5f);
    mgpu_stream *s;
    lm_frame *f = open_call(L, 9, &s);
    mgpu_tensor *x = T(L, f, 1, 0), *g = T(L, f, 2, 0), *b = T(L, f, 3, 0), *rm = T(L, f, 4, 0), *rv = T(L, f, 5, 0),
                *sm = T(L, f, 6, 1), *si = T(L, f, 7, 1), *y = T(L, f, 8, 0);
    RUN("batchnorm", s, mgpu_nn_batchnorm(s, x, g, b, rm, rv, sm, si, y, train, o_momentum, o_eps));
}

/* batchnorm_backward(x, gamma, save_mean, save_invstd, dy, dx, dgamma, dbeta) */
static int l_batchnorm_backward(lua_State *L)
{
    NO_OPTIONS(9, "batchnorm_backward");
    mgpu_stream *s;
    lm_frame *f = open_call(L, 9, &s);
    mgpu_tensor *x = T(L, f, 1, 0), *g = T(L, f, 2, 0), *sm = T(L, f, 3, 0), *si = T(L, f, 4, 0), *dy = T(L, f, 5, 0),
                *dx = T(L, f, 6, 0), *dg = T(L, f, 7, 0), *db = T(L, f, 8, 0);
    RUN("batchnorm_backward", s, mgpu_nn_batchnorm_backward(s, x, g, sm, si, dy, dx, dg, db));
}

static int l_avgpool(lua_State *L) /* avgpool(x, y) */
{
    NO_OPTIONS(3, "avgpool");
    mgpu_stream *s;
    lm_frame *f = open_call(L, 3, &s);
    mgpu_tensor *x = T(L, f, 1, 0), *y = T(L, f, 2, 0);
    RUN("avgpool", s, mgpu_nn_avgpool(s, x, y));
}

static int l_avgpool_backward(lua_State *L) /* avgpool_backward(dy, dx) */
{
    NO_OPTIONS(3, "avgpool_backward");
    mgpu_stream *s;
    lm_frame *f = open_call(L, 3, &s);
    mgpu_tensor *dy = T(L, f, 1, 0), *dx = T(L, f, 2, 0);
    RUN("avgpool_backward", s, mgpu_nn_avgpool_backward(s, dy, dx));
}

/* rmsnorm(x, gamma, y, save_rstd, {eps=1e-6});
 * layernorm(x, gamma, beta|nil, y, save_mean, save_rstd, {eps=1e-5}) */
static int l_rmsnorm(lua_State *L)
{
    OPTIONS(5, "rmsnorm", "eps");
    float o_eps = opt_num(L, 5, "rmsnorm", "eps", 1e-6f);
    mgpu_stream *s;
    lm_frame *f = open_call(L, 5, &s);
    mgpu_tensor *x = T(L, f, 1, 0), *g = T(L, f, 2, 0), *y = T(L, f, 3, 0), *rs = T(L, f, 4, 0);
    RUN("rmsnorm", s, mgpu_nn_norm(s, 0, x, g, NULL, y, NULL, rs, o_eps));
}

static int l_layernorm(lua_State *L)
{
    OPTIONS(7, "layernorm", "eps");
    float o_eps = opt_num(L, 7, "layernorm", "eps", 1e-5f);
    mgpu_stream *s;
    lm_frame *f = open_call(L, 7, &s);
    mgpu_tensor *x = T(L, f, 1, 0), *g = T(L, f, 2, 0), *b = T(L, f, 3, 1), *y = T(L, f, 4, 0), *sm = T(L, f, 5, 0), *rs = T(L, f, 6, 0);
    RUN("layernorm", s, mgpu_nn_norm(s, 1, x, g, b, y, sm, rs, o_eps));
}

/* rmsnorm_backward(x, gamma, save_rstd, dy, dx, dgamma);
 * layernorm_backward(x, gamma, save_mean, save_rstd, dy, dx, dgamma, dbeta|nil) */
static int l_rmsnorm_backward(lua_State *L)
{
    NO_OPTIONS(7, "rmsnorm_backward");
    mgpu_stream *s;
    lm_frame *f = open_call(L, 7, &s);
    mgpu_tensor *x = T(L, f, 1, 0), *g = T(L, f, 2, 0), *rs = T(L, f, 3, 0), *dy = T(L, f, 4, 0), *dx = T(L, f, 5, 0), *dg = T(L, f, 6, 0);
    RUN("rmsnorm_backward", s, mgpu_nn_norm_backward(s, 0, x, g, NULL, rs, dy, dx, dg, NULL));
}

static int l_layernorm_backward(lua_State *L)
{
    NO_OPTIONS(9, "layernorm_backward");
    mgpu_stream *s;
    lm_frame *f = open_call(L, 9, &s);
    mgpu_tensor *x = T(L, f, 1, 0), *g = T(L, f, 2, 0), *sm = T(L, f, 3, 0), *rs = T(L, f, 4, 0), *dy = T(L, f, 5, 0),
                *dx = T(L, f, 6, 0), *dg = T(L, f, 7, 0), *db = T(L, f, 8, 1);
    RUN("layernorm_backward", s, mgpu_nn_norm_backward(s, 1, x, g, sm, rs, dy, dx, dg, db));
}

static int l_embedding(lua_State *L) /* embedding(ids, table, out) */
{
    NO_OPTIONS(4, "embedding");
    mgpu_stream *s;
    lm_frame *f = open_call(L, 4, &s);
    mgpu_tensor *ids = T(L, f, 1, 0), *tab = T(L, f, 2, 0), *o = T(L, f, 3, 0);
    RUN("embedding", s, mgpu_nn_embedding(s, ids, tab, o));
}

static int l_embedding_backward(lua_State *L) /* embedding_backward(ids, dout, dtable): accumulates */
{
    NO_OPTIONS(4, "embedding_backward");
    mgpu_stream *s;
    lm_frame *f = open_call(L, 4, &s);
    mgpu_tensor *ids = T(L, f, 1, 0), *d = T(L, f, 2, 0), *dt = T(L, f, 3, 0);
    RUN("embedding_backward", s, mgpu_nn_embedding_backward(s, ids, d, dt));
}

static int l_softmax(lua_State *L) /* softmax(scores, p, {scale=1, causal=false}) */
{
    OPTIONS(3, "softmax", "scale", "causal");
    float o_scale = opt_num(L, 3, "softmax", "scale", 1);
    int o_causal = opt_flag(L, 3, "mgpu.nn.softmax", "causal", 0);
    mgpu_stream *s;
    lm_frame *f = open_call(L, 3, &s);
    mgpu_tensor *x = T(L, f, 1, 0), *p = T(L, f, 2, 0);
    RUN("softmax", s, mgpu_nn_softmax(s, x, p, o_scale, o_causal));
}

static int l_softmax_backward(lua_State *L) /* softmax_backward(p, dp, ds, {scale=1}) */
{
    OPTIONS(4, "softmax_backward", "scale");
    float o_scale = opt_num(L, 4, "softmax_backward", "scale", 1);
    mgpu_stream *s;
    lm_frame *f = open_call(L, 4, &s);
    mgpu_tensor *p = T(L, f, 1, 0), *dp = T(L, f, 2, 0), *ds = T(L, f, 3, 0);
    RUN("softmax_backward", s, mgpu_nn_softmax_backward(s, p, dp, ds, o_scale));
}

static int l_swap12(lua_State *L) /* swap12(x, y) */
{
    NO_OPTIONS(3, "swap12");
    mgpu_stream *s;
    lm_frame *f = open_call(L, 3, &s);
    mgpu_tensor *x = T(L, f, 1, 0), *y = T(L, f, 2, 0);
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
