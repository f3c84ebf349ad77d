-- wrong: divides by the samples a full step has (batch x ranks) rather than
--        the samples all ranks really had: the short last step comes out low
-- verdict: the samples of all ranks give
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

  local mine = 0
  if n > 0 then
    g:fill{kind = "const", value = step + mgpu.rank}       -- sum of n per-sample gradients / n
    mine = g:get(0) * n
  end
  g:fill{kind = "const", value = mine}        -- zero when this rank had no samples
  comm:all_reduce(g, "sum")                   -- every rank, every step
  rows[#rows + 1] = { step = step, n = n, mine = mine, total = total, avg = g:get(0) / (batch * mgpu.world) }
end

epoch_loss:fill(1.0 + mgpu.rank)
comm:all_reduce(epoch_loss, "sum")            -- the epoch's loss, for the log
mgpu.result{ rank = mgpu.rank, rows = rows, checksum = g:checksum() }
