-- labs/lib/tp/probe.lua - lab 6, step 1: what the learner's communicators
-- really hold, found out with collectives on them (never from the
-- learner's own numbers). probe.run{tp =, dp =, tp_rank =, dp_rank =}:
-- on each communicator an all-gather of the members' world ranks (who is
-- in the group, in the group's order) and an all-reduce (sum) of them.
-- Every rank calls the TP group's collectives first, then the DP group's,
-- so groups that are not what they should be still complete.
-- Result row: {rank, tp_rank, dp_rank, tp = {size, rank, members, sum},
-- dp = {...}} (a group is nil when the learner made none).
local probe = {}

local function look(comm)
  if comm == nil then return nil end
  local n = comm:size()
  local me <close> = mgpu.tensor(1, "i32")
  me:set(0, mgpu.rank)
  local all <close> = mgpu.tensor(n, "i32")
  comm:all_gather(me, all)
  local sum <close> = mgpu.tensor(1, "i32")
  comm:all_reduce(me, sum, "sum")
  return {size = n, rank = comm:rank(), members = all:to_table(), sum = sum:get(0)}
end

function probe.run(g)
  if mgpu.world ~= 8 then error(("lab 6 runs 4 TP x 2 DP on 8 ranks, not %d"):format(mgpu.world), 0) end
  local row = {rank = mgpu.rank, tp_rank = g.tp_rank, dp_rank = g.dp_rank}
  row.tp = look(g.tp)
  row.dp = look(g.dp)
  mgpu.result(row)
end

return probe
