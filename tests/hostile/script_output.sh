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
finish
