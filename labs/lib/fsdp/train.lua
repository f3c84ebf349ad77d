-- labs/lib/fsdp/train.lua - lab 5's runs of labs/lib/fsdp/fsdp.lua.
--
-- train.big{args =, hooks =}: Llama-2-70B shapes on phantom tensors (on the
--   sim: modelled time and memory, nothing computed). args (strings):
--   sharding, offload ("1"/"0"), checkpoint ("1"/"0"), micro_batch, seq,
--   steps. Every rank reports {rank, peak} (the caching allocator's peak
--   allocated bytes); rank 0 also the planner's peak for the same
--   configuration and the last step's times: step_ms, comm_ms (every
--   all-gather and reduction, summed), exposed_ms (what the default stream
--   waited for them), tokens, flops (model FLOPs of the step, all ranks).
-- train.proxy{args =, hooks =}: the proxy (model.proxy()) with real f32
--   tensors and data; see proxy() below.
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
  local f = fsdp.new{cfg = c, phantom = true, dtype = o.dtype, sharding = o.sharding, offload = o.offload,
                     checkpoint = o.checkpoint, hooks = opts.hooks}
  local ids = mgpu.tensor{shape = {o.micro_batch, o.seq}, dtype = "i32", phantom = true}
  local labels = mgpu.tensor{shape = {o.micro_batch * o.seq}, dtype = "i32", phantom = true}
  local step_ms, comm_ms, exposed_ms
  for s = 1, steps do
    local t0 = step_event()
    f:step(ids, labels)
    local t1 = step_event()
    t1:synchronize()
    step_ms = t0:elapsed(t1)
    comm_ms, exposed_ms = f:times()
  end
  local st = mgpu.memory_stats()
  mgpu.result{rank = mgpu.rank, peak = st.peak_allocated}
  if mgpu.rank == 0 then
    local p = plan.walk(c, o)
    local tokens = o.micro_batch * o.seq * mgpu.world
    mgpu.result{summary = true, params = model.count(c), plan_peak = p.peak, plan_at = p.at,
                step_ms = step_ms, comm_ms = comm_ms, exposed_ms = exposed_ms, tokens = tokens,
                flops = model.flops_per_token(c, o.seq) * tokens, world = mgpu.world,
                prefetch = o.prefetch and true or false}
  end
end

return train
