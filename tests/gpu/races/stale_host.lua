-- stale_host.lua - a fill on a side stream read by the host without a wait
-- (the note's stale data), then the fixed read. Races: 1 (stale data).
local x = mgpu.tensor{count = 1 << 22, name = "x"}
local s = mgpu.stream()
x:fill{kind = "random", seed = 1, stream = s}
local v = x:get(5)                          -- no wait: stale
s:synchronize()
local w = x:get(5)                          -- ordered by the host's wait
mgpu.result{first = v, after_sync = w}
