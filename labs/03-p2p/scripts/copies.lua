-- copies.lua - lab 3's copy measurements, one rank, timed with events.
--   two GPUs: GPU d -> GPU d+1 with peer access off and on, copy engine (CE)
--             and SM copy kernel, then both directions at once;
--   one GPU:  device-local copy, pinned vs pageable H2D and D2H, and H2D +
--             D2H at once.
-- args: BYTES (default 64 MiB)
if mgpu.rank ~= 0 then return end
local bytes = math.tointeger(tonumber(mgpu.args[1] or "")) or (64 << 20)
local n = bytes // 4
local reps = 4
local dev = mgpu.device

-- GB/s of `reps` rounds of copy(dst, src) on stream s (plus a warm-up);
-- every copy is verified.
local function measure(dst, src, s, engine)
  local start, stop = mgpu.event{timing = true}, mgpu.event{timing = true}
  mgpu.copy(dst, src, {stream = s, engine = engine})
  start:record(s)
  for _ = 1, reps do mgpu.copy(dst, src, {stream = s, engine = engine}) end
  stop:record(s)
  stop:synchronize()
  local bad = dst:compare(src)
  assert(bad == 0, "a copy lost data: " .. bad .. " elements differ")
  return bytes * reps / (start:elapsed(stop) * 1e-3) / 1e9
end

-- Two copies at once: a on stream sa, b on stream sb; the total GB/s of
-- both, timed on sa's device (sb joins sa's start and sa waits for sb's end).
local function both(a_dst, a_src, sa, b_dst, b_src, sb, b_dev)
  local start, stop = mgpu.event{timing = true}, mgpu.event{timing = true}
  local mid = mgpu.event{timing = true, device = b_dev}   -- events belong to one device
  mgpu.copy(a_dst, a_src, {stream = sa}); mgpu.copy(b_dst, b_src, {stream = sb})
  sa:synchronize(); sb:synchronize()
  start:record(sa)
  sb:wait(start)
  for _ = 1, reps do
    mgpu.copy(a_dst, a_src, {stream = sa})
    mgpu.copy(b_dst, b_src, {stream = sb})
  end
  mid:record(sb)
  sa:wait(mid)
  stop:record(sa)
  stop:synchronize()
  assert(a_dst:compare(a_src) == 0 and b_dst:compare(b_src) == 0, "a concurrent copy lost data")
  return 2 * bytes * reps / (start:elapsed(stop) * 1e-3) / 1e9
end

local s = mgpu.stream()
if mgpu.device_count >= 2 then
  local peer = (dev + 1) % mgpu.device_count
  local sp = mgpu.stream{device = peer}
  local src <close> = mgpu.tensor{count = n, device = dev}:fill{kind = "random", seed = 1}
  local dst <close> = mgpu.tensor{count = n, device = peer}
  local back <close> = mgpu.tensor{count = n, device = peer}
  back:fill{kind = "random", seed = 2, stream = sp}
  local back_dst <close> = mgpu.tensor{count = n, device = dev}
  -- the fills ran on the default stream and on sp; the copies run on other
  -- streams, so the host waits for both before it queues them
  mgpu.synchronize()
  sp:synchronize()
  local can, was = mgpu.peer_access(peer)
  local r = {mode = "peer", from = dev, to = peer, bytes = bytes, can_access = can}
  mgpu.peer_access(peer, false)
  r.off_ce = measure(dst, src, s, "ce")
  local ok, err = pcall(measure, dst, src, s, "sm")
  r.off_sm_refused, r.off_sm_error = not ok, (not ok) and tostring(err) or nil
  if can then
    mgpu.peer_access(peer, true)
    r.on_ce = measure(dst, src, s, "ce")
    r.on_sm = measure(dst, src, s, "sm")
    -- both directions at once: GPU d -> d+1 on d's stream, d+1 -> d on d+1's
    -- (d+1 needs peer access to d for its direction to go direct too)
    r.uni = r.on_ce
    -- both copies are issued by GPU d (one pushes, one pulls): they use d's
    -- peer mapping, which is the direction we enabled
    r.bidir_total = both(dst, src, s, back_dst, back, mgpu.stream(), dev)
    mgpu.peer_access(peer, was)
  end
  mgpu.log(string.format("GPU %d -> GPU %d, %d MiB: peer off CE %.1f GB/s%s", dev, peer, bytes >> 20, r.off_ce,
                         r.on_ce and string.format("; peer on CE %.1f, SM %.1f GB/s; both directions %.1f GB/s",
                                                   r.on_ce, r.on_sm, r.bidir_total) or "; peer access impossible"))
  mgpu.result(r)
else
  local d <close> = mgpu.tensor(n):fill{kind = "random", seed = 1}
  local d2 <close> = mgpu.tensor(n)
  local pinned <close> = mgpu.tensor(n, "f32", "pinned"):fill{kind = "random", seed = 3}
  local pageable <close> = mgpu.tensor(n, "f32", "pageable"):fill{kind = "random", seed = 4}
  local pin_out <close> = mgpu.tensor(n, "f32", "pinned")
  local page_out <close> = mgpu.tensor(n, "f32", "pageable")
  mgpu.synchronize()                  -- the fills ran on the default stream, the copies run on s and s2
  local s2 = mgpu.stream()
  local r = {mode = "single", device = dev, bytes = bytes}
  r.d2d = measure(d2, d, s, "ce")
  r.h2d_pinned = measure(d2, pinned, s, "ce")
  r.h2d_pageable = measure(d2, pageable, s, "ce")
  r.d2h_pinned = measure(pin_out, d, s, "ce")
  r.d2h_pageable = measure(page_out, d, s, "ce")
  r.uni = r.h2d_pinned
  r.bidir_total = both(d2, pinned, s, pin_out, d, s2, dev)
  mgpu.log(string.format("one GPU, %d MiB: D2D %.1f, H2D pinned %.1f / pageable %.1f, D2H pinned %.1f / pageable %.1f, "
                         .. "H2D+D2H at once %.1f GB/s", bytes >> 20, r.d2d, r.h2d_pinned, r.h2d_pageable,
                         r.d2h_pinned, r.d2h_pageable, r.bidir_total))
  mgpu.result(r)
end
