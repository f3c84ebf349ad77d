-- wrong: takes the number of GPUs (mgpu.device_count) for the number of
--        ranks - one rank per GPU is the usual launch, but not this one
-- verdict: mgpu.world is the number of ranks
local n = 1024

local rank  = mgpu.rank      -- 0, 1, ..., world - 1
local world = mgpu.device_count   -- one rank per GPU

local x <close> = mgpu.tensor(n)   -- 1024 floats on this rank's GPU

-- Deterministic random data: the same seed gives the same bits on every
-- backend, so the checksum can be checked by anyone who knows the seed.
x:fill{kind = "random", seed = rank}

mgpu.log("hello from rank " .. rank .. " of " .. world)
mgpu.result{rank = rank, world = world, checksum = x:checksum()}
