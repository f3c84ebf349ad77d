#!/usr/bin/env bash
# nn_strict.sh - mgpu.nn was silently wrong (issue 34, low): an unknown
# option key was ignored ({tA = true} meant the default and gave 256
# mismatches), gemm with its output aliasing an input computed garbage,
# and integers were narrowed without a range check (stride or pad of
# 2^32 + 1 read as 1, adamw{step = 2^40} as 0, device = 2^32 as device 0,
# a peer of 2^32 + 1 as rank 1). Each must now be refused with a message
# that names the option or argument. The second hostile pass: a float
# option of nan or inf (eps = 0/0, alpha = 1/0) was taken and made every
# value NaN; every scalar option enters an op's arithmetic, so non-finite
# ones are refused, naming the option.
. "$(dirname "$0")/hostile_lib.bash"
cd "$tmp"

# Every op of mgpu.nn with the position of its options table: an unknown key
# there is refused before any tensor is looked at. The list must cover the
# whole table, so a new op cannot slip past the rule.
cat >options.lua <<'LUA'
local at = {gemm = 4, bias_add = 4, bias_grad = 3, act = 4, act_backward = 5, swiglu = 4,
  swiglu_backward = 6, add = 4, cross_entropy = 5, sgd = 4, adamw = 5, sumsq = 3,
  clip_scale = 3, conv2d = 4, conv2d_backward = 6, batchnorm = 9, batchnorm_backward = 9,
  avgpool = 3, avgpool_backward = 3, rmsnorm = 5, layernorm = 7, rmsnorm_backward = 7,
  layernorm_backward = 9, embedding = 4, embedding_backward = 4, softmax = 3,
  softmax_backward = 4, swap12 = 3}
local refused, total = 0, 0
for name, fn in pairs(mgpu.nn) do
  total = total + 1
  local pos = at[name]
  if not pos then print("untested op " .. name) else
    local args = {}
    if name == "act" or name == "act_backward" then args[1] = "relu" end
    args[pos] = {bogus_key = 1}
    local ok, err = pcall(fn, table.unpack(args, 1, pos))
    if not ok and tostring(err):find("unknown option 'bogus_key'", 1, true) then refused = refused + 1
    else print("not refused: " .. name .. " -> " .. tostring(err)) end
  end
end
print("options refused", refused, "of", total)
-- the misspelling of the probe: ta spelt tA
local a = mgpu.tensor{shape = {16, 16}}:fill{seed = 1}
local b = mgpu.tensor{shape = {16, 16}}:fill{seed = 2}
local c = mgpu.tensor{shape = {16, 16}}
local ok, err = pcall(mgpu.nn.gemm, a, b, c, {tA = true})
print("tA", ok, err)
-- the known keys still work
mgpu.nn.gemm(a, b, c, {ta = true, tb = false, alpha = 1, beta = 0, stream = mgpu.stream()})
mgpu.synchronize()
print("known keys ok")
LUA
hrun out spmd options.lua --backend sim --ranks 1
[ $rc -eq 0 ] && has out "options refused	28	of	28" && ok || { bad "unknown nn option keys: exit $rc"; cat out; }
has out "tA	false	.*unknown option 'tA'.*ta" && ok || { bad "gemm{tA = true} was not refused"; cat out; }
has out "known keys ok" && ok || { bad "gemm with its known keys failed"; cat out; }

# gemm writing into one of its inputs (or a view of one) is refused, as
# swap12 refuses y == x; the elementwise ops stay in place.
cat >alias.lua <<'LUA'
local a = mgpu.tensor{shape = {16, 16}}:fill{seed = 1}
local b = mgpu.tensor{shape = {16, 16}}:fill{seed = 2}
for _, case in ipairs{{"c=a", a, b, a}, {"c=b", a, b, b}, {"c=view of a", a, b, a:reshape{16, 16}}} do
  local ok, err = pcall(mgpu.nn.gemm, case[2], case[3], case[4])
  print(case[1], ok, err)
