#!/bin/bash
# shell_basic.sh - the shell at 120x40 on sim: lab list, SIMULATED banner,
# topology pane; a step runs to a verdict; too-small message at 60x20 and
# back; help; q quits and the process is gone.
source "$(dirname "$0")/tmux_lib.bash" "$1"
use_real_labs || echo "# labs/00-*/lab.lua not there yet: using tests/shell/labs"

start_shell 120 40 --backend sim --machine dgx-h100
wait_for 'SIMULATED machine dgx-h100' 5
ok "SIMULATED banner"
wait_for '\[.\] +0 [A-Za-z]' 20
ok "lab list"
wait_for '1 [Tt]opology' 5
wait_for 'GPU0' 20
ok "topology pane shows the machine"

# open lab 0, run its selected step, see the verdict
keys Enter
wait_for 'Steps: 00-' 5
keys r
wait_for '(PASS|FAIL|READ) +\(' 120
ok "a step ran to a verdict"

tm resize-window -t main -x 60 -y 20
wait_for 'mgpulab needs at least 80x24; this terminal is 60x20' 5
screen | grep -q 'SIMULATED' && fail "the full screen was not cleared below 80x24"
ok "too-small message at 60x20"
tm resize-window -t main -x 30 -y 8
wait_for 'this terminal' 5
wait_for '30x8' 5
ok "the message fits a 30x8 terminal"
tm resize-window -t main -x 120 -y 40
wait_for 'SIMULATED machine dgx-h100' 5
wait_gone 'needs at least' 5
wait_for 'Steps: 00-' 5
ok "full screen again at 120x40"

keys '?'
wait_for 'Help: keys' 5
wait_for 'cancel the running step' 5
keys Escape
wait_gone 'Help: keys' 5
ok "help opens and closes"

keys q
wait_exit "$SHELL_PID" 10
ok "q quits"
