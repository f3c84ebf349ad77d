-- wrong: orders the TP group by a key that counts down (3 - tp_rank): the
--        right ranks, but rank 0 is the group's last, so coords disagrees with
--        the place the communicator gives
-- verdict: in another order
local probe = mgpu.import("tp.probe")
local world = mgpu.comm()

local function coords(rank)
  return rank % 4, rank // 4
end

local tp_rank, dp_rank = coords(mgpu.rank)

local tp = world:split(dp_rank, 3 - tp_rank, "tp")
local dp = world:split(tp_rank, dp_rank, "dp")

probe.run{tp = tp, dp = dp, tp_rank = tp_rank, dp_rank = dp_rank}
