-- attempt.lua - lab 5 step 2: Llama-2-70B under the learner's FSDP
-- configuration (labs/lib/fsdp/train.lua, train.big), no prefetch.
-- mgpu.args: sharding, offload, checkpoint, micro_batch, seq, steps.
mgpu.import("fsdp.train").big{args = mgpu.args}
