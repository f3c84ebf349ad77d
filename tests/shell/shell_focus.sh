#!/bin/bash
# shell_focus.sh - a run's results come into view without taking focus
# (issue 10 walk, item 8's rules): after a step with results the pane still
# showed the topology, and pressing 3 to see them moved focus into the pane,
# so j scrolled it instead of going to the next step. Now the results pane
# is shown when the results arrive and focus stays in the steps list (a pane
# the learner picks during a run, with 1-5, stays: shell_work.c).
source "$(dirname "$0")/tmux_lib.bash" "$1"
use_test_labs
start_shell 80 24 --backend sim --machine dgx-h100
wait_for 'Shell test lab' 20
keys Enter
wait_for '> Steps: 00-shelltest' 5
keys j j
wait_for '─ A quick all-reduce ' 5
wait_for '─ 1 Topology ─ 2 ─ 3 ─ 4 ─ 5 ─' 5
keys r
wait_for 'step ended: passed' 60
wait_for '─ 1 ─ 2 ─ 3 Results ─ 4 ─ 5 ─' 5
wait_for 'all_reduce' 5
screen | grep -q '─ > 3 Results' && fail "the results took focus"
wait_for '> Steps: 00-shelltest' 5
ok "the results pane shows the results; focus stays on the steps"
keys j
wait_for '─ Edit the exercise ' 5
ok "j moves to the next step"

keys q
wait_exit "$SHELL_PID" 10
