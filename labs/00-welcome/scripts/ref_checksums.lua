-- ref_checksums.lua - the reference for lab 0's hello step: the checksum of
-- a tensor of COUNT floats filled with kind "random" and seed r, for every
-- rank r of a WORLD-rank run, and of COUNT zeros. Run by the lab, not by the
-- learner.
--   args: COUNT WORLD
local count = math.tointeger(tonumber(mgpu.args[1] or "")) or 1024
local world = math.tointeger(tonumber(mgpu.args[2] or "")) or 2
local sums = {}
for r = 0, world - 1 do
  local t <close> = mgpu.tensor(count):fill{kind = "random", seed = r}
  sums[r + 1] = t:checksum()
end
-- and the checksum of zeros: hello.lua as handed out fills a constant 0
local z <close> = mgpu.tensor(count):fill{kind = "const", value = 0}
mgpu.result{count = count, world = world, checksums = sums, zeros = z:checksum()}
