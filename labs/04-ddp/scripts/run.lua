-- run.lua - lab 4's single-rank and naive runs of the harness
-- (labs/lib/ddp/train.lua). mgpu.args: mode, then the harness's arguments.
local train = mgpu.import("ddp.train")
local mode = mgpu.args[1]
local rest = {}
for i = 2, #mgpu.args do rest[#rest + 1] = mgpu.args[i] end
train.run{mode = mode, args = rest}
