#!/bin/bash
# shell_timeline_runs.sh - a step that runs a script twice (lab 4 step 2: 4
# ranks, then 1 rank as the reference) shows each run in the timeline under
# its own heading, rank 0 of each on a lane of its own (issue 26: the two
# runs were mixed on the same lanes without saying so).
source "$(dirname "$0")/tmux_lib.bash" "$1"
use_test_labs
start_shell 100 30 --backend sim --machine dgx-h100
wait_for 'Shell test lab' 20
keys Enter
wait_for 'Steps: 00-shelltest' 5
keys j j j j j j
wait_for 'Fill on two ranks' 5
keys r
wait_for 'PASS +\(' 60
keys 4 z
wait_for '> 4 Timeline' 5
wait_for 'run 1: spans.lua, 2 ranks' 10
wait_for 'run 2: spans.lua, 1 rank' 5
screen | sed -n '/run 1: spans.lua/,$p' | grep -c 'r0 ' | grep -qx 2 ||
    fail "rank 0 of each run is not on a lane of its own"
screen | awk '/run 1: spans.lua/{a=NR} /run 2: spans.lua/{b=NR} /r1 /{r=NR} END{exit !(a && b && r && a < r && r < b)}' ||
    fail "rank 1's lane is not under run 1"
ok "two runs of one step: each under its own heading"
keys q
wait_exit "$SHELL_PID" 10
