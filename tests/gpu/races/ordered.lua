-- ordered.lua - the note's event example, every access ordered: no race.
local comm = mgpu.comm()
local produce, consume = mgpu.stream(), comm:stream()
local x = mgpu.tensor{count = 1 << 20, name = "x"}
x:fill{seed = mgpu.rank, stream = produce}
local ready = mgpu.event(); ready:record(produce); consume:wait(ready)
comm:all_reduce(x, "sum", consume)
local done = mgpu.event(); done:record(consume); mgpu.default_stream():wait(done)
mgpu.result{checksum = x:checksum()}
