-- stale.lua - the note's event example, and the stale-data bug without it
-- (lab 3, step "events"). One rank; GPU0 produces, GPU1 consumes (with one
-- GPU both streams are on GPU0 - the bug is the same).
--
--   with torch.cuda.device(0):
--       out0 = layer0(x)
--       e0 = torch.cuda.Event(); e0.record()     # a marker on GPU0's stream
--   with torch.cuda.device(1):
--       e0.wait()                                # GPU1's stream waits for it
--       out1 = layer1(out0.to(1))
--
-- Here "layer0" is fills on GPU0's `produce` stream and "out0.to(1)" a raw
-- peer copy on GPU1's `consume` stream (PyTorch's .to(1) fences the two
-- devices' current streams itself; a raw copy on another stream is not
-- fenced). Make GPU1 wait for GPU0's result, with an event, as the note does.
-- Only the part marked TODO needs to change.

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

-- TODO: the note's e0.record() / e0.wait():
--   create an event on GPU0 (mgpu.event()), record it on `produce`, and make
--   `consume` wait for it (consume:wait(e) or e:wait(consume)).

probe_start:record(consume)
mgpu.copy(y, x, {stream = consume})                 -- out0.to(1), on GPU1's stream
local seen = y:checksum(consume)                    -- what GPU1's next kernel would read

-- (the truth, after everything finished)
produce:synchronize(); consume:synchronize()
local truth = x:checksum(produce)
local ok, gap = pcall(function() return probe_done:elapsed(probe_start) end)
mgpu.result{seen = seen, truth = truth, gap_ms = ok and gap or nil,
            gap_error = (not ok) and tostring(gap) or nil, from = dev, to = other}
