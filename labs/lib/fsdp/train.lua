-- labs/lib/fsdp/train.lua - lab 5's runs of labs/lib/fsdp/fsdp.lua.
--
-- train.big{args =, hooks =}: Llama-2-70B shapes on phantom tensors (on the
--   sim: modelled time and memory, nothing computed). args (strings):
--   sharding, offload ("1"/"0"), checkpoint ("1"/"0"), micro_batch, seq,
--   steps. Every rank reports {rank, peak} (the caching allocator's peak
--   allocated bytes); rank 0 also the planner's peak for the same
--   configuration and the last step's times: step_ms, comm_ms (every
--   all-gather and reduction, summed), exposed_ms (what the default stream
--   waited for them) and its parts fwd_exposed_ms and bwd_exposed_ms,
--   tokens, flops (model FLOPs of the step, all ranks), and what the hooks
--   did wrong (F:times): early/early_at (a unit's compute could start
--   before its all-gather ended), waited_ahead/waited_ahead_at (a unit
--   gathered ahead was waited for at once), off_stream/off_stream_at (an
--   all-gather on another stream than the hook's).
-- train.proxy{args =, hooks =}: the proxy (model.proxy(): Llama's layer
--   structure, 3 layers of width 64) with real f32 tensors and data. Every
--   rank builds the nn library's decoder (tf.decoder) from the same seeds
--   and trains it unsharded on the whole global batch (the reference);
--   FSDP starts from the same values and trains on this rank's micro-batch.
--   args: steps, micro_batch. Rank 0 reports both loss curves, the largest
--   difference between FSDP's gathered parameters and the reference's
--   after the last step (and the parameter where it is), and a checksum of
--   FSDP's parameters (equal bits in equal runs).
-- train.run{args =, hooks =}: args[1] "70b" (train.big) or "proxy", the
--   rest theirs (the exercise of step 3 runs both).
local model = mgpu.import("fsdp.model")
local plan = mgpu.import("fsdp.plan")
local fsdp = mgpu.import("fsdp.fsdp")
local train = {}

local function flag(s) return s == "1" or s == "true" end
local function int(s, d) return math.tointeger(tonumber(s or "")) or d end

local function step_event()
  local e = mgpu.event{timing = true}
  e:record(mgpu.default_stream())
  return e
end

function train.big(opts)
  local a = opts.args or {}
  local o = {sharding = a[1] or "FULL_SHARD", offload = flag(a[2]), checkpoint = flag(a[3]),
             micro_batch = int(a[4], 1), seq = int(a[5], 4096), dtype = "bf16", world = mgpu.world,
             prefetch = opts.prefetch}
  local steps = int(a[6], 2)
  local c = model.llama2_70b()
  if not mgpu.simulated then
    error("the 70B run is a what-if on phantom tensors: run it on the sim backend", 0)
  end
  -- the planner's numbers first: a run that runs out of memory still has them
  if mgpu.rank == 0 then
    local _, total = mgpu.mem_info()
    local p = plan.walk(c, o, total)
    -- what the bytes are, for an out-of-memory verdict: the states and the
    -- activations the layers keep for backward (all of a layer's, or with
    -- checkpointing its input alone)
    local acts = p.inputs + (o.checkpoint and 0 or p.saved * (#model.units(c) - 2))
    mgpu.result{plan = true, plan_peak = p.peak, plan_at = p.at, plan_over_at = p.over_at, gpu_bytes = total,
                params = model.count(c), plan_params = p.states.params, plan_grads = p.states.grads,
                plan_optim = p.states.optim, plan_acts = acts}
  end
  local f = fsdp.new{cfg = c, phantom = true, dtype = o.dtype, sharding = o.sharding, offload = o.offload,
                     checkpoint = o.checkpoint, hooks = opts.hooks}
  local ids = mgpu.tensor{shape = {o.micro_batch, o.seq}, dtype = "i32", phantom = true}
  local labels = mgpu.tensor{shape = {o.micro_batch * o.seq}, dtype = "i32", phantom = true}
  local step_ms, t
  for s = 1, steps do
    local t0 = step_event()
    f:step(ids, labels)
    local t1 = step_event()
    t1:synchronize()
    step_ms = t0:elapsed(t1)
    t = f:times()
  end
  local st = mgpu.memory_stats()
  mgpu.result{rank = mgpu.rank, peak = st.peak_allocated}
  if mgpu.rank == 0 then
    local tokens = o.micro_batch * o.seq * mgpu.world
    mgpu.result{summary = true, step_ms = step_ms, comm_ms = t.comm, exposed_ms = t.exposed,
                fwd_exposed_ms = t.forward, bwd_exposed_ms = t.backward, tokens = tokens,
                flops = model.flops_per_token(c, o.seq) * tokens, world = mgpu.world,
                prefetch = o.prefetch and true or false, early = t.early, early_at = t.early_at,
                waited_ahead = t.waited_ahead, waited_ahead_at = t.waited_ahead_at,
                off_stream = t.off_stream, off_stream_at = t.off_stream_at}
  end
end

function train.proxy(opts)
  local nn = mgpu.import("nn")
  local tf = mgpu.import("nn.transformer")
  local data = mgpu.import("nn.data")
  local a = opts.args or {}
  local steps, mb = int(a[1], 3), int(a[2], 2)
  local c = model.proxy()
  local seq, world, rank = 16, mgpu.world, mgpu.rank
  local global = mb * world
  nn.phantom = false
  local ref = tf.decoder{vocab = c.vocab, dim = c.dim, heads = c.heads, kv_heads = c.kv_heads, layers = c.layers,
                         hidden = c.ffn}
  local params = ref:parameters()
  local by_name = {}
  for _, p in ipairs(params) do by_name[p.name] = p end
  local f = fsdp.new{cfg = c, dtype = "f32", phantom = false, sharding = "FULL_SHARD", hooks = opts.hooks, lr = 3e-3,
                     init = function(spec, full)
                       local off = 0
                       for _, p in ipairs(spec.params) do
                         local src = by_name[p.name]
                         if not src then error("the reference model has no parameter " .. p.name, 0) end
                         local n = model.numel(p.shape)
                         mgpu.copy(full, src.value:view{n}, {dst_offset = off, count = n})
                         off = off + n
                       end
                     end}
  local set = data.tokens{vocab = c.vocab, seq = seq, seed = 5}
  local ce = nn.cross_entropy()
  local opt = nn.adamw{lr = 3e-3, beta1 = 0.9, beta2 = 0.95, eps = 1e-8, weight_decay = 0}
  local comm = mgpu.comm()
  local ref_losses, fsdp_losses = {}, {}
  for s = 1, steps do
    local ids, targets = set:batch(s, global)
    -- the reference: one unsharded step on the whole global batch
    local loss = ce:forward(ref:forward(ids), targets)
    ref:backward(ce.dlogits)
    opt:step(params)
    ref_losses[s] = ("%.6f"):format(loss:get(0))
    -- FSDP on this rank's micro-batch, the loss averaged over the ranks
    local mine = ids:slice(rank * mb, mb)
    local my_t = targets:slice(rank * mb * seq, mb * seq)
    local l = f:step(mine, my_t)
    comm:all_reduce(l, "avg")
    fsdp_losses[s] = ("%.6f"):format(l:get(0))
  end
  local worst, where, sum = 0, "-", 0
  for _, g in ipairs(f:gather_all()) do
    local off = 0
    for _, p in ipairs(g.spec.params) do
      local n = model.numel(p.shape)
      local mine = g.full:flat(off, n)
      local _, err = mine:compare(by_name[p.name].value:view{n}, 0, 0)
      if err > worst then worst, where = err, p.name end
      sum = sum ~ mine:checksum()
      off = off + n
    end
  end
  if rank == 0 then
    mgpu.result{proxy = true, steps = steps, micro_batch = mb, global_batch = global, seq = seq,
                params = model.count(c), ref_losses = table.concat(ref_losses, " "),
                fsdp_losses = table.concat(fsdp_losses, " "), worst = worst, worst_param = where,
                checksum = ("%016x"):format(sum)}
  end
end

function train.run(opts)
  local args = {}
  for i = 2, #(opts.args or {}) do args[#args + 1] = opts.args[i] end
  local what = (opts.args or {})[1]
  if what == "70b" then return train.big{args = args, hooks = opts.hooks, prefetch = opts.prefetch} end
  if what == "proxy" then return train.proxy{args = args, hooks = opts.hooks} end
  error(("fsdp.train.run: the first argument is 70b or proxy, not '%s'"):format(tostring(what)), 0)
end

return train
