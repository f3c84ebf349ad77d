-- plan.lua - lab 5 step 1: the memory planner (labs/lib/fsdp/plan.lua) for
-- Llama-2-70B on this machine. mgpu.args[1]: the ranks (the machine's GPUs,
-- at most 8). The GPU's memory is this rank's device's (mgpu.mem_info).
-- One result row per configuration: its states (ZeRO's formula), the walk's
-- peak and where it is, and whether it fits.
local model = mgpu.import("fsdp.model")
local plan = mgpu.import("fsdp.plan")
local world = math.tointeger(tonumber(mgpu.args[1] or "")) or 8
local _, total = mgpu.mem_info()
local c = model.llama2_70b()
local base = {world = world, sharding = "FULL_SHARD", offload = false, states = "fp32", checkpoint = false,
              micro_batch = 1, seq = 4096, dtype = "bf16"}
local function with(t)
  local o = {}
  for k, v in pairs(base) do o[k] = v end
  for k, v in pairs(t) do o[k] = v end
  return o
end
local configs = {
  {id = "ddp", label = "DDP (a replica per GPU)", o = with{sharding = "NO_SHARD"}},
  {id = "zero1", label = "ZeRO-1 (optimizer states sharded)", o = with{sharding = "ZERO1"}},
  {id = "zero2", label = "ZeRO-2 / SHARD_GRAD_OP (+ gradients)", o = with{sharding = "SHARD_GRAD_OP"}},
  {id = "zero3", label = "ZeRO-3 / FULL_SHARD (+ parameters)", o = with{}},
  {id = "zero3_ckpt", label = "FULL_SHARD + checkpointing", o = with{checkpoint = true}},
  {id = "zero3_bf16", label = "FULL_SHARD + ckpt + bf16 states", o = with{checkpoint = true, states = "bf16"}},
  {id = "zero3_off", label = "FULL_SHARD + ckpt + offload", o = with{checkpoint = true, offload = true}},
  {id = "zero3_off_b2", label = "FULL_SHARD + ckpt + offload, micro-batch 2", o = with{checkpoint = true, offload = true,
                                                                                      micro_batch = 2}},
  {id = "zero3_off_8k", label = "FULL_SHARD + ckpt + offload, seq 8192", o = with{checkpoint = true, offload = true,
                                                                                  seq = 8192}},
}
mgpu.result{machine = true, world = world, gpu_bytes = total, params = model.count(c),
            layers = c.layers, dim = c.dim, ffn = c.ffn, heads = c.heads, kv_heads = c.kv_heads, vocab = c.vocab}
for i, k in ipairs(configs) do
  local s = plan.states(c, k.o)
  local w = plan.walk(c, k.o, total)
  mgpu.result{config = k.id, order = i, label = k.label, params_b = s.params, grads_b = s.grads, optim_b = s.optim,
              states_b = s.total, peak_b = w.peak, at = w.at, over_at = w.over_at, fits = plan.fits(w.peak, total)}
end
