-- split.lua - tensor parallel x data parallel groups with comm:split, as
-- Megatron arranges them: with TP = 2 on 4 ranks, the TP groups are {0,1}
-- and {2,3} (neighbours, inside one NVLink island), the DP groups {0,2} and
-- {1,3}. Each group all-reduces its members' rank numbers and checks the sum.
--
--   mgpulab spmd examples/spmd/split.lua --backend sim --ranks 4 [-- TP]

local tp = math.tointeger(tonumber(mgpu.args[1] or "")) or 2
local world = mgpu.comm()
if mgpu.world % tp ~= 0 then
  error(string.format("TP = %d does not divide the %d ranks", tp, mgpu.world))
end
local tp_index, dp_index = mgpu.rank // tp, mgpu.rank % tp

-- same color = same group; key orders the ranks inside it
local tp_comm = world:split(tp_index, dp_index)   -- ranks tp_index*tp .. +tp-1
local dp_comm = world:split(dp_index, tp_index)   -- ranks dp_index, dp_index+tp, ...

local function group_sum(comm)
  local t <close> = mgpu.tensor(1, "i32")
  t:set(0, mgpu.rank)
  comm:all_reduce(t, t, "sum")
  return t:get(0)
end

local tp_sum, dp_sum = group_sum(tp_comm), group_sum(dp_comm)
local want_tp = 0
for r = tp_index * tp, tp_index * tp + tp - 1 do want_tp = want_tp + r end
local want_dp = 0
for r = dp_index, mgpu.world - 1, tp do want_dp = want_dp + r end
assert(tp_sum == want_tp, ("TP group %d: sum %d, expected %d"):format(tp_index, tp_sum, want_tp))
assert(dp_sum == want_dp, ("DP group %d: sum %d, expected %d"):format(dp_index, dp_sum, want_dp))

-- A rank may stay out of a split: color nil gives nil (it still has to call).
local evens = world:split(mgpu.rank % 2 == 0 and 0 or nil)
assert((evens ~= nil) == (mgpu.rank % 2 == 0))

mgpu.log(string.format("TP group %d: rank %d of %d (sum %d); DP group %d: rank %d of %d (sum %d)",
                       tp_index, tp_comm:rank(), tp_comm:size(), tp_sum,
                       dp_index, dp_comm:rank(), dp_comm:size(), dp_sum))
return {tp_group = tp_index, tp_rank = tp_comm:rank(), tp_size = tp_comm:size(), tp_sum = tp_sum,
        dp_group = dp_index, dp_rank = dp_comm:rank(), dp_size = dp_comm:size(), dp_sum = dp_sum}
