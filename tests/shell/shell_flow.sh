#!/bin/bash
# shell_flow.sh - after a pass the shell offers the next step and n goes
# there (issue 10, item 13); a passed step stays passed when a re-run is
# cancelled, with the latest attempt beside it, also after a restart (item
# 9); x while a step runs is refused up front, so a reset can never be
# undone by the running step's record (item 10).
source "$(dirname "$0")/tmux_lib.bash" "$1"
use_test_labs
start_shell 120 40 --backend sim --machine dgx-h100
wait_for 'Shell test lab' 20
keys Enter
wait_for 'Steps: 00-shelltest' 5
wait_for '\( \) 1 Read this' 5
wait_for 'Shell test lab +0/8' 5
keys r
wait_for '\(\*\) 1 Read this' 20
wait_for 'READ +\(' 5
wait_for 'Shell test lab +0/8' 5
ok "a reading step is read, not passed (item 14)"
keys j j
wait_for 'A quick all-reduce' 5
keys r
wait_for 'n: next step, 4 Edit the exercise' 60
keys n
wait_for '─ Edit the exercise ' 5
wait_for 'step 4: Edit the exercise - read it, then r runs it' 5
ok "a pass offers the next step; n goes there"

keys j j j j j
wait_for '─ Pass, then run long ' 5
keys r
wait_for 'PASS +\(' 60
wait_for '\[x\] 9 Pass, then run long' 5
keys r
wait_for 'running Pass, then run long' 20
keys x
wait_for 'A step is running: its record would be written over the reset' 5
screen | grep -q 'Reset lab' && fail "x offered a reset while the step runs"
keys Escape
wait_gone 'its record would be written' 5
ok "x while a step runs is refused, with what to do"
sleep 1 # the workers started: cancel mid-benchmark
keys c
wait_for 'CANCELLED' 60
wait_for 'the step stays passed' 5
wait_for '\[x\] 9 Pass, then run long' 5
jq -e '.labs["00-shelltest"].steps.twice | .state == "passed" and .last_attempt == "cancelled"' \
    "$XDG_STATE_HOME/mgpulab/progress.json" >/dev/null || fail "progress.json lost the pass: $(jq -c '.labs["00-shelltest"].steps.twice' "$XDG_STATE_HOME/mgpulab/progress.json")"
ok "a cancelled re-run keeps the pass"
keys q
wait_exit "$SHELL_PID" 20

start_shell 120 40 --backend sim --machine dgx-h100
wait_for 'Shell test lab' 20
keys Enter
wait_for 'Steps: 00-shelltest' 5
wait_for '\[x\] 9 Pass, then run long' 5
keys End
for _ in 1 2 3 4 5 6 7 8 9; do keys j; done
wait_for 'latest attempt: cancelled' 5
ok "after a restart: passed, latest attempt cancelled"
keys q
wait_exit "$SHELL_PID" 10
