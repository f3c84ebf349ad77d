-- wrong: coords returns the DP index first: tp_rank = rank // 4 and
--        dp_rank = rank % 4, so the splits, right as written, make the wrong groups
-- verdict: TP communicator holds ranks {0,4}
-- verdict: that is rank 0's DP group
local probe = mgpu.import("tp.probe")
local world = mgpu.comm()

local function coords(rank)
  return rank // 4, rank % 4
end

local tp_rank, dp_rank = coords(mgpu.rank)

local tp = world:split(dp_rank, tp_rank, "tp")
local dp = world:split(tp_rank, dp_rank, "dp")

probe.run{tp = tp, dp = dp, tp_rank = tp_rank, dp_rank = dp_rank}
