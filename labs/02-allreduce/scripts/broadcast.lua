-- broadcast.lua - lab 2's step "multicast": rank 0's buffer to every rank,
-- three ways, timed on the comm stream with events (the engine's clocks):
--   naive      rank 0 sends a copy to each peer (one group of n-1 sends)
--   ring       NCCL's broadcast (a pipelined chain: every GPU forwards)
--   multicast  a CUDA multicast object: rank 0 stores once, the switch copies
-- mgpu.args: the sizes in bytes. Phantom tensors (shape only): the step
-- times the transfers, it needs no values.
local world = mgpu.comm()
local n, me = mgpu.world, mgpu.rank
local s = world:stream()
local reps = 3

local function timed(fn)
  local start, stop = mgpu.event{timing = true}, mgpu.event{timing = true}
  fn() -- once to warm up, as nccl-tests does
  start:record(s)
  for _ = 1, reps do fn() end
  stop:record(s)
  stop:synchronize()
  return start:elapsed(stop) * 1000 / reps -- us per call
end

for _, arg in ipairs(mgpu.args) do
  local bytes = math.tointeger(tonumber(arg))
  local count = bytes // 4
  local buf <close> = mgpu.phantom_tensor{count = count, dtype = "f32"}
  local row = {bytes = bytes, ranks = n}
  row.naive = timed(function()
    mgpu.group(function()
      if me == 0 then
        for peer = 1, n - 1 do world:send(buf, peer, s) end
      else
        world:recv(buf, 0, s)
      end
    end)
  end)
  row.ring = timed(function() world:broadcast(buf, buf, 0, s) end)
  local ok, why = pcall(function()
    row.multicast = timed(function() world:multicast(buf, buf, 0, s) end)
  end)
  if not ok then row.multicast_refused = tostring(why) end
  if me == 0 then mgpu.result(row) end
end
