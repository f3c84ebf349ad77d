-- wrong: DDP (a replica per GPU) with checkpointing and offload: the bf16
--        weights and gradients alone of 69 billion parameters are 276 GB
-- verdict: out of memory
-- verdict: largest first: the parameters
return {
  sharding = "NO_SHARD",
  checkpoint = true,
  offload = true,
  micro_batch = 1,
  seq = 4096,
}
