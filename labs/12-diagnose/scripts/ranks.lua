-- ranks.lua - lab 12's per-rank measurement, what validate's "ranks" and
-- "network" steps do: every rank times a copy inside its own GPU's memory
-- (a straggler's device work shows here) and, on a machine of several
-- nodes, a send to the rank with its local index on the next node while it
-- receives from the previous one (every NIC busy both ways: a NIC's pair
-- shows here). Times come from events, so on the sim they are the model's.
--
-- mgpu.args: MiB per buffer, ranks per node (0: one node).

local MiB = 1024 * 1024
local count = (tonumber(mgpu.args[1]) or 64) * MiB // 4
local per_node = tonumber(mgpu.args[2]) or 0

-- on the sim the buffers are phantom (modelled time, no host memory)
local function buffer()
  if mgpu.simulated then return mgpu.phantom_tensor{count = count} end
  return mgpu.tensor(count)
end

local a <close> = buffer()
local b <close> = buffer()
local start, stop = mgpu.event(), mgpu.event()
start:record()
mgpu.copy(b, a)
stop:record()
stop:synchronize()
local ms = start:elapsed(stop)
local row = { rank = mgpu.rank, copy_ms = ms, copy_gbs = count * 4 / (ms * 1e6) }

if per_node > 0 and mgpu.world >= 2 * per_node then
  local world = mgpu.comm()
  local to, from = (mgpu.rank + per_node) % mgpu.world, (mgpu.rank - per_node) % mgpu.world
  start:record()
  mgpu.group(function()
    world:send(a, to)
    world:recv(b, from)
  end)
  stop:record()
  stop:synchronize()
  local net = start:elapsed(stop)
  row.peer, row.net_ms, row.net_gbs = to, net, count * 4 / (net * 1e6)
end
mgpu.result(row)
