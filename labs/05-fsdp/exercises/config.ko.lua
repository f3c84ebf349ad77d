-- config.lua - lab 5, step 2: FSDP 가 이 machine 에서 Llama-2-70B 를 어떻게
-- 학습하는가. step 은 phantom tensor (model 로 계산한 memory 와 시간) 위에서
-- 학습 step 두 번을 돌린다: 들어가는지는 caching allocator 가 정한다. 들어가지
-- 않으면 error 가 memory 가 모자란 unit 과 단계 (forward, backward, optimizer
-- step) 를 댄다. 돌 때까지 configuration 을 바꿔라.
return {
  -- "FULL_SHARD" (ZeRO-3: parameter, gradient, optimizer state 를 shard),
  -- "SHARD_GRAD_OP" (ZeRO-2: parameter 는 unit 의 forward 부터 backward 까지
  -- gather 된 채로 남는다) 또는 "NO_SHARD" (DDP: GPU 마다 replica)
  sharding = "FULL_SHARD",
  -- activation checkpointing: forward 에서 각 layer 의 입력만 남기고
  -- backward 에서 layer 를 재계산한다
  checkpoint = false,
  -- AdamW 의 fp32 master copy, m, v 를 GPU 가 아니라 CPU memory 에
  -- (ZeRO-Offload 의 optimizer offload, DeepSpeed 의 offload_optimizer -
  -- parameter 와 gradient 를 옮기는 PyTorch FSDP 의 CPUOffload 가 아니다)
  offload = false,
  micro_batch = 1,   -- step 당 rank 당 sequence 수
  seq = 4096,        -- sequence 당 token 수 (Llama 2 의 context)
}
