-- stale.lua - pitfall 2 (lab 9): GPU0 produces on its stream, GPU1 copies
-- the result on its own stream. mgpu.args[1]: "bug" (no event) or "fix"
-- (record on GPU0's stream, wait on GPU1's). The probes measure whether the
-- copy started after the producer ended.
local mode = mgpu.args[1] or "bug"
local n = 1 << 24
local dev = mgpu.device
local other = mgpu.device_count > 1 and (dev + 1) % mgpu.device_count or dev
local produce, consume = mgpu.stream(), mgpu.stream{device = other}
local x <close> = mgpu.tensor{count = n, device = dev}
local y <close> = mgpu.tensor{count = n, device = other}
x:fill{kind = "const", value = 0, stream = produce}
y:fill{kind = "const", value = 0, stream = consume}
produce:synchronize(); consume:synchronize()
local done = mgpu.event{timing = true, device = dev}
local start = mgpu.event{timing = true, device = other}
for pass = 1, 8 do x:fill{kind = "random", seed = pass, stream = produce} end
done:record(produce)
if mode == "fix" then
  local e0 = mgpu.event()
  e0:record(produce)
  consume:wait(e0)
end
start:record(consume)
mgpu.copy(y, x, {stream = consume})
local seen = y:checksum(consume)
produce:synchronize(); consume:synchronize()
mgpu.result{seen = seen, truth = x:checksum(produce), gap_ms = done:elapsed(start), from = dev, to = other}
