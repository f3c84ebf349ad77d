-- fp_cost.lua - what the fingerprint check costs: the host time per small
-- all_reduce (one f32, where latency is all there is), run once with
-- MGPU_FINGERPRINT off and once on (the lab sets it). mgpu.args[1]: count.
local comm = mgpu.comm()
local n = tonumber(mgpu.args[1]) or 200
local x <close> = mgpu.tensor(1):fill(1)
for _ = 1, 10 do comm:all_reduce(x) end           -- warm up
mgpu.synchronize()
local t0 = mgpu.time()
for _ = 1, n do comm:all_reduce(x) end
mgpu.synchronize()
local us = (mgpu.time() - t0) / n * 1e6
mgpu.result{ rank = mgpu.rank, n = n, us_per_collective = us }
