-- wrong: checkpoints the activations but keeps the fp32 master copy and
--        AdamW's m and v on the GPU: 12 of the 16 bytes per parameter
-- verdict: out of memory
-- verdict: largest first: AdamW's states
return {
  sharding = "FULL_SHARD",
  checkpoint = true,
  offload = false,
  micro_batch = 1,
  seq = 4096,
}
