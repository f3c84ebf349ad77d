-- groups.lua - lab 6, step 1: 8 ranks as 4 TP x 2 DP, the way Megatron-LM
-- lays them out.
--
--   TP groups (each holds one copy of the model, split in 4):  {0,1,2,3} {4,5,6,7}
--   DP groups (the same shard, different data):              {0,4} {1,5} {2,6} {3,7}
--
-- Write
--   1. coords(rank): this rank's place in its TP group (tp_rank, 0..3) and
--      in its DP group (dp_rank, 0..1);
--   2. the two communicators, with world:split(color, key, name): ranks that
--      pass the same color form one communicator, ordered by key.
-- The harness then asks each communicator, with collectives, who is in it.
local probe = mgpu.import("tp.probe")
local world = mgpu.comm()

local function coords(rank)
  return rank % 4, rank // 4            -- TP varies fastest: neighbours share a TP group
end

local tp_rank, dp_rank = coords(mgpu.rank)

-- one TP group per DP index, one DP group per TP index
local tp = world:split(dp_rank, tp_rank, "tp")
local dp = world:split(tp_rank, dp_rank, "dp")

probe.run{tp = tp, dp = dp, tp_rank = tp_rank, dp_rank = dp_rank}
