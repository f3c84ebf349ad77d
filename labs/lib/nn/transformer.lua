-- labs/lib/nn/transformer.lua - a Llama-style decoder (RMSNorm, causal
-- self-attention with grouped KV heads, SwiGLU MLP, residual adds; no
-- rotary embedding: the toy tasks need none) and a Megatron-style MLP
-- whose hidden units can be split over tensor-parallel ranks.
--   local tf = mgpu.import("nn.transformer")
--   local model = tf.decoder{vocab = 64, dim = 64, heads = 4, kv_heads = 2, layers = 2}
local nn = mgpu.import("nn")
local tf = {}

--- Attention, written plainly: S = Q K^T, mask, softmax, O = P V ----------

local Attention = nn.class("Attention")
tf.Attention = Attention   -- labs/lib/tp builds one over this rank's heads only

-- x [B, T, dim]; heads query heads share kv_heads key/value heads
-- (grouped-query attention; kv_heads = heads is plain multi-head).
function tf.attention(name, dim, heads, kv_heads, seed)
  assert(dim % heads == 0, "dim must be a multiple of heads")
  assert(heads % kv_heads == 0, "heads must be a multiple of kv_heads")
  local hd = dim // heads
  local a = setmetatable({name = name, dim = dim, heads = heads, kv = kv_heads, hd = hd}, Attention)
  a.wq = nn.linear(name .. ".wq", dim, heads * hd, {bias = false, seed = seed})
  a.wk = nn.linear(name .. ".wk", dim, kv_heads * hd, {bias = false, seed = seed + 1})
  a.wv = nn.linear(name .. ".wv", dim, kv_heads * hd, {bias = false, seed = seed + 2})
  a.wo = nn.linear(name .. ".wo", heads * hd, dim, {bias = false, seed = seed + 3})
  return a
end

function Attention:parameters(list)
  list = list or {}
  for _, m in ipairs{self.wq, self.wk, self.wv, self.wo} do m:parameters(list) end
  return list
end

-- [B, T, H, hd] -> [B, H, T, hd] into a named buffer
local function heads_first(self, name, x, b, t, h)
  local y = nn.buffer(self, name, {b, h, t, self.hd})
  mgpu.nn.swap12(x:view{b, t, h, self.hd}, y)
  return y
end

function Attention:forward(x)
  local s = x:shape()
  local b, t = s[1], s[2]
  local g = self.heads // self.kv
  self.b, self.t = b, t
  self.q = heads_first(self, "q", self.wq:forward(x), b, t, self.heads)   -- [B, H, T, hd]
  self.k = heads_first(self, "k", self.wk:forward(x), b, t, self.kv)      -- [B, Hkv, T, hd]
  self.v = heads_first(self, "v", self.wv:forward(x), b, t, self.kv)
  -- the G query heads of one KV head are adjacent: Q is [B*Hkv, G*T, hd]
  local bk = b * self.kv
  local q3, k3, v3 = self.q:view{bk, g * t, self.hd}, self.k:view{bk, t, self.hd}, self.v:view{bk, t, self.hd}
  local scores = nn.buffer(self, "scores", {bk, g * t, t})
  mgpu.nn.gemm(q3, k3, scores, {tb = true})                               -- Q K^T
  self.p = nn.buffer(self, "p", {bk, g * t, t})
  self.scale = 1 / math.sqrt(self.hd)
  mgpu.nn.softmax(scores, self.p, {scale = self.scale, causal = true})   -- mask + softmax
  local o = nn.buffer(self, "o", {bk, g * t, self.hd})
  mgpu.nn.gemm(self.p, v3, o)                                             -- P V
  local ot = nn.buffer(self, "ot", {b, t, self.heads, self.hd})
  mgpu.nn.swap12(o:view{b, self.heads, t, self.hd}, ot)
  return self.wo:forward(ot:view{b, t, self.heads * self.hd})
end

