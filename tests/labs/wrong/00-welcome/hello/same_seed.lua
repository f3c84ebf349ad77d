-- wrong: fills every rank's tensor with the seed of the step text's example
--        (42): the data is random, but the same on every rank
-- verdict: every rank reports the same checksum
local n = 1024

local rank  = mgpu.rank      -- 0, 1, ..., world - 1
local world = mgpu.world     -- the number of ranks

local x <close> = mgpu.tensor(n)   -- 1024 floats on this rank's GPU

-- Deterministic random data: the same seed gives the same bits on every
-- backend, so the checksum can be checked by anyone who knows the seed.
x:fill{kind = "random", seed = 42}

mgpu.log("hello from rank " .. rank .. " of " .. world)
mgpu.result{rank = rank, world = world, checksum = x:checksum()}
