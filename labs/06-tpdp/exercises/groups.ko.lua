-- groups.lua - lab 6, step 1: rank 8 개를 Megatron-LM 이 배치하는 방식대로
-- 4 TP x 2 DP 로.
--
--   TP group (각각 model 복사본 하나를 4 개로 나눠 갖는다):  {0,1,2,3} {4,5,6,7}
--   DP group (같은 shard, 다른 data):                        {0,4} {1,5} {2,6} {3,7}
--
-- 쓸 것
--   1. coords(rank): 이 rank 의 TP group 안 자리 (tp_rank, 0..3) 와 DP group
--      안 자리 (dp_rank, 0..1);
--   2. communicator 두 개, world:split(color, key, name) 으로: 같은 color 를
--      넘긴 rank 들이 communicator 하나를 이루고, key 순서로 정렬된다.
-- 그다음 harness 가 각 communicator 에 collective 로 누가 들어 있는지 묻는다.
local probe = mgpu.import("tp.probe")
local world = mgpu.comm()

local function coords(rank)
  -- TODO: rank -> tp_rank, dp_rank
  return 0, 0
end

local tp_rank, dp_rank = coords(mgpu.rank)

-- TODO: color 와 key
local tp = world:split(0, mgpu.rank, "tp")
local dp = world:split(0, mgpu.rank, "dp")

probe.run{tp = tp, dp = dp, tp_rank = tp_rank, dp_rank = dp_rank}
