-- wrong: ZeRO-2 with checkpointing and offload: the gathered parameters
--        of every unit stay from its forward to its backward
-- verdict: out of memory
-- verdict: largest first: the parameters
return {
  sharding = "SHARD_GRAD_OP",
  checkpoint = true,
  offload = true,
  micro_batch = 1,
  seq = 4096,
}