function Attention:backward(dy, ready)
  local b, t, g, hd = self.b, self.t, self.heads // self.kv, self.hd
  local bk = b * self.kv
  local dot = self.wo:backward(dy, ready)                                 -- [B, T, H*hd]
  local do4 = nn.buffer(self, "do", {b, self.heads, t, hd})
  mgpu.nn.swap12(dot:view{b, t, self.heads, hd}, do4)
  local do3 = do4:view{bk, g * t, hd}
  local q3, k3, v3 = self.q:view{bk, g * t, hd}, self.k:view{bk, t, hd}, self.v:view{bk, t, hd}
  local dp = nn.buffer(self, "dp", {bk, g * t, t})
  mgpu.nn.gemm(do3, v3, dp, {tb = true})                                  -- dP = dO V^T
  local dv = nn.buffer(self, "dv", {b, self.kv, t, hd})
  mgpu.nn.gemm(self.p, do3, dv:view{bk, t, hd}, {ta = true})              -- dV = P^T dO
  local ds = nn.buffer(self, "ds", {bk, g * t, t})
  mgpu.nn.softmax_backward(self.p, dp, ds, {scale = self.scale})
  local dq = nn.buffer(self, "dq", {b, self.heads, t, hd})
  mgpu.nn.gemm(ds, k3, dq:view{bk, g * t, hd})                            -- dQ = dS K
  local dk = nn.buffer(self, "dk", {b, self.kv, t, hd})
  mgpu.nn.gemm(ds, q3, dk:view{bk, t, hd}, {ta = true})                   -- dK = dS^T Q
  -- back to [B, T, H*hd] and through the projections
  local function tokens_first(name, x, h)
    local y = nn.buffer(self, name, {b, t, h, hd})
    mgpu.nn.swap12(x, y)
    return y:view{b, t, h * hd}
  end
  local dx = nn.buffer(self, "dx", {b, t, self.dim})
  local dxv = self.wv:backward(tokens_first("dvt", dv, self.kv), ready)
  mgpu.nn.add(dxv, dxv, dx, {beta = 0})
  local dxk = self.wk:backward(tokens_first("dkt", dk, self.kv), ready)
  mgpu.nn.add(dx, dxk, dx)
  local dxq = self.wq:backward(tokens_first("dqt", dq, self.heads), ready)
  mgpu.nn.add(dx, dxq, dx)
  return dx
end

--- MLPs -------------------------------------------------------------------

-- SwiGLU MLP (Llama): down(silu(gate(x)) * up(x)).
local SwiGLU = nn.class("SwiGLU")
function tf.swiglu_mlp(name, dim, hidden, seed)
  local m = setmetatable({name = name}, SwiGLU)
  m.gate = nn.linear(name .. ".gate", dim, hidden, {bias = false, seed = seed})
  m.up = nn.linear(name .. ".up", dim, hidden, {bias = false, seed = seed + 1})
  m.down = nn.linear(name .. ".down", hidden, dim, {bias = false, seed = seed + 2})
  return m
end
function SwiGLU:parameters(list)
  list = list or {}
  for _, l in ipairs{self.gate, self.up, self.down} do l:parameters(list) end
  return list
end
function SwiGLU:forward(x)
  self.g, self.u = self.gate:forward(x), self.up:forward(x)
  local h = nn.buffer(self, "h", self.g:shape())
  mgpu.nn.swiglu(self.g, self.u, h)
  return self.down:forward(h)
end
function SwiGLU:backward(dy, ready)
  local dh = self.down:backward(dy, ready)
  local dg, du = nn.buffer(self, "dg", dh:shape()), nn.buffer(self, "du", dh:shape())
  mgpu.nn.swiglu_backward(self.g, self.u, dh, dg, du)
  local dx = nn.buffer(self, "dx", self.g:shape())
  local dxu = self.up:backward(du, ready)
  local shape = dxu:shape()
  dx = nn.buffer(self, "dx", shape)
  mgpu.nn.add(dxu, dxu, dx, {beta = 0})
  mgpu.nn.add(dx, self.gate:backward(dg, ready), dx)
  return dx
end

