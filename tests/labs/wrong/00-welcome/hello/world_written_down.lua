-- wrong: writes down the world size the step runs with (2 ranks) instead of
--        asking mgpu.world: right on 2 ranks, wrong on any other count
-- verdict: but 3 ranks ran
local n = 1024

local rank  = mgpu.rank      -- 0, 1, ..., world - 1
local world = 2              -- the step runs 2 ranks

local x <close> = mgpu.tensor(n)   -- 1024 floats on this rank's GPU

-- Deterministic random data: the same seed gives the same bits on every
-- backend, so the checksum can be checked by anyone who knows the seed.
x:fill{kind = "random", seed = rank}

mgpu.log("hello from rank " .. rank .. " of " .. world)
mgpu.result{rank = rank, world = world, checksum = x:checksum()}
