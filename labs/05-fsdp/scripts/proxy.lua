-- proxy.lua - lab 5 step 4: the FSDP code of steps 2 and 3 on a proxy
-- with real tensors, against the unsharded reference
-- (labs/lib/fsdp/train.lua, train.proxy). mgpu.args: steps, micro_batch.
mgpu.import("fsdp.train").proxy{args = mgpu.args}
