-- wrong: records GPU0's event on consume, the stream that copies, and makes
--        consume wait for it; with two GPUs the event is refused (an event of
--        GPU0 on GPU1's stream), with one GPU it orders nothing: either way the
--        marker is not after the fills on produce
-- verdict: recorded on consume
local n = 1 << 24                                   -- 64 MiB of floats
local dev = mgpu.device
local other = mgpu.device_count > 1 and (dev + 1) % mgpu.device_count or dev

local produce = mgpu.stream()                       -- GPU0's stream
local consume = mgpu.stream{device = other}         -- GPU1's stream
local x <close> = mgpu.tensor{count = n, device = dev, name = "x"}     -- out0, on GPU0
local y <close> = mgpu.tensor{count = n, device = other, name = "y"}   -- its copy, on GPU1
x:fill{kind = "const", value = 0, stream = produce}
y:fill{kind = "const", value = 0, stream = consume}
produce:synchronize(); consume:synchronize()

-- (the lab's probes: when GPU0 finished, when GPU1 started - leave them)
local probe_done = mgpu.event{timing = true, device = dev}
local probe_start = mgpu.event{timing = true, device = other}

-- GPU0: out0 = layer0(x) - eight passes of work on the produce stream
for pass = 1, 8 do x:fill{kind = "random", seed = pass, stream = produce} end
probe_done:record(produce)

local e0 = mgpu.event()
e0:record(consume)               -- the marker GPU1 waits for
consume:wait(e0)

probe_start:record(consume)
mgpu.copy(y, x, {stream = consume})                 -- out0.to(1), on GPU1's stream
local seen = y:checksum(consume)                    -- what GPU1's next kernel would read

-- (the truth, after everything finished)
produce:synchronize(); consume:synchronize()
local truth = x:checksum(produce)
local ok, gap = pcall(function() return probe_done:elapsed(probe_start) end)
mgpu.result{seen = seen, truth = truth, gap_ms = ok and gap or nil,
            gap_error = (not ok) and tostring(gap) or nil, from = dev, to = other}
