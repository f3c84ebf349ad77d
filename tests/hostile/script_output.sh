#!/usr/bin/env bash
# script_output.sh - what a script prints reaches the learner safely (issue
# 16 item 8): a NUL byte in print killed the whole run ("malformed
# message"), a NUL in mgpu.result too, escape sequences reached the terminal
# raw, and a 20 MB line vanished without a word.
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
finish
