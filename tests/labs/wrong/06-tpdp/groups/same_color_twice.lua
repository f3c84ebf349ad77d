-- wrong: copies the TP split for the DP one and keeps its color: both
--        communicators are the TP group
-- verdict: DP communicator holds ranks {0,1,2,3}
-- verdict: that is rank 0's TP group
local probe = mgpu.import("tp.probe")
local world = mgpu.comm()

local function coords(rank)
  return rank % 4, rank // 4
end

local tp_rank, dp_rank = coords(mgpu.rank)

local tp = world:split(dp_rank, tp_rank, "tp")
local dp = world:split(dp_rank, dp_rank, "dp")

probe.run{tp = tp, dp = dp, tp_rank = tp_rank, dp_rank = dp_rank}
