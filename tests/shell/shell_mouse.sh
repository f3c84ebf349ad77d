#!/bin/bash
# shell_mouse.sh - the mouse (X10 reports, as xterm sends them): a click on
# a lab opens it, on a step selects it, on a pane's title shows that pane;
# the wheel scrolls the text under the pointer. Also a hint and the
# monochrome screen keeping the state marks.
source "$(dirname "$0")/tmux_lib.bash" "$1"
use_test_labs

# click ROW COL (0-based screen cell): press and release of button 1
click() {
    tm send-keys -t main -H 1b 5b 4d 20 "$(printf %x $(($2 + 33)))" "$(printf %x $(($1 + 33)))"
    tm send-keys -t main -H 1b 5b 4d 23 "$(printf %x $(($2 + 33)))" "$(printf %x $(($1 + 33)))"
}
wheel_down() { tm send-keys -t main -H 1b 5b 4d 61 "$(printf %x $(($2 + 33)))" "$(printf %x $(($1 + 33)))"; }
# row and column of the first match of a fixed string on the screen
# (in characters, not bytes: the frame's lines are multi-byte in UTF-8)
find_text() {
    screen | python3 -c '
import sys
want = sys.argv[1].lower()
for row, line in enumerate(sys.stdin.read().split("\n")):
    col = line.lower().find(want)
    if col >= 0:
        print(row, col)
        break
' "$1"
}

start_shell 120 40 --backend sim --machine dgx-h100
wait_for 'Shell test lab' 20
read -r row col < <(find_text 'Shell test lab')
click "$row" "$col"
wait_for 'Steps: 00-shelltest' 5
ok "a click on a lab opens it"

read -r row col < <(find_text 'Answer a question')
click "$row" "$col"
wait_for 'What colour is the sky' 5
ok "a click on a step selects it"

keys h
wait_for 'The sky on a clear day' 5
keys Escape
wait_gone 'The sky on a clear day' 5
keys h
wait_for 'It starts with b' 5
keys Escape
wait_gone 'It starts with b' 5
ok "h shows the hints in turn"

wait_for 'GPU0 +X ' 5
read -r row col < <(find_text '5 log')
[ -n "$col" ] || fail "no title '5 log' on the pane's frame"
click "$row" "$col"
wait_gone 'GPU0 +X ' 5
ok "a click on a pane's title shows that pane"
keys 1
wait_for 'GPU0 +X ' 5
ok "1 shows the topology pane again"

# a taller pane leaves the text too little room: it scrolls
for n in $(seq 1 12); do keys +; done
read -r row col < <(find_text 'Read this')
click "$row" "$col"
wait_for 'Welcome to the test lab' 5
read -r row col < <(find_text 'Welcome to the test lab')
wait_for ' 1-[0-9]+/[0-9]+ ' 5
wheel_down "$row" "$col"
wait_for ' 4-[0-9]+/[0-9]+ ' 5
ok "the wheel scrolls the text"
keys q
wait_exit "$SHELL_PID" 10
