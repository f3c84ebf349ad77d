-- labs/lib/fsdp/plan.lua - lab 5's memory planner: bytes per GPU for a
-- decoder (labs/lib/fsdp/model.lua shapes) trained with AdamW under DDP,
-- ZeRO-1, ZeRO-2 (FSDP SHARD_GRAD_OP) or ZeRO-3 (FSDP FULL_SHARD).
--
-- Two views of the same accounting:
--   plan.states(c, o)  the persistent part, ZeRO's formula (Rajbhandari et
--                      al. 2020, section 3): parameters, gradients and
--                      optimizer states, each whole or divided by the ranks;
--   plan.walk(c, o)    the peak: walks one training step unit by unit, in
--                      the order labs/lib/fsdp/fsdp.lua runs it, adding every
--                      tensor when it is allocated and taking it away when it
--                      is freed (gathered parameters, saved activations,
--                      attention's T x T scratch, gradients, the states made
--                      at the first optimizer step). The attempt step checks
--                      it against the caching allocator's measured peak.
--
-- o = {world, sharding = "NO_SHARD"|"ZERO1"|"SHARD_GRAD_OP"|"FULL_SHARD",
--      offload = bool (optimizer states in CPU memory), states = "fp32"|"bf16",
--      checkpoint = bool, micro_batch, seq, dtype = "bf16"|"f32" (the
--      compute dtype of parameters, gradients and activations), prefetch}
local model = mgpu.import("fsdp.model")
local plan = {}

local SIZE = {bf16 = 2, f16 = 2, f32 = 4}

-- A configuration "fits" when its peak leaves 5 % of the GPU free: the
-- walk counts allocated bytes, and the caching allocator needs blocks of
-- the right size besides (on an H200, FULL_SHARD with checkpointing peaks
-- 0.7 % below the memory and runs out in the backward: memory reserved in
-- blocks too small to reuse).
plan.HEADROOM = 0.95
function plan.fits(peak, gpu_bytes) return peak <= plan.HEADROOM * gpu_bytes end

-- Bytes per parameter of the optimizer states (AdamW): with bf16 compute,
-- an fp32 master copy + fp32 m + fp32 v = 12 ("16 bytes per parameter"
-- with the bf16 weight and gradient); "bf16" states: m and v in bf16 and
-- no master copy = 4; f32 compute: the weight is its own master, 8.
function plan.state_bytes(o)
  if o.offload then return 0 end
  if o.states == "bf16" then return 4 end
  return (o.dtype or "bf16") == "f32" and 8 or 12
end

