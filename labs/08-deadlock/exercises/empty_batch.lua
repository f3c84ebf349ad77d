-- empty_batch.lua - lab 8, exercise 2: the last step of an epoch. The
-- dataset does not divide evenly: on the last step the last rank's shard is
-- EMPTY, and this loop skips the gradient all-reduce when there is nothing
-- to compute. The other ranks wait for it in that all-reduce.
--
-- Run it, find the rank and the collective from the flight records, then
-- fix it with a collective every rank makes: a rank with no samples still
-- takes part, contributing a zero gradient, and the gradient is divided by
-- the number of samples of ALL ranks (so an empty shard does not bias it).
-- Keep the mgpu.result at the end: the check reads it.
local comm = mgpu.comm()
local batch, steps = 8, 4
-- samples per step over all ranks: full steps, then one rank short
local dataset = batch * mgpu.world * (steps - 1) + batch * (mgpu.world - 1)
local g <close> = mgpu.tensor(4096)
local nt <close> = mgpu.tensor(1)
local epoch_loss <close> = mgpu.tensor(1)
local rows = {}

for step = 1, steps do
  local first = (step - 1) * batch * mgpu.world + mgpu.rank * batch
  local n = math.max(0, math.min(batch, dataset - first))   -- this rank's samples

  nt:fill(n)
  comm:all_reduce(nt, "sum")                  -- samples of all ranks this step
  local total = nt:get(0)

  if n > 0 then
    g:fill{kind = "const", value = step + mgpu.rank}       -- sum of n per-sample gradients / n
    local mine = g:get(0) * n
    g:fill{kind = "const", value = mine}                   -- the sum over this rank's samples
    comm:all_reduce(g, "sum")                 -- gradients of all ranks
    rows[#rows + 1] = { step = step, n = n, mine = mine, total = total, avg = g:get(0) / total }
  end
end

epoch_loss:fill(1.0 + mgpu.rank)
comm:all_reduce(epoch_loss, "sum")            -- the epoch's loss, for the log
mgpu.result{ rank = mgpu.rank, rows = rows, checksum = g:checksum() }
