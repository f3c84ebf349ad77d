#!/bin/bash
# shell_cancel.sh - a long step (a million-iteration all-reduce on sim)
# cancelled with c: the shell stays up, the step ends as cancelled, and a
# step can run again afterwards.
source "$(dirname "$0")/tmux_lib.bash" "$1"
use_test_labs

start_shell 120 40 --backend sim --machine dgx-h100
wait_for '\[ \] +0 Shell test lab' 20
keys Enter
wait_for 'Steps: 00-shelltest' 5
# step 5 is the long one
keys j j j j
wait_for 'A long benchmark' 5
keys r
wait_for 'running A long benchmark' 10
wait_for '\[>\] 5 A long benchmark' 5
sleep 1 # let the workers start: cancel must also work mid-benchmark
keys q
wait_for 'A step is running. Cancel it and quit\?' 5
keys n
wait_gone 'Cancel it and quit' 5
wait_for 'running A long benchmark' 5
ok "q while a step runs asks first; n keeps it running"
keys c
# "cancelling" shows until the workers are gone; when that takes less than
# a poll interval, the verdict is already there
wait_for 'cancelling A long benchmark|CANCELLED' 5
ok "c asks the step to stop"
# lab.h promises about a second; a loaded 2-core machine is slower
wait_for 'CANCELLED' 60
wait_for '\[-\] 5 A long benchmark' 5
kill -0 "$SHELL_PID" || fail "the shell died"
ok "the step ended as cancelled and the shell is up"
grep -q '"cancelled"' "$XDG_STATE_HOME/mgpulab/progress.json" || fail "progress.json does not say cancelled"
ok "progress says cancelled"

# c with nothing running says so and changes nothing
keys c
wait_for 'nothing is running' 5
# the shell still runs steps
keys k k k k
keys r
wait_for '\(\*\) 1 Read this' 20 # a reading step is read, not passed
ok "a step runs after the cancel"

# q + y while the long step runs: the step is cancelled, the shell exits
# and leaves no rank worker behind
keys j j j j
keys r
wait_for 'running A long benchmark' 10
sleep 1
kids=$(pgrep -P "$SHELL_PID" | tr '\n' ' ')
keys q
wait_for 'Cancel it and quit' 5
keys y
wait_exit "$SHELL_PID" 60
for k in $kids; do
    if kill -0 "$k" 2>/dev/null && [ "$(ps -o stat= -p "$k" | cut -c1)" != Z ]; then
        fail "process $k ($(ps -o args= -p "$k")) outlived the shell"
    fi
done
ok "q + y with a step running cancels it and quits; no child left ($kids)"