-- A unit's elements per rank: the flat parameters padded to a multiple of
-- the ranks, one equal slice each (FSDP's FlatParameter).
function plan.shard_numel(n, world) return (n + world - 1) // world end

-- What a strategy divides over the ranks at rest. SHARD_GRAD_OP keeps its
-- parameters sharded between steps but gathered from a unit's forward to
-- its backward: for the step, every parameter is whole (ZeRO-2's 2 bytes
-- each in plan.states).
local function sharded(o, what)
  local s = o.sharding
  if s == "FULL_SHARD" or s == "SHARD_GRAD_OP" then return true end
  if s == "ZERO1" then return what == "optim" end
  return false                                                      -- NO_SHARD (DDP)
end
plan.sharded = sharded

-- The persistent bytes per GPU: {params, grads, optim, total, numel}.
function plan.states(c, o)
  local e, world = SIZE[o.dtype or "bf16"], o.world
  local r = {params = 0, grads = 0, optim = 0, numel = 0}
  for _, u in ipairs(model.units(c)) do
    local n = model.unit_numel(u)
    local sh = plan.shard_numel(n, world)
    r.numel = r.numel + n
    r.params = r.params + e * (o.sharding == "FULL_SHARD" and sh or n)
    r.grads = r.grads + e * (sharded(o, "grads") and sh or n)
    r.optim = r.optim + plan.state_bytes(o) * (sharded(o, "optim") and sh or n)
  end
  r.total = r.params + r.grads + r.optim
  return r
end

-- Bytes one decoder layer's forward keeps for backward (layer.lua's S):
-- n1, q, ot, h, n2 [n, dim]; k, v [n, kv dim]; g, u, swiglu(g, u) [n, ffn];
-- two f32 rstd vectors [n].
local function layer_dims(c, o)
  local n = o.micro_batch * o.seq
  local kvd = c.kv_heads * (c.dim // c.heads)
  local att = o.micro_batch * c.heads * o.seq * o.seq               -- one T x T matrix per head
  return n, kvd, att
end
function plan.saved_bytes(c, o)
  local e = SIZE[o.dtype or "bf16"]
  local n, kvd = layer_dims(c, o)
  return e * (5 * n * c.dim + 2 * n * kvd + 3 * n * c.ffn) + 8 * n
end

-- The walk. Returns {peak =, at =, states = plan.states, saved =, inputs =,
-- over_at =}: over_at is the first place the total passes `limit` bytes
-- (a GPU's memory), nil when it never does.
function plan.walk(c, o, limit)
  local e, world = SIZE[o.dtype or "bf16"], o.world
  local units = model.units(c)
  local n, kvd, att = layer_dims(c, o)
  local nd = e * n * c.dim
  local saved = plan.saved_bytes(c, o)
  local cur, peak, at, over_at = 0, 0, "nothing", nil
  local pre = ""                                                    -- "step 2: " in the second step
  local function add(b, where)
    cur = cur + b
    if where ~= "" then where = pre .. where end
    if cur > peak then peak, at = cur, where end
    if limit and not over_at and cur > limit then over_at = where end
  end
  local function numel(i) return model.unit_numel(units[i]) end
  local function shard(i) return plan.shard_numel(numel(i), world) end
  local P = {}                                                      -- bytes of a unit's parameters at rest
  for i = 1, #units do
    P[i] = e * (sharded(o, "params") and shard(i) or numel(i))
    add(P[i], "the parameters at rest")
  end
  local gathers = sharded(o, "params")
  local full = {}                                                   -- gathered parameters alive
  local function gather(i, where)
    if gathers and not full[i] then full[i] = true; add(e * numel(i), where) end
  end
  local function release(i)
    if gathers and full[i] then full[i] = nil; add(-e * numel(i), "") end
  end
  local reshard = o.sharding == "FULL_SHARD"                        -- free after forward
  local L = #units
  local states = {}                                                 -- AdamW's, made at the first step
  -- Two steps: the first makes the optimizer states at its end, the
  -- second carries them through its forward and backward.
  for step = 1, 2 do
  pre = step == 1 and "" or "step 2: "
  -- forward: the embedding's output is layer 1's input, kept (backward reads x)
  gather(1, "forward of embed"); if o.prefetch then gather(2, "forward of embed") end
  add(nd, "forward of embed")                                       -- its output, layer 1's input
  if reshard then release(1) end
  for i = 2, L - 1 do
    local name = "forward of " .. units[i].name
    gather(i, name); if o.prefetch then gather(i + 1, name) end
    -- in the layer: n1, rstd, q, k, v kept so far, then S and P of attention
    local before = e * (2 * n * c.dim + 2 * n * kvd) + 4 * n + e * n * c.dim
    add(before + 2 * e * att, name); add(-(before + 2 * e * att), "")
    add(saved + nd, name)                                           -- S and y (the next input)
    if not o.checkpoint then add(0, name) else add(-saved, "") end
    if reshard then release(i) end
  end
  -- the head: normed x, rstd, logits, dlogits, the loss
  local hname = "forward of the head"
  gather(L, hname)
  local vocab = e * n * c.vocab
  add(nd + 4 * n + 2 * vocab + 8, hname); add(-vocab, "")
  -- backward
  local gradshard = {}
  local function grad_at_rest(i)                                    -- made by the first reduction
    if not gradshard[i] then
      gradshard[i] = true
      add(e * (sharded(o, "grads") and shard(i) or numel(i)), "")
    end
  end
  local inflight                                                    -- a full gradient being reduced
  local rs = sharded(o, "grads")                                    -- reduce-scatter into a shard, or all-reduce in place
  local function full_grad(i, where)
    if rs then add(e * numel(i), where) else grad_at_rest(i) end
  end
  local function reduced(i)
    if not rs then return end
    if inflight then add(-e * numel(inflight), ""); inflight = nil end -- the previous reduction done: freed
    grad_at_rest(i)
    inflight = i
  end
  local hb = "backward of the head"
  full_grad(L, hb)
  if o.prefetch then gather(L - 1, hb) end
  add(nd, hb); add(-(vocab + nd), "")                               -- dnx; dlogits and nx freed, then dnx
  add(nd, hb); add(-(4 * n + 2 * nd), "")                           -- dx (= dy of the last layer); rstd, dnx, head's x
  reduced(L)
  release(L)
  for i = L - 1, 2, -1 do
    local name = "backward of " .. units[i].name
    gather(i, name); if o.prefetch then gather(i - 1, name) end
    full_grad(i, name)                                              -- this unit's full gradient
    if o.checkpoint then
      local before = e * (2 * n * c.dim + 2 * n * kvd) + 4 * n + e * n * c.dim
      add(before + 2 * e * att, name .. " (recompute)"); add(-(before + 2 * e * att), "")
      add(saved + nd, name .. " (recompute)"); add(-nd, "")         -- the recomputed y is dropped
    end
    -- MLP: dhs, dg, du while the saved tensors are there
    add(e * n * c.ffn, name); add(-e * n * c.ffn, "")
    add(2 * e * n * c.ffn, name)
    -- free dhs, g, u: the MLP's part done, then attention's peak: n1, r1, q, k, v, dh, do4, P, dP, dS, dV
    local gone = e * (3 * n * c.ffn + 2 * n * c.dim) + 4 * n + e * n * c.dim -- g u hs n2 h, r2, ot
    add(-(2 * e * n * c.ffn) - gone, "")
    add(2 * nd, name)                                               -- dh, do4
    add(3 * e * att + e * n * kvd, name)                            -- P, dP, dV, dS
    add(-(3 * e * att + e * n * kvd) - 2 * nd, "")
    add(-(saved - gone), "")                                        -- the rest of S, freed by the end
    add(nd, name); add(-nd, "")                                     -- dx replaces dy
    add(-nd, "")                                                    -- this layer's input x
    reduced(i)
    release(i)
  end
  local eb = "backward of embed"
  gather(1, eb)
  full_grad(1, eb)
  add(-nd, "")                                                      -- the first layer's dx
  reduced(1)
  if inflight then add(-e * numel(inflight), "") end
  release(1)
  -- the optimizer step, per unit: states made at the first step; then
  -- zero_grad(set_to_none=True) gives the gradient back
  for i = 1, L do
    if not states[i] then
      states[i] = true
      add(plan.state_bytes(o) * (sharded(o, "optim") and shard(i) or numel(i)), "optimizer step, " .. units[i].name)
    end
    add(-e * (sharded(o, "grads") and shard(i) or numel(i)), "")
  end
  end
  return {peak = peak, at = at, over_at = over_at, states = plan.states(c, o), saved = saved, inputs = nd * (L - 2)}
end

return plan
