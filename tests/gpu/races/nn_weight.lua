-- nn_weight.lua - a GEMM reading a weight another stream is still filling
-- (1 race), then with the event (none).
local s = mgpu.stream()
local a = mgpu.tensor{shape = {256, 256}}:fill{seed = 1}
local w = mgpu.tensor{shape = {256, 256}, name = "w"}
local c = mgpu.tensor{shape = {256, 256}}
w:fill{seed = 2, stream = s}
mgpu.nn.gemm(a, w, c)
local e = mgpu.event(); e:record(s); mgpu.default_stream():wait(e)
mgpu.nn.gemm(a, w, c)
mgpu.synchronize()
mgpu.result{checksum = c:checksum()}
