-- wrong: lays the ranks out with the DP index varying fastest (tp_rank =
--        rank // 2, dp_rank = rank % 2): TP groups {0,2,4,6} and {1,3,5,7}, not
--        Megatron's four neighbouring ranks
-- verdict: TP communicator holds ranks {0,2,4,6}
-- verdict: ranks 2 apart
local probe = mgpu.import("tp.probe")
local world = mgpu.comm()

local function coords(rank)
  return rank // 2, rank % 2
end

local tp_rank, dp_rank = coords(mgpu.rank)

local tp = world:split(dp_rank, tp_rank, "tp")
local dp = world:split(tp_rank, dp_rank, "dp")

probe.run{tp = tp, dp = dp, tp_rank = tp_rank, dp_rank = dp_rank}