-- Megatron-style MLP: fc1 (column-parallel: this rank's share of the
-- hidden units, with their bias), GELU, fc2 (row-parallel: its share of
-- the input columns, bias added by rank 0 only). Its output is a partial
-- sum: with tp_size > 1 the caller all-reduces it (forward), and all-
-- reduces the input gradient backward returns. tp_size 1 is a plain MLP.
local Megatron = nn.class("MegatronMLP")
function tf.megatron_mlp(name, dim, hidden, opts)
  opts = opts or {}
  local tp, rank = opts.tp_size or 1, opts.tp_rank or 0
  assert(hidden % tp == 0, "hidden must split evenly over tp_size")
  local m = setmetatable({name = name, tp = tp, rank = rank}, Megatron)
  local seed = (opts.seed or 1) + 7 * rank
  m.fc1 = nn.linear(name .. ".fc1", dim, hidden // tp, {seed = seed})
  m.act = nn.act("gelu")
  m.fc2 = nn.linear(name .. ".fc2", hidden // tp, dim, {bias = rank == 0, seed = seed + 1})
  return m
end
function Megatron:parameters(list)
  list = list or {}
  self.fc1:parameters(list)
  self.fc2:parameters(list)
  return list
end
function Megatron:forward(x) return self.fc2:forward(self.act:forward(self.fc1:forward(x))) end
function Megatron:backward(dy, ready)
  return self.fc1:backward(self.act:backward(self.fc2:backward(dy, ready)), ready)
end

--- The decoder block and a small language model ------------------------------

local Block = nn.class("DecoderBlock")
function tf.block(name, dim, heads, kv_heads, hidden, seed)
  local b = setmetatable({name = name}, Block)
  b.norm1 = nn.rmsnorm(name .. ".attn_norm", dim)
  b.attn = tf.attention(name .. ".attn", dim, heads, kv_heads, seed)
  b.norm2 = nn.rmsnorm(name .. ".mlp_norm", dim)
  b.mlp = tf.swiglu_mlp(name .. ".mlp", dim, hidden, seed + 10)
  return b
end
function Block:parameters(list)
  list = list or {}
  for _, m in ipairs{self.norm1, self.attn, self.norm2, self.mlp} do m:parameters(list) end
  return list
end
function Block:forward(x)
  local h = nn.buffer(self, "h", x:shape())
  mgpu.nn.add(x, self.attn:forward(self.norm1:forward(x)), h)      -- h = x + attn(norm(x))
  local y = nn.buffer(self, "y", x:shape())
  mgpu.nn.add(h, self.mlp:forward(self.norm2:forward(h)), y)       -- y = h + mlp(norm(h))
  return y
end
function Block:backward(dy, ready)
  local dh = nn.buffer(self, "dh", dy:shape())
  mgpu.nn.add(dy, self.norm2:backward(self.mlp:backward(dy, ready), ready), dh)
  local dx = nn.buffer(self, "dx", dy:shape())
  mgpu.nn.add(dh, self.norm1:backward(self.attn:backward(dh, ready), ready), dx)
  return dx
end

-- tf.decoder{vocab=, dim=, heads=, kv_heads=, layers=, hidden=}: ids
-- [B, T] -> logits [B*T, vocab].
function tf.decoder(opts)
  local dim, heads = opts.dim or 64, opts.heads or 4
  local kv, layers, hidden = opts.kv_heads or heads, opts.layers or 2, opts.hidden or 4 * (opts.dim or 64)
  local mods = {nn.embedding("embed", opts.vocab, dim, {seed = 1})}
  for i = 1, layers do mods[#mods + 1] = tf.block(("layers.%d"):format(i - 1), dim, heads, kv, hidden, 100 * i) end
  mods[#mods + 1] = nn.rmsnorm("norm", dim)
  mods[#mods + 1] = nn.linear("lm_head", dim, opts.vocab, {bias = false, seed = 7})
  local model = nn.sequential(mods)
  local forward = model.forward
  function model:forward(ids)
    local logits = forward(self, ids)
    return logits:view{logits:count() // opts.vocab, opts.vocab}
  end
  return model
end

return tf
