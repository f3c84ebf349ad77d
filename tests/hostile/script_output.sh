#!/usr/bin/env bash
# script_output.sh - what a script prints reaches the learner safely (issue
# 16 item 8): a NUL byte in print killed the whole run ("malformed
# message"), a NUL in mgpu.result too, escape sequences reached the terminal
# raw, and a 20 MB line vanished without a word. Second pass (issue 34): a
# tensor's or stream's name (name=, t:name(), comm:split's) held an ESC
# sequence a race report printed raw; names with control characters are
# refused where they come in.
. "$(dirname "$0")/hostile_lib.bash"
cat >"$tmp/out.lua" <<'LUA'
print("nul[\0]byte")
print("esc[\27]]0;owned\7]")
print(string.rep("x", 20 * 1024 * 1024))
local ok, err = pcall(mgpu.result, { s = "a\0b" })
print(ok and "result with NUL sent" or ("result refused: " .. tostring(err)))
print("still running")
LUA
hrun "$tmp/o" spmd "$tmp/out.lua" --backend sim --ranks 1
[ $rc -eq 0 ] && has "$tmp/o" "nul\[\?\]byte" && has "$tmp/o" "still running" && ok || { bad "a NUL in print: exit $rc"; head -c 2000 "$tmp/o"; }
! grep -q $'\033' "$tmp/o" && ok || bad "an escape byte reached the output raw"
has "$tmp/o" "more bytes cut" && ok || bad "a 20 MB line vanished without a word"
has "$tmp/o" "result refused: .*NUL byte" && ok || bad "a NUL in mgpu.result"

# a flood of lines under --json: the report keeps head and tail, says what it left out
echo 'for i = 1, 30000 do print("line " .. i) end' >"$tmp/flood.lua"
timeout -s KILL 120 "$bin" spmd "$tmp/flood.lua" --backend sim --ranks 2 --json >"$tmp/flood.json" 2>/dev/null
python3 - "$tmp/flood.json" <<'PY' && ok || bad "spmd --json kept every line of a flood"
import json, sys
l = json.load(open(sys.argv[1]))["logs"]
assert len(l) == 10001, len(l)
assert l[5000]["rank"] == -1 and "50000 log lines left out" in l[5000]["text"], l[5000]
assert l[-1]["text"] == "line 30000", l[-1]
PY
# names reports print: ESC, BEL, CR, DEL and a C1 CSI (U+009B) are refused
# by every binding that takes one; plain and UTF-8 names stay
cat >"$tmp/names.lua" <<'LUA'
local function try(what, f) local ok, err = pcall(f); print(what, ok, (tostring(err):gsub("[%c\128-\255]", "?"))) end
local t = mgpu.tensor(4)
for _, bad in ipairs{"a\27[31mb", "bell\7", "cr\r", "del\127", "csi\194\155" .. "31m"} do
  try("tensor name=", function() mgpu.tensor{count = 4, name = bad} end)
  try("t:name", function() t:name(bad) end)
  try("stream name=", function() mgpu.stream{name = bad} end)
  try("split name", function() mgpu.comm():split(0, 0, bad) end)
end
mgpu.tensor{count = 4, name = "grads"}:name("기울기 grads")
mgpu.stream{name = "produce"}
mgpu.comm():split(0, 0, "dp group")
print("plain names ok")
LUA
hrun "$tmp/o" spmd "$tmp/names.lua" --backend sim --ranks 1
for w in "tensor name=" "t:name" "stream name=" "split name"; do
  [ "$(grep -cE "\] $w	false	.*holds a control character" "$tmp/o")" = 5 ] && ok ||
    { bad "$w took a name with a control character"; grep "\] $w	" "$tmp/o"; }
done
has "$tmp/o" "plain names ok" && ok || { bad "a plain or UTF-8 name was refused"; tail -5 "$tmp/o"; }

# a race report names the tensor: its name arrives as given, no control byte
cat >"$tmp/race.lua" <<'LUA'
local t = mgpu.tensor{count = 1024, name = "grads"}
local s = mgpu.stream{name = "produce"}
t:fill{stream = s, value = 1}
print(t:get(0))
LUA
hrun "$tmp/o" spmd "$tmp/race.lua" --backend sim --ranks 1
has "$tmp/o" "RACE: .*grads.*the produce stream|RACE: .*the produce stream.*grads" && ok ||
  { bad "the race report does not name the tensor and stream"; cat "$tmp/o"; }
finish
