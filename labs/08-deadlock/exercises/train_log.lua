-- train_log.lua - lab 8, exercise 1: a data-parallel training loop that
-- logs its loss. Every rank computes a gradient on its shard, the ranks
-- average it with all_reduce, and count the samples they saw. Every
-- `log_every` steps the mean loss over all ranks is printed.
--
-- It hangs. Run it, read each rank's flight record (the results pane): find
-- the collective one rank made that the others did not, and the line that
-- made it. Then fix the script so that every rank makes the same
-- collectives in the same order - and rank 0 still logs the MEAN loss over
-- all ranks. Keep the mgpu.result at the end: the check reads it.
local comm = mgpu.comm()
local steps, log_every = 6, 3
local g <close> = mgpu.tensor(4096)      -- this rank's gradient (a stand-in)
local seen <close> = mgpu.tensor(1)      -- samples seen, summed over ranks
local loss_t <close> = mgpu.tensor(1)
local losses, logged = {}, {}

for step = 1, steps do
  -- forward + backward on this rank's shard (stand-ins)
  local loss = 2.0 / step + 0.01 * mgpu.rank
  losses[step] = loss
  g:fill{seed = 1000 * step + mgpu.rank}
  comm:all_reduce(g, "sum")              -- gradients summed over ranks

  if mgpu.rank == 0 and step % log_every == 0 then
    loss_t:fill(loss)
    comm:all_reduce(loss_t, "sum")       -- the mean loss, for the log
    local mean = loss_t:get(0) / mgpu.world
    logged[#logged + 1] = { step = step, loss = mean }
    print(string.format("step %d  loss %.4f", step, mean))
  end

  seen:fill(32)                          -- this rank's batch
  comm:all_reduce(seen, "sum")
end

mgpu.result{ rank = mgpu.rank, checksum = g:checksum(), losses = losses, logged = logged, samples = seen:get(0) }
