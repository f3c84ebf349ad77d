#!/usr/bin/env bash
# tensor_values.sh - what a script writes into a tensor (issue 34, second
# hostile pass): t:set(0, 1e39) on an f32 and fill(1e10) on an f16 stored
# inf without a word while an i32 refused a value it cannot hold. A finite
# value a dtype cannot hold is refused the same way for every dtype; inf and
# nan given as such are still stored. And t:fill{value = "x"} said "bad
# argument #-2 to 'fill'" (a stack slot): the option is named now, with
# what it wanted.
. "$(dirname "$0")/hostile_lib.bash"
cd "$tmp"
cat >fits.lua <<'LUA'
local function try(what, f) local ok, err = pcall(f); print(what, ok, err) end
local f32 = mgpu.tensor(4)
local f16 = mgpu.tensor{count = 2048, dtype = "f16"}
local bf16 = mgpu.tensor{count = 4, dtype = "bf16"}
local i32 = mgpu.tensor{count = 4, dtype = "i32"}
try("set f32 1e39", function() f32:set(0, 1e39) end)
try("set f32 -1e39", function() f32:set(1, -1e39) end)
try("fill f32 1e39", function() f32:fill(1e39) end)
try("fill f16 1e10", function() f16:fill(1e10) end)
try("fill f16 const", function() f16:fill{kind = "const", value = 1e5} end)
try("fill f16 index", function() f16:fill{kind = "index", value = 65000} end)
try("set f16 70000", function() f16:set(0, 70000) end)
try("fill bf16 1e39", function() bf16:fill(1e39) end)
try("fill i32 1e10", function() i32:fill(1e10) end)
-- what fits, and inf / nan asked for, are stored
f32:set(0, 1 / 0); f32:set(1, 0 / 0); f32:set(2, 3e38)
print("f32 kept", f32:get(0), f32:get(1) ~= f32:get(1), f32:get(2) > 1e38)
f16:fill(-1 / 0); print("f16 -inf kept", f16:get(0))
f16:fill(60000); print("f16 60000 kept", f16:get(0))
bf16:fill(1e38); print("bf16 1e38 kept", bf16:get(0) > 9e37)
i32:fill(-2147483648); print("i32 min kept", i32:get(0))
LUA
hrun out spmd fits.lua --backend sim --ranks 1
for c in "set f32 1e39" "set f32 -1e39" "fill f32 1e39" "fill f16 1e10" "fill f16 const" "fill f16 index" \
         "set f16 70000" "fill bf16 1e39" "fill i32 1e10"; do
  has out "\] $c	false	.*does not fit an? (f32|f16|bf16|i32) \(its largest magnitude is [0-9.e+]+\)" && ok ||
    { bad "$c was not refused as a value the dtype cannot hold"; grep "\] $c	" out; }
done
has out "fill f16 index	false	.*index fill's last value, value \+ 1023 = 66023" && ok ||
  { bad "the index fill's refusal does not say which value"; grep "f16 index" out; }
has out "f32 kept	inf	true	true" && ok || { bad "inf/nan/3e38 in an f32 were not stored"; grep "f32 kept" out; }
has out "f16 -inf kept	-inf" && ok || { bad "fill(-inf) on an f16 was not stored"; grep "f16 -inf" out; }
has out "f16 60000 kept	60000" && ok || { bad "fill(60000) on an f16 was refused"; grep "f16 60000" out; }
has out "bf16 1e38 kept	true" && ok || { bad "fill(1e38) on a bf16 was refused"; grep "bf16 1e38" out; }
has out "i32 min kept	-2147483648" && ok || { bad "fill(INT32_MIN) on an i32 was refused"; grep "i32 min" out; }
[ $rc -eq 0 ] && ok || { bad "the run failed: exit $rc"; tail -5 out; }

cat >options.lua <<'LUA'
local function try(what, f) local ok, err = pcall(f); print(what, ok, err) end
local t = mgpu.tensor(4)
try("value", function() t:fill{value = "x"} end)
try("seed", function() t:fill{seed = "x"} end)
try("kind", function() t:fill{kind = 3} end)
LUA
hrun out spmd options.lua --backend sim --ranks 1
has out "value	false	.*tensor:fill: option 'value' must be a number, got string" && ok ||
  { bad "fill{value = 'x'} does not name the option"; grep "value	" out; }
has out "seed	false	.*tensor:fill: option 'seed' must be an integer, got string" && ok ||
  { bad "fill{seed = 'x'} does not name the option"; grep "seed	" out; }
has out "kind	false	.*tensor:fill: option 'kind' must be a string \\(random, const or index\\), got number" && ok ||
  { bad "fill{kind = 3} does not name the option"; grep "kind	" out; }
! has out "bad argument #-" && ok || { bad "an option's error names a stack slot"; grep "bad argument" out; }
finish
