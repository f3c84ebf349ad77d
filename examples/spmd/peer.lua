-- peer.lua - a GPU0 -> GPU1 copy with peer access off and on (lab 3).
--
-- cudaMemcpyPeerAsync works either way: without peer access the driver
-- stages the copy through host memory; with it (cudaDeviceEnablePeerAccess)
-- the copy engine moves the data over NVLink or PCIe directly. A kernel (SM
-- copy) cannot touch the other GPU's memory at all until peer access is on.
-- One rank does the measuring, timed with events on its stream.
--
--   mgpulab spmd examples/spmd/peer.lua --backend sim --ranks 1
--   mgpulab spmd examples/spmd/peer.lua --ranks 1 -- 268435456   (bytes)

if mgpu.rank ~= 0 then return end          -- one rank measures; others have nothing to do
local bytes = math.tointeger(tonumber(mgpu.args[1] or "")) or (64 << 20)
local n = bytes // 4
local dev = mgpu.device
if mgpu.device_count < 2 then
  mgpu.log(string.format("this machine has one GPU: a peer copy needs two (GPU %d has no peer). %s", dev,
                         mgpu.simulated and "Pick a machine with more GPUs (--machine dgx-h100)"
                         or "Run it on the sim backend (--backend sim), or use lab 3's one-GPU path (D2D, pinned vs pageable)"))
  return {gpus = mgpu.device_count, skipped = true}
end
local peer = (dev + 1) % mgpu.device_count
local reps = 5

local src = mgpu.tensor{count = n, device = dev}:fill{kind = "random", seed = 1}
local dst = mgpu.tensor{count = n, device = peer}
local s = mgpu.stream()
local filled = mgpu.event()            -- the fill ran on the default stream;
filled:record()                        -- the copies run on s, which must wait for it
s:wait(filled)
local start, stop = mgpu.event(), mgpu.event()

-- GB/s of `reps` copies src -> dst with the given engine
local function measure(engine)
  mgpu.copy(dst, src, {stream = s, engine = engine})   -- warm-up
  start:record(s)
  for _ = 1, reps do mgpu.copy(dst, src, {stream = s, engine = engine}) end
  stop:record(s)
  stop:synchronize()
  assert(dst:compare(src) == 0, "the copy GPU " .. dev .. " -> GPU " .. peer .. " lost data")
  return bytes * reps / (start:elapsed(stop) * 1e-3) / 1e9
end

local can, was = mgpu.peer_access(peer)
mgpu.log(string.format("GPU %d -> GPU %d, %d MiB: cudaDeviceCanAccessPeer = %s", dev, peer, bytes >> 20, tostring(can)))

mgpu.peer_access(peer, false)
local off = measure("ce")
local sm_ok, sm_err = pcall(measure, "sm")
mgpu.log(string.format("peer access off: copy engine %.1f GB/s (staged through host memory)", off))
mgpu.log("peer access off: an SM copy kernel " .. (sm_ok and "ran (unexpected)" or "is refused: " .. sm_err))

local on, sm = nil, nil
if can then
  mgpu.peer_access(peer, true)
  on, sm = measure("ce"), measure("sm")
  mgpu.log(string.format("peer access on:  copy engine %.1f GB/s, SM copy %.1f GB/s (direct): %.1fx faster than off",
                         on, sm, on / off))
  mgpu.peer_access(peer, was)              -- leave it as we found it
else
  mgpu.log("peer access cannot be enabled between these GPUs (no P2P path, or P2P disabled): copies stay staged")
end
return {gpus = mgpu.device_count, from = dev, to = peer, bytes = bytes, can_access = can,
        off_gbs = off, on_gbs = on, sm_on_gbs = sm, sm_refused_when_off = not sm_ok,
        speedup = on and on / off or nil}
