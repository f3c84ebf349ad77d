#!/bin/bash
# shell_solution.sh - S shows the step's reference solution, after asking
# (issue 26): n leaves nothing shown and nothing recorded; y shows the
# solution file and progress.json records "solution_shown" on that step; a
# step without an exercise has no solution (said on the status line); the
# help lists the key.
source "$(dirname "$0")/tmux_lib.bash" "$1"
use_test_labs
PROG="$XDG_STATE_HOME/mgpulab/progress.json"
shown() { jq -r '.labs["00-shelltest"].steps.exercise.solution_shown // false' "$PROG" 2>/dev/null || echo false; }

start_shell 100 30 --backend sim --machine dgx-h100
wait_for 'Shell test lab' 20
keys Enter
wait_for 'Steps: 00-shelltest' 5
keys S
wait_for 'has no exercise, so no solution to show' 5
ok "a step without an exercise: no solution, said on the status line"

keys j j j
wait_for 'answer.lua' 5
keys S
wait_for 'Confirm \(y/n\)' 5
wait_for 'Show the reference solution' 5
keys n
wait_gone 'Confirm \(y/n\)' 5
screen | grep -q 'Solution: answer.lua' && fail "n showed the solution"
[ "$(shown)" = false ] || fail "n recorded the solution as shown"
ok "S asks first; n shows and records nothing"

keys S
wait_for 'Confirm \(y/n\)' 5
keys y
wait_for 'Solution: answer.lua' 5
screen | sed -n '/Solution: answer.lua/,/└/p' | grep -q '^.*│ *return 42 *│' || fail "the solution file is not in the box"
[ "$(shown)" = true ] || fail "progress.json does not record solution_shown: $(cat "$PROG" 2>/dev/null)"
ok "y shows the solution file and records solution_shown"
keys Escape
wait_gone 'Solution: answer.lua' 5

keys '?'
wait_for 'Help: keys' 5
for i in 1 2 3 4 5 6; do screen | grep -q 'S  .*solution' && break; keys j j j j j; sleep 0.3; done
screen | grep -qE 'S +the reference solution' || fail "the help does not list S"
ok "the help lists S"
keys q
keys q
wait_exit "$SHELL_PID" 10
