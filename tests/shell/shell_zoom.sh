#!/bin/bash
# shell_zoom.sh - z gives the focused pane the whole screen below the top
# bar, its full width too (issue 26: at 80x24 it kept the lab list's 26
# columns, and lab 8's per-rank flight records and lab 9's fragmentation
# table were cut); z again, or Esc, gives the lists back.
source "$(dirname "$0")/tmux_lib.bash" "$1"
use_test_labs
start_shell 80 24 --backend sim --machine dgx-h100
wait_for 'Shell test lab' 20
keys Enter
wait_for 'Steps: 00-shelltest' 5
keys 3
wait_for '> 3 Results' 5
keys z
wait_gone 'Labs' 5
row=$(screen | sed -n 2p)
echo "$row" | grep -q '^┌─ .*3 Results' || fail "the maximised pane does not start at column 0: $row"
[ "$(screen | sed -n 2p | wc -m)" -ge 80 ] || fail "the maximised pane's frame is not 80 wide"
screen | grep -q 'Steps: 00-shelltest' && fail "the step list is still shown beside the maximised pane"
ok "z: the focused pane takes the full width at 80x24"
keys z
wait_for 'Labs' 5
wait_for 'Steps: 00-shelltest' 5
ok "z again: the lists are back"
keys z
wait_gone 'Labs' 5
keys Escape
wait_for 'Labs' 5
wait_for '> Steps: 00-shelltest' 5
ok "Esc leaves the maximised pane for the steps"
keys q
wait_exit "$SHELL_PID" 10
