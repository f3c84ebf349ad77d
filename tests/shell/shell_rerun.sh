#!/bin/bash
# shell_rerun.sh - an exercise saved while another step runs is not lost:
# its check runs when the running step ends (the main loop starts it once
# the work has ended), here after the long step is cancelled.
source "$(dirname "$0")/tmux_lib.bash" "$1"
use_test_labs
WORK="$XDG_STATE_HOME/mgpulab/work/00-shelltest"

start_shell 120 40 --backend sim --machine dgx-h100
wait_for '\[ \] +0 Shell test lab' 20
keys Enter
wait_for 'Steps: 00-shelltest' 5
# step 4's exercise: its first run copies it into the workspace, and fails
keys j j j
wait_for 'answer.lua' 5
keys r
wait_for 'FAIL +\(' 20
wait_for '\[!\] 4 Edit the exercise' 5
ok "the unsolved exercise fails"

# step 5 runs long; the exercise is solved and saved meanwhile
keys j
wait_for 'A long benchmark' 5
keys r
wait_for 'running A long benchmark' 10
sed -i 's/return 0/return 42/' "$WORK/answer.lua"
# the status line shows the run's progress, not the "saved: the check runs
# again when this step ends" under it: give the watch time to see the save
sleep 3
screen | grep -Eq 'running A long benchmark' || fail "the long step ended by itself"
screen | grep -Eq '\[x\] 4 Edit the exercise' && fail "the check ran while another step was running"
ok "a save during a run waits for it"

keys c
wait_for '\[-\] 5 A long benchmark' 60
# the waiting check runs by itself once the long step has ended
wait_for '\[x\] 4 Edit the exercise' 30
kill -0 "$SHELL_PID" || fail "the shell died"
ok "the saved exercise's check ran when the long step ended, and passed"

keys q
wait_exit "$SHELL_PID" 10
ok "q quits"
