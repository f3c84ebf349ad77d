-- events.lua - the lecture note's stream/event pattern, one rank per GPU:
--
--   with torch.cuda.device(0):          -- here: the "produce" stream
--       out0 = layer0(x); e0.record()
--   with torch.cuda.device(1):          -- here: the communicator's stream
--       e0.wait(); out1 = layer1(out0.to(1))
--
-- Work is queued on one stream, an event marks the point where its result
-- is ready, and a second stream waits for that event before it uses the
-- data. Without the wait the second stream could read stale data.
--
--   mgpulab spmd examples/spmd/events.lua --backend sim --ranks 2

local n = 4096
local comm = mgpu.comm()
local produce = mgpu.stream()          -- our own stream for "layer0"
local consume = comm:stream()          -- the communicator's own stream

local start, ready, done = mgpu.event{timing = true}, mgpu.event{timing = true}, mgpu.event{timing = true}
local x <close> = mgpu.tensor(n)

start:record(produce)
x:fill{kind = "random", seed = mgpu.rank, stream = produce}   -- out0 = layer0(x)
ready:record(produce)                                         -- e0.record()
consume:wait(ready)                                           -- e0.wait() (or ready:wait(consume))
comm:all_reduce(x, x, "sum", consume)                         -- layer1 uses out0
done:record(consume)
done:synchronize()                                            -- the host waits for the end

-- Check: the sum of every rank's fill, rebuilt here.
local ref = {}
for r = 0, mgpu.world - 1 do
  local t <close> = mgpu.tensor(n):fill{kind = "random", seed = r}
  for i, v in ipairs(t:to_table()) do ref[i] = (ref[i] or 0) + v end
end
local got, wrong = x:to_table(), 0
for i = 1, n do if got[i] ~= ref[i] then wrong = wrong + 1 end end
assert(wrong == 0, "the consumer saw " .. wrong .. " stale or wrong values")

-- The note's GPU0 -> GPU1 step: a stream on the next GPU waits for `done`,
-- then copies the result over (peer copy).
local peer = (mgpu.device + 1) % mgpu.device_count
local there = mgpu.stream{device = peer}
there:wait(done)
local y <close> = mgpu.tensor{count = n, device = peer}
mgpu.copy(y, x, {stream = there})
there:synchronize()
assert(y:compare(x) == 0, "the copy on GPU " .. peer .. " differs")

mgpu.log(string.format("produce %.3f ms, all_reduce after the event %.3f ms; copied to GPU %d",
                       start:elapsed(ready), ready:elapsed(done), peer))
return {produce_ms = start:elapsed(ready), all_reduce_ms = ready:elapsed(done), peer = peer, wrong = wrong}
