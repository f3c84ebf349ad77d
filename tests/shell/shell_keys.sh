#!/bin/bash
# shell_keys.sh - one key map (issue 10, items 3 and 8): the results pane's
# chart and algbw keys work and c still cancels; the timeline zooms without
# resizing the pane; Left/Right scroll a focused pane sideways (GPU14-15 of
# 2x-dgx-h100 at 120 columns); focus shows as "> " in NO_COLOR; Esc goes
# back one level; ? lists the pane keys and scrolls at 80x24.
source "$(dirname "$0")/tmux_lib.bash" "$1"
use_test_labs

start_shell 120 40 --backend sim --machine dgx-h100
wait_for 'Shell test lab' 20
keys Enter
wait_for '> Steps: 00-shelltest' 5
ok "focus is visible without colour"
keys j j
wait_for 'A quick all-reduce' 5
keys r
wait_for 'PASS +\(' 60
keys 3
wait_for '> 3 Results' 5
wait_for '\[g\] chart' 5
keys g
wait_for '\[g\] table' 5
wait_for '\[b\] hide algbw' 5
keys b
wait_for '\[b\] algbw' 5
ok "results: g toggles the chart, b the algbw series"
keys c
wait_for 'nothing is running' 5
screen | grep -q '\[g\] table' || fail "c changed the results view"
ok "c is cancel in the results pane too"
keys Escape j j j j
wait_for '> Steps' 5
wait_for 'Fill on two ranks' 5
keys r
wait_for 'PASS +\(' 60
keys 4
wait_for '> 4 Timeline' 5
wait_for 'i/o zoom' 5
wait_for '\) fit ' 5
keys i
wait_gone '\) fit ' 5
ok "timeline: i zooms"
keys Escape
wait_for '> Steps: 00-shelltest' 5
keys Escape
wait_for '> Labs' 5
ok "Esc goes back one level: pane -> steps -> labs"
keys q
wait_exit "$SHELL_PID" 10

# sideways: the 16-GPU matrix is wider than 120 columns
start_shell 120 40 --backend sim --machine 2x-dgx-h100
wait_for 'GPU0 ' 30
screen | grep -q 'GPU15' && fail "GPU15 fits at 120 columns: the test needs a wider machine"
keys 1
wait_for '> 1 Topology' 5
keys Right Right Right Right Right Right Right Right Right Right Right Right
wait_for 'GPU15' 5
wait_for 'NIC7' 5
ok "Right scrolls the focused topology pane sideways"
keys Home
wait_for 'GPU0 ' 5
keys q
wait_exit "$SHELL_PID" 10

# help at 80x24: the pane keys are there, the rest scrolls into view
start_shell 80 24 --backend sim --machine dgx-h100
wait_for 'Shell test lab' 20
keys '?'
wait_for 'Help: keys' 5
wait_for 'Tab / Shift-Tab' 5
for _ in 1 2 3 4 5 6; do keys j j j j j; done
wait_for 'i / o zoom' 5
wait_for 's summary' 5
ok "? lists the pane keys and scrolls at 80x24"
keys Escape
wait_gone 'Help: keys' 5
keys q
wait_exit "$SHELL_PID" 10
