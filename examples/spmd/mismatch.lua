-- mismatch.lua - the lecture note's collective-mismatch deadlock, on purpose.
--
-- Every rank but the last calls all_reduce with 1M floats; the last rank
-- calls broadcast with 512K. A collective only completes when every rank of
-- the communicator calls the same one with the same shape, so NCCL would
-- wait forever. mgpulab's watchdog aborts the communicator after --timeout
-- seconds and the flight recorder names the mismatch:
--
--   mgpulab spmd examples/spmd/mismatch.lua --backend sim --ranks 4 --timeout 3
--
-- The fix: every rank calls the same collectives, in the same order, with
-- the same count and dtype. (MGPU_FINGERPRINT=1 catches the mismatch before
-- anything hangs, as PyTorch's TORCH_DISTRIBUTED_DEBUG=DETAIL does.)

local comm = mgpu.comm()
local last = mgpu.world - 1

local x <close> = mgpu.tensor(1 << 20):fill{kind = "const", value = 1}
comm:all_reduce(x, x)                       -- #1: everyone agrees
mgpu.log("all_reduce #1 done")

if mgpu.rank ~= last then
  comm:all_reduce(x, x, "sum")              -- #2 on ranks 0..N-2 ...
else
  local y <close> = mgpu.tensor(1 << 19)
  comm:broadcast(y, y, 0)                   -- ... #2 here is a broadcast of half the size
end
mgpu.synchronize()
mgpu.log("not reached: the mismatched collective never completes")
