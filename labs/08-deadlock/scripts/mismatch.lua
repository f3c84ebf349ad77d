-- mismatch.lua - the note's case: every rank calls all_reduce, but the last
-- rank's tensor has a different shape (half the elements). A collective only
-- completes when every rank of the communicator calls the same one with the
-- same count, so NCCL waits - forever, unless a watchdog ends it.
-- The tensor is small on purpose: on an H200 with NCCL 2.28 (4 emulated
-- ranks, socket transport) 1024 vs 512 elements hung every rank, while
-- 1 Mi vs 512 Ki elements completed in 40 ms with undefined contents and
-- 16 Mi vs 8 Mi left one rank hanging (docs/gpu-results.md).
--   mgpu.args[1]: "blocking" (default) - wait on the host for the result;
--                 "async" - keep the host working and poll comm:async_error()
local comm = mgpu.comm()
local mode = mgpu.args[1] or "blocking"
local last = mgpu.world - 1
local n = mgpu.rank == last and 512 or 1024

local x <close> = mgpu.tensor(1 << 20):fill(1)
comm:all_reduce(x)                                   -- #1: every rank agrees
mgpu.synchronize()

local y <close> = mgpu.tensor(n):fill(1)
local t0 = mgpu.time()
local out = { rank = mgpu.rank, mode = mode, count = n }
local ok, err = pcall(function()
  comm:all_reduce(y)                                 -- #2: the shapes differ
  out.call_returned_s = mgpu.time() - t0             -- on a GPU: at once (queued)
  if mode == "blocking" then
    mgpu.synchronize()                               -- the host waits here
    local e = comm:async_error()
    if e then error(e, 0) end
  else
    -- asynchronous error handling: the host goes on with other work and
    -- asks the communicator now and then, as PyTorch's watchdog thread does
    out.polls = 0
    while true do
      local e = comm:async_error()
      if e then error(e, 0) end
      if mgpu.default_stream():query() then break end
      out.polls = out.polls + 1
      local t = mgpu.time()
      while mgpu.time() - t < 0.01 do end            -- 10 ms of "other work"
    end
    -- the stream also "finishes" when the watchdog aborted the collective
    local e = comm:async_error()
    if e then error(e, 0) end
  end
end)
out.seconds = mgpu.time() - t0
out.completed = ok
out.error = not ok and tostring(err) or nil
if ok then out.value = y:get(0) end                  -- a completed mismatch: what landed in y?
out.flight = comm:flight(4)
mgpu.result(out)
