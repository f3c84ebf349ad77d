-- comm_bucket.lua - DDP's bucket: copied on the default stream, all-reduced
-- on the comm stream, copied back - once without the events (2 races: the
-- all-reduce's read, the copy back's read), once with them (none).
local comm = mgpu.comm()
local cs = comm:stream()
local grad = mgpu.tensor{count = 1 << 20, name = "grad"}:fill{kind = "random", seed = mgpu.rank}
local bucket = mgpu.tensor{count = 1 << 20, name = "bucket"}
mgpu.synchronize()
for _, ordered in ipairs({ false, true }) do
  mgpu.copy(bucket, grad)
  if ordered then local e = mgpu.event(); e:record(); cs:wait(e) end
  comm:all_reduce(bucket, "avg", cs)
  local done = mgpu.event(); done:record(cs)
  if ordered then mgpu.default_stream():wait(done) end
  mgpu.copy(grad, bucket)
  mgpu.synchronize()
end
mgpu.result{checksum = grad:checksum()}
