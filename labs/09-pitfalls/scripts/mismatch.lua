-- mismatch.lua - pitfall 1 (lab 9): rank 0 calls all_reduce(A), the last
-- rank all_reduce(B) of another shape. mgpu.args[1]: "bug" or "fix".
local comm = mgpu.comm()
local mode = mgpu.args[1] or "bug"
local n = 1 << 20
if mode == "bug" and mgpu.rank == mgpu.world - 1 then n = 1 << 19 end   -- BUG: a different shape
local x <close> = mgpu.tensor(n):fill{kind = "const", value = 1}
comm:all_reduce(x)
mgpu.synchronize()
mgpu.result{count = n, element0 = x:get(0)}
