-- train.lua - lab 7's training loop (step "crash"): the model's state
-- moves by one all_reduce per step - rank 0 contributes the parameters,
-- every other rank its gradient, so p(step) = p(step-1) + the others'
-- gradients - and rank 0 saves a checkpoint every `every` steps (sent to
-- the lab as a result: the lab's disk). Values are multiples of 1/1024,
-- so every run that does the same steps ends with the same bits.
--
-- mgpu.args: steps, every, then nothing | "resume" STEP VALUES |
-- "crash" RANK STEP (on GPUs: that rank stops with an error in that step;
-- the sim kills it for real with --fault crash:RANK instead).

local steps, every = tonumber(mgpu.args[1]) or 12, tonumber(mgpu.args[2]) or 4
local mode = mgpu.args[3]
local n = 1024
local world = mgpu.comm()
local p <close> = mgpu.tensor(n)
local buf <close> = mgpu.tensor(n)
p:fill(0)

local start = 0
if mode == "resume" then
  start = tonumber(mgpu.args[4])
  if mgpu.rank == 0 then                    -- load the checkpoint into the parameters
    local i = 0
    for v in mgpu.args[5]:gmatch("[^,]+") do p:set(i, tonumber(v)); i = i + 1 end
    assert(i == n, "the checkpoint holds " .. i .. " values, not " .. n)
  end
end
local crash_rank = mode == "crash" and tonumber(mgpu.args[4]) or nil
local crash_step = mode == "crash" and tonumber(mgpu.args[5]) or nil

for step = start + 1, steps do
  if mgpu.rank == crash_rank and step == crash_step then
    error(string.format("rank %d stops in step %d (the lab's crash)", mgpu.rank, step))
  end
  if mgpu.rank == 0 then mgpu.copy(buf, p) else buf:fill{seed = 1000 * step + mgpu.rank} end
  world:all_reduce(buf)
  if mgpu.rank == 0 then mgpu.copy(p, buf) end
  if mgpu.rank == 0 and step % every == 0 then
    -- Save only what a successful all_reduce produced. On a GPU the host runs
    -- ahead of the stream: when a peer has died, NCCL may end the collective
    -- with garbage once it sees the closed connection (measured on an H200:
    -- without this check rank 0 saved a wrong "step 12" after rank 1 died in
    -- step 10). Wait for the step, then ask the communicator.
    mgpu.synchronize()
    local e = world:async_error()
    if e then error(string.format("not saving the step %d checkpoint: %s", step, e), 0) end
    local t = p:to_table()
    for i = 1, #t do t[i] = string.format("%.17g", t[i]) end
    mgpu.result{checkpoint = step, values = table.concat(t, ",")}
  end
end
if mgpu.rank == 0 then mgpu.result{final = true, step = steps, checksum = p:checksum()} end
