-- ranks.lua - lab 12's per-rank measurement, what validate's "ranks" and
-- "network" steps do: every rank times a copy inside its own GPU's memory
-- (a straggler's device work shows here) and, on a machine of several
-- nodes, a send to the rank with its local index on the next node while it
-- receives from the previous one (every NIC busy both ways: a NIC's pair
-- shows here), then the same to the next local index (a pair is two NICs:
-- the one slow in both exchanges is the slow one). Times come from events, so on the sim they are the model's.
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

-- one exchange with the next node, each rank sending to the rank `shift`
-- local places further on it and receiving from the one as far back on the
-- previous node; GB/s of one direction
local function exchange(world, shift)
  local node, localr = mgpu.rank // per_node, mgpu.rank % per_node
  local nodes = mgpu.world // per_node
  local to = ((node + 1) % nodes) * per_node + (localr + shift) % per_node
  local from = ((node - 1) % nodes) * per_node + (localr - shift) % per_node
  start:record()
  mgpu.group(function()
    world:send(a, to)
    world:recv(b, from)
  end)
  stop:record()
  stop:synchronize()
  return to, count * 4 / (start:elapsed(stop) * 1e6)
end

if per_node > 0 and mgpu.world >= 2 * per_node then
  local world = mgpu.comm()
  -- the same local index (GPU k of one node with GPU k of the next), then
  -- the next one: a slow NIC is slow in both, its partners in one
  row.peer, row.net_gbs = exchange(world, 0)
  row.peer2, row.net2_gbs = exchange(world, 1)
end
mgpu.result(row)
