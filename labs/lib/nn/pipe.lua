-- labs/lib/nn/pipe.lua - lab 11's harness for pipeline parallelism: the
-- small decoder of nn.transformer cut into stages, one stage per rank, run
-- by the learner's schedule (GPipe, 1F1B) written with send/recv.
--   local pipe = mgpu.import("nn.pipe")
--   pipe.run{schedule = function(st) ... end, args = mgpu.args}
--
-- The schedule gets this rank's stage `st`:
--   st.stage, st.stages      this stage (0-based) and how many there are
--   st.prev, st.next         the neighbouring stages' ranks (nil at the ends)
--   st.comm, st.m            the world communicator; micro-batches per step
--   st:buffer()              a NEW tensor shaped as what flows between stages
--                            (an activation forward, its gradient backward):
--                            receive into it
--   st:forward(i, x)         micro-batch i's forward through this stage; x is
--                            the activation received from st.prev (nil on the
--                            first stage, which reads the tokens itself).
--                            Returns what to send to st.next (nil on the last
--                            stage: it computes the loss and its gradient)
--   st:backward(i, dy)       micro-batch i's backward; dy is the gradient
--                            received from st.next (nil on the last stage).
--                            Returns what to send to st.prev (nil on the first)
-- Every micro-batch keeps its activations from its forward to its backward
-- (a replica of the stage's modules, sharing the weights): how many are kept
-- at once is the schedule's activation memory, counted here.
--
-- args[1] "check" (default), args[2] = m, args[3] = steps: 4 ranks train the
--   decoder (4 layers, one a stage) for a few steps and compare their stage's parameters with an
--   unpipelined copy of the model trained on the same micro-batches with
--   gradient accumulation (every rank trains the copy).
-- args[1] "time", args[2] = "1,2,4,8" (micro-batch counts), args[3] = the
--   machine for mgpu.whatif: a larger decoder (8 layers, two a stage),
--   phantom on the sim (only the modelled time), one step per count; each
--   rank's F and B times come from timing events (the engine's clock),
--   and rank 0 asks mgpu.whatif for the same pipeline.
local nn = mgpu.import("nn")
local tf = mgpu.import("nn.transformer")
local data = mgpu.import("nn.data")
local tp = mgpu.import("tp")
local pipe = {}

pipe.SHAPES = {
  check = {vocab = 64, dim = 32, heads = 4, kv_heads = 2, hidden = 64, seq = 16, mbs = 2, layers = 4, steps = 3, m = 4},
  time = {vocab = 2048, dim = 2048, heads = 16, kv_heads = 8, hidden = 5632, seq = 1024, mbs = 1, layers = 64, dtype = "bf16"},
}
local LR, MOMENTUM = 0.05, 0.9

--- The model's modules ------------------------------------------------------

