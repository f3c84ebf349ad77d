-- labs/lib/fsdp/fsdp.lua - fully sharded data parallel, one level below
-- PyTorch's FSDP: a decoder (fsdp/model.lua) cut into units (the
-- embedding, each layer, the head); each unit's parameters are one flat
-- tensor, padded to a multiple of the ranks, of which every rank keeps one
-- slice (its shard). One training step:
--   forward,  per unit: all-gather the flat parameters -> forward -> free
--             them (FULL_SHARD; SHARD_GRAD_OP keeps them until backward);
--   backward, per unit (reverse): all-gather -> [recompute the forward:
--             activation checkpointing] -> backward into a full flat
--             gradient -> reduce-scatter it (average) into the gradient
--             shard -> free the full gradient once the reduction is done;
--   the optimizer (AdamW) on the shard, its states made at the first step
--             (or held in CPU memory: offload).
-- NO_SHARD is DDP: nothing sharded, the gradient all-reduced in place.
--
-- The all-gathers and reductions run on the communicator's stream; when
-- the default stream may use a unit's parameters is the business of the
-- hooks (opts.hooks: before_forward(units, i, stream), before_backward(
-- units, i, stream)) - lab 5's prefetch exercise. fsdp.no_prefetch are the
-- plain ones. The same code runs a 70B model on phantom tensors (time and
-- memory only) and the small proxy on real ones.
local model = mgpu.import("fsdp.model")
local layer = mgpu.import("fsdp.layer")
local fsdp = {}

