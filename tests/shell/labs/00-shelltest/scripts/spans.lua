-- spans.lua - a little GPU work on every rank, for the timeline pane
local x <close> = mgpu.tensor(1 << 20)
for i = 1, 4 do x:fill{kind = "random", seed = i} end
mgpu.result{rank = mgpu.rank}
