-- labs/lib/tp/init.lua - tensor parallelism as Megatron-LM does it, for
-- lab 6 (TP x DP), loaded with `local tp = mgpu.import("tp")`.
--
-- What is here: the rank layouts (which ranks form a TP group and which a
-- DP group), the shard slicing (a column-parallel linear holds a block of
-- W's rows, a row-parallel one a block of its columns), and a transformer
-- layer built of them. What is NOT here: the f and g operators and where
-- they go - the layer asks `ops` (the learner's, lab 6 step 2) for that:
--   ops.F.new(comm), ops.G.new(comm)            the operators' constructors
--   ops.mlp_forward(m, x), ops.mlp_backward(m, dy, ready)
--   ops.attention_forward(a, x), ops.attention_backward(a, dy, ready)
-- `tp.serial` is the unsharded model's ops: no communication at all.
local nn = mgpu.import("nn")
local tf = mgpu.import("nn.transformer")
local tp = {}

--- Layouts ---------------------------------------------------------------

-- rank -> (tp_rank, dp_rank) for `world` ranks in TP groups of `size`.
-- order "tp-dp" (Megatron's): TP varies fastest, so a TP group is `size`
-- neighbouring ranks - one NVLink island when ranks fill nodes in order.
-- order "dp-tp": DP varies fastest, a TP group's ranks are world/size apart.
function tp.coords(rank, world, size, order)
  local dp_size = world // size
  if order == "dp-tp" then return rank // dp_size, rank % dp_size end
  return rank % size, rank // size
end

-- The ranks of rank's TP group and of its DP group, in group order.
function tp.members(rank, world, size, order)
  local t, d = tp.coords(rank, world, size, order)
  local tps, dps = {}, {}
  for r = 0, world - 1 do
    local rt, rd = tp.coords(r, world, size, order)
    if rd == d then tps[rt + 1] = r end
    if rt == t then dps[rd + 1] = r end
  end
  return tps, dps
end

-- The two communicators of this rank, made with split (collective: every
-- rank calls it): {tp =, dp =, world =, tp_rank, dp_rank, tp_size, dp_size, order}.
function tp.groups(world_comm, size, order)
  local world = world_comm:size()
  assert(world % size == 0, ("TP size %d does not divide %d ranks"):format(size, world))
  local t, d = tp.coords(world_comm:rank(), world, size, order)
  return {
    -- same dp_rank = same TP group, ordered by tp_rank; and the reverse
    tp = world_comm:split(d, t, "tp"), dp = world_comm:split(t, d, "dp"), world = world_comm,
    tp_rank = t, dp_rank = d, tp_size = size, dp_size = world // size, order = order or "tp-dp",
  }
end

--- Shard slicing ------------------------------------------------------------

-- Rows [part*n, (part+1)*n) of t (dim 0): a column-parallel weight [out, in]
-- or bias [out]. A view: no copy.
function tp.rows(t, part, parts)
  local n = t:shape()[1] // parts
  return t:slice(part * n, n)
end

-- Columns [part*k, (part+1)*k) of a 2-dim t [out, in]: a row-parallel
-- weight. Not contiguous, so a copy: [out, parts, k] -> [parts, out, k]
-- (swap12), then block `part`.
function tp.cols(t, part, parts)
  local s = t:shape()
  local out, k = s[1], s[2] // parts
  local tmp = nn.empty({1, parts, out, k}, t:dtype())
  mgpu.nn.swap12(t:view{1, out, parts, k}, tmp)
  return tmp:view{parts, out * k}:slice(part, 1):view{out, k}
end

-- Marks a linear's parameters with the way they are sharded (p.shard =
-- "column" | "row", p.bias = true for a bias): how a check slices the
-- reference gradient of p. Parameters without p.shard are replicated.
local function tag(m, kind)
  m.shard = kind
  m.weight.shard = kind
  if m.bias then m.bias.shard, m.bias.bias = kind, true end
  return m
end

-- A linear layer holding this rank's shard of `full` (an nn.linear):
-- "column" - out/parts outputs (W's rows, the bias's elements);
-- "row"    - in/parts inputs (W's columns); no bias (lab 6's model has
--            none there: a row-parallel bias must be added once, after the
--            partial sums are added up).
function tp.shard_linear(full, kind, part, parts)
  local col = kind == "column"
  local fin, fout = col and full.fan_in or full.fan_in // parts, col and full.fan_out // parts or full.fan_out
  local m = nn.linear(full.name, fin, fout, {bias = col and full.bias ~= nil, dtype = full.dtype})
  mgpu.copy(m.weight.value, col and tp.rows(full.weight.value, part, parts) or tp.cols(full.weight.value, part, parts))
  if m.bias then mgpu.copy(m.bias.value, tp.rows(full.bias.value, part, parts)) end
  return tag(m, kind)
end

-- The slice of a full-model tensor (a value or a gradient of the unsharded
-- parameter) that this rank's parameter p holds.
function tp.slice_of(full_t, p, part, parts)
  if p.shard == "row" and not p.bias then return tp.cols(full_t, part, parts) end
  if p.shard then return tp.rows(full_t, part, parts) end
  return full_t                                  -- replicated (norms)
end

--- The modules ----------------------------------------------------------------

-- The MLP: fc1 column-parallel (this rank's hidden units, with their bias),
-- GELU, fc2 row-parallel (its share of fc2's inputs). m.f, m.g: the operators.
local MLP = nn.class("TPMLP")
function MLP:parameters(list)
  list = list or {}
  self.fc1:parameters(list)
  self.fc2:parameters(list)
  return list
end

-- Llama's MLP (SwiGLU), for the timed model: gate and up both
-- column-parallel (this rank's hidden units of each; Megatron-Core fuses
-- them as one linear_fc1 of twice the width), silu(gate) * up, down
-- row-parallel. To the learner's mlp_forward it is the same chain as the
-- GELU MLP: fc1 gives the pair {gate, up}, act joins it into one tensor,
-- fc2 is down; in backward act gives back the pair of gradients and fc1
-- sums the two input gradients. f still goes before fc1, g after fc2.
local GateUp = nn.class("TPGateUp")
function GateUp:parameters(list)
  list = list or {}
  self.gate:parameters(list)
  self.up:parameters(list)
  return list
end
function GateUp:forward(x) return {self.gate:forward(x), self.up:forward(x)} end
function GateUp:backward(d, ready)
  local dxu = self.up:backward(d[2], ready)
  local dx = nn.buffer(self, "dx", dxu:shape(), dxu:dtype())
  mgpu.nn.add(dxu, dxu, dx, {beta = 0})                      -- dx = up's input gradient
  mgpu.nn.add(dx, self.gate:backward(d[1], ready), dx)       -- + gate's
  return dx
end

local SwiGLU = nn.class("TPSwiGLU")
function SwiGLU:forward(gu)
  self.g, self.u = gu[1], gu[2]
  local h = nn.buffer(self, "h", self.g:shape(), self.g:dtype())
  mgpu.nn.swiglu(self.g, self.u, h)
  return h
end
function SwiGLU:backward(dh)
  local dg = nn.buffer(self, "dg", dh:shape(), dh:dtype())
  local du = nn.buffer(self, "du", dh:shape(), dh:dtype())
  mgpu.nn.swiglu_backward(self.g, self.u, dh, dg, du)
  return {dg, du}
end

-- Attention: wq, wk, wv column-parallel (this rank's heads: heads/parts query
-- heads and kv_heads/parts key/value heads), the attention of those heads
-- alone, wo row-parallel. a.core is nn.transformer's Attention over them.
local Attn = nn.class("TPAttention")
function Attn:parameters(list) return self.core:parameters(list) end

local function linear(name, fin, fout, o)
  return nn.linear(name, fin, fout, {bias = o.bias, dtype = o.dtype, seed = o.seed})
end

-- The sharded modules of one layer: from `full` (a layer with parts = 1,
-- whose values are sliced), else new ones of the shard's shape (a model
-- that is only timed: phantom on the sim).
local function shard(full, kind, part, parts, name, fin, fout, o)
  if full then return tp.shard_linear(full, kind, part, parts) end
  local m = kind == "column" and linear(name, fin, fout // parts, o) or linear(name, fin // parts, fout, o)
  return tag(m, kind)
end

-- One transformer layer (pre-norm: x + attn(norm(x)), then h + mlp(norm(h))).
-- o: name, dim, heads, kv_heads, hidden, seed, dtype, part (tp_rank), parts
-- (tp_size), comm (the TP group), ops, full (the unsharded layer to slice),
-- mlp ("gelu", the default: fc1, GELU, fc2; "swiglu": Llama's gate/up,
-- SwiGLU, down - timed models only, nothing to slice it from).
local Layer = nn.class("TPLayer")
function tp.layer(o)
  local part, parts, full = o.part or 0, o.parts or 1, o.full
  assert(o.heads % parts == 0 and o.kv_heads % parts == 0 and o.hidden % parts == 0,
         "heads, kv_heads and hidden must split evenly over the TP group")
  local name, dim, hd, dt = o.name, o.dim, o.dim // o.heads, o.dtype
  local L = setmetatable({name = name, ops = o.ops, dtype = dt}, Layer)
  L.norm1 = nn.rmsnorm(name .. ".attn_norm", dim, {dtype = dt})
  L.norm2 = nn.rmsnorm(name .. ".mlp_norm", dim, {dtype = dt})
  local fa = full and full.attn.core
  local hl, kvl = o.heads // parts, o.kv_heads // parts
  local core = setmetatable({name = name .. ".attn", dim = dim, heads = hl, kv = kvl, hd = hd, dtype = dt}, tf.Attention)
  core.wq = shard(fa and fa.wq, "column", part, parts, name .. ".attn.wq", dim, o.heads * hd, {bias = false, dtype = dt, seed = o.seed})
  core.wk = shard(fa and fa.wk, "column", part, parts, name .. ".attn.wk", dim, o.kv_heads * hd, {bias = false, dtype = dt, seed = o.seed + 1})
  core.wv = shard(fa and fa.wv, "column", part, parts, name .. ".attn.wv", dim, o.kv_heads * hd, {bias = false, dtype = dt, seed = o.seed + 2})
  core.wo = shard(fa and fa.wo, "row", part, parts, name .. ".attn.wo", o.heads * hd, dim, {bias = false, dtype = dt, seed = o.seed + 3})
  L.attn = setmetatable({core = core}, Attn)
  local fm = full and full.mlp
  if o.mlp == "swiglu" then
    assert(not full, "the SwiGLU MLP is for timed models: there is no unsharded one to slice")
    local gu = setmetatable({name = name .. ".mlp.fc1", dtype = dt}, GateUp)
    gu.gate = shard(nil, "column", part, parts, name .. ".mlp.gate", dim, o.hidden, {bias = false, dtype = dt, seed = o.seed + 10})
    gu.up = shard(nil, "column", part, parts, name .. ".mlp.up", dim, o.hidden, {bias = false, dtype = dt, seed = o.seed + 12})
    L.mlp = setmetatable({act = setmetatable({dtype = dt}, SwiGLU), fc1 = gu}, MLP)
    L.mlp.fc2 = shard(nil, "row", part, parts, name .. ".mlp.down", o.hidden, dim, {bias = false, dtype = dt, seed = o.seed + 11})
  else
    L.mlp = setmetatable({act = nn.act("gelu")}, MLP)
    L.mlp.fc1 = shard(fm and fm.fc1, "column", part, parts, name .. ".mlp.fc1", dim, o.hidden, {dtype = dt, seed = o.seed + 10})
    L.mlp.fc2 = shard(fm and fm.fc2, "row", part, parts, name .. ".mlp.fc2", o.hidden, dim, {bias = false, dtype = dt, seed = o.seed + 11})
  end
  if full then          -- the norms are replicated: the same values on every rank
    mgpu.copy(L.norm1.weight.value, full.norm1.weight.value)
    mgpu.copy(L.norm2.weight.value, full.norm2.weight.value)
  end
  -- the operators, on the TP group's communicator (none when unsharded)
  local ops = o.ops
  L.attn.f, L.attn.g = ops.F.new(o.comm), ops.G.new(o.comm)
  L.mlp.f, L.mlp.g = ops.F.new(o.comm), ops.G.new(o.comm)
  return L
end

function Layer:parameters(list)
  list = list or {}
  for _, m in ipairs{self.norm1, self.attn, self.norm2, self.mlp} do m:parameters(list) end
  return list
end

function Layer:forward(x)
  local h = nn.buffer(self, "h", x:shape())
  mgpu.nn.add(x, self.ops.attention_forward(self.attn, self.norm1:forward(x)), h)   -- h = x + attn(norm(x))
  local y = nn.buffer(self, "y", x:shape())
  mgpu.nn.add(h, self.ops.mlp_forward(self.mlp, self.norm2:forward(h)), y)         -- y = h + mlp(norm(h))
  return y
end

function Layer:backward(dy, ready)
  local dh = nn.buffer(self, "dh", dy:shape())
  mgpu.nn.add(dy, self.norm2:backward(self.ops.mlp_backward(self.mlp, dy, ready), ready), dh)
  local dx = nn.buffer(self, "dx", dy:shape())
  mgpu.nn.add(dh, self.norm1:backward(self.ops.attention_backward(self.attn, dh, ready), ready), dx)
  return dx
end

-- A stack of `o.layers` layers (nn.sequential); o as for tp.layer, and
-- o.full the unsharded stack to slice.
function tp.model(o)
  local mods = {}
  for i = 1, o.layers do
    local lo = {}
    for k, v in pairs(o) do lo[k] = v end
    lo.name, lo.seed = ("layers.%d"):format(i - 1), 100 * i
    lo.full = o.full and o.full.mods[i] or nil
    mods[i] = tp.layer(lo)
  end
  return nn.sequential(mods)
end

--- The unsharded model's ops: f and g are the identity, nothing is sent ----

local Identity = {}
Identity.__index = Identity
function Identity.new() return setmetatable({}, Identity) end
function Identity:forward(x) return x end
function Identity:backward(dy) return dy end

tp.serial = {
  F = Identity, G = Identity,
  mlp_forward = function(m, x) return m.fc2:forward(m.act:forward(m.fc1:forward(x))) end,
  mlp_backward = function(m, dy, ready) return m.fc1:backward(m.act:backward(m.fc2:backward(dy, ready)), ready) end,
  attention_forward = function(a, x) return a.core:forward(x) end,
  attention_backward = function(a, dy, ready) return a.core:backward(dy, ready) end,
}

return tp
