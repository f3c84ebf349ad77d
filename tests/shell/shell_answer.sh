#!/bin/bash
# shell_answer.sh - an answer is judged against the measurement already on
# screen (issue 10, item 7): entering it checks it at once, without running
# the step's measurement again; r is what measures again.
source "$(dirname "$0")/tmux_lib.bash" "$1"
use_test_labs
start_shell 120 40 --backend sim --machine dgx-h100
wait_for 'Shell test lab' 20
keys Enter
wait_for 'Steps: 00-shelltest' 5
keys j j j j j j j
wait_for 'Answer from a measurement' 5
keys r
wait_for 'FAIL +\(' 20
keys 5
wait_for 'measuring now' 10
[ "$(screen | grep -c 'measuring now')" -eq 1 ] || fail "the run measured more than once"
keys Escape a
wait_for 'Question 1/1' 5
keys 4 0 9 6 Enter
wait_for 'PASS +\(' 20
wait_for 'elements measured: "?4096"? is right' 10
n=$(screen | grep -c 'measuring now')
[ "$n" -eq 1 ] || fail "answering measured again ($n runs)"
ok "the answer was checked against the run on screen, not a new one"
keys r
wait_for 'step ended: passed' 20
end=$((SECONDS + 20))
while [ "$(screen | grep -c 'measuring now')" -lt 2 ] && [ $SECONDS -lt $end ]; do sleep 0.1; done
[ "$(screen | grep -c 'measuring now')" -eq 2 ] || fail "r did not measure again"
ok "r measures again"
keys q
wait_exit "$SHELL_PID" 10
