-- labs/lib/ddp/train.lua - lab 4's training harness: a ResNet trained on
-- synthetic images on every rank, three ways:
--   "single" - one rank trains on the whole global batch (the reference);
--   "naive"  - each rank trains on its shard of the global batch and, after
--              backward, all-reduces (averages) every gradient, one call per
--              parameter, on the default stream;
--   "ddp"    - the same with a reducer (the learner's, lab 4 step 3): backward
--              hands it each gradient the moment it is final (reducer:ready),
--              the optimizer waits for it (reducer:wait).
--
-- The harness, not the reducer, measures: step time (events on the default
-- stream, the median over the steps after the first), the all-reduce time
-- left exposed after backward (backward's end to the reducer's last wait),
-- and the time one all-reduce of all gradients takes on its own; "hidden" is
-- the part of that all-reduce time that did not show after backward.
--
-- train.run{mode =, reducer =, args = mgpu.args}; args (strings):
--   steps, global batch, model ("small": ResNet-8 width 16, real numbers;
--   "wide": ResNet-32 width 96, for timing - phantom on the sim, real on a
--   GPU; "resnet20": ResNet-20 width 16, real numbers, the model of the
--   torch DDP comparison, scripts/compare-ddp-torch.py), bucket MiB (ddp), and the initial parameters: "same" (default:
--   every rank initialises from the same seeds), "per-rank" (each rank
--   from its own seed, as two processes that do not share a seed do), or
--   "broadcast" (per-rank, then rank 0's parameters broadcast to all, as
--   DDP does when it wraps a model); and the buffers (batch norm's running
--   statistics): "own" (default: each rank keeps those of its own shard)
--   or "broadcast" (rank 0's broadcast before every forward, as DDP's
--   broadcast_buffers=True does).
-- Results (mgpu.result): every rank a row {rank, checksum, params = {name
-- = checksum}, buffers = checksum, eval_loss} (small model; eval_loss: a
-- held-out batch in eval mode, which normalises with the running statistics); rank 0 a row {losses, step_ms, exposed_ms,
-- comm_ms, hidden, grad_mib, grad_counts (every gradient's elements in the
-- model's parameter order, space-separated: what a bucketing rule packs),
-- ...}.
local nn = mgpu.import("nn")
local resnet = mgpu.import("nn.resnet")
local data = mgpu.import("nn.data")

local train = {}

-- "n1 n2 ...": every parameter's element count, in the model's order.
local function counts_of(params)
  local t = {}
  for i, p in ipairs(params) do t[i] = tostring(p.value:count()) end
  return table.concat(t, " ")
end

-- The models the harness trains (args[3]); timing = phantom on the sim.
local MODELS = {
  small    = {depth = 8, width = 16},
  resnet20 = {depth = 20, width = 16},
  wide     = {depth = 32, width = 96, timing = true},
}

local function timing_event()
  local e = mgpu.event{timing = true}
  e:record(mgpu.default_stream())
  return e
end

-- The naive exchange: every gradient averaged over the ranks, one call
-- each, after backward (what DDP replaces).
local Naive = {}
Naive.__index = Naive
function Naive.new(params, comm) return setmetatable({params = params, comm = comm}, Naive) end
function Naive:ready() end
function Naive:wait()
  for _, p in ipairs(self.params) do self.comm:all_reduce(p.grad, "avg") end
end

function train.run(opts)
  local args = opts.args or {}
  local mode = opts.mode
  local steps = math.tointeger(tonumber(args[1] or "")) or 20
  local global = math.tointeger(tonumber(args[2] or "")) or 64
  local kind = args[3] or "small"
  local bucket_mb = tonumber(args[4] or "") or 25
  local world = mode == "single" and 1 or mgpu.world
  if mode == "single" and mgpu.world ~= 1 then error("mode single runs on one rank, not " .. mgpu.world, 0) end
  if global % world ~= 0 then
    error(("the global batch %d does not split over %d ranks"):format(global, world), 0)
  end
  local shard = global // world
  local spec = MODELS[kind]
  if not spec then error(("model %q: use small, resnet20 or wide"):format(kind), 0) end
  nn.phantom = spec.timing and mgpu.simulated or false

  local model = resnet.new{depth = spec.depth, width = spec.width, classes = 10}
  local params = model:parameters()
  local comm = mgpu.comm()
  local init = args[5] or "same"
  if init ~= "same" and not nn.phantom then
    -- each rank's own initial values: the library's, moved by a rank-seeded
    -- amount (the weights' scale, so the model still trains)
    for i, p in ipairs(params) do
      local noise = nn.empty(p.value:shape()):fill{kind = "random", seed = 7000 + 100 * mgpu.rank + i}
      mgpu.nn.add(p.value, noise, p.value, {alpha = 1, beta = 0.05})
      noise:free()
    end
    if init == "broadcast" then
      for _, p in ipairs(params) do comm:broadcast(p.value, 0) end
    end
  end
  local sync_buffers = (args[6] or "own") == "broadcast"
  if args[6] and args[6] ~= "own" and args[6] ~= "broadcast" then
    error(("buffers: %q; use own or broadcast"):format(args[6]), 0)
  end
  local buffers = model:buffers()
  local set = data.images{classes = 10, seed = 1}
  local ce = nn.cross_entropy()
  local opt = nn.sgd{lr = 0.05, momentum = 0.9, weight_decay = 5e-4}

  local reducer
  if mode == "naive" then reducer = Naive.new(params, comm)
  elseif mode == "ddp" then
    -- opts.tensor makes a flat f32 tensor like the model's own (phantom in
    -- the sim's timing runs of the wide model)
    reducer = opts.reducer.new(params, comm, {bucket_mb = bucket_mb, tensor = function(n) return nn.empty({n}) end})
  end
  local function hook(p) if reducer then reducer:ready(p) end end

  -- One all-reduce of every gradient at once, on the communicator's stream:
  -- what the exchange costs when nothing else runs (the second call; the
  -- first sets up connections).
  local numel = nn.count(params)
  local comm_ms
  if mode ~= "single" then
    local flat = nn.empty({numel}):name("all gradients (flat)")
    if not nn.phantom then flat:fill(0) end
    local s = comm:stream()
    local filled = mgpu.event()                    -- the fill ran on the default stream
    filled:record()
    s:wait(filled)
    for i = 1, 2 do
      local a, b = mgpu.event{timing = true}, mgpu.event{timing = true}
      a:record(s); comm:all_reduce(flat, "avg", s); b:record(s); b:synchronize()
      comm_ms = a:elapsed(b)
    end
    flat:free()
  end

  local step_ms, exposed_ms, losses = {}, {}, {}
  local loss_of = {}
  for step = 1, steps do
    local x, labels
    if nn.phantom then
      x = nn.buffer(train, "px", {shard, 3, 32, 32})
      labels = nn.buffer(train, "plabels", {shard}, "i32")
    else
      local gx, gl = set:batch(step, global)
      local r = mode == "single" and 0 or mgpu.rank
      x, labels = gx:slice(r * shard, shard), gl:slice(r * shard, shard)
    end
    local t0 = timing_event()
    if sync_buffers and world > 1 then
      for _, b in ipairs(buffers) do comm:broadcast(b.value, 0) end
    end
    local loss, dlogits = ce:forward(model:forward(x), labels)
    model:backward(dlogits, hook)
    local t1 = timing_event()
    if reducer then reducer:wait() end
    local t2 = timing_event()
    opt:step(params)
    local t3 = timing_event()
    t3:synchronize()
    if step > 1 then
      step_ms[#step_ms + 1] = t0:elapsed(t3)
      exposed_ms[#exposed_ms + 1] = t1:elapsed(t2)
    end
    if not nn.phantom then loss_of[step] = loss end
    if not nn.phantom then losses[step] = ("%.5f"):format(loss:get(0)) end
  end

  if not nn.phantom then
    local sum, per = 0, {}
    for _, p in ipairs(params) do
      local c = p.value:checksum()
      per[p.name] = ("%016x"):format(c)
      sum = sum ~ c
    end
    -- a held-out batch in eval mode: what this rank's copy of the model
    -- would report if it were the one evaluated or saved (DDP broadcasts the
    -- buffers before this forward too)
    if sync_buffers and world > 1 then
      for _, b in ipairs(buffers) do comm:broadcast(b.value, 0) end
    end
    local bsum = 0
    for _, b in ipairs(buffers) do bsum = bsum ~ b.value:checksum() end
    model:train(false)
    local hx, hl = set:batch(10000, 64)
    local eval_loss = ce:forward(model:forward(hx), hl)
    model:train(true)
    mgpu.result{rank = mgpu.rank, checksum = ("%016x"):format(sum), params = per,
                buffers = ("%016x"):format(bsum), eval_loss = eval_loss:get(0)}
  end
  if mgpu.rank == 0 then
    local exposed = nn.median(exposed_ms)
    local hidden = comm_ms and comm_ms > 0 and math.max(0, 1 - exposed / comm_ms) or nil
    mgpu.result{mode = mode, model = kind, ranks = world, global_batch = global, steps = steps,
                losses = not nn.phantom and table.concat(losses, " ") or nil,
                step_ms = nn.median(step_ms), exposed_ms = exposed, comm_ms = comm_ms, hidden = hidden,
                grad_mib = numel * 4 / 2 ^ 20, params = #params, grad_counts = counts_of(params),
                bucket_mb = mode == "ddp" and bucket_mb or nil,
                buckets = mode == "ddp" and type(reducer.buckets) == "table" and #reducer.buckets or nil,
                samples_per_s = global / (nn.median(step_ms) / 1000)}
  end
end

return train