-- Errors carry where in the step they happened ("forward of layers.52: out
-- of memory ...").
local function at(where, fn, ...)
  local ok, err = pcall(fn, ...)
  if not ok then error(where .. ": " .. tostring(err), 0) end
  return err
end
fsdp.at = at

--- A unit ------------------------------------------------------------------

local Unit = {}
Unit.__index = Unit

function Unit:tensor(n, dtype)
  return mgpu.tensor{shape = {n}, dtype = dtype or self.f.dtype, phantom = self.f.phantom}
end

-- Queue the all-gather of this unit's flat parameters into self.full (new)
-- on `stream`, after the work the default stream has queued so far (the
-- memory it reuses may have been read there).
function Unit:all_gather(stream)
  assert(not self.full, self.name .. ": already gathered")
  local f = self.f
  local h = f.in_hook
  if h then
    -- a hook's gathers, judged where the learner wrote them: a unit behind
    -- the walk is never used again this step (and its memory stays taken)
    local fwd = h.name == "before_forward"
    if (fwd and self.index < h.i) or (not fwd and self.index > h.i) then
      error(("%s of %s gathered %s, whose %s has already run in this step: nothing uses these parameters "
             .. "again before the next step, and their memory stays taken (the %s walks %s)"):format(
             h.name, f.units[h.i].name, self.name, fwd and "forward" or "backward", fwd and "forward" or "backward",
             fwd and "from the embedding up to the head" or "from the head down to the embedding"), 0)
    end
    if stream ~= f.stream then
      f.off_stream = (f.off_stream or 0) + 1
      f.off_stream_at = f.off_stream_at or (self.name .. " in " .. h.name .. " of " .. f.units[h.i].name)
    end
    h.gathered[#h.gathered + 1] = self
  end
  if not f.gathers then self.full = self.param; return end         -- NO_SHARD: always whole
  self.full = self:tensor(self.padded)
  local after = mgpu.event(); after:record(mgpu.default_stream()); stream:wait(after)
  local _, done = f:timed(stream, function() f.comm:all_gather(self.param, self.full, stream) end)
  self.gather_end = done                                            -- the harness checks the hooks' ordering with it
end

-- The gathered parameters are not needed any more (the default stream's
-- work that reads them is queued; whatever reuses the memory is ordered
-- after it, on the default stream or by all_gather's event).
function Unit:reshard()
  if self.full and self.full ~= self.param then self.full:free() end
  self.full, self.ready, self.W, self.gather_end = nil, nil, nil, nil
end

-- Views of a flat tensor by weight key, shaped.
local function views(unit, flat)
  local W, off = {}, 0
  for _, p in ipairs(unit.spec.params) do
    local n = model.numel(p.shape)
    W[p.key] = flat:flat(off, n):view(p.shape)
    off = off + n
  end
  return W
end

function Unit:weights()
  assert(self.full, self.name .. ": used before it was gathered")
  self.W = self.W or views(self, self.full)
  return self.W
end

--- The sharded model -----------------------------------------------------------

local F = {}
F.__index = F

-- opts: cfg (model shapes), comm, dtype ("bf16"|"f32"), phantom,
-- sharding ("FULL_SHARD"|"SHARD_GRAD_OP"|"NO_SHARD"), offload, checkpoint,
-- hooks, lr, init (function(unit spec, flat full tensor): real values)
function fsdp.new(opts)
  local comm = opts.comm or mgpu.comm()
  local sharding = opts.sharding or "FULL_SHARD"
  if sharding ~= "FULL_SHARD" and sharding ~= "SHARD_GRAD_OP" and sharding ~= "NO_SHARD" then
    error(("sharding '%s' is not a strategy this FSDP runs (FULL_SHARD, SHARD_GRAD_OP or NO_SHARD)"):format(
      tostring(sharding)), 0)
  end
  local f = setmetatable({cfg = opts.cfg, comm = comm, world = comm:size(), rank = comm:rank(),
                          dtype = opts.dtype or "bf16", phantom = opts.phantom, sharding = sharding,
                          gathers = sharding ~= "NO_SHARD", offload = opts.offload, checkpoint = opts.checkpoint,
                          hooks = opts.hooks or fsdp.no_prefetch, stream = comm:stream(), lr = opts.lr or 1e-3,
                          t = 0, comm_ms = 0, exposed_ms = 0}, F)
  f.ctx = {dtype = f.dtype, phantom = f.phantom}
  f.units = {}
  for i, spec in ipairs(model.units(f.cfg)) do
    local u = setmetatable({f = f, spec = spec, name = spec.name, index = i}, Unit)
    u.numel = model.unit_numel(spec)
    u.shard = f.gathers and (u.numel + f.world - 1) // f.world or u.numel
    u.padded = f.gathers and u.shard * f.world or u.numel
    at("setting up " .. u.name, function()
      if opts.init and not f.phantom then
        -- the unit's values, whole, then this rank's slice of them
        local full = u:tensor(u.padded):fill(0)
        opts.init(spec, full)
        u.param = f.gathers and u:tensor(u.shard) or full
        if f.gathers then mgpu.copy(u.param, full, {src_offset = f.rank * u.shard, count = u.shard}); full:free() end
      else
        u.param = u:tensor(u.shard)
        if not f.phantom then u.param:fill(0) end
      end
    end)
    f.units[i] = u
  end
  return f
end

-- Run fn (which queues a collective on `stream`) between two timing
-- events: the communication time, summed.
function F:timed(stream, fn)
  local a, b = mgpu.event{timing = true}, mgpu.event{timing = true}
  a:record(stream); fn(); b:record(stream)
  self.pending_times = self.pending_times or {}
  self.pending_times[#self.pending_times + 1] = {a, b}
  return a, b
end

-- A hook call; what it leaves the default stream waiting for is exposed
-- communication (two events around it on the default stream).
function F:hook(name, i)
  local ds = mgpu.default_stream()
  local a, b = mgpu.event{timing = true}, mgpu.event{timing = true}
  a:record(ds)
  self.in_hook = {name = name, i = i, gathered = {}}
  local gathered = self.in_hook.gathered
  local ok, err = pcall(self.hooks[name], self.units, i, self.stream)
  self.in_hook = nil
  if not ok then error(err, 0) end
  b:record(ds)
  local phase = name == "before_forward" and "forward" or "backward"
  self.pending_exposed[#self.pending_exposed + 1] = {a, b, phase}
  local u = self.units[i]
  if not u.full then error(("%s did not gather %s"):format(name, u.name), 0) end
  -- the unit's compute is queued after b: its all-gather must have ended by then
  if u.gather_end then self.pending_order[#self.pending_order + 1] = {u.gather_end, b, name .. " of " .. u.name} end
  -- a unit gathered ahead starts after the hook's point on the default
  -- stream (all_gather orders it so): if it has ended by b, the default
  -- stream waited for it before this unit's compute - nothing overlapped
  for _, v in ipairs(gathered) do
    if v ~= u and v.gather_end then
      self.pending_ahead[#self.pending_ahead + 1] = {v.gather_end, b, v.name .. ", gathered ahead in " .. name
                                                     .. " of " .. u.name}
    end
  end
end

-- The default stream waits for an event of the communication stream (a
-- reduction it must see done): exposed time too.
function F:wait_for(ev)
  local ds = mgpu.default_stream()
  local a, b = mgpu.event{timing = true}, mgpu.event{timing = true}
  a:record(ds); ds:wait(ev); b:record(ds)
  self.pending_exposed[#self.pending_exposed + 1] = {a, b, "backward"}
end

-- The unit's full gradient, reduced on the communication stream: into
-- its shard (reduce-scatter, averaged) or in place (NO_SHARD: all-reduce).
function F:reduce(u)
  local s = self.stream
  local after = mgpu.event(); after:record(mgpu.default_stream()); s:wait(after)
  if self.gathers then
    if not u.grad then u.grad = u:tensor(u.shard) end
    self:timed(s, function() self.comm:reduce_scatter(u.gfull, u.grad, "avg", s) end)
  else
    u.grad = u.gfull
    self:timed(s, function() self.comm:all_reduce(u.gfull, "avg", s) end)
  end
  u.reduced = mgpu.event(); u.reduced:record(s)
end

-- The full gradient of a unit whose reduction was queued before: the
-- default stream waits for the reduction, then the memory goes back.
function F:retire(u)
  if not u then return end
  self:wait_for(u.reduced)
  if self.gathers then u.gfull:free() end
  u.gfull, u.reduced = nil, nil
end

function F:full_grad(u)
  at("backward of " .. u.name, function()
    u.gfull = u.grad and not self.gathers and u.grad or u:tensor(u.padded)
    if not self.phantom then u.gfull:fill(0) end                   -- padding included
  end)
  return views(u, u.gfull)
end

-- One training step on this rank's micro-batch: ids [B, T] and labels
-- [B*T] (i32). Returns the loss tensor {mean, right} (f32).
function F:step(ids, labels)
  local c, ctx, units = self.cfg, self.ctx, self.units
  local L = #units
  self.pending_exposed, self.pending_order, self.pending_ahead = {}, {}, {}
  self.off_stream, self.off_stream_at = nil, nil
  local inputs, saved = {}, {}
  -- forward
  local x
  for i = 1, L - 1 do
    local u = units[i]
    at("forward of " .. u.name, function()
      self:hook("before_forward", i)
      local W = u:weights()
      if u.spec.kind == "embed" then
        x = layer.embed_forward(ctx, c, W, ids)
      else
        local y, S = layer.forward(ctx, c, W, x, not self.checkpoint)
        saved[i] = S
        x = y
      end
      inputs[i + 1] = x
      if self.sharding == "FULL_SHARD" then u:reshard() end
    end)
  end
  local head = units[L]
  local loss, HS
  at("forward of the head", function()
    self:hook("before_forward", L)
    loss, HS = layer.head_forward(ctx, c, head:weights(), x, labels)
  end)
  -- backward
  local inflight, dy
  at("backward of the head", function()
    local G = self:full_grad(head)
    dy = layer.head_backward(ctx, c, head:weights(), G, HS)
    inputs[L]:free(); inputs[L] = nil
    self:reduce(head)
    inflight = head
    if self.gathers then head:reshard() end
  end)
  for i = L - 1, 1, -1 do
    local u = units[i]
    at("backward of " .. u.name, function()
      self:hook("before_backward", i)
      local W = u:weights()
      local G = self:full_grad(u)
      if u.spec.kind == "embed" then
        layer.embed_backward(ctx, c, G, ids, dy)
        dy:free(); dy = nil
      else
        local S = saved[i]
        if not S then                                                -- checkpointed: recompute the forward
          local y
          y, S = layer.forward(ctx, c, W, inputs[i], true)
          y:free()
        end
        saved[i] = nil
        local dx = layer.backward(ctx, c, W, G, inputs[i], S, dy)
        dy:free(); dy = dx
        inputs[i]:free(); inputs[i] = nil
      end
      self:retire(inflight)
      self:reduce(u)
      inflight = u
      if self.gathers then u:reshard() end
    end)
  end
  self:retire(inflight)
  -- the optimizer, on the shard
  self.t = self.t + 1
  for _, u in ipairs(units) do
    at("optimizer step, " .. u.name, function()
      if not self.offload then
        if not u.m then
          -- AdamW's states, made at the first step as torch.optim does; with
          -- bf16 parameters an fp32 master copy besides (mgpu.nn has no
          -- dtype-converting op: the update runs on the bf16 shard, the
          -- master copy is held for its memory)
          if self.dtype ~= "f32" then u.master = u:tensor(u.shard, "f32") end
          u.m, u.v = u:tensor(u.shard, "f32"), u:tensor(u.shard, "f32")
          if not self.phantom then u.m:fill(0); u.v:fill(0) end
        end
        mgpu.nn.adamw(u.param, u.grad, u.m, u.v, {lr = self.lr, beta1 = 0.9, beta2 = 0.95, eps = 1e-8,
                                                  weight_decay = 0.0, step = self.t})
      end
      -- zero_grad(set_to_none=True): the gradient's memory goes back
      -- (with offload it went to the CPU's optimizer, which the sim does not model)
      if u.grad and u.grad ~= u.gfull then u.grad:free() end
      u.grad = nil
    end)
  end
  return loss
end

-- The measured times of the last step, in ms, as a table: comm
-- (collectives, summed), exposed (what the default stream waited for
-- them) and its forward and backward parts; early (units whose compute
-- could start before their all-gather had ended: a hook that does not wait
-- for it) and early_at (the first); waited_ahead (units gathered ahead
-- whose all-gather the default stream waited for before the current unit's
-- compute: a prefetch that overlaps nothing) and waited_ahead_at;
-- off_stream (all-gathers a hook queued on a stream other than the one it
-- was given) and off_stream_at. Synchronises.
function F:times()
  mgpu.synchronize()
  local t = {comm = 0, exposed = 0, forward = 0, backward = 0, early = 0, waited_ahead = 0,
             off_stream = self.off_stream or 0, off_stream_at = self.off_stream_at}
  for _, p in ipairs(self.pending_times or {}) do t.comm = t.comm + p[1]:elapsed(p[2]) end
  for _, p in ipairs(self.pending_exposed or {}) do
    local ms = p[1]:elapsed(p[2])
    t.exposed = t.exposed + ms
    t[p[3]] = t[p[3]] + ms
  end
  for _, p in ipairs(self.pending_order or {}) do
    if p[1]:elapsed(p[2]) < 0 then t.early = t.early + 1; t.early_at = t.early_at or p[3] end
  end
  for _, p in ipairs(self.pending_ahead or {}) do
    if p[1]:elapsed(p[2]) >= 0 then t.waited_ahead = t.waited_ahead + 1; t.waited_ahead_at = t.waited_ahead_at or p[3] end
  end
  self.pending_times, self.pending_exposed, self.pending_order, self.pending_ahead = {}, {}, {}, {}
  return t
end

-- Every unit's parameters, whole (for a check of the real proxy): a list
-- of {spec, full tensor} (gathered on the default stream).
function F:gather_all()
  local out = {}
  for _, u in ipairs(self.units) do
    local full = u.param
    if self.gathers then
      full = u:tensor(u.padded)
      self.comm:all_gather(u.param, full)
    end
    out[#out + 1] = {spec = u.spec, full = full}
  end
  return out
end

--- The hooks without prefetch: each unit gathered when it is needed ------------

local function gather(u, stream)
  u:all_gather(stream)
  u.ready = mgpu.event(); u.ready:record(stream)
end
fsdp.no_prefetch = {
  before_forward = function(units, i, stream)
    local u = units[i]
    if not u.full then gather(u, stream) end
    if u.ready then mgpu.default_stream():wait(u.ready) end
  end,
  before_backward = function(units, i, stream)
    local u = units[i]
    if not u.full then gather(u, stream) end
    if u.ready then mgpu.default_stream():wait(u.ready) end
  end,
}

return fsdp
