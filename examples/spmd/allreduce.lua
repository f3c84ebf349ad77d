-- allreduce.lua - every rank contributes its own data, all_reduce sums it,
-- and every rank checks the sum against what it can work out by itself.
--
--   mgpulab spmd examples/spmd/allreduce.lua --backend sim --ranks 4 [-- COUNT]

local n = math.tointeger(tonumber(mgpu.args[1] or "")) or (1 << 20)
local comm = mgpu.comm()

-- 1. Constants: rank r contributes r + 1, so every element of the sum is
--    1 + 2 + ... + world = world * (world + 1) / 2.
local x <close> = mgpu.tensor(n)
x:fill{kind = "const", value = mgpu.rank + 1}
comm:all_reduce(x, x, "sum")            -- recv = send: in place
local want = mgpu.world * (mgpu.world + 1) // 2
local expect <close> = mgpu.tensor(n):fill{kind = "const", value = want}
local bad = x:compare(expect)
mgpu.log(string.format("all_reduce(sum) of %d floats: element 0 = %g, expected %g, %d wrong",
                       n, x:get(0), want, bad))

-- 2. Random data, out of place: rank r fills with seed r. The fill is
--    deterministic, so any rank can rebuild every rank's input and add the
--    first elements up itself (the values are multiples of 1/1024 in
--    [-1, 1), so the float sums are exact in any order).
local k = math.min(n, 4096)
local send <close> = mgpu.tensor(k):fill{kind = "random", seed = mgpu.rank}
local recv <close> = mgpu.tensor(k)
comm:all_reduce(send, recv)             -- op defaults to "sum"
local ref = {}
for r = 0, mgpu.world - 1 do
  local t <close> = mgpu.tensor(k):fill{kind = "random", seed = r}
  for i, v in ipairs(t:to_table()) do ref[i] = (ref[i] or 0) + v end
end
local got, wrong = recv:to_table(), 0
for i = 1, k do if got[i] ~= ref[i] then wrong = wrong + 1 end end

if bad > 0 or wrong > 0 then
  error(string.format("rank %d: all_reduce gave wrong values (%d of %d constant, %d of %d random)",
                      mgpu.rank, bad, n, wrong, k))
end
return {collective = "all_reduce", count = n, value = x:get(0), expected = want,
        mismatches = bad, random_checked = k, random_wrong = wrong}
