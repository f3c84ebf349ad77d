#!/bin/bash
# shell_code.sh - a code line wider than the step text (issue 10 walk): it
# was wrapped hard at the edge with nothing to say so ("-- 1024" / "floats
# on this rank's GPU" read as two lines). It wraps after a space, and every
# row it continues on starts with a mark in the code's gutter: "> " (the
# shell's continuation prompt) in ASCII, "↪" on a UTF-8 terminal (the
# test takes either: the locale is the machine's).
source "$(dirname "$0")/tmux_lib.bash" "$1"
use_real_labs || { echo "ok - # SKIP the repository's labs are not here"; exit 0; }

start_shell 80 24 --backend sim --machine dgx-h100
wait_for 'Welcome' 20
keys Enter
wait_for '> Steps: 00-welcome' 5
keys j j
wait_for '─ Hands-on: every rank says who it is ' 5
keys Right
wait_for '─ > Hands-on: every rank says who it is ' 5
for _ in 1 2 3 4 5 6 7 8; do keys j; done
wait_for '│   local x = mgpu\.tensor\(1024\) +-- +│' 5
screen | grep -A1 'local x = mgpu.tensor(1024)' | tail -1 | grep -qE '│ (>|↪) 1024 floats on this rank.s GPU *│' ||
    fail "the code line's continuation row is not marked: $(screen | grep -A1 'local x = mgpu.tensor' | tail -1)"
wait_for '│ (>|↪) deterministic data +│' 5
wait_for '│   print\(mgpu\.rank, mgpu\.world, x:checksum\(\)\) +│' 5
ok "a wrapped code line: its continuation marked '> ', broken after a space"
keys q
wait_exit "$SHELL_PID" 10