end
local big = mgpu.tensor(512):fill{seed = 3}
local x, y = big:flat(0, 256):reshape{16, 16}, big:flat(128, 256):reshape{16, 16}
local ok, err = pcall(mgpu.nn.gemm, x, b, y)
print("overlap", ok, err)
local z = big:flat(256, 256):reshape{16, 16}
print("apart", pcall(mgpu.nn.gemm, x, b, z))
mgpu.nn.add(a, b, a) -- in place is fine for elementwise ops
print("add in place ok")
LUA
hrun out spmd alias.lua --backend sim --ranks 1
for c in "c=a" "c=b" "c=view of a" "overlap"; do
  has out "$c	false	.*gemm: c .*(overlaps|is) " && ok || { bad "gemm with $c was not refused"; cat out; }
done
has out "apart	true" && ok || { bad "gemm into a disjoint part of a shared buffer was refused"; cat out; }
has out "add in place ok" && ok || { bad "nn.add in place was refused"; cat out; }

# integers out of range are refused, not wrapped
cat >ranges.lua <<'LUA'
local big = 2^32 + 1 -- a float with an exact integer value
local function try(what, f, ...) local ok, err = pcall(f, ...); print(what, ok, err) end
local x = mgpu.tensor{shape = {1, 1, 4, 4}}:fill{seed = 1}
local w = mgpu.tensor{shape = {1, 1, 1, 1}}:fill{seed = 2}
local y = mgpu.tensor{shape = {1, 1, 4, 4}}
try("stride", mgpu.nn.conv2d, x, w, y, {stride = math.tointeger(big)})
try("pad", mgpu.nn.conv2d, x, w, y, {pad = math.tointeger(big)})
local p, g = mgpu.tensor(8):fill(1), mgpu.tensor(8):fill(1)
local m, v = mgpu.tensor(8):fill(0), mgpu.tensor(8):fill(0)
try("step", mgpu.nn.adamw, p, g, m, v, {step = 1 << 40})
try("device", mgpu.tensor, {count = 8, device = 1 << 32})
try("device arg", mgpu.tensor, 8, "f32", "device", 1 << 32)
try("stream device", mgpu.stream, {device = 1 << 32})
try("synchronize", mgpu.synchronize, 1 << 32)
try("send", function() mgpu.comm():send(p, (1 << 32) + 1) end)
try("split", function() mgpu.comm():split(1 << 32, 0) end)
LUA
hrun out spmd ranges.lua --backend sim --ranks 2
for w in stride pad step device "device arg" "stream device" synchronize send split; do
  [ "$(grep -cE "^\[rank [01]\] $w	false	.*out of range" out)" = 2 ] && ok ||
    { bad "$w = 2^32 or more was not refused as out of range"; grep "\] $w	" out; }
done
# float options: nan, inf and a number past a float's range are refused by
# every op that takes them, naming the op and the option
cat >finite.lua <<'LUA'
local at = {gemm = {4, "alpha", "beta"}, bias_grad = {3, "beta"}, add = {4, "alpha", "beta"},
  sgd = {4, "lr", "momentum", "weight_decay"}, adamw = {5, "lr", "beta1", "beta2", "eps", "weight_decay"},
  clip_scale = {3, "max_norm"}, batchnorm = {9, "momentum", "eps"}, rmsnorm = {5, "eps"},
  layernorm = {7, "eps"}, softmax = {3, "scale"}, softmax_backward = {4, "scale"}}
local refused, total = 0, 0
for name, spec in pairs(at) do
  for i = 2, #spec do
    for _, bad in ipairs{0 / 0, 1 / 0, -1 / 0, 1e39} do
      total = total + 1
      local args = {}
      args[spec[1]] = {[spec[i]] = bad}
      local ok, err = pcall(mgpu.nn[name], table.unpack(args, 1, spec[1]))
      local want = "mgpu.nn." .. name .. ": option '" .. spec[i] .. "' must be a finite number"
      if not ok and tostring(err):find(want, 1, true) then refused = refused + 1
      else print("not refused: " .. name .. "{" .. spec[i] .. " = " .. tostring(bad) .. "} -> " .. tostring(err)) end
    end
  end
end
print("non-finite refused", refused, "of", total)
print(pcall(mgpu.nn.adamw, nil, nil, nil, nil, {eps = "x"}))
LUA
hrun out spmd finite.lua --backend sim --ranks 1
has out "non-finite refused	([0-9]+)	of	\\1$" && ! has out "not refused" && ok || { bad "non-finite nn options were taken"; cat out; }
has out "false	.*mgpu.nn.adamw: option 'eps' must be a number, got string" && ok ||
  { bad "adamw{eps = 'x'} does not name the option"; cat out; }
finish
