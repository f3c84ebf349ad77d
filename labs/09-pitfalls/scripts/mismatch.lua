-- mismatch.lua - pitfall 1 (lab 9): rank 0 calls all_reduce(A), the last
-- rank all_reduce(B) of another shape. mgpu.args[1]: "bug" or "fix".
local comm = mgpu.comm()
local mode = mgpu.args[1] or "bug"
-- small on purpose: larger mismatched counts may complete on a GPU with
-- undefined contents instead of hanging (lab 8, step 1)
local n = 1024
if mode == "bug" and mgpu.rank == mgpu.world - 1 then n = 512 end   -- BUG: a different shape
local x <close> = mgpu.tensor(n):fill{kind = "const", value = 1}
comm:all_reduce(x)
mgpu.synchronize()
mgpu.result{count = n, element0 = x:get(0)}