-- Module i of the decoder (tf.decoder's order, names and seeds): 1 the
-- embedding, 2 .. L+1 the blocks, L+2 the final norm, L+3 the LM head.
-- A bf16 model (the timed one) is built of labs/lib/tp's Llama layer with
-- no TP (tp.serial), the layer mgpu.whatif prices.
local function module_at(c, i)
  local L, dt = c.layers, c.dtype
  if i == 1 then return nn.embedding("embed", c.vocab, c.dim, {seed = 1, dtype = dt}) end
  if i <= L + 1 then
    local name, seed = ("layers.%d"):format(i - 2), 100 * (i - 1)
    if not dt then return tf.block(name, c.dim, c.heads, c.kv_heads, c.hidden, seed) end
    return tp.layer{name = name, dim = c.dim, heads = c.heads, kv_heads = c.kv_heads, hidden = c.hidden, seed = seed,
                    dtype = dt, ops = tp.serial, mlp = "swiglu"}
  end
  if i == L + 2 then return nn.rmsnorm("norm", c.dim, {dtype = dt}) end
  return nn.linear("lm_head", c.dim, c.vocab, {bias = false, seed = 7, dtype = dt})
end

-- The modules stage s of p holds: its L/p blocks, the embedding on the
-- first stage, the final norm and the LM head on the last.
function pipe.range(c, s, p)
  local k = c.layers // p
  local lo = s == 0 and 1 or 2 + s * k
  local hi = s == p - 1 and c.layers + 3 or 1 + (s + 1) * k
  return lo, hi
end

local function params_of(mods)
  local list = {}
  for _, mod in ipairs(mods) do mod:parameters(list) end
  return list
end

--- A stage ------------------------------------------------------------------

local Stage = {}
Stage.__index = Stage

local function fail(fmt, ...) error(string.format(fmt, ...), 0) end

-- o: c (shapes), stage, stages, m, lo, hi (module range), timed (events
-- around each F and B), synthetic (fixed tokens: timing only)
function pipe.stage(o)
  local st = setmetatable({c = o.c, stage = o.stage, stages = o.stages, m = o.m, lo = o.lo, hi = o.hi,
                           comm = mgpu.comm(), timed = o.timed, synthetic = o.synthetic,
                           first = o.lo == 1, last = o.hi == o.c.layers + 3}, Stage)
  st.prev = st.stage > 0 and st.stage - 1 or nil
  st.next = st.stage < st.stages - 1 and st.stage + 1 or nil
  st.mods = {}
  for i = o.lo, o.hi do st.mods[#st.mods + 1] = module_at(o.c, i) end
  st.params = params_of(st.mods)
  st.pool, st.live, st.replicas = {}, {}, 0
  st.toks = data.tokens{vocab = o.c.vocab, seq = o.c.seq, seed = 3}
  st.opt = nn.sgd{lr = LR, momentum = MOMENTUM}
  return st
end

-- A copy of the stage's modules that shares its weights (each replica has
-- its own gradients and activations): one per micro-batch in flight.
function Stage:replica()
  local r = table.remove(self.pool)
  if r then return r end
  r = {mods = {}}
  for i = self.lo, self.hi do r.mods[#r.mods + 1] = module_at(self.c, i) end
  r.params = params_of(r.mods)
  for j, p in ipairs(r.params) do p.value = self.params[j].value end
  local c = self.c
  if self.first or self.last then
    r.ids = nn.empty({c.mbs, c.seq}, "i32")
    r.targets = nn.empty({c.mbs * c.seq}, "i32")
    if self.synthetic then r.ids:fill(1); r.targets:fill(2) end
  end
  if self.last then r.ce = nn.cross_entropy() end
  self.replicas = self.replicas + 1
  return r
end

function Stage:buffer()
  local c = self.c
  return nn.empty({c.mbs, c.seq, c.dim}, c.dtype)
end

local function is_tensor(x) return type(x) == "userdata" and pcall(function() return x:count() end) end

function Stage:check_mb(i, what)
  if math.type(i) ~= "integer" or i < 1 or i > self.m then
    fail("stage %d: %s(%s): the micro-batch must be a whole number from 1 to %d", self.stage, what, tostring(i), self.m)
  end
end

function Stage:check_flow(t, what, i, from)
  local c = self.c
  if not is_tensor(t) then
    fail("stage %d: %s(%d, ...) got %s where it needs the tensor received from stage %d (st:buffer(), then comm:recv)",
         self.stage, what, i, t == nil and "nil" or type(t), from)
  end
  if t:count() ~= c.mbs * c.seq * c.dim then
    fail("stage %d: %s(%d, ...) got a tensor of %d elements; what flows between stages is [%d, %d, %d] (st:buffer())",
         self.stage, what, i, t:count(), c.mbs, c.seq, c.dim)
  end
end

local function event()
  local e = mgpu.event{timing = true}
  e:record(mgpu.default_stream())
  return e
end

function Stage:forward(i, x)
  self:check_mb(i, "forward")
  if self.live[i] or self.fwd_done[i] then
    fail("stage %d: forward(%d) ran twice in one step", self.stage, i)
  end
  if not self.first then
    self:check_flow(x, "forward", i, self.prev)
    for j, r in pairs(self.live) do
      if rawequal(r.input, x) then
        fail("stage %d: micro-batch %d was received into the tensor that still holds micro-batch %d's input, which "
             .. "its backward needs: receive each micro-batch into its own st:buffer()", self.stage, i, j)
      end
    end
  end
  local r = self:replica()
  r.input = x
  local e0 = self.timed and event()
  local h = x
  if self.first then
    if not self.synthetic then
      local ids, targets = self.toks:batch((self.step - 1) * self.m + i, self.c.mbs)
      mgpu.copy(r.ids, ids)
    end
    h = r.ids
  end
  if self.last and not self.synthetic then
    local _, targets = self.toks:batch((self.step - 1) * self.m + i, self.c.mbs)
    mgpu.copy(r.targets, targets)
  end
  for _, mod in ipairs(r.mods) do h = mod:forward(h) end
  if self.last then
    local loss, dl = r.ce:forward(h:view{self.c.mbs * self.c.seq, self.c.vocab}, r.targets)
    -- the step's loss is the mean over its m micro-batches
    mgpu.nn.add(dl, dl, dl, {alpha = 1 / self.m, beta = 0})
    r.loss = loss
    h = nil
  end
  if self.timed then self.spans[#self.spans + 1] = {"F", e0, event()} end
  self.live[i] = r
  self.fwd_done[i] = true
  self.order[#self.order + 1] = "F" .. i
  local n = 0
  for _ in pairs(self.live) do n = n + 1 end
  if n > self.peak then self.peak = n end
  return h
end

function Stage:backward(i, dy)
  self:check_mb(i, "backward")
  local r = self.live[i]
  if not r then
    fail("stage %d: backward(%d) %s", self.stage, i,
         self.bwd_done[i] and "ran twice in one step" or "before forward(" .. i .. ")")
  end
  if not self.last then self:check_flow(dy, "backward", i, self.next) end
  local e0 = self.timed and event()
  local d = self.last and r.ce.dlogits or dy
  if self.last and not self.synthetic then self.loss_sum = self.loss_sum + r.loss:get(0) end
  for k = #r.mods, 1, -1 do d = r.mods[k]:backward(d) end
  -- gradient accumulation: the stage's gradient is the sum over micro-batches
  for j, p in ipairs(r.params) do mgpu.nn.add(self.params[j].grad, p.grad, self.params[j].grad) end
  if self.timed then self.spans[#self.spans + 1] = {"B", e0, event()} end
  self.live[i] = nil
  r.input = nil
  self.pool[#self.pool + 1] = r
  self.bwd_done[i] = true
  self.order[#self.order + 1] = "B" .. i
  if self.first then return nil end
  return d
end

-- Before a step: gradients zeroed, the records of the last step forgotten.
function Stage:begin(step)
  self.step = step
  self.live, self.fwd_done, self.bwd_done, self.order, self.spans = {}, {}, {}, {}, {}
  self.peak, self.loss_sum = 0, 0
  for _, p in ipairs(self.params) do p.grad:fill(0) end
end

-- After a step: every micro-batch went forward and backward exactly once.
function Stage:finish()
  for i = 1, self.m do
    if not self.fwd_done[i] then fail("stage %d: the schedule returned without forward(%d)", self.stage, i) end
    if not self.bwd_done[i] then fail("stage %d: the schedule returned without backward(%d)", self.stage, i) end
  end
end

--- The runs -------------------------------------------------------------------

local function need_ranks(p)
  if mgpu.world ~= p then fail("lab 11's pipeline has %d stages, one a rank: run it on %d ranks, not %d", p, p, mgpu.world) end
end

-- Runs the learner's schedule; on an error the stage's progress goes out
-- first as a result row (which step, how many forwards and backwards were
-- done), so the lab can tell a rank that moved on from one still waiting.
local function call_schedule(schedule, st)
  local ok, err = pcall(schedule, st)
  if not ok then
    local f, b = 0, 0
    for _ in pairs(st.fwd_done) do f = f + 1 end
    for _ in pairs(st.bwd_done) do b = b + 1 end
    mgpu.result{rank = mgpu.rank, failed = true, step = st.step, fwd = f, bwd = b, m = st.m}
    error(err, 0)
  end
end

-- Parameters (or their gradients) of a stage against the reference's of
-- the same names: how many differ, and the worst.
local function compare(list, ref_list, field, RT, AT)
  local by_name = {}
  for _, q in ipairs(ref_list) do by_name[q.name] = q end
  local bad, worst = 0, nil
  for _, q in ipairs(list) do
    local n, err = q[field]:compare(by_name[q.name][field], RT, AT)
    if n > 0 then
      bad = bad + 1
      if not worst or err > worst.err then worst = {name = q.name, bad = n, err = err, count = q[field]:count()} end
    end
  end
  return bad, worst
end

local function run_check(schedule, args)
  local c = pipe.SHAPES.check
  local p = 4
  need_ranks(p)
  local m = math.tointeger(tonumber(args[2] or "")) or c.m
  local steps = math.tointeger(tonumber(args[3] or "")) or c.steps
  local lo, hi = pipe.range(c, mgpu.rank, p)
  local st = pipe.stage{c = c, stage = mgpu.rank, stages = p, m = m, lo = lo, hi = hi}
  -- the unpipelined model: the same micro-batches, one after the other
  local ref = pipe.stage{c = c, stage = 0, stages = 1, m = m, lo = 1, hi = c.layers + 3}
  local out = {rank = mgpu.rank, stage = mgpu.rank, m = m, steps = steps, modules = hi - lo + 1}
  local RT, AT = 1e-4, 1e-6
  local base = mgpu.memory_stats().allocated
  for step = 1, steps do
    st:begin(step)
    mgpu.memory_reset_peak()
    call_schedule(schedule, st)
    st:finish()
    if step == 1 then
      out.order = table.concat(st.order, " ")
      out.peak_bytes = mgpu.memory_stats().peak_allocated - base
    end
    out.peak = math.max(out.peak or 0, st.peak)
    ref:begin(step)
    for i = 1, m do ref:forward(i); ref:backward(i) end
    ref:finish()
    if step == 1 then
      -- the first step's gradients: where a wrong one starts (later steps
      -- spread it through the changed weights to every stage)
      out.grad_bad, out.grad_worst = compare(st.params, ref.params, "grad", RT, AT)
    end
    st.opt:step(st.params)
    ref.opt:step(ref.params)
    if st.last then out.loss = st.loss_sum / m end
  end
  out.replicas = st.replicas
  out.ref_loss = ref.loss_sum / m
  out.params = #st.params
  out.bad, out.worst = compare(st.params, ref.params, "value", RT, AT)
  out.rtol, out.atol = RT, AT
  mgpu.result(out)
end

local function run_time(schedule, args)
  local c = pipe.SHAPES.time
  local p = 4
  need_ranks(p)
  local ms = {}
  for v in tostring(args[2] or "1,2,4,8"):gmatch("[^,]+") do
    local m = math.tointeger(tonumber(v))
    if not m or m < 1 or m > 64 then fail("nn.pipe: micro-batch count '%s' is not a whole number 1..64", v) end
    ms[#ms + 1] = m
  end
  local machine = args[3]
  nn.phantom = mgpu.simulated
  local lo, hi = pipe.range(c, mgpu.rank, p)
  local st = pipe.stage{c = c, stage = mgpu.rank, stages = p, m = 1, lo = lo, hi = hi, timed = true, synthetic = true}
  local rows = {}
  -- each count runs twice and the second run is timed: the first one makes
  -- the replicas (their initialisation is work on the stream too)
  for _, m in ipairs(ms) do
    st.m = m
    local row
    for rep = 1, 2 do
      st:begin(rep)
      st.comm:barrier()                              -- every stage starts together
      local a = event()
      call_schedule(schedule, st)
      local b = event()
      b:synchronize()
      st:finish()
      local busy, f, bw = 0, 0, 0
      for _, s in ipairs(st.spans) do
        local ms_ = s[2]:elapsed(s[3])
        busy = busy + ms_
        if s[1] == "F" then f = f + ms_ else bw = bw + ms_ end
      end
      row = {m = m, total_ms = a:elapsed(b), busy_ms = busy, fwd_ms = f / m, bwd_ms = bw / m, peak = st.peak}
    end
    if mgpu.rank == 0 then
      local ok, w = pcall(mgpu.whatif, {dp = 1, tp = 1, pp = p, micro_batches = m, micro_batch_size = c.mbs,
                                         layers = c.layers, hidden = c.dim, ffn = c.hidden, heads = c.heads,
                                         kv_heads = c.kv_heads, vocab = c.vocab, seq = c.seq, machine = machine})
      if ok then row.whatif, row.ideal = w.bubble, w.bubble_ideal else row.whatif_error = tostring(w) end
    end
    rows[#rows + 1] = row
  end
  mgpu.result{rank = mgpu.rank, stage = mgpu.rank, times = rows, layers = hi - lo + 1}
end

function pipe.run(o)
  if type(o) ~= "table" or type(o.schedule) ~= "function" then
    fail("nn.pipe.run{schedule = function(st) ... end, args = mgpu.args}: the schedule function is missing")
  end
  local args = o.args or {}
  local mode = args[1] or "check"
  if mode == "check" then return run_check(o.schedule, args) end
  if mode == "time" then return run_time(o.schedule, args) end
  fail("nn.pipe: mode '%s' is neither check nor time", tostring(mode))
end

return pipe
