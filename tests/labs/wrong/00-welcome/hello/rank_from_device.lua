-- wrong: takes the GPU a rank runs on (mgpu.device) for its rank: the same
--        while every rank has a GPU of its own, not when ranks share one
-- verdict: mgpu.rank is this rank's number
local n = 1024

local rank  = mgpu.device    -- one rank per GPU: GPU n is rank n
local world = mgpu.world     -- the number of ranks

local x <close> = mgpu.tensor(n)   -- 1024 floats on this rank's GPU

-- Deterministic random data: the same seed gives the same bits on every
-- backend, so the checksum can be checked by anyone who knows the seed.
x:fill{kind = "random", seed = rank}

mgpu.log("hello from rank " .. rank .. " of " .. world)
mgpu.result{rank = rank, world = world, checksum = x:checksum()}
