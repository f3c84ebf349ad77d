-- wrong: moves rank 0's loss all-reduce out of the logging branch, to every
--        step - but still on rank 0 only: the others never make it, and the
--        ranks' collectives part again
-- verdict: did not finish
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

  if mgpu.rank == 0 then
    loss_t:fill(loss)
    comm:all_reduce(loss_t, "sum")       -- the mean loss, for the log
    if step % log_every == 0 then
      local mean = loss_t:get(0) / mgpu.world
      logged[#logged + 1] = { step = step, loss = mean }
      print(string.format("step %d  loss %.4f", step, mean))
    end
  end

  seen:fill(32)                          -- this rank's batch
  comm:all_reduce(seen, "sum")
end

mgpu.result{ rank = mgpu.rank, checksum = g:checksum(), losses = losses, logged = logged, samples = seen:get(0) }
