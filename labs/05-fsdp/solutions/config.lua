-- config.lua - lab 5, step 2: how FSDP trains Llama-2-70B on this machine.
-- The step runs two training steps on phantom tensors (modelled memory and
-- time): the caching allocator decides whether it fits. When it does not,
-- the error names the unit and phase (forward, backward, optimizer step)
-- where memory ran out. Change the configuration until it runs.
return {
  -- "FULL_SHARD" (ZeRO-3: parameters, gradients and optimizer states
  -- sharded), "SHARD_GRAD_OP" (ZeRO-2: the parameters stay gathered from
  -- a unit's forward to its backward) or "NO_SHARD" (DDP: a replica per GPU)
  sharding = "FULL_SHARD",
  -- activation checkpointing: keep only each layer's input in the forward
  -- and recompute the layer in the backward
  checkpoint = true,
  -- AdamW's fp32 master copy, m and v in CPU memory instead of the GPU's
  -- (ZeRO-Offload's optimizer offload, DeepSpeed's offload_optimizer - not
  -- PyTorch FSDP's CPUOffload, which moves the parameters and gradients)
  offload = true,
  micro_batch = 1,   -- sequences per rank per step
  seq = 4096,        -- tokens per sequence (Llama 2's context)
}
